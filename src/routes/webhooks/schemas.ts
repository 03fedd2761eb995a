import * as v from "valibot";
import type { DeliveryRow, EndpointRow } from "../../db/events";
import { integerIn, pathIdField, ResendParams } from "../../http/fields";
import { WEBHOOK_LIMITS } from "../../wallet/webhooks";

/** A resend's input: the endpoint in the path, then the body's event. */
export const ResendRouteParams = v.object({ id: pathIdField, ...ResendParams.entries });

export const DeliveriesParams = v.object({
  id: pathIdField,
  limit: v.optional(integerIn("limit", 1, WEBHOOK_LIMITS.deliveriesMax), 50),
});

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

export const webhookRecord = (e: EndpointRow) => ({
  id: e.id,
  url: e.url,
  description: e.description,
  events: e.eventTypes,
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
