// What each route answers on success, as the `data` of its envelope: checked against every answer
// the test suite receives (test/helpers.ts) and published in the OpenAPI document.
import * as v from "valibot";

import { ApiKeyParams } from "../http/fields";
import type { WalletDisplay } from "../ledger/money";
import { BatchAnswer, major, TransactionAnswer } from "../wallet/rules";
import { HOLD_STATUSES } from "./holds/schemas";

const id = v.pipe(v.number(), v.integer());

export const EntryAnswer = v.strictObject({ transaction_id: id, user_id: id });

export const TransferAnswer = v.strictObject({
  debit_transaction_id: id,
  credit_transaction_id: id,
  from_user_id: id,
  to_user_id: id,
});

export const ReversalAnswer = v.strictObject({
  transaction_ids: v.array(id),
  reversed_transaction_ids: v.array(id),
});

export const BatchCreatedAnswer = v.strictObject({
  batch_id: id,
  request_id: v.string(),
  transaction_ids: v.array(id),
});

export const BatchReversalAnswer = v.strictObject({
  batch_id: id,
  reversal_batch_id: id,
  ...ReversalAnswer.entries,
});

/** Balances keyed by wallet id, and with `formatted=yes` their display strings beside them. */
export const BalanceAnswer = v.objectWithRest(
  { formatted: v.optional(v.record(v.string(), v.string())) },
  v.number(),
);

/** A statement (GET /statements): its figures, exact in major units, and a page of its entries. */
export const StatementAnswer = v.strictObject({
  user_id: id,
  wallet_id: v.string(),
  from: v.string(),
  to: v.string(),
  opening_balance: v.number(),
  closing_balance: v.number(),
  total_in: v.number(),
  total_out: v.number(),
  count: id,
  formatted: v.strictObject({
    opening_balance: v.string(),
    closing_balance: v.string(),
    total_in: v.string(),
    total_out: v.string(),
  }),
  entries: v.array(TransactionAnswer),
});

export const UserCreatedAnswer = v.strictObject({ id });

export const LoginAnswer = v.strictObject({
  access_token: v.string(),
  user_id: id,
  user_email: v.string(),
  username: v.string(),
  time_of_login: v.string(),
});

export const LogoutAnswer = v.strictObject({ user_id: id });

/** Asking for a mail: the address as read, whether or not an account has it (docs/mail.md). */
export const MailRequestedAnswer = v.strictObject({ user_email: v.string() });

export const EmailVerifiedAnswer = v.strictObject({ user_id: id, user_email: v.string() });

/** `sessions_revoked`: how many of the user's sessions were live and ended with the change. */
export const PasswordResetAnswer = v.strictObject({ user_id: id, sessions_revoked: id });

export const SessionsRevokedAnswer = v.strictObject({ user_id: id, revoked: id });

export const UnlockAnswer = v.strictObject({
  user_id: id,
  was_locked: v.boolean(),
  failed_attempts: id,
});

export const WalletAnswer = v.strictObject({
  wallet_id: v.string(),
  wallet_name: v.string(),
  wallet_symbol: v.string(),
  wallet_symbol_position: v.picklist(["left", "right"]),
  wallet_decimal: id,
  wallet_type: v.string(),
  wallet_note: v.string(),
});

const apiKey = {
  id,
  name: v.string(),
  username: v.string(),
  scope: v.picklist(ApiKeyParams.entries.scope.options),
  created_at: v.string(),
};
export const ApiKeyCreatedAnswer = v.strictObject({ ...apiKey, key: v.string() });
export const ApiKeyAnswer = v.strictObject({
  ...apiKey,
  last_used_at: v.nullable(v.string()),
  revoked: v.boolean(),
});
export const ApiKeyRevokedAnswer = v.strictObject({ id, revoked: v.literal(true) });

/** A new user in a user.created event: who it is (never a password). */
const UserEventAnswer = v.strictObject({
  id,
  username: v.string(),
  user_email: v.string(),
  first_name: v.string(),
  last_name: v.string(),
  roles: v.array(v.string()),
  registered_at: v.string(),
});

const isoText = v.string();
const webhook = {
  id,
  url: v.string(),
  description: v.string(),
  events: v.array(v.string()),
  status: v.picklist(["active", "failing"]),
  failing_since: v.nullable(isoText),
  last_event_id: id,
  failed_attempts: id,
  next_attempt_at: v.nullable(isoText),
  created_at: isoText,
};
export const WebhookAnswer = v.strictObject(webhook);
/** `secret`: the signing secret (whsec_…), shown only in this answer. */
export const WebhookCreatedAnswer = v.strictObject({ ...webhook, secret: v.string() });
export const WebhookDeletedAnswer = v.strictObject({ id, deleted: v.literal(true) });
export const DeliveryAnswer = v.strictObject({
  webhook_id: id,
  event_id: v.nullable(id),
  attempt: id,
  status: v.picklist(["delivered", "failed", "dead"]),
  trigger: v.picklist(["queue", "test", "resend"]),
  http_status: v.nullable(id),
  latency_ms: id,
  error: v.nullable(v.string()),
  created_at: isoText,
});

/** The OpenAPI document itself (answered bare, without an envelope). */
export const OpenApiAnswer = v.looseObject({
  openapi: v.literal("3.1.0"),
  paths: v.record(v.string(), v.record(v.string(), v.unknown())),
});

const money = v.number();
const holdHead = { hold_id: id, user_id: id, wallet_id: v.string(), amount: money };

/** POST /holds: the hold placed. */
export const HoldPlacedAnswer = v.strictObject({
  ...holdHead,
  status: v.literal("held"),
  expires_at: v.string(),
});

/** A hold as its reads, captures and voids answer it: `status` as of the request. */
export const HoldAnswer = v.strictObject({
  ...holdHead,
  amount_formatted: v.string(),
  status: v.picklist(HOLD_STATUSES),
  request_id: v.string(),
  note: v.string(),
  created_at: v.string(),
  expires_at: v.string(),
  resolved_at: v.nullable(v.string()),
  captured_amount: v.nullable(money),
  captured_amount_formatted: v.nullable(v.string()),
  transaction_id: v.nullable(id),
});

/** One event of the feed, and the body a webhook delivers (docs/events.md). */
export const EventAnswer = v.strictObject({
  id,
  type: v.string(),
  timestamp: v.string(),
  data: v.union([TransactionAnswer, UserEventAnswer, WalletAnswer, HoldAnswer, BatchAnswer]),
});

/** A balance, what holds reserve of it and what is available, as `heldFigures` writes them. */
const figures = { balance: money, held: money, available: money };
const formattedFigures = v.strictObject({
  balance: v.string(),
  held: v.string(),
  available: v.string(),
});

/**
 * `figures`' values from minor units: exact major units (`major`), or with `formatMoney` their
 * display texts (`formatted`).
 */
export const heldFigures = (
  f: { balanceMinor: number; heldMinor: number; availableMinor: number },
  wallet: WalletDisplay,
  show: (minor: number, wallet: WalletDisplay) => number | string = major,
) => ({
  balance: show(f.balanceMinor, wallet),
  held: show(f.heldMinor, wallet),
  available: show(f.availableMinor, wallet),
});

/** GET /balances: per wallet, the ledger balance, what holds reserve of it, and what is available. */
export const AvailableBalanceAnswer = v.array(
  v.strictObject({ wallet_id: v.string(), ...figures, formatted: formattedFigures }),
);

/** GET /wallets/{wallet_id}/summary. */
export const WalletSummaryAnswer = v.strictObject({
  user_id: id,
  wallet_id: v.string(),
  ...figures,
  entry_count: id,
  last_entry: v.nullable(
    v.strictObject({
      transaction_id: id,
      txn_type: v.picklist(["CREDIT", "DEBIT"]),
      amount: money,
      date: v.string(),
    }),
  ),
  formatted: formattedFigures,
});
