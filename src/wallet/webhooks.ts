// Webhook endpoints (docs/events.md): creating one (its URL judged, its secret made, sealed and
// shown once), listing, deleting, a test delivery, a resend of one event, and the recent deliveries.
// Delivery itself is the queue consumer's (events/pump.ts); a test or a resend is one signed POST
// made here and recorded beside the consumer's attempts, leaving the endpoint's cursor alone.
import type { Db } from "../db/client";
import {
  deleteEndpoint,
  type EndpointRow,
  findEndpoint,
  findEvent,
  insertDelivery,
  insertEndpoint,
  listDeliveries,
  listEndpoints,
} from "../db/events";
import { type Outbound, postSigned } from "../events/deliver";
import { endpointUrlProblem, type UrlRule } from "../events/endpoint-url";
import { forgetEndpoints } from "../events/queue";
import { type EventType, eventRecord } from "../events/records";
import { generateSecret, openSecret, sealSecret } from "../events/secrets";
import type { SiteSettings } from "../ledger/transaction-record";

export const WEBHOOK_LIMITS = { descriptionMax: 500, deliveriesMax: 200 } as const;

export type WebhookDeps = {
  db: Db;
  d1: D1Database;
  /** WEBHOOK_SECRET_KEY: seals and opens the signing secrets. */
  secretKey: string;
  /** WEBHOOK_ALLOW_LOCAL: loopback URLs (over http too) are allowed, for development. */
  allowLocal: boolean;
  outbound: Outbound;
  nowMs: () => number;
  site: SiteSettings;
};

export type NewEndpoint = { url: string; events: readonly EventType[]; description: string };

/** The endpoint made, with its secret (shown this once), or the URL rule it broke. */
export async function createEndpoint(
  deps: WebhookDeps,
  e: NewEndpoint,
): Promise<{ endpoint: EndpointRow; secret: string } | { refused: UrlRule }> {
  const problem = endpointUrlProblem(e.url, deps.allowLocal);
  if (problem) return { refused: problem };
  const secret = generateSecret();
  const endpoint = await insertEndpoint(deps.db, {
    url: new URL(e.url).href,
    description: e.description,
    eventTypes: e.events.join(","),
    secretCipher: await sealSecret(secret, deps.secretKey),
    createdAtMs: deps.nowMs(),
  });
  forgetEndpoints(deps.d1);
  return { endpoint, secret };
}

export const allEndpoints = (db: Db) => listEndpoints(db);

export async function removeEndpoint(deps: Pick<WebhookDeps, "db" | "d1">, id: number) {
  const deleted = await deleteEndpoint(deps.db, id);
  forgetEndpoints(deps.d1);
  return deleted;
}

export type DeliveryRefusal = "webhook-not-found" | "event-not-found";

/** One signed POST outside the queue, recorded as `trigger`: the delivery row written. */
async function deliverNow(
  deps: WebhookDeps,
  endpoint: EndpointRow,
  trigger: "test" | "resend",
  message: { id: string; body: string; eventId: number | null },
) {
  const secret = await openSecret(endpoint.secretCipher, deps.secretKey);
  const atMs = deps.nowMs();
  const outcome =
    secret === null
      ? { ok: false, httpStatus: null, latencyMs: 0, error: "the signing secret does not open" }
      : await postSigned(deps.outbound, endpoint.url, secret, {
          id: message.id,
          body: message.body,
          at: new Date(atMs),
        });
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
  await insertDelivery(deps.db, delivery);
  return delivery;
}

/** Sends a `webhook.test` message (not an event of the feed: its id is `test_…`). */
export async function testEndpoint(deps: WebhookDeps, id: number) {
  const endpoint = await findEndpoint(deps.db, id);
  if (!endpoint) return "webhook-not-found" as const;
  const messageId = `test_${crypto.randomUUID()}`;
  const body = JSON.stringify({
    id: messageId,
    type: "webhook.test",
    timestamp: new Date(deps.nowMs()).toISOString(),
    data: { webhook_id: endpoint.id },
  });
  return deliverNow(deps, endpoint, "test", { id: messageId, body, eventId: null });
}

/**
 * Sends one event again, now, with its own webhook-id (a receiver that has it drops the repeat).
 * Any event may be resent, also one of a type the endpoint does not receive: the operator asked.
 */
export async function resendEvent(deps: WebhookDeps, id: number, eventId: number) {
  const [endpoint, event] = await Promise.all([
    findEndpoint(deps.db, id),
    findEvent(deps.db, eventId),
  ]);
  if (!endpoint) return "webhook-not-found" as const;
  if (!event) return "event-not-found" as const;
  const body = JSON.stringify(eventRecord(event, deps.site));
  return deliverNow(deps, endpoint, "resend", { id: String(event.id), body, eventId: event.id });
}

/** An endpoint's newest deliveries, or null when there is no such endpoint. */
export async function recentDeliveries(db: Db, id: number, limit: number) {
  const [endpoint, rows] = await Promise.all([
    findEndpoint(db, id),
    listDeliveries(db, id, Math.min(limit, WEBHOOK_LIMITS.deliveriesMax)),
  ]);
  return endpoint ? rows : null;
}
