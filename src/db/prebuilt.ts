import { fillPlaceholders, type Query } from "drizzle-orm";
import type { Db } from "./client";

const built = new Map<string, Query>();

/**
 * The text of a statement Drizzle builds once per isolate for each `shape` (a name unique to the
 * statement and its form), with placeholders for its values. Drizzle spends more CPU building a
 * select or an insert than local D1 takes to run it (BENCHMARKS.md), and the hot statements have
 * few shapes.
 */
export function builtOnce(shape: string, build: () => { toSQL(): Query }) {
  let query = built.get(shape);
  if (query === undefined) {
    query = build().toSQL();
    built.set(shape, query);
  }
  return query;
}

/** `builtOnce`'s statement with `values` in its placeholders, on the request's handle and meter. */
export function prebuilt(
  db: Db,
  shape: string,
  build: () => { toSQL(): Query },
  values: Record<string, unknown>,
) {
  const query = builtOnce(shape, build);
  return db.$client.prepare(query.sql).bind(...fillPlaceholders(query.params, values));
}
