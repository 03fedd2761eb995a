// Reads of batches (docs/ledger.md#batches): a batch, its entries and the batches touching a user.
// Batches are written only by ledger/batches.ts.
import { asc, count, desc, eq, inArray, sql } from "drizzle-orm";
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

/** Batches with an entry of `userId`, newest first, a page of them and how many there are. */
export async function listBatchesOf(db: Db, userId: number, offset: number, limit: number) {
  const touching = sql`${batches.id} IN (SELECT ${transactions.batchId} FROM ${transactions}
    WHERE ${transactions.userId} = ${userId} AND ${transactions.batchId} IS NOT NULL)`;
  const [rows, totals] = await db.batch([
    db
      .select({ id: batches.id, entryCount: batches.entryCount })
      .from(batches)
      .where(touching)
      .orderBy(desc(batches.id))
      .limit(limit)
      .offset(offset),
    db.select({ n: count() }).from(batches).where(touching),
  ]);
  return { batches: rows, total: totals[0]?.n ?? 0 };
}
