import type { Db } from "../db/client";
import type { Wallet } from "../db/wallets";
import { type AppendResult, appendEntries, type BatchRef, type NewEntry } from "./append";
import { postTitle, slugify } from "./post-format";

export type EntrySpec = {
  user: { id: number; username: string };
  wallet: Wallet;
  txnType: "CREDIT" | "DEBIT";
  amountMinor: number;
  amountText: string;
  requestId: string;
  note: string;
  keyed?: boolean;
  transferId?: string;
  reversesId?: number;
  metaData?: string;
  holdId?: number;
  batch?: BatchRef;
};

/**
 * When an entry is written, and the site its guid is fixed to: null builds the guid from SITE_URL
 * when it is read (http/site.ts entryStamp says which).
 */
export type EntryStamp = { nowMs: number; guidSite: string | null };

/** An entry as the plugin's post would read: its title and slug come from who, what and when. */
export function entry(spec: EntrySpec, { nowMs, guidSite }: EntryStamp): NewEntry {
  const createdAtS = Math.floor(nowMs / 1000);
  const title = postTitle({
    username: spec.user.username,
    txnType: spec.txnType,
    amountMinor: spec.amountMinor,
    wallet: spec.wallet,
    createdAtS,
  });
  return {
    userId: spec.user.id,
    walletId: spec.wallet.id,
    txnType: spec.txnType,
    amountMinor: spec.amountMinor,
    amountText: spec.amountText,
    requestId: spec.requestId,
    keyed: spec.keyed ?? true,
    note: spec.note,
    title,
    slugBase: slugify(title),
    guidSite,
    createdAtS,
    transferId: spec.transferId,
    reversesId: spec.reversesId,
    metaData: spec.metaData,
    holdId: spec.holdId,
    batch: spec.batch,
  };
}

/** Writes a transfer: the sender's DEBIT (keyed by its request_id) and the receiver's CREDIT. */
export function postTransfer(
  db: Db,
  debit: EntrySpec,
  credit: EntrySpec,
  stamp: EntryStamp,
): Promise<AppendResult> {
  const transferId = crypto.randomUUID();
  return appendEntries(db, [
    entry({ ...debit, transferId }, stamp),
    entry({ ...credit, transferId, keyed: false }, stamp),
  ]);
}
