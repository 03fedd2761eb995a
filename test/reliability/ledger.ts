// Reads a server's local D1 state straight from its --persist-to folder, through SQLite itself: the
// database Miniflare keeps for the DB binding is one SQLite file in WAL mode, which another process
// may read (and write) while the server runs, as `wrangler d1 execute --local` does, without
// starting a wrangler and a workerd for each query (a few seconds each). It checks the ledger's
// invariants there, not through the API.
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { check, figures } from "./harness";

/** Where a query reads: the server's state folder. */
export type Store = { stateDir: string };
export type Row = Record<string, unknown>;

/** The server's D1 database: the one SQLite file under its state folder that is not Miniflare's index. */
function databaseFile(stateDir: string) {
  const dir = join(stateDir, "v3", "d1", "miniflare-D1DatabaseObject");
  const files = readdirSync(dir).filter((f) => f.endsWith(".sqlite") && f !== "metadata.sqlite");
  if (files.length !== 1)
    throw new Error(`not one D1 database in ${dir}: ${files.join(", ") || "none"}`);
  return join(dir, files[0]!);
}

/** Runs one statement; returns its rows. A write waits up to 10 s for the server's to end. */
export async function d1(store: Store, sql: string): Promise<Row[]> {
  const db = new DatabaseSync(databaseFile(store.stateDir), { timeout: 10_000 });
  try {
    return db.prepare(sql).all() as Row[];
  } finally {
    db.close();
  }
}

/** The first row of the statement's answer. */
export async function d1Row(store: Store, sql: string): Promise<Row> {
  const [row] = await d1(store, sql);
  if (row === undefined) throw new Error(`no row from ${sql.slice(0, 200)}`);
  return row;
}

const SIGNED = "CASE txn_type WHEN 'CREDIT' THEN amount_minor ELSE -amount_minor END";

const COUNTS_SQL = `SELECT
  (SELECT count(*) FROM users) AS users,
  (SELECT count(*) FROM wallets) AS wallets,
  (SELECT count(*) FROM transactions) AS transactions,
  (SELECT coalesce(max(id), 0) FROM transactions) AS max_transaction_id,
  (SELECT count(*) FROM balances) AS balances,
  (SELECT coalesce(sum(balance_minor), 0) FROM balances) AS balance_total,
  (SELECT count(*) FROM api_keys) AS api_keys,
  (SELECT count(*) FROM api_keys WHERE revoked_at_ms IS NOT NULL) AS revoked_keys,
  (SELECT count(*) FROM sessions WHERE revoked_at_ms IS NOT NULL) AS revoked_sessions,
  (SELECT count(*) FROM holds) AS holds,
  (SELECT count(*) FROM holds WHERE status = 'held') AS held`;

/** Row counts (and the sums a write would move), to show a batch of refused requests wrote nothing. */
export const tableCounts = (store: Store) => d1Row(store, COUNTS_SQL);

// One statement of scalar subqueries: balances vs entries, the chain, request ids, reversals and
// transfers.
const SUMS = `(SELECT user_id, wallet_id, sum(${SIGNED}) AS total, count(*) AS n, max(id) AS last_id
               FROM transactions GROUP BY user_id, wallet_id)`;
const INVARIANTS_SQL = `SELECT
  (SELECT count(*) FROM balances) AS balance_rows,
  (SELECT count(*) FROM ${SUMS}) AS entry_pairs,
  (SELECT count(*) FROM balances b
     LEFT JOIN ${SUMS} s ON s.user_id = b.user_id AND s.wallet_id = b.wallet_id
     LEFT JOIN transactions l ON l.id = s.last_id
   WHERE s.user_id IS NULL OR b.balance_minor != s.total OR b.entry_count != s.n
      OR b.balance_minor != l.balance_after_minor) AS bad_balances,
  (SELECT count(*) FROM ${SUMS} s LEFT JOIN balances b ON b.user_id = s.user_id AND b.wallet_id = s.wallet_id
   WHERE b.user_id IS NULL) AS pairs_without_balance,
  (SELECT count(*) FROM transactions) AS entries,
  (SELECT count(*) FROM (SELECT balance_before_minor, LAG(balance_after_minor, 1, 0) OVER (PARTITION BY user_id, wallet_id ORDER BY id) AS prev_after
                         FROM transactions) WHERE balance_before_minor != prev_after) AS broken_links,
  (SELECT count(*) FROM transactions WHERE balance_after_minor != balance_before_minor + ${SIGNED}) AS bad_arithmetic,
  (SELECT count(*) FROM transactions WHERE NOT imported AND balance_after_minor < 0 AND balance_after_minor < balance_before_minor) AS overdrafts,
  (SELECT count(*) FROM transactions WHERE amount_minor < 0 OR (amount_minor = 0 AND NOT imported)) AS non_positive_amounts,
  (SELECT count(*) FROM (SELECT 1 FROM transactions WHERE request_key IS NOT NULL
                         GROUP BY user_id, request_key HAVING count(*) > 1)) AS duplicate_requests,
  (SELECT count(*) FROM transactions WHERE request_key IS NOT NULL AND request_id NOT GLOB '*[^ -~]*'
     AND request_key != lower(request_id)) AS bad_request_keys,
  (SELECT count(*) FROM (SELECT 1 FROM transactions WHERE reverses_id IS NOT NULL
                         GROUP BY reverses_id HAVING count(*) > 1)) AS double_reversals,
  (SELECT count(*) FROM transactions r JOIN transactions o ON o.id = r.reverses_id
   WHERE r.amount_minor != o.amount_minor OR r.txn_type = o.txn_type OR r.wallet_id != o.wallet_id
      OR r.user_id != o.user_id) AS bad_reversals,
  (SELECT count(*) FROM (SELECT transfer_id FROM transactions WHERE transfer_id IS NOT NULL GROUP BY transfer_id
                         HAVING count(*) != 2 OR sum(${SIGNED}) != 0 OR count(DISTINCT wallet_id) != 1
                             OR count(DISTINCT user_id) != 2)) AS broken_transfers,
  (SELECT count(DISTINCT transfer_id) FROM transactions WHERE transfer_id IS NOT NULL) AS transfers,
  (SELECT count(*) FROM holds) AS holds,
  (SELECT count(*) FROM holds h WHERE (SELECT count(*) FROM transactions t WHERE t.hold_id = h.id)
     != (h.status = 'captured')) AS holds_not_captured_once,
  (SELECT count(*) FROM holds h JOIN transactions t ON t.hold_id = h.id
   WHERE t.amount_minor != h.captured_minor OR h.captured_minor > h.amount_minor OR t.txn_type != 'DEBIT'
      OR t.user_id != h.user_id OR t.wallet_id != h.wallet_id) AS bad_captures,
  (SELECT count(*) FROM balances b WHERE b.balance_minor < (SELECT coalesce(sum(h.amount_minor), 0) FROM holds h
     WHERE h.user_id = b.user_id AND h.wallet_id = b.wallet_id AND h.status = 'held'
       AND h.expires_at_s > CAST(strftime('%s', 'now') AS INTEGER))) AS available_below_zero`;

/** Checks every ledger invariant on the stored state; `label` says when (after which phase). */
export async function checkLedgerInvariants(store: Store, label: string) {
  const row = await d1Row(store, INVARIANTS_SQL);
  const pick = (...keys: string[]) => Object.fromEntries(keys.map((k) => [k, row[k]]));
  const balances = pick("balance_rows", "entry_pairs", "bad_balances", "pairs_without_balance");
  const chain = pick(
    "entries",
    "broken_links",
    "bad_arithmetic",
    "overdrafts",
    "non_positive_amounts",
  );
  const links = pick(
    "duplicate_requests",
    "bad_request_keys",
    "double_reversals",
    "bad_reversals",
    "broken_transfers",
    "transfers",
  );
  const holds = pick("holds", "holds_not_captured_once", "bad_captures", "available_below_zero");
  figures.invariantRuns = (figures.invariantRuns ?? 0) + 1;
  figures.pairsChecked = Math.max(figures.pairsChecked ?? 0, Number(balances.balance_rows));
  figures.entriesChecked = Math.max(figures.entriesChecked ?? 0, Number(chain.entries));
  check(
    `${label}: every balance equals the sum of its entries (${balances.balance_rows} (user, wallet) balances)`,
    balances.bad_balances === 0 &&
      balances.pairs_without_balance === 0 &&
      balances.balance_rows === balances.entry_pairs,
    JSON.stringify(balances),
  );
  check(
    `${label}: each entry's balance_before is the previous entry's balance_after (${chain.entries} entries)`,
    chain.broken_links === 0 && chain.bad_arithmetic === 0,
    JSON.stringify(chain),
  );
  // Only entries imported from WordPress may be zero or leave a balance below zero and lower.
  check(
    `${label}: no entry took a balance lower while below zero, no non-positive amount (imported entries aside)`,
    chain.overdrafts === 0 && chain.non_positive_amounts === 0,
    JSON.stringify(chain),
  );
  check(
    `${label}: one entry per (user, request_id), one reversal per entry, every transfer both halves (${links.transfers} transfers)`,
    links.duplicate_requests === 0 &&
      links.bad_request_keys === 0 &&
      links.double_reversals === 0 &&
      links.bad_reversals === 0 &&
      links.broken_transfers === 0,
    JSON.stringify(links),
  );
  check(
    `${label}: each hold captured by one DEBIT of at most its amount or by none, no available balance below zero (${holds.holds} holds)`,
    holds.holds_not_captured_once === 0 &&
      holds.bad_captures === 0 &&
      holds.available_below_zero === 0,
    JSON.stringify(holds),
  );
}
