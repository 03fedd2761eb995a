// What the tools that serve or deploy the Worker (npm run dev, serve, deploy) check in wrangler.toml
// before they touch any state, a local D1 or an account: each mistake here would otherwise show
// only after the migrations ran, as Miniflare's or Cloudflare's refusal, or as a Worker that
// answers 503 on every route.
import { existsSync } from "node:fs";
import path from "node:path";
import { LATEST_MIGRATION } from "../../src/db/latest-migration";
import { mailTransport } from "../../src/mail/transport";
import { OBJECT_CLASSES, settingProblems } from "../../src/settings";
import {
  objectClasses,
  rateLimits,
  readD1,
  sendEmailNames,
  sqliteClasses,
  topLevelValue,
  topLevelVars,
} from "./wrangler-toml";

export const CONFIG = "wrangler.toml";

/** The secrets the Worker reads (.env.types): set with `wrangler secret put`, never in [vars]. */
const SECRETS = ["JWT_SECRET", "TRANSACTIONS_SECURITY_CODE", "WEBHOOK_SECRET_KEY"];

/** The periods, in seconds, a `[[ratelimits]]` binding may count over (Cloudflare's and Miniflare's). */
const RATE_LIMIT_PERIODS = [10, 60];

/** What is wrong with wrangler.toml's text for running this code, with its fix, or undefined. */
export function configProblem(text: string): string | undefined {
  // The D1 database the DB binding names, migrated by wrangler's record under its default name
  // (src/db/health.ts reads it, and serves nothing until the newest is in it), from a folder
  // holding this code's migrations. Invalid TOML throws here, with its line and column.
  let d1: ReturnType<typeof readD1>;
  try {
    d1 = readD1(text, "DB");
  } catch (error) {
    return (error as Error).message;
  }
  if (!d1?.name)
    return `${CONFIG} has no [[d1_databases]] with binding = "DB" and a database_name.`;
  if (d1.migrationsTable !== "d1_migrations")
    return (
      `${CONFIG} names migrations_table = "${d1.migrationsTable}"; the Worker reads wrangler's ` +
      "default, d1_migrations, to know the database is migrated. Remove migrations_table."
    );
  if (!existsSync(path.join(d1.migrationsDir, LATEST_MIGRATION)))
    return (
      `${CONFIG}'s DB binding takes its migrations from "${d1.migrationsDir}" (migrations_dir; ` +
      "wrangler's default when unset),\n" +
      `which does not hold ${LATEST_MIGRATION}, the newest this code needs. Set\n` +
      '  migrations_dir = "drizzle"\nunder binding = "DB".'
    );

  const main = topLevelValue(text, "main");
  if (!main || !existsSync(main))
    return `${CONFIG}'s main names ${main ? `"${main}", which does not exist` : "no file"}; it must be "src/index.ts".`;

  const date = topLevelValue(text, "compatibility_date");
  const real = date !== undefined && /^\d{4}-\d{2}-\d{2}$/.test(date) && isDay(date);
  if (!real)
    return `${CONFIG}'s compatibility_date ${date === undefined ? "is unset" : `"${date}" is no date`}; write it as YYYY-MM-DD.`;
  // The runtime refuses a date in the future (UTC).
  const today = new Date().toISOString().slice(0, 10);
  if (date > today)
    return `${CONFIG}'s compatibility_date "${date}" is in the future (today is ${today} UTC), which the runtime refuses.`;

  // Every route needs both Durable Objects, each of its own class (the Worker answers 503 without).
  const classes = objectClasses(text);
  for (const [name, type] of Object.entries(OBJECT_CLASSES)) {
    const named = classes.get(name);
    if (named === undefined)
      return (
        `${CONFIG} has no ${name} in [[durable_objects.bindings]]; every route needs it. Add\n` +
        `  [[durable_objects.bindings]]\n  name = "${name}"\n  class_name = "${type}"\n` +
        "as the repository's wrangler.toml has it."
      );
    if (named !== type)
      return `${CONFIG}'s Durable Object binding ${name} names class_name = "${named}"; it must be "${type}".`;
    // LoginThrottle keeps its counts in SQLite: made without it, every call to its objects fails.
    // HistoryGate keeps its lease in memory, but is held to the same entry the repository ships.
    if (!sqliteClasses(text).has(type))
      return (
        `${CONFIG}: no [[migrations]] entry lists "${type}" in new_sqlite_classes, so its objects ` +
        `(binding ${name}) would have no SQLite storage. Keep\n  [[migrations]]\n  tag = "…"\n` +
        `  new_sqlite_classes = ["${type}"]\nas the repository's wrangler.toml has it (new_classes makes a class without it).`
      );
  }

  for (const { name, limit, period } of rateLimits(text))
    if (
      !Number.isSafeInteger(limit) ||
      (limit as number) < 1 ||
      !RATE_LIMIT_PERIODS.includes(period as number)
    )
      return (
        `${CONFIG}'s [[ratelimits]] ${name ?? "(no name)"} must count a whole limit of at least 1 over a ` +
        `period of 10 or 60 seconds: simple = { limit = ${String(limit)}, period = ${String(period)} }.`
      );
  return undefined;
}

/**
 * What is wrong with wrangler.toml's [vars] for a deployment, or undefined: a secret written there
 * (the repository would hold it), or a setting the Worker would answer 503 for or read as its default.
 */
export function varsProblem(text: string): string | undefined {
  const vars = topLevelVars(text);
  const secret = SECRETS.find((name) => name in vars);
  if (secret)
    return (
      `${CONFIG} sets ${secret} in [vars], where the repository would hold it. Remove it there: it is a ` +
      `secret (npm run deploy generates JWT_SECRET and WEBHOOK_SECRET_KEY; npm run wrangler -- secret put ${secret}).`
    );
  const problems = settingProblems(vars).filter((p) => !SECRETS.includes(p.name));
  if (problems.length > 0)
    return `${CONFIG}'s [vars]: ${problems.map((p) => `${p.name} is ${p.problem}`).join("; ")} (docs/configuration.md).`;
  // A MAIL_TRANSPORT set to a transport it cannot use, as the Worker judges it on a deployment's
  // hostname (GET /health answers 503 for it). The dev outbox has a refusal of its own (deploy.ts).
  const mail = mailTransport(
    {
      ...vars,
      // A stand-in of the binding's kind: wrangler.toml declares it, so the deployment has one.
      EMAIL: sendEmailNames(text).includes("EMAIL") ? { send: async () => {} } : undefined,
    } as Parameters<typeof mailTransport>[0],
    "https://deployment.invalid/",
  );
  if ("missing" in mail && mail.unintended && !mail.devOnly)
    return (
      `${CONFIG} sets MAIL_TRANSPORT = "${vars.MAIL_TRANSPORT}", ` +
      (mail.missing.includes("MAIL_TRANSPORT")
        ? 'which names no transport ("cloudflare" sends through Cloudflare Email Service)'
        : `which needs ${mail.missing.map((name) => MAIL_NEEDS[name]).join(", and ")}`) +
      '. Or set MAIL_TRANSPORT = "" for no mail (docs/mail.md).'
    );
  return undefined;
}

/** What MAIL_TRANSPORT = "cloudflare" needs in wrangler.toml, by the name the Worker gives it. */
const MAIL_NEEDS: Record<string, string> = {
  MAIL_FROM:
    'MAIL_FROM, the sender\'s address alone ("wallet@example.com") on a domain onboarded to Email Sending',
  EMAIL: 'the EMAIL binding: uncomment [[send_email]] name = "EMAIL"',
};

/** Whether YYYY-MM-DD names a day of the calendar (not 2026-13-45, nor 2026-02-30). */
function isDay(date: string) {
  const time = Date.parse(`${date}T00:00:00Z`);
  return !Number.isNaN(time) && new Date(time).toISOString().startsWith(date);
}
