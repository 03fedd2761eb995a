import { type Column, DrizzleQueryError, inArray, type SQL, sql, type Table } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import { drizzle } from "drizzle-orm/d1";
import type { SQLiteColumn, SQLiteTable } from "drizzle-orm/sqlite-core";
import { SessionDatabase } from "./d1-session";
import { unmetered } from "./meter";

/**
 * A Drizzle handle on a D1 binding, or on a request's (metered) session of one (db/d1-session.ts).
 * Without the schema: the queries name their tables (db/schema.ts) and none uses Drizzle's
 * relational `db.query`, whose table map drizzle() would otherwise rebuild for every request's
 * handle.
 */
export const createDb = (d1: D1Database) => drizzle(d1);
export type Db = ReturnType<typeof createDb>;

/**
 * `table INDEXED BY index`, a FROM or JOIN source: the statement reads the table along that index
 * whatever statistics the planner has. A D1 database has them after the `PRAGMA optimize` D1's
 * documentation recommends, local D1 never, and with them SQLite picks plans that read far more
 * for some of the reads here (test/d1-scans.test.ts, test/d1-one-user.test.ts).
 */
export const indexedBy = (table: Table, index: string) =>
  sql`${table} INDEXED BY ${sql.identifier(index)}`;

/**
 * Columns as SQL mapped as the columns map, to select from a table named through `indexedBy`:
 * Drizzle refuses a table's own columns when the table is SQL in the query.
 */
export const columnsAsSql = <C extends Record<string, Column>>(columns: C) =>
  Object.fromEntries(
    Object.entries(columns).map(([key, column]) => [key, sql`${column}`.mapWith(column)]),
  ) as {
    [K in keyof C]: SQL<C[K]["_"]["data"] | (C[K]["_"]["notNull"] extends true ? never : null)>;
  };

/**
 * Deletes up to `most` rows of `table` that `where` holds, each by its `key`, in one statement:
 * the cron's bounded clean-ups. Answers how many went.
 */
export async function deleteUpTo(
  db: Db,
  table: SQLiteTable,
  key: SQLiteColumn,
  where: SQL | undefined,
  most: number,
) {
  const some = db.select({ key }).from(table).where(where).limit(most);
  const gone = await db.delete(table).where(inArray(key, some)).returning({ key });
  return gone.length;
}

/** The request's session behind a handle, through its meter; null for a plain binding. */
const sessionOf = (db: Db) => {
  const d1 = unmetered(db.$client);
  return d1 instanceof SessionDatabase ? d1 : null;
};

/**
 * An error as the log and the service's checks read it: its text, with its cause's, where D1 puts
 * the SQLite message (a CHECK's or trigger's name), and the statement that failed apart. Drizzle
 * words a failed statement "Failed query: <sql>\nparams: <values>", and those values are what the
 * request bound: a key's hash, an e-mail address, a note, a webhook's URL and sealed secret. So
 * only its cause and its SQL (placeholders, no values) are kept; nothing else reads `params`.
 */
export function errorText(err: unknown): { error: string; statement?: string } {
  if (err instanceof DrizzleQueryError) return { error: String(err.cause), statement: err.query };
  const cause = (err as { cause?: unknown } | undefined)?.cause;
  return { error: cause === undefined ? String(err) : `${String(err)} ${String(cause)}` };
}

/** D1's words for a failure, which the checks match (a constraint's or trigger's name). */
export const d1ErrorText = (err: unknown) => errorText(err).error;

/**
 * An error's stack without its message (errorText says that): the frames alone, since a failed
 * statement's stack begins with its bound values. The message is cut off whole before the frames
 * are picked, as a bound value may itself hold a line that reads as a frame ("\n    at …").
 */
export function stackFrames(err: unknown) {
  if (!(err instanceof Error) || err.stack === undefined) return undefined;
  const { stack, message } = err;
  const at = message === "" ? -1 : stack.indexOf(message);
  return (at === -1 ? stack : stack.slice(at + message.length))
    .split("\n")
    .filter((line) => /^\s+at /.test(line))
    .join("\n");
}

/**
 * D1's refusals of a query it could not take now: overloaded, reset (its storage, code, memory or
 * CPU time), timed out, a replica cut off from the primary, or the connection lost (Cloudflare's
 * D1 error list). Retryable; a write's outcome is unknown.
 */
const D1_UNAVAILABLE =
  /D1 DB is overloaded|Too many requests queued|exceeded timeout|caused object to be reset|D1 DB reset|D1 DB(?:'s isolate)? exceeded its|Replica disconnected from primary|Network connection lost|transient issue/i;

export const d1Unavailable = (err: unknown) => D1_UNAVAILABLE.test(d1ErrorText(err));

/** D1 binds at most 100 values to one statement (SQLite's variable limit as D1 sets it). */
const MAX_BOUND_VALUES = 100;

/** `values` in runs of at most `size`, in order: a list longer than one statement binds goes in parts. */
export function inRuns<T>(values: readonly T[], size = MAX_BOUND_VALUES): T[][] {
  const runs: T[][] = [];
  for (let i = 0; i < values.length; i += size) runs.push(values.slice(i, i + size));
  return runs;
}

/**
 * D1 calls one Worker invocation spends in a loop that may run long (a whole history's or
 * statement's reads, the webhook consumer's deliveries). Workers Paid allows an invocation 1,000
 * D1 queries (Cloudflare's D1 limits), and past them every call fails; the rest is for the
 * request's other calls (a few: test/d1-budget.test.ts) and what a loop makes once it is spent.
 */
export const D1_CALL_BUDGET = 800;

/**
 * The most rows one keyset read asks for. Each read asks for twice the rows of the one before, up
 * to this: a long read takes few queries (D1_CALL_BUDGET), and holds at most this many rows, and
 * their text, at a time (BENCHMARKS.md#memory-of-the-history-stream).
 */
export const KEYSET_CHUNK_MAX = 2_000;

/** Rows the keyset read after one of `size` rows asks for. */
const grown = (size: number) => Math.max(size, Math.min(2 * size, KEYSET_CHUNK_MAX));

/**
 * Rows a chunk at a time: `first` (read asking for `size` rows), then each chunk `next` reads after
 * the last row of the one before (a keyset read), asking for more rows each time (`grown`), until a
 * chunk comes short. The next chunk is read only once the one before is taken.
 */
export async function* keysetChunks<R>(
  first: R[],
  size: number,
  next: (last: R, size: number) => Promise<R[]>,
) {
  for (let rows = first, asked = size; rows.length > 0; ) {
    yield rows;
    if (rows.length < asked) return;
    asked = grown(asked);
    rows = await next(rows.at(-1)!, asked);
  }
}

/**
 * The most rows keysetChunks reads in `reads` reads, the first asking for `first`: one less than
 * the reads can hold, since a read that comes full is followed by another.
 */
export function keysetRowsWithin(first: number, reads: number) {
  let rows = 0;
  for (let i = 0, size = first; i < reads; i++, size = grown(size)) rows += size;
  return rows - 1;
}

/** The D1 binding behind a handle: what per-isolate state (caches, group commit) is keyed by. */
export const bindingOf = (db: Db): D1Database => sessionOf(db)?.database ?? unmetered(db.$client);

/** The newest bookmark a handle's session has reached (null outside a session or before a query). */
export const bookmarkOf = (db: Db) => sessionOf(db)?.bookmark() ?? null;

/** Tells a handle's session that its data reached `bookmark` (a batch written by another request). */
export function learnBookmark(db: Db, bookmark: string | null) {
  sessionOf(db)?.learn(bookmark);
}

/**
 * A handle that reads at the primary, for a write whose outcome is unknown (a lost batch: D1 may
 * have committed it, and the request's session never learnt the bookmark, so a replica might not
 * have it yet): a new session of the same binding, started at the primary. `done` hands the
 * bookmark it reached to the request's session, so the answer's bookmark covers what was read,
 * and answers it.
 */
export function atPrimary(db: Db): { db: Db; done: () => string | null } {
  if (sessionOf(db) === null) return { db, done: () => null }; // a plain binding reads the primary
  const session = new SessionDatabase(bindingOf(db), "primary", null);
  return {
    db: createDb(session),
    done: () => {
      const reached = session.bookmark();
      learnBookmark(db, reached);
      return reached;
    },
  };
}

/** Whether a handle's reads may come from a replica (a read-only route's session). */
export const readsReplica = (db: Db) => sessionOf(db)?.start === "replica";

/**
 * What `read` finds through the handle, else, if it reads a replica, at the primary: a row written
 * a moment ago (an API key, a session) may not have reached the replica yet. Found only there, the
 * replica is behind that row, so the request reads on at least as new as the primary was: a user
 * who has just signed in, or a key just made, finds the rows written before it (the user itself).
 * `learnt` is the bookmark a read at the primary reached (a write's read, or one the replica
 * lacked), else null, for a cache of the row to hand on to the requests it serves, which may read a
 * replica behind that row. Never a replica's: that may be a bookmark the client made up.
 */
export async function orAtPrimary<T>(db: Db, read: (db: Db) => Promise<T | undefined>) {
  const row = await read(db);
  if (!readsReplica(db)) return { row, learnt: row === undefined ? null : bookmarkOf(db) };
  if (row !== undefined) return { row, learnt: null };
  const primary = atPrimary(db);
  const found = await read(primary.db);
  return { row: found, learnt: found === undefined ? null : primary.done() };
}

/** Like queries in one round trip (D1's batch), their results in order; none for an empty list. */
export async function batchAll<Q extends BatchItem<"sqlite">>(db: Db, queries: Q[]) {
  const [first, ...rest] = queries;
  return first === undefined ? [] : db.batch([first, ...rest]);
}
