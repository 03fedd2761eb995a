import { generateApiKey, hashApiKey } from "../../auth/api-keys";
import { insertApiKey } from "../../db/api-keys";
import { ok } from "../../http/envelope";
import { permissionDenied, userNotFound } from "../../http/errors";
import { defineRoute } from "../../http/route";
import { fields } from "../../http/validation";
import { ApiKeyCreatedAnswer } from "../answers";
import { ApiKeyParams, apiKeyRecord } from "./schemas";

export const createApiKey = defineRoute(
  {
    path: "/api-keys",
    method: "POST",
    summary: "Create an API key (the secret is shown once)",
    auth: "admin",
    access: "write",
    params: fields(ApiKeyParams),
    envelope: "A",
    errors: ["invalid_input", "user_not_found"],
    success: 201,
    data: ApiKeyCreatedAnswer,
  },
  async (c, input) => {
    // A key may mint keys only within its own scope (a write key cannot make a read-write one).
    const callerScope = c.get("principal").scope;
    if (callerScope !== undefined && callerScope !== "read-write" && input.scope !== callerScope)
      throw permissionDenied.forbidden();
    const username = input.username ?? c.get("principal").username;
    const key = generateApiKey();
    const created = await insertApiKey(c.var.db, username, {
      name: input.name,
      scope: input.scope,
      keyHash: await hashApiKey(key),
      createdAtMs: c.get("nowMs")(),
    });
    if (!created) throw userNotFound(username);
    // The only time the secret is shown.
    const { created_at, ...record } = apiKeyRecord(created.key, created.username);
    return ok(c, 201, "API key created", { ...record, key, created_at });
  },
);
