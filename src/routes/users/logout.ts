import { ok } from "../../http/envelope";
import { defineRoute } from "../../http/route";
import { signOut } from "../../wallet/sign-in";
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
    data: LogoutAnswer,
  },
  async (c) => {
    const { userId } = await signOut(c.var.service);
    return ok(c, 200, "Logout successful", { user_id: userId });
  },
);
