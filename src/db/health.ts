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

/**
 * Whether D1 has every migration applied, by wrangler's record of them (`d1_migrations`, which
 * `wrangler d1 migrations apply` keeps); one query. Throws what D1 threw when it does not answer.
 */
export async function migrated(db: Db): Promise<boolean> {
  try {
    return (
      (await db.get(sql`SELECT 1 FROM d1_migrations WHERE name = ${LATEST_MIGRATION}`)) !==
      undefined
    );
  } catch (err) {
    // A database no migration ever reached has no record either.
    if (/no such table: d1_migrations/.test(d1ErrorText(err))) return false;
    throw err;
  }
}
