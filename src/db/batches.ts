// Reads of batches (docs/ledger.md#batches): a batch, its entries and the batches touching a user.
// Batches are written only by ledger/batches.ts.
import { and, asc, countDistinct, desc, eq, inArray, isNotNull, sql } from "drizzle-orm";
import { type Db, inRuns } from "./client";
import { entryWithWallet } from "./ledger";
import { type BatchRow, batches, transactions } from "./schema";

export type { BatchRow };

/** The batch that reverses batch `b`, as a column: its id, or null. */
const reversalId = sql<
  number | null
>`(SELECT r.id FROM ${batches} r WHERE r.reverses_batch_id = ${batches}.id)`;

/** These batches (in the order of `ids`), each with the batch reversing it and its entries, oldest first. */
export async function findBatches(db: Db, ids: number[]) {
  if (ids.length === 0) return [];
  const [rows, entries] = await db.batch([
    db
      .select({ batch: batches, reversalId: reversalId.as("reversal_id") })
      .from(batches)
      .where(inArray(batches.id, ids)),
    entryWithWallet(db).where(inArray(transactions.batchId, ids)).orderBy(asc(transactions.id)),
  ]);
  const byId = new Map(rows.map((r) => [r.batch.id, { ...r, entries: [] as typeof entries }]));
  for (const e of entries) byId.get(e.entry.batchId!)?.entries.push(e);
  return ids.flatMap((id) => byId.get(id) ?? []);
}

/** One batch, as findBatches reads it, or undefined. */
export const findBatch = async (db: Db, id: number) => (await findBatches(db, [id]))[0];

/** The batch a request key names, or undefined. */
export const findBatchByKey = (db: Db, requestKey: string) =>
  db.select({ id: batches.id }).from(batches).where(eq(batches.requestKey, requestKey)).get();

/** Of these entries, the ones some entry already reverses. */
export async function reversedAmong(db: Db, ids: number[]) {
  const runs = inRuns(ids).map((run) =>
    db
      .select({ id: transactions.reversesId })
      .from(transactions)
      .where(inArray(transactions.reversesId, run)),
  );
  return new Set((await Promise.all(runs)).flat().map((r) => r.id!));
}

/**
 * Batches with an entry of `userId`, newest first, a page of them and how many there are. The page
 * walks the user's batch entries from the newest batch down (the (user_id, batch_id) index) to its
 * last batch, however many batches the user has before it; the total counts every one of them.
 */
export async function listBatchesOf(db: Db, userId: number, offset: number, limit: number) {
  const ofUser = and(eq(transactions.userId, userId), isNotNull(transactions.batchId));
  const page = db
    .selectDistinct({ id: transactions.batchId })
    .from(transactions)
    .where(ofUser)
    .orderBy(desc(transactions.batchId))
    .limit(limit)
    .offset(offset);
  const [rows, totals] = await db.batch([
    db
      .select({ id: batches.id, entryCount: batches.entryCount })
      .from(batches)
      .where(inArray(batches.id, page))
      .orderBy(desc(batches.id)),
    db
      .select({ n: countDistinct(transactions.batchId) })
      .from(transactions)
      .where(ofUser),
  ]);
  return { batches: rows, total: totals[0]?.n ?? 0 };
}
