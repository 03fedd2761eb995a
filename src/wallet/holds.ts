// Holds (docs/ledger.md#holds): money reserved now and settled later, by a capture (one DEBIT of
// at most the held amount; the rest is released) or a void, or released when the hold expires. The
// available balance is the balance less the holds that count; debits, transfers out and new holds
// are refused beyond it by the database's guards, inside the batch that writes them.
import type { Db } from "../db/client";
import type { Hold, HoldStatus } from "../db/holds";
import * as reads from "../db/holds";
import { newestEntries, pairKey } from "../db/ledger";
import { findWalletCached, type Wallet } from "../db/wallets";
import { entry, seconds } from "../ledger/entries";
import type { HoldRecordOf } from "../ledger/hold-record";
import * as writes from "../ledger/holds";
import { exactText } from "../ledger/money";
import {
  type IdRef,
  readUserId,
  requireAdmin,
  requireExisting,
  requireReader,
  type ServiceContext,
} from "./context";
import { type AmountSent, amountOf, exists, type MoveInput, resolveMove } from "./movements";
import { Refusal } from "./refusal";

/** How long a hold lasts unless the caller says: 7 days; at most 30. */
export const DEFAULT_HOLD_S = 7 * 86_400;
export const MAX_HOLD_S = 30 * 86_400;

/** A hold as answered (ledger/hold-record.ts), with its wallet's whole row. */
export type HoldView = HoldRecordOf & { wallet: Wallet };

/** The rule of db/holds.ts `counting`, for a hold in hand. */
const statusAt = (hold: Hold, nowS: number): HoldStatus =>
  hold.status === "held" && hold.expiresAtS <= nowS ? "expired" : hold.status;

async function view(
  db: Db,
  row: { hold: Hold; transactionId: number | null },
  nowS: number,
): Promise<HoldView> {
  const wallet = (await findWalletCached(db, row.hold.walletId)) as Wallet;
  return { ...row, status: statusAt(row.hold, nowS), wallet };
}

type HoldInput = Omit<MoveInput, "metaData"> & { expiresInS: number };

/** Places a hold; a used request_id (an entry's or a hold's) and a short balance are refusals. */
export async function placeHold(ctx: ServiceContext, input: HoldInput): Promise<HoldView> {
  const { user, wallet, ...move } = await resolveMove(ctx, input);
  const nowMs = ctx.nowMs();
  const createdAtS = seconds(nowMs);
  // From the next whole second: a hold lasts at least the seconds asked, never a moment less.
  const placed = await writes.insertHold(ctx.db, {
    userId: user.id,
    walletId: wallet.id,
    ...move,
    createdAtS,
    expiresAtS: Math.ceil(nowMs / 1000) + input.expiresInS,
  });
  if (!placed.created) throw exists(placed);
  return view(ctx.db, { hold: placed.hold, transactionId: null }, createdAtS);
}

/**
 * One hold by id (`ref` as the caller named it, for the refusal), with its owner's username. A
 * subscriber reads only its own and learns nothing about others', not even whether an id exists.
 */
export async function readHold(ctx: ServiceContext, { id, ref }: IdRef) {
  requireReader(ctx, undefined);
  const held = await findHeld(ctx, id);
  requireReader(ctx, held?.hold.userId ?? Number.NaN);
  if (!held) throw new Refusal({ code: "hold_not_found", ref });
  return held;
}

/** One hold by id, with its owner's username, whoever asks. */
async function findHeld(ctx: ServiceContext, id: number | null) {
  const row = id === null ? undefined : await reads.findHold(ctx.db, id);
  return row && { ...(await view(ctx.db, row, seconds(ctx.nowMs()))), username: row.username };
}

/** Why a hold could not be resolved: it already was, or its time ran out. */
function unresolvable(after: { hold: Hold } | undefined, held: Hold, nowS: number) {
  const hold = after?.hold ?? held;
  const status = statusAt(hold, nowS);
  return new Refusal({
    code: "hold_resolved",
    holdId: hold.id,
    status: status === "held" ? "expired" : status,
  });
}

/**
 * The hold the caller named, or a `hold_not_found` refusal; also when the caller names it as a hold
 * of `userId` (the console's page of that user) and it is another user's.
 */
async function heldOf(ctx: ServiceContext, { id, ref }: IdRef, userId?: number) {
  const held = await findHeld(ctx, id);
  if (!held || (userId !== undefined && held.hold.userId !== userId))
    throw new Refusal({ code: "hold_not_found", ref });
  return held;
}

/**
 * Captures a hold: one DEBIT of `amount` (the whole hold when omitted; its places judged against
 * the hold's wallet) that names it; the rest is released. Exactly one of any number of racing
 * captures or voids succeeds.
 */
export async function captureHold(
  ctx: ServiceContext,
  input: { hold: IdRef; userId?: number; amount?: AmountSent; note: string },
): Promise<HoldView> {
  requireAdmin(ctx, "write");
  const stamp = ctx.stamp();
  const held = await heldOf(ctx, input.hold, input.userId);
  const { hold, wallet } = held;
  const { amountMinor, amountText } = input.amount ? amountOf(input.amount, wallet) : hold;
  if (amountMinor > hold.amountMinor)
    throw new Refusal({
      code: "capture_exceeds_hold",
      heldText: exactText(hold.amountMinor, wallet),
    });
  const nowS = seconds(stamp.nowMs);
  if (held.status !== "held") throw unresolvable(undefined, hold, nowS);
  const debit = entry(
    {
      user: { id: hold.userId, username: held.username },
      wallet,
      txnType: "DEBIT",
      amountMinor,
      amountText,
      // The hold's own request_id, unkeyed: the hold keeps the key, the entry names the hold.
      requestId: hold.requestId,
      keyed: false,
      note: input.note || `Capture of hold ${hold.id}`,
      holdId: hold.id,
    },
    stamp,
  );
  const result = await writes.captureHold(ctx.db, { ...debit, holdId: hold.id }, nowS);
  if (!result.captured || !result.after) throw unresolvable(result.after, hold, nowS);
  return view(ctx.db, result.after, nowS);
}

/** Voids a hold still held: all of it is released. */
export async function voidHold(
  ctx: ServiceContext,
  input: { hold: IdRef; userId?: number },
): Promise<HoldView> {
  requireAdmin(ctx, "write");
  const held = await heldOf(ctx, input.hold, input.userId);
  const nowS = seconds(ctx.nowMs());
  if (held.status !== "held") throw unresolvable(undefined, held.hold, nowS);
  const result = await writes.voidHold(ctx.db, held.hold.id, nowS);
  if (!result.voided || !result.after) throw unresolvable(result.after, held.hold, nowS);
  return view(ctx.db, result.after, nowS);
}

type HoldQuery = {
  /** Omitted: the caller's own. */
  userId?: number;
  walletId?: string;
  status?: HoldStatus;
  page: number;
  perPage: number;
};

/** One page of a user's holds, newest first; an unknown user or wallet is a refusal. */
export async function listHolds(ctx: ServiceContext, q: HoldQuery) {
  const userId = readUserId(ctx, q.userId);
  const { db } = ctx;
  const nowS = seconds(ctx.nowMs());
  const filter = { userId, walletId: q.walletId, status: q.status, nowS };
  const page = { offset: (q.page - 1) * q.perPage, limit: q.perPage };
  const { rows, total, ...found } = await reads.listHolds(db, filter, page);
  requireExisting(found, filter);
  return { holds: await Promise.all(rows.map((row) => view(db, row, nowS))), total };
}

/**
 * A balance and what holds reserve of it (none read: nothing), and what is left to move, the one
 * less the other.
 */
export const withHolds = ({ balanceMinor = 0, heldMinor = 0 } = {}) => ({
  balanceMinor,
  heldMinor,
  availableMinor: balanceMinor - heldMinor,
});

/**
 * Each wallet a user (omitted: the caller) holds money in: its balance, what holds reserve, and
 * what is available.
 */
export async function availableBalances(ctx: ServiceContext, asked: number | undefined) {
  const userId = readUserId(ctx, asked);
  const { userExists, rows } = await reads.balancesWithHolds(ctx.db, userId, seconds(ctx.nowMs()));
  if (!userExists) throw new Refusal({ code: "user_not_found", userId });
  return rows.map((r) => ({ wallet: r.wallet, ...withHolds(r) }));
}

/**
 * The states a write the database refused at `atS` may have been judged in, latest first: each
 * (user, wallet) pair's balance and what holds reserve of it, by pairKey. First as they stand, with
 * the holds still held that counted at `atS`: when nothing was written since the refusal, the state
 * the database refused it in. Then with the holds as they stood at `atS`, as the database's guard
 * counted them (transactions_within_available: `expires_at_s > created_at_s`; a hold expired or
 * voided since still counts where the balance covers it, one captured since does not, its DEBIT
 * being in the balance: db/holds.ts refusedPositions). Then, should money have arrived since, with
 * the wallets' newest entries undone one at a time, newest first (a hold captured by a DEBIT undone
 * counting again). The latest state that refuses the write is one it was refused in, or one after
 * it. Each is read only when the one before did not serve.
 */
export async function* refusalStates(
  db: Db,
  pairs: { userId: number; walletId: string }[],
  atS: number,
) {
  const found = await reads.refusedPositions(db, pairs, atS);
  const keys = pairs.map(pairKey);
  yield new Map(keys.map((k, i) => [k, found[i]!.now]));
  const state = new Map(keys.map((k, i) => [k, found[i]!.judged]));
  yield state;
  const foundOf = new Map(keys.map((k, i) => [k, found[i]!]));
  for (const e of await newestEntries(db, pairs, atS)) {
    state.set(pairKey(e), foundOf.get(pairKey(e))!.at(e.balanceBeforeMinor, e.heldMinor));
    yield state;
  }
}

/** Statements one sweep writes at the most; what is left waits for the next minute's. */
export const EXPIRY_STATEMENTS = 20;

/** The cron's sweep: records expired holds, a statement of at most EXPIRY_BATCH at a time. */
export async function recordExpiredHolds(db: Db, nowMs: number) {
  let total = 0;
  for (let i = 0; i < EXPIRY_STATEMENTS; i++) {
    const n = await writes.expireHolds(db, seconds(nowMs));
    total += n;
    if (n < writes.EXPIRY_BATCH) break;
  }
  return total;
}
