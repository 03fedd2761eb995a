// A sign-in, whichever dialect or surface asks: the throttle (docs/security.md#sign-in-throttling),
// the password check at constant cost, the upgrade of an imported hash, and a new session with its
// token. The caller has read and checked the fields; it answers the result in its own words.
import { type Pace, REFUSAL_FLOOR_MS } from "../auth/pace";
import { checkLoginPassword } from "../auth/password";
import {
  API_AUDIENCE,
  type Audience,
  PERSISTENT_TOKEN_LIFETIME_S,
  TOKEN_LIFETIME_S,
} from "../auth/tokens";
import type { Db } from "../db/client";
import { findLoginUser, replacePasswordHash } from "../db/users";
import { SignInAttempt, type ThrottleNamespace } from "../throttle/sign-in";
import { Refusal } from "./refusal";
import { openSession, type TokenKeys } from "./sessions";

export type SignInDeps = {
  db: Db;
  throttle: ThrottleNamespace;
  /** CF-Connecting-IP: the throttle counts addresses by it. */
  clientAddress: string | undefined;
  nowMs: number;
  pace: Pace;
  keys: TokenKeys;
};

export type Credentials = {
  /** An e-mail or a username. */
  login: string;
  password: string;
  /** `token_expiration=persistent`: an API token for 15,780,000 s instead of 3,600. */
  persistent: boolean;
  /** The kind of token to issue: an API token, or the console's own. */
  audience: Audience;
};

/** The user and a new session's token, or a refusal (`too_many_sign_ins`, `invalid_credential`). */
export async function signIn(deps: SignInDeps, credentials: Credentials) {
  const { db, nowMs } = deps;
  // Counted against the client address, the (account, address) pair and, from an address the
  // account never signed in from, its ceiling, before the password is checked (docs/security.md).
  const attempt = new SignInAttempt(deps.throttle, deps.clientAddress, nowMs);
  const { user, retryAfterS } = await attempt.admit(
    credentials.login,
    findLoginUser(db, credentials.login),
  );
  if (retryAfterS !== undefined) throw new Refusal({ code: "too_many_sign_ins", retryAfterS });

  const checkStartedMs = Date.now(); // after the last I/O before the check: see auth/pace.ts
  // The check runs the full hash even for an unknown user; every refusal then waits out one floor.
  const check = await checkLoginPassword(credentials.password, user?.passwordHash);
  if (!user || !check.valid) {
    await deps.pace(REFUSAL_FLOOR_MS, checkStartedMs);
    throw new Refusal({ code: "invalid_credential" });
  }
  const lifetimeS =
    credentials.persistent && credentials.audience === API_AUDIENCE
      ? PERSISTENT_TOKEN_LIFETIME_S
      : TOKEN_LIFETIME_S;
  const principal = { userId: user.id, username: user.username, role: user.role };
  // One batch: the session, and the hash an imported user's first good sign-in replaces.
  const [{ token: accessToken }] = await Promise.all([
    openSession(db, principal, credentials.audience, {
      lifetimeS,
      nowMs,
      keys: deps.keys,
      also: check.upgradedHash
        ? [replacePasswordHash(db, user.id, user.passwordHash, check.upgradedHash)]
        : [],
    }),
    attempt.succeeded(),
  ]);
  return { user, accessToken };
}
