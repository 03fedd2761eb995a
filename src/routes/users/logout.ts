import { ok } from "../../http/envelope";
import { validationError } from "../../http/errors";
import { defineRoute } from "../../http/route";
import { endSession } from "../../wallet/sessions";
import { LogoutAnswer } from "../answers";

/**
 * Ends the session of the access token that calls it (docs/security.md#sessions): that token, as
 * `Bearer`, is refused from then on. An API key has no session; keys end with DELETE /api-keys/{id}.
 */
export const logout = defineRoute(
  {
    path: "/users/logout",
    method: "POST",
    operationId: "logout",
    summary: "End the session of the access token used",
    auth: "session",
    envelope: "B",
    errors: ["validation_error"],
    success: 200,
    data: LogoutAnswer,
  },
  async (c) => {
    const principal = c.get("principal");
    if (principal.sessionId === undefined)
      throw validationError([
        "An API key has no session to end: revoke the key with DELETE /api-keys/{id}",
      ]);
    // A session revoked meanwhile (a racing logout) was refused by authentication or ends here.
    await endSession(c.var.db, c.env.DB, principal, c.get("nowMs")());
    return ok(c, 200, "Logout successful", { user_id: principal.userId });
  },
);
