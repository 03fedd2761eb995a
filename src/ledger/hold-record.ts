// A hold as the API answers it (GET /holds/{id}) and as its events carry it (docs/events.md).
import type { HoldStatus } from "../db/holds";
import type { Hold } from "../db/schema";
import { formatMoney, major, type WalletDisplay } from "./money";

export type HoldRecordOf = {
  hold: Hold;
  /** As of the moment answered: a 'held' hold past its expires_at is expired. */
  status: HoldStatus;
  /** The capture's DEBIT entry, if captured. */
  transactionId: number | null;
  wallet: WalletDisplay;
};

const iso = (s: number) => new Date(s * 1000).toISOString();

export const holdRecord = ({ hold, wallet, status, transactionId }: HoldRecordOf) => ({
  hold_id: hold.id,
  user_id: hold.userId,
  wallet_id: hold.walletId,
  amount: major(hold.amountMinor, wallet),
  amount_formatted: formatMoney(hold.amountMinor, wallet),
  status,
  request_id: hold.requestId,
  note: hold.note,
  created_at: iso(hold.createdAtS),
  expires_at: iso(hold.expiresAtS),
  // One that expired unrecorded (the cron had not run yet) expired at its expires_at.
  resolved_at:
    hold.resolvedAtS !== null
      ? iso(hold.resolvedAtS)
      : status === "expired"
        ? iso(hold.expiresAtS)
        : null,
  captured_amount: hold.capturedMinor === null ? null : major(hold.capturedMinor, wallet),
  captured_amount_formatted:
    hold.capturedMinor === null ? null : formatMoney(hold.capturedMinor, wallet),
  transaction_id: transactionId,
});
