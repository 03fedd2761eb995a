// From a WordPress site's tables (as sql-dump.ts reads them from a mysqldump) to this service's
// ledger: what to carry over, what the site's data says that the ledger cannot hold as it is, and the
// SQL that writes it. No Node APIs, so the Worker tests run the very code the CLI
// (scripts/import-wordpress.ts) runs; the CLI adds the file, the spill to disk and wrangler.
//
// The plan, step by step (plan/): read the dump (collect.ts); users; wallets; check every
// transaction (first pass); choose each wallet's storage places and judge each (user, wallet) chain;
// compare the site's stored balances; write the entries (second pass, statements.ts has the SQL);
// total up the report (report.ts). Memory stays bounded: see collect.ts and plan/fingerprints.ts.
import { createReader, type ImportOptions, MemoryBuckets } from "./collect";
import { compareBalances } from "./plan/balances";
import { checkTransactions } from "./plan/check";
import { type PlanInput, startPlan } from "./plan/context";
import { planStorage } from "./plan/storage";
import { finishReport } from "./plan/totals";
import { planUsers } from "./plan/users";
import { planWallets } from "./plan/wallets";
import { writeEntries } from "./plan/write";
import type { Report } from "./report";
import type { Target } from "./target";

export { sqlLiteral } from "../lib/sql";
export type { ImportOptions } from "./collect";
export type { Report } from "./report";
export { decodeEntities, parseRoles, passwordHashKind, utcSeconds } from "./site-values";
export { type Row, readTargetRows, targetState } from "./target";

/**
 * Plans the import and hands every SQL statement to `emit(sql, kind)` in the order they must run
 * (users, wallets, then entries in id order, then balance adjustments). Returns the report.
 */
export function planImport(input: PlanInput): Report {
  const ctx = startPlan(input);
  const users = planUsers(ctx);
  const wallets = planWallets(ctx);
  const checked = checkTransactions(ctx, users, wallets);
  const storage = planStorage(ctx, wallets, checked);
  const closings = compareBalances(ctx, users, wallets.wallets, storage, checked);
  const writer = writeEntries(ctx, users, wallets, checked, storage, closings);
  finishReport(ctx, checked, storage, writer, users);
  return JSON.parse(JSON.stringify(ctx.report)); // plain data: the tallies become { total, byReason, examples }
}

// ---------------------------------------------------------------------------------------------
// The whole import of a dump held in memory (tests and small dumps).

export type ImportRun = { statements: string[]; report: Report };

type RunOptions = { options?: ImportOptions; target?: Target; nowMs?: number; chunkSize?: number };

export function importFromText(text: string, run: RunOptions = {}): ImportRun {
  return importFromChunks([text], run);
}

/** The users a dump held in memory has, as the planner reads them (tests read the target by them). */
export function dumpUsers(text: string, options: ImportOptions = {}) {
  const { collector, parser } = createReader(options, new MemoryBuckets(1024));
  parser.push(text);
  parser.end();
  return collector.users;
}

export function importFromChunks(
  chunks: string[],
  {
    options = {},
    target,
    nowMs,
    chunkSize = Infinity,
    bucketWidth = 1024,
  }: RunOptions & { bucketWidth?: number } = {},
): ImportRun {
  const buckets = new MemoryBuckets(bucketWidth);
  const { collector, parser } = createReader(options, buckets);
  for (const chunk of chunks) {
    if (chunkSize === Infinity) parser.push(chunk);
    else
      for (let i = 0; i < chunk.length; i += chunkSize) parser.push(chunk.slice(i, i + chunkSize));
  }
  parser.end();
  const statements: string[] = [];
  const report = planImport({
    collector,
    buckets,
    options,
    ...(target && { target }),
    ...(nowMs !== undefined && { nowMs }),
    emit: (sql) => statements.push(sql),
  });
  return { statements, report };
}
