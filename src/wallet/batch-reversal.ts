// A batch reversed as a whole: every entry's opposite (linked by reverses_id, never an edit) written
// as one new batch naming the one it reverses, in one D1 batch, or nothing. UNIQUE(reverses_batch_id)
// makes a second reversal fail; UNIQUE(reverses_id) fails it when an entry was reversed on its own;
// a reversal that would overdraw fails the overdraft CHECK, as any debit does.
import { findBatch, reversedAmong } from "../db/batches";
import type { EntryRow } from "../db/ledger";
import { findUsers } from "../db/users";
import { LedgerRefusal, type NewEntry } from "../ledger/append";
import { appendBatch, BatchConflict } from "../ledger/batches";
import { entry, seconds } from "../ledger/entries";
import { firstRefused } from "./batches";
import { type IdRef, requireAdmin, type ServiceContext } from "./context";
import { opposite, walletsOf, writeUndoing } from "./movements";
import { Refusal, verdictOf } from "./refusal";

type Original = EntryRow["entry"];

/** Why a batch that reverses another is refused a reversal (`not_reversible`, keyed `id`). */
export const BATCH_REVERSAL_KEPT = "a batch reversal cannot be reversed";

export async function reverseBatch(
  ctx: ServiceContext,
  { id, ref, note }: IdRef & { note: string },
) {
  requireAdmin(ctx, "write");
  const found = id === null ? undefined : await findBatch(ctx.db, id);
  if (!found || id === null) throw new Refusal({ code: "batch_not_found", ref });
  if (found.batch.reversesBatchId !== null)
    throw new Refusal({ code: "not_reversible", why: BATCH_REVERSAL_KEPT });
  if (found.reversalId !== null) throw new Refusal({ code: "batch_already_reversed", ref });
  // Newest first, undoing the batch as it was done: a leg that paid a later one out (a credit then
  // transferred on) is undone after it, so a batch whose money stayed put reverses (unless undoing
  // a credit would take a balance imported below zero back below it: refused as a debit would be);
  // and each chain raised before it is lowered, unless near the largest balance (writeUndoing).
  const originals = found.entries.map((row) => row.entry).reverse();
  const early = await alreadyReversed(ctx, originals);
  if (early) throw early;

  const { undoing, stamp } = await undoingOf(ctx, id, originals, note);
  // The last write tried, to name the entry the ledger refused.
  let tried = { ordered: originals, entries: [] as NewEntry[] };
  const write = (ordered: Original[]) => {
    const entries = ordered.map(undoing);
    tried = { ordered, entries };
    return appendBatch(
      ctx.db,
      {
        requestId: found.batch.requestId,
        requestKey: null,
        balanced: found.batch.balanced,
        createdAtS: seconds(stamp.nowMs),
        reversesBatchId: id,
      },
      entries as [NewEntry, ...NewEntry[]],
    );
  };
  try {
    const { ordered, written } = await writeUndoing(
      ctx.db,
      originals,
      (e) => e,
      write,
      seconds(stamp.nowMs),
    );
    return {
      batchId: id,
      reversalBatchId: written.batchId,
      transactionIds: written.ids,
      reversedIds: ordered.map((e) => e.id),
    };
  } catch (err) {
    throw await refusedReversal(ctx, err, ref, originals, tried);
  }
}

/** The first of the originals some entry already reverses, as a refusal naming it. */
async function alreadyReversed(ctx: ServiceContext, originals: Original[]) {
  const reversed = await reversedAmong(
    ctx.db,
    originals.map((e) => e.id),
  );
  const hit = originals.find((e) => reversed.has(e.id));
  return hit && new Refusal({ code: "already_reversed", ref: String(hit.id) });
}

/**
 * What makes each original's opposite in the reversal batch `id`, at the request's stamp: in its own
 * wallet and units, a transfer's halves still linked under a new transfer id of their own.
 */
async function undoingOf(ctx: ServiceContext, id: number, originals: Original[], note: string) {
  const users = await findUsers(
    ctx.db,
    originals.map((e) => e.userId),
  );
  const wallets = await walletsOf(ctx.db, originals);
  const stamp = ctx.stamp();
  const transferIds = new Map<string, string>();
  const undoing = (e: Original) => {
    const transferId =
      e.transferId === null
        ? undefined
        : (transferIds.get(e.transferId) ??
          transferIds.set(e.transferId, crypto.randomUUID()).get(e.transferId));
    const user = { id: e.userId, username: users.get(e.userId)?.username ?? "" };
    return entry(
      {
        ...opposite(e, user, wallets.get(e.walletId)!, note),
        requestId: e.requestId,
        keyed: false,
        transferId,
        batch: { reversesBatchId: id },
      },
      stamp,
    );
  };
  return { undoing, stamp };
}

/** A refused reversal's error as the refusal naming the batch, or the entry it was refused at. */
async function refusedReversal(
  ctx: ServiceContext,
  err: unknown,
  ref: string,
  originals: Original[],
  tried: { ordered: Original[]; entries: NewEntry[] },
) {
  if (err instanceof BatchConflict && err.reason === "reversed")
    return new Refusal({ code: "batch_already_reversed", ref });
  // An entry reversed on its own meanwhile (appendBatch says so though a balance check fired first).
  if (err instanceof LedgerRefusal && err.reason === "already-reversed")
    return (await alreadyReversed(ctx, originals)) ?? err;
  const verdict = verdictOf(err);
  if (!verdict) return err;
  const i = await firstRefused(ctx, tried.entries, verdict);
  const at = tried.ordered[i === -1 ? 0 : i]!;
  return new Refusal({ code: "batch_reversal_refused", entryId: at.id, refused: verdict });
}
