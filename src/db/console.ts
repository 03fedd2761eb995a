// Read-only aggregates for the operator console (src/console/): what no API route answers. The
// console reaches them as it reaches everything, through the service's verbs (wallet/operators.ts).
import { and, asc, count, desc, eq, gte, inArray, ne, or, sql } from "drizzle-orm";
import type { Db } from "./client";
import { exactSum, readExactSum } from "./exact-sum";
import { balances, transactions, users, wallets } from "./schema";
import { amountOf } from "./statements";
import { newestPoints } from "./timeline";
import { passwordUsable } from "./users";

const DAY_S = 86_400;

/**
 * Totals held per wallet, the number of users, money in and out per UTC day (`days`: each day's
 * first second, oldest first, today's last), and the latest entries.
 */
export async function overview(db: Db, nowS: number, days: number) {
  const sinceS = Math.floor(nowS / DAY_S) * DAY_S - (days - 1) * DAY_S;
  const holders = db.selectDistinct({ userId: balances.userId }).from(balances).as("holders");
  const [held, userCount, daily, latest] = await db.batch([
    db
      .select({
        wallet: wallets,
        held: exactSum(sql`${balances.balanceMinor}`).as("held"),
        // The users whose balance holds some of it: one gone back to zero holds none.
        holders: sql<number>`count(nullif(${balances.balanceMinor}, 0))`.as("holders"),
      })
      .from(wallets)
      .leftJoin(balances, eq(balances.walletId, wallets.id))
      .groupBy(wallets.id)
      .orderBy(asc(wallets.id)),
    db.select({ n: count() }).from(users),
    db
      .select({
        // A literal, not a parameter: D1 binds numbers as REAL, which would make the division exact.
        day: sql<number>`(${transactions.createdAtS} / ${sql.raw(String(DAY_S))}) * ${sql.raw(String(DAY_S))}`.as(
          "day",
        ),
        walletId: transactions.walletId,
        credits: exactSum(amountOf("CREDIT")).as("credits"),
        debits: exactSum(amountOf("DEBIT")).as("debits"),
      })
      // Each user's entries of the window, searched on transactions_user_created for every user
      // with a balance (every entry's user has one): the ledger has no index by date, and a filter
      // on the date alone scans every entry, holding up D1's one writer for seconds at millions.
      // CROSS JOIN keeps those users the outer loop.
      .from(holders)
      .crossJoin(transactions)
      .where(and(eq(transactions.userId, holders.userId), gte(transactions.createdAtS, sinceS)))
      .groupBy(sql`1`, transactions.walletId),
    db
      .select({ entry: transactions, username: users.username })
      .from(transactions)
      .leftJoin(users, eq(users.id, transactions.userId))
      .orderBy(desc(transactions.id))
      .limit(10),
  ]);
  return {
    held: held.map((h) => ({ ...h, held: readExactSum(h.held) })),
    users: userCount[0]?.n ?? 0,
    daily: daily.map((d) => ({
      ...d,
      credits: readExactSum(d.credits),
      debits: readExactSum(d.debits),
    })),
    latest,
    days: Array.from({ length: days }, (_, i) => sinceS + i * DAY_S),
  };
}

/** D1 refuses a LIKE or GLOB pattern of more than 50 bytes ("pattern too complex"). */
const LIKE_PATTERN_BYTES = 50;
const utf8 = new TextEncoder();

/**
 * `%search%`, its `\ % _` escaped, for the longest start of `search` that D1 takes: a longer
 * search finds what its start finds.
 */
function containsPattern(search: string) {
  let inner = "";
  for (const ch of search) {
    const piece = /[\\%_]/.test(ch) ? `\\${ch}` : ch;
    if (utf8.encode(`%${inner}${piece}%`).length > LIKE_PATTERN_BYTES) break;
    inner += piece;
  }
  return `%${inner}%`;
}

/** A user as the console's list shows one: its balances, and whether it can sign in (1) or not (0). */
const listedUser = (db: Db) =>
  db
    .select({
      id: users.id,
      username: users.username,
      email: users.email,
      role: users.role,
      signsIn: sql<number>`${passwordUsable}`,
      balances: sql<
        string | null
      >`(SELECT json_group_object(wallet_id, balance_minor) FROM ${balances} WHERE ${balances.userId} = ${users.id})`.as(
        "balances",
      ),
    })
    .from(users);

/**
 * A page of users whose username or e-mail contains `search`, and how many, by id. With `id` (not
 * null), the user of that id comes first, if there is one, then the others, in one round trip: that
 * user is read by its key, apart, so the search keeps its statements' plan, which stops reading at
 * the page's last user rather than sorting every match.
 */
export async function searchUsers(
  db: Db,
  search: string,
  offset: number,
  limit: number,
  id: number | null,
) {
  const pattern = containsPattern(search);
  const text =
    search === ""
      ? undefined
      : or(
          sql`${users.username} LIKE ${pattern} ESCAPE '\\'`,
          sql`${users.email} LIKE ${pattern} ESCAPE '\\'`,
        );
  const where = id === null ? text : and(text, ne(users.id, id));
  const page = (start: number, size: number) =>
    listedUser(db).where(where).orderBy(asc(users.id)).limit(size).offset(start);
  const counted = db.select({ n: count() }).from(users).where(where);
  if (id === null) {
    const [rows, total] = await db.batch([page(offset, limit), counted]);
    return { rows, total: total[0]?.n ?? 0 };
  }
  // The others from one place before the page's (the user of `id`, if any, takes the first), and
  // one more: which of them the page shows is known once that user is.
  const [named, others, total] = await db.batch([
    listedUser(db).where(eq(users.id, id)),
    page(Math.max(offset - 1, 0), limit + 1),
    counted,
  ]);
  const shift = named.length === 0 ? (offset > 0 ? 1 : 0) : 0;
  const rows =
    named.length > 0 && offset === 0
      ? [...named, ...others.slice(0, limit - 1)]
      : others.slice(shift, shift + limit);
  return { rows, total: (total[0]?.n ?? 0) + named.length };
}

/**
 * The last `points` balances of each wallet the user holds (has a balance row in), oldest first:
 * the console's balance charts. One statement however many wallets the site has; each wallet's
 * points come from the balance timeline's index, so the rows read do not grow with the history.
 */
export async function balanceSeries(db: Db, userId: number, points: number) {
  const recent = newestPoints(db, sql`${balances}.user_id`, sql`${balances}.wallet_id`, points);
  const rows = await db
    .select({
      walletId: transactions.walletId,
      at: transactions.createdAtS,
      after: transactions.balanceAfterMinor,
    })
    .from(balances)
    .innerJoin(transactions, inArray(transactions.id, recent))
    .where(eq(balances.userId, userId))
    .orderBy(asc(transactions.id));
  const series = new Map<string, { at: number; after: number }[]>();
  for (const { walletId, ...point } of rows) {
    const line = series.get(walletId) ?? [];
    if (line.length === 0) series.set(walletId, line);
    line.push(point);
  }
  return series;
}
