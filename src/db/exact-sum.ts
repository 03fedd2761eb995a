// Sums of money that stay exact past both 2^53 (where a JSON number from D1 drops units) and 2^63
// (where SQLite's sum() of integers stops with "integer overflow"): a turnover of many largest
// amounts passes both. Each value is summed as its billions and its remainder, which no history can
// overflow, and the two are joined in BigInt.
import { type SQL, sql } from "drizzle-orm";

const PART = 1_000_000_000;

/** `sum(value)` as text `"billions:remainder"`, 0 over no rows; read it with `readExactSum`. */
export const exactSum = (value: SQL) =>
  sql<string>`CAST(coalesce(sum((${value}) / ${sql.raw(String(PART))}), 0) AS TEXT) || ':' || CAST(coalesce(sum((${value}) % ${sql.raw(String(PART))}), 0) AS TEXT)`;

/** The sum `exactSum` wrote. */
export function readExactSum(text: string): bigint {
  const [billions, remainder] = text.split(":");
  return BigInt(billions!) * BigInt(PART) + BigInt(remainder!);
}
