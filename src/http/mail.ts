// What both dialects need to send mail from a request (docs/mail.md): the service's mail setting
// from the request's env, the link a verification mail carries, and the fields.
import type { Context } from "hono";
import * as v from "valibot";
import type { AppEnv } from "../env";
import { mailSender } from "../mail/transport";
import { mailLimitPerClient } from "../settings";
import type { MailSettings } from "../wallet/context";
import { atMost, documented } from "./fields";
import { NAMESPACE } from "./rest-index";
import { siteUrl } from "./site";
import { UserParams } from "./user-fields";

/** The path of the link a verification mail carries, under the contract's namespace. */
export const VERIFY_EMAIL_PATH = "/users/verify-email";

export const MailRequestParams = v.object({ user_email: UserParams.entries.user_email });

// A missing token reads as empty, so it is refused with the same text as an empty one; a number,
// list or object is no token.
const tokenField = v.pipe(
  v.optional(v.string("token must be a string"), ""),
  v.nonEmpty("token is required"),
  atMost(100, "token"),
  documented({ type: "string", minLength: 1, maxLength: 100 }),
);
export const VerifyEmailParams = v.object({ token: tokenField });
export const PasswordResetConfirmParams = v.object({
  token: tokenField,
  user_password: UserParams.entries.user_password,
});

/** Where a verification link points: the contract's GET /users/verify-email, always served. */
export const verifyLinkFor = (c: Context<AppEnv>) => (token: string) =>
  `${siteUrl(c)}/wp-json/${NAMESPACE}${VERIFY_EMAIL_PATH}?token=${token}`;

/** How this request's mail is sent: the service's `mail` setting. */
export const mailSettings = (c: Context<AppEnv>): MailSettings => ({
  send: mailSender(c.env, c.req.url),
  perClient: mailLimitPerClient(c.env.MAIL_LIMIT_PER_CLIENT),
});
