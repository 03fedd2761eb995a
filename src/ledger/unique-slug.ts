import { type Placeholder, type SQL, sql } from "drizzle-orm";
import { transactions } from "../db/schema";
import { SLUG_MAX } from "./post-format";

/**
 * WordPress's wp_unique_post_slug as one SQL expression: `base` when no entry has that slug, else
 * the first free `base-N` for N = 2, 3, … (the base cut so the whole stays within SLUG_MAX, as
 * _truncate_post_slug does), probing the actual slugs through the UNIQUE index, which backs it
 * (`slug <> ''` repeats the partial index's condition, so SQLite's planner may use it). The ledger's
 * entries and the WordPress import's (which passes `base` as an SQL literal) take their slugs here.
 */
export function uniqueSlug(base: string | SQL | Placeholder) {
  const candidate = (n: SQL) =>
    sql`rtrim(substr(${base}, 1, ${SLUG_MAX - 1} - length(${n})), '-') || '-' || ${n}`;
  return sql`(WITH RECURSIVE probe(n) AS (
      SELECT 2 WHERE EXISTS (SELECT 1 FROM ${transactions} WHERE slug = ${base} AND slug <> '')
      UNION ALL
      SELECT n + 1 FROM probe WHERE EXISTS (SELECT 1 FROM ${transactions} WHERE slug = ${candidate(sql`n`)} AND slug <> '')
    ) SELECT coalesce(${candidate(sql`max(n)`)}, ${base}) FROM probe)`;
}
