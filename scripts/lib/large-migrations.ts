// What `npm run deploy` knows of the migrations D1 may not finish on a large database.

/** D1's limit on one query, which applies to a whole `d1 migrations apply --remote` migration. */
export const D1_QUERY_LIMIT_S = 30;

/**
 * The migrations that rewrite every entry (and its event and balance point), with the seconds each
 * took a million entries applied locally, rounded up (docs/deploying.md#upgrading-a-large-database).
 */
export const REWRITES_EVERY_ENTRY: Record<string, number> = {
  "0005_unique_slugs_ascii_keys.sql": 23,
  "0006_lossless_import.sql": 11,
  "0010_balance_timeline.sql": 4,
  "0018_plain_integer_ids.sql": 20,
};
