import { asc, eq, getTableColumns, sql } from "drizzle-orm";
import { bindingOf, type Db, d1ErrorText } from "./client";
import { forgetWallet, isolateCache } from "./isolate-cache";
import { balances, deletedWallets, transactions, type Wallet, wallets } from "./schema";

export type { Wallet };

/** A wallet's columns but its `post_id`, which only the Rimplenet dialect reads. */
const { postId: postIdColumn, ...walletColumns } = getTableColumns(wallets);

/**
 * Creates a wallet with its `post_id`; "exists" when the id is taken (the primary key decides),
 * or the units a deleted wallet of that id had, when they differ from the new one's (the trigger
 * `wallets_recreated_units_fixed` decides: drizzle/0015_deleted_wallet_units.sql). The `post_id` is
 * read after the insert, in the same batch: the trigger `wallets_post_id` gives it
 * (drizzle/0029_wallet_post_ids.sql), after the row RETURNING would report.
 */
export async function insertWallet(db: Db, wallet: Wallet) {
  try {
    const [inserted, [row]] = await db.batch([
      db.insert(wallets).values(wallet).onConflictDoNothing().returning({ id: wallets.id }),
      db
        .select({ postId: postIdColumn, wallet: walletColumns })
        .from(wallets)
        .where(eq(wallets.id, wallet.id)),
    ]);
    if (inserted.length === 0 || !row) return "exists";
    return { postId: row.postId ?? 0, wallet: row.wallet };
  } catch (err) {
    if (!d1ErrorText(err).includes("wallets_units_fixed")) throw err;
    const deleted = await db
      .select({ decimals: deletedWallets.decimals, extraDecimals: deletedWallets.extraDecimals })
      .from(deletedWallets)
      .where(eq(deletedWallets.id, wallet.id))
      .get();
    if (!deleted) throw err;
    return { deletedWithUnits: deleted };
  }
}

/**
 * Deletes a wallet that no entry (and so no balance row) names, in one batch: the guard is the
 * DELETE's own WHERE, judged by D1 with no other write in between, and the wallet's existence is
 * read after it in the same batch to tell "has entries" from "not found". An entry racing it either
 * commits first (the wallet stays) or finds the wallet gone (its insert fails the foreign key).
 * This isolate forgets the wallet at once; other isolates' caches: docs/compat.md. The database
 * keeps the id's units (`deleted_wallets`), which a wallet re-created under it must have.
 */
export async function deleteWalletIfUnused(db: Db, id: string) {
  const [deleted, still] = await db.batch([
    db
      .delete(wallets)
      .where(
        sql`${wallets.id} = ${id}
          AND NOT EXISTS (SELECT 1 FROM ${transactions} WHERE ${transactions.walletId} = ${id})
          AND NOT EXISTS (SELECT 1 FROM ${balances} WHERE ${balances.walletId} = ${id})`,
      )
      .returning({ id: wallets.id }),
    db.select({ id: wallets.id }).from(wallets).where(eq(wallets.id, id)),
  ]);
  forgetWallet(bindingOf(db), id);
  if (deleted.length > 0) return "deleted";
  return still.length > 0 ? "has-entries" : "not-found";
}

/**
 * Every wallet with its `post_id` (the Rimplenet dialect's; trigger `wallets_post_id` gives every
 * wallet one, never another wallet's, and it never changes).
 */
export const listWalletRows = async (db: Db) =>
  (
    await db
      .select({ postId: postIdColumn, wallet: walletColumns })
      .from(wallets)
      .orderBy(asc(wallets.id))
  ).map(({ postId, wallet }) => ({ postId: postId ?? 0, wallet }));

export const findWallet = (db: Db, id: string) =>
  db.select().from(wallets).where(eq(wallets.id, id)).get();

/** A wallet by id, from the isolate's cache once seen (wallets never change after creation). */
export async function findWalletCached(db: Db, id: string) {
  const cache = isolateCache(bindingOf(db)).wallets;
  const cached = cache.get(id);
  if (cached) return cached;
  const wallet = await findWallet(db, id);
  if (wallet) cache.set(id, wallet);
  return wallet;
}
