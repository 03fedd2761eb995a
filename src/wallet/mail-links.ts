// Mailed links (docs/mail.md): an address verification and a password reset, each a one-use token
// that expires. Asking for one answers the same whether or not an account has the address; the
// token and the mail are made in the background, so the answer's timing does not tell either.
import { hashPassword } from "../auth/password";
import { bindingOf, type Db } from "../db/client";
import { forgetSessions } from "../db/isolate-cache";
import {
  findUserByEmail,
  type MailPurpose,
  storeMailToken,
  useResetToken,
  useVerifyToken,
} from "../db/mail";
import { LINK_TOKEN, linkTokenHash, newLinkToken } from "../mail/link-token";
import {
  passwordResetMail,
  RESET_TOKEN_MS,
  VERIFY_LINK_MS,
  verificationMail,
} from "../mail/messages";
import type { Mail, MailSender } from "../mail/transport";
import { reserveMail } from "../throttle/mail";
import type { ThrottleNamespace } from "../throttle/sign-in";
import { Refusal } from "./refusal";

export type MailDeps = {
  db: Db;
  /** The transport (mail/transport.ts mailSender), null when none is configured. */
  send: MailSender | null;
  throttle: ThrottleNamespace;
  nowMs: number;
  /** Runs work after the answer where the runtime allows it, else before. */
  background: (work: Promise<void>) => Promise<void>;
};

/** The transport, once the address may have another mail: refused without one, or over its share. */
async function admit(deps: MailDeps, email: string) {
  if (!deps.send) throw new Refusal({ code: "mail_not_configured" });
  const reservation = await reserveMail(deps.throttle, email, deps.nowMs);
  if (!reservation.allowed)
    throw new Refusal({ code: "too_many_mails", retryAfterS: reservation.retryAfterS });
  return deps.send;
}

async function mailToken(
  deps: MailDeps,
  send: MailSender,
  user: { id: number; email: string },
  purpose: MailPurpose,
  lifetimeMs: number,
  mail: (token: string) => Mail,
) {
  const token = newLinkToken();
  await storeMailToken(deps.db, {
    tokenHash: await linkTokenHash(token),
    purpose,
    userId: user.id,
    email: user.email,
    createdAtMs: deps.nowMs,
    expiresAtMs: deps.nowMs + lifetimeMs,
  });
  await send(mail(token));
}

/**
 * Mails a verification link to `email` if an account has it and it is not verified yet; `linkFor`
 * makes the link from the token. Refused only without a transport or over the address's share.
 */
export async function requestVerification(
  deps: MailDeps,
  email: string,
  linkFor: (token: string) => string,
) {
  const send = await admit(deps, email);
  const user = await findUserByEmail(deps.db, email);
  if (!user || user.emailVerifiedAtMs !== null) return;
  await deps.background(
    mailToken(deps, send, user, "verify-email", VERIFY_LINK_MS, (token) =>
      verificationMail(user.email, linkFor(token)),
    ),
  );
}

/** Mails a password reset code to `email` if an account has it. */
export async function requestPasswordReset(deps: MailDeps, email: string) {
  const send = await admit(deps, email);
  const user = await findUserByEmail(deps.db, email);
  if (!user) return;
  await deps.background(
    mailToken(deps, send, user, "password-reset", RESET_TOKEN_MS, (token) =>
      passwordResetMail(user.email, token),
    ),
  );
}

const tokenHashOf = async (token: string) => {
  if (!LINK_TOKEN.test(token)) throw new Refusal({ code: "mail_link_invalid" });
  return linkTokenHash(token);
};

/** Follows a verification link: the address is verified, the link used. */
export async function confirmVerification(db: Db, token: string, nowMs: number) {
  const used = await useVerifyToken(db, await tokenHashOf(token), nowMs);
  if (!used) throw new Refusal({ code: "mail_link_invalid" });
  return used;
}

/**
 * Sets a new password with a reset code: every session of the user ends (docs/security.md#sessions),
 * at once in this isolate, within the session cache's bound elsewhere.
 */
export async function confirmPasswordReset(db: Db, token: string, password: string, nowMs: number) {
  const tokenHash = await tokenHashOf(token);
  const used = await useResetToken(db, tokenHash, await hashPassword(password), nowMs);
  if (!used) throw new Refusal({ code: "mail_link_invalid" });
  forgetSessions(bindingOf(db), used.userId);
  return used;
}
