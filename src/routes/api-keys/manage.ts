import * as v from "valibot";
import { ok } from "../../http/envelope";
import { IdPath } from "../../http/fields";
import { defineRoute } from "../../http/route";
import { pathFields } from "../../http/validation";
import { listKeys, revokeKey } from "../../wallet/api-keys";
import { ApiKeyAnswer, ApiKeyRevokedAnswer } from "../answers";
import { apiKeyListRecord } from "./schemas";

export const getApiKeys = defineRoute(
  {
    path: "/api-keys",
    method: "GET",
    operationId: "listApiKeys",
    summary: "List API keys",
    auth: "admin",
    access: "read",
    data: v.array(ApiKeyAnswer),
  },
  async (c) => {
    const rows = await listKeys(c.var.service);
    return ok(c, 200, "API keys retrieved", rows.map(apiKeyListRecord));
  },
);

export const deleteApiKey = defineRoute(
  {
    path: "/api-keys/{id}",
    method: "DELETE",
    operationId: "revokeApiKey",
    summary: "Revoke an API key",
    auth: "admin",
    access: "write",
    params: pathFields(IdPath),
    errors: ["invalid_input", "api_key_not_found"],
    data: ApiKeyRevokedAnswer,
  },
  async (c, { id }) => {
    const revoked = await revokeKey(c.var.service, id);
    return ok(c, 200, "API key revoked", { id: revoked.id, revoked: true });
  },
);
