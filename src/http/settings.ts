// Configuration errors are answers, not faults: a route that needs the service's settings checks
// them before anything else (src/settings.ts says which and why), and answers 503
// service_not_configured in its own envelope while one is missing. The first request to find a
// problem logs it, once per isolate, with the variable's name.
import { createMiddleware } from "hono/factory";
import type { AppEnv } from "../env";
import { ONE_ROUTE_SETTINGS, type SettingName, settingProblems } from "../settings";
import { serviceNotConfigured } from "./errors";
import { logOnce } from "./log-once";

/** The bindings (wrangler.toml) every route needs, one way or another: none may be missing. */
const REQUIRED_BINDINGS = ["DB", "LOGIN_THROTTLE", "HISTORY_GATE"] as const;

type Missing = SettingName | (typeof REQUIRED_BINDINGS)[number];

/**
 * The names of the settings and bindings that are missing or unusable, each problem logged once:
 * those every route needs, or with "all" those one route alone needs too (for GET /health and that
 * route).
 */
export function missingSettings(
  c: { env: AppEnv["Bindings"]; var: Pick<AppEnv["Variables"], "requestId"> },
  which: "every-route" | "all" = "every-route",
): Missing[] {
  const problems: { name: Missing; problem: string }[] = [
    ...settingProblems(c.env),
    ...REQUIRED_BINDINGS.filter((name) => !c.env[name]).map((name) => ({
      name,
      problem: "is not bound (wrangler.toml)",
    })),
  ];
  for (const { name, problem } of problems)
    logOnce(
      `setting ${name} ${problem}`,
      {
        request_id: c.var.requestId ?? null,
        setting: name,
        problem,
        effect: "routes that need it answer 503 service_not_configured until it is set",
      },
      "error",
    );
  return problems
    .map((p) => p.name)
    .filter((name) => which === "all" || !ONE_ROUTE_SETTINGS.has(name as SettingName));
}

/** Refuses the route with 503 service_not_configured, in its envelope, while a setting is missing. */
export const requireSettings = createMiddleware<AppEnv>(async (c, next) => {
  const missing = missingSettings(c);
  if (missing.length > 0) throw serviceNotConfigured(missing);
  await next();
});
