// Group commit (src/ledger/group-commit.ts): credits arriving together are written in shared D1
// batches, each still answered as if alone: idempotent, a refusal only for the entry at fault, and
// the ledger's invariants intact.
import { env } from "cloudflare:workers";
import { describe, expect, it, vi } from "vitest";
import { type AppendResult, refusedByRule } from "../src/ledger/append";
import { MAX_MINOR } from "../src/ledger/money";
import { d1Ledger } from "../src/ledger/writer";
import { withSessions, wrappedD1 } from "./d1-counter";
import {
  alreadyExists,
  appAt,
  balanceOf,
  CLEAN,
  call,
  ledgerViolations,
  makeAdmin,
  makeUser,
  makeWallet,
  type Reply,
  type TestUser,
  tableCounts,
  testApp,
  unique,
} from "./helpers";

/** env.DB, counting the batches sent and the statements in each. */
function batchCounter() {
  const sizes: number[] = [];
  const d1 = wrappedD1((statements, send) => {
    sizes.push(statements.length);
    return send();
  });
  return { d1, sizes };
}

/**
 * env.DB whose first shared batch (more than one entry) fails as a lost connection does: after it
 * committed (`after: true`), or before it reached the database.
 */
function losingFirstBatch(after: boolean, times = 1) {
  let lost = 0;
  /** The values bound in the lost batches' statements (workerd's statements keep their `params`). */
  const lostValues: unknown[] = [];
  const d1 = wrappedD1(async (statements, send) => {
    if (statements.length <= 2 || lost >= times) return send();
    lost++;
    for (const s of statements) lostValues.push(...(s as unknown as { params: unknown[] }).params);
    if (after) await send();
    throw new Error("D1_ERROR: Network connection lost.");
  });
  return { d1, lost: () => lost, lostValues };
}

const creditAs = (admin: TestUser, d1: D1Database, body: Record<string, unknown>) =>
  call("POST", "/credits", { auth: admin.bearer, body, d1 });

/**
 * Date.now stopped at the test's start, moved on only by `pass`: the queue's timers (how long a
 * credit has waited, how long a batch has been in flight) read nothing else.
 */
function stoppedClock() {
  const at = Date.now();
  let passed = 0;
  vi.spyOn(Date, "now").mockImplementation(() => at + passed);
  return { pass: (ms: number) => void (passed += ms) };
}

/** Credits of 1, 2, … n to one user's wallet, each under a fresh request_id. */
const creditsOf1To = (n: number, user: TestUser, wallet: string, key: string) =>
  Array.from({ length: n }, (_, i) => ({
    user_id: user.id,
    wallet_id: wallet,
    amount: i + 1,
    request_id: unique(key),
  }));

/** The SQL text of a batch's statements (workerd's statements keep it). */
const textsOf = (statements: D1PreparedStatement[]) =>
  statements.map((s) => String((s as unknown as { statement: string }).statement));

describe("group commit of credits", () => {
  it("writes concurrent credits in shared batches, each answered with its own entry", async () => {
    const admin = await makeAdmin();
    const wallet = await makeWallet(admin);
    const users = await Promise.all(Array.from({ length: 4 }, () => makeUser()));
    const { d1, sizes } = batchCounter();
    const bodies = Array.from({ length: 60 }, (_, i) => ({
      user_id: users[i % users.length]!.id,
      wallet_id: wallet,
      amount: `${i + 1}.00`,
      request_id: unique("g"),
    }));
    const replies = await Promise.all(bodies.map((b) => creditAs(admin, d1, b)));

    expect(replies.map((r) => r.status)).toEqual(bodies.map(() => 200));
    const ids = replies.map((r) => r.body.data.transaction_id as number);
    expect(new Set(ids).size).toBe(bodies.length);
    // Fewer batches than credits: some carried several entries (2 statements each).
    expect(sizes.length).toBeLessThan(bodies.length);
    expect(Math.max(...sizes)).toBeGreaterThan(2);
    // Each answer names the entry written for its own request.
    for (const [i, id] of ids.entries()) {
      const row = await env.DB.prepare(
        "SELECT user_id, amount_text, request_id FROM transactions WHERE id = ?",
      )
        .bind(id)
        .first();
      expect(row).toEqual({
        user_id: bodies[i]!.user_id,
        amount_text: bodies[i]!.amount,
        request_id: bodies[i]!.request_id,
      });
    }
    for (const user of users) {
      const expected = bodies
        .filter((b) => b.user_id === user.id)
        .reduce((s, b) => s + Number(b.amount), 0);
      expect(await balanceOf(admin, user.id, wallet)).toBe(expected);
    }
    expect(await ledgerViolations()).toEqual(CLEAN);
  });

  it("applies concurrent duplicates once, in a batch or across batches", async () => {
    const admin = await makeAdmin();
    const wallet = await makeWallet(admin);
    const user = await makeUser();
    const { d1 } = batchCounter();
    const requestId = unique("dup");
    const body = { user_id: user.id, wallet_id: wallet, amount: "5.00", request_id: requestId };
    // Others beside them, so the duplicates share batches with entries that do write.
    const others = Array.from({ length: 20 }, () => ({ ...body, request_id: unique("o") }));
    const replies = await Promise.all(
      [...Array.from({ length: 30 }, () => body), ...others].map((b) => creditAs(admin, d1, b)),
    );
    const dupReplies = replies.slice(0, 30);
    const created = dupReplies.filter((r) => r.status === 200);
    expect(created).toHaveLength(1);
    const id = created[0]!.body.data.transaction_id as number;
    for (const r of dupReplies.filter((r) => r.status !== 200))
      expect(r).toMatchObject({ status: 409, body: alreadyExists(id) });
    expect(replies.slice(30).every((r) => r.status === 200)).toBe(true);
    expect(await balanceOf(admin, user.id, wallet)).toBe(5 * 21);
    expect(await ledgerViolations()).toEqual(CLEAN);
  });

  it("refuses only the credit at fault when its batch fails a CHECK; the others are written", async () => {
    const admin = await makeAdmin();
    const wallet = await makeWallet(admin, { decimals: 0 });
    const [full, others] = [await makeUser(), await makeUser()];
    const first = await call("POST", "/credits", {
      auth: admin.bearer,
      body: { user_id: full.id, wallet_id: wallet, amount: MAX_MINOR, request_id: unique("max") },
    });
    expect(first.status).toBe(200);
    const before = await tableCounts();
    const { d1 } = batchCounter();
    const bodies = Array.from({ length: 20 }, (_, i) => ({
      user_id: i === 7 ? full.id : others.id,
      wallet_id: wallet,
      amount: 1,
      request_id: unique("c"),
    }));
    const replies = await Promise.all(bodies.map((b) => creditAs(admin, d1, b)));

    expect(replies[7]).toMatchObject({
      status: 400,
      body: {
        message: "invalid input",
        error: {
          amount: "amount would take the balance past the largest balance a wallet can hold",
        },
      },
    });
    expect(replies.filter((_, i) => i !== 7).every((r) => r.status === 200)).toBe(true);
    expect(await balanceOf(admin, full.id, wallet)).toBe(MAX_MINOR);
    expect(await balanceOf(admin, others.id, wallet)).toBe(19);
    expect(await tableCounts()).toMatchObject({ transactions: Number(before!.transactions) + 19 });
    expect(await ledgerViolations()).toEqual(CLEAN);
  });

  it("answers a lone credit in one batch of its own (nothing waits when nothing is in flight)", async () => {
    const admin = await makeAdmin();
    const wallet = await makeWallet(admin);
    const user = await makeUser();
    const { d1, sizes } = batchCounter();
    const res = await creditAs(admin, d1, {
      user_id: user.id,
      wallet_id: wallet,
      amount: "1.00",
      request_id: unique("one"),
    });
    expect(res.status).toBe(200);
    expect(sizes).toEqual([2]);
  });
  it("writes at most 50 credits in one batch, however many wait", async () => {
    const admin = await makeAdmin();
    const wallet = await makeWallet(admin);
    const user = await makeUser();
    // No credit stops waiting while the clock stands still; the first credit's lone batch is held
    // until the others have queued behind it, so 59 wait for the next batches.
    stoppedClock();
    const sizes: number[] = [];
    const d1 = wrappedD1(async (statements, send) => {
      sizes.push(statements.length);
      if (sizes.length === 1) await scheduler.wait(1_000);
      return send();
    });
    const bodies = creditsOf1To(60, user, wallet, "fifty");
    const replies = await Promise.all(bodies.map((b) => creditAs(admin, d1, b)));

    expect(replies.map((r) => r.status)).toEqual(bodies.map(() => 200));
    // 2 statements an entry: a batch of 50 entries, never 51.
    expect(Math.max(...sizes)).toBe(100);
    expect(await balanceOf(admin, user.id, wallet)).toBe((60 * 61) / 2);
    expect(await ledgerViolations()).toEqual(CLEAN);
  });

  it("waits for a batch in flight for under 10 s: none of its credits is read back or written again", async () => {
    const admin = await makeAdmin();
    const wallet = await makeWallet(admin);
    const user = await makeUser();
    const clock = stoppedClock();
    const sent: string[] = [];
    let shared = false;
    const d1 = wrappedD1(async (statements, send) => {
      sent.push(...textsOf(statements));
      if (statements.length > 2 && !shared) {
        shared = true;
        // 9 s in flight, within its writer's lease, while the credits in it look at their tickets.
        clock.pass(9_000);
        await scheduler.wait(100);
      }
      return send();
    });
    const bodies = creditsOf1To(10, user, wallet, "lease");
    const replies = await Promise.all(bodies.map((b) => creditAs(admin, d1, b)));

    expect(shared).toBe(true);
    expect(replies.map((r) => r.status)).toEqual(bodies.map(() => 200));
    // No look-up by request_id (a lost batch's read-back) was needed.
    expect(sent.filter((text) => /^select "id", "attempt_id"/i.test(text))).toEqual([]);
    expect(await balanceOf(admin, user.id, wallet)).toBe(55);
    expect(await ledgerViolations()).toEqual(CLEAN);
  });

  it("writes alone each credit still queued after 1 s, though the batch ahead of it is in flight", async () => {
    const admin = await makeAdmin();
    const wallet = await makeWallet(admin);
    const user = await makeUser();
    const clock = stoppedClock();
    // The first credit's lone batch is held; once the others have queued behind it, 1.5 s pass
    // (within its writer's lease) before it is sent.
    let holding: boolean | undefined;
    let sentWhileHeld = 0;
    const d1 = wrappedD1(async (_statements, send) => {
      if (holding === undefined) {
        holding = true;
        await scheduler.wait(300);
        clock.pass(1_500);
        await scheduler.wait(300);
        holding = false;
      } else if (holding) sentWhileHeld++;
      return send();
    });
    const bodies = creditsOf1To(10, user, wallet, "queued");
    const replies = await Promise.all(bodies.map((b) => creditAs(admin, d1, b)));

    expect(replies.map((r) => r.status)).toEqual(bodies.map(() => 200));
    // Each of the other nine was sent on its own before the batch ahead of it.
    expect(sentWhileHeld).toBe(bodies.length - 1);
    expect(await balanceOf(admin, user.id, wallet)).toBe(55);
    expect(await ledgerViolations()).toEqual(CLEAN);
  });

  it("keeps the batch it writes alive after its own request (waitUntil): a lone credit's too", async () => {
    const admin = await makeAdmin();
    const wallet = await makeWallet(admin);
    const user = await makeUser();
    const kept: Promise<unknown>[] = [];
    const app = testApp({
      ledger: (deps) =>
        d1Ledger({
          ...deps,
          keepAlive: (work) => {
            kept.push(work);
            deps.keepAlive(work);
          },
        }),
    });
    const res = await call("POST", "/credits", {
      auth: admin.bearer,
      body: { user_id: user.id, wallet_id: wallet, amount: "1.00", request_id: unique("kept") },
      app,
    });
    expect(res.status).toBe(200);
    expect(kept).toHaveLength(1);
    expect(await kept[0]).toEqual<AppendResult>({
      created: true,
      ids: [res.body.data.transaction_id as number],
    });
  });

  it("writes a batch's credits in the order they arrived, its writer's own first", async () => {
    const admin = await makeAdmin();
    const wallet = await makeWallet(admin);
    const user = await makeUser();
    stoppedClock();
    // The first credit's lone batch is held while the others arrive one at a time behind it.
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let held = false;
    const shared: unknown[] = [];
    const d1 = wrappedD1(async (statements, send) => {
      if (statements.length > 2 && shared.length === 0)
        shared.push(...statements.flatMap((s) => (s as unknown as { params: unknown[] }).params));
      if (!held && statements.length === 2) {
        held = true;
        await released;
      }
      return send();
    });
    const keys = Array.from({ length: 6 }, () => unique("order"));
    const replies: Promise<Reply>[] = [];
    for (const [i, key] of keys.entries()) {
      const body = { user_id: user.id, wallet_id: wallet, amount: i + 1, request_id: key };
      replies.push(creditAs(admin, d1, body));
      await scheduler.wait(30);
    }
    release();
    expect((await Promise.all(replies)).map((r) => r.status)).toEqual(keys.map(() => 200));

    // The shared batch carried the five that waited: its writer's, then the rest as they came.
    const order = keys.slice(1).filter((key) => shared.includes(key));
    expect(order).toHaveLength(5);
    const written = order.slice().sort((a, b) => shared.indexOf(a) - shared.indexOf(b));
    const writer = written[0]!;
    expect(written).toEqual([writer, ...order.filter((key) => key !== writer)]);
  });

  for (const after of [true, false])
    it(`answers each credit of a shared batch lost ${after ? "after" : "before"} it committed from the ledger: written once, never 409 to a first attempt`, async () => {
      const admin = await makeAdmin();
      const wallet = await makeWallet(admin);
      const user = await makeUser();
      const earlier = {
        user_id: user.id,
        wallet_id: wallet,
        amount: "7.00",
        request_id: unique("e"),
      };
      const first = await call("POST", "/credits", { auth: admin.bearer, body: earlier });
      expect(first.status).toBe(200);
      const { d1, lost } = losingFirstBatch(after);
      const bodies = Array.from({ length: 20 }, (_, i) => ({
        user_id: user.id,
        wallet_id: wallet,
        amount: `${i + 1}.00`,
        request_id: unique("l"),
      }));
      // A true repeat among them is still a repeat, whichever batch it lands in; so are a client's
      // identical retries of a new credit, though the lost batch's read-back finds one row for all.
      const retried = {
        user_id: user.id,
        wallet_id: wallet,
        amount: "0.50",
        request_id: unique("r"),
      };
      const replies = await Promise.all(
        [...bodies, { ...earlier, amount: "8.00" }, retried, retried, retried].map((b) =>
          creditAs(admin, d1, b),
        ),
      );
      const retries = replies.splice(-3);
      const retryWriter = retries.filter((r) => r.status === 200);
      expect(retryWriter).toHaveLength(1);
      for (const r of retries.filter((r) => r.status !== 200))
        expect(r).toMatchObject({
          status: 409,
          body: alreadyExists(retryWriter[0]!.body.data.transaction_id as number),
        });

      expect(lost()).toBe(1);
      expect(replies.slice(0, -1).map((r) => r.status)).toEqual(bodies.map(() => 200));
      expect(replies.at(-1)).toMatchObject({
        status: 409,
        body: alreadyExists(first.body.data.transaction_id as number),
      });
      const ids = replies.slice(0, -1).map((r) => r.body.data.transaction_id as number);
      expect(new Set(ids).size).toBe(bodies.length);
      for (const [i, id] of ids.entries()) {
        const row = await env.DB.prepare("SELECT request_id FROM transactions WHERE id = ?")
          .bind(id)
          .first();
        expect(row).toEqual({ request_id: bodies[i]!.request_id });
      }
      expect(await balanceOf(admin, user.id, wallet)).toBe(7 + (20 * 21) / 2 + 0.5);
      expect(await ledgerViolations()).toEqual(CLEAN);
    });

  for (const after of [false, true])
    it(`tells a lost batch's own credit (${after ? "committed" : "not committed"}) from an identical retry written elsewhere in the same second: one 200, one 409`, async () => {
      const admin = await makeAdmin();
      const wallet = await makeWallet(admin);
      const user = await makeUser();
      // One clock for every request: the retry's row reads as the lost attempt's would, field for field.
      const app = appAt(Date.now());
      const retried = {
        user_id: user.id,
        wallet_id: wallet,
        amount: "0.50",
        request_id: unique("r"),
      };
      let elsewhere: Reply | undefined;
      const lostValues: unknown[] = [];
      const d1 = wrappedD1(async (statements, send) => {
        if (statements.length <= 2 || elsewhere) return send();
        for (const s of statements)
          lostValues.push(...(s as unknown as { params: unknown[] }).params);
        if (after) await send();
        // The client's retry reaches another isolate (env.DB: a queue of its own) and is written
        // there before this batch's outcome is read back.
        elsewhere = await call("POST", "/credits", { auth: admin.bearer, body: retried, app });
        throw new Error("D1_ERROR: Network connection lost.");
      });
      const bodies = [
        ...Array.from({ length: 10 }, (_, i) => ({
          user_id: user.id,
          wallet_id: wallet,
          amount: `${i + 1}.00`,
          request_id: unique("o"),
        })),
        retried,
      ];
      const replies = await Promise.all(
        bodies.map((body) => call("POST", "/credits", { auth: admin.bearer, body, d1, app })),
      );

      expect(lostValues).toContain(retried.request_id);
      const own = replies.pop()!;
      expect(replies.map((r) => r.status)).toEqual(replies.map(() => 200));
      // Whichever attempt wrote the entry answers 200 with it; the other 409 naming it.
      const [writer, repeat] = after ? [own, elsewhere!] : [elsewhere!, own];
      expect(writer.status).toBe(200);
      expect(repeat).toMatchObject({
        status: 409,
        body: alreadyExists(writer.body.data.transaction_id as number),
      });
      expect(await balanceOf(admin, user.id, wallet)).toBe((10 * 11) / 2 + 0.5);
      expect(await ledgerViolations()).toEqual(CLEAN);
    });

  it("answers 200 to a waiting credit that writes alone after its batch's lease ran out, though the batch commits its entry first", async () => {
    const admin = await makeAdmin();
    const wallet = await makeWallet(admin);
    const user = await makeUser();
    // The shared batch is still in flight when its writer's 10 s lease is over: a waiting credit
    // finds its entry absent and writes it alone, but the batch commits it just before.
    const realNow = Date.now.bind(Date);
    let lateMs = 0;
    vi.spyOn(Date, "now").mockImplementation(() => realNow() + lateMs);
    let shared: Promise<D1Result[]> | undefined;
    let alone!: () => void;
    const aloneSent = new Promise<void>((resolve) => (alone = resolve));
    const d1 = wrappedD1(async (statements, send) => {
      if (statements.length > 2 && !shared) {
        lateMs = 11_000;
        shared = aloneSent.then(send);
        return shared;
      }
      if (statements.length === 2 && shared) {
        alone();
        await shared;
      }
      return send();
    });
    const bodies = Array.from({ length: 3 }, (_, i) => ({
      user_id: user.id,
      wallet_id: wallet,
      amount: `${i + 1}.00`,
      request_id: unique("lease"),
    }));
    const replies = await Promise.all(bodies.map((b) => creditAs(admin, d1, b)));

    expect(shared).toBeDefined();
    expect(replies.map((r) => r.status)).toEqual([200, 200, 200]);
    const ids = replies.map((r) => r.body.data.transaction_id as number);
    for (const [i, id] of ids.entries()) {
      const row = await env.DB.prepare("SELECT request_id FROM transactions WHERE id = ?")
        .bind(id)
        .first();
      expect(row).toEqual({ request_id: bodies[i]!.request_id });
    }
    expect(await balanceOf(admin, user.id, wallet)).toBe(6);
    expect(await ledgerViolations()).toEqual(CLEAN);
  });

  it("reads a lost batch back by user: another user's entry under the same request_id is not this credit", async () => {
    const admin = await makeAdmin();
    const wallet = await makeWallet(admin);
    const [a, b] = [await makeUser(), await makeUser()];
    const shared = unique("s");
    const before = { user_id: a.id, wallet_id: wallet, amount: "7.00", request_id: shared };
    expect((await call("POST", "/credits", { auth: admin.bearer, body: before })).status).toBe(200);
    const { d1, lost, lostValues } = losingFirstBatch(false);
    // The first credit is written alone (a batch of one is never lost here); the shared one comes after.
    const bodies = [
      ...Array.from({ length: 10 }, (_, i) => ({
        user_id: b.id,
        wallet_id: wallet,
        amount: `${i + 1}.00`,
        request_id: unique("b"),
      })),
      { user_id: b.id, wallet_id: wallet, amount: "100.00", request_id: shared },
    ];
    const replies = await Promise.all(bodies.map((body) => creditAs(admin, d1, body)));

    expect(lost()).toBe(1);
    // The credit under the shared request_id was in the lost batch, so it was read back.
    expect(lostValues).toContain(shared);
    expect(replies.map((r) => r.status)).toEqual(bodies.map(() => 200));
    expect(await balanceOf(admin, b.id, wallet)).toBe(155);
    expect(await balanceOf(admin, a.id, wallet)).toBe(7);
    expect(await ledgerViolations()).toEqual(CLEAN);
  });

  it("reads a lost batch back at the primary, though the leader's session would read a replica without it", async () => {
    const admin = await makeAdmin();
    const wallet = await makeWallet(admin);
    const user = await makeUser();
    // The first shared batch commits and its answer is lost; from then on the session that sent it
    // reads as a replica that has not caught up would: nothing it has not seen.
    let lost = 0;
    const session = (inner: D1DatabaseSession): D1DatabaseSession => {
      let behind = false;
      return new Proxy(inner, {
        get(target, prop) {
          if (prop === "batch")
            return async (statements: D1PreparedStatement[]) => {
              if (behind)
                return (await target.batch(statements)).map((r) => ({ ...r, results: [] }));
              if (statements.length <= 2 || lost > 0) return target.batch(statements);
              lost++;
              await target.batch(statements);
              behind = true;
              throw new Error("D1_ERROR: Network connection lost.");
            };
          const value = Reflect.get(target, prop, target);
          return typeof value === "function" ? value.bind(target) : value;
        },
      });
    };
    const d1 = withSessions(session);
    const bodies = Array.from({ length: 20 }, (_, i) => ({
      user_id: user.id,
      wallet_id: wallet,
      amount: `${i + 1}.00`,
      request_id: unique("p"),
    }));
    const replies = await Promise.all(bodies.map((b) => creditAs(admin, d1, b)));
    expect(lost).toBe(1);
    expect(replies.map((r) => r.status)).toEqual(bodies.map(() => 200));
    expect(new Set(replies.map((r) => r.body.data.transaction_id)).size).toBe(bodies.length);
    expect(await balanceOf(admin, user.id, wallet)).toBe((20 * 21) / 2);
    expect(await ledgerViolations()).toEqual(CLEAN);
  });

  it("answers 503 to every credit of a lost batch whose read-back is lost too; each retry finds its entry", async () => {
    const admin = await makeAdmin();
    const wallet = await makeWallet(admin);
    const user = await makeUser();
    // The shared batch commits and reports a failure; the read-back of its entries fails too.
    const { d1, lost } = losingFirstBatch(true, 2);
    const bodies = Array.from({ length: 20 }, (_, i) => ({
      user_id: user.id,
      wallet_id: wallet,
      amount: `${i + 1}.00`,
      request_id: unique("r"),
    }));
    const replies = await Promise.all(bodies.map((b) => creditAs(admin, d1, b)));

    expect(lost()).toBe(2);
    const unknown = replies.flatMap((r, i) => (r.status === 503 ? [i] : []));
    expect(unknown.length).toBeGreaterThan(1);
    expect(replies.every((r) => r.status === 200 || r.status === 503)).toBe(true);
    for (const i of unknown) expect(replies[i]!.headers.get("retry-after")).toBe("2");
    // Nothing was written twice, and a retry answers what the lost batch wrote.
    for (const i of unknown) {
      const retry = await creditAs(admin, env.DB, bodies[i]!);
      expect(retry.status).toBe(409);
    }
    expect(await balanceOf(admin, user.id, wallet)).toBe((20 * 21) / 2);
    expect(await ledgerViolations()).toEqual(CLEAN);
  });

  it("tells a batch a ledger rule refused (rolled back) from one whose outcome is unknown", async () => {
    const refused = await env.DB.prepare("INSERT INTO transactions (id) VALUES (NULL)")
      .run()
      .catch((err: unknown) => err);
    expect(refusedByRule(refused)).toBe(true);
    // D1's text without SQLite's code, in either case, is a rule's verdict too.
    expect(
      refusedByRule(new Error("D1_ERROR: CHECK constraint failed: transactions_balance_limit")),
    ).toBe(true);
    expect(refusedByRule(new Error("Constraint Failed"))).toBe(true);
    expect(refusedByRule(new Error("D1_ERROR: Network connection lost."))).toBe(false);
  });
});
