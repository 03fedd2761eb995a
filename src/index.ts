import { createApp } from "./app";
import { createDb } from "./db/client";
import { recordExpiredHolds } from "./wallet/holds";

export { HistoryGate } from "./throttle/history-gate";
export { LoginThrottle } from "./throttle/login-throttle";

const app = createApp();

export default {
  fetch: app.fetch,
  /**
   * The cron trigger (wrangler.toml [triggers]): records holds whose time ran out as expired. They
   * stopped counting at their expires_at already (docs/ledger.md#holds); this is bookkeeping.
   */
  async scheduled(controller, env) {
    const expired = await recordExpiredHolds(createDb(env.DB), controller.scheduledTime);
    // One line per run, like the request log line (docs/operations.md).
    console.log(JSON.stringify({ cron: controller.cron, holds_expired: expired }));
  },
} satisfies ExportedHandler<Env>;
