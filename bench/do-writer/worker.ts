// The sharding prototype (docs/scaling.md) as a worker of its own: the service's app, unchanged but
// for its ledger, which writes credits to and reads balances from a Durable Object per user
// (shard-ledger.ts) instead of D1. `npm run bench:scaling` measures it beside the app; test/
// do-writer.test.ts checks it. GET /bench/audit?user_id=N answers that user's shard audit (each
// wallet's balance beside the sum of its entries) for the bench's ledger check: it exists only here.
import { createApp } from "../../src/app";
import { type ShardEnv, shardLedger, shardOf } from "./shard-ledger";

export { HistoryGate } from "../../src/throttle/history-gate";
export { LoginThrottle } from "../../src/throttle/login-throttle";
export { LedgerShard } from "./ledger-shard";

const app = createApp({ ledger: shardLedger });

export default {
  async fetch(request: Request, env: Env & ShardEnv, ctx: ExecutionContext) {
    const url = new URL(request.url);
    if (url.pathname === "/bench/audit") {
      const userId = Number(url.searchParams.get("user_id"));
      if (!Number.isSafeInteger(userId)) return new Response("user_id?", { status: 400 });
      return Response.json(await shardOf(env, userId).audit());
    }
    return app.fetch(request, env, ctx);
  },
} satisfies ExportedHandler<Env & ShardEnv>;
