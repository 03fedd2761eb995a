// Balances at a point in time and statements, read from the balance timeline (db/timeline.ts).
import { and, asc, between, eq, getTableColumns, inArray, lte, type SQL, sql } from "drizzle-orm";
import { type Db, keysetChunks } from "./client";
import { exactSum, readExactSum } from "./exact-sum";
import { ENTRY_WITH_WALLET } from "./ledger";
import { balanceTimeline, transactions, users, wallets } from "./schema";
import { balanceAt, onChain } from "./timeline";

/**
 * The wallets named, whether the user exists, and the user's balance in each wallet at `atS`
 * (readBalances' shape): one round trip, one index row per wallet whatever the history's length.
 */
export async function readBalancesAt(db: Db, userId: number, walletIds: string[], atS: number) {
  const [walletRows, userRows] = await db.batch([
    db
      .select({
        ...getTableColumns(wallets),
        atMinor: balanceAt(userId, sql`${wallets.id}`, atS).as("at_minor"),
      })
      .from(wallets)
      .where(inArray(wallets.id, walletIds)),
    db.select({ id: users.id }).from(users).where(eq(users.id, userId)),
  ]);
  return {
    wallets: new Map(walletRows.map(({ atMinor: _, ...w }) => [w.id, w])),
    userExists: userRows.length > 0,
    balances: new Map(walletRows.map((w) => [w.id, w.atMinor ?? 0])),
  };
}

/** An entry's amount when it is of `type`, else NULL (which sums leave out). */
export const amountOf = (type: "CREDIT" | "DEBIT") =>
  sql`CASE WHEN ${transactions.txnType} = ${sql.raw(`'${type}'`)} THEN ${transactions.amountMinor} END`;

export type StatementRange = { userId: number; walletId: string; fromS: number; toS: number };

const inRange = (r: StatementRange) =>
  and(onChain(r.userId, r.walletId), between(balanceTimeline.atS, r.fromS, r.toS));

/** A statement's entries with their wallets, in the order the chain holds them. */
const statementRows = (db: Db, where: SQL | undefined) =>
  db
    .select({ ...ENTRY_WITH_WALLET, atS: balanceTimeline.atS, seq: balanceTimeline.seq })
    .from(balanceTimeline)
    .innerJoin(transactions, eq(transactions.id, balanceTimeline.entryId))
    .innerJoin(wallets, eq(wallets.id, transactions.walletId))
    .where(where)
    .orderBy(asc(balanceTimeline.atS), asc(balanceTimeline.seq));

export type StatementRow = Awaited<ReturnType<ReturnType<typeof statementRows>["limit"]>>[number];

/**
 * A statement's head and its first rows, in one round trip: the wallet, whether the user exists, the
 * balances before `fromS` and at `toS`, the count and exact sums (db/exact-sum.ts) of
 * the entries between, the newest of them (`lastSeq`, which bounds any later read), and a page.
 */
export async function readStatement(
  db: Db,
  r: StatementRange,
  page: { offset: number; limit: number },
) {
  const [walletRows, userRows, totals, rows] = await db.batch([
    db.select().from(wallets).where(eq(wallets.id, r.walletId)),
    db.select({ id: users.id }).from(users).where(eq(users.id, r.userId)),
    db
      .select({
        opening: balanceAt(r.userId, r.walletId, r.fromS - 1).as("opening"),
        closing: balanceAt(r.userId, r.walletId, r.toS).as("closing"),
        count: sql<number>`count(*)`.as("n"),
        inMinor: exactSum(amountOf("CREDIT")).as("in_minor"),
        outMinor: exactSum(amountOf("DEBIT")).as("out_minor"),
        lastSeq: sql<number | null>`max(${balanceTimeline.seq})`.as("last_seq"),
      })
      .from(balanceTimeline)
      .innerJoin(transactions, eq(transactions.id, balanceTimeline.entryId))
      .where(inRange(r)),
    statementRows(db, inRange(r)).limit(page.limit).offset(page.offset),
  ]);
  const total = totals[0]!;
  return {
    wallet: walletRows[0],
    userExists: userRows.length > 0,
    openingMinor: total.opening ?? 0,
    closingMinor: total.closing ?? 0,
    count: total.count,
    inMinor: readExactSum(total.inMinor),
    outMinor: readExactSum(total.outMinor),
    lastSeq: total.lastSeq ?? 0,
    rows,
  };
}

/**
 * The statement's rows after `after`, a chunk at a time (keyset on the timeline's index), up to the
 * newest point its head counted: an entry written meanwhile is not in it, so the rows always add up
 * to the head's totals. `chunk`: the rows the head's read asked for (the reads after it ask for
 * more: keysetChunks).
 */
export const statementChunks = (
  db: Db,
  r: StatementRange,
  first: StatementRow[],
  lastSeq: number,
  chunk: number,
) =>
  keysetChunks(first, chunk, (last, size) => {
    const after = sql`(${balanceTimeline.atS}, ${balanceTimeline.seq}) > (${last.atS}, ${last.seq})`;
    return statementRows(db, and(inRange(r), lte(balanceTimeline.seq, lastSeq), after)).limit(size);
  });
