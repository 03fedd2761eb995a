import { type Context, Hono } from "hono";
import { scopeAllows } from "../auth/principal";
import type { AppEnv } from "../env";
import { fail, ok, send } from "../http/envelope";
import { deleteUser } from "../wallet/users";
import { deleteWallet, isWalletId, normalizeWalletId } from "../wallet/wallets";
import { jwtRouteRefusals, requireCredentials } from "./auth";
import { pluginUserRef } from "./identity";
import { pluginUserNotFound } from "./respond";

// `DELETE wallets/{wallet}` (plugin api/core/wallets/delete-wallets.php, includes/wallets/
// delete-wallets.php) and `DELETE users/{user_id}` (api/core/users/delete-users.php, includes/users/
// delete-users.php), administrators only, behind the plugin's JWT-route refusals. The plugin deleted
// whatever it was asked to: a wallet whose users still held balances in it, a user with its balances
// (user meta) and history. The ledger is append-only, so here a wallet or user that any entry names
// is refused, and nothing changes; one that none names is deleted as the plugin answered.

async function requireAdmin(c: Context<AppEnv>) {
  const principal = await requireCredentials(c, jwtRouteRefusals);
  if (principal.role !== "administrator" || !scopeAllows(principal.scope, "write"))
    throw jwtRouteRefusals.forbidden();
}

/** The path's `(?P<wallet>[\w]+)`: other text is no route at all, as on the plugin. */
export const compatWalletDelete = new Hono<AppEnv>().delete(
  "/:wallet{[A-Za-z0-9_]+}",
  async (c) => {
    await requireAdmin(c);
    const named = c.req.param("wallet");
    const id = normalizeWalletId(named);
    const outcome = isWalletId(id) ? await deleteWallet(c.var.db, id) : "not-found";
    if (outcome === "deleted")
      return ok(c, 200, `${named} wallet deleted`, ["Operation completed"]);
    if (outcome === "has-entries")
      return fail(c, 409, "Operation cannot be completed", [
        `${named} wallet has transactions: the ledger keeps them`,
      ]);
    // The plugin's answer for an unknown wallet: getWalletById's error under deleteWallet's status
    // and (empty) message, as its Res::error kept the first error it was given.
    return send(c, 400, {
      status_code: 400,
      status: false,
      message: "",
      error: ["Invalid wallet Id"],
    });
  },
);

/** The path's `(?P<user_id>\d+)`, naming a user by the dialect's one rule (identity.ts). */
export const compatUserDelete = new Hono<AppEnv>().delete("/:user_id{[0-9]+}", async (c) => {
  await requireAdmin(c);
  const ref = pluginUserRef(c.req.param("user_id"));
  const outcome = ref !== null && "id" in ref ? await deleteUser(c.var.db, ref.id) : "not-found";
  if (outcome === "deleted") return ok(c, 200, "User deleted successfully", []);
  if (outcome === "has-entries")
    return fail(c, 409, "Operation cannot be completed", [
      { user_id: ["user has transactions: the ledger keeps them and the user's balances"] },
    ]);
  return pluginUserNotFound(c); // as GET users answers an unknown user
});
