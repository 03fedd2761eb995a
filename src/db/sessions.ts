// Sign-in sessions (docs/security.md#sessions): created at sign-in, looked up on each use of a token
// (through the isolate cache, wallet/sessions.ts), revoked by sign-out and by an operator.

import { and, eq, inArray, isNull, lte, type SQLWrapper, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import { type Db, deleteUpTo } from "./client";
import { selectList } from "./insert-select";
import { sessions, users } from "./schema";

export type Audience = (typeof sessions.$inferSelect)["audience"];
type NewSession = Omit<typeof sessions.$inferInsert, "revokedAtMs">;

// Expired rows of the user deleted at each of its sign-ins: bounded, so a sign-in costs the same
// however long the user has been away, and a user signing in keeps at most its live sessions plus
// what the next sign-ins will clear.
export const PRUNE_PER_SIGN_IN = 100;

/**
 * Writes a session and deletes up to PRUNE_PER_SIGN_IN of the user's expired ones, with `also`
 * (the sign-in's other writes) in the same batch: one round trip. With `passwordHash` (the hash a
 * sign-in checked the password against), the session is written only while the user still exists
 * with that hash: a password reset or a deletion that landed after the check leaves no session
 * behind (and no foreign-key failure). Answers whether the session was written.
 */
export async function createSession(
  db: Db,
  row: NewSession,
  also: BatchItem<"sqlite">[],
  passwordHash?: string,
) {
  const expired = db
    .select({ id: sessions.id })
    .from(sessions)
    .where(and(eq(sessions.userId, row.userId), lte(sessions.expiresAtMs, row.createdAtMs)))
    .limit(PRUNE_PER_SIGN_IN);
  const values = selectList(sessions, { ...row, revokedAtMs: null });
  const insert =
    passwordHash === undefined
      ? db.insert(sessions).values(row).returning({ id: sessions.id })
      : db
          .insert(sessions)
          .select(
            sql`SELECT ${values} FROM ${users} WHERE ${users.id} = ${row.userId} AND ${users.passwordHash} = ${passwordHash}`,
          )
          .returning({ id: sessions.id });
  const [inserted] = await db.batch([
    insert,
    db.delete(sessions).where(inArray(sessions.id, expired)),
    ...also,
  ]);
  return inserted.length === 1;
}

/** Expired sessions the cron's hourly pass deletes at the most (a statement's worth). */
export const EXPIRED_PER_PASS = 5_000;

/**
 * Deletes up to EXPIRED_PER_PASS expired sessions of any user: the cron's hourly pass, for the
 * users who never sign in again, whose rows no sign-in prunes. No index orders the table by expiry
 * alone (every sign-in would write a row to it), so it reads the whole table: once an hour, not each
 * minute. A row goes at its expiry, when its token stops verifying anyway. Answers how many went.
 */
export const deleteExpiredSessions = (db: Db, nowMs: number) =>
  deleteUpTo(db, sessions, sessions.id, lte(sessions.expiresAtMs, nowMs), EXPIRED_PER_PASS);

/**
 * A session by id: its owner and the owner's role now, its kind and whether it was revoked;
 * undefined when there is none (or its user is gone).
 */
export const findSession = (db: Db, id: string) =>
  db
    .select({
      userId: sessions.userId,
      role: users.role,
      audience: sessions.audience,
      revokedAtMs: sessions.revokedAtMs,
    })
    .from(sessions)
    .innerJoin(users, eq(users.id, sessions.userId))
    .where(eq(sessions.id, id))
    .get();

/** Revokes one session (keeping the first revocation time); whether it was live until now. */
export async function revokeSession(db: Db, id: string, nowMs: number) {
  const rows = await db
    .update(sessions)
    .set({ revokedAtMs: nowMs })
    .where(and(eq(sessions.id, id), isNull(sessions.revokedAtMs)))
    .returning({ id: sessions.id });
  return rows.length === 1;
}

/**
 * Revokes every session not yet revoked of a user, or of the users a query selects, of every kind:
 * their ids (for isolate-cache.ts forgetSessions); run them through `liveOf` for how many had not
 * expired (the token's own `exp`, checked on the runtime's clock, has the last word on expiry, so a
 * row not yet pruned is revoked too).
 */
export const revokeSessionsOf = (db: Db, user: number | SQLWrapper, nowMs: number) =>
  db
    .update(sessions)
    .set({ revokedAtMs: nowMs })
    .where(
      and(
        typeof user === "number" ? eq(sessions.userId, user) : inArray(sessions.userId, user),
        isNull(sessions.revokedAtMs),
      ),
    )
    .returning({ id: sessions.id, expiresAtMs: sessions.expiresAtMs });

/** How many of the sessions `revokeSessionsOf` revoked had not expired. */
export const liveOf = (revoked: { expiresAtMs: number }[], nowMs: number) =>
  revoked.filter((row) => row.expiresAtMs > nowMs).length;
