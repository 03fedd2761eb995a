import { forgetSessions } from "../../db/isolate-cache";
import { revokeUserSessions } from "../../db/sessions";
import { findUsers } from "../../db/users";
import { requireAdmin } from "../../http/auth";
import { ok } from "../../http/envelope";
import { userNotFound } from "../../http/errors";
import { SessionsRevokedAnswer } from "../answers";
import { defineRoute, pathParam } from "../route";

/**
 * An operator signs a user out everywhere (docs/security.md#sessions): every session of the user,
 * API tokens and console cookies alike, is revoked. API keys are not sessions and are not touched.
 */
export const revokeSessions = defineRoute(
  {
    path: "/users/{user_id}/sessions/revoke",
    method: "POST",
    summary: "Revoke every session of a user",
    auth: "admin",
    envelope: "B",
    errors: ["user_not_found"],
    success: 200,
    data: SessionsRevokedAnswer,
    patterns: { user_id: "[0-9]+" },
  },
  async (c) => {
    requireAdmin(c, "write");
    const raw = pathParam(c, "user_id");
    const user =
      raw.length <= 15 ? (await findUsers(c.var.db, [Number(raw)])).get(Number(raw)) : undefined;
    if (!user) throw userNotFound(raw);
    const revoked = await revokeUserSessions(c.var.db, user.id, c.get("nowMs")());
    forgetSessions(c.env.DB, user.id);
    return ok(c, 200, "Sessions revoked", { user_id: user.id, revoked });
  },
);
