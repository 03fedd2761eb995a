// The prototype's Ledger (src/ledger/writer.ts): credits and balances in a Durable Object per user
// (ledger-shard.ts). Users and wallets stay in D1: a credit still reads them there (the wallet from
// the isolate's cache, warm), then makes one call to the user's object.
import { findUsers } from "../../src/db/users";
import { findWalletCached, type Wallet } from "../../src/db/wallets";
import { LedgerRefusal } from "../../src/ledger/append";
import type { LedgerEngine } from "../../src/ledger/writer";
import type { LedgerShard } from "./ledger-shard";

export type ShardEnv = { LEDGER_SHARD: DurableObjectNamespace<LedgerShard> };

const hasShards = (env: object): env is ShardEnv => "LEDGER_SHARD" in env;

/** The user's shard: one object per user, so a user's request_ids, wallets and slugs are together. */
export function shardOf(env: object, userId: number) {
  if (!hasShards(env)) throw new Error("LEDGER_SHARD is not bound (bench/do-writer/wrangler.toml)");
  return env.LEDGER_SHARD.get(env.LEDGER_SHARD.idFromName(`user:${userId}`));
}

export const shardLedger: LedgerEngine = ({ db, env }) => ({
  async postCredit(entry) {
    const result = await shardOf(env, entry.userId).credit(entry);
    if ("refused" in result) throw new LedgerRefusal(result.refused);
    return result.created
      ? { created: true, ids: [result.id] }
      : { created: false, existingId: result.existingId };
  },
  async readBalances(userId, walletIds) {
    // Which wallets and users exist is the directory's (D1, cached per isolate as for a credit);
    // what the user holds is the object's. Warm, the read is the one call to the object.
    const [found, users, held] = await Promise.all([
      Promise.all(walletIds.map((id) => findWalletCached(db, id))),
      findUsers(db, [userId]),
      shardOf(env, userId).balances(walletIds),
    ]);
    return {
      wallets: new Map(found.filter((w): w is Wallet => w !== undefined).map((w) => [w.id, w])),
      userExists: users.has(userId),
      balances: new Map(Object.entries(held)),
    };
  },
});
