// Group commit (src/ledger/group-commit.ts): credits arriving together are written in shared D1
// batches, each still answered as if alone: idempotent, a refusal only for the entry at fault, and
// the ledger's invariants intact.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { MAX_MINOR } from "../src/ledger/money";
import {
  alreadyExists,
  balanceOf,
  CLEAN,
  call,
  ledgerViolations,
  makeAdmin,
  makeUser,
  makeWallet,
  type TestUser,
  tableCounts,
  unique,
} from "./helpers";

/** env.DB, counting the batches sent (through it or a session on it) and the statements in each. */
function batchCounter() {
  const sizes: number[] = [];
  const counted = <T extends D1Database | D1DatabaseSession>(inner: T): T =>
    new Proxy(inner, {
      get(target, prop) {
        if (prop === "batch")
          return (statements: D1PreparedStatement[]) => {
            sizes.push(statements.length);
            return target.batch(statements);
          };
        if (prop === "withSession" && "withSession" in target)
          return (start?: string) => counted(target.withSession(start));
        const value = Reflect.get(target, prop, target);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
  return { d1: counted(env.DB), sizes };
}

const creditAs = (admin: TestUser, d1: D1Database, body: Record<string, unknown>) =>
  call("POST", "/credits", { auth: admin.bearer, body, d1 });

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
});
