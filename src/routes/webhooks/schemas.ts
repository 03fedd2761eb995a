import * as v from "valibot";
import type { DeliveryRow, EndpointRow } from "../../db/events";
import { ENDPOINT_URL_MAX, type UrlRule } from "../../events/endpoint-url";
import { EVENT_TYPES, isEventType } from "../../events/records";
import { pathIdField } from "../../http/fields";
import { EMPTY } from "../../http/validation";
import { WEBHOOK_LIMITS } from "../../wallet/webhooks";

/** `events`: a list of types, or the same comma-separated (a form body's one value). */
const eventTypes = v.pipe(
  v.union([v.string(), v.array(v.string())], "events must be a list of event types"),
  v.transform((x) => (typeof x === "string" ? x.split(",") : x)),
  v.transform((list) => [...new Set(list.map((t) => t.trim()))].filter((t) => t !== "")),
  v.check((types) => types.length > 0, EMPTY),
  v.check(
    (types) => types.every(isEventType),
    `events must name event types among ${EVENT_TYPES.join(", ")}`,
  ),
  v.transform((types) => types.filter(isEventType)),
);

export const WebhookParams = v.object({
  url: v.pipe(
    v.string("url must be text"),
    v.nonEmpty(EMPTY),
    v.maxLength(ENDPOINT_URL_MAX, `url must be at most ${ENDPOINT_URL_MAX} characters`),
  ),
  events: eventTypes,
  description: v.optional(
    v.pipe(
      v.string("description must be text"),
      v.maxLength(
        WEBHOOK_LIMITS.descriptionMax,
        `description must be at most ${WEBHOOK_LIMITS.descriptionMax} characters`,
      ),
    ),
    "",
  ),
});

/** Why a URL is refused, in wallet/v1's words. */
export const URL_RULE_TEXT: Record<UrlRule, string> = {
  shape: "url must be an absolute URL without a #fragment",
  scheme: "url must start with https://",
  credentials: "url must not hold a user name or password",
  port: "url must not name port 0",
  "private-host": "url must not point at a private, loopback or link-local address",
  "not-public-name": "url must name a public host",
};

const idField = (name: string) =>
  v.pipe(
    v.union([v.string(), v.number()], `${name} requires an integer`),
    v.transform(String),
    v.regex(/^[0-9]{1,15}$/, `${name} requires an integer`),
    v.transform(Number),
  );

/** An endpoint's `{id}`. */
export const WebhookPath = v.object({ id: pathIdField });

export const ResendParams = v.object({ id: pathIdField, event_id: idField("event_id") });

export const DeliveriesParams = v.object({
  id: pathIdField,
  limit: v.optional(
    v.pipe(
      idField("limit"),
      v.minValue(1, `limit must be between 1 and ${WEBHOOK_LIMITS.deliveriesMax}`),
      v.maxValue(
        WEBHOOK_LIMITS.deliveriesMax,
        `limit must be between 1 and ${WEBHOOK_LIMITS.deliveriesMax}`,
      ),
    ),
    50,
  ),
});

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

export const webhookRecord = (e: EndpointRow) => ({
  id: e.id,
  url: e.url,
  description: e.description,
  events: e.eventTypes.split(","),
  // failing: an event used up its attempts and was dead-lettered; a delivery since clears it.
  status: e.failingSinceMs === null ? ("active" as const) : ("failing" as const),
  failing_since: iso(e.failingSinceMs),
  last_event_id: e.cursorEventId,
  failed_attempts: e.headAttempts,
  next_attempt_at: e.headAttempts > 0 ? iso(e.nextAttemptAtMs) : null,
  created_at: iso(e.createdAtMs)!,
});

export const deliveryRecord = (d: Omit<DeliveryRow, "id"> & { id?: number }) => ({
  webhook_id: d.endpointId,
  event_id: d.eventId,
  attempt: d.attempt,
  status: d.status,
  trigger: d.trigger,
  http_status: d.httpStatus,
  latency_ms: d.latencyMs,
  error: d.error,
  created_at: iso(d.createdAtMs)!,
});
