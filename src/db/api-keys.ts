import { and, asc, eq, isNull, sql } from "drizzle-orm";
import type { Db } from "./client";
import { apiKeys, users } from "./schema";

export type NewApiKey = typeof apiKeys.$inferInsert;

export async function insertApiKey(db: Db, key: NewApiKey) {
  const [row] = await db.insert(apiKeys).values(key).returning();
  return row!;
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
    .select({ keyId: apiKeys.id, scope: apiKeys.scope, lastUsedAtMs: apiKeys.lastUsedAtMs, userId: users.id, username: users.username, role: users.role })
    .from(apiKeys)
    .innerJoin(users, eq(users.id, apiKeys.userId))
    .where(and(eq(apiKeys.keyHash, keyHash), isNull(apiKeys.revokedAtMs)))
    .get();

export const touchApiKey = (db: Db, id: number, nowMs: number) =>
  db.update(apiKeys).set({ lastUsedAtMs: nowMs }).where(eq(apiKeys.id, id));
