import { eq, inArray, or, sql } from "drizzle-orm";
import type { Db } from "./client";
import { users } from "./schema";

// Usernames and e-mails compare case-insensitively through the lower() unique indexes.
const sameText = (column: typeof users.username | typeof users.email, value: string) => sql`lower(${column}) = lower(${value})`;

export async function findUser(db: Db, id: number) {
  return db.query.users.findFirst({ columns: { id: true, username: true }, where: eq(users.id, id) });
}

export async function findUsers(db: Db, ids: number[]) {
  const rows = await db.select({ id: users.id, username: users.username }).from(users).where(inArray(users.id, ids));
  return new Map(rows.map((u) => [u.id, u]));
}

/** The user a login names, by e-mail or username (an e-mail match wins, as wp_authenticate does). */
export async function findLoginUser(db: Db, login: string) {
  return db
    .select()
    .from(users)
    .where(or(sameText(users.email, login), sameText(users.username, login)))
    .orderBy(sql`${sameText(users.email, login)} DESC`)
    .get();
}

export const findUserByUsername = (db: Db, username: string) =>
  db.select({ id: users.id, username: users.username }).from(users).where(sameText(users.username, username)).get();

export async function findTakenFields(db: Db, username: string, email: string) {
  const rows = await db
    .select({ username: sameText(users.username, username).mapWith(Boolean), email: sameText(users.email, email).mapWith(Boolean) })
    .from(users)
    .where(or(sameText(users.username, username), sameText(users.email, email)));
  return { username: rows.some((r) => r.username), email: rows.some((r) => r.email) };
}

export type NewUser = typeof users.$inferInsert;

/** Inserts a user; a concurrent twin loses on the unique indexes and gets back which one. */
export async function insertUser(db: Db, user: NewUser): Promise<{ id: number } | { taken: "username" | "email" }> {
  try {
    const [row] = await db.insert(users).values(user).returning({ id: users.id });
    return row!;
  } catch (err) {
    const text = String((err as Error & { cause?: unknown }).cause ?? err);
    if (text.includes("users_username_ci") || text.includes("users.username")) return { taken: "username" };
    if (text.includes("users_email_ci") || text.includes("users.email")) return { taken: "email" };
    throw err;
  }
}
