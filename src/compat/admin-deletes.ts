import { fail, ok } from "../http/envelope";
import { defineRoute } from "../http/route";
import { pathFields } from "../http/validation";
import { deleteUser } from "../wallet/users";
import { deleteWallet } from "../wallet/wallets";
import { jwtRouteRefusals } from "./auth";
import { INVALID_WALLET_ID, pluginUserNotFound } from "./respond";
import { UserPath, WalletPath } from "./schemas";

// `DELETE wallets/{wallet}` (plugin api/core/wallets/delete-wallets.php, includes/wallets/
// delete-wallets.php) and `DELETE users/{user_id}` (api/core/users/delete-users.php, includes/users/
// delete-users.php), administrators only, behind the plugin's JWT-route refusals. The plugin deleted
// whatever it was asked to: a wallet whose users still held balances in it, a user with its balances
// (user meta) and history. The ledger is append-only, so here a wallet or user that any entry names
// is refused, and nothing changes; one that none names is deleted as the plugin answered.

/** Why a wallet or user is kept: entries name it, or it is the last administrator (409 each). */
export const DELETE_REFUSED = {
  message: "Operation cannot be completed",
  walletHasEntries: (wallet: string) => `${wallet} wallet has transactions: the ledger keeps them`,
  userHasEntries: "user has transactions: the ledger keeps them and the user's balances",
  lastAdministrator: "user is the last administrator: the service needs one to be run",
} as const;

/** The path's `(?P<wallet>[\w]+)`: other text is no route at all, as on the plugin. */
export const compatWalletDelete = defineRoute(
  {
    path: "/wallets/{wallet}",
    method: "DELETE",
    summary: "Delete a wallet no entry names",
    auth: "admin",
    access: "write",
    refusals: jwtRouteRefusals,
    params: pathFields(WalletPath),
    patterns: { wallet: "[\\w]+" },
  },
  async (c, { wallet: { id, ref: named } }) => {
    const outcome = id === null ? "not-found" : await deleteWallet(c.var.service, id);
    if (outcome === "deleted")
      return ok(c, 200, `${named} wallet deleted`, ["Operation completed"]);
    if (outcome === "has-entries")
      return fail(c, 409, DELETE_REFUSED.message, [DELETE_REFUSED.walletHasEntries(named)]);
    // The plugin's answer for an unknown wallet: getWalletById's error under deleteWallet's status
    // and (empty) message, as its Res::error kept the first error it was given.
    return fail(c, 400, "", [INVALID_WALLET_ID]);
  },
);

/** The path's `(?P<user_id>\d+)`, naming a user by the dialect's one rule (identity.ts). */
export const compatUserDelete = defineRoute(
  {
    path: "/users/{user_id}",
    method: "DELETE",
    summary: "Delete a user no entry names",
    auth: "admin",
    access: "write",
    refusals: jwtRouteRefusals,
    params: pathFields(UserPath),
    envelope: "B",
    patterns: { user_id: "\\d+" },
  },
  async (c, { user_id: ref }) => {
    const outcome =
      ref !== null && "id" in ref ? await deleteUser(c.var.service, ref.id) : "not-found";
    if (outcome === "deleted") return ok(c, 200, "User deleted successfully", []);
    if (outcome === "has-entries")
      return fail(c, 409, DELETE_REFUSED.message, [{ user_id: [DELETE_REFUSED.userHasEntries] }]);
    if (outcome === "last-administrator")
      return fail(c, 409, DELETE_REFUSED.message, [
        { user_id: [DELETE_REFUSED.lastAdministrator] },
      ]);
    return pluginUserNotFound(c); // as GET users answers an unknown user
  },
);
