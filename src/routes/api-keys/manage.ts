import { Hono } from "hono";
import { listApiKeys, revokeApiKey } from "../../db/api-keys";
import { forgetKey } from "../../db/isolate-cache";
import type { AppEnv } from "../../env";
import { authenticate, requireAdmin } from "../../http/auth";
import { ok } from "../../http/envelope";
import { apiError } from "../../http/errors";
import { apiKeyListRecord } from "./schemas";

export const manageApiKeys = new Hono<AppEnv>()
  .get("/", authenticate, async (c) => {
    requireAdmin(c, "read");
    const rows = await listApiKeys(c.var.db);
    return ok(
      c,
      200,
      "API keys retrieved",
      rows.map((r) => apiKeyListRecord(r.key, r.username)),
    );
  })
  .delete("/:id", authenticate, async (c) => {
    requireAdmin(c, "write");
    const raw = c.req.param("id");
    const id = /^[0-9]{1,15}$/.test(raw) ? Number(raw) : null;
    const revoked = id === null ? null : await revokeApiKey(c.var.db, id, c.get("nowMs")());
    if (revoked) forgetKey(c.env.DB, revoked.id);
    if (!revoked) throw apiError("api_key_not_found", { id: `No API key ${raw}` });
    return ok(c, 200, "API key revoked", { id: revoked.id, revoked: true });
  });
