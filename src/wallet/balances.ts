// Balance reads, for every dialect: one statement for every wallet named, so their number is bounded.
import type { Wallet } from "../db/schema";
import type { Ledger } from "../ledger/writer";

/** The most wallets one balance read may name (in either dialect). */
export const MAX_WALLETS_PER_READ = 50;

export type Balances = {
  userExists: boolean;
  /** Each named wallet that exists, with the user's balance in it (0 where it has none). */
  found: Map<string, { wallet: Wallet; minor: number }>;
  /** The named wallet ids that name no wallet, in the order named. */
  unknown: string[];
};

/**
 * A user's balances in the wallets named, in one read through the request's ledger. Each dialect
 * decides what an unknown wallet or user means (wallet/v1 refuses, the plugin's reads skip them).
 */
export async function readBalances(
  ledger: Pick<Ledger, "readBalances">,
  userId: number,
  walletIds: readonly string[],
): Promise<Balances> {
  const ids = [...new Set(walletIds)];
  if (ids.length === 0) return { userExists: true, found: new Map(), unknown: [] };
  const read = await ledger.readBalances(userId, ids);
  const found = new Map<string, { wallet: Wallet; minor: number }>();
  for (const id of ids) {
    const wallet = read.wallets.get(id);
    if (wallet) found.set(id, { wallet, minor: read.balances.get(id) ?? 0 });
  }
  return { userExists: read.userExists, found, unknown: ids.filter((id) => !found.has(id)) };
}
