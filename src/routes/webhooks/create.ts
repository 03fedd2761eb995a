import { requireAdmin } from "../../http/auth";
import { ok } from "../../http/envelope";
import { invalidInput } from "../../http/errors";
import { readParams } from "../../http/params";
import { parseFields } from "../../http/validation";
import { webhookDeps } from "../../http/webhooks";
import { createEndpoint } from "../../wallet/webhooks";
import { WebhookCreatedAnswer } from "../answers";
import { defineRoute } from "../route";
import { URL_RULE_TEXT, WebhookParams, webhookRecord } from "./schemas";

export const createWebhook = defineRoute(
  {
    path: "/webhooks",
    method: "POST",
    summary: "Subscribe a URL to events (the signing secret is shown once)",
    auth: "admin",
    params: WebhookParams,
    envelope: "A",
    errors: ["invalid_input", "webhooks_not_configured"],
    success: 201,
    data: WebhookCreatedAnswer,
  },
  async (c) => {
    requireAdmin(c, "write");
    const fields = parseFields(WebhookParams, await readParams(c));
    const made = await createEndpoint(webhookDeps(c), fields);
    if ("refused" in made) throw invalidInput({ url: URL_RULE_TEXT[made.refused] });
    // The only time the secret is shown.
    return ok(c, 201, "Webhook created", { ...webhookRecord(made.endpoint), secret: made.secret });
  },
);
