import { drizzle } from "drizzle-orm/d1";
import { unmetered } from "./meter";
import { SessionDatabase } from "./session";

/**
 * A Drizzle handle on a D1 binding, or on a request's (metered) session of one (db/session.ts).
 * Without the schema: the queries name their tables (db/schema.ts) and none uses Drizzle's
 * relational `db.query`, whose table map drizzle() would otherwise rebuild for every request's
 * handle (5% of a balance read's CPU, issue 24).
 */
export const createDb = (d1: D1Database) => drizzle(d1);
export type Db = ReturnType<typeof createDb>;

/** The request's session behind a handle, through its meter; null for a plain binding. */
const sessionOf = (db: Db) => {
  const d1 = unmetered(db.$client);
  return d1 instanceof SessionDatabase ? d1 : null;
};

/** The D1 binding behind a handle: what per-isolate state (caches, group commit) is keyed by. */
export const bindingOf = (db: Db): D1Database => sessionOf(db)?.database ?? unmetered(db.$client);

/** The newest bookmark a handle's session has reached (null outside a session or before a query). */
export const bookmarkOf = (db: Db) => sessionOf(db)?.bookmark() ?? null;

/** Tells a handle's session that its data reached `bookmark` (a batch written by another request). */
export function learnBookmark(db: Db, bookmark: string | null) {
  sessionOf(db)?.learn(bookmark);
}

/** Whether a handle's reads may come from a replica (a read-only route's session). */
export const readsReplica = (db: Db) => sessionOf(db)?.start === "replica";
