import { JSON_UTF8, ok } from "../../http/envelope";
import {
  MailRequestParams,
  VERIFY_EMAIL_PATH,
  VerifyEmailParams,
  verifyLinkFor,
} from "../../http/mail";
import { defineRoute } from "../../http/route";
import { userFields } from "../../http/user-fields";
import { confirmVerification, requestVerification } from "../../wallet/mail-links";
import { EmailVerifiedAnswer, MailRequestedAnswer } from "../answers";

/** The same answer for every address (docs/mail.md): it tells nobody whether an account has it. */
export const MAIL_REQUESTED = "If an account has this address, a mail is on its way";

/**
 * Public, like sign-in: mails a verification link to an account's address that is not verified
 * yet. Beyond the plugin (contract section 9's spirit): its `verify-email-address` in wallet/v1.
 */
export const requestEmailVerification = defineRoute(
  {
    path: VERIFY_EMAIL_PATH,
    method: "POST",
    operationId: "requestEmailVerification",
    summary: "Mail a link that verifies a user's e-mail address",
    auth: "none",
    params: userFields(MailRequestParams),
    envelope: "B",
    errors: ["validation_error", "too_many_mails", "mail_not_configured", "object_unavailable"],
    data: MailRequestedAnswer,
  },
  async (c, { user_email }) => {
    await requestVerification(c.var.service, user_email, verifyLinkFor(c));
    return ok(c, 200, MAIL_REQUESTED, { user_email });
  },
);

/** The link a verification mail carries: it verifies the address, once, until it expires. */
export const confirmEmailVerification = defineRoute(
  {
    path: VERIFY_EMAIL_PATH,
    method: "GET",
    operationId: "confirmEmailVerification",
    summary: "Follow a verification link: the address is verified",
    auth: "none",
    params: userFields(VerifyEmailParams),
    envelope: "B",
    errors: ["validation_error", "mail_link_invalid"],
    data: EmailVerifiedAnswer,
  },
  async (c, { token }) => {
    // A HEAD (link checkers, mail scanners) is answered as the GET would be, and uses nothing up.
    const used = await confirmVerification(c.var.service, token, c.req.method === "HEAD");
    if (!used) return c.body(null, 200, JSON_UTF8);
    return ok(c, 200, "Email address verified", { user_id: used.userId, user_email: used.email });
  },
);
