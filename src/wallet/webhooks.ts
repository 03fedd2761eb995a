// Webhook endpoints (docs/events.md): creating one (its URL judged, its secret made, sealed and
// shown once), listing, deleting, a test delivery, a resend of one event, and the recent deliveries.
// Delivery itself is the queue consumer's (events/pump.ts); a test or a resend is one signed POST
// made here and recorded beside the consumer's attempts, leaving the endpoint's cursor alone.
import {
  type DeliveryRow,
  deleteEndpoint,
  type EndpointRow,
  findEndpoint,
  findEvent,
  insertDelivery,
  insertEndpoint,
  listDeliveries,
  listEndpoints,
  newestDeliveriesOfEach,
} from "../db/events";
import { postSigned } from "../events/deliver";
import { endpointUrlProblem } from "../events/endpoint-url";
import { forgetEndpoints } from "../events/queue";
import { type EventType, eventRecord } from "../events/records";
import { generateSecret, openSecret, sealSecret } from "../events/secrets";
import { type IdRef, requireAdmin, type ServiceContext } from "./context";
import { Refusal } from "./refusal";

export const WEBHOOK_LIMITS = { descriptionMax: 500, deliveriesMax: 200 } as const;

type NewEndpoint = { url: string; events: readonly EventType[]; description: string };

/** The endpoint the caller named, or a `webhook_not_found` refusal. */
async function requireEndpoint(ctx: ServiceContext, { id, ref }: IdRef) {
  const endpoint = id === null ? undefined : await findEndpoint(ctx.db, id);
  if (!endpoint) throw new Refusal({ code: "webhook_not_found", ref });
  return endpoint;
}

/** The endpoint made, with its secret (shown this once); a URL that breaks a rule is refused. */
export async function createEndpoint(ctx: ServiceContext, e: NewEndpoint) {
  requireAdmin(ctx, "read-write");
  const { allowLocal, secretKey } = ctx.webhooks();
  const problem = endpointUrlProblem(e.url, allowLocal);
  if (problem) throw new Refusal({ code: "webhook_url_refused", rule: problem });
  const secret = generateSecret();
  const endpoint = await insertEndpoint(ctx.db, {
    url: new URL(e.url).href,
    description: e.description,
    eventTypes: e.events,
    secretCipher: await sealSecret(secret, secretKey),
    createdAtMs: ctx.nowMs(),
  });
  forgetEndpoints(ctx.d1);
  return { endpoint, secret };
}

/** Every endpoint, with how its deliveries stand. */
export function listWebhooks(ctx: ServiceContext) {
  requireAdmin(ctx, "read");
  return listEndpoints(ctx.db);
}

/** Deletes an endpoint and its delivery log; the id deleted. */
export async function removeEndpoint(ctx: ServiceContext, { id, ref }: IdRef) {
  requireAdmin(ctx, "write");
  const deleted = id !== null && (await deleteEndpoint(ctx.db, id));
  forgetEndpoints(ctx.d1);
  if (!deleted) throw new Refusal({ code: "webhook_not_found", ref });
  return id;
}

/** One signed POST outside the queue, recorded as `trigger`: the delivery row written. */
async function deliverNow(
  ctx: ServiceContext,
  endpoint: EndpointRow,
  trigger: "test" | "resend",
  message: { id: string; body: string; eventId: number | null },
) {
  const { secretKey, outbound, allowLocal } = ctx.webhooks();
  const secret = await openSecret(endpoint.secretCipher, secretKey);
  const atMs = ctx.nowMs();
  const outcome = await postSigned(
    outbound,
    endpoint.url,
    secret,
    { id: message.id, body: message.body, at: new Date(atMs) },
    allowLocal,
  );
  const delivery = {
    endpointId: endpoint.id,
    eventId: message.eventId,
    attempt: 1,
    status: outcome.ok ? ("delivered" as const) : ("failed" as const),
    trigger,
    httpStatus: outcome.httpStatus,
    latencyMs: outcome.latencyMs,
    error: outcome.error,
    createdAtMs: atMs,
  };
  await insertDelivery(ctx.db, delivery);
  return delivery;
}

/** Sends a `webhook.test` message (not an event of the feed: its id is `test_…`). */
export async function testEndpoint(ctx: ServiceContext, ref: IdRef) {
  requireAdmin(ctx, "write");
  ctx.webhooks(); // refused while webhooks are not configured, before the endpoint is looked up
  const endpoint = await requireEndpoint(ctx, ref);
  const messageId = `test_${crypto.randomUUID()}`;
  const body = JSON.stringify({
    id: messageId,
    type: "webhook.test",
    timestamp: new Date(ctx.nowMs()).toISOString(),
    data: { webhook_id: endpoint.id },
  });
  return deliverNow(ctx, endpoint, "test", { id: messageId, body, eventId: null });
}

/**
 * Sends one event again, now, with its own webhook-id (a receiver that has it drops the repeat).
 * Any event may be resent, also one of a type the endpoint does not receive: the operator asked.
 */
export async function resendEvent(
  ctx: ServiceContext,
  { webhook, eventId }: { webhook: IdRef; eventId: number },
) {
  requireAdmin(ctx, "read-write");
  ctx.webhooks(); // refused while webhooks are not configured, before anything is looked up
  const [endpoint, event] = await Promise.all([
    requireEndpoint(ctx, webhook),
    findEvent(ctx.db, eventId),
  ]);
  if (!event) throw new Refusal({ code: "event_not_found", eventId });
  const body = JSON.stringify(eventRecord(event, ctx.site()));
  return deliverNow(ctx, endpoint, "resend", { id: String(event.id), body, eventId: event.id });
}

/** Every endpoint with its newest deliveries (at most `shown` each), in two statements. */
export async function webhooksWithDeliveries(ctx: ServiceContext, shown: number) {
  requireAdmin(ctx, "read");
  const [hooks, rows] = await Promise.all([
    listEndpoints(ctx.db),
    newestDeliveriesOfEach(ctx.db, Math.min(shown, WEBHOOK_LIMITS.deliveriesMax)),
  ]);
  const byEndpoint = new Map<number, DeliveryRow[]>(hooks.map((hook) => [hook.id, []]));
  for (const { delivery } of rows) byEndpoint.get(delivery.endpointId)?.push(delivery);
  return hooks.map((hook) => ({ hook, deliveries: byEndpoint.get(hook.id)! }));
}

/** An endpoint's newest deliveries (at most `limit`), or a `webhook_not_found` refusal. */
export async function recentDeliveries(
  ctx: ServiceContext,
  { webhook, limit }: { webhook: IdRef; limit: number },
) {
  requireAdmin(ctx, "read");
  const [endpoint, rows] = await Promise.all([
    requireEndpoint(ctx, webhook),
    listDeliveries(ctx.db, webhook.id ?? 0, Math.min(limit, WEBHOOK_LIMITS.deliveriesMax)),
  ]);
  return { endpoint, rows };
}
