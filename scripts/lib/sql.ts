// SQL text for statements the tools write into files or pass to `wrangler d1 execute`, where no
// parameters can be bound. Column names and their order come from the Drizzle schema. No Node APIs:
// the WordPress import's planner, which the Workers tests run, writes its statements with these.
import { getTableColumns, type Table } from "drizzle-orm";

/**
 * An SQL literal: text quoted, numbers as they are, null as NULL. Text holding a NUL byte, or the
 * words `BEGIN TRANSACTION`, is written as a hex blob: `wrangler d1 execute --local --file` (the
 * import's `--rehearse`) deletes the first `BEGIN TRANSACTION;` and `COMMIT;` of a file that holds
 * those words anywhere, string literals too, and refuses one that still holds them after that.
 */
export function sqlLiteral(value: string | number | null | undefined) {
  if (value === null || value === undefined) return "NULL";
  if (typeof value === "number") {
    if (!Number.isSafeInteger(value)) throw new Error(`not an exact integer: ${value}`);
    return String(value);
  }
  const text = String(value);
  if (text.includes("\0") || text.includes("BEGIN TRANSACTION")) {
    const hex = [...new TextEncoder().encode(text)]
      .map((b) => b.toString(16).padStart(2, "0"))
      .join("");
    return `CAST(X'${hex}' AS TEXT)`;
  }
  return `'${text.replaceAll("'", "''")}'`;
}

/** A row's SQL values by the schema's field names; `Partial` for inserts that leave defaults. */
export type RowValues<T extends Table> = { [K in keyof T["$inferSelect"]]: string };

/**
 * The column list and the value list of one row, both in the schema's column order:
 * `{ columns: "id, user_id", values: "1, 2" }`. Fields left out of `row` are left out of both.
 */
export function columnsAndValues<T extends Table>(table: T, row: Partial<RowValues<T>>) {
  const columns: string[] = [];
  const values: string[] = [];
  for (const [field, column] of Object.entries(getTableColumns(table))) {
    const value = row[field as keyof RowValues<T>];
    if (value === undefined) continue;
    columns.push(column.name);
    values.push(value);
  }
  return { columns: columns.join(", "), values: values.join(", ") };
}

/**
 * `count` credits of one minor unit appended to a user's history in a wallet, in one statement
 * after the balance it holds (the ledger's triggers check every row): history for tests and the
 * bench, made faster than through the API. `tag` makes the request ids and slugs unique.
 */
export function appendHistorySql(userId: number, walletId: string, count: number, tag: string) {
  const [user, wallet, t] = [sqlLiteral(userId), sqlLiteral(walletId), sqlLiteral(tag)];
  return `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${sqlLiteral(count)}),
  start(b) AS (SELECT coalesce((SELECT balance_minor FROM balances WHERE user_id = ${user} AND wallet_id = ${wallet}), 0))
INSERT INTO transactions (user_id, wallet_id, txn_type, amount_minor, amount_text, balance_before_minor,
  balance_after_minor, request_id, request_key, note, title, slug_base, slug, created_at_s)
SELECT ${user}, ${wallet}, 'CREDIT', 1, '0.01', b + i - 1, b + i, ${t} || i, ${t} || i, '', 't', ${t} || i,
  ${t} || i, 1700000000 + i FROM n, start`;
}
