import {
  and,
  asc,
  Column,
  count,
  desc,
  eq,
  getTableColumns,
  gt,
  inArray,
  is,
  lt,
  lte,
  max,
  ne,
  or,
  type Placeholder,
  type SQL,
  type SQLWrapper,
  sql,
} from "drizzle-orm";
import { alias } from "drizzle-orm/sqlite-core";
import { withinChars } from "../text";
import {
  batchAll,
  bindingOf,
  columnsAsSql,
  type Db,
  indexedBy,
  inRuns,
  keysetChunks,
} from "./client";
import { heldIn, heldWhenJudged } from "./holds";
import { isolateCache } from "./isolate-cache";
import { BuiltOnce } from "./prebuilt";
import { balances, transactions, users, wallets } from "./schema";
import { newestPoints } from "./timeline";

/** The hot reads' statements, built once per isolate for each shape. */
const reads = new BuiltOnce();

/** A user's balance rows in some wallets (the values may be placeholders). */
const balanceSelect = (db: Db, userId: number | Placeholder, walletIds: (string | Placeholder)[]) =>
  db
    .select({ walletId: balances.walletId, minor: balances.balanceMinor })
    .from(balances)
    .where(and(eq(balances.userId, userId), inArray(balances.walletId, walletIds)));

/**
 * Wallet definitions, user existence and balances in one round trip, reading one row per wallet.
 * Wallets and users never change once they exist, so once the isolate has seen them
 * (db/isolate-cache.ts) the read is a single statement: the balance rows.
 */
export async function readBalances(db: Db, userId: number, walletIds: string[]) {
  const cache = isolateCache(bindingOf(db));
  const known = walletIds.flatMap((id) => cache.wallets.get(id) ?? []);
  if (known.length === walletIds.length && cache.usernames.has(userId)) {
    const values = Object.fromEntries([
      ["user", userId],
      ...walletIds.map((id, i) => [`w${i}`, id]),
    ]);
    const build = () =>
      balanceSelect(
        db,
        sql.placeholder("user"),
        walletIds.map((_, i) => sql.placeholder(`w${i}`)),
      );
    const { results } = await reads
      .statement(db, `balances ${walletIds.length}`, build, values)
      .all<{ wallet_id: string; balance_minor: number }>();
    return {
      wallets: new Map(known.map((w) => [w.id, w])),
      userExists: true,
      balances: new Map(results.map((r) => [r.wallet_id, r.balance_minor])),
    };
  }
  const [walletRows, userRows, rows] = await db.batch([
    db.select().from(wallets).where(inArray(wallets.id, walletIds)),
    db.select({ id: users.id, username: users.username }).from(users).where(eq(users.id, userId)),
    balanceSelect(db, userId, walletIds),
  ]);
  for (const w of walletRows) cache.wallets.set(w.id, w);
  for (const u of userRows) cache.usernames.set(u.id, u.username);
  return {
    wallets: new Map(walletRows.map((w) => [w.id, w])),
    userExists: userRows.length > 0,
    balances: new Map(rows.map((r) => [r.walletId, r.minor])),
  };
}

export type EntryFilter = {
  userId: number;
  walletId?: string;
  txnType?: "CREDIT" | "DEBIT";
  afterS?: number;
  beforeS?: number;
};

/** A filter whose values may be placeholders, for a statement built once for all values. */
type FilterShape = { [K in keyof EntryFilter]: EntryFilter[K] | Placeholder };

function filterWhere(f: FilterShape): SQL | undefined {
  return and(
    eq(transactions.userId, f.userId),
    f.walletId === undefined ? undefined : eq(transactions.walletId, f.walletId),
    f.txnType === undefined ? undefined : eq(transactions.txnType, f.txnType),
    f.afterS === undefined ? undefined : gt(transactions.createdAtS, f.afterS),
    f.beforeS === undefined ? undefined : lt(transactions.createdAtS, f.beforeS),
  );
}

const OPTIONAL_FILTERS = ["walletId", "txnType", "afterS", "beforeS"] as const;

/** The filter's shape (which fields it has), and the filter with a placeholder for each value. */
function filterShape(f: EntryFilter) {
  const given = OPTIONAL_FILTERS.filter((key) => f[key] !== undefined);
  const placeholders = () =>
    Object.fromEntries(
      ["userId", ...given].map((key) => [key, sql.placeholder(key)]),
    ) as FilterShape;
  return { name: given.join(","), placeholders };
}

// Every column of an entry but its attempt id, which only a lost batch's read-back reads.
const { attemptId: _, ...ENTRY_COLUMNS } = getTableColumns(transactions);

// Only wallet columns whose names the entry does not share: D1 returns rows keyed by column name.
export const ENTRY_WITH_WALLET = {
  entry: ENTRY_COLUMNS,
  symbol: wallets.symbol,
  symbolPosition: wallets.symbolPosition,
  decimals: wallets.decimals,
  extraDecimals: wallets.extraDecimals,
};

export const entryWithWallet = (db: Db) =>
  db
    .select(ENTRY_WITH_WALLET)
    .from(transactions)
    .innerJoin(wallets, eq(wallets.id, transactions.walletId));

export type EntryRow = Awaited<ReturnType<typeof entryWithWallet>>[number];

const ENTRY_FIELDS = Object.entries(ENTRY_WITH_WALLET).map(
  ([key, field]) => [key, is(field, Column) ? field : Object.entries(field)] as const,
);

/** An `entryWithWallet` row as D1 answers it, keyed by column name, mapped as Drizzle maps it. */
function entryRowOf(row: Record<string, unknown>): EntryRow {
  const read = (column: Column) => {
    const value = row[column.name];
    return value === null ? null : column.mapFromDriverValue(value);
  };
  const mapped: Record<string, unknown> = {};
  for (const [key, field] of ENTRY_FIELDS) {
    if (!Array.isArray(field)) {
      mapped[key] = read(field);
      continue;
    }
    const table: Record<string, unknown> = {};
    for (const [name, column] of field) table[name] = read(column);
    mapped[key] = table;
  }
  return mapped as EntryRow;
}

type Page = { offset: number; limit: number; order: "asc" | "desc" };

/**
 * Whether the user and the filtered wallet exist, as columns of a one-row aggregate: the checks
 * ride in the statement that counts instead of costing a statement each. Each reads one row by key.
 */
function existence(f: FilterShape) {
  return {
    userExists: sql<number>`exists (select 1 from ${users} where ${users.id} = ${f.userId})`.as(
      "user_exists",
    ),
    walletExists: (f.walletId === undefined
      ? sql<number>`1`
      : sql<number>`exists (select 1 from ${wallets} where ${wallets.id} = ${f.walletId})`
    ).as("wallet_exists"),
  };
}

/**
 * How many entries match, for X-WP-Total, and the existence checks: always one row. Filtered by user
 * (and wallet) only, the balances' entry counts say it, a row per wallet whatever the history's
 * length (the ledger trigger keeps them, and entries are never deleted); a type or date filter
 * counts the matching entries.
 */
function entryCount(db: Db, f: FilterShape) {
  if (f.txnType !== undefined || f.afterS !== undefined || f.beforeS !== undefined)
    return db
      .select({ n: count().as("n"), ...existence(f) })
      .from(transactions)
      .where(filterWhere(f));
  return db
    .select({ n: sql<number>`coalesce(sum(${balances.entryCount}), 0)`.as("n"), ...existence(f) })
    .from(balances)
    .where(
      and(
        eq(balances.userId, f.userId),
        f.walletId === undefined ? undefined : eq(balances.walletId, f.walletId),
      ),
    );
}

/** What the one-row aggregates above answer about the user and the filtered wallet. */
const found = (row: { userExists: number; walletExists: number } | undefined) => ({
  userExists: row?.userExists === 1,
  walletExists: row?.walletExists === 1,
});

/**
 * A user's entries with their wallets, along the index whose order is (date, id) within the filter:
 * the wallet's when it names one. Named, as docs/scaling.md measures it: with statistics SQLite
 * may choose another index and sort every entry it reads.
 */
const entriesByDate = (db: Db, filter: Pick<EntryFilter, "walletId">) =>
  db
    .select({ ...ENTRY_WITH_WALLET, entry: columnsAsSql(ENTRY_COLUMNS) })
    .from(
      indexedBy(
        transactions,
        filter.walletId === undefined
          ? "transactions_user_created"
          : "transactions_user_wallet_created",
      ),
    )
    .innerJoin(wallets, eq(wallets.id, transactions.walletId));

/**
 * One page of a user's entries with their wallets, the total the WordPress headers report, and
 * whether the user and the filtered wallet exist: two statements, one round trip.
 */
export async function listEntries(db: Db, filter: EntryFilter, page: Page) {
  const shape = filterShape(filter);
  const direction = page.order === "asc" ? asc : desc;
  const values = { ...filter, limit: page.limit, offset: page.offset };
  const [rows, totals] = await db.$client.batch<Record<string, unknown>>([
    reads.statement(
      db,
      `entries ${page.order} ${shape.name}`,
      () =>
        entriesByDate(db, filter)
          .where(filterWhere(shape.placeholders()))
          .orderBy(direction(transactions.createdAtS), direction(transactions.id))
          .limit(sql.placeholder("limit"))
          .offset(sql.placeholder("offset")),
      values,
    ),
    reads.statement(
      db,
      `entry count ${shape.name}`,
      () => entryCount(db, shape.placeholders()),
      values,
    ),
  ]);
  const total = totals?.results[0];
  return {
    rows: rows?.results.map(entryRowOf) ?? [],
    total: Number(total?.n ?? 0),
    userExists: total?.user_exists === 1,
    walletExists: total?.wallet_exists === 1,
  };
}

/** A request id the plugin kept as meta: a credit's or a debit's, never a transfer half's. */
const namedRequest = sql`${transactions.transferId} IS NULL AND ${transactions.requestId} <> ''`;

/**
 * The entry fields the plugin kept as post meta, by its meta key, for its LIKE filter: each is
 * NULL where the plugin wrote no such meta (an empty note, a transfer half's request ids, the
 * partner of an entry that is not a transfer half), so the key does not find that entry.
 */
const META_COLUMNS = {
  request_id: sql`CASE WHEN ${namedRequest} THEN ${transactions.requestId} END`,
  // create-credits.php and create-debits.php: `$user_id . '_' . strtolower($request_id)`; SQLite's
  // lower() folds ASCII only, as strtolower did.
  txn_request_id: sql`CASE WHEN ${namedRequest}
    THEN ${transactions.userId} || '_' || lower(${transactions.requestId}) END`,
  user_id: sql`CAST(${transactions.userId} AS TEXT)`,
  amount: transactions.amountText,
  currency: transactions.walletId,
  funds_type: sql`'user_withdrawable_bal_' || ${transactions.walletId}`,
  txn_type: transactions.txnType,
  note: sql`NULLIF(${transactions.note}, '')`,
  // create-transfers.php completeTransfer: each half names the other's post id.
  alt_transfer_id: sql`(SELECT CAST(p.id AS TEXT) FROM transactions p
    WHERE p.transfer_id = ${transactions.transferId} AND p.id <> ${transactions.id})`,
} as const;
type MetaKey = keyof typeof META_COLUMNS;
/** MySQL compared meta keys without ASCII case (its `_ci` collation): `REQUEST_ID` is `request_id`. */
const entryMetaKey = (key: string) => {
  const folded = key.toLowerCase();
  return Object.hasOwn(META_COLUMNS, folded) ? (folded as MetaKey) : undefined;
};
/**
 * The longest key of a client's `meta_data` a search can name: WordPress's `meta_key` column
 * (varchar(255)), where the plugin stored each key, held no longer one. Any characters: the key is
 * compared as a bound parameter (searchEntries).
 */
const META_DATA_KEY_MAX = 255;
/** The meta keys a search can name: the entry's own fields, and keys of its `meta_data`. */
export const isMetaKey = (key: string) =>
  entryMetaKey(key) !== undefined || (key !== "" && withinChars(key, META_DATA_KEY_MAX));

export type MetaSearch = {
  /** A post meta's name: an entry's own field, or a key of its meta_data; any other matches nothing. */
  key: string;
  /** Matched as WordPress's LIKE '%value%': anywhere in the text, ASCII case ignored. */
  value: string;
  /** Only this user's entries (a subscriber's own). */
  userId?: number;
  order: { by: "date" | "id"; direction: "asc" | "desc" };
  offset: number;
  limit: number;
};

/** The plugin's meta-query list (includes/transactions/get-transactions.php fetchTransactions). */
export function searchEntries(db: Db, s: MetaSearch) {
  const own = entryMetaKey(s.key);
  const like = (text: SQLWrapper) =>
    s.value === "" ? sql`1` : sql`instr(lower(${text}), lower(${s.value})) > 0`;
  // A key matches only the entries that have it.
  const where = and(
    own
      ? sql`${META_COLUMNS[own]} IS NOT NULL AND ${like(META_COLUMNS[own])}`
      : sql`EXISTS (SELECT 1 FROM json_each(${transactions.metaData}) m
          WHERE lower(m.key) = lower(${s.key}) AND ${like(sql`CAST(m.value AS TEXT)`)})`,
    s.userId === undefined ? undefined : eq(transactions.userId, s.userId),
  );
  const direction = s.order.direction === "asc" ? asc : desc;
  // WordPress orders by post_date only; MySQL gave rows of one second in ID order.
  const order =
    s.order.by === "id"
      ? [direction(transactions.id)]
      : [direction(transactions.createdAtS), asc(transactions.id)];
  return entryWithWallet(db)
    .where(where)
    .orderBy(...order)
    .limit(s.limit)
    .offset(s.offset);
}

/**
 * Rows of a whole history's first read (a few hundred kilobytes of JSON, so its first bytes come
 * soon); the reads after it ask for more (db/client.ts keysetChunks).
 */
export const HISTORY_CHUNK = 500;

/**
 * All of a user's filtered entries, in order, a chunk at a time: the first chunk, the total and the
 * checks in one round trip, then one read per chunk after the last row seen (keyset, along
 * entriesByDate's index), each larger than the one before up to a cap (keysetChunks). Bounded by
 * the newest entry at the start, so an entry written meanwhile is not in it and the rows always add
 * up to `total`: entries never change once written.
 */
export async function readHistory(db: Db, filter: EntryFilter, order: "asc" | "desc") {
  const direction = order === "asc" ? asc : desc;
  const where = filterWhere(filter);
  const [first, totals] = await db.batch([
    entriesByDate(db, filter)
      .where(where)
      .orderBy(direction(transactions.createdAtS), direction(transactions.id))
      .limit(HISTORY_CHUNK),
    db
      .select({ n: count(), lastId: max(transactions.id), ...existence(filter) })
      .from(transactions)
      .where(where),
  ]);
  const lastId = totals[0]?.lastId ?? 0;
  const past = order === "asc" ? sql`>` : sql`<`;
  const chunks = keysetChunks(first, HISTORY_CHUNK, ({ entry }, size) => {
    const after = sql`(${transactions.createdAtS}, ${transactions.id}) ${past} (${entry.createdAtS}, ${entry.id})`;
    return entriesByDate(db, filter)
      .where(and(where, lte(transactions.id, lastId), after))
      .orderBy(direction(transactions.createdAtS), direction(transactions.id))
      .limit(size);
  });
  return { total: totals[0]?.n ?? 0, ...found(totals[0]), chunks };
}

export async function findEntry(db: Db, id: number) {
  const build = () => entryWithWallet(db).where(eq(transactions.id, sql.placeholder("id")));
  const row = await reads
    .statement(db, "entry by id", build, { id })
    .first<Record<string, unknown>>();
  return row === null ? undefined : entryRowOf(row);
}

/** A (user, wallet) pair, a balance's chain, as a key. */
export const pairKey = (p: { userId: number; walletId: string }) => `${p.userId}:${p.walletId}`;

/**
 * The balances (user, wallet) pairs hold now, and what the holds that count at `nowS` reserve of
 * each, by pairKey (none yet: absent; a pair without a balance has no hold).
 */
export async function pairBalances(
  db: Db,
  pairs: { userId: number; walletId: string }[],
  nowS: number,
) {
  const distinct = [...new Map(pairs.map((p) => [pairKey(p), p])).values()];
  // Two values bound a pair, and one the second: a run of 49 pairs fills one statement.
  const reads = inRuns(distinct, 49).map((run) =>
    db
      .select({
        userId: balances.userId,
        walletId: balances.walletId,
        balanceMinor: balances.balanceMinor,
        heldMinor: heldIn(sql`${balances}.user_id`, sql`${balances}.wallet_id`, nowS),
      })
      .from(balances)
      .where(
        or(
          ...run.map((p) => and(eq(balances.userId, p.userId), eq(balances.walletId, p.walletId))),
        ),
      ),
  );
  const rows = (await batchAll(db, reads)).flat();
  return new Map(
    rows.map((r) => [pairKey(r), { balanceMinor: r.balanceMinor, heldMinor: r.heldMinor }]),
  );
}

/** The entries a transfer wrote, found by its transfer id (each transfer draws its own). */
export const transferHalves = (db: Db, transferId: string) =>
  db
    .select({ id: transactions.id, txnType: transactions.txnType })
    .from(transactions)
    .where(eq(transactions.transferId, transferId));

/** The entry with this id and, when it is half of a transfer, the other half; with their owners' names. */
export async function findMovement(db: Db, id: number) {
  const sameTransfer = sql`${transactions.transferId} = (SELECT transfer_id FROM ${transactions} WHERE id = ${id})`;
  return db
    .select({ entry: transactions, username: users.username })
    .from(transactions)
    .innerJoin(users, eq(users.id, transactions.userId))
    .where(or(eq(transactions.id, id), sameTransfer))
    .orderBy(asc(transactions.id));
}

/** The other half of an entry's transfer, joined as `partner` (none for an entry of no transfer). */
const partner = alias(transactions, "partner");
const isPartner = and(
  eq(partner.transferId, transactions.transferId),
  ne(partner.id, transactions.id),
);

/**
 * Entry `id` (none: no such entry) with what tells which movement wrote it: the transfer, reversal,
 * hold or batch it belongs to (null: none) and the user of its transfer's other half.
 */
export async function findEntryMovement(db: Db, id: number) {
  const [row] = await db
    .select({
      userId: transactions.userId,
      txnType: transactions.txnType,
      walletId: transactions.walletId,
      amountText: transactions.amountText,
      transferId: transactions.transferId,
      reversesId: transactions.reversesId,
      holdId: transactions.holdId,
      batchId: transactions.batchId,
      // Named apart, as every aliased column here: a metered binding answers rows keyed by column
      // name (db/meter.ts), where names that repeat would read as one.
      partnerUserId: sql<number | null>`${partner.userId}`.as("partner_user_id"),
    })
    .from(transactions)
    .leftJoin(partner, isPartner)
    .where(eq(transactions.id, id))
    .limit(1);
  return row;
}

/**
 * Entry `id` (none: no such entry) as a reversal: the entry it reverses (null: none) and that
 * entry's transfer, beside entry `txn`'s transfer.
 */
export async function findEntryReversal(db: Db, id: number, txn: number) {
  const reversed = alias(transactions, "reversed");
  const named = alias(transactions, "named");
  const [row] = await db
    .select({
      reversesId: transactions.reversesId,
      reversedTransferId: sql<string | null>`${reversed.transferId}`.as("reversed_transfer_id"),
      namedTransferId: sql<string | null>`${named.transferId}`.as("named_transfer_id"),
    })
    .from(transactions)
    .leftJoin(reversed, eq(reversed.id, transactions.reversesId))
    .leftJoin(named, eq(named.id, txn))
    .where(eq(transactions.id, id));
  return row;
}

/**
 * The plugin's three transaction lists: every credit and every debit (a transfer's halves among
 * them, as its posts carried the CREDIT or DEBIT term too), and transfer halves.
 */
export type EntryKind = "credits" | "debits" | "transfers";

const KIND_WHERE: Record<EntryKind, SQL> = {
  credits: sql`${transactions.txnType} = 'CREDIT'`,
  debits: sql`${transactions.txnType} = 'DEBIT'`,
  transfers: sql`${transactions.transferId} IS NOT NULL`,
};

/** Entries with their wallet, owner, and the other half of a transfer (`partner`). */
function kindQuery(db: Db) {
  const partnerUser = alias(users, "partner_user");
  return db
    .select({
      ...ENTRY_WITH_WALLET,
      // Named apart: D1 answers a batch's rows keyed by column name, and these names repeat.
      username: sql<string | null>`${users.username}`.as("owner_username"),
      partnerId: sql<number | null>`${partner.id}`.as("partner_id"),
      partnerUsername: sql<string | null>`${partnerUser.username}`.as("partner_username"),
    })
    .from(transactions)
    .innerJoin(wallets, eq(wallets.id, transactions.walletId))
    .leftJoin(users, eq(users.id, transactions.userId))
    .leftJoin(partner, isPartner)
    .leftJoin(partnerUser, eq(partnerUser.id, partner.userId));
}

/** One page of a kind of entry, newest first, and the kind's total. */
export async function listKind(db: Db, kind: EntryKind, offset: number, limit: number) {
  const [rows, totals] = await db.batch([
    kindQuery(db)
      .where(KIND_WHERE[kind])
      .orderBy(desc(transactions.createdAtS), desc(transactions.id))
      .limit(limit)
      .offset(offset),
    db.select({ n: count() }).from(transactions).where(KIND_WHERE[kind]),
  ]);
  return { rows, total: totals[0]?.n ?? 0 };
}

export type KindRow = Awaited<ReturnType<typeof listKind>>["rows"][number];

/** One entry of a kind by id (the plugin's `credit_id`, `debit_id`, `transfer_id`). */
export async function findKind(db: Db, kind: EntryKind, id: number) {
  const rows = await kindQuery(db).where(and(KIND_WHERE[kind], eq(transactions.id, id)));
  return rows[0];
}

/**
 * The newest entries of these (user, wallet)s, newest first, each entry's balance before it and what
 * the holds that counted for a write judged at `judgedAtS` reserved then (db/holds.ts heldWhenJudged):
 * what a refused batch's replay undoes one at a time when the balances now would no longer refuse it
 * (money arrived after the database refused the batch), and the plugin's transfer refusal to name the
 * balance it was refused at. At most NEWEST_ENTRIES of each pair, and only as far back as every
 * pair's entries are all read, so each step back is a state the ledger was in.
 */
export async function newestEntries(
  db: Db,
  pairs: { userId: number; walletId: string }[],
  judgedAtS: number,
) {
  const limit = NEWEST_ENTRIES;
  // Named with its table: written unqualified, the holds' subquery would read it as its own id.
  const entryId = sql`${transactions}.id`;
  const queries = pairs.map(({ userId, walletId }) => {
    const newest = newestPoints(db, userId, walletId, limit).as("newest");
    return db
      .select({
        id: transactions.id,
        userId: transactions.userId,
        walletId: transactions.walletId,
        balanceBeforeMinor: transactions.balanceBeforeMinor,
        heldMinor: heldWhenJudged(userId, walletId, judgedAtS, entryId),
      })
      .from(newest)
      .innerJoin(transactions, eq(transactions.id, newest.entryId));
  });
  const results = await batchAll(db, queries);
  // Past the oldest entry read of a pair that has more, that pair's balance would be unknown.
  const oldest = (r: { id: number }[]) => Math.min(...r.map((e) => e.id));
  const floor = Math.max(0, ...results.filter((r) => r.length === limit).map(oldest));
  return results
    .flat()
    .filter((e) => e.id >= floor)
    .sort((a, b) => b.id - a.id);
}

/** How far back a refusal's replay may walk: each wallet's newest entries. */
const NEWEST_ENTRIES = 20;
