// The balance timeline (schema.ts balanceTimeline): each entry's point on its (user, wallet) chain,
// in the order it was written. Its key is the chain's order, so a chain's newest entries and its
// balance at an instant are a seek into it however long the user's history is.
import { and, desc, type SQL, sql } from "drizzle-orm";
import type { Db } from "./client";
import { balanceTimeline } from "./schema";

/** The points of one (user, wallet) chain. */
export const onChain = (userId: number | SQL, walletId: SQL | string) =>
  and(sql`${balanceTimeline.userId} = ${userId}`, sql`${balanceTimeline.walletId} = ${walletId}`);

/** The balance a chain held at `atS`: its last point at or before it, one seek of its index. */
export const balanceAt = (userId: number, walletId: SQL | string, atS: number) =>
  sql<number | null>`(SELECT ${balanceTimeline.balanceAfterMinor} FROM ${balanceTimeline}
    WHERE ${onChain(userId, walletId)} AND ${balanceTimeline.atS} <= ${atS}
    ORDER BY ${balanceTimeline.atS} DESC, ${balanceTimeline.seq} DESC LIMIT 1)`;

/**
 * The entry ids of a chain's newest `n` points, newest first: a seek into the timeline's key. Joined
 * on the entry's id it reads a row of each (`IN` reads one more each, for its list).
 */
export const newestPoints = (db: Db, userId: number | SQL, walletId: SQL | string, n: number) =>
  db
    .select({ entryId: balanceTimeline.entryId })
    .from(balanceTimeline)
    .where(onChain(userId, walletId))
    .orderBy(desc(balanceTimeline.atS), desc(balanceTimeline.seq))
    .limit(n);
