import type { Context } from "hono";
import type { Principal } from "../auth/principal";
import type { AppEnv } from "../env";
import { credentialOf } from "../http/auth";
import { ApiError, permissionDenied } from "../http/errors";
import { publicReads } from "./config";
import { mayReadPluginUser } from "./identity";

// The plugin refused in two dialects, and these are its texts (captures 10 and 32-36):
// - its API-key routes (`nll_api_request_started_api_key`, envelope A): no header 403
//   "Permission Denied", a credential it cannot verify 401 "Invalid Token", an action outside the
//   key's permissions 403 "Permission Denied for <action>". Balances take these: the plugin named
//   their action `get_rimplenet_wallets_balance` in that family (it never enforced it).
// - its JWT routes (`nll_api_request_started`, envelope B, `/users`): no header 401 "Permission
//   denied", a token that does not verify 400 "Validation error" ["Invalid signature"] (the plugin
//   said "Expired token" for an expired one; this service does not say why a credential failed),
//   a caller without the right 403 "Request is not authorized".
const RECOMMEND_CREDENTIALS = {
  username: "Re-visit the specified username",
  password: "Confirm password matches",
};

export type Refusals = {
  missing: () => ApiError;
  invalid: () => ApiError;
  forbidden: () => ApiError;
};

export const keyRouteRefusals = (action: string): Refusals => ({
  missing: () =>
    new ApiError(403, "Permission Denied", {
      authorization: "An authorization is required",
      recommendation: "Provide an authorization header",
    }),
  invalid: () =>
    new ApiError(401, "Invalid Token", {
      credentials: "Authorization Denied",
      recommendation: RECOMMEND_CREDENTIALS,
    }),
  forbidden: () =>
    new ApiError(403, "Permission Denied", {
      permission: `Permission Denied for ${action}`,
      recommendation: "Set allowed actions withing the given permissions list",
    }),
});

export const jwtRouteRefusals: Refusals = {
  missing: permissionDenied.missing,
  invalid: () => new ApiError(400, "Validation error", ["Invalid signature"]),
  forbidden: permissionDenied.forbidden,
};

/** The service's own credentials (token or key), refused in the plugin's words. */
export async function requireCredentials(
  c: Context<AppEnv>,
  refusals: Refusals,
): Promise<Principal> {
  const principal = await credentialOf(c);
  if (principal === "missing") throw refusals.missing();
  if (principal === "invalid") throw refusals.invalid();
  c.set("principal", principal);
  return principal;
}

/**
 * A balance read's gate. With COMPAT_PUBLIC_READS=true the plugin's behaviour: nobody is asked for
 * credentials and any Authorization header is ignored, never refused (capture 52). Otherwise the
 * caller must hold credentials; `allow` then checks the id of the user it asks about (identity.ts).
 */
export async function balanceReader(c: Context<AppEnv>, refusals: Refusals) {
  if (publicReads(c.env)) return { allow: (_userId: number | null) => undefined };
  const principal = await requireCredentials(c, refusals);
  return {
    allow: (userId: number | null) => {
      if (!mayReadPluginUser(principal, userId)) throw refusals.forbidden();
    },
  };
}
