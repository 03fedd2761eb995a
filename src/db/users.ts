import { and, count, eq, inArray, or, sql } from "drizzle-orm";
import { bindingOf, type Db, inRuns } from "./client";
import { forgetUser, isolateCache } from "./isolate-cache";
import { apiKeys, balances, PASSWORD_USABLE_SQL, sessions, transactions, users } from "./schema";
import { newUserClashes, newUserTextsFree, sameText } from "./user-texts";

export type UserRow = typeof users.$inferSelect;

/** Whether a user's password is usable (schema.ts UNUSABLE_MARK): only such a user signs in. */
export const passwordUsable = sql.raw(PASSWORD_USABLE_SQL);

/** Users by id with their usernames, from the isolate's cache once seen (usernames never change). */
export async function findUsers(db: Db, ids: number[]) {
  const cache = isolateCache(bindingOf(db)).usernames;
  const found = new Map<number, { id: number; username: string }>();
  for (const id of ids) {
    const username = cache.get(id);
    if (username !== undefined) found.set(id, { id, username });
  }
  const missing = [...new Set(ids.filter((id) => !found.has(id)))];
  if (missing.length === 0) return found;
  const runs = inRuns(missing).map((run) =>
    db.select({ id: users.id, username: users.username }).from(users).where(inArray(users.id, run)),
  );
  const rows = (await Promise.all(runs)).flat();
  for (const row of rows) {
    cache.set(row.id, row.username);
    found.set(row.id, row);
  }
  return found;
}

/**
 * The account a login text names (a sign-in in either dialect, a plugin user reference): the one
 * rule (docs/security.md#usernames-and-e-mails). A text containing `@` names the account whose
 * e-mail it is and, only when no account has that e-mail, the account with that username (an
 * imported WordPress username can be an e-mail text); a text without `@` names the account with
 * that username. Case-insensitively, through the lower() unique indexes. New accounts cannot make
 * a text name two accounts (newUserTextsFree); where an import brought such a pair in, the e-mail's
 * owner is named, whichever password is given.
 */
async function findLoginUser(db: Db, login: string): Promise<UserRow | undefined> {
  return loginUser(db, login).get();
}

/** The accounts these login texts name, in their order (findLoginUser's rule), in one round trip. */
export async function findLoginUsers(db: Db, [first, ...rest]: [string, ...string[]]) {
  const named = await db.batch([loginUser(db, first), ...rest.map((l) => loginUser(db, l))]);
  return named.map((rows) => rows[0]);
}

function loginUser(db: Db, login: string) {
  const named = login.includes("@")
    ? or(sameText(users.email, login), sameText(users.username, login))
    : sameText(users.username, login);
  return db
    .select()
    .from(users)
    .where(named)
    .orderBy(sql`${sameText(users.email, login)} DESC`)
    .limit(1);
}

/** One row saying why a new account with this username and e-mail would be refused, if it would. */
const clashFlags = (db: Db, username: string, email: string) => {
  const c = newUserClashes(username, email);
  return db
    .select({
      username: c.username.mapWith(Boolean),
      email: c.email.mapWith(Boolean),
      usernameNotOwnEmail: c.usernameNotOwnEmail.mapWith(Boolean),
    })
    .from(sql`(SELECT 1)`);
};

export type Clashes = { username: boolean; email: boolean; usernameNotOwnEmail: boolean };

/**
 * Why a new account could not have this username and e-mail: either names an account already (as
 * its username or its e-mail), or the username is an e-mail address other than its own e-mail.
 */
export async function findClashes(db: Db, username: string, email: string): Promise<Clashes> {
  return (await clashFlags(db, username, email))[0]!;
}

type NewUser = Omit<typeof users.$inferInsert, "id">;

/**
 * Inserts a user unless its username or e-mail would name another account (newUserTextsFree), and
 * says why not: the check is the insert's own WHERE, so of two concurrent creations that would
 * clash exactly one inserts (the unique indexes back up the same-column half).
 */
export async function insertUserIfFree(db: Db, u: NewUser) {
  // Every column of users in table order (the last, email_verified_at_ms: a new user is unverified).
  const row = sql`SELECT NULL, ${u.username}, ${u.email}, ${u.passwordHash}, ${u.firstName ?? ""}, ${u.lastName ?? ""}, ${u.role},
    ${u.registeredAtMs}, NULL WHERE ${newUserTextsFree(u.username, u.email)}`;
  const [inserted, flags] = await db.batch([
    db.insert(users).select(row).onConflictDoNothing().returning({ id: users.id }),
    clashFlags(db, u.username, u.email),
  ]);
  return { id: inserted[0]?.id, clashes: flags[0]! };
}

/**
 * Replaces a user's password hash, unless it changed since it was read (compare and set): a
 * statement for a batch (the sign-in's, beside its session), or to await alone.
 */
export const replacePasswordHash = (db: Db, id: number, previous: string, next: string) =>
  db
    .update(users)
    .set({ passwordHash: next })
    .where(and(eq(users.id, id), eq(users.passwordHash, previous)));

/**
 * A user by id, or by a login text (findLoginUser's rule): one query, and a second for the text's
 * other form (`orLogin`) only when nobody has the first.
 */
export async function findUserBy(
  db: Db,
  ref: { id: number } | { login: string; orLogin?: string },
): Promise<UserRow | undefined> {
  if ("login" in ref)
    return (
      (await findLoginUser(db, ref.login)) ??
      (ref.orLogin === undefined ? undefined : await findLoginUser(db, ref.orLogin))
    );
  return db.select().from(users).where(eq(users.id, ref.id)).get();
}

/** One page of users ordered by username, as WP_User_Query's default, and how many there are. */
export async function listUsersPage(db: Db, offset: number, limit: number) {
  const [rows, total] = await db.batch([
    db
      .select()
      .from(users)
      .orderBy(sql`lower(${users.username})`, users.id)
      .limit(limit)
      .offset(offset),
    db.select({ n: count() }).from(users),
  ]);
  return { rows, total: total[0]?.n ?? 0 };
}

/**
 * Deletes a user that no entry (and so no balance row) names and that is not the last
 * administrator (the service would have nobody left to run it; one whose password is marked
 * unusable, which no sign-in opens, is nobody), with its API keys and sessions
 * (their foreign keys name it), in one batch whose every DELETE carries the same guard: D1 runs a
 * batch with no other write in between, so either all of it happens or none. An entry racing it
 * commits first (the user stays) or finds the user gone (its insert fails the foreign key); of the
 * last two administrators deleting each other, the second finds itself the last. This isolate
 * forgets the user, its keys and sessions at once.
 */
export async function deleteUserIfUnused(db: Db, id: number) {
  const used = sql<number>`EXISTS (SELECT 1 FROM ${transactions} WHERE ${transactions.userId} = ${id})
    OR EXISTS (SELECT 1 FROM ${balances} WHERE ${balances.userId} = ${id})`;
  const lastAdministrator = sql`EXISTS (SELECT 1 FROM ${users} WHERE ${users.id} = ${id}
    AND ${users.role} = 'administrator')
    AND NOT EXISTS (SELECT 1 FROM ${users} WHERE ${users.role} = 'administrator'
    AND ${users.id} <> ${id} AND ${passwordUsable})`;
  const deletable = sql`NOT (${used}) AND NOT (${lastAdministrator})`;
  const [, , deleted, still] = await db.batch([
    db.delete(apiKeys).where(and(eq(apiKeys.userId, id), deletable)),
    db.delete(sessions).where(and(eq(sessions.userId, id), deletable)),
    db
      .delete(users)
      .where(and(eq(users.id, id), deletable))
      .returning({ id: users.id }),
    db.select({ used }).from(users).where(eq(users.id, id)),
  ]);
  forgetUser(bindingOf(db), id, deleted.length > 0);
  if (deleted.length > 0) return "deleted";
  if (still.length === 0) return "not-found";
  return still[0]!.used ? "has-entries" : "last-administrator";
}
