// Configuration errors are answers, not faults: a route that needs the service's settings checks
// them before anything else (src/settings.ts says which and why), and answers 503
// service_not_configured in its own envelope while one is missing. The first request to find a
// problem logs it, once per isolate, with the variable's name.
import { createMiddleware } from "hono/factory";
import type { AppEnv } from "../env";
import { type MailSetting, mailTransport } from "../mail/transport";
import { perObject } from "../per-object";
import {
  type BindingName,
  bindingProblem,
  OPTIONAL_SETTINGS,
  type SettingName,
  settingProblems,
} from "../settings";
import { schemaApplied } from "../wallet/faults";
import { notMigrated, serviceNotConfigured } from "./errors";
import { logOnce } from "./log-once";

/** What a problem with ASSETS stops (reference.ts meets it too, for a binding left out). */
export const ASSETS_EFFECT =
  "the API reference's files answer 503 service_not_configured until it is corrected";

/**
 * The bindings (wrangler.toml) the routes read: those every route needs, one way or another (no
 * effect named: none may be missing), and those some routes alone need, with what a problem with
 * one stops (left out, each is a choice: no limit, no webhooks, no reference files). EMAIL is the
 * mail transport's (below).
 */
const BINDINGS: [Exclude<BindingName, "EMAIL">, string | undefined][] = [
  ["DB", undefined],
  ["LOGIN_THROTTLE", undefined],
  ["HISTORY_GATE", undefined],
  ["MONEY_RATE_LIMIT", "the money routes are not rate limited until it is corrected"],
  ["WEBHOOK_QUEUE", "the webhook routes answer 503 webhooks_not_configured until it is corrected"],
  ["WEBHOOK_DLQ", "dead letters are logged, not queued, until it is corrected"],
  ["ASSETS", ASSETS_EFFECT],
];

type Missing = SettingName | BindingName | MailSetting;

/** Each env object's binding problems, judged once as settingProblems judges the settings. */
const bindingProblems = perObject((env: AppEnv["Bindings"]) =>
  BINDINGS.flatMap(([name, effect]) => {
    // An optional binding left out is a choice; one bound to something else is not.
    const problem = effect && env[name] === undefined ? null : bindingProblem(env, name);
    return problem === null ? [] : [{ name, problem, effect }];
  }),
);

/**
 * The names of the settings and bindings that are missing or unusable, each problem logged once:
 * those every route needs, or with "all" those some routes alone need too (for GET /health and
 * those routes), a mail transport set but unusable among them.
 */
export function missingSettings(
  c: {
    env: AppEnv["Bindings"];
    var: Pick<AppEnv["Variables"], "requestId">;
    req: { url: string };
  },
  which: "every-route" | "all" = "every-route",
): Missing[] {
  const settings = settingProblems(c.env);
  const bindings = bindingProblems(c.env);
  // Every request asks: a service set up right answers at once.
  if (settings.length === 0 && bindings.length === 0 && which === "every-route") return [];
  const problems: { name: Missing; problem: string; effect?: string }[] = [
    ...settings.map((p) => ({ ...p, effect: SOME_ROUTES[p.name] })),
    ...bindings,
  ];
  if (which === "all") {
    const mail = mailTransport(c.env, c.req.url);
    if ("missing" in mail && mail.unintended)
      for (const name of mail.missing)
        problems.push({
          name,
          problem: mail.devOnly
            ? "is outbox, which keeps mail on this machine for npm run dev: a deployment's requests send none"
            : name === "EMAIL"
              ? `${bindingProblem(c.env, "EMAIL")}, and MAIL_TRANSPORT=cloudflare needs it`
              : MAIL_PROBLEM[name],
          effect: "the mail routes answer 503 mail_not_configured until it is corrected",
        });
  }
  for (const { name, problem, effect = EVERY_ROUTE } of problems)
    logOnce(
      `setting ${name} ${problem}`,
      { request_id: c.var.requestId ?? null, setting: name, problem, effect },
      "error",
    );
  // A MAIL_FROM that is no text is also what MAIL_TRANSPORT=cloudflare lacks: named once.
  return [...new Set(problems.filter((p) => which === "all" || !p.effect).map((p) => p.name))];
}

const EVERY_ROUTE = "routes that need it answer 503 service_not_configured until it is corrected";

/** What a problem with a setting only some routes read stops: those routes, not the service. */
const SOME_ROUTES: Partial<Record<SettingName, string>> = {
  TRANSACTIONS_SECURITY_CODE:
    "GET /transactions answers 503 service_not_configured until it is corrected",
  COMPAT_NAMESPACE: "the plugin's namespace is not served until it is corrected",
  ...Object.fromEntries(
    OPTIONAL_SETTINGS.map((name) => [name, "read as its default until it is corrected"]),
  ),
};

/** Why a transport MAIL_TRANSPORT names cannot send: the mail routes answer 503 until it can. */
const MAIL_PROBLEM: Record<Exclude<MailSetting, "EMAIL">, string> = {
  MAIL_TRANSPORT: "names no transport (cloudflare or outbox)",
  MAIL_FROM: "unset or not an e-mail address, and MAIL_TRANSPORT=cloudflare needs a sender",
};

/**
 * Refuses the route with 503 service_not_configured, in its envelope, while a setting is missing
 * or D1 lacks a migration.
 */
export const requireSettings = createMiddleware<AppEnv>(async (c, next) => {
  const missing = missingSettings(c);
  if (missing.length > 0) throw serviceNotConfigured(missing);
  if (!(await schemaApplied(c.var.service))) throw notMigrated(c);
  await next();
});
