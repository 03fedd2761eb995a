import { drizzle } from "drizzle-orm/d1";
import * as schema from "./schema";
import { SessionDatabase } from "./session";

/** A Drizzle handle on a D1 binding, or on a request's session of one (db/session.ts). */
export const createDb = (d1: D1Database) => drizzle(d1, { schema });
export type Db = ReturnType<typeof createDb>;

/** The D1 binding behind a handle: what per-isolate state (caches, group commit) is keyed by. */
export const bindingOf = (db: Db) =>
  db.$client instanceof SessionDatabase ? db.$client.database : db.$client;

/** The newest bookmark a handle's session has reached (null outside a session or before a query). */
export const bookmarkOf = (db: Db) =>
  db.$client instanceof SessionDatabase ? db.$client.bookmark() : null;

/** Tells a handle's session that its data reached `bookmark` (a batch written by another request). */
export function learnBookmark(db: Db, bookmark: string | null) {
  if (db.$client instanceof SessionDatabase) db.$client.learn(bookmark);
}

/** Whether a handle's reads may come from a replica (a read-only route's session). */
export const readsReplica = (db: Db) =>
  db.$client instanceof SessionDatabase && db.$client.start === "replica";
