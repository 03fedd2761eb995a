import type { Context } from "hono";
import type { AppEnv } from "../env";
import { JSON_UTF8, send } from "../http/envelope";
import { ApiError } from "../http/errors";
import type { BalanceRequest } from "./schemas";

/** The plugin's 422; `error` arrives as JSON text because PHP's key order cannot live in a JS object. */
export function entitiesRequiredResponse(c: Context<AppEnv>, errorJson: string) {
  const body = `{"status_code":422,"status":false,"message":"Entities Are Required","error":${errorJson}}`;
  return c.body(body, 422, JSON_UTF8);
}

/** Envelope A plus the plugin's top-level `submitted`: the sanitized parameters, echoed back. */
export const balanceOk = (c: Context<AppEnv>, data: unknown, submitted: BalanceRequest) =>
  send(c, 200, {
    status_code: 200,
    status: true,
    message: "Wallet Balance retrieved",
    data,
    submitted,
  });

/** The plugin's refusal of a wallet id no wallet has. */
export const invalidWallet = () => new ApiError(404, "Invalid Wallet", ["Invalid Wallet Provided"]);

/** The plugin's answer for a user it cannot find ("Failed", capitalised, is the plugin's). */
export const pluginUserNotFound = (c: Context<AppEnv>) =>
  send(c, 404, {
    status_code: 404,
    status: "Failed",
    message: "User not found",
    data: [],
    error: [],
  });
