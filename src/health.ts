// GET /health: public, for uptime checks and for the operator after a deploy. It says whether the
// required settings are there (naming a missing one, never a value) and whether D1 answers with
// every migration applied; no version, no error text. 200 when both are fine, 503 otherwise.
import type { Context } from "hono";
import { migrated } from "./db/health";
import type { AppEnv } from "./env";
import { send } from "./http/envelope";
import { missingSettings } from "./http/settings";

export async function health(c: Context<AppEnv>) {
  const missing = missingSettings(c, "all");
  let database: "ok" | "not migrated" | "unreachable";
  try {
    database = (await migrated(c.var.db)) ? "ok" : "not migrated";
  } catch (err) {
    database = "unreachable";
    // The reason stays in the log, with the request id the answer's X-Request-Id carries.
    console.error(
      JSON.stringify({
        request_id: c.get("requestId"),
        health: "D1 unreachable",
        error: String(err),
      }),
    );
  }
  const ok = missing.length === 0 && database === "ok";
  return send(c, ok ? 200 : 503, { status: ok ? "ok" : "unavailable", missing, database });
}
