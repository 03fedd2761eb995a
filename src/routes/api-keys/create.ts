import { generateApiKey, hashApiKey } from "../../auth/api-keys";
import { insertApiKey } from "../../db/api-keys";
import { requireAdmin } from "../../http/auth";
import { ok } from "../../http/envelope";
import { permissionDenied, userNotFound } from "../../http/errors";
import { readParams } from "../../http/params";
import { parseFields } from "../../http/validation";
import { ApiKeyCreatedAnswer } from "../answers";
import { defineRoute } from "../route";
import { ApiKeyParams, apiKeyRecord } from "./schemas";

export const createApiKey = defineRoute(
  {
    path: "/api-keys",
    method: "POST",
    summary: "Create an API key (the secret is shown once)",
    auth: "admin",
    params: ApiKeyParams,
    envelope: "A",
    errors: ["invalid_input", "user_not_found"],
    success: 201,
    data: ApiKeyCreatedAnswer,
  },
  async (c) => {
    requireAdmin(c, "write");
    const fields = parseFields(ApiKeyParams, await readParams(c));
    // A key may mint keys only within its own scope (a write key cannot make a read-write one).
    const callerScope = c.get("principal").scope;
    if (callerScope !== undefined && callerScope !== "read-write" && fields.scope !== callerScope)
      throw permissionDenied.forbidden();
    const username = fields.username ?? c.get("principal").username;
    const key = generateApiKey();
    const created = await insertApiKey(c.var.db, username, {
      name: fields.name,
      scope: fields.scope,
      keyHash: await hashApiKey(key),
      createdAtMs: c.get("nowMs")(),
    });
    if (!created) throw userNotFound(username);
    // The only time the secret is shown.
    const { created_at, ...record } = apiKeyRecord(created.key, created.username);
    return ok(c, 201, "API key created", { ...record, key, created_at });
  },
);
