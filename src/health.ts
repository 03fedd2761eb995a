// GET /health: public, for uptime checks and for the operator after a deploy. It says whether the
// settings and bindings are usable (naming each one missing or wrong, optional ones included, never
// a value) and whether D1 answers with every migration applied; no version, no error text. 200 when
// both are fine, 503 otherwise. A migration D1 holds that this code does not know (code rolled
// back) is named, and still 200: the routes serve on that schema.
import type { Context } from "hono";
import { errorText } from "./db/client";
import { migrations } from "./db/health";
import type { AppEnv } from "./env";
import { send } from "./http/envelope";
import { misconfiguredObject } from "./http/errors";
import { missingSettings } from "./http/settings";
import { bound } from "./settings";
import { objectFor } from "./throttle/sign-in";

/** What was out of reach: its reason stays in the log, with the request id the answer carries. */
const logUnreachable = (c: Context<AppEnv>, health: string, err: unknown) =>
  console.error(JSON.stringify({ request_id: c.get("requestId"), health, ...errorText(err) }));

/**
 * Each Durable Object binding of the right kind whose deployment got it wrong: its object of the
 * other class (class_name copied unchanged) or of a class without SQL storage. Asked one question
 * that stores nothing, under a name no key of the service uses, such an object refuses it. Any
 * other failure is logged, and names nothing: an object out of reach for a moment is not a
 * deployment's mistake.
 */
async function misconfiguredObjects(c: Context<AppEnv>) {
  const throttle = bound(c.env, "LOGIN_THROTTLE");
  const gate = bound(c.env, "HISTORY_GATE");
  const probes = [
    throttle && (["LOGIN_THROTTLE", () => objectFor(throttle, "health").knows("", 0)] as const),
    // acquire is the one method only HistoryGate has. The lease it takes on the "health" object
    // ran out at the epoch's first minute and lives in that object's memory alone.
    gate &&
      (["HISTORY_GATE", () => gate.get(gate.idFromName("health")).acquire("health", 0)] as const),
  ];
  const named = await Promise.all(
    probes.map(async (probe) => {
      if (!probe) return [];
      const [binding, ask] = probe;
      try {
        await ask();
        return [];
      } catch (err) {
        const name = misconfiguredObject(c, err, binding);
        if (name) return [name];
        logUnreachable(c, "Durable Object unreachable", err);
        return [];
      }
    }),
  );
  return named.flat();
}

export async function health(c: Context<AppEnv>) {
  const settings = missingSettings(c, "all");
  const objects = misconfiguredObjects(c); // asked while D1 is
  let database: "ok" | "not migrated" | "unreachable";
  let unknown: string[] = [];
  try {
    const read = await migrations(c.var.db);
    database = read.applied ? "ok" : "not migrated";
    unknown = read.unknown;
  } catch (err) {
    database = "unreachable";
    logUnreachable(c, "D1 unreachable", err);
  }
  const missing = [...settings, ...(await objects)];
  const ok = missing.length === 0 && database === "ok";
  return send(c, ok ? 200 : 503, {
    status: ok ? "ok" : "unavailable",
    missing,
    database,
    ...(unknown.length > 0 ? { unknown_migrations: unknown } : {}),
  });
}
