import { ok } from "../../http/envelope";
import { invalidInput } from "../../http/errors";
import { defineRoute } from "../../http/route";
import { fields } from "../../http/validation";
import { webhookDeps } from "../../http/webhooks";
import { createEndpoint } from "../../wallet/webhooks";
import { WebhookCreatedAnswer } from "../answers";
import { URL_RULE_TEXT, WebhookParams, webhookRecord } from "./schemas";

export const createWebhook = defineRoute(
  {
    path: "/webhooks",
    method: "POST",
    operationId: "createWebhook",
    summary: "Subscribe a URL to events (the signing secret is shown once)",
    auth: "admin",
    access: "read-write",
    params: fields(WebhookParams),
    envelope: "A",
    errors: ["invalid_input", "webhooks_not_configured"],
    success: 201,
    data: WebhookCreatedAnswer,
  },
  async (c, input) => {
    const made = await createEndpoint(webhookDeps(c), input);
    if ("refused" in made) throw invalidInput({ url: URL_RULE_TEXT[made.refused] });
    // The only time the secret is shown.
    return ok(c, 201, "Webhook created", { ...webhookRecord(made.endpoint), secret: made.secret });
  },
);
