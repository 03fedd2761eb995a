// Mailed links (docs/mail.md): an address verification and a password reset, each a one-use token
// that expires. Asking for one does the same work, and writes the same row, whether or not an
// account has the address; only the mail itself, sent after the answer, depends on it.
import { hashPassword } from "../auth/password";
import { bindingOf } from "../db/client";
import { forgetSessions } from "../db/isolate-cache";
import {
  findLiveToken,
  type MailPurpose,
  recordMailRequest,
  useResetToken,
  useVerifyToken,
} from "../db/mail";
import { findUserBy } from "../db/users";
import { LINK_TOKEN, linkTokenHash, newLinkToken } from "../mail/link-token";
import {
  passwordResetMail,
  RESET_TOKEN_MS,
  VERIFY_LINK_MS,
  verificationMail,
} from "../mail/messages";
import { type Mail, mailFailure } from "../mail/transport";
import { reserveGuess, reserveMail } from "../throttle/mail";
import { unlockAccount } from "../throttle/sign-in";
import type { ServiceContext } from "./context";
import { giveBackAfter } from "./faults";
import { Refusal } from "./refusal";
import { loginsOf } from "./users";

/**
 * Records a request for a mail of `purpose` to `email` and, when an account can use it, mails it
 * in the background. Refused only without a transport or over a share of mail: the client's, or
 * the address's (throttle/mail.ts), before anything is written.
 */
async function requestMail(
  ctx: ServiceContext,
  email: string,
  purpose: MailPurpose,
  lifetimeMs: number,
  mail: (to: string, token: string) => Mail,
) {
  const { send, perClient } = ctx.mail();
  if ("missing" in send) throw new Refusal({ code: "mail_not_configured", missing: send.missing });
  const { throttle, clientAddress } = ctx.signInLimits();
  const nowMs = ctx.nowMs();
  const reservation = await reserveMail(throttle, email, clientAddress, perClient, nowMs);
  if (!reservation.allowed)
    throw new Refusal({
      code: "too_many_mails",
      retryAfterS: reservation.retryAfterS,
      spent: reservation.spent,
    });
  const token = newLinkToken();
  const drafted = mail(email, token);
  const recorded = await recordMailRequest(
    ctx.db,
    {
      tokenHash: linkTokenHash(token),
      purpose,
      email,
      createdAtMs: nowMs,
      expiresAtMs: nowMs + lifetimeMs,
    },
    "outbox" in send ? drafted : undefined,
  );
  if (recorded.userId === null) return;
  const sent = { ...drafted, to: recorded.email };
  // Sent after the answer, so an address with an account is answered as fast as one without; a
  // transport's failure is logged with the request id (no address) and never reaches the answer.
  if ("send" in send)
    await ctx.afterAnswer(
      send
        .send(sent)
        .catch((err) =>
          console.error(JSON.stringify({ request_id: ctx.requestId, ...mailFailure(err) })),
        ),
    );
  // Dev only: the mail as it would have gone, its link included, so `npm run dev` shows it.
  else console.log(JSON.stringify({ mail_outbox: sent }));
}

/**
 * Mails a verification link to `email` if an account has it and it is not verified yet; `linkFor`
 * makes the link from the token.
 */
export const requestVerification = (
  ctx: ServiceContext,
  email: string,
  linkFor: (token: string) => string,
) =>
  requestMail(ctx, email, "verify-email", VERIFY_LINK_MS, (to, token) =>
    verificationMail(to, linkFor(token)),
  );

/** Mails a password reset code to `email` if an account whose password is usable has it. */
export const requestPasswordReset = (ctx: ServiceContext, email: string) =>
  requestMail(ctx, email, "password-reset", RESET_TOKEN_MS, passwordResetMail);

const tokenHashOf = async (token: string) => {
  if (!LINK_TOKEN.test(token)) throw new Refusal({ code: "mail_link_invalid" });
  return linkTokenHash(token);
};

/**
 * Follows a verification link: the address is verified, the link used. With `look`, only whether
 * the link is live, nothing used (a HEAD from a link checker).
 */
export async function confirmVerification(ctx: ServiceContext, token: string, look: boolean) {
  const { db } = ctx;
  const nowMs = ctx.nowMs();
  const tokenHash = await tokenHashOf(token);
  if (look) {
    if ((await findLiveToken(db, tokenHash, "verify-email", nowMs)) === undefined)
      throw new Refusal({ code: "mail_link_invalid" });
    return null;
  }
  const used = await useVerifyToken(db, tokenHash, nowMs);
  if (!used) throw new Refusal({ code: "mail_link_invalid" });
  return used;
}

/**
 * Sets a new password with a reset code: every session of the user ends (docs/security.md#sessions),
 * at once in this isolate, within the session cache's bound elsewhere, and the sign-in locks of the
 * user's logins end with the old password, from every address, as an operator's unlock ends them.
 * A guess is counted against the client's address like a failed sign-in, and the code is looked up
 * before the new password is hashed, so a wrong code costs no hash.
 */
export async function confirmPasswordReset(ctx: ServiceContext, token: string, password: string) {
  const { db } = ctx;
  const nowMs = ctx.nowMs();
  const { throttle, clientAddress } = ctx.signInLimits();
  const guess = await reserveGuess(throttle, clientAddress, nowMs);
  if (!guess.reservation.allowed)
    throw new Refusal({ code: "too_many_sign_ins", retryAfterS: guess.reservation.retryAfterS });
  const setPassword = async () => {
    const tokenHash = await tokenHashOf(token);
    const userId = await findLiveToken(db, tokenHash, "password-reset", nowMs);
    const user = userId == null ? undefined : await findUserBy(db, { id: userId });
    if (!user) throw new Refusal({ code: "mail_link_invalid" });
    // Read before the password is set, so that nothing after it can fail on D1.
    const logins = await loginsOf(db, user);
    const used = await useResetToken(db, tokenHash, await hashPassword(password), nowMs);
    if (!used) throw new Refusal({ code: "mail_link_invalid" });
    return { used, logins };
  };
  // A fault (D1 could not look the code up or set the password: 503, retry) is no guess: its count
  // goes back, so retries through an outage lock no address. A give-back that fails changes no answer.
  const { used, logins } = await setPassword().catch(async (fault: unknown) => {
    if (!(fault instanceof Refusal)) await guess.succeeded().catch(() => {});
    throw fault;
  });
  // The sessions ended with the batch: this isolate stops trusting them before anything can fail.
  forgetSessions(bindingOf(db), used.userId, used.revokedSessions);
  await giveBackAfter(ctx.requestId, () =>
    Promise.all([guess.succeeded(), unlockAccount(throttle, { id: used.userId, logins }, nowMs)]),
  );
  return used;
}
