import { ok } from "../../http/envelope";
import { ApiKeyParams } from "../../http/fields";
import { defineRoute } from "../../http/route";
import { fields } from "../../http/validation";
import { issueApiKey } from "../../wallet/api-keys";
import { ApiKeyCreatedAnswer } from "../answers";
import { apiKeyRecord } from "./schemas";

export const createApiKey = defineRoute(
  {
    path: "/api-keys",
    method: "POST",
    operationId: "createApiKey",
    summary: "Create an API key (the secret is shown once)",
    auth: "admin",
    access: "write",
    params: fields(ApiKeyParams),
    errors: ["invalid_input", "user_not_found"],
    success: 201,
    data: ApiKeyCreatedAnswer,
  },
  async (c, input) => {
    const created = await issueApiKey(c.var.service, input);
    // The only time the secret is shown.
    const { created_at, ...record } = apiKeyRecord(created);
    return ok(c, 201, "API key created", { ...record, key: created.secret, created_at });
  },
);
