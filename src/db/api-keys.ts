import { and, asc, eq, isNull, sql } from "drizzle-orm";
import type { Db } from "./client";
import { selectList } from "./insert-select";
import { apiKeys, users } from "./schema";
import { sameText } from "./user-texts";

type NewApiKey = typeof apiKeys.$inferInsert;

/** Inserts a key for the user `whose` names (by login, any case, or by id); null when none has it. */
export async function insertApiKey(
  db: Db,
  whose: { username: string } | { userId: number },
  key: Omit<NewApiKey, "userId">,
) {
  const who =
    "userId" in whose
      ? sql`${users.id} = ${whose.userId}`
      : sameText(users.username, whose.username);
  const values = selectList(apiKeys, {
    id: null,
    userId: users.id,
    name: key.name,
    scope: key.scope,
    keyHash: key.keyHash,
    createdAtMs: key.createdAtMs,
    lastUsedAtMs: null,
    revokedAtMs: null,
  });
  const row = sql`SELECT ${values} FROM ${users} WHERE ${who}`;
  const [inserted, owner] = await db.batch([
    db.insert(apiKeys).select(row).returning(),
    db.select({ username: users.username }).from(users).where(who),
  ]);
  return inserted[0] && owner[0] ? { key: inserted[0], username: owner[0].username } : null;
}

export const listApiKeys = (db: Db) =>
  db
    .select({ key: apiKeys, username: users.username })
    .from(apiKeys)
    .innerJoin(users, eq(users.id, apiKeys.userId))
    .orderBy(asc(apiKeys.id));

/** Marks a key revoked (keeping the first revocation time); null when no such key exists. */
export async function revokeApiKey(db: Db, id: number, nowMs: number) {
  const [row] = await db
    .update(apiKeys)
    .set({ revokedAtMs: sql`coalesce(${apiKeys.revokedAtMs}, ${nowMs})` })
    .where(eq(apiKeys.id, id))
    .returning({ id: apiKeys.id });
  return row ?? null;
}

/** The live key with this hash and the user who owns it. */
export const findKeyOwner = (db: Db, keyHash: string) =>
  db
    .select({
      keyId: apiKeys.id,
      scope: apiKeys.scope,
      lastUsedAtMs: apiKeys.lastUsedAtMs,
      userId: apiKeys.userId,
      username: users.username,
      role: users.role,
    })
    .from(apiKeys)
    .innerJoin(users, eq(users.id, apiKeys.userId))
    .where(and(eq(apiKeys.keyHash, keyHash), isNull(apiKeys.revokedAtMs)))
    .get();

export const touchApiKey = (db: Db, id: number, nowMs: number) =>
  db.update(apiKeys).set({ lastUsedAtMs: nowMs }).where(eq(apiKeys.id, id));
