// Sign-in sessions (docs/security.md#sessions): created at sign-in, looked up on each use of a token
// (through the isolate cache, wallet/sessions.ts), revoked by sign-out and by an operator.

import { and, eq, inArray, isNull, lte } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { Db } from "./client";
import { sessions } from "./schema";

export type Audience = (typeof sessions.$inferSelect)["audience"];
export type NewSession = Omit<typeof sessions.$inferInsert, "revokedAtMs">;

// Expired rows of the user deleted at each of its sign-ins: bounded, so a sign-in costs the same
// however long the user has been away, and a user signing in keeps at most its live sessions plus
// what the next sign-ins will clear.
export const PRUNE_PER_SIGN_IN = 100;

/**
 * Writes a session and deletes up to PRUNE_PER_SIGN_IN of the user's expired ones, with `also`
 * (the sign-in's other writes) in the same batch: one round trip.
 */
export async function createSession(db: Db, row: NewSession, also: BatchItem<"sqlite">[] = []) {
  const expired = db
    .select({ id: sessions.id })
    .from(sessions)
    .where(and(eq(sessions.userId, row.userId), lte(sessions.expiresAtMs, row.createdAtMs)))
    .limit(PRUNE_PER_SIGN_IN);
  await db.batch([
    db.insert(sessions).values(row),
    db.delete(sessions).where(inArray(sessions.id, expired)),
    ...also,
  ]);
}

/** A session by id: its owner, its kind and whether it was revoked; undefined when there is none. */
export const findSession = (db: Db, id: string) =>
  db
    .select({
      userId: sessions.userId,
      audience: sessions.audience,
      revokedAtMs: sessions.revokedAtMs,
    })
    .from(sessions)
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
 * Revokes every session of a user not yet revoked, of every kind; how many of them had not expired
 * (the token's own `exp`, checked on the runtime's clock, has the last word on expiry, so a row
 * not yet pruned is revoked too).
 */
export async function revokeUserSessions(db: Db, userId: number, nowMs: number) {
  const rows = await db
    .update(sessions)
    .set({ revokedAtMs: nowMs })
    .where(and(eq(sessions.userId, userId), isNull(sessions.revokedAtMs)))
    .returning({ expiresAtMs: sessions.expiresAtMs });
  return rows.filter((row) => row.expiresAtMs > nowMs).length;
}
