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
    await recordExpiredHolds(createDb(env.DB), controller.scheduledTime);
  },
} satisfies ExportedHandler<Env>;
