// The service's one refusal type: why it will not do what it was asked, as values. Each dialect
// answers a refusal in its own words (http/errors.ts for wallet/v1 and every fault it shares with
// the plugin's dialect); the service never chooses a status or a text.

import type { Wallet } from "../db/wallets";
import type { UrlRule } from "../events/endpoint-url";
import { LedgerRefusal } from "../ledger/append";
import type { AmountRefusal } from "../ledger/money";
import type { MailSetting } from "../mail/transport";

/** A movement out of a wallet, as the ledger refused it: whose, which wallet, how much (minor units). */
export type RefusedMove = { userId: number; walletId: string; amountMinor: number };

export type RefusalReason =
  /** No credentials: the verb needs a caller. */
  | { code: "not_signed_in" }
  /** The caller's role or key scope does not allow the verb (or not on this user). */
  | { code: "forbidden" }
  /** The user as it was named: an id, or a username. */
  | { code: "user_not_found"; userId: number | string }
  | { code: "wallet_not_found"; walletId: string }
  /** An amount the wallet cannot take as sent (ledger/money.ts amountToMinor). */
  | { code: "amount_refused"; refusal: AmountRefusal; wallet: Wallet }
  /**
   * A debit, transfer or hold that the balance less what holds reserve cannot pay (the ledger's
   * overdraft CHECK and hold triggers: ledger/append.ts): nothing written. A transfer names the
   * movement refused, for a dialect whose words say what may move (spendable).
   */
  | { code: "insufficient_balance"; refused?: RefusedMove }
  /** A credit that would take a balance past the largest a wallet holds: nothing written. */
  | { code: "balance_limit" }
  /** A transfer from a user to the same user. */
  | { code: "same_user" }
  /** A request_id already used: the entry it made. */
  | { code: "transaction_exists"; existingId: number }
  /** A request_id already used by a hold (entries and holds share one key space). */
  | { code: "hold_exists"; holdId: number }
  | { code: "hold_not_found"; ref: string }
  /** A capture or void of a hold that already left 'held' (or whose time ran out). */
  | { code: "hold_resolved"; holdId: number; status: "captured" | "voided" | "expired" }
  /** A capture of more than the hold holds: `heldText` is the held amount, exactly. */
  | { code: "capture_exceeds_hold"; heldText: string }
  | { code: "transaction_not_found"; ref: string }
  | { code: "not_reversible"; why: string }
  | { code: "already_reversed"; ref: string }
  /** A key asked to mint a key beyond its own scope. */
  | { code: "scope_exceeded" }
  | { code: "api_key_not_found"; ref: string }
  | { code: "wallet_exists"; walletId: string }
  /** A wallet id a deleted wallet had, with other units: an id keeps its units for good. */
  | {
      code: "wallet_units_kept";
      walletId: string;
      units: { decimals: number; extraDecimals: number };
    }
  | { code: "webhook_not_found"; ref: string }
  /** A webhook URL that breaks a rule (events/endpoint-url.ts). */
  | { code: "webhook_url_refused"; rule: UrlRule }
  | { code: "event_not_found"; eventId: number }
  | { code: "too_many_sign_ins"; retryAfterS: number }
  /** A money request past the caller's share (MONEY_RATE_LIMIT). */
  | { code: "rate_limited"; retryAfterS: number }
  /** A long read while another of the caller's is being sent (throttle/history-gate.ts). */
  | { code: "history_busy" }
  | { code: "invalid_credential" }
  /** A sign-out by a caller without a session (an API key). */
  | { code: "no_session" }
  /** No mail transport is configured (docs/mail.md). */
  | { code: "mail_not_configured"; missing: MailSetting[] }
  /** The client address or the e-mail address had its share of mail (throttle/mail.ts). */
  | { code: "too_many_mails"; retryAfterS: number; spent: "client" | "address" }
  /** A mailed link or code that is forged, used, expired or for an address the user left. */
  | { code: "mail_link_invalid" }
  /** A field the service judged out of its range (a future instant, a range that ends before it starts). */
  | { code: "invalid_field"; field: string; why: string }
  /** One operation of a batch (0-based `index`) refused the whole batch; nothing was written. */
  | { code: "batch_operation"; index: number; refused: RefusalReason | LedgerVerdict }
  /** A balanced batch whose credits and debits differ in a wallet (the sums exactly, as exactText). */
  | { code: "batch_unbalanced"; walletId: string; creditsText: string; debitsText: string }
  /** A batch's request_id already used: the batch it made. */
  | { code: "batch_exists"; batchId: number }
  | { code: "batch_not_found"; ref: string }
  | { code: "batch_already_reversed"; ref: string }
  /** A batch reversal refused at one of its entries (`entryId`); nothing was written. */
  | { code: "batch_reversal_refused"; entryId: number; refused: LedgerVerdict };

/** What the ledger's own guards refuse an entry for (ledger/append.ts LedgerRefusal). */
export type LedgerVerdict = "insufficient-balance" | "balance-limit";

export class Refusal extends Error {
  constructor(readonly reason: RefusalReason) {
    super(reason.code);
  }
}

/**
 * Why the service or the ledger refused, as a reason; undefined for anything else (a fault). A
 * ledger's "gone" and "already reversed" are not here: the verbs that meet them say which user,
 * wallet or transaction they concern.
 */
export function refusalOf(err: unknown): RefusalReason | undefined {
  if (err instanceof Refusal) return err.reason;
  const verdict = verdictOf(err);
  return verdict && verdictReason(verdict);
}

/** The ledger's verdict on a refused write, if it was one an operation can be named for. */
export const verdictOf = (err: unknown): LedgerVerdict | undefined =>
  err instanceof LedgerRefusal &&
  (err.reason === "insufficient-balance" || err.reason === "balance-limit")
    ? err.reason
    : undefined;

/** A ledger verdict as the service's reason. */
export const verdictReason = (verdict: LedgerVerdict): RefusalReason => ({
  code: verdict === "insufficient-balance" ? "insufficient_balance" : "balance_limit",
});
