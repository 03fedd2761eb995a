// A money request sent again under a key already used (a double click, a reload, Back): whether
// the entry holding the key (the one its `transaction_exists` refusal names) is what the request,
// as sent now, would have written, so that it is told as done; an entry that is anything else
// (another movement, or the same with a field changed since) moved nothing of what it asks. For an
// administrator: the console tells its forms sent again apart. Each is one D1 statement.
import { findEntryMovement, findEntryReversal } from "../db/ledger";
import { requireAdmin, type ServiceContext } from "./context";
import { type MoveInput, sentText } from "./movements";

type Asked = Pick<MoveInput, "walletId" | "amount"> & { user: { id: number } };

/** A movement as a form asks for it: a credit or a debit of `user`, a transfer from it to `to`. */
export type AskedMovement =
  | (Asked & { kind: "credit" | "debit" })
  | (Asked & { kind: "transfer"; to: { id: number } });

/**
 * Whether entry `entryId` is the one this movement would write: the user's entry of its type (a
 * transfer's: the sender's DEBIT, which holds its key), wallet and amount as sent, written by a
 * movement of its kind (a credit or debit of its own; a transfer whose other half is the
 * recipient's), never by a reversal, a hold's capture or a batch with the same figures.
 */
export async function entryIsMovement(
  ctx: ServiceContext,
  { entryId, movement: m }: { entryId: number; movement: AskedMovement },
) {
  requireAdmin(ctx, "read");
  const e = await findEntryMovement(ctx.db, entryId);
  const same =
    e?.userId === m.user.id &&
    e.txnType === (m.kind === "credit" ? "CREDIT" : "DEBIT") &&
    e.walletId === m.walletId &&
    e.amountText === sentText(m.amount) &&
    e.reversesId === null &&
    e.holdId === null &&
    e.batchId === null;
  if (m.kind !== "transfer") return same && e.transferId === null;
  return same && e.transferId !== null && e.partnerUserId === m.to.id;
}

/**
 * Whether entry `entryId` reverses transaction `txn`, or the other half of `txn`'s transfer, which a
 * transfer undone from either half may key first (a site's transfer from a user to itself, named by
 * its CREDIT half: movements.ts undoOrder).
 */
export async function entryReverses(
  ctx: ServiceContext,
  { entryId, txn }: { entryId: number; txn: number },
) {
  requireAdmin(ctx, "read");
  const e = await findEntryReversal(ctx.db, entryId, txn);
  if (!e || e.reversesId === null) return false;
  const link = e.reversedTransferId;
  return e.reversesId === txn || (link !== null && link === e.namedTransferId);
}
