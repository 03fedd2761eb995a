import * as v from "valibot";
import { pathText, pathWalletIdField } from "../http/fields";
import { pluginUserRef } from "./identity";
import { sanitizeTextField } from "./php";

// The plugin validated nothing beyond emptiness: every parameter went through sanitize_text_field
// and on. So each field is any value, read as WordPress would read it (arrays become "").
const pluginText = v.optional(v.pipe(v.unknown(), v.transform(sanitizeTextField)), "");

/** `user-wallet-balance` and `/multi`: echoed back as `submitted`, in this key order. */
export const BalanceRequest = v.object({
  user_id: pluginText,
  wallet_id: pluginText,
  formatted: pluginText,
});
export type BalanceRequest = v.InferOutput<typeof BalanceRequest>;

/** `GET users`: a user id or username (empty or "0" lists), and the list's page. */
export const UsersRequest = v.object({ user_id: pluginText, page: pluginText });
export type UsersRequest = v.InferOutput<typeof UsersRequest>;

/** `DELETE wallets/{wallet}`: the wallet, by the one wallet-id rule. */
export const WalletPath = v.object({ wallet: pathWalletIdField });

/** `DELETE users/{user_id}`: the user, by the dialect's one user rule (identity.ts). */
export const UserPath = v.object({ user_id: v.pipe(pathText, v.transform(pluginUserRef)) });
