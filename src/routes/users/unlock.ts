import { findUsers } from "../../db/users";
import { requireAdmin } from "../../http/auth";
import { ok } from "../../http/envelope";
import { userNotFound } from "../../http/errors";
import { resetAccount } from "../../throttle/sign-in";
import { UnlockAnswer } from "../answers";
import { defineRoute, pathParam } from "../route";

/**
 * An operator clears an account's sign-in lock (docs/security.md): its failed attempts, its lock and
 * its back-off are forgotten, so the user can sign in at once. A client address's lock is not
 * touched; it ends on its own after 15 minutes.
 */
export const unlockUser = defineRoute(
  {
    path: "/users/{user_id}/unlock",
    method: "POST",
    summary: "Clear an account's sign-in lock",
    auth: "admin",
    envelope: "B",
    errors: ["validation_error", "user_not_found"],
    success: 200,
    data: UnlockAnswer,
    patterns: { user_id: "[0-9]+" },
  },
  async (c) => {
    requireAdmin(c, "write");
    const raw = pathParam(c, "user_id");
    const user =
      raw.length <= 15 ? (await findUsers(c.var.db, [Number(raw)])).get(Number(raw)) : undefined;
    if (!user) throw userNotFound(raw);
    const cleared = await resetAccount(c.env.LOGIN_THROTTLE, user.id, c.get("nowMs")());
    return ok(c, 200, "Sign-in lock cleared", {
      user_id: user.id,
      was_locked: cleared.locked,
      failed_attempts: cleared.failures,
    });
  },
);
