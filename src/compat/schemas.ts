import * as v from "valibot";
import { aliasField } from "../http/aliases";
import { pathText, pathWalletIdField } from "../http/fields";
import { asciiLower } from "../wallet/rules";
import { pluginUserRef } from "./identity";
import { sanitizeAmountField, sanitizeTextField } from "./php";

// The plugin's withdrawal limits (Utils::MAX_AMOUNT, MIN_AMOUNT): POST wallets' defaults.
export const MAX_WITHDRAWAL = 999999999;
export const MIN_WITHDRAWAL = 0;

// The plugin declared no parameter types: its parameters went through sanitize_text_field before
// its own checks. So each field is any value, read as WordPress would read it (arrays become "").
/** A parameter as sanitize_text_field read it; `missing` (the plugin's default) when absent. */
const sanitized = (missing: string | number = "") =>
  v.optional(v.pipe(v.unknown(), v.transform(sanitizeTextField)), missing);

/** `user-wallet-balance` and `/multi`: echoed back as `submitted`, in this key order. */
export const BalanceRequest = v.object({
  user_id: sanitized(),
  wallet_id: sanitized(),
  formatted: sanitized(),
});
export type BalanceRequest = v.InferOutput<typeof BalanceRequest>;

/**
 * `GET wallet-summary`: the balance routes' fields, but a user_id left out is the caller (undefined
 * here); one sent is read as theirs, so an empty one (a list too) is refused as theirs is.
 */
export const SummaryRequest = v.object({
  ...BalanceRequest.entries,
  user_id: v.optional(BalanceRequest.entries.user_id),
});
export type SummaryRequest = v.InferOutput<typeof SummaryRequest>;

/** `GET users`: a user id or username (empty or "0" lists), and the list's page. */
export const UsersRequest = v.object({ user_id: sanitized(), page: sanitized() });

/** `GET` and `DELETE wallets/{wallet}`: the wallet, by the one wallet-id rule. */
export const WalletPath = v.object({ wallet: pathWalletIdField });

/** `DELETE users/{user_id}`: the user, by the dialect's one user rule (identity.ts). */
export const UserPath = v.object({ user_id: v.pipe(pathText, v.transform(pluginUserRef)) });

/** An id the plugin compared lowercased (wallet ids). */
const sanitizedLower = v.optional(
  v.pipe(v.unknown(), v.transform(sanitizeTextField), v.transform(asciiLower)),
  "",
);

/** An amount as the plugin read amounts (php.ts sanitizeAmountField). */
const amountText = v.optional(v.pipe(v.unknown(), v.transform(sanitizeAmountField)), "");

/** A parameter the route reads as sent (a JSON object, a number, or whether it was sent at all). */
const asSent = <T>(missing?: T) => v.optional(v.unknown(), missing);

/** `POST credits` / `POST debits`: a missing user_id was 0 for credits, "" for debits. */
export const EntryRequest = (missingUserId: 0 | "") =>
  v.object({
    user_id: sanitized(missingUserId),
    wallet_id: sanitizedLower,
    request_id: sanitized(),
    amount: amountText,
    note: sanitized(),
    meta_data: asSent(),
  });

/** `POST transfers`; `request_id` is optional, so whether it was sent is kept. */
export const TransferRequest = v.object({
  transfer_from_user: sanitized(),
  amount_to_transfer: amountText,
  transfer_to_user: sanitized(),
  wallet_id: sanitizedLower,
  request_id: asSent(),
  note: sanitized(),
});

/** `GET credits` / `debits` / `transfers`: one by its id parameter, or a page. */
export const ListRequest = <K extends string>(idParam: K, idAlias?: string) =>
  v.object({
    [idParam]: sanitized(),
    ...(idAlias && { [idAlias]: aliasField(idParam, sanitized(), "the plugin's own name for it") }),
    page: sanitized(),
    per_page: sanitized(),
  } as Record<K | "page" | "per_page", ReturnType<typeof sanitized>>);

/** `GET transactions`: one post meta, a page and an order, as WP_Query took them. */
export const SearchRequest = v.object({
  meta_key: sanitized(),
  meta_value: sanitized(),
  posts_per_page: sanitized(),
  page_no: sanitized(),
  orderby: sanitized(),
  order: sanitized(),
});

/** `GET verify-email-address`. */
export const VerifyEmailRequest = v.object({ email_address: sanitized(), fire_email: sanitized() });

/** `POST wallets`: texts sanitized; the numbers read as sent (only JSON numbers are numbers). */
export const WalletRequest = v.object({
  wallet_name: sanitized(),
  wallet_id: sanitized(),
  wallet_symbol: sanitized(),
  wallet_symbol_pos: sanitized("left"),
  wallet_note: sanitized(),
  wallet_type: sanitized(),
  wallet_decimal: asSent<unknown>(2),
  max_withdrawal_amount: asSent<unknown>(MAX_WITHDRAWAL),
  min_withdrawal_amount: asSent<unknown>(MIN_WITHDRAWAL),
});

/**
 * How the plugin read `token_expiration`, by PHP 8's loose comparisons: `== null` (missing, "",
 * false, 0, an empty array) is the hour's token, `== 'persistent'` (that text, or true) the long
 * one, anything else refused (its typo kept: clients match it).
 */
export function pluginExpiration(x: unknown): "hour" | "persistent" | undefined {
  if (x === undefined || x === null || x === "" || x === false || x === 0) return "hour";
  if (typeof x === "object" && Object.keys(x).length === 0) return "hour";
  return x === true || x === "persistent" ? "persistent" : undefined;
}

export const PLUGIN_EXPIRATION = v.optional(
  v.pipe(
    v.unknown(),
    v.check((x) => pluginExpiration(x) !== undefined, "unkown token_expiration"),
  ),
);
