import type { Context } from "hono";
import { Hono } from "hono";
import { scopeAllows } from "../auth/principal";
import { findWalletCached } from "../db/wallets";
import type { AppEnv } from "../env";
import { ok, send } from "../http/envelope";
import { invalidInput, transactionExists, userNotFound } from "../http/errors";
import { AMOUNT_TEXT_MAX, MAX_TEXT } from "../http/fields";
import { readParams } from "../http/params";
import { MAX_MINOR, plainDecimal, storageDecimals } from "../ledger/money";
import { asciiLower } from "../ledger/request-key";
import { postEntry } from "../ledger/writer";
import { requireUser } from "../wallet/users";
import { keyRouteRefusals, requireCredentials } from "./auth";
import { pluginUserId } from "./identity";
import { requires, sanitizeTextField } from "./php";

// `POST credits` and `POST debits` in the plugin's 1.1.31 dialect (captures 11-36; plugin files
// api/core/credits/create-credits.php, includes/credits/create-credits.php, includes/utils/
// base-utils.php `requires`): its field checks, texts and answers, written through the same ledger
// function as /wp-json/wallet/v1 (one entry, idempotent on (user, request_id), race-safe). Where the
// plugin lost money it is not followed: a negative or zero amount is refused (it recorded a credit
// of -5 as a debit that could overdraw), and a debit past the balance is refused (it had no check).

export const REQUEST_ID_MAX = 191;
/** The most JSON text a `meta_data` object may take (the plugin wrote each key as post meta). */
export const META_DATA_MAX = 4096;

/**
 * A client's `meta_data` as the JSON text kept with the entry: an object (or a list) as sent, none
 * when absent; anything else, or more than META_DATA_MAX characters of it, is refused.
 */
export function metaDataText(value: unknown): string | undefined {
  if (value === undefined || value === null || value === "") return undefined;
  if (typeof value !== "object")
    throw invalidInput({ meta_data: "meta_data must be an object of key/value pairs" });
  const text = JSON.stringify(value);
  if (text.length > META_DATA_MAX)
    throw invalidInput({
      meta_data: `meta_data must be at most ${META_DATA_MAX} characters of JSON`,
    });
  return text;
}

/** The plugin's `requires()` for an entry, plus the lengths this service stores. */
function pluginChecks(fields: {
  user_id: string;
  wallet_id: string;
  request_id: string;
  amount: string;
}) {
  const errors = requires({
    user_id: [fields.user_id, "int"],
    wallet_id: [fields.wallet_id, "strInt"],
    request_id: [fields.request_id, "alnum"],
    amount: [fields.amount, "amount"],
  });
  if (!errors.request_id && fields.request_id.length > REQUEST_ID_MAX)
    errors.request_id = `request_id must be at most ${REQUEST_ID_MAX} characters`;
  if (!errors.amount && fields.amount.length > AMOUNT_TEXT_MAX)
    errors.amount = `amount must be at most ${AMOUNT_TEXT_MAX} characters`;
  return errors;
}

/**
 * A numeric text (PHP's is_numeric) in minor units of `decimals` places, rounded half away from zero
 * on its decimal digits (never through a double): `14507.525000000001` is 1450753 cents. The
 * plugin kept whatever PHP's float made of it; the amount as sent stays with the entry.
 */
export function roundedMinor(
  text: string,
  decimals: number,
): number | "not-positive" | "too-large" {
  const t = text.trim();
  const negative = t.startsWith("-");
  let body = t.startsWith("-") || t.startsWith("+") ? t.slice(1) : t;
  if (body.startsWith(".")) body = `0${body}`;
  body = body.replace(/\.(?=[eE]|$)/, "");
  const plain = plainDecimal(body);
  if (plain === null) return "too-large";
  const [integer = "0", fraction = ""] = plain.split(".");
  if (integer.length > 16) return "too-large";
  let units = BigInt(integer + fraction.slice(0, decimals).padEnd(decimals, "0"));
  if ((fraction[decimals] ?? "0") >= "5") units += 1n;
  if (negative || units === 0n) return "not-positive";
  return units > BigInt(MAX_MINOR) ? "too-large" : Number(units);
}

const movement = (txnType: "CREDIT" | "DEBIT", action: string) =>
  new Hono<AppEnv>().post("/", async (c: Context<AppEnv>) => {
    const refusals = keyRouteRefusals(action);
    const principal = await requireCredentials(c, refusals);
    if (principal.role !== "administrator" || !scopeAllows(principal.scope, "write"))
      throw refusals.forbidden();

    const params = await readParams(c);
    // A missing user_id was 0 for credits and "" for debits (the two files differ).
    const fields = {
      user_id: sanitizeTextField(params.user_id ?? (txnType === "CREDIT" ? 0 : "")),
      wallet_id: asciiLower(sanitizeTextField(params.wallet_id ?? "")),
      request_id: sanitizeTextField(params.request_id ?? ""),
      amount: sanitizeTextField(params.amount ?? ""),
    };
    const errors = pluginChecks(fields);
    if (Object.keys(errors).length > 0) throw invalidInput(errors);

    const db = c.var.db;
    const wallet = await findWalletCached(db, fields.wallet_id);
    // The plugin's answer for an unknown wallet (capture 26): no error, no message.
    if (!wallet) return send(c, 400, { status_code: 400, status: false, message: "" });
    const userId = await pluginUserId(db, fields.user_id);
    if (userId === null) throw userNotFound(fields.user_id);
    const user = await requireUser(db, userId);
    const amountMinor = roundedMinor(fields.amount, storageDecimals(wallet));
    if (amountMinor === "not-positive")
      throw invalidInput({ amount: "amount must be greater than zero" });
    if (amountMinor === "too-large") throw invalidInput({ amount: "amount is too large" });

    const note = sanitizeTextField(params.note ?? "");
    if ([...note].length > MAX_TEXT)
      throw invalidInput({ note: `note must be at most ${MAX_TEXT} characters` });
    const metaData = metaDataText(params.meta_data);
    const spec = {
      user,
      wallet,
      txnType,
      amountMinor,
      amountText: fields.amount,
      requestId: fields.request_id,
      note,
      metaData,
    };
    const result = await postEntry(c.var.ledger, db, spec, c.get("nowMs")());
    if (!result.created) throw transactionExists(result.existingId!);
    return ok(c, 200, "Transaction Completed", { transaction_id: result.ids[0], user_id: user.id });
  });

export const compatCredits = movement("CREDIT", "rimplenet_create_credits");
export const compatDebits = movement("DEBIT", "rimplenet_create_debits");
