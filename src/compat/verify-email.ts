import * as v from "valibot";
import { fail, ok, send } from "../http/envelope";
import { verifyLinkFor } from "../http/mail";
import { defineRoute } from "../http/route";
import { UserParams } from "../http/user-fields";
import { requestVerification } from "../wallet/mail-links";
import { Refusal } from "../wallet/refusal";
import { VerifyEmailRequest } from "./schemas";

/** The plugin's messages: an address it cannot read, no `fire_email`, a mail not sent. */
export const VERIFY_EMAIL_REFUSED = {
  unparsed: "email not parsed",
  noToken: "Token Not Generated",
  notSent: "Email Not Sent",
} as const;

const notSent = {
  status_code: 400,
  status: false,
  message: VERIFY_EMAIL_REFUSED.notSent,
  error: { mail: false },
};

// `GET verify-email-address` (api/core/emails/verify-email-mail.php, includes/emails/
// verify-email-mail.php), public as on the plugin. With `fire_email=true` it mails a verification
// link (docs/mail.md) and answers the plugin's success, `"Verification Mail Email Sent"`, data
// `{"mail":true}`. Without a mail transport it answers "Email Not Sent", the failed mail's text the
// plugin meant (its `$sent ?` test always chose the success text, sent with `"status":false`);
// over the address's or the client address's share of mail the same with 429 and Retry-After.
// An address no account can have (one `POST users` refuses) is "email not parsed", as the plugin
// answered an address it could not read, and nothing is recorded for it; the address is read as
// `POST users` reads it (trimmed).
// Deliberate differences: every address gets the same answer, with or without an account (the
// plugin answered "User not found"), and without `fire_email` no token is made or shown (the
// plugin answered the token itself to anyone who asked, so anyone could verify any address).
export const compatVerifyEmail = defineRoute(
  {
    path: "/verify-email-address",
    method: "GET",
    summary: "Mail an e-mail verification link",
    auth: "none",
    params: {
      schema: VerifyEmailRequest,
      read: (_c, params) => {
        const f = v.parse(VerifyEmailRequest, params);
        const address = v.safeParse(UserParams.entries.user_email, f.email_address);
        return { email: address.success ? address.output : "", fire: f.fire_email === "true" };
      },
    },
  },
  async (c, { email, fire }) => {
    if (email === "") return fail(c, 400, VERIFY_EMAIL_REFUSED.unparsed, false);
    if (!fire) return send(c, 400, { ...notSent, message: VERIFY_EMAIL_REFUSED.noToken });
    try {
      await requestVerification(c.var.service, email, verifyLinkFor(c));
    } catch (err) {
      if (!(err instanceof Refusal)) throw err;
      if (err.reason.code === "too_many_mails")
        return send(
          c,
          429,
          { ...notSent, status_code: 429 },
          { "Retry-After": String(err.reason.retryAfterS) },
        );
      if (err.reason.code === "mail_not_configured") return send(c, 400, notSent);
      throw err;
    }
    return ok(c, 200, "Verification Mail Email Sent", { mail: true });
  },
);
