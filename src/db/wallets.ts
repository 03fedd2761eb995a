import { asc, eq, sql } from "drizzle-orm";
import { bindingOf, type Db } from "./client";
import { isolateCache } from "./isolate-cache";
import { type Wallet, wallets } from "./schema";

export type { Wallet };

/** Creates a wallet; null when the id is taken (the primary key decides, race or not). */
export async function insertWallet(db: Db, wallet: Wallet) {
  const [row] = await db.insert(wallets).values(wallet).onConflictDoNothing().returning();
  return row ?? null;
}

export const listWallets = (db: Db) => db.select().from(wallets).orderBy(asc(wallets.id));

/** Every wallet with its row number, which never changes (the Rimplenet dialect's `post_id`). */
export const listWalletRows = (db: Db) =>
  db
    .select({ rowId: sql<number>`${wallets}.rowid`, wallet: wallets })
    .from(wallets)
    .orderBy(asc(wallets.id));

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
