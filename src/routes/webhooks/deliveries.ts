import * as v from "valibot";
import { ok } from "../../http/envelope";
import { IdPath } from "../../http/fields";
import { defineRoute } from "../../http/route";
import { fields, pathFields } from "../../http/validation";
import { recentDeliveries, resendEvent, testEndpoint } from "../../wallet/webhooks";
import { DeliveryAnswer } from "../answers";
import { DeliveriesParams, deliveryRecord, ResendRouteParams } from "./schemas";

export const getDeliveries = defineRoute(
  {
    path: "/webhooks/{id}/deliveries",
    method: "GET",
    operationId: "listWebhookDeliveries",
    summary: "An endpoint's recent delivery attempts, newest first",
    auth: "admin",
    access: "read",
    params: fields(DeliveriesParams),
    errors: ["invalid_input", "webhook_not_found"],
    data: v.array(DeliveryAnswer),
  },
  async (c, { id, limit }) => {
    const { rows } = await recentDeliveries(c.var.service, { webhook: id, limit });
    return ok(c, 200, "Deliveries retrieved", rows.map(deliveryRecord));
  },
);

export const testWebhook = defineRoute(
  {
    path: "/webhooks/{id}/test",
    method: "POST",
    operationId: "testWebhook",
    summary: "Send a signed webhook.test message now and answer how it went",
    auth: "admin",
    access: "write",
    params: pathFields(IdPath),
    errors: ["webhook_not_found", "webhooks_not_configured"],
    data: DeliveryAnswer,
  },
  async (c, { id }) => {
    const sent = await testEndpoint(c.var.service, id);
    return ok(c, 200, "Test delivery sent", deliveryRecord(sent));
  },
);

export const resendWebhook = defineRoute(
  {
    path: "/webhooks/{id}/resend",
    method: "POST",
    operationId: "resendWebhook",
    summary: "Send one event to an endpoint again, now",
    auth: "admin",
    access: "read-write",
    params: fields(ResendRouteParams),
    errors: ["invalid_input", "webhook_not_found", "event_not_found", "webhooks_not_configured"],
    data: DeliveryAnswer,
  },
  async (c, { id, event_id }) => {
    const sent = await resendEvent(c.var.service, { webhook: id, eventId: event_id });
    return ok(c, 200, "Event sent again", deliveryRecord(sent));
  },
);
