import { createApp } from "./app";
import { createDb } from "./db/client";
import { migrated, NOT_MIGRATED } from "./db/health";
import { deleteExpiredMailTokens } from "./db/mail";
import { deleteExpiredSessions } from "./db/sessions";
import {
  consumeDeadLetters,
  consumeNudges,
  faultFields,
  isEventLetter,
  type Nudge,
  pumpDeps,
  sweepOutbox,
} from "./events/queue";
import { bindingProblem, bound } from "./settings";
import { recordExpiredHolds } from "./wallet/holds";

export { HistoryGate } from "./throttle/history-gate";
export { LoginThrottle } from "./throttle/login-throttle";

const app = createApp();

const HOUR_MS = 3_600_000;

export default {
  fetch: app.fetch,
  // Webhook delivery (docs/events.md): the nudge queue's consumer, and its dead letters. An
  // event's letter is logged as one on whatever queue it arrives (a dead-letter queue renamed in
  // wrangler.toml), never taken for a nudge of its endpoint.
  async queue(batch, env) {
    if (batch.queue === "wallet-webhooks-dlq") return consumeDeadLetters(batch.messages);
    consumeDeadLetters(batch.messages.filter(isEventLetter));
    const nudges = batch.messages.filter((m) => !isEventLetter(m)) as Message<Nudge>[];
    if (nudges.length > 0) await consumeNudges(nudges, env, pumpDeps(env));
  },
  /**
   * The cron trigger (wrangler.toml [triggers], every minute): nudges any endpoint an event is
   * still waiting for (a nudge lost with its isolate), and records holds whose time ran out as
   * expired (they stopped counting at their expires_at already: docs/ledger.md#holds); in the run
   * scheduled in each hour's first minute, deletes the expired sessions and mail tokens that no
   * sign-in or mail request of their own pruned (docs/operations.md).
   */
  async scheduled(controller, env, _ctx?: ExecutionContext) {
    // No database bound: said plainly each run, as every route names it (http/settings.ts).
    const d1 = bound(env, "DB");
    if (!d1) {
      console.error(
        JSON.stringify({
          cron: controller.cron,
          setting: "DB",
          problem: bindingProblem(env, "DB"),
        }),
      );
      return;
    }
    const db = createDb(d1);
    // A step that fails logs its own line, so one fault never hides another's; the run then
    // fails, as Cloudflare's list of cron runs shows, with an error naming the steps alone (a
    // failed statement's own error carries the values it bound).
    const faults: string[] = [];
    const failed = (step: string) => (err: unknown) => {
      console.error(JSON.stringify({ cron: controller.cron, step, ...faultFields(err) }));
      faults.push(step);
      return undefined;
    };
    const stepsFailed = () => new Error(`Cron steps failed (logged): ${faults.join(", ")}`);
    // A database behind its code: said plainly, and nothing done, as every route refuses too;
    // nor on one whose record of migrations D1 did not give.
    const applied = await migrated(db).catch(failed("check_migrations"));
    if (applied === undefined) throw stepsFailed();
    if (!applied) {
      console.error(
        JSON.stringify({ cron: controller.cron, setting: "migrations", problem: NOT_MIGRATED }),
      );
      return;
    }
    // Holds first: the sweep then nudges for the hold.expired events this run wrote, which no
    // write's nudge covers (they would wait for the next run, a minute later). It sweeps also
    // when the expiry fails.
    const expired = await recordExpiredHolds(db, controller.scheduledTime).catch(
      failed("expire_holds"),
    );
    await sweepOutbox(d1, env, Date.now()).catch(failed("sweep_outbox"));
    // Each its own step, so a fault in one leaves the other done. What has expired is judged by the
    // clock: a run is scheduled for a moment already past, and one set in the future (as tests do,
    // for holds) must not end sessions still live.
    const hourly = controller.scheduledTime % HOUR_MS < 60_000;
    const nowMs = Date.now();
    const sessionsDeleted = hourly
      ? await deleteExpiredSessions(db, nowMs).catch(failed("delete_sessions"))
      : undefined;
    const mailTokensDeleted = hourly
      ? await deleteExpiredMailTokens(db, nowMs).catch(failed("delete_mail_tokens"))
      : undefined;
    // One line per run, like the request log line (docs/operations.md); a count left out is a
    // step not run or failed, so a failed expiry still leaves the hourly deletions' counts.
    if (expired !== undefined || sessionsDeleted !== undefined || mailTokensDeleted !== undefined)
      console.log(
        JSON.stringify({
          cron: controller.cron,
          holds_expired: expired,
          sessions_deleted: sessionsDeleted,
          mail_tokens_deleted: mailTokensDeleted,
        }),
      );
    if (faults.length > 0) throw stepsFailed();
  },
} satisfies ExportedHandler<Env>;
