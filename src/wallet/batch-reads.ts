// Reads of batches, as verbs: administrators and read keys read them; a subscriber reads none (a
// batch names several users' money).
import { findBatch, findBatches, listBatchesOf } from "../db/batches";
import { findUsers } from "../db/users";
import { type IdRef, requireAdmin, type ServiceContext } from "./context";
import { Refusal } from "./refusal";

/** One batch with its entries; `ref` is the id as the caller wrote it, for the refusal. */
export async function readBatch(ctx: ServiceContext, { id, ref }: IdRef) {
  requireAdmin(ctx, "read");
  const found = id === null ? undefined : await findBatch(ctx.db, id);
  if (!found) throw new Refusal({ code: "batch_not_found", ref });
  return found;
}

/**
 * Entries read at once while a page of batches is sent: a page of 100 batches of 200 entries is
 * about 21 MB of JSON, too much to hold whole in a Worker's 128 MB beside its rows and records.
 */
export const BATCH_ENTRIES_PER_READ = 2_000;

/**
 * The batches with an entry of a user, newest first: how many there are, and a page of them read a
 * few at a time (at least one batch, at most about BATCH_ENTRIES_PER_READ entries a read).
 */
export async function listBatches(
  ctx: ServiceContext,
  { userId, page, perPage }: { userId: number; page: number; perPage: number },
) {
  requireAdmin(ctx, "read");
  const [users, listed] = await Promise.all([
    findUsers(ctx.db, [userId]),
    listBatchesOf(ctx.db, userId, (page - 1) * perPage, perPage),
  ]);
  if (!users.has(userId)) throw new Refusal({ code: "user_not_found", userId });
  return { batches: batchReads(ctx, listed.batches), total: listed.total };
}

async function* batchReads(ctx: ServiceContext, page: { id: number; entryCount: number }[]) {
  let ids: number[] = [];
  let entries = 0;
  for (const b of page) {
    if (ids.length > 0 && entries + b.entryCount > BATCH_ENTRIES_PER_READ) {
      yield await findBatches(ctx.db, ids);
      [ids, entries] = [[], 0];
    }
    ids.push(b.id);
    entries += b.entryCount;
  }
  if (ids.length > 0) yield await findBatches(ctx.db, ids);
}
