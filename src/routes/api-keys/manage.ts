import * as v from "valibot";
import { listApiKeys, revokeApiKey } from "../../db/api-keys";
import { forgetKey } from "../../db/isolate-cache";
import { ok } from "../../http/envelope";
import { apiError } from "../../http/errors";
import { defineRoute, pathParam } from "../../http/route";
import { ApiKeyAnswer, ApiKeyRevokedAnswer } from "../answers";
import { apiKeyListRecord } from "./schemas";

export const getApiKeys = defineRoute(
  {
    path: "/api-keys",
    method: "GET",
    summary: "List API keys",
    auth: "admin",
    access: "read",
    envelope: "A",
    success: 200,
    data: v.array(ApiKeyAnswer),
  },
  async (c) => {
    const rows = await listApiKeys(c.var.db);
    return ok(
      c,
      200,
      "API keys retrieved",
      rows.map((r) => apiKeyListRecord(r.key, r.username)),
    );
  },
);

export const deleteApiKey = defineRoute(
  {
    path: "/api-keys/{id}",
    method: "DELETE",
    summary: "Revoke an API key",
    auth: "admin",
    access: "write",
    envelope: "A",
    errors: ["invalid_input", "api_key_not_found"],
    success: 200,
    data: ApiKeyRevokedAnswer,
  },
  async (c) => {
    const raw = pathParam(c, "id");
    const id = /^[0-9]{1,15}$/.test(raw) ? Number(raw) : null;
    const revoked = id === null ? null : await revokeApiKey(c.var.db, id, c.get("nowMs")());
    if (revoked) forgetKey(c.env.DB, revoked.id);
    if (!revoked) throw apiError("api_key_not_found", { id: `No API key ${raw}` });
    return ok(c, 200, "API key revoked", { id: revoked.id, revoked: true });
  },
);
