import { ok } from "../../http/envelope";
import { MailRequestParams, PasswordResetConfirmParams } from "../../http/mail";
import { defineRoute } from "../../http/route";
import { userFields } from "../../http/user-fields";
import { confirmPasswordReset, requestPasswordReset } from "../../wallet/mail-links";
import { MailRequestedAnswer, PasswordResetAnswer } from "../answers";
import { MAIL_REQUESTED } from "./verify-email";

/** Public: mails a one-use reset code to the account with this address, if there is one. */
export const requestReset = defineRoute(
  {
    path: "/users/password-reset",
    method: "POST",
    operationId: "requestPasswordReset",
    summary: "Mail a password reset code",
    auth: "none",
    params: userFields(MailRequestParams),
    envelope: "B",
    errors: ["validation_error", "too_many_mails", "mail_not_configured", "object_unavailable"],
    data: MailRequestedAnswer,
  },
  async (c, { user_email }) => {
    await requestPasswordReset(c.var.service, user_email);
    return ok(c, 200, MAIL_REQUESTED, { user_email });
  },
);

/**
 * Public: the code and a new password (user creation's rules). Every session of the user ends
 * (docs/security.md#sessions); its API keys are untouched.
 */
export const confirmReset = defineRoute(
  {
    path: "/users/password-reset/confirm",
    method: "POST",
    operationId: "confirmPasswordReset",
    summary: "Set a new password with a mailed reset code",
    auth: "none",
    params: userFields(PasswordResetConfirmParams),
    envelope: "B",
    errors: ["validation_error", "mail_link_invalid", "too_many_sign_ins", "object_unavailable"],
    data: PasswordResetAnswer,
  },
  async (c, { token, user_password }) => {
    const used = await confirmPasswordReset(c.var.service, token, user_password);
    return ok(c, 200, "Password changed", {
      user_id: used.userId,
      sessions_revoked: used.liveSessions,
    });
  },
);
