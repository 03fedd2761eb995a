// Sessions that can end (docs/security.md#sessions): a token is accepted only while the session its
// `sid` names is live. The answer is cached per isolate for SESSION_TTL_MS (db/isolate-cache.ts).
// The service joins the token (auth/tokens.ts) and its row (db/sessions.ts); neither knows the other.

import type { BatchItem } from "drizzle-orm/batch";
import { randomBase64Url } from "../auth/base64";
import type { Principal } from "../auth/principal";
import { issueToken, verifyToken } from "../auth/tokens";
import { bindingOf, type Db, learnBookmark } from "../db/client";
import { checkedCredential, endedHere, forgetSessions, SESSION_TTL_MS } from "../db/isolate-cache";
import {
  type Audience,
  createSession,
  findSession,
  liveOf,
  revokeSessionsOf,
} from "../db/sessions";
import { seconds } from "../ledger/entries";
import { requireAdmin, type ServiceContext, type TokenKeys } from "./context";
import { requireUsers, type UserRef } from "./movements";

/**
 * A new session of `audience` for `principal` and its token; `also` are writes that go in the same
 * batch (a sign-in's hash upgrade). With `passwordHash` (the hash the sign-in checked), null when
 * the user no longer has that hash (a password reset since the check) or no longer exists.
 */
export async function openSession(
  db: Db,
  principal: Principal,
  audience: Audience,
  {
    lifetimeS,
    nowMs,
    keys,
    also = [],
    passwordHash,
  }: {
    lifetimeS: number;
    nowMs: number;
    keys: TokenKeys;
    also?: BatchItem<"sqlite">[];
    passwordHash?: string;
  },
) {
  // 128 random bits in base64url (22 characters).
  const id = randomBase64Url(16);
  // The row expires with the token: `exp` is whole seconds from `iat`, the second nowMs falls in.
  const expiresAtMs = (seconds(nowMs) + lifetimeS) * 1000;
  const created = await createSession(
    db,
    { id, userId: principal.userId, audience, createdAtMs: nowMs, expiresAtMs },
    also,
    passwordHash,
  );
  if (!created) return null;
  const token = await issueToken(
    principal,
    { id, audience },
    keys.secret,
    keys.issuer,
    lifetimeS,
    nowMs,
  );
  return { token, sessionId: id };
}

/**
 * The principal a token of `audience` names while its session is live, else null. The session's
 * state comes from this isolate's cache when it was read less than SESSION_TTL_MS ago (for a write,
 * at the primary: isolate-cache.ts fresh); otherwise from D1 (a session just created may not have
 * reached a replica yet: the primary has the last word).
 */
export async function sessionPrincipal(
  ctx: ServiceContext,
  token: string,
  audience: Audience,
): Promise<Principal | null> {
  const { db } = ctx;
  const nowMs = ctx.nowMs();
  const keys = ctx.tokenKeys();
  const principal = await verifyToken(token, keys.secret, keys.issuer, audience);
  if (!principal) return null;
  const d1 = bindingOf(db);
  const checked = await checkedCredential(
    db,
    "sessions",
    principal.sessionId,
    { ttlMs: SESSION_TTL_MS, nowMs },
    (at) => findSession(at, principal.sessionId),
    (row, read) => ({
      userId: row.userId,
      role: row.role,
      audience: row.audience,
      revoked: row.revokedAtMs !== null || endedHere(d1, row.userId, principal),
      ...read,
    }),
  );
  if (!checked) return null;
  const { cached } = checked;
  // The token is signed, so these hold for every token this service issued; checked all the same.
  if (cached.revoked || cached.userId !== principal.userId || cached.audience !== audience)
    return null;
  learnBookmark(db, cached.learnt);
  // The role is the user's as the database has it now, as a key's is: a token names only who.
  return { ...principal, role: cached.role };
}

/**
 * Ends every session of a user (an operator's "sign out everywhere"): the user, and how many were
 * live. At once in this isolate, within 5 s elsewhere.
 */
export async function endUserSessions(ctx: ServiceContext, ref: UserRef) {
  requireAdmin(ctx, "write");
  const [{ id: userId }] = await requireUsers(ctx.db, [ref]);
  const nowMs = ctx.nowMs();
  const revoked = await revokeSessionsOf(ctx.db, userId, nowMs);
  forgetSessions(
    ctx.d1,
    userId,
    revoked.map((row) => row.id),
  );
  return { userId, revoked: liveOf(revoked, nowMs) };
}
