// Money correctness where features combine (an adversarial review): holds with reversals, batches
// and transfers on the same wallet; captures, voids and expiries racing; batch reversals racing a
// single reversal of one of their legs; one request_id across verbs and dialects; wallets that store
// more places than they show, balances imported below zero and imported zero entries, through
// wallet/v1, the plugin's namespace and the console; deletions racing money; and the summary,
// balances and statements read while all of it runs. After each scenario the ledger's invariants
// hold: every balance is the sum of its entries, the head of its chain, and (here) never below what
// its counting holds reserve; every entry has its one transaction.created event; every statement
// adds up.
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { GUARDED } from "./compat-helpers";
import { consoleOf, form, noticeLeft } from "./console-helpers";
import {
  appAt,
  arrivingBeforeWrite,
  balanceOf,
  CLEAN,
  call,
  credit,
  debit,
  INSUFFICIENT,
  importedEntry,
  type Json,
  ledgerViolations,
  makeAdmin,
  makeKey,
  makeUser,
  makeWallet,
  mulberry32,
  PASSWORD,
  type Reply,
  runCron,
  storingMore,
  type TestUser,
  tableCounts,
  testApp,
  transfer,
  unique,
} from "./helpers";

const NS = "/wp-json/rimplenet/v1";

/** A request in the plugin's namespace (on for this request), JSON body. */
const plugin = (method: string, path: string, auth: string, body?: Json, query?: Json) =>
  call(method, `${NS}${path}`, { auth, body, query, vars: GUARDED });

/** `request_id` sent at once as the plugin's credit (of `credited`), debit and transfer (of 1). */
const asEveryPluginMove = (
  request_id: string,
  {
    user,
    other,
    wallet,
    credited,
  }: { user: TestUser; other: TestUser; wallet: string; credited: string },
) =>
  Promise.all([
    plugin("POST", "/credits", key, {
      user_id: user.id,
      wallet_id: wallet,
      amount: credited,
      request_id,
    }),
    plugin("POST", "/debits", key, {
      user_id: user.id,
      wallet_id: wallet,
      amount: "1",
      request_id,
    }),
    plugin("POST", "/transfers", admin.bearer, {
      transfer_from_user: user.id,
      transfer_to_user: other.id,
      wallet_id: wallet,
      amount_to_transfer: "1",
      request_id,
    }),
  ]);

let admin: TestUser;
/** A read-write key of the administrator's: keys never expire, so they work with any app clock. */
let key: string;

beforeAll(async () => {
  admin = await makeAdmin();
  key = (await makeKey(admin, "read-write")).header;
});

/** The wallets this file made: its invariants are checked on them (other files share the database). */
const mine = new Set<string>();
const newWallet = async () => {
  const id = await makeWallet(admin);
  mine.add(id);
  return id;
};
/** A 2-decimal wallet storing 3 places, as the WordPress import makes one. */
const importedWallet = async () => {
  const id = await storingMore(1);
  mine.add(id);
  return id;
};

/** A fresh subscriber with `amount` in a fresh wallet (or the one given). */
async function funded(amount: string | number = "100.00", wallet?: string) {
  const user = await makeUser();
  const w = wallet ?? (await newWallet());
  if (Number(amount) > 0) {
    const res = await credit(admin, { user_id: user.id, wallet_id: w, amount });
    expect(res.status, res.text).toBe(200);
  }
  return { user, wallet: w };
}

const post = (path: string, body: Json = {}, app?: ReturnType<typeof testApp>) =>
  call("POST", path, { auth: key, body, app });

const hold = (userId: number, wallet: string, amount: string | number, extra: Json = {}) =>
  post("/holds", {
    user_id: userId,
    wallet_id: wallet,
    amount,
    request_id: unique("h"),
    ...extra,
  });

async function placed(userId: number, wallet: string, amount: string | number, extra: Json = {}) {
  const res = await hold(userId, wallet, amount, extra);
  expect(res.status, res.text).toBe(200);
  return res.body.data.hold_id as number;
}

const reverse = (id: number, requestId = unique("rev"), app?: ReturnType<typeof testApp>) =>
  post(`/transactions/${id}/reverse`, { request_id: requestId }, app);

const reverseBatch = (id: number) => post(`/batches/${id}/reverse`);

/** GET /balances' row for one wallet: balance, held, available (major units). */
async function position(userId: number, wallet: string, app?: ReturnType<typeof testApp>) {
  const res = await call("GET", "/balances", { auth: key, app, query: { user_id: userId } });
  expect(res.status, res.text).toBe(200);
  const row = (res.body.data as Json[]).find((w) => w.wallet_id === wallet);
  return row ? { balance: row.balance, held: row.held, available: row.available } : undefined;
}

/** GET /wallets/{id}/summary's figures. */
async function summary(userId: number, wallet: string, app?: ReturnType<typeof testApp>) {
  const res = await call("GET", `/wallets/${wallet}/summary`, {
    auth: key,
    app,
    query: { user_id: userId },
  });
  expect(res.status, res.text).toBe(200);
  return res.body.data as Json;
}

/**
 * The whole-history statement of one wallet, read two seconds on (a statement ends at the last
 * second that is over, so it counts every entry written so far); the service checks it adds up.
 */
async function statementAddsUp(userId: number, wallet: string) {
  const res = await call("GET", "/statements", {
    auth: key,
    app: appAt(Date.now() + 2000),
    query: { user_id: userId, wallet_id: wallet, per_page: 100 },
  });
  expect(res.status, res.text).toBe(200);
  return res.body.data as Json;
}

/**
 * The invariants this file checks beyond ledgerViolations(): no balance below what its counting
 * holds reserve (unless it was imported below zero and holds nothing), every entry the service wrote
 * has exactly one transaction.created event, every captured hold exactly one DEBIT naming it and
 * every other hold none.
 */
async function combinedViolations(nowS = Math.floor(Date.now() / 1000)) {
  const wallets = JSON.stringify([...mine]);
  const overHeld = await env.DB.prepare(
    `SELECT b.user_id, b.wallet_id, b.balance_minor, (SELECT coalesce(sum(amount_minor), 0) FROM holds h
       WHERE h.user_id = b.user_id AND h.wallet_id = b.wallet_id AND h.status = 'held'
         AND h.expires_at_s > ?1) AS held
     FROM balances b
     WHERE b.wallet_id IN (SELECT value FROM json_each(?2))
       AND b.balance_minor < (SELECT coalesce(sum(amount_minor), 0) FROM holds h
         WHERE h.user_id = b.user_id AND h.wallet_id = b.wallet_id AND h.status = 'held'
           AND h.expires_at_s > ?1)`,
  )
    .bind(nowS, wallets)
    .all();
  // Events are counted in one pass: no index finds an entry's event by its subject, and a lookup
  // per entry reads the whole table each time, which grows with every file before this one.
  const eventless = await env.DB.prepare(
    `SELECT t.id FROM transactions t
     LEFT JOIN (SELECT subject, count(*) AS n FROM events WHERE type = 'transaction.created'
       GROUP BY subject) e ON e.subject = CAST(t.id AS TEXT)
     WHERE t.wallet_id IN (SELECT value FROM json_each(?1)) AND t.imported = 0
       AND coalesce(e.n, 0) <> 1`,
  )
    .bind(wallets)
    .all();
  const captures = await env.DB.prepare(
    `SELECT h.id, h.status, (SELECT count(*) FROM transactions t WHERE t.hold_id = h.id) AS n
     FROM holds h
     WHERE h.wallet_id IN (SELECT value FROM json_each(?1))
       AND ((h.status = 'captured') <> ((SELECT count(*) FROM transactions t WHERE t.hold_id = h.id) = 1)
         OR (SELECT count(*) FROM transactions t WHERE t.hold_id = h.id) > 1)`,
  )
    .bind(wallets)
    .all();
  return {
    ledger: await ledgerViolations(),
    overHeld: overHeld.results,
    eventless: eventless.results,
    captures: captures.results,
  };
}
const SOUND = { ledger: CLEAN, overHeld: [], eventless: [], captures: [] };

const no5xx = (answers: Reply[]) =>
  expect(answers.filter((r) => r.status >= 500).map((r) => r.text)).toEqual([]);

describe("holds beside reversals, debits, transfers and batches on one wallet", () => {
  it("a reversal of the credit a hold stands on is refused until the hold is voided", async () => {
    const { user, wallet } = await funded("0");
    const c = await credit(admin, { user_id: user.id, wallet_id: wallet, amount: "100" });
    const id = await placed(user.id, wallet, "80");
    const before = await tableCounts();
    expect((await reverse(c.body.data.transaction_id)).body).toEqual(INSUFFICIENT);
    expect(await tableCounts()).toEqual(before);
    expect((await post(`/holds/${id}/void`)).status).toBe(200);
    expect((await reverse(c.body.data.transaction_id)).status).toBe(200);
    expect(await position(user.id, wallet)).toEqual({ balance: 0, held: 0, available: 0 });
    expect(await combinedViolations()).toEqual(SOUND);
  });

  it("a transfer received and then held cannot be reversed from either half while held", async () => {
    const from = await funded("50");
    const to = await makeUser();
    const t = await transfer(admin, {
      from_user_id: from.user.id,
      to_user_id: to.id,
      wallet_id: from.wallet,
      amount: "50",
    });
    expect(t.status, t.text).toBe(200);
    const { debit_transaction_id: d, credit_transaction_id: cr } = t.body.data;
    const id = await placed(to.id, from.wallet, "0.01");
    const before = await tableCounts();
    for (const half of [d, cr]) expect((await reverse(half)).body).toEqual(INSUFFICIENT);
    expect(await tableCounts()).toEqual(before);
    expect((await post(`/holds/${id}/capture`)).status).toBe(200);
    // Still refused: 49.99 is all the receiver has left.
    for (const half of [d, cr]) expect((await reverse(half)).body).toEqual(INSUFFICIENT);
    expect(await position(to.id, from.wallet)).toEqual({
      balance: 49.99,
      held: 0,
      available: 49.99,
    });
    expect(await combinedViolations()).toEqual(SOUND);
  });

  it("reversing a capture credits it back once; the hold stays captured, nothing is held", async () => {
    const { user, wallet } = await funded("100");
    const id = await placed(user.id, wallet, "40");
    const captured = await post(`/holds/${id}/capture`, { amount: "15" });
    expect(captured.status, captured.text).toBe(200);
    const debitId = captured.body.data.transaction_id as number;
    const answers = await Promise.all([reverse(debitId), reverse(debitId), reverse(debitId)]);
    no5xx(answers);
    expect(answers.filter((r) => r.status === 200)).toHaveLength(1);
    for (const r of answers.filter((r) => r.status !== 200))
      expect(r.body.message).toBe("Transaction already reversed");
    expect(await position(user.id, wallet)).toEqual({ balance: 100, held: 0, available: 100 });
    const read = await call("GET", `/holds/${id}`, { auth: key });
    expect(read.body.data).toMatchObject({ status: "captured", captured_amount: 15 });
    // The hold is resolved for good: its capture reversed does not reopen it.
    expect((await post(`/holds/${id}/capture`)).status).toBe(409);
    expect((await post(`/holds/${id}/void`)).status).toBe(409);
    expect(await combinedViolations()).toEqual(SOUND);
  });

  it("a batch whose debit leg reaches into a hold is refused whole, naming that leg", async () => {
    const { user, wallet } = await funded("100");
    const other = await makeUser();
    await placed(user.id, wallet, "60");
    const before = await tableCounts();
    const res = await post("/batches", {
      request_id: unique("b"),
      operations: [
        { type: "credit", user_id: other.id, wallet_id: wallet, amount: "5" },
        { type: "debit", user_id: user.id, wallet_id: wallet, amount: "40" },
        {
          type: "transfer",
          from_user_id: user.id,
          to_user_id: other.id,
          wallet_id: wallet,
          amount: "0.01",
        },
      ],
    });
    expect(res.body).toEqual({
      status_code: 400,
      status: false,
      message: "Insufficient Balance",
      error: { "operations[2].amount": "Insufficient Balance" },
    });
    expect(await tableCounts()).toEqual(before);
    expect(await combinedViolations()).toEqual(SOUND);
  });

  it("a batch that paid a user cannot be reversed while a hold stands on that money", async () => {
    const payer = await funded("30");
    const payee = await makeUser();
    const b = await post("/batches", {
      request_id: unique("b"),
      operations: [
        {
          type: "transfer",
          from_user_id: payer.user.id,
          to_user_id: payee.id,
          wallet_id: payer.wallet,
          amount: "20",
        },
        { type: "debit", user_id: payer.user.id, wallet_id: payer.wallet, amount: "1" },
      ],
    });
    expect(b.status, b.text).toBe(200);
    const holdId = await placed(payee.id, payer.wallet, "20");
    const before = await tableCounts();
    const refused = await reverseBatch(b.body.data.batch_id);
    expect(refused.body).toEqual({
      status_code: 400,
      status: false,
      message: "Insufficient Balance",
      error: {
        amount: "Insufficient Balance",
        transaction_id: String(b.body.data.transaction_ids[1]),
      },
    });
    expect(await tableCounts()).toEqual(before);
    expect((await post(`/holds/${holdId}/void`)).status).toBe(200);
    const reversed = await reverseBatch(b.body.data.batch_id);
    expect(reversed.status, reversed.text).toBe(200);
    expect(await balanceOf(admin, payer.user.id, payer.wallet)).toBe(30);
    expect(await balanceOf(admin, payee.id, payer.wallet)).toBe(0);
    expect(await combinedViolations()).toEqual(SOUND);
  });
});

describe("races where features meet", () => {
  it("captures, voids, debits and the cron racing at a hold's expiry: one outcome, never an overdraft", async () => {
    const T0 = Date.UTC(2031, 0, 1, 12, 0, 0);
    const at = (ms: number) => appAt(ms);
    for (let round = 0; round < 6; round++) {
      const { user, wallet } = await funded("100");
      const placedRes = await post(
        "/holds",
        {
          user_id: user.id,
          wallet_id: wallet,
          amount: "100",
          request_id: unique("h"),
          expires_in: 60,
        },
        at(T0 + round * 120_000),
      );
      expect(placedRes.status, placedRes.text).toBe(200);
      const id = placedRes.body.data.hold_id as number;
      const E = Date.parse(placedRes.body.data.expires_at);
      const debitAt = (ms: number) =>
        post(
          "/debits",
          { user_id: user.id, wallet_id: wallet, amount: "100", request_id: unique("d") },
          at(ms),
        );
      const racers: (() => Promise<Reply | undefined>)[] = [
        () => post(`/holds/${id}/capture`, {}, at(E - 1000)),
        () => post(`/holds/${id}/void`, {}, at(E - 1000)),
        () => post(`/holds/${id}/capture`, {}, at(E)),
        () => debitAt(E),
        () => post(`/holds/${id}/capture`, { amount: "1" }, at(E - 1000)),
        () => debitAt(E - 1000),
        () => runCron(E).then(() => undefined),
      ];
      // Each round starts them in another order.
      const order = racers.map((_, i) => (i * (round + 1) + round) % racers.length);
      const started = [...new Set(order)].map((i, place) =>
        new Promise<void>((r) => setTimeout(r, place * 2)).then(() => racers[i]!()),
      );
      const answers = (await Promise.all(started)).filter((r): r is Reply => r !== undefined);
      no5xx(answers);
      const h = (await call("GET", `/holds/${id}`, { auth: key, app: at(E + 1000) })).body.data;
      const won = (message: string) => answers.filter((r) => r.body.message === message).length;
      const debited = won("Transaction Completed");
      // The hold resolved once, and only its own way.
      expect(won("Hold captured") + won("Hold voided")).toBe(
        h.status === "captured" || h.status === "voided" ? 1 : 0,
      );
      expect(debited).toBeLessThanOrEqual(1);
      const captured = h.status === "captured" ? h.captured_amount : 0;
      expect(await balanceOf(admin, user.id, wallet)).toBe(100 - captured - 100 * debited);
      expect(await combinedViolations(Math.floor(E / 1000) + 1)).toEqual(SOUND);
    }
  });

  it("a batch reversal racing single reversals of its legs: the batch or the single ones, never both; every loser 409", async () => {
    const { user, wallet } = await funded("100");
    const other = await makeUser();
    const b = await post("/batches", {
      request_id: unique("b"),
      operations: [
        { type: "debit", user_id: user.id, wallet_id: wallet, amount: "10" },
        {
          type: "transfer",
          from_user_id: user.id,
          to_user_id: other.id,
          wallet_id: wallet,
          amount: "20",
        },
        { type: "credit", user_id: other.id, wallet_id: wallet, amount: "3" },
      ],
    });
    expect(b.status, b.text).toBe(200);
    const ids = b.body.data.transaction_ids as number[];
    const answers = await Promise.all([
      reverseBatch(b.body.data.batch_id),
      reverse(ids[1]!),
      reverse(ids[2]!),
      reverseBatch(b.body.data.batch_id),
      reverse(ids[0]!),
      reverse(ids[3]!),
      reverse(ids[2]!),
    ]);
    no5xx(answers);
    for (const r of answers.filter((r) => r.status !== 200)) expect(r.status, r.text).toBe(409);
    const batchWon = answers[0]!.status === 200 || answers[3]!.status === 200;
    const read = await call("GET", `/batches/${b.body.data.batch_id}`, { auth: key });
    expect(read.body.data.status).toBe(batchWon ? "reversed" : "completed");
    if (batchWon) {
      expect(answers.filter((r) => r.status === 200)).toHaveLength(1);
      expect(await balanceOf(admin, user.id, wallet)).toBe(100);
      expect(await balanceOf(admin, other.id, wallet)).toBe(0);
    }
    // Each leg reversed at most once, the transfer's halves together.
    const reversedOnce = await env.DB.prepare(
      `SELECT reverses_id, count(*) AS n FROM transactions WHERE reverses_id IN (${ids.join(",")})
       GROUP BY reverses_id`,
    ).all<{ n: number }>();
    for (const r of reversedOnce.results) expect(r.n).toBe(1);
    const halves = reversedOnce.results.filter((r) =>
      [ids[1], ids[2]].includes((r as Json).reverses_id),
    );
    expect([0, 2]).toContain(halves.length);
    expect(await combinedViolations()).toEqual(SOUND);
  });

  it("one request_id sent at once as a credit, a debit, a hold, a transfer and a reversal: one wins", async () => {
    const { user, wallet } = await funded("100");
    const other = await makeUser();
    const old = await credit(admin, { user_id: user.id, wallet_id: wallet, amount: "1" });
    const K = unique("K");
    const answers = await Promise.all([
      post("/credits", { user_id: user.id, wallet_id: wallet, amount: "5", request_id: K }),
      post("/debits", {
        user_id: user.id,
        wallet_id: wallet,
        amount: "5",
        request_id: K.toUpperCase(),
      }),
      post("/holds", { user_id: user.id, wallet_id: wallet, amount: "5", request_id: K }),
      post("/transfers", {
        from_user_id: user.id,
        to_user_id: other.id,
        wallet_id: wallet,
        amount: "5",
        request_id: K,
      }),
      reverse(old.body.data.transaction_id, K),
      post("/credits", { user_id: user.id, wallet_id: wallet, amount: "7", request_id: K }),
    ]);
    no5xx(answers);
    expect(answers.filter((r) => r.status === 200)).toHaveLength(1);
    for (const r of answers.filter((r) => r.status !== 200)) {
      expect(r.status, r.text).toBe(409);
      expect(r.body.message).toBe("Transaction already exists");
    }
    const usedBy = await env.DB.prepare(
      `SELECT (SELECT count(*) FROM transactions WHERE user_id = ?1 AND request_key = ?2)
            + (SELECT count(*) FROM holds WHERE user_id = ?1 AND request_key = ?2) AS n`,
    )
      .bind(user.id, K.toLowerCase())
      .first<{ n: number }>();
    expect(usedBy!.n).toBe(1);
    expect(await combinedViolations()).toEqual(SOUND);
  });

  it("a key taken by a hold answers 409 naming the hold from every verb and the plugin's namespace", async () => {
    const { user, wallet } = await funded("100");
    const other = await makeUser();
    const K = unique("k").replaceAll(/[^a-z0-9]/gi, "_");
    const holdId = await placed(user.id, wallet, "10", { request_id: K });
    const conflict = {
      status_code: 409,
      status: false,
      message: "Transaction already exists",
      error: { hold_id: String(holdId), exist: "Hold already placed" },
    };
    const before = await tableCounts();
    const old = await env.DB.prepare("SELECT id FROM transactions WHERE user_id = ? LIMIT 1")
      .bind(user.id)
      .first<{ id: number }>();
    const v1 = await Promise.all([
      post("/credits", {
        user_id: user.id,
        wallet_id: wallet,
        amount: "1",
        request_id: K.toUpperCase(),
      }),
      post("/debits", { user_id: user.id, wallet_id: wallet, amount: "1", request_id: K }),
      post("/holds", { user_id: user.id, wallet_id: wallet, amount: "1", request_id: K }),
      post("/transfers", {
        from_user_id: user.id,
        to_user_id: other.id,
        wallet_id: wallet,
        amount: "1",
        request_id: K,
      }),
      reverse(old!.id, K),
    ]);
    for (const r of v1) expect(r.body, r.text).toEqual(conflict);
    const pluginAnswers = await asEveryPluginMove(K, { user, other, wallet, credited: "1" });
    no5xx(pluginAnswers);
    for (const r of pluginAnswers) expect(r.status, r.text).toBe(409);
    expect(await tableCounts()).toEqual(before);
    expect(await combinedViolations()).toEqual(SOUND);
  });
});

/** A user's stored balance in a wallet's units, straight from D1 (0 without a row). */
const stored = async (userId: number, walletId: string) =>
  (
    await env.DB.prepare("SELECT balance_minor FROM balances WHERE user_id = ? AND wallet_id = ?")
      .bind(userId, walletId)
      .first<{ balance_minor: number }>()
  )?.balance_minor ?? 0;

/** The figures every surface answers for one user's wallet must agree. */
async function surfacesAgree(userId: number, wallet: string) {
  const s = await summary(userId, wallet);
  const p = await position(userId, wallet);
  const b = await balanceOf(admin, userId, wallet);
  const ps = await plugin("GET", "/wallet-summary", key, undefined, {
    user_id: userId,
    wallet_id: wallet,
  });
  expect(ps.status, ps.text).toBe(200);
  const st = await statementAddsUp(userId, wallet);
  expect(s.balance).toBe(b);
  expect(p, `GET /balances lists ${wallet}`).toBeDefined();
  expect([p!.balance, p!.held, p!.available]).toEqual([s.balance, s.held, s.available]);
  expect(s.available).toBeCloseTo(s.balance - s.held, 9);
  expect(s.entry_count).toBe(ps.body.data.entry_count);
  expect(s.last_entry?.transaction_id ?? null).toBe(ps.body.data.last_txn_id);
  expect([
    ps.body.data.wallet_balance_raw,
    ps.body.data.wallet_held_raw,
    ps.body.data.wallet_available_raw,
  ]).toEqual([s.balance, s.held, s.available]);
  expect(st.closing_balance).toBe(b);
  // Every entry is on the statement since 1970 (none of this file's is dated earlier).
  expect(st.count).toBe(s.entry_count);
  return s;
}

describe("a wallet storing more places than it shows, through every dialect", () => {
  it("holds, captures, plugin-rounded credits and debits and reversals keep every figure exact", async () => {
    const wallet = await importedWallet(); // 2 decimals shown, 3 stored
    const user = await makeUser();
    const other = await makeUser();
    const c = await plugin("POST", "/credits", key, {
      user_id: user.id,
      wallet_id: wallet,
      amount: "12.3456",
      request_id: unique("pc").replaceAll(/[^a-z0-9]/gi, "_"),
    });
    expect(c.status, c.text).toBe(200);
    expect(await stored(user.id, wallet)).toBe(12_346);
    const id = await placed(user.id, wallet, "12.34");
    expect(await surfacesAgree(user.id, wallet)).toMatchObject({
      balance: 12.346,
      held: 12.34,
      available: 0.006,
    });
    // 0.01 is past what is available (0.006), in either dialect; 0.0055 rounds to 0.006, which is not.
    expect(
      (await debit(admin, { user_id: user.id, wallet_id: wallet, amount: "0.01" })).body,
    ).toEqual(INSUFFICIENT);
    const pd = (amount: string) =>
      plugin("POST", "/debits", key, {
        user_id: user.id,
        wallet_id: wallet,
        amount,
        request_id: unique("pd").replaceAll(/[^a-z0-9]/gi, "_"),
      });
    expect((await pd("0.0065")).body.message).toBe("Insufficient Balance");
    const pt = await plugin("POST", "/transfers", admin.bearer, {
      transfer_from_user: user.id,
      transfer_to_user: other.id,
      wallet_id: wallet,
      amount_to_transfer: "0.0065",
    });
    expect(pt.status, pt.text).toBe(400);
    expect(pt.body.message).toBe("Insufficient Balance");
    const small = await pd("0.0055");
    expect(small.status, small.text).toBe(200);
    expect(await stored(user.id, wallet)).toBe(12_340);
    const cap = await post(`/holds/${id}/capture`, { amount: "12.3" });
    expect(cap.status, cap.text).toBe(200);
    expect(await surfacesAgree(user.id, wallet)).toMatchObject({
      balance: 0.04,
      held: 0,
      available: 0.04,
    });
    // The plugin-rounded credit reversed debits exactly what it moved, and no more is left to take.
    const rev = await reverse(c.body.data.transaction_id);
    expect(rev.body).toEqual(INSUFFICIENT);
    const revCap = await reverse(cap.body.data.transaction_id);
    expect(revCap.status, revCap.text).toBe(200);
    // 12.340 left: the 12.346 credit cannot be undone until the 0.006 debited of it comes back.
    expect((await reverse(c.body.data.transaction_id)).body).toEqual(INSUFFICIENT);
    expect((await reverse(small.body.data.transaction_id)).status).toBe(200);
    const rev2 = await reverse(c.body.data.transaction_id);
    expect(rev2.status, rev2.text).toBe(200);
    expect(await stored(user.id, wallet)).toBe(0);
    await surfacesAgree(user.id, wallet);
    expect(await combinedViolations()).toEqual(SOUND);
  });

  it("a batch with plugin-shaped amounts is refused as wallet/v1 refuses them, and writes nothing", async () => {
    const wallet = await importedWallet();
    const user = await makeUser();
    const before = await tableCounts();
    const res = await post("/batches", {
      request_id: unique("b"),
      operations: [{ type: "credit", user_id: user.id, wallet_id: wallet, amount: "1.005" }],
    });
    expect(res.status, res.text).toBe(400);
    expect(await tableCounts()).toEqual(before);
  });
});

describe("a balance imported below zero, through every dialect", () => {
  it("refuses holds and every way out, takes credits, and every surface agrees", async () => {
    const wallet = await importedWallet();
    const user = await makeUser();
    const other = await makeUser();
    await importedEntry(user.id, wallet, "CREDIT", 5_000, "5", 0, 1_600_000_000);
    await importedEntry(user.id, wallet, "DEBIT", 105_125, "105.125", 5_000, 1_600_000_100);
    const before = await tableCounts();
    expect((await hold(user.id, wallet, "0.01")).body).toEqual(INSUFFICIENT);
    expect(
      (
        await post("/batches", {
          request_id: unique("b"),
          operations: [
            { type: "credit", user_id: other.id, wallet_id: wallet, amount: "1" },
            {
              type: "transfer",
              from_user_id: user.id,
              to_user_id: other.id,
              wallet_id: wallet,
              amount: "0.01",
            },
          ],
        })
      ).body,
    ).toEqual({
      status_code: 400,
      status: false,
      message: "Insufficient Balance",
      error: { "operations[1].amount": "Insufficient Balance" },
    });
    const pt = await plugin("POST", "/transfers", admin.bearer, {
      transfer_from_user: user.id,
      transfer_to_user: other.id,
      wallet_id: wallet,
      amount_to_transfer: "1",
    });
    expect(pt.status, pt.text).toBe(400);
    expect(pt.body.error).toContain("mature wallet - [₦-100.13]");
    expect(
      (
        await plugin("POST", "/debits", key, {
          user_id: user.id,
          wallet_id: wallet,
          amount: "0.001",
          request_id: unique("pd").replaceAll(/[^a-z0-9]/gi, "_"),
        })
      ).body.message,
    ).toBe("Insufficient Balance");
    expect(await tableCounts()).toEqual(before);
    expect(await surfacesAgree(user.id, wallet)).toMatchObject({
      balance: -100.125,
      held: 0,
      available: -100.125,
    });
    // A credit in a batch with a debit of it: the debit may not take it back below where it was.
    const b = await post("/batches", {
      request_id: unique("b"),
      operations: [
        { type: "credit", user_id: user.id, wallet_id: wallet, amount: "150" },
        {
          type: "transfer",
          from_user_id: user.id,
          to_user_id: other.id,
          wallet_id: wallet,
          amount: "49.87",
        },
      ],
    });
    expect(b.status, b.text).toBe(200);
    expect(await stored(user.id, wallet)).toBe(5);
    // Now there is something to hold: 0.005 stored, nothing displayable placeable past it.
    expect((await hold(user.id, wallet, "0.01")).body).toEqual(INSUFFICIENT);
    expect((await reverse(b.body.data.transaction_ids[0])).body).toEqual(INSUFFICIENT);
    const rb = await reverseBatch(b.body.data.batch_id);
    expect(rb.status, rb.text).toBe(400);
    // The transfer reversed alone brings 49.87 back.
    const rt = await reverse(b.body.data.transaction_ids[2]);
    expect(rt.status, rt.text).toBe(200);
    await surfacesAgree(user.id, wallet);
    await surfacesAgree(other.id, wallet);
    expect(await combinedViolations()).toEqual(SOUND);
  });
});

/** An imported transfer (two posts linked by alt_transfer_id), written as the import writes it. */
async function importedTransfer(
  from: number,
  to: number,
  wallet: string,
  amountMinor: number,
  amountText: string,
) {
  const link = `wp:${unique("t")}`;
  const at = 1_600_000_200;
  const rows = [
    [from, "DEBIT", await stored(from, wallet), -amountMinor],
    [to, "CREDIT", await stored(to, wallet), amountMinor],
  ] as const;
  for (const [userId, type, before, signed] of rows) {
    const tag = unique("imp");
    await env.DB.prepare(
      `INSERT INTO transactions (user_id, wallet_id, txn_type, amount_minor, amount_text,
         balance_before_minor, balance_after_minor, request_id, request_key, transfer_id, note, title,
         slug_base, slug, created_at_s, imported)
       VALUES (?, ?, ?, ?, ?, ?, ?, '', NULL, ?, '', 't', ?, ?, ?, 1)`,
    )
      .bind(
        userId,
        wallet,
        type,
        amountMinor,
        amountText,
        before,
        before + signed,
        link,
        tag,
        tag,
        at,
      )
      .run();
  }
  const ids = await env.DB.prepare("SELECT id FROM transactions WHERE transfer_id = ? ORDER BY id")
    .bind(link)
    .all<{ id: number }>();
  return ids.results.map((r) => r.id);
}

describe("imported entries of zero, and imported transfers", () => {
  it("a zero entry, or a transfer with a zero half, is refused by every way of reversing it", async () => {
    const wallet = await importedWallet();
    const [a, b] = [await makeUser(), await makeUser()];
    await importedEntry(a.id, wallet, "CREDIT", 10_000, "10", 0, 1_600_000_000);
    await importedEntry(a.id, wallet, "DEBIT", 0, "-0", 10_000, 1_600_000_050);
    const zero = (await env.DB.prepare(
      "SELECT id FROM transactions WHERE user_id = ? AND amount_minor = 0",
    )
      .bind(a.id)
      .first<{ id: number }>())!.id;
    const [d, cr] = await importedTransfer(a.id, b.id, wallet, 0, "0");
    const before = await tableCounts();
    for (const id of [zero, d!, cr!]) {
      const res = await reverse(id);
      expect(res.body, res.text).toEqual({
        status_code: 400,
        status: false,
        message: "invalid input",
        error: { id: "a transaction of zero cannot be reversed" },
      });
    }
    expect(await tableCounts()).toEqual(before);
    // Lists of the plugin's namespace read them.
    for (const path of ["/credits", "/debits", "/transfers"]) {
      const res = await plugin("GET", path, key);
      no5xx([res]);
    }
    const tr = await plugin("GET", "/transfers", admin.bearer, undefined, { transfer_id: d! });
    expect(tr.status, tr.text).toBe(200);
    expect(tr.body.data.transferAmount).toBe("0");
    await surfacesAgree(a.id, wallet);
    await surfacesAgree(b.id, wallet);
    expect(await combinedViolations()).toEqual(SOUND);
  });

  it("an imported transfer reverses as a whole from either half, once, however many race", async () => {
    const wallet = await importedWallet();
    const [a, b] = [await makeUser(), await makeUser()];
    await importedEntry(a.id, wallet, "CREDIT", 10_000, "10", 0, 1_600_000_000);
    const [d, cr] = await importedTransfer(a.id, b.id, wallet, 2_345, "2.345");
    const answers = await Promise.all([reverse(d!), reverse(cr!), reverse(d!), reverse(cr!)]);
    no5xx(answers);
    expect(answers.filter((r) => r.status === 200)).toHaveLength(1);
    expect(await stored(a.id, wallet)).toBe(10_000);
    expect(await stored(b.id, wallet)).toBe(0);
    await surfacesAgree(a.id, wallet);
    await surfacesAgree(b.id, wallet);
    expect(await combinedViolations()).toEqual(SOUND);
  });
});

describe("a storm of every verb at once on a few users and one wallet", () => {
  it("answers below 500 and leaves the ledger, the holds and the events sound", async () => {
    const rand = mulberry32(20261207);
    const pick = <T>(xs: T[]) => xs[Math.floor(rand() * xs.length)]!;
    const wallet = await newWallet();
    const users = [await makeUser(), await makeUser(), await makeUser()];
    for (const u of users)
      expect((await credit(admin, { user_id: u.id, wallet_id: wallet, amount: "50" })).status).toBe(
        200,
      );
    const entryIds: number[] = [];
    const holdIds: number[] = [];
    const batchIds: number[] = [];
    const amount = () => (1 + Math.floor(rand() * 2000)) / 100;
    const part = () => (1 + Math.floor(rand() * 800)) / 100;
    const keys: string[] = [];
    const keyOf = () => (keys.length > 0 && rand() < 0.15 ? pick(keys) : unique("s"));
    const op = (): Promise<Reply> => {
      const [u, v] = [pick(users), pick(users)];
      const k = keyOf();
      keys.push(k);
      switch (Math.floor(rand() * 10)) {
        case 0:
          return post("/credits", {
            user_id: u.id,
            wallet_id: wallet,
            amount: amount(),
            request_id: k,
          });
        case 1:
          return post("/debits", {
            user_id: u.id,
            wallet_id: wallet,
            amount: amount(),
            request_id: k,
          });
        case 2:
          return post("/holds", {
            user_id: u.id,
            wallet_id: wallet,
            amount: amount(),
            request_id: k,
          });
        case 3:
          return holdIds.length === 0
            ? post("/credits", { user_id: u.id, wallet_id: wallet, amount: 1, request_id: k })
            : post(`/holds/${pick(holdIds)}/capture`, rand() < 0.5 ? {} : { amount: part() });
        case 4:
          return holdIds.length === 0
            ? post("/credits", { user_id: u.id, wallet_id: wallet, amount: 1, request_id: k })
            : post(`/holds/${pick(holdIds)}/void`);
        case 5:
          return u.id === v.id
            ? post("/debits", { user_id: u.id, wallet_id: wallet, amount: 1, request_id: k })
            : post("/transfers", {
                from_user_id: u.id,
                to_user_id: v.id,
                wallet_id: wallet,
                amount: amount(),
                request_id: k,
              });
        case 6:
          return entryIds.length === 0
            ? post("/credits", { user_id: u.id, wallet_id: wallet, amount: 1, request_id: k })
            : reverse(pick(entryIds), k);
        case 7:
          return post("/batches", {
            request_id: k,
            operations: [
              { type: "debit", user_id: u.id, wallet_id: wallet, amount: part() },
              ...(u.id === v.id
                ? []
                : [
                    {
                      type: "transfer",
                      from_user_id: v.id,
                      to_user_id: u.id,
                      wallet_id: wallet,
                      amount: part(),
                    },
                  ]),
              { type: "credit", user_id: v.id, wallet_id: wallet, amount: part() },
            ],
          });
        case 8:
          return batchIds.length === 0
            ? post("/credits", { user_id: u.id, wallet_id: wallet, amount: 1, request_id: k })
            : reverseBatch(pick(batchIds));
        default: {
          // A read while the rest writes: a summary, a statement (which the service refuses to
          // answer unless it adds up), or its CSV.
          const read = Math.floor(rand() * 3);
          if (read === 0)
            return call("GET", `/wallets/${wallet}/summary`, {
              auth: key,
              query: { user_id: u.id },
            });
          return call("GET", "/statements", {
            auth: key,
            app: appAt(Date.now() + 2000),
            query: { user_id: u.id, wallet_id: wallet, ...(read === 2 ? { format: "csv" } : {}) },
          });
        }
      }
    };
    const tally = new Map<string, number>();
    for (let round = 0; round < 10; round++) {
      const answers = await Promise.all(Array.from({ length: 24 }, op));
      no5xx(answers);
      for (const r of answers) {
        const outcome = `${r.status} ${r.body.message}`;
        tally.set(outcome, (tally.get(outcome) ?? 0) + 1);
      }
      for (const r of answers) {
        if (r.status !== 200) continue;
        const d = r.body.data;
        if (typeof d?.transaction_id === "number") entryIds.push(d.transaction_id);
        if (Array.isArray(d?.transaction_ids)) entryIds.push(...d.transaction_ids);
        if (typeof d?.debit_transaction_id === "number")
          entryIds.push(d.debit_transaction_id, d.credit_transaction_id);
        if (typeof d?.hold_id === "number" && d.status === "held") holdIds.push(d.hold_id);
        if (typeof d?.batch_id === "number" && d.reversal_batch_id === undefined)
          batchIds.push(d.batch_id);
      }
      expect(await combinedViolations(), `round ${round}`).toEqual(SOUND);
      for (const u of users) {
        const s = await summary(u.id, wallet);
        expect(s.available, `round ${round}`).toBeGreaterThanOrEqual(0);
        expect(Math.round((s.balance - s.held) * 100) / 100).toBe(s.available);
      }
    }
    for (const u of users) await surfacesAgree(u.id, wallet);
    // The storm really met the verbs' successes and their refusals (counts vary with timing).
    const seen = (...outcomes: string[]) => outcomes.reduce((n, o) => n + (tally.get(o) ?? 0), 0);
    expect(seen("200 Batch Completed")).toBeGreaterThan(0);
    expect(seen("200 Batch Reversed", "200 Transaction Reversed")).toBeGreaterThan(0);
    expect(seen("200 Hold captured", "200 Hold voided")).toBeGreaterThan(0);
    expect(seen("409 Hold already resolved", "409 Transaction already reversed")).toBeGreaterThan(
      0,
    );
  });
});

describe("the console over imported wallets, holds and batches", () => {
  const { request, follow } = consoleOf(testApp());
  let cookie: string;
  const csrfOf = (html: string) => html.match(/name="_csrf" value="([^"]+)"/)?.[1] ?? "";
  const keyOfPage = (html: string) => html.match(/name="request_id" value="([^"]+)"/)?.[1] ?? "";

  beforeAll(async () => {
    const res = await request("/sign-in", {
      method: "POST",
      body: form({ email: admin.email, password: PASSWORD }),
    });
    expect(res.status, res.html).toBe(303);
    cookie = res.headers.get("set-cookie")!.split(";")[0]!;
  });

  const send = async (userId: number, path: string, fields: Record<string, string>) => {
    const page = await request(`/users/${userId}`, { cookie });
    expect(page.status).toBe(200);
    const res = await request(`/users/${userId}/${path}`, {
      method: "POST",
      cookie,
      // A money form as its confirmation's Confirm sends it.
      body: form({
        _csrf: csrfOf(page.html),
        request_id: keyOfPage(page.html),
        step: "confirm",
        ...fields,
      }),
    });
    expect(res.status, res.html).toBe(303);
    return (await follow(res, cookie)).html;
  };

  it("draws a user imported below zero, with a zero entry, in a wallet storing 3 places, and refuses every way out", async () => {
    const wallet = await importedWallet();
    const user = await makeUser();
    await importedEntry(user.id, wallet, "CREDIT", 1_005, "1.005", 0, 1_600_000_000);
    await importedEntry(user.id, wallet, "DEBIT", 0, "-0", 1_005, 1_600_000_001);
    await importedEntry(user.id, wallet, "DEBIT", 12_345, "12.345", 1_005, 1_600_000_002);
    const page = await request(`/users/${user.id}`, { cookie });
    expect(page.status, page.html).toBe(200);
    expect(page.html).toContain("₦-11.34");
    const zero = (await env.DB.prepare(
      "SELECT id FROM transactions WHERE user_id = ? AND amount_minor = 0",
    )
      .bind(user.id)
      .first<{ id: number }>())!.id;
    const confirm = await request(`/users/${user.id}/reverse/${zero}`, { cookie });
    expect(confirm.status).toBe(200);
    expect(confirm.html).toContain("a transaction of zero cannot be reversed");
    const before = await tableCounts();
    expect(await send(user.id, "debit", { wallet_id: wallet, amount: "0.01" })).toContain(
      "Debit refused. Insufficient Balance",
    );
    expect(await send(user.id, "credit", { wallet_id: wallet, amount: "0.005" })).toContain(
      "Credit refused",
    );
    expect(await tableCounts()).toEqual(before);
    expect(await send(user.id, "credit", { wallet_id: wallet, amount: "11.35" })).toContain(
      "Transaction Completed",
    );
    expect(await stored(user.id, wallet)).toBe(10);
    const statement = await request(`/users/${user.id}?wallet=${wallet}`, { cookie });
    expect(statement.status).toBe(200);
    expect(await combinedViolations()).toEqual(SOUND);
  });

  it("a hold captured from the console while the API voids and captures it: once", async () => {
    const { user, wallet } = await funded("20");
    const id = await placed(user.id, wallet, "15");
    const page = await request(`/users/${user.id}`, { cookie });
    const consoleCapture = request(`/users/${user.id}/holds/${id}/capture`, {
      method: "POST",
      cookie,
      body: form({ _csrf: csrfOf(page.html), amount: "5" }),
    });
    const answers = await Promise.all([
      post(`/holds/${id}/void`),
      post(`/holds/${id}/capture`, { amount: "7" }),
    ]);
    const c = await consoleCapture;
    expect(c.status).toBe(303);
    no5xx(answers);
    const h = (await call("GET", `/holds/${id}`, { auth: key })).body.data;
    const consoleWon = h.status === "captured" && h.captured_amount === 5;
    expect(answers.filter((r) => r.status === 200).length + (consoleWon ? 1 : 0)).toBe(1);
    expect(await balanceOf(admin, user.id, wallet)).toBe(
      h.status === "captured" ? 20 - h.captured_amount : 20,
    );
    expect(await combinedViolations()).toEqual(SOUND);
  });

  it("shows a batch whose leg was reversed on its own, and refuses to reverse it whole", async () => {
    const { user, wallet } = await funded("10");
    const other = await makeUser();
    const b = await post("/batches", {
      request_id: unique("b"),
      operations: [
        {
          type: "transfer",
          from_user_id: user.id,
          to_user_id: other.id,
          wallet_id: wallet,
          amount: "4",
        },
        { type: "credit", user_id: other.id, wallet_id: wallet, amount: "1" },
      ],
    });
    expect(b.status, b.text).toBe(200);
    // The transfer's receiving half reversed from the receiver's page: both halves go back.
    const [, half] = b.body.data.transaction_ids as number[];
    const confirm = await request(`/users/${other.id}/reverse/${half}`, { cookie });
    expect(confirm.status).toBe(200);
    const res = await request(`/users/${other.id}/reverse/${half}`, {
      method: "POST",
      cookie,
      body: form({ _csrf: csrfOf(confirm.html), request_id: keyOfPage(confirm.html) }),
    });
    expect((await follow(res, cookie)).html).toContain(`Transaction ${half} reversed.`);
    const batchPage = await request(`/batches/${b.body.data.batch_id}`, { cookie });
    expect(batchPage.status).toBe(200);
    const before = await tableCounts();
    const whole = await request(`/batches/${b.body.data.batch_id}/reverse`, {
      method: "POST",
      cookie,
      body: form({ _csrf: csrfOf(batchPage.html) }),
    });
    expect(whole.status).toBe(303);
    expect(await tableCounts()).toEqual(before);
    expect(await balanceOf(admin, user.id, wallet)).toBe(10);
    expect(await balanceOf(admin, other.id, wallet)).toBe(1);
    expect(await combinedViolations()).toEqual(SOUND);
  });
});

describe("deletions racing money", () => {
  const later = <T>(ms: number, f: () => Promise<T>) =>
    new Promise<void>((r) => setTimeout(r, ms)).then(f);

  it("a wallet deleted while its first credit, hold, transfer and batch race: never an entry without its wallet", async () => {
    for (const delay of [0, 1, 2, 3, 5, 8]) {
      const wallet = await newWallet();
      const [a, b] = [await makeUser(), await makeUser()];
      const answers = await Promise.all([
        later(delay, () => plugin("DELETE", `/wallets/${wallet}`, admin.bearer)),
        post("/credits", {
          user_id: a.id,
          wallet_id: wallet,
          amount: "5",
          request_id: unique("c"),
        }),
        post("/holds", { user_id: a.id, wallet_id: wallet, amount: "1", request_id: unique("h") }),
        post("/batches", {
          request_id: unique("b"),
          operations: [{ type: "credit", user_id: b.id, wallet_id: wallet, amount: "2" }],
        }),
        post("/transfers", {
          from_user_id: a.id,
          to_user_id: b.id,
          wallet_id: wallet,
          amount: "1",
          request_id: unique("t"),
        }),
        plugin("POST", "/credits", key, {
          user_id: b.id,
          wallet_id: wallet,
          amount: "3",
          request_id: unique("pc").replaceAll(/[^a-z0-9]/gi, "_"),
        }),
      ]);
      no5xx(answers);
      const deleted = answers[0]!.status === 200;
      const rows = await env.DB.prepare(
        "SELECT count(*) AS n FROM transactions WHERE wallet_id = ?",
      )
        .bind(wallet)
        .first<{ n: number }>();
      if (deleted) {
        expect(rows!.n).toBe(0);
        for (const r of answers.slice(1)) expect(r.status, r.text).not.toBe(200);
      } else {
        expect(answers[0]!.status, answers[0]!.text).toBe(409);
        expect(rows!.n).toBeGreaterThan(0);
      }
    }
    expect(await combinedViolations()).toEqual(SOUND);
  });

  it("a user deleted while credits, a hold and a transfer to it race: it stays with its money, or goes with none", async () => {
    for (const delay of [0, 1, 2, 3, 5, 8]) {
      const { user: payer, wallet } = await funded("10");
      const doomed = await makeUser();
      const answers = await Promise.all([
        post("/credits", {
          user_id: doomed.id,
          wallet_id: wallet,
          amount: "5",
          request_id: unique("c"),
        }),
        later(delay, () => plugin("DELETE", `/users/${doomed.id}`, admin.bearer)),
        post("/transfers", {
          from_user_id: payer.id,
          to_user_id: doomed.id,
          wallet_id: wallet,
          amount: "1",
          request_id: unique("t"),
        }),
        post("/holds", {
          user_id: doomed.id,
          wallet_id: wallet,
          amount: "1",
          request_id: unique("h"),
        }),
        post("/batches", {
          request_id: unique("b"),
          operations: [
            {
              type: "transfer",
              from_user_id: payer.id,
              to_user_id: doomed.id,
              wallet_id: wallet,
              amount: "2",
            },
          ],
        }),
      ]);
      no5xx(answers);
      const exists = await env.DB.prepare("SELECT count(*) AS n FROM users WHERE id = ?")
        .bind(doomed.id)
        .first<{ n: number }>();
      const entries = await env.DB.prepare(
        "SELECT count(*) AS n FROM transactions WHERE user_id = ?",
      )
        .bind(doomed.id)
        .first<{ n: number }>();
      if (exists!.n === 0) expect(entries!.n).toBe(0);
      else expect(answers[1]!.status).toBe(409);
      // The payer lost nothing it did not pay to a user that exists.
      const paid = await env.DB.prepare(
        "SELECT coalesce(sum(amount_minor), 0) AS n FROM transactions WHERE user_id = ? AND txn_type = 'CREDIT'",
      )
        .bind(doomed.id)
        .first<{ n: number }>();
      expect(await stored(payer.id, wallet)).toBe(
        1000 - (paid!.n - (answers[0]!.status === 200 ? 500 : 0)),
      );
    }
    expect(await combinedViolations()).toEqual(SOUND);
  });
});

describe("one request_id, many bodies, verbs and dialects", () => {
  it("a credit's key sent again as anything else moves nothing and names the credit", async () => {
    const { user, wallet } = await funded("100");
    const other = await makeUser();
    const K = unique("same").replaceAll(/[^a-z0-9]/gi, "_");
    const first = await post("/credits", {
      user_id: user.id,
      wallet_id: wallet,
      amount: "10",
      request_id: K,
    });
    expect(first.status, first.text).toBe(200);
    const txn = first.body.data.transaction_id as number;
    const conflict = {
      status_code: 409,
      status: false,
      message: "Transaction already exists",
      error: { txn_id: String(txn), exist: "Transaction already executed" },
    };
    const before = await tableCounts();
    const tries = await Promise.all([
      post("/credits", { user_id: user.id, wallet_id: wallet, amount: "20", request_id: K }),
      post("/credits", {
        user_id: user.id,
        wallet_id: await newWallet(),
        amount: "10",
        request_id: K,
      }),
      post("/debits", {
        user_id: user.id,
        wallet_id: wallet,
        amount: "10",
        request_id: K.toUpperCase(),
      }),
      post("/holds", { user_id: user.id, wallet_id: wallet, amount: "10", request_id: K }),
      post("/transfers", {
        from_user_id: user.id,
        to_user_id: other.id,
        wallet_id: wallet,
        amount: "10",
        request_id: K,
      }),
      reverse(txn, K),
    ]);
    const after = await tableCounts();
    for (const r of tries) expect(r.body, r.text).toEqual(conflict);
    // (the wallet made above adds its own row and event, nothing else)
    expect({ ...after, wallets: before.wallets, events: before.events }).toEqual(before);
    const pluginTries = await asEveryPluginMove(K, { user, other, wallet, credited: "10" });
    for (const r of pluginTries) {
      expect(r.status, r.text).toBe(409);
      expect(r.body.error).toEqual({ txn_id: String(txn), exist: "Transaction already executed" });
    }
    expect(await tableCounts()).toEqual(after);
    // The same key is another user's own: the receiver of a transfer, or any other user.
    const theirs = await post("/credits", {
      user_id: other.id,
      wallet_id: wallet,
      amount: "1",
      request_id: K,
    });
    expect(theirs.status, theirs.text).toBe(200);
    expect(await combinedViolations()).toEqual(SOUND);
  });

  it("a batch's key is the site's, its legs' keys their users': each refuses only its own repeats", async () => {
    const { user, wallet } = await funded("100");
    const other = await makeUser();
    const K = unique("Bk");
    const ops = [
      { type: "debit", user_id: user.id, wallet_id: wallet, amount: "1" },
      {
        type: "transfer",
        from_user_id: user.id,
        to_user_id: other.id,
        wallet_id: wallet,
        amount: "2",
      },
    ];
    // The batch's own key used by a single credit first: no conflict (another key space).
    expect(
      (await post("/credits", { user_id: user.id, wallet_id: wallet, amount: "1", request_id: K }))
        .status,
    ).toBe(200);
    const b = await post("/batches", { request_id: K, operations: ops });
    expect(b.status, b.text).toBe(200);
    const [leg0, leg1] = b.body.data.transaction_ids as number[];
    const before = await tableCounts();
    const again = await Promise.all([
      post("/batches", { request_id: K.toUpperCase(), operations: ops }),
      post("/batches", { request_id: K, operations: [ops[0]!] }),
    ]);
    for (const r of again)
      expect(r.body, r.text).toEqual({
        status_code: 409,
        status: false,
        message: "Transaction already exists",
        error: { batch_id: String(b.body.data.batch_id), exist: "Batch already executed" },
      });
    // A single request naming a leg's key finds the leg; the receiver's space has none of it.
    const legKey = (i: number) => `batch:${K}#${i}`;
    expect(
      (
        await post("/debits", {
          user_id: user.id,
          wallet_id: wallet,
          amount: "1",
          request_id: legKey(0),
        })
      ).body.error,
    ).toEqual({
      txn_id: String(leg0),
      exist: "Transaction already executed",
    });
    expect((await hold(user.id, wallet, "1", { request_id: legKey(1) })).body.error).toEqual({
      txn_id: String(leg1),
      exist: "Transaction already executed",
    });
    expect(await tableCounts()).toEqual(before);
    expect(
      (
        await post("/credits", {
          user_id: other.id,
          wallet_id: wallet,
          amount: "1",
          request_id: legKey(1),
        })
      ).status,
    ).toBe(200);
    expect(await combinedViolations()).toEqual(SOUND);
  });
});

/**
 * env.DB on which another isolate deletes a user or a wallet (as the plugin's DELETE does) just
 * before the request's first batch that writes: the request read them alive (and cached them), then
 * its write meets the foreign keys.
 */
function deletingBeforeWrite(what: { userId?: number; walletId?: string }) {
  return arrivingBeforeWrite(async () => {
    if (what.userId !== undefined)
      await env.DB.batch([
        env.DB.prepare("DELETE FROM sessions WHERE user_id = ?").bind(what.userId),
        env.DB.prepare("DELETE FROM api_keys WHERE user_id = ?").bind(what.userId),
        env.DB.prepare("DELETE FROM users WHERE id = ?").bind(what.userId),
      ]);
    if (what.walletId !== undefined)
      await env.DB.prepare("DELETE FROM wallets WHERE id = ?").bind(what.walletId).run();
  }, MONEY_WRITE);
}

/** The first statement of a write that moves or reserves money (not an API key's last use). */
const MONEY_WRITE = /^\s*insert into "(transactions|holds|batches)"/i;

/** A user id and a wallet id no test makes. */
const NEVER_USER = 987_654_321;
const NEVER_WALLET = "nevermadewallet";

describe("a user or wallet deleted between a request's read and its write", () => {
  const V = GUARDED;
  type Send = (d1: D1Database) => Promise<Reply>;
  /** A credit or debit of 1 in either dialect. */
  const entry =
    (
      dialect: "api" | "plugin",
      kind: "credits" | "debits",
      userId: number,
      walletId: string,
    ): Send =>
    (d1) =>
      call("POST", `${dialect === "api" ? "" : NS}/${kind}`, {
        auth: key,
        d1,
        ...(dialect === "plugin" && { vars: V }),
        body: {
          user_id: userId,
          wallet_id: walletId,
          amount: "1",
          request_id: unique(kind).replaceAll(/[^a-z0-9]/gi, "_"),
        },
      });
  const hold =
    (userId: number, walletId: string): Send =>
    (d1) =>
      call("POST", "/holds", {
        auth: key,
        d1,
        body: { user_id: userId, wallet_id: walletId, amount: "1", request_id: unique("h") },
      });
  const transfer =
    (from: number, to: number, walletId: string): Send =>
    (d1) =>
      call("POST", "/transfers", {
        auth: key,
        d1,
        body: {
          from_user_id: from,
          to_user_id: to,
          wallet_id: walletId,
          amount: "1",
          request_id: unique("t"),
        },
      });
  const pluginTransfer =
    (from: number, to: number, walletId: string): Send =>
    (d1) =>
      call("POST", `${NS}/transfers`, {
        auth: admin.bearer,
        d1,
        vars: V,
        body: {
          transfer_from_user: from,
          transfer_to_user: to,
          wallet_id: walletId,
          amount_to_transfer: "1",
        },
      });
  const batch =
    (operation: Record<string, unknown>): Send =>
    (d1) =>
      call("POST", "/batches", {
        auth: key,
        d1,
        body: { request_id: unique("b"), operations: [operation] },
      });
  const credit = (u: number, w: string) => ({
    type: "credit",
    user_id: u,
    wallet_id: w,
    amount: "1",
  });
  const debit = (u: number, w: string) => ({ ...credit(u, w), type: "debit" });

  it("answers each dialect's not-found, moves nothing, and leaves no entry without its user", async () => {
    const { user: payer, wallet } = await funded("10");
    // Each request as it names the user `u`, its status and words: money into the user's wallet
    // meets the foreign keys, money out of it its zero balance first; alike, word for word.
    const cases: [string, (u: number) => Send, number, string][] = [
      ["credit", (u) => entry("api", "credits", u, wallet), 404, "Unable to reach"],
      ["debit", (u) => entry("api", "debits", u, wallet), 404, "Unable to reach"],
      ["hold", (u) => hold(u, wallet), 404, "Unable to reach"],
      ["transfer", (u) => transfer(payer.id, u, wallet), 404, "Unable to reach"],
      ["transfer from", (u) => transfer(u, payer.id, wallet), 404, "Unable to reach"],
      [
        "batch",
        (u) =>
          batch({
            type: "transfer",
            from_user_id: payer.id,
            to_user_id: u,
            wallet_id: wallet,
            amount: "1",
          }),
        404,
        "operations[0]: Unable to reach",
      ],
      ["batch debit", (u) => batch(debit(u, wallet)), 404, "operations[0]: Unable to reach"],
      ["plugin credit", (u) => entry("plugin", "credits", u, wallet), 404, "Unable to reach"],
      ["plugin debit", (u) => entry("plugin", "debits", u, wallet), 404, "Unable to reach"],
      ["plugin transfer", (u) => pluginTransfer(payer.id, u, wallet), 400, "Invalid User"],
      ["plugin transfer from", (u) => pluginTransfer(u, payer.id, wallet), 400, "Invalid User"],
    ];
    for (const [name, request, status, words] of cases) {
      const doomed = await makeUser();
      const before = await tableCounts();
      const res = await request(doomed.id)(deletingBeforeWrite({ userId: doomed.id }));
      expect(res.status, `${name}: ${res.text}`).toBe(status);
      expect(res.text).toContain(words);
      // Word for word what a user that never existed is answered.
      const never = await request(NEVER_USER)(env.DB);
      expect(res.text, name).toBe(never.text.replaceAll(String(NEVER_USER), String(doomed.id)));
      const after = await tableCounts();
      expect([after.transactions, after.money, after.balances], name).toEqual([
        before.transactions,
        before.money,
        before.balances,
      ]);
    }
    // The same for the wallet `w`: wallet/v1's 400 `wallet_id not found`, the plugin's empty 400.
    const walletCases: [string, (w: string) => Send][] = [
      ["credit", (w) => entry("api", "credits", payer.id, w)],
      ["debit", (w) => entry("api", "debits", payer.id, w)],
      ["hold", (w) => hold(payer.id, w)],
      ["transfer", (w) => transfer(payer.id, admin.id, w)],
      ["batch", (w) => batch(credit(payer.id, w))],
      ["batch debit", (w) => batch(debit(payer.id, w))],
      ["plugin credit", (w) => entry("plugin", "credits", payer.id, w)],
      ["plugin debit", (w) => entry("plugin", "debits", payer.id, w)],
    ];
    for (const [name, request] of walletCases) {
      const w = await newWallet();
      const res = await request(w)(deletingBeforeWrite({ walletId: w }));
      expect(res.status, `${name}: ${res.text}`).toBe(400);
      expect(res.text, name).toBe((await request(NEVER_WALLET)(env.DB)).text);
      const n = await env.DB.prepare("SELECT count(*) AS n FROM transactions WHERE wallet_id = ?")
        .bind(w)
        .first<{ n: number }>();
      expect(n!.n, name).toBe(0);
    }
    // The console's credit form says who is gone, in its own words.
    const { request } = consoleOf(testApp());
    const signIn = await request("/sign-in", {
      method: "POST",
      body: form({ email: admin.email, password: PASSWORD }),
    });
    const cookie = signIn.headers.get("set-cookie")!.split(";")[0]!;
    const doomed = await makeUser();
    const page = await request(`/users/${doomed.id}`, { cookie });
    const res = await request(`/users/${doomed.id}/credit`, {
      method: "POST",
      cookie,
      vars: { DB: deletingBeforeWrite({ userId: doomed.id }) },
      body: form({
        _csrf: page.html.match(/name="_csrf" value="([^"]+)"/)![1]!,
        request_id: page.html.match(/name="request_id" value="([^"]+)"/)![1]!,
        wallet_id: wallet,
        amount: "1",
        step: "confirm",
      }),
    });
    expect(noticeLeft(res)).toBe(`error:Credit refused. No user ${doomed.id}.`);
    expect(await combinedViolations()).toEqual(SOUND);
  });
});
