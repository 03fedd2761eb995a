import type { Context } from "hono";
import type { AppEnv } from "../env";
import { JSON_UTF8, send } from "../http/envelope";
import { ApiError } from "../http/errors";
import { phpArrayJson, phpEmpty } from "./php";
import type { SummaryRequest } from "./schemas";

/** The plugin's message for a balance read whose user or wallet is empty, and each field's text. */
export const ENTITIES_REQUIRED = "Entities Are Required";
export const requiredText = (field: string) => `${field} is required`;

/**
 * The plugin's 422 "Entities Are Required", or null. Its checkIfEmpty keyed each message by the
 * empty *value* in the single balance route (so `{"":"…"}`, and `["…"]` for "0", which PHP turns
 * into the key 0; a second empty field overwrites the first) and by the field name in `/multi`
 * (and `wallet-summary`). Kept on purpose: clients of the plugin parse these shapes. `error` is
 * written as JSON text because PHP's key order cannot live in a JS object. A user_id that is
 * undefined (wallet-summary's, left out: the caller) is not judged.
 */
export function entitiesRequired(
  c: Context<AppEnv>,
  req: Pick<SummaryRequest, "user_id" | "wallet_id">,
  keyBy: "value" | "field",
) {
  const errors = new Map<string | number, string>();
  for (const field of ["user_id", "wallet_id"] as const) {
    const value = req[field];
    if (value === undefined || !phpEmpty(value)) continue;
    errors.set(keyBy === "field" ? field : value === "0" ? 0 : value, requiredText(field));
  }
  if (errors.size === 0) return null;
  const body = `{"status_code":422,"status":false,"message":${JSON.stringify(ENTITIES_REQUIRED)},"error":${phpArrayJson(errors)}}`;
  return c.body(body, 422, JSON_UTF8);
}

/** The plugin's getWalletById error: a wallet id no wallet has (GET and DELETE wallets/{wallet}). */
export const INVALID_WALLET_ID = "Invalid wallet Id";

/** The plugin's refusal of a wallet id no wallet has. */
export const invalidWallet = () => new ApiError(404, "Invalid Wallet", ["Invalid Wallet Provided"]);

/** The plugin's message for a user it cannot find. */
export const USER_NOT_FOUND = "User not found";

/** The plugin's answer for a user it cannot find ("Failed", capitalised, is the plugin's). */
export const pluginUserNotFound = (c: Context<AppEnv>) =>
  send(c, 404, {
    status_code: 404,
    status: "Failed",
    message: USER_NOT_FOUND,
    data: [],
    error: [],
  });
