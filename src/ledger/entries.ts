import { appendEntry, type AppendResult } from "../db/ledger";
import type { Db } from "../db/client";
import type { Wallet } from "../db/wallets";
import { postTitle, slugify } from "./post-format";

export type EntryInput = {
  user: { id: number; username: string };
  wallet: Wallet;
  txnType: "CREDIT" | "DEBIT";
  amountMinor: number;
  amountText: string;
  requestId: string;
  note: string;
  nowMs: number;
};

/** Writes one CREDIT or DEBIT as the plugin's post would read, idempotent on (user, request_id). */
export function postEntry(db: Db, input: EntryInput): Promise<AppendResult> {
  const createdAtS = Math.floor(input.nowMs / 1000);
  const title = postTitle({
    username: input.user.username,
    txnType: input.txnType,
    amountMinor: input.amountMinor,
    wallet: input.wallet,
    createdAtS,
  });
  return appendEntry(db, {
    userId: input.user.id,
    walletId: input.wallet.id,
    txnType: input.txnType,
    amountMinor: input.amountMinor,
    amountText: input.amountText,
    requestId: input.requestId,
    note: input.note,
    title,
    slugBase: slugify(title),
    createdAtS,
  });
}
