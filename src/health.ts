// GET /health: public, for uptime checks and for the operator after a deploy. It says whether the
// required settings are there (naming a missing one, never a value) and whether D1 answers with
// every migration applied; no version, no error text. 200 when both are fine, 503 otherwise. A
// migration D1 holds that this code does not know (code rolled back) is named, and still 200:
// the routes serve on that schema.
import type { Context } from "hono";
import { errorText } from "./db/client";
import { migrations } from "./db/health";
import type { AppEnv } from "./env";
import { send } from "./http/envelope";
import { missingSettings } from "./http/settings";

export async function health(c: Context<AppEnv>) {
  const missing = missingSettings(c, "all");
  let database: "ok" | "not migrated" | "unreachable";
  let unknown: string[] = [];
  try {
    const read = await migrations(c.var.db);
    database = read.applied ? "ok" : "not migrated";
    unknown = read.unknown;
  } catch (err) {
    database = "unreachable";
    // The reason stays in the log, with the request id the answer's X-Request-Id carries.
    console.error(
      JSON.stringify({
        request_id: c.get("requestId"),
        health: "D1 unreachable",
        ...errorText(err),
      }),
    );
  }
  const ok = missing.length === 0 && database === "ok";
  return send(c, ok ? 200 : 503, {
    status: ok ? "ok" : "unavailable",
    missing,
    database,
    ...(unknown.length > 0 ? { unknown_migrations: unknown } : {}),
  });
}
