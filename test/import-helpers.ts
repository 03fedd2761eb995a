import { env } from "cloudflare:workers";
import {
  dumpUsers,
  type ImportOptions,
  importFromText,
  type Row,
  readTargetRows,
  targetState,
} from "../scripts/import/wordpress";
import dump from "./fixtures/wordpress-dump.sql?raw";
import expectedText from "./fixtures/wordpress-expected.json?raw";
import realDump from "./fixtures/wordpress-real-site-dump.sql?raw";
import realExpectedText from "./fixtures/wordpress-real-site-expected.json?raw";
import { signedToken } from "./helpers";

export { dump };

/**
 * A transaction post the fixture's site adds after an import (what a later dump holds more): its
 * post, its meta (ids from `id * 100`) and its terms (CREDIT 1, DEBIT 2, the transfer term 3).
 */
export function sitePost(p: {
  id: number;
  author: number;
  amount: string;
  currency: string;
  type: "CREDIT" | "DEBIT";
  requestId: string;
  otherHalf?: number;
}) {
  const at = "'2024-03-01 11:00:00','2024-03-01 10:00:00'";
  const meta = [
    ["amount", p.amount],
    ["currency", p.currency],
    ["txn_type", p.type],
    ["request_id", p.requestId],
    ...(p.otherHalf === undefined ? [] : [["alt_transfer_id", String(p.otherHalf)]]),
  ].map(([key, value], i) => `(${p.id * 100 + i},${p.id},'${key}','${value}')`);
  const terms = [p.type === "CREDIT" ? 1 : 2, ...(p.otherHalf === undefined ? [] : [3])];
  return [
    `INSERT INTO \`wp_posts\` VALUES (${p.id},${p.author},${at},'Amount:${p.amount}','TRANSACTION ${p.id}','','publish','open','closed','','transaction-${p.id}','','',${at},'',0,'https://oldsite.example/?p=${p.id}',0,'wallettransaction','',0);`,
    `INSERT INTO \`wp_postmeta\` VALUES ${meta.join(",")};`,
    `INSERT INTO \`wp_term_relationships\` VALUES ${terms.map((t) => `(${p.id},${t},0)`).join(",")};`,
    "",
  ].join("\n");
}

/** The fixture's dump with post `id` trashed on the site since (its post_status `trash`). */
export function trashPost(text: string, id: number) {
  const at = text.indexOf(`(${id},`, text.indexOf("INSERT INTO `wp_posts`"));
  if (at === -1) throw new Error(`no post ${id} in the dump`);
  return `${text.slice(0, at)}${text.slice(at).replace("'publish'", "'trash'")}`;
}

/** A WordPress record as a fixture wrote it (a post, a wallet): read field by field in the tests. */
// biome-ignore lint/suspicious/noExplicitAny: JSON the generator wrote; each test reads the fields it checks
type SiteRecord = Record<string, any>;

/** What the fixture's WordPress site returned: its passwords and each transaction's record. */
export const wordpress = JSON.parse(expectedText) as {
  passwords: Record<string, string>;
  users: { id: number; login: string; email: string; first: string; last: string }[];
  transactions: SiteRecord[];
};

type SiteAnswers = {
  passwords: Record<string, string>;
  users: { id: number; login: string; email: string; first: string; last: string }[];
  wallets: SiteRecord[];
  transactions: SiteRecord[];
  /** Each (user, wallet)'s transactions summed exactly: the site's ledger. */
  balances: { userId: number; walletId: string; balance: string }[];
  /** Every request_id, with the transaction the site recorded for it first. */
  requestIds: { userId: number; requestId: string; txnId: number }[];
};

/**
 * A site shaped like a live Rimplenet 1.1.31 one (test/fixtures/make-wordpress-dump.ts): sub-precision
 * and zero amounts, histories below zero, its own table prefix and the plugin's namespace.
 */
export const realSite = {
  dump: realDump,
  options: { prefix: "wpx7_", namespace: "rimplenet" } satisfies ImportOptions,
  answers: JSON.parse(realExpectedText) as SiteAnswers,
};

/** An access token for an imported administrator (no password hashing in the way). */
export const importedAdmin = async (userId: number, username: string) =>
  `Bearer ${(await signedToken({ id: userId, username, role: "administrator" })).token}`;

/** When the import runs in these tests (dates of the adjustments it adds). */
export const IMPORT_AT = Date.UTC(2024, 5, 1, 12, 0, 0);

/** The target database as the CLI reads it before planning a dump: the same queries, on env.DB. */
export async function readTarget(text = dump, options: ImportOptions = {}) {
  const queries = (sqls: string[]) =>
    Promise.all(sqls.map(async (sql) => (await env.DB.prepare(sql).all<Row>()).results));
  return targetState(await readTargetRows(queries, dumpUsers(text, options)));
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
  const run = importFromText(text, {
    options,
    target: await readTarget(text, options),
    nowMs: IMPORT_AT,
  });
  const statements = run.statements.slice(0, limit);
  if (apply && (!run.report.refused || options.force) && statements.length > 0)
    await env.DB.batch(statements.map((sql) => env.DB.prepare(sql)));
  return run;
}
