import { ok } from "../../http/envelope";
import { defineRoute } from "../../http/route";
import { unlockAccount } from "../../throttle/sign-in";
import { UnlockAnswer } from "../answers";
import { pathUser, userPath } from "./path-user";

/**
 * An operator clears an account's sign-in locks (docs/security.md): the failed attempts, locks and
 * back-off of every (account, address) pair and of the account's ceiling are forgotten, so the user
 * can sign in at once from anywhere. The addresses it signed in from stay known. A client
 * address's own lock (100 failures over any accounts) is not touched; it ends after 15 minutes.
 */
export const unlockUser = defineRoute(
  {
    path: "/users/{user_id}/unlock",
    method: "POST",
    operationId: "unlockUser",
    summary: "Clear an account's sign-in lock",
    auth: "admin",
    access: "write",
    params: userPath,
    envelope: "B",
    errors: ["validation_error", "user_not_found"],
    data: UnlockAnswer,
  },
  async (c, { user_id }) => {
    const user = await pathUser(c, user_id);
    const cleared = await unlockAccount(c.env.LOGIN_THROTTLE, user.id, c.get("nowMs")());
    return ok(c, 200, "Sign-in lock cleared", {
      user_id: user.id,
      was_locked: cleared.locked,
      failed_attempts: cleared.failures,
    });
  },
);
