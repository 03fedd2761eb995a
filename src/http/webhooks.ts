// What the webhook routes and the write path need from a request (docs/events.md).
import type { Context } from "hono";
import type { AppEnv } from "../env";
import { faultFields, nudgeAfterCommit } from "../events/queue";
import { bound, flagOn, usableSecretKey, varText } from "../settings";
import type { WebhookSettings } from "../wallet/context";
import { apiError } from "./errors";

/**
 * The webhook verbs' settings, or 503 webhooks_not_configured while WEBHOOK_SECRET_KEY is unset or
 * too short, or WEBHOOK_QUEUE is not bound.
 */
export function webhookSettings(c: Context<AppEnv>): WebhookSettings {
  const secretKey = varText(c.env.WEBHOOK_SECRET_KEY);
  const missing = [
    ...(usableSecretKey(secretKey) ? [] : ["WEBHOOK_SECRET_KEY"]),
    // Without the queue no endpoint would ever be sent its events.
    ...(bound(c.env, "WEBHOOK_QUEUE") ? [] : ["WEBHOOK_QUEUE"]),
  ];
  if (missing.length > 0) throw apiError("webhooks_not_configured", { missing });
  return { secretKey, allowLocal: flagOn(c.env.WEBHOOK_ALLOW_LOCAL), outbound: c.var.outbound };
}

const WRITES = new Set(["POST", "PUT", "PATCH", "DELETE"]);

/**
 * A write request that wrote to the database (an API write or a console form, of any kind): its
 * events, if it wrote any, may wait for an endpoint. A refused write, a repeat answered from the
 * ledger, or a sign-out without a session wrote nothing, and nudges nothing.
 */
export const wroteRows = (c: Context<AppEnv>, rowsWritten: number) =>
  WRITES.has(c.req.method) && rowsWritten > 0;

/**
 * After such a write, the endpoints are told there may be work, once the answer is on its way
 * (waitUntil). Without an execution context (a test calling app.request), a queue binding or an
 * endpoint nothing is sent; the cron's sweep finds whatever a missed nudge leaves.
 */
export function nudgeWebhooks(c: Context<AppEnv>) {
  const queue = bound(c.env, "WEBHOOK_QUEUE");
  if (!queue) return;
  let waitUntil: (work: Promise<unknown>) => void;
  try {
    const ctx = c.executionCtx;
    waitUntil = (work) => ctx.waitUntil(work);
  } catch {
    return;
  }
  const nudge = nudgeAfterCommit(c.env.DB, queue, Date.now());
  if (!nudge) return;
  waitUntil(
    nudge.catch((err: unknown) =>
      console.error(JSON.stringify({ webhook_nudge: "failed", ...faultFields(err) })),
    ),
  );
}
