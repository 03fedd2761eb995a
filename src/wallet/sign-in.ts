// A sign-in, whichever dialect or surface asks: the throttle (docs/security.md#sign-in-throttling),
// the password check at constant cost, the upgrade of an imported hash, and a new session with its
// token, and signing out. The caller has read and checked the fields; it answers the result in its
// own words.
import { REFUSAL_FLOOR_MS } from "../auth/pace";
import { checkLoginPassword } from "../auth/password";
import {
  API_AUDIENCE,
  type Audience,
  CONSOLE_AUDIENCE,
  PERSISTENT_TOKEN_LIFETIME_S,
  TOKEN_LIFETIME_S,
} from "../auth/tokens";
import { forgetSessions } from "../db/isolate-cache";
import { revokeSession } from "../db/sessions";
import { findUserBy, replacePasswordHash } from "../db/users";
import { SignInAttempt, unlockAccount } from "../throttle/sign-in";
import { caller, type IdRef, requireAdmin, type ServiceContext } from "./context";
import { giveBackAfter } from "./faults";
import { Refusal } from "./refusal";
import { openSession } from "./sessions";
import { loginsOf } from "./users";

export type Credentials = {
  /** An e-mail or a username. */
  login: string;
  /**
   * Another spelling of it (the plugin's dialect: without accents), for the user when nobody has
   * `login`; the throttle then counts this one, so every spelling of a login shares its allowance.
   */
  orLogin?: string;
  password: string;
  /** `token_expiration=persistent`: an API token for 15,780,000 s instead of 3,600. */
  persistent: boolean;
  /** The kind of token to issue: an API token, or the console's own (administrators only). */
  audience: Audience;
};

/**
 * The user and a new session's token, or a refusal (`too_many_sign_ins`, `invalid_credential`,
 * and `forbidden` for a console session asked by anyone but an administrator: none is opened).
 */
export async function signIn(ctx: ServiceContext, credentials: Credentials) {
  const { db } = ctx;
  const nowMs = ctx.nowMs();
  const limits = ctx.signInLimits();
  // Counted against the client address, the (login, address) pair and, from an address the user
  // never signed in from, the login's ceiling, before the password is checked (docs/security.md).
  const attempt = new SignInAttempt(limits.throttle, limits.clientAddress, nowMs);
  const { user, retryAfterS } = await attempt.admit(
    credentials.orLogin ?? credentials.login,
    findUserBy(db, credentials),
  );
  if (retryAfterS !== undefined) throw new Refusal({ code: "too_many_sign_ins", retryAfterS });

  const checkStartedMs = Date.now(); // after the last I/O before the check: see auth/pace.ts
  // The check runs the full hash even for an unknown user; every refusal then waits out one floor.
  const check = await checkLoginPassword(credentials.password, user?.passwordHash);
  const refused = async () => {
    await limits.pace(REFUSAL_FLOOR_MS, checkStartedMs);
    return new Refusal({ code: "invalid_credential" });
  };
  if (!user || !check.valid) throw await refused();
  if (credentials.audience === CONSOLE_AUDIENCE && user.role !== "administrator") {
    await attempt.succeeded();
    throw new Refusal({ code: "forbidden" });
  }
  const lifetimeS =
    credentials.persistent && credentials.audience === API_AUDIENCE
      ? PERSISTENT_TOKEN_LIFETIME_S
      : TOKEN_LIFETIME_S;
  const principal = { userId: user.id, username: user.username, role: user.role };
  // One batch: the session, and the hash an imported user's first good sign-in replaces. The
  // session is written only while the user still has the hash the password was checked against: a
  // password reset (or a deletion) that landed during the check leaves no session behind.
  const open = (checked: string, upgradedHash: string | undefined) =>
    openSession(db, principal, credentials.audience, {
      lifetimeS,
      nowMs,
      keys: ctx.tokenKeys(),
      also: upgradedHash ? [replacePasswordHash(db, user.id, checked, upgradedHash)] : [],
      passwordHash: checked,
    });
  // If the hash changed meanwhile, a concurrent sign-in's upgrade of an imported hash keeps the
  // password, a reset does not: the password is checked once more against the hash the user has now.
  // A fault meanwhile (a D1 that cannot take the session's write, answered 503 with Retry-After)
  // follows a right password: its counts go back as a good sign-in's do, so a client that retries
  // as told is not locked out by its own retries.
  const openChecked = async () =>
    (await open(user.passwordHash, check.upgradedHash)) ??
    (await openAfterChange(ctx, user.id, credentials.password, open));
  const opened = await openChecked().catch(async (fault: unknown) => {
    await giveBackAfter(ctx.requestId, () => attempt.succeeded());
    throw fault;
  });
  // Only a sign-in whose password held clears the throttle's counts; one refused because the
  // password changed meanwhile stays a failure, and waits out the floor like any other (its time
  // would say the old password was right).
  if (!opened) throw await refused();
  await giveBackAfter(ctx.requestId, () => attempt.succeeded());
  return { user, accessToken: opened.token, signedInAtMs: nowMs };
}

async function openAfterChange<T>(
  ctx: ServiceContext,
  userId: number,
  password: string,
  open: (checked: string, upgradedHash: string | undefined) => Promise<T | null>,
) {
  const now = await findUserBy(ctx.db, { id: userId });
  if (!now) return null;
  const check = await checkLoginPassword(password, now.passwordHash);
  return check.valid ? open(now.passwordHash, check.upgradedHash) : null;
}

/**
 * Ends the caller's own session, at once in this isolate, within 5 s elsewhere; an API key has none
 * (`no_session`).
 */
export async function signOut(ctx: ServiceContext) {
  const { userId, sessionId } = caller(ctx);
  if (sessionId === undefined) throw new Refusal({ code: "no_session" });
  // A session revoked meanwhile (a racing sign-out) was refused by authentication or ends here.
  await revokeSession(ctx.db, sessionId, ctx.nowMs());
  forgetSessions(ctx.d1, userId, sessionId);
  return { userId };
}

/**
 * An operator clears a user's sign-in locks (docs/security.md#sign-in-throttling): the failures,
 * locks and back-off of the logins that name the user, from every address, so the user can sign in
 * at once from anywhere. The addresses it signed in from stay known; a client address's own lock
 * (100 failures over any accounts) is not touched. Refused `user_not_found` for nobody.
 */
export async function unlockSignIn(ctx: ServiceContext, { id, ref }: IdRef) {
  requireAdmin(ctx, "write");
  const user = id === null ? undefined : await findUserBy(ctx.db, { id });
  if (!user) throw new Refusal({ code: "user_not_found", userId: ref });
  const logins = await loginsOf(ctx.db, user);
  const cleared = await unlockAccount(
    ctx.signInLimits().throttle,
    { id: user.id, logins },
    ctx.nowMs(),
  );
  return { userId: user.id, ...cleared };
}
