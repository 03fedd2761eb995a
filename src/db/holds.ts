// Reads of holds (docs/ledger.md#holds). Which holds count against a balance is written here once
// for reads and ledger/holds.ts, and in the guards of drizzle/0012_holds.sql for writes: 'held' and
// not yet expired.
import { and, asc, count, desc, eq, type SQL, sql } from "drizzle-orm";
import { batchAll, type Db } from "./client";
import { balances, type Hold, holds, transactions, users, wallets } from "./schema";
import { newestPoints } from "./timeline";

export type { Hold };
export type HoldStatus = Hold["status"];

/** The holds that count against the available balance at `nowS` (whole seconds). */
export const counting = (nowS: number) =>
  sql`${holds.status} = 'held' AND ${holds.expiresAtS} > ${nowS}`;

/** The holds still 'held' whose time ran out by `nowS`: expired, not yet recorded as such. */
export const ranOut = (nowS: number) =>
  sql`${holds.status} = 'held' AND ${holds.expiresAtS} <= ${nowS}`;

/**
 * The holds that counted at `atS` for a write judged then, read a moment later: placed by then, not
 * expired then, and not resolved before then (one captured or voided since still counts).
 */
const countedWhenJudged = (atS: number) =>
  sql`${holds.createdAtS} <= ${atS} AND ${holds.expiresAtS} > ${atS} AND (${holds.status} = 'held' OR ${holds.resolvedAtS} >= ${atS})`;

/**
 * What the holds that count reserve of a user's balance in a wallet at `nowS`; `placed`: of those
 * placed by then only (a refusal's replay: one dated later came after the refused write, unless its
 * writer's clock was ahead).
 */
export const heldIn = (
  userId: number | SQL,
  walletId: string | SQL,
  nowS: number,
  at: "now" | "placed" = "now",
) =>
  sql<number>`(SELECT coalesce(sum(${holds.amountMinor}), 0) FROM ${holds}
    WHERE ${holds.userId} = ${userId} AND ${holds.walletId} = ${walletId} AND ${counting(nowS)}${
      at === "placed" ? sql` AND ${holds.createdAtS} <= ${nowS}` : sql``
    })`.as("held_minor");

/**
 * What the holds that counted for a write judged at `atS` reserved, had it been judged right after
 * the user's entries in the wallet (before entry `before`, when given): a hold captured by then is
 * gone, its DEBIT in the balance there, and one captured after still counts. A hold's capture is
 * ordered among the entries by its DEBIT's id (transactions.hold_id); a void or an expiry is not,
 * so a hold voided since still counts.
 */
export const heldWhenJudged = (userId: number, walletId: string, atS: number, before?: SQL) =>
  sql<number>`(SELECT coalesce(sum(${holds.amountMinor}), 0) FROM ${holds}
    WHERE ${holds.userId} = ${userId} AND ${holds.walletId} = ${walletId} AND ${countedWhenJudged(atS)}
      AND NOT (${holds.status} = 'captured'${
        before === undefined
          ? sql``
          : sql` AND (SELECT x.id FROM ${transactions} x WHERE x.hold_id = ${holds}.id) < ${before}`
      }))`;

/** The holds answered with a status at `nowS`: a 'held' one whose time ran out is expired already. */
function withStatus(status: HoldStatus, nowS: number): SQL {
  if (status === "held") return counting(nowS);
  if (status === "expired") return sql`(${holds.status} = 'expired' OR (${ranOut(nowS)}))`;
  return sql`${holds.status} = ${status}`;
}

/**
 * The DEBIT a capture wrote (transactions.hold_id is UNIQUE), or null. The outer row is named in
 * full: Drizzle writes a one-table query's columns unqualified, which the subquery would take as its own.
 */
const captureEntry = sql<
  number | null
>`(SELECT t.id FROM ${transactions} t WHERE t.hold_id = ${holds}.id)`.as("capture_entry_id");

/** One hold, its owner's username and its capture's entry. */
export const findHold = (db: Db, id: number) =>
  db
    .select({ hold: holds, username: users.username, transactionId: captureEntry })
    .from(holds)
    .innerJoin(users, eq(users.id, holds.userId))
    .where(eq(holds.id, id))
    .get();

/** Holds with their capture's entry (their own columns only: D1 keys a batch's rows by name). */
const holdRows = (db: Db) => db.select({ hold: holds, transactionId: captureEntry }).from(holds);

/** A hold as a batch reads it after a write. */
export const holdAfter = (db: Db, id: number) => holdRows(db).where(eq(holds.id, id));

type HoldFilter = { userId: number; walletId?: string; status?: HoldStatus; nowS: number };

/** One page of a user's holds, newest first, their total, and whether the user and wallet exist. */
export async function listHolds(db: Db, f: HoldFilter, page: { offset: number; limit: number }) {
  const where = and(
    eq(holds.userId, f.userId),
    f.walletId === undefined ? undefined : eq(holds.walletId, f.walletId),
    f.status === undefined ? undefined : withStatus(f.status, f.nowS),
  );
  const [userRows, walletRows, rows, total] = await db.batch([
    db.select({ id: users.id }).from(users).where(eq(users.id, f.userId)),
    db
      .select({ id: wallets.id })
      .from(wallets)
      .where(eq(wallets.id, f.walletId ?? "")),
    holdRows(db).where(where).orderBy(desc(holds.id)).limit(page.limit).offset(page.offset),
    db.select({ n: count() }).from(holds).where(where),
  ]);
  return {
    rows,
    total: total[0]?.n ?? 0,
    userExists: userRows.length > 0,
    walletExists: f.walletId === undefined || walletRows.length > 0,
  };
}

/** Each wallet a user has a balance in, with what counting holds reserve of it at `nowS`. */
export async function balancesWithHolds(db: Db, userId: number, nowS: number) {
  const [userRows, rows] = await db.batch([
    db.select({ id: users.id }).from(users).where(eq(users.id, userId)),
    db
      .select({
        wallet: wallets,
        balanceMinor: balances.balanceMinor,
        heldMinor: heldIn(sql`${balances}.user_id`, sql`${balances}.wallet_id`, nowS),
      })
      .from(balances)
      .innerJoin(wallets, eq(wallets.id, balances.walletId))
      .where(eq(balances.userId, userId))
      .orderBy(asc(balances.walletId)),
  ]);
  return { userExists: userRows.length > 0, rows };
}

/**
 * One user's position in one wallet, in one round trip: whether both exist, the balance and entry
 * count (the balance row's), what counting holds reserve at `nowS`, and the chain's newest entry.
 */
export async function walletPosition(db: Db, userId: number, walletId: string, nowS: number) {
  const newest = newestPoints(db, userId, walletId, 1).as("newest");
  const [userRows, walletRows, balanceRows, lastRows] = await db.batch([
    db.select({ id: users.id }).from(users).where(eq(users.id, userId)),
    db.select().from(wallets).where(eq(wallets.id, walletId)),
    db
      .select({
        balanceMinor: balances.balanceMinor,
        entryCount: balances.entryCount,
        heldMinor: heldIn(userId, walletId, nowS),
      })
      .from(balances)
      .where(and(eq(balances.userId, userId), eq(balances.walletId, walletId))),
    db
      .select({
        id: transactions.id,
        txnType: transactions.txnType,
        amountMinor: transactions.amountMinor,
        createdAtS: transactions.createdAtS,
      })
      .from(newest)
      .innerJoin(transactions, eq(transactions.id, newest.entryId)),
  ]);
  return {
    userExists: userRows.length > 0,
    wallet: walletRows[0],
    balance: balanceRows[0],
    last: lastRows[0],
  };
}

/**
 * Each (user, wallet)'s balance and what holds reserve, twice, for naming a write the database
 * refused at `atS` a moment ago: `now`, the balance as it stands and the holds still held that
 * counted at `atS`, placed by then (a hold whose time ran out since still counts: the clock moving
 * is no write; one dated a second later came after the write, unless its writer's clock was ahead);
 * `judged`, the same balance and the holds that counted at `atS` less those captured since
 * (heldWhenJudged: a hold voided since still counts, one placed since does not). Dates are whole
 * seconds, so neither can tell a hold placed or voided in the second `atS` before the write from one
 * after it; `now` is exact when nothing was written in between, so a refusal is named from it
 * whenever it refuses.
 */
export async function refusedPositions(
  db: Db,
  pairs: { userId: number; walletId: string }[],
  atS: number,
) {
  const queries = pairs.map(({ userId, walletId }) =>
    db
      .select({
        balanceMinor: sql<number>`coalesce((SELECT ${balances.balanceMinor} FROM ${balances}
          WHERE ${balances.userId} = ${userId} AND ${balances.walletId} = ${walletId}), 0)`,
        heldMinor: heldIn(userId, walletId, atS, "placed"),
        judgedHeldMinor: heldWhenJudged(userId, walletId, atS),
      })
      .from(sql`(SELECT 1)`),
  );
  const results = await batchAll(db, queries);
  return results.map((rows) => {
    const r = rows[0] ?? { balanceMinor: 0, heldMinor: 0, judgedHeldMinor: 0 };
    // What a state of the replay reads, given what the holds that counted reserve there (a hold
    // voided since still counting): a balance below that was never the ledger's (the guards refuse
    // one), so such holds were voided before that state; what counts there is then as they stand,
    // and those captured after it (heldWhenJudged) still held.
    const at = (balanceMinor: number, judgedHeldMinor: number) => ({
      balanceMinor,
      heldMinor:
        judgedHeldMinor <= 0 || balanceMinor >= judgedHeldMinor
          ? judgedHeldMinor
          : judgedHeldMinor - r.judgedHeldMinor + r.heldMinor,
    });
    return {
      now: { balanceMinor: r.balanceMinor, heldMinor: r.heldMinor },
      judged: at(r.balanceMinor, r.judgedHeldMinor),
      at,
    };
  });
}
