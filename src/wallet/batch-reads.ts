// Reads of batches, as verbs: administrators and read keys read them; a subscriber reads none (a
// batch names several users' money).
import { findBatch, findBatches, listBatchesOf } from "../db/batches";
import { findUsers } from "../db/users";
import { requireAdmin, type ServiceContext } from "./context";
import { Refusal } from "./refusal";

/** One batch with its entries; `ref` is the id as the caller wrote it, for the refusal. */
export async function readBatch(
  ctx: ServiceContext,
  { id, ref }: { id: number | null; ref: string },
) {
  requireAdmin(ctx, "read");
  const found = id === null ? undefined : await findBatch(ctx.db, id);
  if (!found) throw new Refusal({ code: "batch_not_found", ref });
  return found;
}

/** The batches with an entry of a user, newest first, a page of them and how many there are. */
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
  return { batches: await findBatches(ctx.db, listed.ids), total: listed.total };
}
