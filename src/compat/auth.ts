import type { Refusals } from "../http/errors";
import { ApiError, permissionDenied, validationError } from "../http/errors";

// The plugin refused in two dialects, and these are its texts (captures 10 and 32-36):
// - its API-key routes (`nll_api_request_started_api_key`, envelope A): no header 403
//   "Permission Denied", a credential it cannot verify 401 "Invalid Token", an action outside the
//   key's permissions 403 "Permission Denied for <action>". Balances take these: the plugin named
//   their action `get_rimplenet_wallets_balance` in that family (it never enforced it).
// - its JWT routes (`nll_api_request_started`, envelope B on every route, transfers and wallets
//   too): no header 401 "Permission denied", a token that does not verify 400 "Validation error"
//   ["Invalid signature"] (the plugin said "Expired token" for an expired one; this service does
//   not say why a credential failed), a caller without the right 403 "Request is not authorized"
//   (the plugin said 401; a role short of the route's is 403 here, as on /wp-json/wallet/v1).
const RECOMMEND_CREDENTIALS = {
  username: "Re-visit the specified username",
  password: "Confirm password matches",
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

/** Its JWT check ran before the route, so it answered in envelope B on every route. */
const inEnvelopeB = (err: ApiError) =>
  new ApiError(err.status, err.message, err.error, err.headers, "B");

export const jwtRouteRefusals: Refusals = {
  missing: () => inEnvelopeB(permissionDenied.missing()),
  invalid: () => inEnvelopeB(validationError(["Invalid signature"])),
  forbidden: () => inEnvelopeB(permissionDenied.forbidden()),
};
