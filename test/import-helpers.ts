import { env } from "cloudflare:workers";
import {
  type ImportOptions,
  importFromText,
  TARGET_QUERIES,
  type TargetRows,
  targetState,
} from "../scripts/import/wordpress.mjs";
import dump from "./fixtures/wordpress-dump.sql?raw";
import expectedText from "./fixtures/wordpress-expected.json?raw";

export { dump };

/** What the fixture's WordPress site returned: its passwords and each transaction's record. */
export const wordpress = JSON.parse(expectedText) as {
  passwords: Record<string, string>;
  users: { id: number; login: string; email: string; first: string; last: string }[];
  // biome-ignore lint/suspicious/noExplicitAny: WordPress post records as the fixture wrote them
  transactions: Record<string, any>[];
};

/** When the import runs in these tests (dates of the adjustments it adds). */
export const IMPORT_AT = Date.UTC(2024, 5, 1, 12, 0, 0);

/** The target database as the CLI reads it before planning: the same queries, on env.DB. */
export async function readTarget() {
  const rows: TargetRows = {};
  for (const [name, sql] of Object.entries(TARGET_QUERIES))
    rows[name as keyof typeof TARGET_QUERIES] = (await env.DB.prepare(sql).all()).results;
  return targetState(rows);
}

/**
 * The import as the CLI runs it, with env.DB in wrangler's place: plan against the database, then
 * apply the statements in one batch (wrangler d1 execute --file runs a file as one batch too).
 */
export async function runImport(
  options: ImportOptions = {},
  text = dump,
  { apply = true, limit = Infinity } = {},
) {
  const run = importFromText(text, { options, target: await readTarget(), nowMs: IMPORT_AT });
  const statements = run.statements.slice(0, limit);
  if (apply && (!run.report.refused || options.force) && statements.length > 0)
    await env.DB.batch(statements.map((sql) => env.DB.prepare(sql)));
  return run;
}
