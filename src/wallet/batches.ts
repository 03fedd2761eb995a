// Batches: several credits, debits and transfers as one all-or-nothing movement (a sale with its
// fee, a payroll, a split). The verb resolves every leg as the single verbs do (movements.ts), then
// writes all of them in one D1 batch, so the ledger's own guards (the overdraft CHECK, holds, the
// UNIQUE keys) refuse the whole batch or none of it. A refusal names the operation it came from.

import { findBatchByKey } from "../db/batches";
import { pairKey } from "../db/ledger";
import { findUsers } from "../db/users";
import type { Wallet } from "../db/wallets";
import type { NewEntry } from "../ledger/append";
import { appendBatch, BatchConflict } from "../ledger/batches";
import { type EntrySpec, entry, seconds } from "../ledger/entries";
import { exactText, MAX_MINOR } from "../ledger/money";
import { requestKey } from "../ledger/request-key";
import { requireAdmin, type ServiceContext } from "./context";
import { refusalStates } from "./holds";
import {
  type AmountSent,
  amountOf,
  exists,
  nameOf,
  namesOneUser,
  requireWallet,
  type UserRef,
} from "./movements";
import { type LedgerVerdict, Refusal, type RefusalReason, verdictOf } from "./refusal";

export const MAX_OPERATIONS = 100;

type Common = { walletId: string; amount: AmountSent; note: string };
/** A batch names its users by id. */
type ById = Extract<UserRef, { id: number }>;
export type BatchOperation =
  | (Common & { type: "credit" | "debit"; user: ById })
  | (Common & { type: "transfer"; from: ById; to: ById });

export type BatchInput = { requestId: string; balanced: boolean; operations: BatchOperation[] };

/** The request id an operation's keyed entry gets, in its user's key space: unique per batch key. */
export const legRequestId = (batchRequestId: string, index: number) =>
  `batch:${batchRequestId}#${index}`;

/** Runs `f` for operation `index`, its refusal naming that operation. */
async function at<T>(index: number, f: () => T | Promise<T>): Promise<T> {
  try {
    return await f();
  } catch (err) {
    throw err instanceof Refusal ? operationRefusal(index, err.reason) : err;
  }
}

type Leg = { index: number; spec: EntrySpec };

/**
 * Each operation's entries (a transfer's DEBIT then CREDIT), found and converted; nothing written.
 * Every operation's fields are judged, and with `balanced` the sums, before any user is looked up:
 * a request is refused as invalid (400) before anything it names is found missing (404).
 */
async function resolve(ctx: ServiceContext, input: BatchInput): Promise<Leg[]> {
  const ops = input.operations;
  const moves: ({ wallet: Wallet } & ReturnType<typeof amountOf>)[] = [];
  for (const [index, op] of ops.entries())
    moves[index] = await at(index, async () => {
      if (op.type === "transfer" && namesOneUser(op.from, op.to))
        throw new Refusal({ code: "same_user" });
      const wallet = await requireWallet(ctx.db, op.walletId);
      return { wallet, ...amountOf(op.amount, wallet) };
    });
  if (input.balanced) checkBalanced(ops, moves);
  const refs = ops.flatMap((op) => (op.type === "transfer" ? [op.from, op.to] : [op.user]));
  const users = await findUsers(ctx.db, [...new Set(refs.map((r) => r.id))]);
  const userOf = (ref: ById) => {
    const user = users.get(ref.id);
    if (!user) throw new Refusal({ code: "user_not_found", userId: nameOf(ref) });
    return { id: user.id, username: user.username };
  };
  const legs: Leg[] = [];
  for (const [index, op] of ops.entries()) {
    await at(index, async () => {
      const common = { ...moves[index]!, note: op.note };
      const requestId = legRequestId(input.requestId, index);
      if (op.type !== "transfer") {
        const txnType = op.type === "credit" ? "CREDIT" : "DEBIT";
        legs.push({ index, spec: { ...common, user: userOf(op.user), txnType, requestId } });
        return;
      }
      // A transfer naming one user twice was refused above (by id, as a batch names users).
      const [from, to] = [userOf(op.from), userOf(op.to)];
      const transferId = crypto.randomUUID();
      legs.push(
        { index, spec: { ...common, user: from, txnType: "DEBIT", requestId, transferId } },
        {
          index,
          spec: { ...common, user: to, txnType: "CREDIT", requestId, transferId, keyed: false },
        },
      );
    });
  }
  return legs;
}

/** The first wallet whose credits and debits differ (a transfer adds to both). */
function checkBalanced(ops: BatchOperation[], moves: { wallet: Wallet; amountMinor: number }[]) {
  const sums = new Map<string, { wallet: Wallet; credits: bigint; debits: bigint }>();
  for (const [index, op] of ops.entries()) {
    const { wallet, amountMinor } = moves[index]!;
    const sum = sums.get(wallet.id) ?? { wallet, credits: 0n, debits: 0n };
    if (op.type !== "debit") sum.credits += BigInt(amountMinor);
    if (op.type !== "credit") sum.debits += BigInt(amountMinor);
    sums.set(wallet.id, sum);
  }
  for (const { wallet, credits, debits } of sums.values())
    if (credits !== debits) {
      throw new Refusal({
        code: "batch_unbalanced",
        walletId: wallet.id,
        creditsText: exactText(credits, wallet),
        debitsText: exactText(debits, wallet),
      });
    }
}

/**
 * Which entry the ledger refused with `verdict`, by replaying the entries (the database already
 * refused the batch; this only names the operation) against each state it may have refused them
 * in, latest first (holds.ts refusalStates): the first that refuses one names the entry. -1 when
 * no state within reach refuses them.
 * In BigInt: a hundred legs of the largest amount run past 2^53.
 */
export async function firstRefused(
  ctx: ServiceContext,
  entries: Pick<NewEntry, "userId" | "walletId" | "txnType" | "amountMinor" | "createdAtS">[],
  verdict: LedgerVerdict,
) {
  const pairs = [...new Map(entries.map((e) => [pairKey(e), e])).values()];
  // Every entry of a batch carries its stamp's second (ledger/entries.ts entry).
  const judgedAtS = entries[0]?.createdAtS ?? seconds(ctx.nowMs());
  const limit = BigInt(MAX_MINOR);
  for await (const state of refusalStates(ctx.db, pairs, judgedAtS)) {
    const balance = new Map([...state].map(([k, p]) => [k, BigInt(p.balanceMinor)]));
    const refused = entries.findIndex((e) => {
      const k = pairKey(e);
      const moved = BigInt(e.txnType === "CREDIT" ? e.amountMinor : -e.amountMinor);
      const after = balance.get(k)! + moved;
      balance.set(k, after);
      // Past the largest balance only by a credit: a debit past its negative is an overdraft.
      if (verdict === "balance-limit") return moved > 0n && after > limit;
      const h = BigInt(state.get(k)!.heldMinor);
      return moved < 0n && after < (h > 0n ? h : 0n);
    });
    if (refused !== -1) return refused;
  }
  return -1;
}

/** Posts a batch: every operation's entries in one D1 batch, or nothing. */
export async function postBatch(ctx: ServiceContext, input: BatchInput) {
  requireAdmin(ctx, "write");
  const key = requestKey(input.requestId);
  const legs = await resolve(ctx, input).catch(async (err: unknown) => {
    throw (await repeated(ctx, key, err)) ?? err;
  });
  const stamp = ctx.stamp();
  const entries = legs.map(({ spec }) => entry({ ...spec, batch: { requestKey: key } }, stamp));
  try {
    const written = await appendBatch(
      ctx.db,
      {
        requestId: input.requestId,
        requestKey: key,
        balanced: input.balanced,
        createdAtS: seconds(stamp.nowMs),
      },
      entries as [NewEntry, ...NewEntry[]],
    );
    return { batchId: written.batchId, requestId: input.requestId, transactionIds: written.ids };
  } catch (err) {
    throw await refusedBatch(ctx, err, key, legs, entries);
  }
}

/**
 * A batch's key is the site's, so a repeat is one whichever users its operations name: a user
 * not found is answered as the repeat it is (as a write meeting the key is). A body refused as
 * invalid, unbalanced or with an amount its wallet cannot take is refused so first, as anywhere.
 */
async function repeated(ctx: ServiceContext, key: string, err: unknown) {
  const reason = err instanceof Refusal ? err.reason : undefined;
  const refused = reason?.code === "batch_operation" ? reason.refused : undefined;
  if (typeof refused !== "object" || refused.code !== "user_not_found") return undefined;
  const existing = await findBatchByKey(ctx.db, key);
  return existing && new Refusal({ code: "batch_exists", batchId: existing.id });
}

/** A refused batch's error as a refusal naming the batch, or the operation it failed at. */
async function refusedBatch(
  ctx: ServiceContext,
  err: unknown,
  key: string,
  legs: Leg[],
  entries: NewEntry[],
): Promise<unknown> {
  if (err instanceof BatchConflict && err.reason === "exists") {
    const existing = await findBatchByKey(ctx.db, key);
    // Gone again cannot be (batches are never deleted): a lost race answers like a repeat.
    return new Refusal({ code: "batch_exists", batchId: existing?.id ?? 0 });
  }
  if (err instanceof BatchConflict && err.used)
    return operationRefusal(legs[err.used.entry]!.index, exists(err.used.use).reason);
  const verdict = verdictOf(err);
  if (!verdict) return err;
  const i = await firstRefused(ctx, entries, verdict);
  return i === -1 ? err : operationRefusal(legs[i]!.index, verdict);
}

const operationRefusal = (index: number, refused: RefusalReason | LedgerVerdict) =>
  new Refusal({ code: "batch_operation", index, refused });
