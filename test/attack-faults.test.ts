// D1 faults on every write that moves money (src/ledger, src/wallet): a batch whose answer is lost
// after it committed, or that fails before it reaches the database. Each must answer 503 with
// Retry-After (never 200 for what did not commit, never a 500), move money at most once, and a retry
// must find what was written: the balance equal to the sum of its entries, one event per entry.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { losingReads, wrappedD1 } from "./d1-counter";
import {
  CLEAN,
  call,
  type Json,
  ledgerViolations,
  makeAdmin,
  makeUser,
  makeWallet,
  type Reply,
  type TestUser,
  unique,
} from "./helpers";

const LOST = "D1_ERROR: Network connection lost.";

/**
 * env.DB whose first `times` batches that write (their first statement an INSERT or UPDATE) fail as a
 * lost connection does: after they committed (`after`), or before they reached the database.
 */
function losingWrites(after: boolean, times = 1) {
  let lost = 0;
  const d1 = wrappedD1(async (statements, send) => {
    const first = String((statements[0] as unknown as { statement: string }).statement);
    if (lost >= times || !/^\s*(insert|update)/i.test(first)) return send();
    lost++;
    if (after) await send();
    throw new Error(LOST);
  });
  return { d1, lost: () => lost };
}

const post = (admin: TestUser, path: string, body: Json, d1?: D1Database) =>
  call("POST", path, { auth: admin.bearer, body, d1 });

function expectUnavailable(res: Reply) {
  expect(res).toMatchObject({
    status: 503,
    body: { status_code: 503, message: "Service temporarily unavailable" },
  });
  expect(res.headers.get("retry-after")).toBe("2");
}

async function minorOf(userId: number, walletId: string) {
  const row = await env.DB.prepare(
    "SELECT balance_minor FROM balances WHERE user_id = ? AND wallet_id = ?",
  )
    .bind(userId, walletId)
    .first<{ balance_minor: number }>();
  return row?.balance_minor ?? 0;
}

/** Entries and their events for a user's wallet: one transaction.created per entry. */
async function entriesAndEvents(userId: number, walletId: string) {
  const row = await env.DB.prepare(
    `SELECT count(*) AS entries,
       (SELECT count(*) FROM events e WHERE e.type = 'transaction.created'
          AND e.subject IN (SELECT CAST(id AS TEXT) FROM transactions WHERE user_id = ?1 AND wallet_id = ?2)) AS events
     FROM transactions WHERE user_id = ?1 AND wallet_id = ?2`,
  )
    .bind(userId, walletId)
    .first<{ entries: number; events: number }>();
  return row!;
}

async function funded(admin: TestUser, wallet: string, amount = 100) {
  const user = await makeUser();
  const res = await post(admin, "/credits", {
    user_id: user.id,
    wallet_id: wallet,
    amount,
    request_id: unique("fund"),
  });
  expect(res.status).toBe(200);
  return user;
}

describe("a single movement whose batch is lost", () => {
  for (const after of [true, false])
    for (const path of ["/credits", "/debits"] as const)
      it(`${path}: lost ${after ? "after" : "before"} commit answers 503; the retry writes it once`, async () => {
        const admin = await makeAdmin();
        const wallet = await makeWallet(admin);
        const user = await funded(admin, wallet);
        const body = { user_id: user.id, wallet_id: wallet, amount: 7, request_id: unique("m") };
        const { d1, lost } = losingWrites(after);
        expectUnavailable(await post(admin, path, body, d1));
        expect(lost()).toBe(1);
        const retry = await post(admin, path, body);
        const moved = path === "/credits" ? 7 : -7;
        if (after) {
          const id = await env.DB.prepare(
            "SELECT id FROM transactions WHERE user_id = ? AND request_id = ?",
          )
            .bind(user.id, body.request_id)
            .first<{ id: number }>();
          expect(retry).toMatchObject({
            status: 409,
            body: { error: { txn_id: String(id!.id) } },
          });
        } else expect(retry.status).toBe(200);
        expect(await minorOf(user.id, wallet)).toBe((100 + moved) * 100);
        expect(await entriesAndEvents(user.id, wallet)).toEqual({ entries: 2, events: 2 });
        expect(await ledgerViolations()).toEqual(CLEAN);
      });

  for (const after of [true, false])
    it(`a transfer lost ${after ? "after" : "before"} commit: both halves or neither, once`, async () => {
      const admin = await makeAdmin();
      const wallet = await makeWallet(admin);
      const from = await funded(admin, wallet);
      const to = await makeUser();
      const body = {
        from_user_id: from.id,
        to_user_id: to.id,
        wallet_id: wallet,
        amount: 30,
        request_id: unique("t"),
      };
      const { d1 } = losingWrites(after);
      expectUnavailable(await post(admin, "/transfers", body, d1));
      expect(await minorOf(to.id, wallet)).toBe(after ? 3000 : 0);
      expect(await minorOf(from.id, wallet)).toBe(after ? 7000 : 10000);
      const retry = await post(admin, "/transfers", body);
      expect(retry.status).toBe(after ? 409 : 200);
      expect(await minorOf(from.id, wallet)).toBe(7000);
      expect(await minorOf(to.id, wallet)).toBe(3000);
      expect(await entriesAndEvents(to.id, wallet)).toEqual({ entries: 1, events: 1 });
      expect(await ledgerViolations()).toEqual(CLEAN);
    });

  for (const after of [true, false])
    it(`a reversal of a transfer lost ${after ? "after" : "before"} commit: reversed once; the retry says so`, async () => {
      const admin = await makeAdmin();
      const wallet = await makeWallet(admin);
      const from = await funded(admin, wallet);
      const to = await makeUser();
      const moved = await post(admin, "/transfers", {
        from_user_id: from.id,
        to_user_id: to.id,
        wallet_id: wallet,
        amount: 30,
        request_id: unique("t"),
      });
      const id = moved.body.data.debit_transaction_id as number;
      const body = { request_id: unique("rv") };
      const { d1 } = losingWrites(after);
      expectUnavailable(await post(admin, `/transactions/${id}/reverse`, body, d1));
      const retry = await post(admin, `/transactions/${id}/reverse`, body);
      expect(retry.status).toBe(after ? 409 : 200);
      if (after) expect(retry.body.message).toBe("Transaction already exists");
      // Another request_id cannot reverse it again.
      const again = await post(admin, `/transactions/${id}/reverse`, { request_id: unique("rv") });
      expect(again.status).toBe(409);
      expect(await minorOf(from.id, wallet)).toBe(10000);
      expect(await minorOf(to.id, wallet)).toBe(0);
      expect(await entriesAndEvents(to.id, wallet)).toEqual({ entries: 2, events: 2 });
      expect(await ledgerViolations()).toEqual(CLEAN);
    });
});

describe("every reset Cloudflare lists as retryable", () => {
  // D1's own error list (developers.cloudflare.com/d1/observability/debug-d1/) names these besides
  // a lost connection: each leaves a write's outcome unknown, as that does.
  const RESETS = [
    "D1_ERROR: D1 DB's isolate exceeded its memory limit and was reset.",
    "D1_ERROR: D1 DB exceeded its CPU time limit and was reset.",
    "D1_ERROR: Replica disconnected from primary.",
  ];
  for (const message of RESETS)
    for (const after of [true, false])
      it(`a credit failing "${message}" ${after ? "after" : "before"} commit answers 503; the retry converges`, async () => {
        const admin = await makeAdmin();
        const wallet = await makeWallet(admin);
        const user = await makeUser();
        const body = { user_id: user.id, wallet_id: wallet, amount: 7, request_id: unique("x") };
        let failed = 0;
        const d1 = wrappedD1(async (statements, send) => {
          const first = String((statements[0] as unknown as { statement: string }).statement);
          if (failed > 0 || !/^\s*insert/i.test(first)) return send();
          failed++;
          if (after) await send();
          throw new Error(message);
        });
        expectUnavailable(await post(admin, "/credits", body, d1));
        expect((await post(admin, "/credits", body)).status).toBe(after ? 409 : 200);
        expect(await minorOf(user.id, wallet)).toBe(700);
        expect(await ledgerViolations()).toEqual(CLEAN);
      });
});

describe("holds whose batch is lost", () => {
  for (const after of [true, false])
    it(`placing a hold lost ${after ? "after" : "before"} commit: one hold counts; the retry finds it`, async () => {
      const admin = await makeAdmin();
      const wallet = await makeWallet(admin);
      const user = await funded(admin, wallet);
      const body = { user_id: user.id, wallet_id: wallet, amount: 60, request_id: unique("h") };
      const { d1 } = losingWrites(after);
      expectUnavailable(await post(admin, "/holds", body, d1));
      const retry = await post(admin, "/holds", body);
      expect(retry.status).toBe(after ? 409 : 200);
      const held = await env.DB.prepare(
        "SELECT count(*) AS n, sum(amount_minor) AS minor FROM holds WHERE user_id = ? AND status = 'held'",
      )
        .bind(user.id)
        .first<{ n: number; minor: number }>();
      expect(held).toEqual({ n: 1, minor: 6000 });
      // 40 is available: a debit of 41 is refused, 40 is not.
      const over = await post(admin, "/debits", {
        user_id: user.id,
        wallet_id: wallet,
        amount: 41,
        request_id: unique("d"),
      });
      expect(over.status).toBe(400);
    });

  for (const after of [true, false])
    for (const verb of ["capture", "void"] as const)
      it(`a ${verb} lost ${after ? "after" : "before"} commit: resolved once, at most one DEBIT`, async () => {
        const admin = await makeAdmin();
        const wallet = await makeWallet(admin);
        const user = await funded(admin, wallet);
        const placed = await post(admin, "/holds", {
          user_id: user.id,
          wallet_id: wallet,
          amount: 60,
          request_id: unique("h"),
        });
        const id = placed.body.data.hold_id as number;
        const { d1 } = losingWrites(after);
        const body = verb === "capture" ? { amount: 25 } : {};
        expectUnavailable(await post(admin, `/holds/${id}/${verb}`, body, d1));
        const retry = await post(admin, `/holds/${id}/${verb}`, body);
        if (after)
          expect(retry).toMatchObject({
            status: 409,
            body: { error: { status: verb === "capture" ? "captured" : "voided" } },
          });
        else expect(retry.status).toBe(200);
        const debits = verb === "capture" ? 1 : 0;
        expect(await entriesAndEvents(user.id, wallet)).toEqual({
          entries: 1 + debits,
          events: 1 + debits,
        });
        expect(await minorOf(user.id, wallet)).toBe(10000 - debits * 2500);
        const events = await env.DB.prepare(
          "SELECT count(*) AS n FROM events WHERE type = ? AND subject = ?",
        )
          .bind(`hold.${verb === "capture" ? "captured" : "voided"}`, String(id))
          .first<{ n: number }>();
        expect(events!.n).toBe(1);
        expect(await ledgerViolations()).toEqual(CLEAN);
      });
});

describe("the plugin's transfer sent without a request_id", () => {
  const vars = { COMPAT_NAMESPACE: "rimplenet", COMPAT_PUBLIC_READS: "true" };
  // No retry can find a transfer the client named no key for: the outcome is learnt at once.
  for (const after of [true, false])
    it(`lost ${after ? "after" : "before"} commit: ${after ? "200 naming the transfer it made" : "503, nothing moved"}`, async () => {
      const admin = await makeAdmin();
      const wallet = await makeWallet(admin);
      const from = await funded(admin, wallet);
      const to = await makeUser();
      const body = {
        transfer_from_user: from.id,
        transfer_to_user: to.id,
        wallet_id: wallet,
        amount_to_transfer: "5",
      };
      const { d1, lost } = losingWrites(after);
      const res = await call("POST", "/wp-json/rimplenet/v1/transfers", {
        auth: admin.bearer,
        body,
        d1,
        vars,
      });
      expect(lost()).toBe(1);
      const debit = await env.DB.prepare(
        "SELECT id FROM transactions WHERE user_id = ? AND txn_type = 'DEBIT' AND transfer_id IS NOT NULL",
      )
        .bind(from.id)
        .first<{ id: number }>();
      if (after)
        expect(res).toMatchObject({
          status: 200,
          body: { message: "Transfer Action Completed", data: { transfer: debit!.id } },
        });
      else {
        expect(res.status, res.text).toBe(503);
        expect(debit).toBeNull();
      }
      expect(await minorOf(from.id, wallet)).toBe(after ? 9500 : 10000);
      expect(await minorOf(to.id, wallet)).toBe(after ? 500 : 0);
      expect(await ledgerViolations()).toEqual(CLEAN);
    });
});

describe("batches whose D1 batch is lost", () => {
  for (const after of [true, false])
    it(`a batch lost ${after ? "after" : "before"} commit: every leg once; the retry names the batch`, async () => {
      const admin = await makeAdmin();
      const wallet = await makeWallet(admin);
      const a = await funded(admin, wallet);
      const b = await makeUser();
      const body = {
        request_id: unique("b"),
        operations: [
          { type: "transfer", from_user_id: a.id, to_user_id: b.id, wallet_id: wallet, amount: 10 },
          { type: "debit", user_id: a.id, wallet_id: wallet, amount: 5 },
          { type: "credit", user_id: b.id, wallet_id: wallet, amount: 1 },
        ],
      };
      const { d1 } = losingWrites(after);
      expectUnavailable(await post(admin, "/batches", body, d1));
      const retry = await post(admin, "/batches", body);
      const batch = await env.DB.prepare("SELECT id FROM batches WHERE request_id = ?")
        .bind(body.request_id)
        .first<{ id: number }>();
      if (after) expect(retry).toMatchObject({ status: 409 });
      else expect(retry).toMatchObject({ status: 200, body: { data: { batch_id: batch!.id } } });
      if (after) expect(retry.text).toContain(String(batch!.id));
      expect(await minorOf(a.id, wallet)).toBe(8500);
      expect(await minorOf(b.id, wallet)).toBe(1100);
      expect(await entriesAndEvents(b.id, wallet)).toEqual({ entries: 2, events: 2 });
      expect(await ledgerViolations()).toEqual(CLEAN);
    });

  for (const after of [true, false])
    it(`a batch's reversal lost ${after ? "after" : "before"} commit: reversed once`, async () => {
      const admin = await makeAdmin();
      const wallet = await makeWallet(admin);
      const a = await funded(admin, wallet);
      const b = await makeUser();
      const posted = await post(admin, "/batches", {
        request_id: unique("b"),
        operations: [
          { type: "transfer", from_user_id: a.id, to_user_id: b.id, wallet_id: wallet, amount: 10 },
        ],
      });
      const id = posted.body.data.batch_id as number;
      const { d1 } = losingWrites(after);
      expectUnavailable(await post(admin, `/batches/${id}/reverse`, {}, d1));
      const retry = await post(admin, `/batches/${id}/reverse`, {});
      expect(retry.status).toBe(after ? 409 : 200);
      expect(await minorOf(a.id, wallet)).toBe(10000);
      expect(await minorOf(b.id, wallet)).toBe(0);
      expect(await entriesAndEvents(b.id, wallet)).toEqual({ entries: 2, events: 2 });
      expect(await ledgerViolations()).toEqual(CLEAN);
    });
});

describe("the plugin's dialect", () => {
  const vars = { COMPAT_NAMESPACE: "rimplenet", COMPAT_PUBLIC_READS: "true" };
  const P = "/wp-json/rimplenet/v1";
  for (const after of [true, false])
    it(`a credit and a transfer lost ${after ? "after" : "before"} commit answer 503 with Retry-After; retries move nothing twice`, async () => {
      const admin = await makeAdmin();
      const wallet = await makeWallet(admin);
      const [a, b] = [await makeUser(), await makeUser()];
      const creditBody = {
        user_id: a.id,
        wallet_id: wallet,
        amount: "12",
        request_id: unique("pc"),
      };
      const transferBody = {
        transfer_from_user: a.id,
        transfer_to_user: b.id,
        wallet_id: wallet,
        amount_to_transfer: "5",
        request_id: unique("pt"),
      };
      for (const [path, body] of [
        ["/credits", creditBody],
        ["/transfers", transferBody],
      ] as const) {
        const { d1 } = losingWrites(after);
        const lost = await call("POST", `${P}${path}`, { auth: admin.bearer, body, d1, vars });
        expect(lost.status, lost.text).toBe(503);
        expect(lost.headers.get("retry-after")).toBe("2");
        const retry = await call("POST", `${P}${path}`, { auth: admin.bearer, body, vars });
        expect(retry.status, retry.text).toBe(after ? 409 : 200);
      }
      expect(await minorOf(a.id, wallet)).toBe(700);
      expect(await minorOf(b.id, wallet)).toBe(500);
      expect(await ledgerViolations()).toEqual(CLEAN);
    });
});

describe("group commit under faults", () => {
  it("a shared batch lost before commit with a credit past the largest balance in it: only that one is refused", async () => {
    const admin = await makeAdmin();
    const wallet = await makeWallet(admin, { decimals: 0 });
    const [full, other] = [await makeUser(), await makeUser()];
    expect(
      (
        await post(admin, "/credits", {
          user_id: full.id,
          wallet_id: wallet,
          amount: 999_999_999_999_999,
          request_id: unique("max"),
        })
      ).status,
    ).toBe(200);
    let lost = 0;
    const d1 = wrappedD1(async (statements, send) => {
      if (statements.length <= 2 || lost > 0) return send();
      lost++;
      throw new Error(LOST);
    });
    const bodies = Array.from({ length: 16 }, (_, i) => ({
      user_id: i === 5 ? full.id : other.id,
      wallet_id: wallet,
      amount: 1,
      request_id: unique("g"),
    }));
    const replies = await Promise.all(bodies.map((b) => post(admin, "/credits", b, d1)));
    expect(lost).toBe(1);
    expect(replies[5]!.status).toBe(400);
    expect(replies.filter((_, i) => i !== 5).map((r) => r.status)).toEqual(
      Array.from({ length: 15 }, () => 200),
    );
    expect(await minorOf(other.id, wallet)).toBe(15);
    expect(await entriesAndEvents(other.id, wallet)).toEqual({ entries: 15, events: 15 });
    expect(await ledgerViolations()).toEqual(CLEAN);
  });

  it("every batch overloaded: each credit answers 503 and nothing is written; retries write each once", async () => {
    const admin = await makeAdmin();
    const wallet = await makeWallet(admin);
    const user = await makeUser();
    const d1 = wrappedD1(async (statements, send) => {
      const first = String((statements[0] as unknown as { statement: string }).statement);
      if (/^\s*insert/i.test(first))
        throw new Error("D1_ERROR: D1 DB is overloaded. Too many requests queued.");
      return send();
    });
    const bodies = Array.from({ length: 12 }, (_, i) => ({
      user_id: user.id,
      wallet_id: wallet,
      amount: i + 1,
      request_id: unique("o"),
    }));
    const replies = await Promise.all(bodies.map((b) => post(admin, "/credits", b, d1)));
    for (const r of replies) expectUnavailable(r);
    expect(await minorOf(user.id, wallet)).toBe(0);
    const retries = await Promise.all(bodies.map((b) => post(admin, "/credits", b)));
    expect(retries.map((r) => r.status)).toEqual(bodies.map(() => 200));
    expect(await minorOf(user.id, wallet)).toBe(78 * 100);
    expect(await ledgerViolations()).toEqual(CLEAN);
  });
});

describe("reads that fail around a write", () => {
  it("a credit whose user look-up is lost answers 503 and writes nothing", async () => {
    const admin = await makeAdmin();
    const wallet = await makeWallet(admin);
    const user = await makeUser();
    const { d1, lost } = losingReads(/from "users"/i);
    const body = { user_id: user.id, wallet_id: wallet, amount: 3, request_id: unique("u") };
    expectUnavailable(await post(admin, "/credits", body, d1));
    expect(lost()).toBeGreaterThan(0);
    expect(await entriesAndEvents(user.id, wallet)).toEqual({ entries: 0, events: 0 });
    expect((await post(admin, "/credits", body)).status).toBe(200);
    expect(await minorOf(user.id, wallet)).toBe(300);
  });

  it("a reversal whose look-up of the movement is lost answers 503 and writes nothing", async () => {
    const admin = await makeAdmin();
    const wallet = await makeWallet(admin);
    const user = await funded(admin, wallet);
    const id = (await env.DB.prepare("SELECT id FROM transactions WHERE user_id = ?")
      .bind(user.id)
      .first<{ id: number }>())!.id;
    const { d1, lost } = losingReads(/transfer_id|reverses_id/i);
    const body = { request_id: unique("rv") };
    expectUnavailable(await post(admin, `/transactions/${id}/reverse`, body, d1));
    expect(lost()).toBeGreaterThan(0);
    expect(await minorOf(user.id, wallet)).toBe(10000);
    expect((await post(admin, `/transactions/${id}/reverse`, body)).status).toBe(200);
    expect(await minorOf(user.id, wallet)).toBe(0);
    expect(await ledgerViolations()).toEqual(CLEAN);
  });

  it("a balance read that is lost answers 503 with Retry-After, never a balance", async () => {
    const admin = await makeAdmin();
    const wallet = await makeWallet(admin);
    const user = await funded(admin, wallet);
    // Its reads go as one batch (user, wallet and balance together) on a cold isolate cache.
    let lost = 0;
    const d1 = wrappedD1(async () => {
      lost++;
      throw new Error(LOST);
    });
    const res = await call("GET", "/user-wallet-balance", {
      auth: admin.bearer,
      query: { user_id: user.id, wallet_id: wallet },
      d1,
    });
    expect(lost).toBeGreaterThan(0);
    expectUnavailable(res);
  });
});
