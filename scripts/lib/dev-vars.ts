// The settings `npm run dev` gives wrangler dev beyond wrangler.toml's: its defaults for local work,
// each only where .dev.vars does not set the variable. Wrangler lets `--var` win over .dev.vars,
// so passing a default unconditionally would silently override what the developer wrote there.
import { randomBytes } from "node:crypto";
import { parseEnv } from "node:util";
import { mailTransportName, usableSecretKey } from "../../src/settings";

/** Local defaults (docs/configuration.md): mail to the dev outbox, webhooks to this machine, soon retried. */
export const DEV_DEFAULTS: Readonly<Record<string, string>> = {
  MAIL_TRANSPORT: "outbox",
  WEBHOOK_ALLOW_LOCAL: "true",
  WEBHOOK_RETRY_BASE_S: "2",
};

/** The `--var NAME:value` arguments for the defaults that `devVarsText` (.dev.vars) leaves unset. */
export function devVarArgs(devVarsText: string): string[] {
  const set = parseEnv(devVarsText);
  return Object.entries(DEV_DEFAULTS).flatMap(([name, value]) =>
    name in set ? [] : ["--var", `${name}:${value}`],
  );
}

/**
 * The two secrets the Worker needs, as .dev.vars sets them, read as wrangler reads the file (dotenv:
 * quotes, inline `# comments`): JWT_SECRET's value (undefined when absent), and whether the
 * WEBHOOK_SECRET_KEY is long enough to use.
 */
export function devSecrets(devVarsText: string) {
  const set = parseEnv(devVarsText);
  return {
    jwtSecret: set.JWT_SECRET,
    webhookKeyUsable: usableSecretKey(set.WEBHOOK_SECRET_KEY),
    webhookKeySet: (set.WEBHOOK_SECRET_KEY ?? "").trim() !== "",
  };
}

/** The value wrangler dev will run with: .dev.vars's, else the default. */
export const devValue = (devVarsText: string, name: string) =>
  parseEnv(devVarsText)[name] ?? DEV_DEFAULTS[name];

/** Whether wrangler dev's Worker keeps mail in the dev outbox, reading MAIL_TRANSPORT as it does. */
export const devMailOutbox = (devVarsText: string) =>
  mailTransportName({ MAIL_TRANSPORT: devValue(devVarsText, "MAIL_TRANSPORT") }) === "outbox";

/**
 * A new .dev.vars: fresh dev-only secrets, and TRANSACTIONS_SECURITY_CODE empty, which leaves
 * `GET /transactions` taking any integer as its (always required) `security_code`.
 */
export const newDevVars = () =>
  "# Local development only (git ignores this file).\n" +
  `JWT_SECRET=${randomBytes(32).toString("hex")}\n` +
  "# GET /transactions always asks for an integer security_code; set this to require that one\n" +
  "# (empty: any integer passes).\n" +
  "TRANSACTIONS_SECURITY_CODE=\n" +
  "# Seals webhook signing secrets (docs/events.md#secrets).\n" +
  `WEBHOOK_SECRET_KEY=${randomBytes(32).toString("hex")}\n`;
