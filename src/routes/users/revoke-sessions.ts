import { ok } from "../../http/envelope";
import { defineRoute } from "../../http/route";
import { NOBODY } from "../../wallet/movements";
import { endUserSessions } from "../../wallet/sessions";
import { SessionsRevokedAnswer } from "../answers";
import { userPath } from "./path-user";

/**
 * An operator signs a user out everywhere (docs/security.md#sessions): every session of the user,
 * API tokens and console cookies alike, is revoked. API keys are not sessions and are not touched.
 */
export const revokeSessions = defineRoute(
  {
    path: "/users/{user_id}/sessions/revoke",
    method: "POST",
    operationId: "revokeSessions",
    summary: "Revoke every session of a user",
    auth: "admin",
    access: "write",
    params: userPath,
    envelope: "B",
    errors: ["user_not_found"],
    data: SessionsRevokedAnswer,
  },
  async (c, { user_id: { id, ref } }) => {
    const { userId, revoked } = await endUserSessions(c.var.service, { id: id ?? NOBODY, as: ref });
    return ok(c, 200, "Sessions revoked", { user_id: userId, revoked });
  },
);
