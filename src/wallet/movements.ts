// Money moved: a credit or a debit, a transfer, a reversal. Each is one ledger batch, idempotent on
// the caller's request_id; each dialect has read and checked its fields, found the users and the
// wallet and converted the amount (ledger/money.ts amountToMinor), and answers the result or the
// refusal in its own words.
import type { Db } from "../db/client";
import { findMovement } from "../db/ledger";
import { findWalletCached, type Wallet } from "../db/wallets";
import { appendEntries, type KeyUse, LedgerRefusal } from "../ledger/append";
import { type EntrySpec, type EntryStamp, entry, postTransfer } from "../ledger/entries";
import { type Ledger, postEntry } from "../ledger/writer";
import { Refusal } from "./refusal";

export type MovementDeps = { db: Db; ledger: Ledger; stamp: EntryStamp };

/** A used request_id: the entry it already made, or the hold that has it. */
export const exists = ({ existingId, existingHoldId }: KeyUse) =>
  existingHoldId === undefined
    ? new Refusal({ code: "transaction_exists", existingId: existingId! })
    : new Refusal({ code: "hold_exists", holdId: existingHoldId });

/** One CREDIT or DEBIT: the entry written (a credit group-committed with those beside it). */
export async function postSingle(deps: MovementDeps, spec: EntrySpec) {
  const result = await postEntry(deps.ledger, deps.db, spec, deps.stamp);
  if (!result.created) throw exists(result);
  return { transactionId: result.ids[0]!, userId: spec.user.id };
}

export type TransferSpec = Omit<EntrySpec, "user" | "txnType"> & {
  from: EntrySpec["user"];
  to: EntrySpec["user"];
  /** Each leg's own note, where a dialect writes them apart (the plugin's "TRANSFER to …"). */
  notes?: { debit: string; credit: string };
};

/** A transfer: the sender's DEBIT (keyed by the request_id) and the receiver's CREDIT, or neither. */
export async function transfer(deps: MovementDeps, spec: TransferSpec) {
  const { from, to, notes, ...common } = spec;
  const result = await postTransfer(
    deps.db,
    { ...common, user: from, txnType: "DEBIT", note: notes?.debit ?? common.note },
    { ...common, user: to, txnType: "CREDIT", note: notes?.credit ?? common.note },
    deps.stamp,
  );
  if (!result.created) throw exists(result);
  const [debitId, creditId] = result.ids as [number, number];
  return { debitId, creditId };
}

/**
 * Reverses an entry by appending its opposite, linked by reverses_id (never editing it). A transfer
 * is reversed as a whole. UNIQUE(reverses_id) makes a second reversal write nothing; a reversal that
 * would overdraw (leave a balance below zero and lower) fails the overdraft CHECK like any debit.
 */
/** `ref` is the transaction as the caller named it, for the refusals' texts. */
export async function reverse(
  deps: Omit<MovementDeps, "ledger">,
  { id, ref, requestId, note }: { id: number; ref: string; requestId: string; note: string },
) {
  const movement = await findMovement(deps.db, id);
  const named = movement.find((m) => m.entry.id === id);
  if (!named) throw new Refusal({ code: "transaction_not_found", ref });
  if (movement.some((m) => m.entry.reversesId !== null))
    throw new Refusal({ code: "not_reversible", why: "a reversal cannot be reversed" });
  // Only an entry imported from WordPress can be zero; its opposite would be a zero movement, which
  // the API never writes (and the database refuses for the service's own entries).
  if (named.entry.amountMinor === 0)
    throw new Refusal({ code: "not_reversible", why: "a transaction of zero cannot be reversed" });
  const wallet = (await findWalletCached(deps.db, named.entry.walletId)) as Wallet;

  // The named entry's user owns the request_id; its reversal goes first so a replay finds it.
  const ordered = [named, ...movement.filter((m) => m !== named)];
  const transferId = ordered.length > 1 ? crypto.randomUUID() : undefined;
  const [first, ...rest] = ordered.map(({ entry: e, username }, i) =>
    entry(
      {
        user: { id: e.userId, username },
        wallet,
        txnType: e.txnType === "CREDIT" ? "DEBIT" : "CREDIT",
        amountMinor: e.amountMinor,
        amountText: e.amountText,
        requestId,
        keyed: i === 0,
        note: note || `Reversal of transaction ${e.id}`,
        transferId,
        reversesId: e.id,
      },
      deps.stamp,
    ),
  );
  const result = await appendEntries(deps.db, [first!, ...rest]).catch((err: unknown) => {
    // The UNIQUE reverses_id index: a concurrent reversal of this movement got there first.
    throw err instanceof LedgerRefusal && err.reason === "already-reversed"
      ? new Refusal({ code: "already_reversed", ref })
      : err;
  });
  if (!result.created && (result.existingId ?? result.existingHoldId) !== undefined)
    throw exists(result);
  if (!result.created) throw new Refusal({ code: "already_reversed", ref });
  return { transactionIds: result.ids, reversedIds: ordered.map((m) => m.entry.id) };
}
