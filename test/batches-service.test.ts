// The batch verbs called as the service, without HTTP: every leg resolved as the single verbs do,
// then all of them written in one D1 batch or none. A refusal names its operation; a refused batch
// leaves every table as it was.
import { env } from "cloudflare:workers";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Principal } from "../src/auth/principal";
import { createDb } from "../src/db/client";
import { newestEntries, pairBalances } from "../src/db/ledger";
import { findUsers } from "../src/db/users";
import { MAX_MINOR } from "../src/ledger/money";
import { BATCH_ENTRIES_PER_READ, listBatches } from "../src/wallet/batch-reads";
import { reverseBatch } from "../src/wallet/batch-reversal";
import {
  type BatchOperation,
  legRequestId,
  MAX_OPERATIONS,
  postBatch,
} from "../src/wallet/batches";
import type { ServiceContext } from "../src/wallet/context";
import { placeHold, voidHold } from "../src/wallet/holds";
import { Refusal, type RefusalReason } from "../src/wallet/refusal";
import {
  arrivingAfterRefusal,
  CLEAN,
  call,
  ledgerViolations,
  makeAdmin,
  makeUser,
  makeWallet,
  storingMore,
  type TestUser,
  tableCounts,
  unique,
} from "./helpers";
import { serviceAs } from "./service-helpers";

const UNDO_SEED = 4;

const as = (u: TestUser): Principal => ({ userId: u.id, username: u.username, role: u.role });

async function refusalOf(work: Promise<unknown>): Promise<RefusalReason> {
  const err = await work.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(err instanceof Refusal)) throw new Error(`expected a refusal, got ${String(err)}`);
  return err.reason;
}

const balance = async (userId: number, walletId: string) =>
  (await serviceAs().ledger.readBalances(userId, [walletId])).balances.get(walletId) ?? 0;

const amount = (sent: string) => ({ sent, policy: "refuse-excess-places" as const });
const op = (type: "credit" | "debit", userId: number, walletId: string, sent: string) =>
  ({ type, user: { id: userId }, walletId, amount: amount(sent), note: "" }) as BatchOperation;
const move = (from: number, to: number, walletId: string, sent: string) =>
  ({
    type: "transfer",
    from: { id: from },
    to: { id: to },
    walletId,
    amount: amount(sent),
    note: "",
  }) as BatchOperation;

async function setup(decimals = 2) {
  const admin = await makeAdmin();
  const [buyer, seller, platform] = [await makeUser(), await makeUser(), await makeUser()];
  const walletId = await makeWallet(admin, { decimals });
  const ctx = serviceAs(as(admin));
  return { admin, buyer, seller, platform, walletId, ctx };
}

/** A hold of `sent` for an hour on a user's wallet. */
const holdOf = (ctx: ServiceContext, userId: number, walletId: string, sent: string) =>
  placeHold(ctx, {
    user: { id: userId },
    walletId,
    amount: amount(sent),
    requestId: unique("hold"),
    note: "",
    expiresInS: 3600,
  });

/** An unbalanced batch of these operations under a fresh request id. */
const unbalanced = (ctx: ServiceContext, ...operations: BatchOperation[]) =>
  postBatch(ctx, { requestId: unique("b"), balanced: false, operations });

/** A batch crediting the buyer 3 and the seller 4, then 2 of it spent by `spender`. */
async function creditedThenSpent(
  { buyer, seller, walletId, ctx }: Awaited<ReturnType<typeof setup>>,
  spender: { id: number },
) {
  const b = await unbalanced(
    ctx,
    op("credit", buyer.id, walletId, "3"),
    op("credit", seller.id, walletId, "4"),
  );
  await unbalanced(ctx, op("debit", spender.id, walletId, "2"));
  return b;
}

describe("postBatch", () => {
  it("writes a sale with its fee as one batch: entries in operation order, balances moved", async () => {
    const { buyer, seller, platform, walletId, ctx } = await setup();
    await postBatch(ctx, {
      requestId: unique("fund"),
      balanced: false,
      operations: [op("credit", buyer.id, walletId, "10.00")],
    });
    const sale = await postBatch(ctx, {
      requestId: unique("sale"),
      balanced: true,
      operations: [
        op("debit", buyer.id, walletId, "10.00"),
        op("credit", seller.id, walletId, "9.50"),
        op("credit", platform.id, walletId, "0.50"),
        move(seller.id, platform.id, walletId, "1.00"),
      ],
    });
    expect(sale.transactionIds).toHaveLength(5);
    expect([...sale.transactionIds].sort((a, b) => a - b)).toEqual(sale.transactionIds);
    expect(await balance(buyer.id, walletId)).toBe(0);
    expect(await balance(seller.id, walletId)).toBe(850);
    expect(await balance(platform.id, walletId)).toBe(150);
    expect(await ledgerViolations()).toEqual(CLEAN);
  });

  it.each([
    ["first", 0],
    ["middle", 1],
    ["last", 2],
  ])(
    "an overdraft at the %s index refuses the whole batch, naming it, and writes nothing",
    async (_, at) => {
      const { buyer, seller, platform, walletId, ctx } = await setup();
      await postBatch(ctx, {
        requestId: unique("fund"),
        balanced: false,
        operations: [op("credit", buyer.id, walletId, "5")],
      });
      const ops = [
        op("credit", seller.id, walletId, "1"),
        op("credit", platform.id, walletId, "1"),
        op("credit", seller.id, walletId, "2"),
      ];
      ops[at] = op("debit", buyer.id, walletId, "5.01");
      const before = await tableCounts();
      const reason = await refusalOf(
        postBatch(ctx, { requestId: unique("b"), balanced: false, operations: ops }),
      );
      expect(reason).toEqual({
        code: "batch_operation",
        index: at,
        refused: "insufficient-balance",
      });
      expect(await tableCounts()).toEqual(before);
      expect(await balance(buyer.id, walletId)).toBe(500);
    },
  );

  it("counts holds: a debit of money a hold reserves refuses the batch", async () => {
    const { admin, buyer, seller, walletId, ctx } = await setup();
    await postBatch(ctx, {
      requestId: unique("fund"),
      balanced: false,
      operations: [op("credit", buyer.id, walletId, "10")],
    });
    const hold = await call("POST", "/holds", {
      auth: admin.bearer,
      body: { user_id: buyer.id, wallet_id: walletId, amount: 8, request_id: unique("hold") },
    });
    expect(hold.status, hold.text).toBe(200);
    const before = await tableCounts();
    const reason = await refusalOf(
      postBatch(ctx, {
        requestId: unique("b"),
        balanced: false,
        operations: [
          op("credit", seller.id, walletId, "1"),
          move(buyer.id, seller.id, walletId, "3"),
        ],
      }),
    );
    expect(reason).toMatchObject({ code: "batch_operation", index: 1 });
    expect(await tableCounts()).toEqual(before);
  });

  it("balanced refuses credits and debits that differ in a wallet; unbalanced writes them", async () => {
    const { buyer, seller, walletId, ctx } = await setup();
    const ops = [op("credit", buyer.id, walletId, "2"), op("credit", seller.id, walletId, "1")];
    const before = await tableCounts();
    expect(
      await refusalOf(postBatch(ctx, { requestId: unique("b"), balanced: true, operations: ops })),
    ).toEqual({ code: "batch_unbalanced", walletId, creditsText: "3.00", debitsText: "0.00" });
    expect(await tableCounts()).toEqual(before);
    await postBatch(ctx, { requestId: unique("b"), balanced: false, operations: ops });
    expect(await balance(buyer.id, walletId)).toBe(200);
  });

  it("names the operation whose user does not exist, or whose amount the wallet refuses", async () => {
    const { buyer, walletId, ctx } = await setup();
    const missing = await refusalOf(
      postBatch(ctx, {
        requestId: unique("b"),
        balanced: false,
        operations: [
          op("credit", buyer.id, walletId, "1"),
          op("credit", 2_000_000_000, walletId, "1"),
        ],
      }),
    );
    expect(missing).toEqual({
      code: "batch_operation",
      index: 1,
      refused: { code: "user_not_found", userId: 2_000_000_000 },
    });
    const places = await refusalOf(
      postBatch(ctx, {
        requestId: unique("b"),
        balanced: false,
        operations: [op("credit", buyer.id, walletId, "1.001")],
      }),
    );
    expect(places).toMatchObject({
      code: "batch_operation",
      index: 0,
      refused: { code: "amount_refused" },
    });
  });

  it("a repeated request_id writes nothing and names the batch it made", async () => {
    const { buyer, walletId, ctx } = await setup();
    const requestId = unique("b");
    const first = await postBatch(ctx, {
      requestId,
      balanced: false,
      operations: [op("credit", buyer.id, walletId, "1")],
    });
    const before = await tableCounts();
    const again = await refusalOf(
      postBatch(ctx, {
        requestId: requestId.toUpperCase(),
        balanced: false,
        operations: [op("credit", buyer.id, walletId, "7")],
      }),
    );
    expect(again).toEqual({ code: "batch_exists", batchId: first.batchId });
    expect(await tableCounts()).toEqual(before);
  });

  it("refuses a subscriber before reading anything", async () => {
    const { buyer, walletId } = await setup();
    const reason = await refusalOf(
      postBatch(serviceAs(as(buyer)), {
        requestId: unique("b"),
        balanced: false,
        operations: [op("credit", buyer.id, walletId, "1")],
      }),
    );
    expect(reason).toEqual({ code: "forbidden" });
  });
});

describe("reverseBatch", () => {
  it("reverses every entry in one batch; a second reversal moves nothing", async () => {
    const { buyer, seller, walletId, ctx } = await setup();
    await postBatch(ctx, {
      requestId: unique("fund"),
      balanced: false,
      operations: [op("credit", buyer.id, walletId, "10")],
    });
    const b = await postBatch(ctx, {
      requestId: unique("b"),
      balanced: false,
      operations: [
        move(buyer.id, seller.id, walletId, "4"),
        op("credit", seller.id, walletId, "1"),
      ],
    });
    const r = await reverseBatch(ctx, { id: b.batchId, ref: String(b.batchId), note: "" });
    expect(r.reversedIds).toEqual([...b.transactionIds].reverse());
    expect(await balance(buyer.id, walletId)).toBe(1000);
    expect(await balance(seller.id, walletId)).toBe(0);
    const before = await tableCounts();
    expect(
      await refusalOf(reverseBatch(ctx, { id: b.batchId, ref: String(b.batchId), note: "" })),
    ).toEqual({ code: "batch_already_reversed", ref: String(b.batchId) });
    expect(await tableCounts()).toEqual(before);
    expect(await ledgerViolations()).toEqual(CLEAN);
  });

  it("undoes a user's money out and back in, spent since, when what is left pays the whole", async () => {
    const { buyer, seller, walletId, ctx } = await setup();
    await unbalanced(ctx, op("credit", buyer.id, walletId, "5"));
    // Out and back: the batch moves none of the buyer's money in all, then 4 of it is spent.
    const b = await unbalanced(
      ctx,
      move(buyer.id, seller.id, walletId, "5"),
      move(seller.id, buyer.id, walletId, "5"),
    );
    await unbalanced(ctx, op("debit", buyer.id, walletId, "4"));
    // Undone, each chain is raised before it is lowered: it ends where it stands, never below.
    const r = await reverseBatch(ctx, { id: b.batchId, ref: String(b.batchId), note: "" });
    expect([...r.reversedIds].sort()).toEqual([...b.transactionIds].sort());
    expect(await balance(buyer.id, walletId)).toBe(100);
    expect(await balance(seller.id, walletId)).toBe(0);
    expect(await ledgerViolations()).toEqual(CLEAN);
  });

  it("refuses, naming the entry, when a reversal would overdraw; nothing is written", async () => {
    const account = await setup();
    const { ctx } = account;
    const b = await creditedThenSpent(account, account.seller);
    const before = await tableCounts();
    expect(
      await refusalOf(reverseBatch(ctx, { id: b.batchId, ref: String(b.batchId), note: "" })),
    ).toEqual({
      code: "batch_reversal_refused",
      entryId: b.transactionIds[1],
      refused: "insufficient-balance",
    });
    expect(await tableCounts()).toEqual(before);
  });

  it("undoes money out and back at the largest balance, lowering first where raising would pass it", async () => {
    const { buyer, seller, walletId, ctx } = await setup(0);
    await unbalanced(ctx, op("credit", buyer.id, walletId, String(MAX_MINOR)));
    const b = await postBatch(ctx, {
      requestId: unique("b"),
      balanced: true,
      operations: [
        move(buyer.id, seller.id, walletId, "1"),
        move(seller.id, buyer.id, walletId, "1"),
      ],
    });
    const r = await reverseBatch(ctx, { id: b.batchId, ref: String(b.batchId), note: "" });
    // The buyer's chain: the DEBIT of what came back first (MAX - 1), then the CREDIT (MAX).
    expect(r.reversedIds).toEqual([
      b.transactionIds[3],
      b.transactionIds[2],
      b.transactionIds[1],
      b.transactionIds[0],
    ]);
    expect(await balance(buyer.id, walletId)).toBe(MAX_MINOR);
    expect(await balance(seller.id, walletId)).toBe(0);
    expect(await ledgerViolations()).toEqual(CLEAN);
  });

  it("undoes 26 transfers of the largest amount there and back: more entries than one read binds", async () => {
    const { buyer, seller, walletId, ctx } = await setup(0);
    await unbalanced(ctx, op("credit", buyer.id, walletId, String(MAX_MINOR)));
    const legs = Array.from({ length: 26 }, (_, i) =>
      i % 2 === 0
        ? move(buyer.id, seller.id, walletId, String(MAX_MINOR))
        : move(seller.id, buyer.id, walletId, String(MAX_MINOR)),
    );
    const b = await postBatch(ctx, { requestId: unique("b"), balanced: true, operations: legs });
    const r = await reverseBatch(ctx, { id: b.batchId, ref: String(b.batchId), note: "" });
    expect(r.transactionIds).toHaveLength(52);
    expect(await balance(buyer.id, walletId)).toBe(MAX_MINOR);
    expect(await balance(seller.id, walletId)).toBe(0);
    expect(await ledgerViolations()).toEqual(CLEAN);
  });

  it("reads the balances of any number of chains, each once, for that order", async () => {
    const { buyer, seller, walletId, ctx } = await setup(0);
    await unbalanced(
      ctx,
      op("credit", buyer.id, walletId, "7"),
      op("credit", seller.id, walletId, "9"),
    );
    // 120 distinct pairs (three runs of a statement) and each known one twice.
    const strangers = Array.from({ length: 118 }, (_, i) => ({ userId: 1e9 + i, walletId }));
    const known = [buyer, seller].map((u) => ({ userId: u.id, walletId }));
    await holdOf(ctx, seller.id, walletId, "2");
    const read = await pairBalances(
      createDb(env.DB),
      [...known, ...strangers, ...known],
      Math.floor(Date.now() / 1000),
    );
    expect([...read]).toEqual([
      [`${buyer.id}:${walletId}`, { balanceMinor: 7, heldMinor: 0 }],
      [`${seller.id}:${walletId}`, { balanceMinor: 9, heldMinor: 2 }],
    ]);
  });

  it("undoes a batch at the largest balance where lowering a little first makes room for a raise", async () => {
    const { buyer, walletId, ctx } = await setup(0);
    await unbalanced(ctx, op("credit", buyer.id, walletId, "1"));
    const b = await unbalanced(
      ctx,
      op("credit", buyer.id, walletId, "1"),
      op("debit", buyer.id, walletId, "2"),
      op("credit", buyer.id, walletId, String(MAX_MINOR)),
    );
    await unbalanced(ctx, op("debit", buyer.id, walletId, "1"));
    // At MAX - 1: undoing the credit of 1 first (MAX - 2) lets the debit's undoing fit (MAX), and
    // the credit of MAX is undone last (0). Undoing that credit first would take the balance to -1.
    const r = await reverseBatch(ctx, { id: b.batchId, ref: String(b.batchId), note: "" });
    expect(r.reversedIds).toEqual([b.transactionIds[0], b.transactionIds[1], b.transactionIds[2]]);
    expect(await balance(buyer.id, walletId)).toBe(0);
    expect(await ledgerViolations()).toEqual(CLEAN);
  });

  it("undoes a batch at the largest balance by lowerings that keep the balance at what holds reserve", async () => {
    const { buyer, walletId, ctx } = await setup(0);
    await unbalanced(ctx, op("credit", buyer.id, walletId, String(MAX_MINOR - 4)));
    const b = await unbalanced(
      ctx,
      op("debit", buyer.id, walletId, "3"),
      op("credit", buyer.id, walletId, "4"),
      op("credit", buyer.id, walletId, "1"),
      op("credit", buyer.id, walletId, "1"),
    );
    await holdOf(ctx, buyer.id, walletId, String(MAX_MINOR - 4));
    // At MAX - 1 with MAX - 4 held: undoing the credits of 1 first (MAX - 3) lets the debit's
    // undoing fit (MAX), and the credit of 4 is undone last (MAX - 4, all of it held). Undoing the
    // credit of 4 first would make room too, but leave MAX - 5, below what the hold reserves.
    const r = await reverseBatch(ctx, { id: b.batchId, ref: String(b.batchId), note: "" });
    expect(r.reversedIds).toEqual([
      b.transactionIds[3],
      b.transactionIds[2],
      b.transactionIds[0],
      b.transactionIds[1],
    ]);
    expect(await balance(buyer.id, walletId)).toBe(MAX_MINOR - 4);
    expect(await ledgerViolations()).toEqual(CLEAN);
  });

  it("refuses, naming the entry, when no order keeps a chain between zero and the largest balance", async () => {
    const { buyer, seller, walletId, ctx } = await setup(0);
    const most = 600_000_000_000_000;
    await unbalanced(ctx, op("credit", buyer.id, walletId, String(most)));
    const b = await postBatch(ctx, {
      requestId: unique("b"),
      balanced: true,
      operations: [
        move(buyer.id, seller.id, walletId, String(most)),
        move(seller.id, buyer.id, walletId, String(most)),
      ],
    });
    await unbalanced(ctx, op("debit", buyer.id, walletId, "100000000000000"));
    // At 5e14, raised by 6e14 first the buyer passes the largest balance, lowered first zero.
    const before = await tableCounts();
    expect(
      await refusalOf(reverseBatch(ctx, { id: b.batchId, ref: String(b.batchId), note: "" })),
    ).toEqual({
      code: "batch_reversal_refused",
      entryId: b.transactionIds[3],
      refused: "insufficient-balance",
    });
    expect(await tableCounts()).toEqual(before);
  });

  it("writes and reverses the largest batch: 100 transfers among 200 users", async () => {
    const { walletId, ctx } = await setup();
    const users = await Promise.all(Array.from({ length: 2 * MAX_OPERATIONS }, () => makeUser()));
    const [senders, receivers] = [users.slice(0, MAX_OPERATIONS), users.slice(MAX_OPERATIONS)];
    // The legs' users are found in one call, as none is in the isolate's cache yet.
    const found = await findUsers(
      createDb(env.DB),
      [...users, ...users].map((u) => u.id),
    );
    expect(found.size).toBe(2 * MAX_OPERATIONS);
    for (const half of [senders.slice(0, 50), senders.slice(50)])
      await postBatch(ctx, {
        requestId: unique("fund"),
        balanced: false,
        operations: half.map((u) => op("credit", u.id, walletId, "2")),
      });
    const b = await postBatch(ctx, {
      requestId: unique("b"),
      balanced: true,
      operations: senders.map((u, i) => move(u.id, receivers[i]!.id, walletId, "1.5")),
    });
    expect(b.transactionIds).toHaveLength(2 * MAX_OPERATIONS);
    expect(await balance(receivers[99]!.id, walletId)).toBe(150);
    const r = await reverseBatch(ctx, { id: b.batchId, ref: String(b.batchId), note: "" });
    expect(r.reversedIds).toHaveLength(2 * MAX_OPERATIONS);
    expect(await balance(senders[0]!.id, walletId)).toBe(200);
    expect(await balance(receivers[99]!.id, walletId)).toBe(0);
    expect(await ledgerViolations()).toEqual(CLEAN);
  });
});

/**
 * Signed moves as a batch's reversal writes them: newest first as given, but in the places each
 * user holds, its credits back before its debits.
 */
function undoOrder(moves: [number, number][]) {
  const queues = new Map<number, [number, number][]>();
  for (const m of moves) queues.set(m[0], [...(queues.get(m[0]) ?? []), m]);
  for (const q of queues.values()) q.sort((a, b) => Number(a[1] < 0) - Number(b[1] < 0));
  return moves.map((m) => queues.get(m[0])!.shift()!);
}

describe("batches, single movements and reversals, at random", () => {
  it("conserve money and match a model of the balances", async () => {
    const { buyer, seller, platform, walletId, ctx } = await setup();
    const users = [buyer.id, seller.id, platform.id];
    const { credit: creditOne, debit: debitOne } = await import("../src/wallet/movements");
    const leg = fc.record({
      kind: fc.constantFrom("credit", "debit", "transfer"),
      who: fc.integer({ min: 0, max: 2 }),
      to: fc.integer({ min: 1, max: 2 }),
      cents: fc.integer({ min: 1, max: 400 }),
    });
    type Leg = { kind: string; who: number; to: number; cents: number };
    const action = fc.oneof(
      fc.record({
        type: fc.constant("batch" as const),
        legs: fc.array(leg, { minLength: 1, maxLength: 5 }),
      }),
      fc.record({ type: fc.constant("single" as const), leg }),
      fc.record({ type: fc.constant("reverse" as const), pick: fc.nat() }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(action, { minLength: 1, maxLength: 8 }), async (actions) => {
        const model = new Map(
          await Promise.all(users.map(async (id) => [id, await balance(id, walletId)] as const)),
        );
        // Each written batch's legs as signed moves, and whether it was reversed.
        const written: { id: number; moves: [number, number][]; reversed: boolean }[] = [];
        /** The moves applied in order to a copy of the model, or undefined if one overdraws. */
        const applied = (moves: [number, number][]) => {
          const next = new Map(model);
          for (const [user, signed] of moves) {
            const after = next.get(user)! + signed;
            if (signed < 0 && after < 0) return undefined;
            next.set(user, after);
          }
          return next;
        };
        const movesOf = (l: Leg) => {
          const from = users[l.who]!;
          if (l.kind === "credit") return [[from, l.cents]] as [number, number][];
          if (l.kind === "debit") return [[from, -l.cents]] as [number, number][];
          const to = users[(l.who + l.to) % 3]!;
          return [
            [from, -l.cents],
            [to, l.cents],
          ] as [number, number][];
        };
        const opOf = (l: Leg) => {
          const sent = (l.cents / 100).toFixed(2);
          return l.kind === "transfer"
            ? move(users[l.who]!, users[(l.who + l.to) % 3]!, walletId, sent)
            : op(l.kind as "credit" | "debit", users[l.who]!, walletId, sent);
        };
        for (const a of actions) {
          if (a.type === "reverse") {
            const target = written.filter((w) => !w.reversed)[a.pick % Math.max(1, written.length)];
            if (!target) continue;
            const next = applied(
              undoOrder(target.moves.map(([u, s]) => [u, -s] as [number, number]).reverse()),
            );
            const done = await reverseBatch(ctx, {
              id: target.id,
              ref: String(target.id),
              note: "",
            }).then(
              () => true,
              (err: unknown) => {
                expect(err).toBeInstanceOf(Refusal);
                return false;
              },
            );
            expect(done).toBe(next !== undefined);
            if (next) {
              target.reversed = true;
              for (const [k, v] of next) model.set(k, v);
            }
            continue;
          }
          const legs = a.type === "batch" ? a.legs : [a.leg];
          const moves = legs.flatMap(movesOf);
          const next = applied(moves);
          const run =
            a.type === "batch"
              ? postBatch(ctx, {
                  requestId: unique("p"),
                  balanced: false,
                  operations: legs.map(opOf),
                })
              : a.leg.kind === "transfer"
                ? postBatch(ctx, {
                    requestId: unique("p"),
                    balanced: false,
                    operations: [opOf(a.leg)],
                  })
                : (a.leg.kind === "credit" ? creditOne : debitOne)(ctx, {
                    user: { id: users[a.leg.who]! },
                    walletId,
                    amount: amount((a.leg.cents / 100).toFixed(2)),
                    requestId: unique("s"),
                    note: "",
                  });
          const result = await run.then(
            (r) => r,
            () => undefined,
          );
          expect(result !== undefined, JSON.stringify(a)).toBe(next !== undefined);
          if (!next) continue;
          for (const [k, v] of next) model.set(k, v);
          if (result && "batchId" in result)
            written.push({ id: result.batchId, moves, reversed: false });
        }
        for (const id of users) expect(await balance(id, walletId)).toBe(model.get(id));
      }),
      { numRuns: 12 },
    );
    expect(await ledgerViolations()).toEqual(CLEAN);
  });
});

describe(`a batch's reversal at random (fast-check seed ${UNDO_SEED})`, () => {
  it("is refused only when it would leave a balance below what holds reserve of it", async () => {
    const admin = await makeAdmin();
    const ctx = serviceAs(as(admin));
    const walletId = await makeWallet(admin, { decimals: 0 });
    const { credit, debit } = await import("../src/wallet/movements");
    const whole = (n: number) => amount(String(n));
    const n = fc.integer({ min: 1, max: 9 });
    const who = fc.nat(1);
    const leg = fc.oneof(
      fc.record({ t: fc.constantFrom("credit" as const, "debit" as const), u: who, n }),
      fc.record({ t: fc.constant("transfer" as const), u: who, n }),
    );
    // After the batch, each user spends some (a debit) or has some held, or tries to.
    const then = fc.record({ u: who, n: fc.integer({ min: 1, max: 12 }), hold: fc.boolean() });
    let judged = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.tuple(fc.nat(25), fc.nat(25)),
        fc.array(leg, { minLength: 2, maxLength: 8 }),
        fc.array(then, { minLength: 1, maxLength: 4 }),
        async (start, legs, after) => {
          const users = [(await makeUser()).id, (await makeUser()).id];
          const key = () => unique("r");
          for (const [i, sum] of start.entries())
            if (sum > 0)
              await credit(ctx, {
                user: { id: users[i]! },
                walletId,
                amount: whole(sum),
                requestId: key(),
                note: "",
              });
          const b = await unbalanced(
            ctx,
            ...legs.map((l) =>
              l.t === "transfer"
                ? move(users[l.u]!, users[1 - l.u]!, walletId, String(l.n))
                : op(l.t, users[l.u]!, walletId, String(l.n)),
            ),
          ).catch(() => undefined);
          if (!b) return;
          const held = [0, 0];
          for (const a of after) {
            const user = { id: users[a.u]! };
            const spend = { user, walletId, amount: whole(a.n), requestId: key(), note: "" };
            const done = await (a.hold
              ? placeHold(ctx, { ...spend, expiresInS: 3_600 })
              : debit(ctx, spend)
            ).then(
              () => true,
              () => false,
            );
            if (done && a.hold) held[a.u]! += a.n;
          }
          // What the reversal leaves each user: its balance now, less what the batch moved to it.
          const left = await Promise.all(users.map((id) => balance(id, walletId)));
          for (const l of legs) {
            const signed = l.t === "debit" ? -l.n : l.n;
            left[l.u]! -= l.t === "transfer" ? -l.n : signed;
            if (l.t === "transfer") left[1 - l.u]! -= l.n;
          }
          const payable = left.every((sum, i) => sum >= held[i]!);
          judged++;
          const reversed = await reverseBatch(ctx, {
            id: b.batchId,
            ref: String(b.batchId),
            note: "",
          }).then(
            () => ({ code: "reversed" }),
            (err: unknown) => (err instanceof Refusal ? err.reason : { code: String(err) }),
          );
          expect(reversed.code, JSON.stringify({ left, held })).toBe(
            payable ? "reversed" : "batch_reversal_refused",
          );
        },
      ),
      { seed: UNDO_SEED, numRuns: 120, endOnFailure: true },
    );
    // Enough of the runs wrote a batch to judge its reversal.
    expect(judged).toBeGreaterThan(40);
    expect(await ledgerViolations()).toEqual(CLEAN);
  });
});

describe("a wallet imported with extra places", () => {
  it("converts each leg to the places it stores, and refuses the whole batch at an overdraft", async () => {
    const { buyer, seller, ctx } = await setup();
    // 2 display places, stored at 4.
    const walletId = await storingMore(2);
    const before = await tableCounts();
    const refused = await refusalOf(
      postBatch(ctx, {
        requestId: unique("b"),
        balanced: false,
        operations: [
          op("credit", buyer.id, walletId, "1.25"),
          move(buyer.id, seller.id, walletId, "1.26"),
        ],
      }),
    );
    expect(refused).toEqual({ code: "batch_operation", index: 1, refused: "insufficient-balance" });
    // Its sums as every refusal writes an amount: in the places the wallet shows (exactText).
    const unbalanced = (amount: string) =>
      refusalOf(
        postBatch(ctx, {
          requestId: unique("b"),
          balanced: true,
          operations: [op("credit", buyer.id, walletId, amount)],
        }),
      );
    expect(await unbalanced("5")).toEqual({
      code: "batch_unbalanced",
      walletId,
      creditsText: "5.00",
      debitsText: "0.00",
    });
    expect(await tableCounts()).toEqual(before);
    await postBatch(ctx, {
      requestId: unique("b"),
      balanced: false,
      operations: [
        op("credit", buyer.id, walletId, "1.25"),
        move(buyer.id, seller.id, walletId, "1.20"),
      ],
    });
    expect(await balance(buyer.id, walletId)).toBe(500);
    expect(await balance(seller.id, walletId)).toBe(12_000);
    expect(await ledgerViolations()).toEqual(CLEAN);
  });
});

describe("a leg's derived request id", () => {
  it("already used by a single credit of its user refuses the batch, naming the leg", async () => {
    const { buyer, seller, walletId, ctx } = await setup();
    const { credit: creditOne } = await import("../src/wallet/movements");
    const requestId = unique("b");
    const taken = await creditOne(ctx, {
      user: { id: seller.id },
      walletId,
      amount: amount("1"),
      requestId: legRequestId(requestId, 1),
      note: "",
    });
    const before = await tableCounts();
    const reason = await refusalOf(
      postBatch(ctx, {
        requestId,
        balanced: false,
        operations: [op("credit", buyer.id, walletId, "2"), op("credit", seller.id, walletId, "3")],
      }),
    );
    expect(reason).toEqual({
      code: "batch_operation",
      index: 1,
      refused: { code: "transaction_exists", existingId: taken.transactionId },
    });
    expect(await tableCounts()).toEqual(before);
  });

  it("names its own operation when a transfer's two legs come before it", async () => {
    const { buyer, seller, platform, walletId, ctx } = await setup();
    const { credit: creditOne } = await import("../src/wallet/movements");
    const requestId = unique("b");
    const creditOf = (userId: number, sent: string, key: string) =>
      creditOne(ctx, {
        user: { id: userId },
        walletId,
        amount: amount(sent),
        requestId: key,
        note: "",
      });
    await creditOf(buyer.id, "5", unique("c"));
    const taken = await creditOf(seller.id, "1", legRequestId(requestId, 1));
    const before = await tableCounts();
    const reason = await refusalOf(
      postBatch(ctx, {
        requestId,
        balanced: false,
        // The transfer writes two entries, its receiving one unkeyed: operation 1 is entry 2.
        operations: [
          move(buyer.id, platform.id, walletId, "2"),
          op("credit", seller.id, walletId, "3"),
        ],
      }),
    );
    expect(reason).toEqual({
      code: "batch_operation",
      index: 1,
      refused: { code: "transaction_exists", existingId: taken.transactionId },
    });
    expect(await tableCounts()).toEqual(before);
  });
});

describe("money arriving between a refusal and its naming", () => {
  it("walks back no further than every wallet's newest entries are all read", async () => {
    const { buyer, seller, walletId, ctx } = await setup();
    const credit = (userId: number) => unbalanced(ctx, op("credit", userId, walletId, "1"));
    // The seller's two oldest entries lie before the buyer's 20 newest, the walk's reach per
    // wallet: past the buyer's 20th newest its balance is unknown, so the walk stops there.
    for (let i = 0; i < 2; i++) await credit(seller.id);
    const buyers: number[] = [];
    for (let i = 0; i < 22; i++) buyers.push((await credit(buyer.id)).transactionIds[0]!);
    const sellersNewest = (await credit(seller.id)).transactionIds[0]!;
    const walked = await newestEntries(
      ctx.db,
      [
        { userId: buyer.id, walletId },
        { userId: seller.id, walletId },
      ],
      Math.floor(Date.now() / 1000),
    );
    expect(walked.map((e) => e.id)).toEqual([sellersNewest, ...buyers.slice(2).reverse()]);
  });

  /** `ctx` where a credit lands right after the database refuses its first batch. */
  const arrivingAfter = (ctx: ServiceContext, arrive: () => Promise<unknown>) => ({
    ...ctx,
    db: createDb(arrivingAfterRefusal(arrive)),
  });

  it("a batch refused at an overdraft still names its operation once a credit has paid it", async () => {
    const { buyer, seller, walletId, ctx } = await setup();
    await unbalanced(ctx, op("credit", buyer.id, walletId, "2"));
    const topUp = () => unbalanced(ctx, op("credit", buyer.id, walletId, "10"));
    const before = await tableCounts();
    const reason = await refusalOf(
      unbalanced(
        arrivingAfter(ctx, topUp),
        op("credit", seller.id, walletId, "1"),
        op("debit", buyer.id, walletId, "5"),
      ),
    );
    expect(reason).toEqual({ code: "batch_operation", index: 1, refused: "insufficient-balance" });
    // Nothing of the batch was written: only the top-up's batch and entry.
    const after = await tableCounts();
    expect(after.transactions! - before.transactions!).toBe(1);
    expect(await balance(buyer.id, walletId)).toBe(1200);
    expect(await balance(seller.id, walletId)).toBe(0);
  });

  it("a batch reversal refused at an overdraft names the entry at fault once a credit has paid it", async () => {
    const account = await setup();
    const { buyer, walletId, ctx } = account;
    const b = await creditedThenSpent(account, buyer);
    const topUp = () => unbalanced(ctx, op("credit", buyer.id, walletId, "10"));
    expect(
      await refusalOf(
        reverseBatch(arrivingAfter(ctx, topUp), {
          id: b.batchId,
          ref: String(b.batchId),
          note: "",
        }),
      ),
    ).toEqual({
      code: "batch_reversal_refused",
      entryId: b.transactionIds[0],
      refused: "insufficient-balance",
    });
  });

  it("names the leg on the wallet whose hold refused it, not another wallet of the same user", async () => {
    const { admin, buyer, walletId, ctx } = await setup();
    const other = await makeWallet(admin, { decimals: 2 });
    await unbalanced(ctx, op("credit", buyer.id, walletId, "10"));
    await unbalanced(ctx, op("credit", buyer.id, other, "5"));
    await holdOf(ctx, buyer.id, walletId, "8");
    // 4 of 5 leaves the other wallet 1, nothing held there; 3 of the 10 with 8 held is refused.
    const reason = await refusalOf(
      unbalanced(ctx, op("debit", buyer.id, other, "4"), op("debit", buyer.id, walletId, "3")),
    );
    expect(reason).toEqual({ code: "batch_operation", index: 1, refused: "insufficient-balance" });
    expect(await balance(buyer.id, other)).toBe(500);
  });

  it("names the leg at fault though a hold that refused it is voided a moment later", async () => {
    const { buyer, seller, walletId, ctx } = await setup();
    // The buyer's credit is the newest entry: a walk back that forgot the hold would undo it first
    // and blame the buyer's leg.
    await unbalanced(ctx, op("credit", seller.id, walletId, "10"));
    await unbalanced(ctx, op("credit", buyer.id, walletId, "5"));
    const hold = await holdOf(ctx, seller.id, walletId, "8");
    const voidIt = () => voidHold(ctx, { hold: { id: hold.hold.id, ref: String(hold.hold.id) } });
    // The buyer can pay 3; the seller, 10 with 8 held, cannot pay 5.
    const reason = await refusalOf(
      unbalanced(
        arrivingAfter(ctx, voidIt),
        op("debit", buyer.id, walletId, "3"),
        op("debit", seller.id, walletId, "5"),
      ),
    );
    expect(reason).toEqual({ code: "batch_operation", index: 1, refused: "insufficient-balance" });
    expect(await balance(seller.id, walletId)).toBe(1000);
  });
});

describe(`a page of batches, read about ${BATCH_ENTRIES_PER_READ} entries at a time`, () => {
  it("reads exactly that many entries in one read, and a batch more in the next", {
    timeout: 60_000,
  }, async () => {
    const { buyer, walletId, ctx } = await setup();
    const perBatch = 100;
    const fill = BATCH_ENTRIES_PER_READ / perBatch;
    for (let i = 0; i <= fill; i++)
      await unbalanced(
        ctx,
        ...Array.from({ length: perBatch }, () => op("credit", buyer.id, walletId, "0.01")),
      );
    /** The batches each read of the page holds. */
    const reads = async (perPage: number) => {
      const { batches } = await listBatches(ctx, { userId: buyer.id, page: 1, perPage });
      const sizes: number[] = [];
      for await (const read of batches) sizes.push(read.length);
      return sizes;
    };
    expect(await reads(fill)).toEqual([fill]);
    expect(await reads(fill + 1)).toEqual([fill, 1]);
  });
});
