import { createApp } from "./app";
import {
  consumeDeadLetters,
  consumeNudges,
  type Nudge,
  pumpDeps,
  sweepOutbox,
} from "./events/queue";

export { HistoryGate } from "./throttle/history-gate";
export { LoginThrottle } from "./throttle/login-throttle";

const app = createApp();

export default {
  fetch: app.fetch,
  // Webhook delivery (docs/events.md): the nudge queue's consumer, and its dead letters.
  async queue(batch, env) {
    if (batch.queue === "wallet-webhooks-dlq") return consumeDeadLetters(batch);
    await consumeNudges(batch as MessageBatch<Nudge>, env, pumpDeps(env));
  },
  // Every minute: nudge any endpoint an event is still waiting for (a nudge lost with its isolate).
  async scheduled(_controller, env, ctx) {
    ctx.waitUntil(sweepOutbox(env.DB, env.WEBHOOK_QUEUE, Date.now()));
  },
} satisfies ExportedHandler<Env>;
