import { ok } from "../../http/envelope";
import { defineRoute } from "../../http/route";
import { unlockSignIn } from "../../wallet/sign-in";
import { UnlockAnswer } from "../answers";
import { userPath } from "./path-user";

/** An operator clears an account's sign-in locks: wallet/sign-in.ts unlockSignIn. */
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
    errors: ["validation_error", "user_not_found", "object_unavailable"],
    data: UnlockAnswer,
  },
  async (c, { user_id }) => {
    const cleared = await unlockSignIn(c.var.service, user_id);
    return ok(c, 200, "Sign-in lock cleared", {
      user_id: cleared.userId,
      was_locked: cleared.locked,
      failed_attempts: cleared.failures,
    });
  },
);
