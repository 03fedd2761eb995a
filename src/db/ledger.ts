import {
  and,
  asc,
  count,
  desc,
  eq,
  gt,
  inArray,
  lt,
  lte,
  max,
  or,
  type SQL,
  sql,
} from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import { SLUG_MAX } from "../ledger/post-format";
import { requestKey as keyOf } from "../ledger/request-key";
import type { Db } from "./client";
import { balances, transactions, users, wallets } from "./schema";

export type NewEntry = {
  userId: number;
  walletId: string;
  txnType: "CREDIT" | "DEBIT";
  amountMinor: number;
  amountText: string;
  requestId: string;
  /** False for entries no client request names (a transfer's receiving half). */
  keyed: boolean;
  note: string;
  title: string;
  slugBase: string;
  createdAtS: number;
  transferId?: string;
  reversesId?: number;
};

/** Why the database refused a movement: a CHECK on the entry failed, so the whole batch rolled back. */
export class LedgerRefusal extends Error {
  constructor(readonly reason: "insufficient-balance" | "balance-limit" | "already-reversed") {
    super(reason);
  }
}

/**
 * WordPress's wp_unique_post_slug as one SQL expression: `base` when no entry has that slug, else
 * the first free `base-N` for N = 2, 3, … (the base cut so the whole stays within SLUG_MAX, as
 * _truncate_post_slug does), probing the actual slugs through the UNIQUE index, which backs it
 * (`slug <> ''` repeats the partial index's condition, so SQLite's planner may use it).
 */
function uniqueSlug(base: string) {
  const candidate = (n: SQL) =>
    sql`rtrim(substr(${base}, 1, ${SLUG_MAX - 1} - length(${n})), '-') || '-' || ${n}`;
  return sql`(WITH RECURSIVE probe(n) AS (
      SELECT 2 WHERE EXISTS (SELECT 1 FROM ${transactions} WHERE slug = ${base} AND slug <> '')
      UNION ALL
      SELECT n + 1 FROM probe WHERE EXISTS (SELECT 1 FROM ${transactions} WHERE slug = ${candidate(sql`n`)} AND slug <> '')
    ) SELECT coalesce(${candidate(sql`max(n)`)}, ${base}) FROM probe)`;
}

/**
 * One ledger entry as a single INSERT … SELECT, so the balance it starts from, its slug and its
 * idempotency check are all read inside the statement that writes it (D1 runs one statement,
 * and one batch, at a time). A keyed entry writes nothing when its (user, request_id) is used; a
 * later entry of a movement writes only if the first one did (`after`, the movement's transfer id).
 * An overdraft (a debit that leaves the balance below zero and lower than it was) fails the
 * `transactions_no_overdraft` CHECK and so aborts the batch.
 */
function insertEntry(db: Db, e: NewEntry, after?: string) {
  const requestKey = e.keyed ? keyOf(e.requestId) : null;
  const signed = e.txnType === "CREDIT" ? e.amountMinor : -e.amountMinor;
  // Guards in the WHERE, not only ON CONFLICT: a CHECK (overdraft) is judged before a conflict is.
  // D1 binds JS numbers as REAL: the CASTs keep the balance arithmetic in 64-bit integers.
  const once = after
    ? sql`EXISTS (SELECT 1 FROM ${transactions} WHERE transfer_id = ${after})`
    : sql`NOT EXISTS (SELECT 1 FROM ${transactions} WHERE user_id = ${e.userId} AND request_key = ${requestKey})`;
  // The first entry of a movement skips quietly when its reversal is already done (a clean 409);
  // a later one must never skip alone, so the transactions_reversed_once trigger (backed by
  // UNIQUE(reverses_id)) fails it and aborts the batch.
  const guard =
    e.reversesId === undefined || after
      ? once
      : sql`${once} AND NOT EXISTS (SELECT 1 FROM ${transactions} WHERE reverses_id = ${e.reversesId})`;
  // Drizzle lists every column of the table, in schema order; the SELECT answers each of them (the
  // trailing NULLs are guid, local_date, modified_local_date, modified_gmt_date, set only by imports,
  // and the 0 is `imported`: the service's entries keep the no-zero and no-overdraft rules).
  const row = sql`
    SELECT NULL, ${e.userId}, ${e.walletId}, ${e.txnType}, CAST(${e.amountMinor} AS INTEGER), ${e.amountText}, b.minor,
      b.minor + CAST(${signed} AS INTEGER),
      ${e.requestId}, ${requestKey}, ${e.transferId ?? null}, ${e.reversesId ?? null}, ${e.note}, ${e.title}, ${e.slugBase},
      ${uniqueSlug(e.slugBase)},
      ${e.createdAtS}, NULL, NULL, NULL, NULL, 0
    FROM (SELECT coalesce((SELECT balance_minor FROM ${balances} WHERE user_id = ${e.userId} AND wallet_id = ${e.walletId}), 0) AS minor) b
    WHERE ${guard}`;
  const insert = db.insert(transactions).select(row);
  return (after ? insert : insert.onConflictDoNothing()).returning({ id: transactions.id });
}

const entryFor = (db: Db, userId: number, requestId: string) =>
  db
    .select({ id: transactions.id })
    .from(transactions)
    .where(and(eq(transactions.userId, userId), eq(transactions.requestKey, keyOf(requestId))));

export type AppendResult =
  | { created: true; ids: number[] }
  | { created: false; existingId: number | undefined };

function refusal(err: unknown) {
  const text = `${String(err)} ${String((err as { cause?: unknown })?.cause)}`;
  if (text.includes("transactions_no_overdraft")) return new LedgerRefusal("insufficient-balance");
  if (text.includes("transactions_balance_limit")) return new LedgerRefusal("balance-limit");
  if (text.includes("transactions.reverses_id") || text.includes("transactions_reverses"))
    return new LedgerRefusal("already-reversed");
  return err;
}

/**
 * Appends a movement (one entry, or the linked entries of a transfer or reversal) in one batch: all
 * of it or none. The first entry carries the client's request_id; a replay reports the entry that
 * request already made (`existingId`), and a skipped movement without one lost a uniqueness race.
 */
export async function appendEntries(
  db: Db,
  [first, ...rest]: [NewEntry, ...NewEntry[]],
): Promise<AppendResult> {
  let results: readonly unknown[];
  try {
    const statements: [BatchItem<"sqlite">, ...BatchItem<"sqlite">[]] = [
      insertEntry(db, first),
      ...rest.map((e) => insertEntry(db, e, first.transferId)),
      entryFor(db, first.userId, first.requestId),
    ];
    results = await db.batch(statements);
  } catch (err) {
    throw refusal(err);
  }
  const inserted = results.slice(0, -1) as { id: number }[][];
  const existing = results.at(-1) as { id: number }[];
  if (inserted.every((rows) => rows.length === 1))
    return { created: true, ids: inserted.map((rows) => rows[0]!.id) };
  return { created: false, existingId: existing[0]?.id };
}

/** Wallet definitions, user existence and balances in one round trip; reads one row per wallet. */
export async function readBalances(db: Db, userId: number, walletIds: string[]) {
  const [walletRows, userRows, balanceRows] = await db.batch([
    db.select().from(wallets).where(inArray(wallets.id, walletIds)),
    db.select({ id: users.id }).from(users).where(eq(users.id, userId)),
    db
      .select({ walletId: balances.walletId, minor: balances.balanceMinor })
      .from(balances)
      .where(and(eq(balances.userId, userId), inArray(balances.walletId, walletIds))),
  ]);
  return {
    wallets: new Map(walletRows.map((w) => [w.id, w])),
    userExists: userRows.length > 0,
    balances: new Map(balanceRows.map((r) => [r.walletId, r.minor])),
  };
}

export type EntryFilter = {
  userId: number;
  walletId?: string;
  txnType?: "CREDIT" | "DEBIT";
  afterS?: number;
  beforeS?: number;
};

function filterWhere(f: EntryFilter): SQL | undefined {
  return and(
    eq(transactions.userId, f.userId),
    f.walletId === undefined ? undefined : eq(transactions.walletId, f.walletId),
    f.txnType === undefined ? undefined : eq(transactions.txnType, f.txnType),
    f.afterS === undefined ? undefined : gt(transactions.createdAtS, f.afterS),
    f.beforeS === undefined ? undefined : lt(transactions.createdAtS, f.beforeS),
  );
}

// Only wallet columns whose names the entry does not share: D1 returns rows keyed by column name.
const entryWithWallet = (db: Db) =>
  db
    .select({
      entry: transactions,
      symbol: wallets.symbol,
      symbolPosition: wallets.symbolPosition,
      decimals: wallets.decimals,
      extraDecimals: wallets.extraDecimals,
    })
    .from(transactions)
    .leftJoin(wallets, eq(wallets.id, transactions.walletId));

export type Page = { offset: number; limit: number; order: "asc" | "desc" };

/**
 * One page of a user's entries with their wallets, the total the WordPress headers report, and
 * whether the user and the filtered wallet exist: one round trip.
 */
export async function listEntries(db: Db, filter: EntryFilter, page: Page) {
  const direction = page.order === "asc" ? asc : desc;
  const where = filterWhere(filter);
  const [userRows, walletRows, rows, total] = await db.batch([
    db.select({ id: users.id }).from(users).where(eq(users.id, filter.userId)),
    db
      .select({ id: wallets.id })
      .from(wallets)
      .where(eq(wallets.id, filter.walletId ?? "")),
    entryWithWallet(db)
      .where(where)
      .orderBy(direction(transactions.createdAtS), direction(transactions.id))
      .limit(page.limit)
      .offset(page.offset),
    db.select({ n: count() }).from(transactions).where(where),
  ]);
  return {
    rows,
    total: total[0]?.n ?? 0,
    userExists: userRows.length > 0,
    walletExists: filter.walletId === undefined || walletRows.length > 0,
  };
}

export type EntryRow = Awaited<ReturnType<typeof listEntries>>["rows"][number];

/** The entry fields the plugin kept as post meta, by its meta key, for its LIKE filter. */
const META_COLUMNS = {
  request_id: transactions.requestId,
  user_id: sql`CAST(${transactions.userId} AS TEXT)`,
  amount: transactions.amountText,
  currency: transactions.walletId,
  txn_type: transactions.txnType,
  note: transactions.note,
} as const;
export type MetaKey = keyof typeof META_COLUMNS;
export const isMetaKey = (key: string): key is MetaKey => Object.hasOwn(META_COLUMNS, key);

export type MetaSearch = {
  key: MetaKey;
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
  const column = META_COLUMNS[s.key];
  const where = and(
    s.value === "" ? undefined : sql`instr(lower(${column}), lower(${s.value})) > 0`,
    // An empty note was never stored as post meta, so the plugin's key filter skipped it.
    s.key === "note" ? sql`${transactions.note} <> ''` : undefined,
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

/** Rows per read of a whole history: a few hundred kilobytes of JSON at a time. */
export const HISTORY_CHUNK = 500;

/**
 * All of a user's filtered entries, in order, a chunk at a time: the first chunk, the total and the
 * checks in one round trip, then one read per chunk after the last row seen (keyset, through the
 * (user, date, id) index). Bounded by the newest entry at the start, so an entry written meanwhile
 * is not in it and the rows always add up to `total`: entries never change once written.
 */
export async function readHistory(db: Db, filter: EntryFilter, order: "asc" | "desc") {
  const direction = order === "asc" ? asc : desc;
  const where = filterWhere(filter);
  const [userRows, walletRows, first, totals] = await db.batch([
    db.select({ id: users.id }).from(users).where(eq(users.id, filter.userId)),
    db
      .select({ id: wallets.id })
      .from(wallets)
      .where(eq(wallets.id, filter.walletId ?? "")),
    entryWithWallet(db)
      .where(where)
      .orderBy(direction(transactions.createdAtS), direction(transactions.id))
      .limit(HISTORY_CHUNK),
    db
      .select({ n: count(), lastId: max(transactions.id) })
      .from(transactions)
      .where(where),
  ]);
  const lastId = totals[0]?.lastId ?? 0;
  const past = order === "asc" ? sql`>` : sql`<`;
  async function* chunks(): AsyncGenerator<EntryRow[]> {
    let rows = first;
    while (rows.length > 0) {
      yield rows;
      if (rows.length < HISTORY_CHUNK) return;
      const { entry } = rows.at(-1)!;
      const after = sql`(${transactions.createdAtS}, ${transactions.id}) ${past} (${entry.createdAtS}, ${entry.id})`;
      rows = await entryWithWallet(db)
        .where(and(where, lte(transactions.id, lastId), after))
        .orderBy(direction(transactions.createdAtS), direction(transactions.id))
        .limit(HISTORY_CHUNK);
    }
  }
  return {
    total: totals[0]?.n ?? 0,
    userExists: userRows.length > 0,
    walletExists: filter.walletId === undefined || walletRows.length > 0,
    chunks: chunks(),
  };
}

export const findEntry = (db: Db, id: number) =>
  entryWithWallet(db).where(eq(transactions.id, id)).get();

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
