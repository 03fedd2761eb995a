import { sql } from "drizzle-orm";
import { type Db, d1ErrorText } from "./client";
import { LATEST_MIGRATION } from "./latest-migration";

/**
 * D1's answer to a query when the schema is older than the code: a table or column it lacks (an
 * INSERT names the column it lacks in other words).
 */
const SCHEMA_BEHIND = /no such (table|column)|has no column named/i;

export const schemaBehind = (err: unknown) => SCHEMA_BEHIND.test(d1ErrorText(err));

/** What the log says of a database behind its code, and what to do. */
export const NOT_MIGRATED =
  "D1 lacks a migration this code needs: run npm run db:migrate -- --remote";

/** What wrangler's record of applied migrations says of this code's schema. */
type Migrations = {
  /** The newest migration this code needs is applied. */
  applied: boolean;
  /**
   * Those applied after it, which this code does not know: it was rolled back after a newer
   * migration reached D1. It still runs on that schema (docs/operations.md#get-health).
   */
  unknown: string[];
};

/**
 * D1's migrations by wrangler's record of them (`d1_migrations`, which `wrangler d1 migrations
 * apply` keeps, in name order); one query. Throws what D1 threw when it does not answer.
 */
export async function migrations(db: Db): Promise<Migrations> {
  let names: string[];
  try {
    const rows = await db.all<{ name: string }>(
      sql`SELECT name FROM d1_migrations WHERE name >= ${LATEST_MIGRATION} ORDER BY name`,
    );
    names = rows.map((row) => row.name);
  } catch (err) {
    // A database no migration ever reached has no record either.
    if (/no such table: d1_migrations/.test(d1ErrorText(err)))
      return { applied: false, unknown: [] };
    throw err;
  }
  return {
    applied: names.includes(LATEST_MIGRATION),
    unknown: names.filter((name) => name !== LATEST_MIGRATION),
  };
}

/** Whether D1 has every migration this code needs applied (what `migrations` says). */
export const migrated = async (db: Db) => (await migrations(db)).applied;

/** Databases this isolate found fully migrated: a schema only moves forward, so each is asked once. */
const migratedBindings = new WeakSet<D1Database>();

/**
 * Whether `binding` has every migration this code needs, asked through `db` (a request's session on
 * it, say) until this isolate has found it so once.
 */
export async function migratedOnce(binding: D1Database, db: Db) {
  if (migratedBindings.has(binding)) return true;
  if (!(await migrated(db))) return false;
  migratedBindings.add(binding);
  return true;
}
