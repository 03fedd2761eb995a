import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { GUARDED } from "./compat-helpers";
import {
  alreadyExists,
  appAt,
  balanceOf,
  type CallOptions,
  CLEAN,
  call,
  credit,
  debit,
  INSUFFICIENT,
  type Json,
  ledgerViolations,
  makeAccount,
  makeKey,
  makeUser,
  runCron,
  tableCounts,
  transfer,
  unique,
} from "./helpers";

const DAY_S = 86_400;
type App = ReturnType<typeof appAt>;

/** A funded account: `amount` credited to a subscriber, and an administrator's read-write key. */
async function funded(amount: number | string = 100, decimals = 2) {
  const account = await makeAccount(decimals);
  const res = await credit(account.admin, {
    user_id: account.user.id,
    wallet_id: account.wallet,
    amount,
  });
  expect(res.status, res.text).toBe(200);
  // A key never expires, so it works with an app whose clock is moved on (appAt).
  const key = (await makeKey(account.admin, "read-write")).header;
  return { ...account, key };
}
type Account = Awaited<ReturnType<typeof funded>>;

const place = (a: Account, body: Json, app?: App) =>
  call("POST", "/holds", {
    auth: a.key,
    app,
    body: { user_id: a.user.id, wallet_id: a.wallet, request_id: unique("hold"), ...body },
  });

/** Places a hold that must succeed; its id. */
async function placed(a: Account, body: Json, app?: App) {
  const res = await place(a, body, app);
  expect(res.status, res.text).toBe(200);
  return res.body.data.hold_id as number;
}

const capture = (a: Account, id: number, body: Json = {}, app?: App) =>
  call("POST", `/holds/${id}/capture`, { auth: a.key, app, body });

const voidHold = (a: Account, id: number, app?: App) =>
  call("POST", `/holds/${id}/void`, { auth: a.key, app });

const readHold = (a: Account, id: number, app?: App) =>
  call("GET", `/holds/${id}`, { auth: a.key, app });

/** The user's row of GET /balances for the account's wallet. */
async function available(a: Account, app?: App) {
  const res = await call("GET", "/balances", { auth: a.key, app, query: { user_id: a.user.id } });
  expect(res.status, res.text).toBe(200);
  return res.body.data.find((w: Json) => w.wallet_id === a.wallet) as Json;
}

const debitOf = (a: Account, amount: number | string, app?: App) =>
  call("POST", "/debits", {
    auth: a.key,
    app,
    body: { user_id: a.user.id, wallet_id: a.wallet, amount, request_id: unique("d") },
  });

const resolved = (id: number, status: string) => ({
  status_code: 409,
  status: false,
  message: "Hold already resolved",
  error: { id: `Hold ${id} is ${status}`, status },
});

describe("POST /holds", () => {
  it("places a hold, answers it, and lowers the available balance but not the balance", async () => {
    const a = await funded(100);
    const res = await place(a, { amount: "30.50", note: "order 7" });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({
      status_code: 200,
      status: true,
      message: "Hold placed",
      data: {
        hold_id: expect.any(Number),
        user_id: a.user.id,
        wallet_id: a.wallet,
        amount: 30.5,
        status: "held",
        expires_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.000Z$/),
      },
    });
    const expiresMs = Date.parse(res.body.data.expires_at);
    expect(Math.abs(expiresMs - (Date.now() + 7 * DAY_S * 1000))).toBeLessThan(5_000);
    expect(await available(a)).toEqual({
      wallet_id: a.wallet,
      balance: 100,
      held: 30.5,
      available: 69.5,
      formatted: { balance: "₦100.00", held: "₦30.50", available: "₦69.50" },
    });
    // The ledger balance answers as it always did.
    expect(await balanceOf(a.admin, a.user.id, a.wallet)).toBe(100);
  });

  it("lasts expires_in seconds when given", async () => {
    const a = await funded(100);
    const nowMs = Date.UTC(2027, 0, 1, 12, 0, 0);
    const res = await place(a, { amount: 1, expires_in: "3600" }, appAt(nowMs));
    expect(res.body.data.expires_at).toBe("2027-01-01T13:00:00.000Z");
  });

  it("lasts at least expires_in seconds when placed inside a second", async () => {
    const a = await funded(100);
    const t0 = Date.UTC(2027, 0, 2, 12, 0, 0);
    const res = await place(a, { amount: 100, expires_in: 1 }, appAt(t0 + 600));
    expect(res.body.data.expires_at).toBe("2027-01-02T12:00:02.000Z");
    expect((await available(a, appAt(t0 + 1_600))).available).toBe(0);
    expect((await available(a, appAt(t0 + 2_000))).available).toBe(100);
  });

  it("refuses an amount beyond the available balance with 400 Insufficient Balance and writes nothing", async () => {
    const a = await funded(100);
    await placed(a, { amount: 60 });
    const before = await tableCounts();
    const res = await place(a, { amount: "40.01" });
    expect(res.body).toEqual(INSUFFICIENT);
    expect(await tableCounts()).toEqual(before);
    expect(await placed(a, { amount: 40 })).toBeGreaterThan(0);
    expect((await available(a)).available).toBe(0);
  });

  it("answers a repeated request_id with 409 naming the hold, and places nothing more", async () => {
    const a = await funded(100);
    const requestId = unique("Order-");
    const id = await placed(a, { amount: 5, request_id: requestId });
    const before = await tableCounts();
    // ASCII case is one key, as for entries.
    const res = await place(a, { amount: 5, request_id: requestId.toLowerCase() });
    expect(res.status).toBe(409);
    expect(res.body).toEqual({
      status_code: 409,
      status: false,
      message: "Transaction already exists",
      error: { hold_id: String(id), exist: "Hold already placed" },
    });
    expect(await tableCounts()).toEqual(before);
  });

  it("shares one key space with entries: an entry's request_id is 409 for a hold, and a hold's for an entry", async () => {
    const a = await funded(100);
    const entryKey = unique("k");
    const first = await debit(a.admin, {
      user_id: a.user.id,
      wallet_id: a.wallet,
      amount: 1,
      request_id: entryKey,
    });
    expect((await place(a, { amount: 1, request_id: entryKey })).body).toEqual(
      alreadyExists(first.body.data.transaction_id),
    );
    const holdKey = unique("k");
    const id = await placed(a, { amount: 1, request_id: holdKey });
    const other = await makeUser();
    const before = await tableCounts();
    const body = { user_id: a.user.id, wallet_id: a.wallet, amount: 1, request_id: holdKey };
    const conflict = {
      status_code: 409,
      status: false,
      message: "Transaction already exists",
      error: { hold_id: String(id), exist: "Hold already placed" },
    };
    expect((await credit(a.admin, body)).body).toEqual(conflict);
    expect((await debit(a.admin, body)).body).toEqual(conflict);
    expect(
      (await transfer(a.admin, { ...body, from_user_id: a.user.id, to_user_id: other.id })).body,
    ).toEqual(conflict);
    const reversal = await call("POST", `/transactions/${first.body.data.transaction_id}/reverse`, {
      auth: a.key,
      body: { request_id: holdKey },
    });
    expect(reversal.body).toEqual(conflict);
    expect(await tableCounts()).toEqual(before);
  });

  it.each([
    [{ expires_in: 0 }, { expires_in: "expires_in must be between 1 and 2592000" }],
    [{ expires_in: 2_592_001 }, { expires_in: "expires_in must be between 1 and 2592000" }],
    [{ expires_in: "soon" }, { expires_in: "expires_in requires an integer" }],
    [
      { amount: "1.005" },
      { amount: "amount has more decimal places than wallet WALLET allows (2)" },
    ],
    [{ amount: 0 }, { amount: "amount must be greater than zero" }],
    [{ amount: "-1" }, { amount: "amount must be greater than zero" }],
    [{ user_id: undefined }, { user_id: "Field Cannot be empty" }],
    [{ wallet_id: "nosuchwallet" }, { wallet_id: "wallet_id not found" }],
    [{ request_id: " x" }, { request_id: "request_id must not begin or end with whitespace" }],
  ])("refuses %j with 400 naming the field", async (change, error) => {
    const a = await funded(100);
    const before = await tableCounts();
    const res = await place(a, { amount: 1, ...change });
    expect(res.status, res.text).toBe(400);
    expect(res.body).toEqual({
      status_code: 400,
      status: false,
      message: "invalid input",
      error: JSON.parse(JSON.stringify(error).replace("WALLET", a.wallet)),
    });
    expect(await tableCounts()).toEqual(before);
  });

  it("answers 404 for a user that does not exist", async () => {
    const a = await funded(100);
    const res = await place(a, { amount: 1, user_id: 2_000_000_001 });
    expect(res.status).toBe(404);
    expect(res.body.error).toEqual(["Unable to reach 2000000001"]);
  });
});

describe("available balance", () => {
  it("refuses a debit beyond it, and allows one within it", async () => {
    const a = await funded(100);
    await placed(a, { amount: 70 });
    const before = await tableCounts();
    expect((await debitOf(a, "30.01")).body).toEqual(INSUFFICIENT);
    expect(await tableCounts()).toEqual(before);
    expect((await debitOf(a, 30)).status).toBe(200);
    expect(await available(a)).toMatchObject({ balance: 70, held: 70, available: 0 });
    expect(await ledgerViolations()).toEqual(CLEAN);
  });

  it("refuses a transfer out beyond it; a transfer in raises it", async () => {
    const a = await funded(100);
    const other = await makeUser();
    await placed(a, { amount: 90 });
    const out = { wallet_id: a.wallet, amount: 11, from_user_id: a.user.id, to_user_id: other.id };
    expect((await transfer(a.admin, out)).body).toEqual(INSUFFICIENT);
    expect((await transfer(a.admin, { ...out, amount: 10 })).status).toBe(200);
    await credit(a.admin, { user_id: other.id, wallet_id: a.wallet, amount: 5 });
    const back = { wallet_id: a.wallet, amount: 5, from_user_id: other.id, to_user_id: a.user.id };
    expect((await transfer(a.admin, back)).status).toBe(200);
    expect(await available(a)).toMatchObject({ balance: 95, held: 90, available: 5 });
  });

  it("refuses a reversal of a credit that would take it below zero", async () => {
    const a = await funded(100);
    const c = await credit(a.admin, { user_id: a.user.id, wallet_id: a.wallet, amount: 50 });
    await placed(a, { amount: 120 });
    const res = await call("POST", `/transactions/${c.body.data.transaction_id}/reverse`, {
      auth: a.key,
      body: { request_id: unique("r") },
    });
    expect(res.body).toEqual(INSUFFICIENT);
  });

  it("counts a hold until its expires_at and not after, with no job run", async () => {
    const a = await funded(100);
    const t0 = Date.UTC(2027, 1, 1, 0, 0, 0);
    await placed(a, { amount: 100, expires_in: 60 }, appAt(t0));
    expect((await debitOf(a, 1, appAt(t0 + 59_999))).body).toEqual(INSUFFICIENT);
    expect((await available(a, appAt(t0 + 59_999))).available).toBe(0);
    expect((await available(a, appAt(t0 + 60_000))).available).toBe(100);
    expect((await debitOf(a, 100, appAt(t0 + 60_000))).status).toBe(200);
  });

  it("lets a new hold take what a hold reserved from exactly its expires_at, with no job run", async () => {
    const a = await funded(100);
    const t0 = Date.UTC(2027, 1, 3, 0, 0, 0);
    await placed(a, { amount: 100, expires_in: 60 }, appAt(t0));
    expect((await place(a, { amount: 1 }, appAt(t0 + 59_999))).body).toEqual(INSUFFICIENT);
    expect(await placed(a, { amount: 100 }, appAt(t0 + 60_000))).toBeGreaterThan(0);
  });

  it("GET /holds/{id} says expired at exactly its expires_at, as the balances stop counting it", async () => {
    const a = await funded(100);
    const t0 = Date.UTC(2027, 1, 2, 0, 0, 0);
    const id = await placed(a, { amount: 100, expires_in: 60 }, appAt(t0));
    expect((await readHold(a, id, appAt(t0 + 59_999))).body.data.status).toBe("held");
    expect((await readHold(a, id, appAt(t0 + 60_000))).body.data.status).toBe("expired");
    expect((await available(a, appAt(t0 + 60_000))).held).toBe(0);
  });

  it("GET /balances lists every wallet the user has a balance in, exactly", async () => {
    const a = await funded("0.3", 8);
    const second = await makeAccount();
    await credit(a.admin, { user_id: a.user.id, wallet_id: second.wallet, amount: "12.34" });
    await placed(a, { amount: "0.1" });
    const res = await call("GET", "/balances", { auth: a.key, query: { user_id: a.user.id } });
    expect(res.body.message).toBe("Balances retrieved");
    const rows = Object.fromEntries(res.body.data.map((r: Json) => [r.wallet_id, r]));
    expect(rows[a.wallet]).toMatchObject({ balance: 0.3, held: 0.1, available: 0.2 });
    expect(rows[second.wallet]).toMatchObject({
      balance: 12.34,
      held: 0,
      available: 12.34,
      formatted: { balance: "₦12.34", held: "₦0.00", available: "₦12.34" },
    });
  });

  it("GET /balances answers a subscriber its own without user_id, and 404 for an unknown user", async () => {
    const a = await funded(7);
    const own = await call("GET", "/balances", { auth: a.user.bearer });
    expect(own.body.data).toEqual([expect.objectContaining({ wallet_id: a.wallet, balance: 7 })]);
    const none = await call("GET", "/balances", {
      auth: a.key,
      query: { user_id: 2_000_000_002 },
    });
    expect(none.status).toBe(404);
    const bad = await call("GET", "/balances", { auth: a.key, query: { user_id: "x" } });
    expect(bad.body.error).toEqual({ user_id: "user_id requires an integer" });
  });

  it("the plugin's namespace refuses debits and transfers beyond it, and reads the balance with held money in it", async () => {
    const a = await funded(100);
    const other = await makeUser();
    await placed(a, { amount: 70 });
    const plugin = (method: string, route: string, options: Omit<CallOptions, "auth" | "vars">) =>
      call(method, `/wp-json/rimplenet/v1/${route}`, { auth: a.key, vars: GUARDED, ...options });
    const before = await tableCounts();
    const debit = { user_id: a.user.id, wallet_id: a.wallet, amount: "30.01" };
    expect(
      (await plugin("POST", "debits", { body: { ...debit, request_id: "pd_1" } })).body,
    ).toEqual(INSUFFICIENT);
    const out = { transfer_from_user: a.user.id, transfer_to_user: other.id, wallet_id: a.wallet };
    const refused = await plugin("POST", "transfers", {
      body: { ...out, amount_to_transfer: "30.01" },
    });
    expect(refused.body.error).toContain("mature wallet - [₦30.00] ), the balance in your (");
    expect(refused.body.error).toContain("immature wallet  - [₦70.00] )");
    expect(await tableCounts()).toEqual(before);
    // Its balance reads answer the ledger balance, held money in it; wallet-summary what is left.
    const query = { user_id: a.user.id, wallet_id: a.wallet };
    const read = await plugin("GET", "user-wallet-balance", { query });
    expect(read.body.data.wallet_balance_raw).toBe(100);
    const summary = await plugin("GET", "wallet-summary", { query });
    expect(summary.body.data).toMatchObject({
      wallet_balance_raw: 100,
      wallet_held_raw: 70,
      wallet_available_raw: 30,
    });
    expect(
      (await plugin("POST", "debits", { body: { ...debit, amount: 30, request_id: "pd_2" } }))
        .status,
    ).toBe(200);
  });
});

describe("POST /holds/{id}/capture", () => {
  it("debits the whole hold as one DEBIT entry naming it", async () => {
    const a = await funded(100);
    const id = await placed(a, { amount: 40 });
    const res = await capture(a, id);
    expect(res.status, res.text).toBe(200);
    expect(res.body.message).toBe("Hold captured");
    expect(res.body.data).toMatchObject({
      hold_id: id,
      status: "captured",
      amount: 40,
      captured_amount: 40,
      transaction_id: expect.any(Number),
      resolved_at: expect.any(String),
    });
    const entry = await env.DB.prepare(
      "SELECT txn_type, amount_minor, hold_id, note, request_key FROM transactions WHERE id = ?",
    )
      .bind(res.body.data.transaction_id)
      .first();
    expect(entry).toEqual({
      txn_type: "DEBIT",
      amount_minor: 4000,
      hold_id: id,
      note: `Capture of hold ${id}`,
      request_key: null,
    });
    expect(await available(a)).toMatchObject({ balance: 60, held: 0, available: 60 });
    expect(await ledgerViolations()).toEqual(CLEAN);
  });

  it("debits part of the hold and releases the rest", async () => {
    const a = await funded(100);
    const id = await placed(a, { amount: 40 });
    const res = await capture(a, id, { amount: "12.50", note: "shipped 1 of 3" });
    expect(res.body.data).toMatchObject({
      status: "captured",
      amount: 40,
      captured_amount: 12.5,
      captured_amount_formatted: "₦12.50",
    });
    const read = await call("GET", `/transactions/${res.body.data.transaction_id}`, {
      auth: a.key,
    });
    expect(read.body.data).toMatchObject({
      txn_type: "DEBIT",
      amount: "12.50",
      note: "shipped 1 of 3",
    });
    expect(await available(a)).toMatchObject({ balance: 87.5, held: 0, available: 87.5 });
  });

  it("records a partial capture's amount as sent, not the hold's, in post_content and its event", async () => {
    const a = await funded(100);
    const id = await placed(a, { amount: "50.00" });
    const txnId = (await capture(a, id, { amount: "12.5" })).body.data.transaction_id;
    const read = await call("GET", `/transactions/${txnId}`, { auth: a.key });
    expect(read.body.data.post_content).toBe("Amount:12.5");
    const event = await env.DB.prepare(
      "SELECT data ->> 'amount_text' AS text FROM events WHERE type = 'transaction.created' AND subject = ?",
    )
      .bind(String(txnId))
      .first();
    expect(event).toEqual({ text: "12.5" });
  });

  it("refuses more than the held amount with 400 and writes nothing", async () => {
    const a = await funded(100);
    const id = await placed(a, { amount: 40 });
    const before = await tableCounts();
    const res = await capture(a, id, { amount: "40.01" });
    expect(res.body).toEqual({
      status_code: 400,
      status: false,
      message: "invalid input",
      error: { amount: "amount must be at most the held amount (40.00)" },
    });
    expect((await capture(a, id, { amount: "1.001" })).body.error).toEqual({
      amount: `amount has more decimal places than wallet ${a.wallet} allows (2)`,
    });
    expect((await capture(a, id, { amount: "abc" })).body.error).toEqual({
      amount: "amount requires a valid amount",
    });
    expect(await tableCounts()).toEqual(before);
  });

  it("answers a second capture, or a void after it, with 409 and the hold's status", async () => {
    const a = await funded(100);
    const id = await placed(a, { amount: 10 });
    expect((await capture(a, id)).status).toBe(200);
    const before = await tableCounts();
    expect((await capture(a, id)).body).toEqual(resolved(id, "captured"));
    expect((await voidHold(a, id)).body).toEqual(resolved(id, "captured"));
    expect(await tableCounts()).toEqual(before);
  });

  it("judges the amount before the hold's status: validation (400) comes before conflicts (409)", async () => {
    const a = await funded(100);
    const t0 = Date.UTC(2027, 2, 3);
    const voided = await placed(a, { amount: 10 });
    expect((await voidHold(a, voided)).status).toBe(200);
    const expired = await placed(a, { amount: 10, expires_in: 30 }, appAt(t0));
    const before = await tableCounts();
    for (const [id, app] of [
      [voided, undefined],
      [expired, appAt(t0 + 30_000)],
    ] as const) {
      expect((await capture(a, id, { amount: "10.01" }, app)).body.error).toEqual({
        amount: "amount must be at most the held amount (10.00)",
      });
      expect((await capture(a, id, { amount: "0.001" }, app)).status).toBe(400);
      expect((await capture(a, id, { amount: "10" }, app)).status).toBe(409);
    }
    expect(await tableCounts()).toEqual(before);
  });

  it("answers 409 expired for a hold past its expires_at, and debits nothing", async () => {
    const a = await funded(100);
    const t0 = Date.UTC(2027, 2, 1);
    const id = await placed(a, { amount: 10, expires_in: 30 }, appAt(t0));
    const before = await tableCounts();
    expect((await capture(a, id, {}, appAt(t0 + 30_000))).body).toEqual(resolved(id, "expired"));
    expect((await voidHold(a, id, appAt(t0 + 30_000))).body).toEqual(resolved(id, "expired"));
    expect(await tableCounts()).toEqual(before);
    expect((await capture(a, id, {}, appAt(t0 + 29_999))).status).toBe(200);
  });

  it("is refused 400 Insufficient Balance in its last second once a writer whose clock is past expires_at spent the money", async () => {
    const a = await funded(100);
    const t0 = Date.UTC(2027, 2, 2);
    const id = await placed(a, { amount: 100, expires_in: 30 }, appAt(t0));
    // Another isolate a millisecond ahead: the hold no longer counts there, the debit takes all.
    expect((await debitOf(a, 100, appAt(t0 + 30_000))).status).toBe(200);
    const before = await tableCounts();
    expect((await capture(a, id, {}, appAt(t0 + 29_999))).body).toEqual(INSUFFICIENT);
    expect(await tableCounts()).toEqual(before);
    expect((await readHold(a, id, appAt(t0 + 30_000))).body.data.status).toBe("expired");
    expect(await balanceOf(a.admin, a.user.id, a.wallet)).toBe(0);
    expect(await ledgerViolations()).toEqual(CLEAN);
  });

  it("answers 404 for a hold that does not exist", async () => {
    const a = await funded(1);
    for (const ref of ["999999999", "99999999999999999999"]) {
      const res = await call("POST", `/holds/${ref}/capture`, { auth: a.key });
      expect(res.status).toBe(404);
      expect(res.body).toEqual({
        status_code: 404,
        status: false,
        message: "Hold not found",
        error: { id: `No hold ${ref}` },
      });
    }
  });

  it("applies once when 20 captures race", async () => {
    const a = await funded(100);
    const id = await placed(a, { amount: 25 });
    const answers = await Promise.all(Array.from({ length: 20 }, () => capture(a, id)));
    expect(answers.filter((r) => r.status === 200)).toHaveLength(1);
    for (const r of answers.filter((r) => r.status !== 200))
      expect(r.body).toEqual(resolved(id, "captured"));
    const n = await env.DB.prepare("SELECT count(*) AS n FROM transactions WHERE hold_id = ?")
      .bind(id)
      .first<{ n: number }>();
    expect(n!.n).toBe(1);
    expect(await balanceOf(a.admin, a.user.id, a.wallet)).toBe(75);
  });

  it("applies once when 20 captures of different amounts race, the others 409 and never 5xx", async () => {
    const a = await funded(100);
    const id = await placed(a, { amount: 25 });
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => capture(a, id, { amount: i + 1 })),
    );
    const won = answers.filter((r) => r.status === 200);
    expect(won).toHaveLength(1);
    for (const r of answers.filter((r) => r.status !== 200))
      expect(r.body).toEqual(resolved(id, "captured"));
    const { results } = await env.DB.prepare(
      "SELECT txn_type, amount_minor FROM transactions WHERE hold_id = ?",
    )
      .bind(id)
      .all();
    const captured = won[0]!.body.data.captured_amount;
    expect(results).toEqual([{ txn_type: "DEBIT", amount_minor: captured * 100 }]);
    expect(await balanceOf(a.admin, a.user.id, a.wallet)).toBe(100 - captured);
  });

  it("lets exactly one of racing captures and voids resolve a hold", async () => {
    const a = await funded(100);
    const id = await placed(a, { amount: 25 });
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) => (i % 2 ? capture(a, id) : voidHold(a, id))),
    );
    expect(answers.filter((r) => r.status === 200)).toHaveLength(1);
    const hold = (await readHold(a, id)).body.data;
    expect(hold.status === "captured" ? 75 : 100).toBe(
      await balanceOf(a.admin, a.user.id, a.wallet),
    );
  });
});

describe("POST /holds/{id}/void", () => {
  it("releases the whole hold and debits nothing", async () => {
    const a = await funded(100);
    const id = await placed(a, { amount: 100 });
    const res = await voidHold(a, id);
    expect(res.status, res.text).toBe(200);
    expect(res.body.message).toBe("Hold voided");
    expect(res.body.data).toMatchObject({
      status: "voided",
      captured_amount: null,
      transaction_id: null,
    });
    expect(await available(a)).toMatchObject({ balance: 100, held: 0, available: 100 });
    expect((await voidHold(a, id)).body).toEqual(resolved(id, "voided"));
    expect((await capture(a, id)).body).toEqual(resolved(id, "voided"));
  });
});

describe("a broken JSON body", () => {
  it("is 400 rest_invalid_json on every holds write, before the hold is looked up", async () => {
    const a = await funded(1);
    for (const path of ["/holds", "/holds/999999999/capture", "/holds/999999999/void"]) {
      const res = await call("POST", path, {
        auth: a.key,
        body: '{"a":',
        headers: { "Content-Type": "application/json" },
      });
      expect(res.status, path).toBe(400);
      expect(res.body.code, path).toBe("rest_invalid_json");
    }
  });
});

describe("expiry", () => {
  it("the cron trigger records expired holds at their expires_at and leaves the rest", async () => {
    const a = await funded(100);
    const t0 = Date.UTC(2027, 3, 1);
    const old = await placed(a, { amount: 10, expires_in: 60 }, appAt(t0));
    const live = await placed(a, { amount: 10, expires_in: 600 }, appAt(t0));
    const done = await placed(a, { amount: 10, expires_in: 60 }, appAt(t0));
    await voidHold(a, done, appAt(t0 + 1000));
    await runCron(t0 + 120_000, "*/5 * * * *");
    const row = (id: number) =>
      env.DB.prepare("SELECT status, resolved_at_s FROM holds WHERE id = ?").bind(id).first();
    expect(await row(old)).toEqual({ status: "expired", resolved_at_s: t0 / 1000 + 60 });
    expect(await row(live)).toEqual({ status: "held", resolved_at_s: null });
    expect(await row(done)).toEqual({ status: "voided", resolved_at_s: t0 / 1000 + 1 });
    const read = await readHold(a, old, appAt(t0 + 120_000));
    expect(read.body.data).toMatchObject({
      status: "expired",
      resolved_at: new Date(t0 + 60_000).toISOString(),
    });
  });

  it("the cron run at exactly a hold's expires_at records it expired, with its hold.expired event", async () => {
    const a = await funded(100);
    const t0 = Date.UTC(2027, 3, 2);
    const id = await placed(a, { amount: 10, expires_in: 60 }, appAt(t0));
    await runCron(t0 + 60_000);
    const row = await env.DB.prepare("SELECT status, resolved_at_s FROM holds WHERE id = ?")
      .bind(id)
      .first();
    expect(row).toEqual({ status: "expired", resolved_at_s: t0 / 1000 + 60 });
    const events = await env.DB.prepare(
      "SELECT count(*) AS n FROM events WHERE type = 'hold.expired' AND subject = ?",
    )
      .bind(String(id))
      .first();
    expect(events).toEqual({ n: 1 });
  });

  it("a capture in a hold's last second racing the cron run at its expires_at: one of them resolves it, once", async () => {
    for (let i = 0; i < 6; i++) {
      const a = await funded(100);
      const t0 = Date.UTC(2027, 3, 3, 0, i);
      const id = await placed(a, { amount: 10, expires_in: 30 }, appAt(t0));
      // The capture's clock is in the hold's last second; the run's (and its repeat's) at its end.
      // The runs start later each time, so that the capture's statement lands before, between or
      // after theirs.
      const later = async () => {
        if (i > 0) await new Promise((resume) => setTimeout(resume, 3 * (i - 1)));
      };
      const [answer] = await Promise.all([
        capture(a, id, {}, appAt(t0 + 29_999)),
        later().then(() => runCron(t0 + 30_000)),
        later().then(() => runCron(t0 + 30_000)),
      ]);
      const row = await env.DB.prepare("SELECT status FROM holds WHERE id = ?")
        .bind(id)
        .first<{ status: string }>();
      const resolutions = await env.DB.prepare(
        "SELECT type FROM events WHERE subject = ?1 AND type IN ('hold.captured', 'hold.voided', 'hold.expired')",
      )
        .bind(String(id))
        .all<{ type: string }>();
      const debits = await env.DB.prepare(
        "SELECT count(*) AS n FROM transactions WHERE hold_id = ?",
      )
        .bind(id)
        .first<{ n: number }>();
      if (row!.status === "captured") {
        expect(answer!.status, answer!.text).toBe(200);
        expect(resolutions.results).toEqual([{ type: "hold.captured" }]);
        expect(debits!.n).toBe(1);
        expect(await balanceOf(a.admin, a.user.id, a.wallet)).toBe(90);
      } else {
        expect(row!.status).toBe("expired");
        expect(answer!.body).toEqual(resolved(id, "expired"));
        expect(resolutions.results).toEqual([{ type: "hold.expired" }]);
        expect(debits!.n).toBe(0);
        expect(await balanceOf(a.admin, a.user.id, a.wallet)).toBe(100);
      }
      expect((await available(a, appAt(t0 + 30_000))).available).toBe(
        row!.status === "captured" ? 90 : 100,
      );
    }
    expect(await ledgerViolations()).toEqual(CLEAN);
  });
});

describe("GET /holds and GET /holds/{id}", () => {
  it("lists a user's holds newest first, by wallet and status, with WordPress totals", async () => {
    const a = await funded(100);
    const t0 = Date.now();
    const h1 = await placed(a, { amount: 1 });
    const h2 = await placed(a, { amount: 2, expires_in: 5 }, appAt(t0));
    const h3 = await placed(a, { amount: 3 });
    await capture(a, h3, { amount: 1 });
    const list = (query: Json) =>
      call("GET", "/holds", {
        auth: a.key,
        app: appAt(t0 + 10_000),
        query: { user_id: a.user.id, ...query },
      });
    const all = await list({});
    expect(all.body.message).toBe("Holds retrieved");
    expect(all.body.data.map((h: Json) => [h.hold_id, h.status])).toEqual([
      [h3, "captured"],
      [h2, "expired"],
      [h1, "held"],
    ]);
    expect(all.headers.get("X-WP-Total")).toBe("3");
    expect((await list({ status: "held" })).body.data.map((h: Json) => h.hold_id)).toEqual([h1]);
    expect((await list({ status: "EXPIRED" })).body.data.map((h: Json) => h.hold_id)).toEqual([h2]);
    const paged = await list({ per_page: 1, page: 2 });
    expect(paged.body.data.map((h: Json) => h.hold_id)).toEqual([h2]);
    expect(paged.headers.get("X-WP-TotalPages")).toBe("3");
    expect((await list({ wallet_id: a.wallet })).body.data).toHaveLength(3);
    expect((await list({ status: "pending" })).body.error).toEqual({
      status: "status must be one of held, captured, voided, expired",
    });
    expect((await list({ wallet_id: "nosuch" })).body.error).toEqual({
      wallet_id: "wallet_id not found",
    });
  });

  it("asks an administrator for user_id and answers 404 for an unknown user", async () => {
    const a = await funded(1);
    const missing = await call("GET", "/holds", { auth: a.key });
    expect(missing.body.error).toEqual({ user_id: "Field Cannot be empty" });
    const unknown = await call("GET", "/holds", { auth: a.key, query: { user_id: 2_000_000_003 } });
    expect(unknown.status).toBe(404);
  });

  it("answers one hold to its owner and to administrators, 403 to another subscriber", async () => {
    const a = await funded(100);
    const id = await placed(a, { amount: 3, note: "n" });
    const own = await call("GET", `/holds/${id}`, { auth: a.user.bearer });
    expect(own.body).toEqual({
      status_code: 200,
      status: true,
      message: "Hold retrieved",
      data: {
        hold_id: id,
        user_id: a.user.id,
        wallet_id: a.wallet,
        amount: 3,
        amount_formatted: "₦3.00",
        status: "held",
        request_id: expect.any(String),
        note: "n",
        created_at: expect.any(String),
        expires_at: expect.any(String),
        resolved_at: null,
        captured_amount: null,
        captured_amount_formatted: null,
        transaction_id: null,
      },
    });
    const stranger = await makeUser();
    for (const ref of [String(id), "999999999"]) {
      const res = await call("GET", `/holds/${ref}`, { auth: stranger.bearer });
      expect(res.status).toBe(403);
    }
    expect((await call("GET", "/holds/999999999", { auth: a.key })).status).toBe(404);
    const writeOnly = (await makeKey(a.admin, "write")).header;
    expect((await call("GET", `/holds/${id}`, { auth: writeOnly })).status).toBe(403);
    const readOnly = (await makeKey(a.admin, "read")).header;
    expect((await call("GET", `/holds/${id}`, { auth: readOnly })).status).toBe(200);
    const ownKey = (await makeKey(a.user, "read")).header;
    expect((await call("GET", `/holds/${id}`, { auth: ownKey })).status).toBe(200);
    expect((await call("GET", `/holds/${id}`)).status).toBe(401);
  });
});

describe("the database's guards on holds", () => {
  /** Refused by the guard named, not by any error (a column misspelt would throw too). */
  const refused = async (guard: string, sql: string, ...binds: unknown[]) => {
    const before = await tableCounts();
    await expect(
      env.DB.prepare(sql)
        .bind(...binds)
        .run(),
    ).rejects.toThrow(guard);
    expect(await tableCounts()).toEqual(before);
  };

  it("refuses a hold written straight to D1 beyond the available balance", async () => {
    const a = await funded(10);
    await refused(
      "holds_within_available",
      `INSERT INTO holds (user_id, wallet_id, amount_minor, amount_text, request_id, request_key, status, created_at_s, expires_at_s)
       VALUES (?, ?, 1001, '10.01', 'x', 'x', 'held', 1, 999999999999)`,
      a.user.id,
      a.wallet,
    );
  });

  it("refuses to change, reopen or delete a resolved hold, and to resolve one twice", async () => {
    const a = await funded(10);
    const id = await placed(a, { amount: 5 });
    await refused("holds_resolved_once", "UPDATE holds SET amount_minor = 1 WHERE id = ?", id);
    await refused(
      "holds_resolved_once",
      "UPDATE holds SET status = 'expired', resolved_at_s = created_at_s WHERE id = ?",
      id,
    );
    await voidHold(a, id);
    await refused(
      "holds_resolved_once",
      "UPDATE holds SET status = 'held', resolved_at_s = NULL WHERE id = ?",
      id,
    );
    await refused(
      "holds_resolved_once",
      "UPDATE holds SET status = 'captured', captured_minor = 500, resolved_at_s = created_at_s WHERE id = ?",
      id,
    );
    await refused("holds_resolved_once", "DELETE FROM holds WHERE id = ?", id);
  });

  it("refuses a DEBIT naming a hold that is not captured for that amount, or a second one", async () => {
    const a = await funded(10);
    const id = await placed(a, { amount: 5 });
    const entry = (amountMinor: number) =>
      `INSERT INTO transactions (user_id, wallet_id, txn_type, amount_minor, amount_text, balance_before_minor, balance_after_minor, request_id, title, slug_base, slug, created_at_s, hold_id)
       SELECT ${a.user.id}, '${a.wallet}', 'DEBIT', ${amountMinor}, 'x', balance_minor, balance_minor - ${amountMinor}, 'x', 't', 's', '${unique("s")}', 1, ${id}
       FROM balances WHERE user_id = ${a.user.id} AND wallet_id = '${a.wallet}'`;
    await refused("transactions_hold_captured", entry(500));
    await capture(a, id, { amount: 2 });
    await refused("UNIQUE constraint failed: transactions.hold_id", entry(200));
    await refused("transactions_hold_captured", entry(300));
  });
});

describe("the OpenAPI document", () => {
  it("describes every holds route from its declaration: fields, answers and refusals", async () => {
    const a = await funded(1);
    const doc = (await call("GET", "/openapi.json", { auth: a.key })).body;
    const op = (path: string, method: string) => doc.paths[`/wp-json/wallet/v1${path}`][method];
    const place = op("/holds", "post");
    expect(place.requestBody.content["application/json"].schema).toEqual({
      $ref: "#/components/schemas/PlaceHoldInput",
    });
    expect(Object.keys(doc.components.schemas.PlaceHoldInput.properties)).toEqual([
      "user_id",
      "wallet_id",
      "request_id",
      "amount",
      "note",
      "expires_in",
    ]);
    expect(place.responses["409"]["x-error-codes"]).toEqual(["transaction_exists"]);
    expect(op("/holds", "get").parameters.map((p: Json) => p.name)).toEqual(
      expect.arrayContaining(["user_id", "wallet_id", "status", "page", "per_page"]),
    );
    expect(op("/holds/{id}/capture", "post").responses["409"]["x-error-codes"]).toEqual([
      "hold_resolved",
    ]);
    expect(op("/holds/{id}/void", "post").responses["404"]["x-error-codes"]).toEqual([
      "hold_not_found",
    ]);
    expect(op("/holds/{id}", "get").responses["200"]).toBeDefined();
    expect(op("/balances", "get").responses["404"]["x-error-codes"]).toEqual(["user_not_found"]);
  });
});
