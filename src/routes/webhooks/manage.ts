import * as v from "valibot";
import { ok } from "../../http/envelope";
import { IdPath } from "../../http/fields";
import { defineRoute } from "../../http/route";
import { pathFields } from "../../http/validation";
import { listWebhooks, removeEndpoint } from "../../wallet/webhooks";
import { WebhookAnswer, WebhookDeletedAnswer } from "../answers";
import { webhookRecord } from "./schemas";

export const getWebhooks = defineRoute(
  {
    path: "/webhooks",
    method: "GET",
    operationId: "listWebhooks",
    summary: "List webhook endpoints and how their deliveries stand",
    auth: "admin",
    access: "read",
    data: v.array(WebhookAnswer),
  },
  async (c) => {
    const rows = await listWebhooks(c.var.service);
    return ok(c, 200, "Webhooks retrieved", rows.map(webhookRecord));
  },
);

export const deleteWebhook = defineRoute(
  {
    path: "/webhooks/{id}",
    method: "DELETE",
    operationId: "deleteWebhook",
    summary: "Delete a webhook endpoint and its delivery log",
    auth: "admin",
    access: "write",
    params: pathFields(IdPath),
    errors: ["webhook_not_found"],
    data: WebhookDeletedAnswer,
  },
  async (c, { id: named }) => {
    const id = await removeEndpoint(c.var.service, named);
    return ok(c, 200, "Webhook deleted", { id, deleted: true as const });
  },
);
