// The queries behind mailed links (docs/mail.md): one-use tokens, what using one does, and the dev
// outbox. A link's use is one batch whose statements all test the same token, so the work is done
// exactly when the token is consumed, and two uses cannot both succeed.
import { and, desc, eq, inArray, isNotNull, isNull, lte, sql } from "drizzle-orm";
import { type Db, deleteUpTo } from "./client";
import { mailOutbox, mailTokens, users } from "./schema";
import { EXPIRED_PER_PASS, liveOf, revokeSessionsOf } from "./sessions";
import { sameText } from "./user-texts";
import { passwordUsable } from "./users";

export type MailPurpose = (typeof mailTokens.$inferSelect)["purpose"];

// Expired tokens deleted with each new request: bounded, whoever they were for.
const PRUNE_PER_REQUEST = 100;

/**
 * Records a request for a mail: one batch that prunes up to PRUNE_PER_REQUEST expired tokens and
 * stores this one (by its hash), for the account that has `email` (case-insensitively, the lower()
 * unique index) and, for a verification, has not verified it yet, for a reset, has a usable
 * password (passwordUsable); for none, with a null user. The same statements and the same one row
 * either way, so the writes tell nobody whether an account has the address. Answers the user the
 * token is for (null for none) and the address to mail.
 */
export async function recordMailRequest(
  db: Db,
  row: Omit<typeof mailTokens.$inferInsert, "userId">,
  outbox?: { subject: string; text: string },
): Promise<{ userId: number | null; email: string }> {
  const account = (column: typeof users.id | typeof users.email) =>
    sql`(SELECT ${column} FROM ${users} WHERE ${sameText(users.email, row.email)} AND ${
      row.purpose === "verify-email" ? isNull(users.emailVerifiedAtMs) : passwordUsable
    })`;
  const expired = db
    .select({ hash: mailTokens.tokenHash })
    .from(mailTokens)
    .where(lte(mailTokens.expiresAtMs, row.createdAtMs))
    .limit(PRUNE_PER_REQUEST);
  const [, stored] = await db.batch([
    db.delete(mailTokens).where(inArray(mailTokens.tokenHash, expired)),
    db
      .insert(mailTokens)
      .values({
        ...row,
        userId: account(users.id),
        email: sql`coalesce(${account(users.email)}, ${row.email})`,
      })
      .returning({ userId: mailTokens.userId, email: mailTokens.email }),
    ...(outbox ? outboxStatements(db, row.tokenHash, outbox, row.createdAtMs) : []),
  ]);
  return stored[0]!;
}

/**
 * Deletes up to EXPIRED_PER_PASS expired tokens, used or not (by the expiry index): the cron's
 * hourly pass, for those no later mail request pruned. Answers how many went.
 */
export const deleteExpiredMailTokens = (db: Db, nowMs: number) =>
  deleteUpTo(
    db,
    mailTokens,
    mailTokens.tokenHash,
    lte(mailTokens.expiresAtMs, nowMs),
    EXPIRED_PER_PASS,
  );

/**
 * Whether a live token of `purpose` has this hash, as its row's user (null: none has the address;
 * undefined: no live token): read before any work its use would cost.
 */
export const findLiveToken = async (
  db: Db,
  tokenHash: string,
  purpose: MailPurpose,
  nowMs: number,
) => (await liveTokenUser(db, tokenHash, purpose, nowMs).get())?.userId;

/**
 * The user of a live token of `purpose`: unused, unexpired, and mailed to the address the user
 * still has; for a reset, while the user's password is usable. A scalar subquery, so each
 * statement of a use's batch tests the token itself.
 */
const liveTokenUser = (db: Db, tokenHash: string, purpose: MailPurpose, nowMs: number) =>
  db
    .select({ userId: mailTokens.userId })
    .from(mailTokens)
    .innerJoin(users, eq(users.id, mailTokens.userId))
    .where(
      and(
        eq(mailTokens.tokenHash, tokenHash),
        eq(mailTokens.purpose, purpose),
        isNull(mailTokens.usedAtMs),
        sql`${mailTokens.expiresAtMs} > ${nowMs}`,
        sameText(mailTokens.email, users.email),
        purpose === "password-reset" ? passwordUsable : undefined,
      ),
    );

/** Uses the token if it is live: the last statement of a use's batch, its answer. */
const consume = (
  db: Db,
  tokenHash: string,
  live: ReturnType<typeof liveTokenUser>,
  nowMs: number,
) =>
  db
    .update(mailTokens)
    .set({ usedAtMs: nowMs })
    .where(and(eq(mailTokens.tokenHash, tokenHash), inArray(mailTokens.userId, live)))
    .returning({ userId: sql<number>`${mailTokens.userId}`, email: mailTokens.email });

/** Marks the address verified and uses the token, or does nothing: the user's id and address. */
export async function useVerifyToken(db: Db, tokenHash: string, nowMs: number) {
  const live = liveTokenUser(db, tokenHash, "verify-email", nowMs);
  const [, used] = await db.batch([
    db
      .update(users)
      .set({ emailVerifiedAtMs: sql`coalesce(${users.emailVerifiedAtMs}, ${nowMs})` })
      .where(inArray(users.id, live)),
    consume(db, tokenHash, live, nowMs),
  ]);
  return used[0];
}

/**
 * Sets the password, revokes every session of the user, retires its other reset tokens and uses
 * this one, or does nothing: the user's id, how many sessions were live, the ids of all it revoked.
 */
export async function useResetToken(
  db: Db,
  tokenHash: string,
  passwordHash: string,
  nowMs: number,
) {
  const live = liveTokenUser(db, tokenHash, "password-reset", nowMs);
  const [, revoked, , used] = await db.batch([
    db.update(users).set({ passwordHash }).where(inArray(users.id, live)),
    revokeSessionsOf(db, live, nowMs),
    db
      .update(mailTokens)
      .set({ usedAtMs: nowMs })
      .where(
        and(
          inArray(mailTokens.userId, live),
          eq(mailTokens.purpose, "password-reset"),
          isNull(mailTokens.usedAtMs),
          sql`${mailTokens.tokenHash} <> ${tokenHash}`,
        ),
      ),
    consume(db, tokenHash, live, nowMs),
  ]);
  const user = used[0];
  return (
    user && {
      ...user,
      liveSessions: liveOf(revoked, nowMs),
      revokedSessions: revoked.map((row) => row.id),
    }
  );
}

// The outbox keeps the newest OUTBOX_KEEP mails; older ones go as new ones arrive.
export const OUTBOX_KEEP = 200;

/**
 * The dev outbox's part of a mail request's batch: the mail kept for the token's account, if it
 * has one (to the address the token stored), and the outbox pruned, either way.
 */
function outboxStatements(
  db: Db,
  tokenHash: string,
  mail: { subject: string; text: string },
  nowMs: number,
) {
  const kept = db
    .select({ id: mailOutbox.id })
    .from(mailOutbox)
    .orderBy(desc(mailOutbox.id))
    .limit(OUTBOX_KEEP - 1);
  return [
    db.delete(mailOutbox).where(sql`${mailOutbox.id} NOT IN ${kept}`),
    db.insert(mailOutbox).select(
      db
        .select({
          id: sql`NULL`.as("id"),
          toAddress: mailTokens.email,
          subject: sql`${mail.subject}`.as("subject"),
          bodyText: sql`${mail.text}`.as("body_text"),
          createdAtMs: sql`${nowMs}`.as("created_at_ms"),
        })
        .from(mailTokens)
        .where(and(eq(mailTokens.tokenHash, tokenHash), isNotNull(mailTokens.userId))),
    ),
  ] as const;
}

/** The outbox, newest first. */
export const listOutbox = (db: Db) =>
  db.select().from(mailOutbox).orderBy(desc(mailOutbox.id)).limit(OUTBOX_KEEP);
