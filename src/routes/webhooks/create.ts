import { ok } from "../../http/envelope";
import { WebhookParams } from "../../http/fields";
import { defineRoute } from "../../http/route";
import { fields } from "../../http/validation";
import { createEndpoint } from "../../wallet/webhooks";
import { WebhookCreatedAnswer } from "../answers";
import { webhookRecord } from "./schemas";

export const createWebhook = defineRoute(
  {
    path: "/webhooks",
    method: "POST",
    operationId: "createWebhook",
    summary: "Subscribe a URL to events (the signing secret is shown once)",
    auth: "admin",
    access: "read-write",
    params: fields(WebhookParams),
    errors: ["invalid_input", "webhooks_not_configured"],
    success: 201,
    data: WebhookCreatedAnswer,
  },
  async (c, input) => {
    const made = await createEndpoint(c.var.service, input);
    // The only time the secret is shown.
    return ok(c, 201, "Webhook created", { ...webhookRecord(made.endpoint), secret: made.secret });
  },
);
