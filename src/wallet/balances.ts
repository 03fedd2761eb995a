// Balance reads, for every dialect: the wallets named are read MAX_WALLETS_PER_READ to a statement,
// and a dialect may name no more than that.
import { inRuns } from "../db/client";
import type { Wallet } from "../db/schema";
import { seconds } from "../ledger/entries";
import type { Ledger } from "../ledger/writer";
import { readUserId, type ServiceContext } from "./context";
import { readableUserId, userIdOf } from "./directory";
import type { UserRef } from "./movements";
import { Refusal } from "./refusal";
import { balancesAt } from "./statements";

/** The most wallets one balance read may name (in either dialect). */
export const MAX_WALLETS_PER_READ = 50;

/** wallet/v1's refusal of a balance read naming `walletId`, which no wallet has (or can have). */
export const unknownWalletText = (walletId: string) => `wallet_id not found: ${walletId}`;

/** A balance read naming more than MAX_WALLETS_PER_READ wallets, in either dialect. */
export const TOO_MANY_WALLETS = `wallet_id lists at most ${MAX_WALLETS_PER_READ} wallets`;

type Balances = {
  userExists: boolean;
  /** Each named wallet that exists, with the user's balance in it (0 where it has none). */
  found: Map<string, { wallet: Wallet; minor: number }>;
  /** The named wallet ids that name no wallet, in the order named. */
  unknown: string[];
};

/**
 * A user's balances in the wallets named, through the request's ledger: one read for up to
 * MAX_WALLETS_PER_READ wallets, which is all a dialect may name. Each dialect decides what an
 * unknown wallet or user means (wallet/v1 refuses, the plugin's reads skip them).
 */
async function readBalances(
  ledger: Pick<Ledger, "readBalances">,
  userId: number,
  walletIds: readonly string[],
): Promise<Balances> {
  const ids = [...new Set(walletIds)];
  if (ids.length === 0) return { userExists: true, found: new Map(), unknown: [] };
  // D1 binds at most 100 values to one statement: a longer list (no dialect sends one, but a verb's
  // caller may) is read MAX_WALLETS_PER_READ at a time.
  const reads = await Promise.all(
    inRuns(ids, MAX_WALLETS_PER_READ).map((run) => ledger.readBalances(userId, run)),
  );
  const found = new Map<string, { wallet: Wallet; minor: number }>();
  ids.forEach((id, i) => {
    const read = reads[Math.floor(i / MAX_WALLETS_PER_READ)]!;
    const wallet = read.wallets.get(id);
    if (wallet) found.set(id, { wallet, minor: read.balances.get(id) ?? 0 });
  });
  return { userExists: reads[0]!.userExists, found, unknown: ids.filter((id) => !found.has(id)) };
}

/**
 * A user's (omitted: the caller's) balances in the wallets named, now or as they stood at `atS`;
 * a wallet that does not exist, or an unknown user, is a refusal.
 */
export async function userBalances(
  ctx: ServiceContext,
  q: { userId?: number; walletIds: readonly string[]; atS?: number },
) {
  const userId = readUserId(ctx, q.userId);
  const { atS } = q;
  const nowS = seconds(ctx.nowMs());
  // Now: the balances; at an instant: the last balance each wallet's chain held by then.
  const source =
    atS === undefined
      ? ctx.ledger
      : { readBalances: (id: number, ids: string[]) => balancesAt(ctx.db, id, ids, atS, nowS) };
  const { found, unknown, userExists } = await readBalances(source, userId, q.walletIds);
  if (unknown[0] !== undefined)
    throw new Refusal({
      code: "invalid_field",
      field: "wallet_id",
      why: unknownWalletText(unknown[0]),
    });
  if (!userExists) throw new Refusal({ code: "user_not_found", userId });
  return found;
}

/** The first of these wallet ids that no wallet has, in their order (one read), or undefined. */
export async function firstUnknownWallet(ctx: ServiceContext, walletIds: readonly string[]) {
  return (await readBalances(ctx.ledger, 0, walletIds)).unknown[0];
}

/**
 * The balances of the user `user` names (null: nobody, who holds nothing) in the wallets named,
 * unknown ones left out, for the dialect whose reads skip them (the plugin's): public where the site
 * makes them so, else for a caller allowed to read about that user. Nobody is refused to a
 * subscriber as anyone else is; an empty id names no wallet but counts against the bound.
 */
export async function namedBalances(
  ctx: ServiceContext,
  q: { user: UserRef | null; walletIds: readonly string[]; public: boolean },
) {
  const userId = q.public ? await userIdOf(ctx, q.user) : await readableUserId(ctx, q.user);
  if (q.walletIds.length > MAX_WALLETS_PER_READ)
    throw new Refusal({
      code: "invalid_field",
      field: "wallet_id",
      why: TOO_MANY_WALLETS,
    });
  const named = q.walletIds.filter((id) => id !== "");
  const { found } = await readBalances(ctx.ledger, userId ?? 0, named);
  return { userId, found };
}
