// The database written to: what is there already decides what is new, present or in conflict.
// The CLI runs these queries through wrangler; the Worker tests run them on env.DB.
import { IMPORT_KEY_PREFIX } from "./plan/keys";
import { emailKey, loginKey } from "./site-values";

/** Read-only queries whose rows targetState() takes. */
export const TARGET_QUERIES = {
  users: "SELECT id, username, email, role, password_hash, registered_at_ms FROM users",
  wallets: "SELECT id, name, symbol, symbol_position, decimals, extra_decimals, type FROM wallets",
  // A wallet id deleted here keeps its units: a wallet imported under it must have them (0015).
  deletedWallets: "SELECT id, decimals, extra_decimals FROM deleted_wallets",
  // A user id deleted here is never given again, not even to the site's user of that id (0023).
  deletedUsers: "SELECT id, deleted_at_ms FROM deleted_users",
  // foreign: entries the service wrote (not `imported`), their count and sum; holds: holds it
  // placed, whatever became of them (each reserved money that answers were given on);
  // imported_latest_s: the latest date of the imported entries (one after the run holds back the
  // chain's timeline: plan/future-dates.ts). The entries are read in one grouped pass.
  pairs: `SELECT b.user_id, b.wallet_id, b.balance_minor, b.entry_count, t.last_id,
    coalesce(t.foreign_n, 0) AS foreign_n, coalesce(t.foreign_sum, 0) AS foreign_sum, t.imported_latest_s,
    (SELECT count(*) FROM holds h WHERE h.user_id = b.user_id AND h.wallet_id = b.wallet_id) AS holds_n
    FROM balances b LEFT JOIN (
      SELECT user_id, wallet_id, max(id) AS last_id, sum(NOT imported) AS foreign_n,
        sum(CASE WHEN imported THEN 0 WHEN txn_type = 'CREDIT' THEN amount_minor ELSE -amount_minor END) AS foreign_sum,
        max(CASE WHEN imported THEN created_at_s END) AS imported_latest_s
      FROM transactions GROUP BY user_id, wallet_id
    ) t ON t.user_id = b.user_id AND t.wallet_id = b.wallet_id`,
  // The ids of the service's own entries: a site post with one of them cannot be imported.
  foreignIds: "SELECT id FROM transactions WHERE NOT imported",
  // The request keys the service's own entries and holds hold, per user: a site entry keyed the
  // same is imported without its key (requestKeyExpr), which the report says. As many rows as the
  // service has keyed writes: none on a fresh database, few at a cut-over.
  serviceKeys: `SELECT user_id, request_key FROM transactions WHERE NOT imported AND request_key IS NOT NULL
    UNION ALL SELECT user_id, request_key FROM holds WHERE request_key IS NOT NULL`,
  // The balance adjustments earlier imports wrote (--balances site): each took the next id, which
  // the site may since have given a post. Their request ids are scripts/import/plan/keys.ts's, and
  // they alone of the imported entries have no local date (every post has its post_date).
  adjustments: `SELECT id, user_id, wallet_id,
      CASE txn_type WHEN 'CREDIT' THEN amount_minor ELSE -amount_minor END AS signed_minor
    FROM transactions WHERE imported AND local_date IS NULL AND request_id GLOB '${IMPORT_KEY_PREFIX}balance-adjustment:*'`,
};

/** Fails on a database without the columns the import writes: its migrations are not all applied. */
const SCHEMA_CHECK_QUERY =
  "SELECT t.guid, t.local_date, t.modified_local_date, t.modified_gmt_date, t.imported, w.extra_decimals FROM transactions t, wallets w LIMIT 0";

/** A row as D1 answers it (wrangler's JSON or env.DB): column name → value. */
export type Row = Record<string, unknown>;

/** Users named in one query of their imported entries' ids (about 8 KiB of SQL). */
const GONE_USERS_PER_QUERY = 1000;
/** Queries in one call: wrangler takes them as one argument, which Linux holds to 128 KiB. */
const QUERIES_PER_CALL = 8;

/** The database lacks this service's schema or its latest migration (a table or column). */
export class SchemaMissing extends Error {}

/**
 * What the planner reads of the database: TARGET_QUERIES, then the ids of the entries imported for
 * users the dump no longer has, since WordPress gives a deleted user's posts to another ("attribute
 * all content to"), whose history here cannot take ids those entries hold.
 */
export async function readTargetRows(
  queries: (sqls: string[]) => Promise<Row[][]>,
  siteUsers: { has(id: number): boolean },
): Promise<TargetRows> {
  const names = Object.keys(TARGET_QUERIES) as (keyof typeof TARGET_QUERIES)[];
  const results = await queries([SCHEMA_CHECK_QUERY, ...Object.values(TARGET_QUERIES)]).catch(
    (err: Error) => {
      throw /no such (table|column)/i.test(err.message) ? new SchemaMissing(err.message) : err;
    },
  );
  const rows: TargetRows = Object.fromEntries(names.map((name, i) => [name, results[i + 1]]));
  const gone = [...targetState(rows).importedByUser]
    .filter(([id, n]) => n > 0 && !siteUsers.has(id))
    .map(([id]) => id);
  const sqls: string[] = [];
  for (let i = 0; i < gone.length; i += GONE_USERS_PER_QUERY)
    sqls.push(
      `SELECT id, user_id FROM transactions WHERE imported AND user_id IN (${gone.slice(i, i + GONE_USERS_PER_QUERY).join(",")})`,
    );
  rows.goneIds = [];
  for (let i = 0; i < sqls.length; i += QUERIES_PER_CALL)
    rows.goneIds.push(...(await queries(sqls.slice(i, i + QUERIES_PER_CALL))).flat());
  return rows;
}

export type TargetRows = Partial<Record<keyof typeof TARGET_QUERIES | "goneIds", Row[]>>;

/** A user the database has, as TARGET_QUERIES.users reads it. */
export type TargetUser = {
  id: number;
  username: string;
  email: string;
  role: string;
  password_hash: string;
  registered_at_ms: number;
};

/** A wallet the database has, as TARGET_QUERIES.wallets reads it. */
type TargetWallet = {
  id: string;
  name: string;
  symbol: string;
  symbol_position: "left" | "right";
  decimals: number;
  extra_decimals: number;
  type: string;
};
/**
 * A (user, wallet) chain the database has: its balance, entries, last id, and the entries and holds
 * the service wrote.
 */
export type TargetPair = {
  balance: number;
  n: number;
  lastId: number;
  foreign: number;
  /** Its entries an import wrote: n - foreign. */
  imported: number;
  /** What the service's own entries add to the balance: the rest is the imported entries'. */
  foreignSum: number;
  holds: number;
  /** The latest date (epoch seconds) of its imported entries; null: none imported. */
  importedLatestS: number | null;
};

export const pairKey = (userId: number, walletId: string) => `${userId}\t${walletId}`;

/** The rows of TARGET_QUERIES (by name) as the planner's view of the database. */
export function targetState(rows: TargetRows) {
  const users = (rows.users ?? []) as TargetUser[];
  const pairs = new Map<string, TargetPair>(
    (rows.pairs ?? []).map((p) => [
      pairKey(Number(p.user_id), String(p.wallet_id)),
      {
        balance: Number(p.balance_minor),
        n: Number(p.entry_count),
        lastId: Number(p.last_id),
        foreign: Number(p.foreign_n),
        imported: Number(p.entry_count) - Number(p.foreign_n),
        foreignSum: Number(p.foreign_sum ?? 0),
        holds: Number(p.holds_n ?? 0),
        importedLatestS: p.imported_latest_s == null ? null : Number(p.imported_latest_s),
      },
    ]),
  );
  // User id → the entries an import wrote for it, over all its wallets.
  const importedByUser = new Map<number, number>();
  for (const [key, pair] of pairs) {
    const userId = Number(key.split("\t")[0]);
    importedByUser.set(userId, (importedByUser.get(userId) ?? 0) + pair.imported);
  }
  return {
    users: new Map(users.map((u) => [Number(u.id), u])),
    usernames: new Map(users.map((u) => [loginKey(String(u.username)), Number(u.id)])),
    emails: new Map(users.map((u) => [emailKey(String(u.email)), Number(u.id)])),
    wallets: new Map(((rows.wallets ?? []) as TargetWallet[]).map((w) => [w.id, w])),
    deletedWallets: new Map(
      (
        (rows.deletedWallets ?? []) as Pick<TargetWallet, "id" | "decimals" | "extra_decimals">[]
      ).map((w) => [w.id, w]),
    ),
    /** User id deleted here → when. */
    deletedUsers: new Map(
      (rows.deletedUsers ?? []).map((r) => [Number(r.id), Number(r.deleted_at_ms)]),
    ),
    pairs,
    importedByUser,
    foreignIds: new Set((rows.foreignIds ?? []).map((r) => Number(r.id))),
    /** Entry id → the user, not in the dump, an earlier import wrote it for. */
    goneIds: new Map((rows.goneIds ?? []).map((r) => [Number(r.id), Number(r.user_id)])),
    serviceKeys: new Set((rows.serviceKeys ?? []).map((r) => `${r.user_id}\u0000${r.request_key}`)),
    adjustments: new Map(
      (rows.adjustments ?? []).map((r) => [Number(r.id), `user ${r.user_id} in ${r.wallet_id}`]),
    ),
    /** Pair key → the signed amount of the balance adjustment an earlier import wrote there. */
    adjustedPairs: new Map(
      (rows.adjustments ?? []).map((r) => [
        pairKey(Number(r.user_id), String(r.wallet_id)),
        Number(r.signed_minor),
      ]),
    ),
  };
}

export type Target = ReturnType<typeof targetState>;

export const emptyTarget = () => targetState({});
