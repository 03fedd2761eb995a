import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { Wallet } from "../db/wallets";
import type { AppEnv } from "../env";
import { ENDPOINT_URL_MAX, type UrlRule } from "../events/endpoint-url";
import type { LedgerRefusal } from "../ledger/append";
import type { AmountIssue, AmountRefusal } from "../ledger/money";
import { OBJECT_CLASSES } from "../settings";
import { HistoryGate } from "../throttle/history-gate";
import { LoginThrottle } from "../throttle/login-throttle";
import {
  databaseUnavailable,
  errorText,
  forgetGone,
  type GoneNames,
  NOT_MIGRATED,
  type ObjectBinding,
  ObjectUnavailable,
  ObjectWithoutSql,
  objectUnavailableLine,
  schemaNotMigrated,
  sqlNotEnabled,
  stackFrames,
  wordGone,
} from "../wallet/faults";
import { type RefusalReason, refusalOf, verdictReason } from "../wallet/refusal";
import { fail } from "./envelope";
import { logOnce } from "./log-once";

/**
 * Every error answer of `/wp-json/wallet/v1`, by code: its status, its message, and what its `error`
 * holds. The code never goes on the wire (the contract fixes the envelopes); it names the answer in
 * the route table (src/routes/), the OpenAPI document and docs/errors.md, which a test keeps
 * complete. Routes throw `apiError(code, error)` or one of the helpers below.
 */
export const ERRORS = {
  invalid_input: {
    status: 400,
    message: "invalid input",
    error: "an object naming each refused field and why",
  },
  validation_error: {
    status: 400,
    message: "Validation error",
    error:
      'users and login (envelope B): a list, of texts (`["Invalid Credential"]`) or of one object per refused field with its texts (`[{"user_login":["username is required"]}]`)',
  },
  insufficient_balance: {
    status: 400,
    message: "Insufficient Balance",
    error:
      '`{"amount":"Insufficient Balance"}`: the wallet cannot pay it out of its available balance; nothing was written. POST /batches names the operation, `{"operations[<i>].amount":"Insufficient Balance"}`; POST /batches/{id}/reverse the entry, `{"amount":"Insufficient Balance","transaction_id":"<id>"}`',
  },
  permission_missing: {
    status: 401,
    message: "Permission denied",
    error: '`{"unauthorize":"No authorization provided"}`',
  },
  credentials_invalid: {
    status: 401,
    message: "Permission denied",
    error: '`{"unauthorize":"Invalid credentials"}`: a bad, expired or foreign token or key',
  },
  security_failed: {
    status: 401,
    message: "Security verification failed",
    error:
      '`{"security_code":"Security verification failed"}`: `security_code` does not match `TRANSACTIONS_SECURITY_CODE`',
  },
  forbidden: {
    status: 403,
    message: "Permission denied",
    error: '`{"unauthorize":"Request is not authorized"}`: the role or scope does not allow it',
  },
  user_not_found: {
    status: 404,
    message: "Invalid User credentials",
    error:
      '`["Unable to reach <user>"]`; POST /batches names the operation, `["operations[<i>]: Unable to reach <user>"]`',
  },
  transaction_not_found: {
    status: 404,
    message: "Transaction not found",
    error: '`{"id":"No transaction <id>"}`',
  },
  mail_link_invalid: {
    status: 400,
    message: "Invalid or expired link",
    error: '`{"token":"…"}`: forged, used, expired, or sent to an address the user no longer has',
  },
  wallet_not_found: {
    status: 404,
    message: "Wallet not found",
    error: '`{"wallet_id":"wallet_id not found"}`',
  },
  api_key_not_found: {
    status: 404,
    message: "API key not found",
    error: '`{"id":"No API key <id>"}`',
  },
  batch_not_found: {
    status: 404,
    message: "Batch not found",
    error: '`{"id":"No batch <id>"}`',
  },
  hold_not_found: {
    status: 404,
    message: "Hold not found",
    error: '`{"id":"No hold <id>"}`',
  },
  transaction_exists: {
    status: 409,
    message: "Transaction already exists",
    error:
      '`{"txn_id":"<id>","exist":"Transaction already executed"}`: the request_id was used; by a hold (entries and holds share one key space): `{"hold_id":"<id>","exist":"Hold already placed"}`; by a batch (POST /batches): `{"batch_id":"<id>","exist":"Batch already executed"}`; a batch operation\'s own key used before: `{"operations[<i>].txn_id":"<id>","operations[<i>].exist":"Transaction already executed"}`',
  },
  hold_resolved: {
    status: 409,
    message: "Hold already resolved",
    error:
      '`{"id":"Hold <id> is <status>","status":"captured"|"voided"|"expired"}`: a hold is captured, voided or expires once',
  },
  already_reversed: {
    status: 409,
    message: "Transaction already reversed",
    error:
      '`{"id":"Transaction <id> was already reversed"}`; a batch: `{"id":"Batch <id> was already reversed"}`',
  },
  wallet_exists: {
    status: 409,
    message: "Wallet Already Exists",
    error: '`{"wallet_id":"<id> already exists"}`',
  },
  payload_too_large: {
    status: 413,
    message: "Payload too large",
    error: '`{"body":"at most 65536 bytes"}`',
  },
  too_many_sign_ins: {
    status: 429,
    message: "Too many failed sign-in attempts",
    error: '`["Too many failed sign-in attempts: try again in <n> seconds"]`, with `Retry-After`',
    retryAfter: true,
  },
  history_busy: {
    status: 429,
    message: "A full history is already being sent",
    error:
      '`{"per_page":"…"}`, with `Retry-After`: another whole-history answer of this caller is still being sent; wait for it, or page with `per_page` and `page`',
    retryAfter: true,
  },
  rate_limited: {
    status: 429,
    message: "Too many requests",
    error:
      '`{"rate":"Too many money requests from this caller: try again in <n> seconds"}`, with `Retry-After`: the caller\'s money routes had their share of the minute (docs/security.md#rate-limits); nothing was written',
    retryAfter: true,
  },
  too_many_mails: {
    status: 429,
    message: "Too many mails",
    error:
      '`["Too many mails to this address: try again in <n> seconds"]` (or `"…asked for from this client address…"`, past `MAIL_LIMIT_PER_CLIENT`), with `Retry-After`; nothing was written',
    retryAfter: true,
  },
  service_not_configured: {
    status: 503,
    message: "Service not configured",
    error:
      '`{"missing":["JWT_SECRET"]}`: a required setting is unset or unusable (the log says why); nothing was read or written',
  },
  internal_error: {
    status: 500,
    message: "Internal error",
    error: '`{"request_id":"<id>"}`: the log line of the fault carries the same id',
  },
  webhook_not_found: {
    status: 404,
    message: "Webhook not found",
    error: '`{"id":"No webhook <id>"}`',
  },
  event_not_found: {
    status: 404,
    message: "Event not found",
    error: '`{"event_id":"No event <id>"}`',
  },
  webhooks_not_configured: {
    status: 503,
    message: "Webhooks are not configured",
    error:
      '`{"missing":["WEBHOOK_SECRET_KEY"]}`: the key that protects signing secrets is unset or shorter than 32 characters, or `WEBHOOK_QUEUE` is not bound (docs/events.md)',
  },
  database_unavailable: {
    status: 503,
    message: "Service temporarily unavailable",
    error:
      '`{"retry":"The database is busy: retry in <n> seconds with the same request_id"}`, with `Retry-After`: D1 was overloaded or lost the request; a write may or may not have happened, and a retry with the same request_id applies it at most once',
    retryAfter: true,
  },
  object_unavailable: {
    status: 503,
    message: "Service temporarily unavailable",
    error:
      '`{"retry":"Sign-in and mail limits cannot be reached now: try again in <n> seconds"}` (the sign-in throttle), or for a whole history `{"retry":"A whole history cannot be started now: try again in <n> seconds, or page with per_page (1-100) and page"}`, with `Retry-After`: the Durable Object that counts sign-ins and mails, or that takes turns at whole histories, could not answer for a moment; the request stopped at that call: try again after `Retry-After`',
    retryAfter: true,
  },
  mail_not_configured: {
    status: 503,
    message: "Mail is not configured",
    error:
      '`["This service sends no mail (MAIL_FROM): ask its operator"]`, naming in the parentheses what is missing: `MAIL_TRANSPORT`, or with `cloudflare` `MAIL_FROM` or the `EMAIL` binding (docs/mail.md)',
  },
} as const satisfies Record<
  string,
  // `retryAfter`: its answer carries `Retry-After` (the refusal's helper below sets it).
  { status: ContentfulStatusCode; message: string; error: string; retryAfter?: true }
>;

export type ErrorCode = keyof typeof ERRORS;

/** The one error type routes throw; `onError` turns it into the route's envelope. */
export class ApiError extends Error {
  constructor(
    readonly status: ContentfulStatusCode,
    message: string,
    readonly error: unknown = [],
    readonly headers: Record<string, string> = {},
    /** An envelope it answers in whatever the route's (the plugin's JWT check answered in B). */
    readonly envelope?: "B",
  ) {
    super(message);
  }
}

/** The catalogue's answer `code`, with this occurrence's `error` (and headers). */
export const apiError = (code: ErrorCode, error: unknown, headers?: Record<string, string>) =>
  new ApiError(ERRORS[code].status, ERRORS[code].message, error, headers);

/**
 * A request the service will not read (invalid UTF-8, a header that is not ASCII, a JSON body past
 * its limits): a 400 naming the part, in whichever envelope the route answers in.
 */
export class MalformedRequest extends Error {
  constructor(
    readonly part: string,
    readonly text: string,
  ) {
    super(text);
  }
}

export const invalidInput = (fields: Record<string, string>) => apiError("invalid_input", fields);

export const validationError = (error: unknown) => apiError("validation_error", error);

export const permissionDenied = {
  missing: () => apiError("permission_missing", { unauthorize: "No authorization provided" }),
  invalid: () => apiError("credentials_invalid", { unauthorize: "Invalid credentials" }),
  forbidden: () => apiError("forbidden", { unauthorize: "Request is not authorized" }),
};

/** How a dialect words a refused credential: none sent, one that does not verify, not allowed. */
export type Refusals = typeof permissionDenied;

/** A wallet id that names no wallet, however it was written. */
export const WALLET_NOT_FOUND = "wallet_id not found";

/** A wallet a path names that does not exist (a wallet in a body or a filter is `invalid_input`). */
export const walletNotFound = () => apiError("wallet_not_found", { wallet_id: WALLET_NOT_FOUND });

/** How long a client waits before retrying a request D1 or a Durable Object could not take. */
export const RETRY_S = 2;

/** A required setting is missing (src/settings.ts): the route cannot run until the operator sets it. */
export const serviceNotConfigured = (missing: string[]) =>
  apiError("service_not_configured", { missing });

/** 503 naming `migrations`: D1 lacks a migration this code needs. Logged once per isolate. */
export function notMigrated(c: { var: { requestId?: string } }, err?: unknown) {
  logOnce(
    "D1 not migrated",
    {
      request_id: c.var.requestId ?? null,
      setting: "migrations",
      problem: NOT_MIGRATED,
      ...(err === undefined ? {} : errorText(err)),
    },
    "error",
  );
  return serviceNotConfigured(["migrations"]);
}

/** The classes OBJECT_CLASSES names, by name (a minified bundle's classes have other names). */
const OBJECT_TYPES = { LoginThrottle, HistoryGate };

/**
 * 503 naming a Durable Object binding its deployment got wrong (misconfiguredObject), or undefined
 * for any other error.
 */
function objectMisconfigured(c: { var: { requestId?: string } }, err: unknown) {
  const name = misconfiguredObject(c, err);
  return name && serviceNotConfigured([name]);
}

/**
 * The Durable Object binding `err` shows its deployment got wrong, logged once per isolate, or
 * undefined for any other error: an object of a class without SQL storage (ObjectWithoutSql, or
 * workerd's words from a call to `binding`), or one of the other class (class_name copied
 * unchanged). That one has the kind settings.ts judges, so only its object's answer tells:
 * workerd's refusal of a method that class lacks, which the intended class declares.
 */
export function misconfiguredObject(
  c: { var: { requestId?: string } },
  err: unknown,
  binding?: ObjectBinding,
) {
  const withoutSql =
    err instanceof ObjectWithoutSql ? err.binding : sqlNotEnabled(err) ? binding : undefined;
  const [name, problem] = withoutSql
    ? [
        withoutSql,
        `has no SQL storage: in wrangler.toml's [[migrations]], "${OBJECT_CLASSES[withoutSql]}" must be in new_sqlite_classes`,
      ]
    : ofAnotherClass(err);
  if (name === undefined) return undefined;
  logOnce(
    `setting ${name} ${problem}`,
    { request_id: c.var.requestId ?? null, setting: name, problem },
    "error",
  );
  return name;
}

/** The binding whose object refused a method its intended class declares, and what to change. */
function ofAnotherClass(err: unknown): [ObjectBinding, string] | [undefined] {
  const method = /^TypeError: The RPC receiver does not implement "(\w+)"/.exec(String(err))?.[1];
  if (method === undefined) return [undefined];
  const meant = Object.entries(OBJECT_CLASSES).filter(([, type]) =>
    Object.hasOwn(OBJECT_TYPES[type].prototype, method),
  );
  if (meant.length !== 1) return [undefined];
  const [[name, type]] = meant as [[ObjectBinding, string]];
  return [
    name,
    `is bound to another Durable Object class: in wrangler.toml, its class_name must be "${type}"`,
  ];
}

export const AMOUNT_MESSAGES: Record<AmountIssue, string> = {
  "not-numeric": "amount requires a valid amount",
  "not-positive": "amount must be greater than zero",
};

export const AMOUNT_TOO_LARGE = "amount is too large";

/** Why an amount does not fit its wallet, in wallet/v1's words (keyed `amount`). */
export function amountRefusedText(refusal: AmountRefusal, wallet: Wallet) {
  switch (refusal) {
    case "too-many-decimals":
      return `amount has more decimal places than wallet ${wallet.id} allows (${wallet.decimals})`;
    case "too-large":
      return AMOUNT_TOO_LARGE;
    default:
      return AMOUNT_MESSAGES[refusal];
  }
}

/** Why a wallet cannot be re-created under a deleted one's id, in the words both dialects answer. */
const unitsKeptText = (id: string, units: { decimals: number; extraDecimals: number }) =>
  units.extraDecimals === 0
    ? `wallet ${id} was deleted with ${units.decimals} decimals: a wallet re-created under its id must have the same`
    : `wallet ${id} was deleted storing ${units.decimals + units.extraDecimals} places: its id cannot be used again`;

/** Why a transfer that names one user at both ends is refused (keyed `to_user_id`). */
export const SAME_USER_TEXT = "to_user_id must differ from from_user_id";

/** Why an amount was refused that would take a balance past MAX_MINOR, keyed by its field. */
export const balanceLimitText = (field: string) =>
  `${field} would take the balance past the largest balance a wallet can hold`;

/** A refusal of the service, in wallet/v1's words (the plugin's dialect answers these alike). */
function answerOf(reason: RefusalReason): ApiError {
  switch (reason.code) {
    case "not_signed_in":
      return permissionDenied.missing();
    case "forbidden":
    case "scope_exceeded":
      return permissionDenied.forbidden();
    case "insufficient_balance":
      return apiError("insufficient_balance", { amount: "Insufficient Balance" });
    case "balance_limit":
      return invalidInput({ amount: balanceLimitText("amount") });
    case "same_user":
      return invalidInput({ to_user_id: SAME_USER_TEXT });
    case "amount_refused":
      return invalidInput({ amount: amountRefusedText(reason.refusal, reason.wallet) });
    case "user_not_found":
      return apiError("user_not_found", [`Unable to reach ${reason.userId}`]);
    case "wallet_not_found":
      return invalidInput({ wallet_id: WALLET_NOT_FOUND });
    case "api_key_not_found":
      return apiError("api_key_not_found", { id: `No API key ${reason.ref}` });
    case "transaction_exists":
      return apiError("transaction_exists", {
        txn_id: String(reason.existingId),
        exist: "Transaction already executed",
      });
    case "hold_exists":
      return apiError("transaction_exists", {
        hold_id: String(reason.holdId),
        exist: "Hold already placed",
      });
    case "transaction_not_found":
      return apiError("transaction_not_found", { id: `No transaction ${reason.ref}` });
    case "hold_not_found":
      return apiError("hold_not_found", { id: `No hold ${reason.ref}` });
    case "hold_resolved":
      return apiError("hold_resolved", {
        id: `Hold ${reason.holdId} is ${reason.status}`,
        status: reason.status,
      });
    case "capture_exceeds_hold":
      return invalidInput({
        amount: `amount must be at most the held amount (${reason.heldText})`,
      });
    case "not_reversible":
      return invalidInput({ id: reason.why });
    case "already_reversed":
      return apiError("already_reversed", { id: `Transaction ${reason.ref} was already reversed` });
    case "history_busy":
      // The caller's previous whole history is still being sent (throttle/history-gate.ts).
      return apiError(
        "history_busy",
        {
          per_page:
            "one full history at a time: wait for the one being sent, or page with per_page (1-100) and page",
        },
        { "Retry-After": "1" },
      );
    case "rate_limited":
      return apiError(
        "rate_limited",
        {
          rate: `Too many money requests from this caller: try again in ${reason.retryAfterS} seconds`,
        },
        { "Retry-After": String(reason.retryAfterS) },
      );
    case "too_many_sign_ins":
      return apiError(
        "too_many_sign_ins",
        [`Too many failed sign-in attempts: try again in ${reason.retryAfterS} seconds`],
        { "Retry-After": String(reason.retryAfterS) },
      );
    case "invalid_credential":
      return validationError(["Invalid Credential"]);
    case "no_session":
      return validationError([
        "An API key has no session to end: revoke the key with DELETE /api-keys/{id}",
      ]);
    case "mail_not_configured":
      return apiError("mail_not_configured", [
        `This service sends no mail (${reason.missing.join(", ")}): ask its operator`,
      ]);
    case "too_many_mails":
      return apiError(
        "too_many_mails",
        [
          `Too many mails ${reason.spent === "client" ? "asked for from this client address" : "to this address"}: try again in ${reason.retryAfterS} seconds`,
        ],
        { "Retry-After": String(reason.retryAfterS) },
      );
    case "mail_link_invalid":
      return apiError("mail_link_invalid", {
        token: "This link or code is invalid, used or expired: ask for a new one",
      });
    case "invalid_field":
      return invalidInput({ [reason.field]: reason.why });
    case "wallet_exists":
      return apiError("wallet_exists", { wallet_id: `${reason.walletId} already exists` });
    case "wallet_units_kept":
      return invalidInput({ wallet_decimal: unitsKeptText(reason.walletId, reason.units) });
    case "webhook_not_found":
      return apiError("webhook_not_found", { id: `No webhook ${reason.ref}` });
    case "webhook_url_refused":
      return invalidInput({ url: URL_RULE_TEXT[reason.rule] });
    case "event_not_found":
      return apiError("event_not_found", { event_id: `No event ${reason.eventId}` });
    case "batch_operation":
      return inOperation(
        reason.index,
        answerOf(
          typeof reason.refused === "string" ? verdictReason(reason.refused) : reason.refused,
        ),
      );
    case "batch_unbalanced":
      return invalidInput({
        balanced: `credits (${reason.creditsText}) and debits (${reason.debitsText}) differ in wallet ${reason.walletId}`,
      });
    case "batch_exists":
      return apiError("transaction_exists", {
        batch_id: String(reason.batchId),
        exist: "Batch already executed",
      });
    case "batch_not_found":
      return apiError("batch_not_found", { id: `No batch ${reason.ref}` });
    case "batch_already_reversed":
      return apiError("already_reversed", { id: `Batch ${reason.ref} was already reversed` });
    case "batch_reversal_refused": {
      const refused = answerOf(verdictReason(reason.refused));
      const error = refused.error as Record<string, string>;
      return new ApiError(refused.status, refused.message, {
        ...error,
        transaction_id: String(reason.entryId),
      });
    }
  }
}

/** Why a webhook URL is refused, in wallet/v1's words. */
const URL_RULE_TEXT: Record<UrlRule, string> = {
  shape: "url must be an absolute URL without a #fragment",
  length: `url must be at most ${ENDPOINT_URL_MAX} characters once percent-encoded`,
  "host-name":
    "url must name a host DNS can hold (labels of 1 to 63 letters, digits, hyphens or underscores, no hyphen first or last)",
  scheme: "url must start with https://",
  credentials: "url must not hold a user name or password",
  port: "url must not name port 0",
  "private-host": "url must not point at a private, loopback or link-local address",
  "not-public-name": "url must name a public host",
};

/**
 * An operation's refusal, naming it: an object's keys become `operations[<index>].<key>`, a list's
 * texts begin `operations[<index>]: `, so a client can tell which operation refused the batch.
 */
function inOperation(index: number, err: ApiError) {
  const at = `operations[${index}]`;
  const error = Array.isArray(err.error)
    ? err.error.map((text) => `${at}: ${String(text)}`)
    : Object.fromEntries(Object.entries(err.error as object).map(([k, v]) => [`${at}.${k}`, v]));
  return new ApiError(err.status, err.message, error, err.headers);
}

/**
 * Whether the ledger refused a write because a user or wallet it names was deleted through another
 * isolate (wallet/faults.ts forgetGone, which makes this isolate forget them).
 */
export function forgotGone(
  c: Context<AppEnv>,
  err: unknown,
): err is LedgerRefusal & { named: GoneNames } {
  return forgetGone(c.var.service, err) !== undefined;
}

/** Why a request D1 could not take should be sent again, in wallet/v1's words. */
export const DATABASE_RETRY = `The database is busy: retry in ${RETRY_S} seconds with the same request_id`;

/**
 * D1 overloaded, reset or cut off, in wallet/v1's words: retryable, and a write's request_id keeps a
 * retry from applying it twice; undefined for any other error. Logged, since the operator should
 * see the database struggle.
 */
export function databaseBusy(c: Context<AppEnv>, err: unknown) {
  if (!databaseUnavailable(err)) return undefined;
  const { error, statement } = errorText(err);
  console.error(
    JSON.stringify({ request_id: c.get("requestId"), d1_unavailable: error, statement }),
  );
  return apiError(
    "database_unavailable",
    { retry: DATABASE_RETRY },
    { "Retry-After": String(RETRY_S) },
  );
}

/** What could not be done while a binding's object could not answer, in wallet/v1's words. */
export const OBJECT_RETRY: Record<ObjectBinding, string> = {
  LOGIN_THROTTLE: `Sign-in and mail limits cannot be reached now: try again in ${RETRY_S} seconds`,
  HISTORY_GATE: `A whole history cannot be started now: try again in ${RETRY_S} seconds, or page with per_page (1-100) and page`,
};

/**
 * A Durable Object that could not answer (wallet/faults.ts `reachable`), worded for what it does,
 * or undefined for any other error. Logged naming the binding, so the operator looks at the object,
 * not at D1.
 */
function objectBusy(c: Context<AppEnv>, err: unknown) {
  if (!(err instanceof ObjectUnavailable)) return undefined;
  console.error(JSON.stringify(objectUnavailableLine(c.get("requestId"), err)));
  return apiError(
    "object_unavailable",
    { retry: OBJECT_RETRY[err.binding] },
    { "Retry-After": String(RETRY_S) },
  );
}

/**
 * A refusal of the service or the ledger in wallet/v1's words (the console's too); undefined for
 * anything else. A reversal's own refusal is worded by its verb, which names the transaction.
 */
export function refusalAnswer(err: unknown): ApiError | undefined {
  if (err instanceof ApiError) return err;
  const reason = refusalOf(err);
  return reason && answerOf(reason);
}

export async function onError(err: Error, c: Context<AppEnv>) {
  // A route's second try was refused as gone too (defineRoute tries once more, to answer in the
  // route's own words): the user, else the wallet, not found, in wallet/v1's words.
  err = await wordGone(c.var.service, err);
  err = refusalAnswer(err) ?? err;
  if (err instanceof MalformedRequest)
    err =
      c.get("envelope") === "B"
        ? validationError([{ [err.part]: [err.text] }])
        : invalidInput({ [err.part]: err.text });
  err = databaseBusy(c, err) ?? objectMisconfigured(c, err) ?? objectBusy(c, err) ?? err;
  if (!(err instanceof ApiError) && (await schemaNotMigrated(c.var.service, err)))
    err = notMigrated(c, err);
  if (err instanceof ApiError) {
    if (err.envelope) c.set("envelope", err.envelope);
    return fail(c, err.status, err.message, err.error, err.headers);
  }
  // Never a stack trace or SQL text on the wire; the request id ties the log line to the answer,
  // which says what failed and where, never the values a statement bound (db/client.ts errorText).
  console.error(
    JSON.stringify({ request_id: c.get("requestId"), ...errorText(err), stack: stackFrames(err) }),
  );
  c.set("envelope", "A"); // a fault answers in envelope A on every route
  const { status, message } = ERRORS.internal_error;
  return fail(c, status, message, { request_id: c.get("requestId") ?? null });
}
