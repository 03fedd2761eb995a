import { Hono } from "hono";
import { generateApiKey, hashApiKey } from "../../auth/api-keys";
import { insertApiKey } from "../../db/api-keys";
import { createDb } from "../../db/client";
import { findUserByUsername } from "../../db/users";
import type { AppEnv } from "../../env";
import { authenticate, requireAdmin } from "../../http/auth";
import { ok } from "../../http/envelope";
import { userNotFound } from "../../http/errors";
import { readParams } from "../../http/params";
import { parseFields } from "../../http/validation";
import { ApiKeyParams, apiKeyRecord } from "./schemas";

export const createApiKey = new Hono<AppEnv>().post("/", authenticate, async (c) => {
  requireAdmin(c, "write");
  const fields = parseFields(ApiKeyParams, await readParams(c));
  const db = createDb(c.env.DB);
  const caller = c.get("principal");
  const owner = fields.username === undefined ? { id: caller.userId, username: caller.username } : await findUserByUsername(db, fields.username);
  if (!owner) throw userNotFound(fields.username);
  const key = generateApiKey();
  const row = await insertApiKey(db, {
    userId: owner.id,
    name: fields.name,
    scope: fields.scope,
    keyHash: await hashApiKey(key),
    createdAtMs: c.get("nowMs")(),
  });
  // The only time the secret is shown.
  return ok(c, 201, "API key created", { ...apiKeyRecord(row, owner.username), key });
});
