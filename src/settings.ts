// The settings the service reads (docs/configuration.md), each read one way. They are judged once
// per env object (a new deployment, or a test's own env, is another object): the routes that need
// one answer 503 service_not_configured while it is missing (http/settings.ts), an optional one
// that is wrong is read as its default, and GET /health names either. Plain values only: the tools
// (scripts/dev.ts, scripts/deploy.ts) read the same rules.
import { isEmailAddress } from "./email-address";
import { perObject } from "./per-object";

/**
 * The shortest JWT_SECRET accepted: an HS256 key shorter than its 32-byte hash is weaker than the
 * hash. `npm run dev` and `npm run deploy` generate 32 random bytes as 64 hex characters.
 */
export const JWT_SECRET_MIN_LENGTH = 32;

/**
 * A var's or secret's text, "" when unset. wrangler.toml's `[vars]` hand a value written without
 * quotes (`60`, `true`, a list) to the Worker as that JSON value, not as text: it is read as unset,
 * and settingProblems names it.
 */
export const varText = (value: unknown) => (typeof value === "string" ? value : "");

/** A flag var (COMPAT_PUBLIC_READS, WEBHOOK_ALLOW_LOCAL): on only for "true", in any case. */
export const flagOn = (value: unknown) => varText(value).trim().toLowerCase() === "true";

/**
 * COMPAT_PUBLIC_READS: the plugin dialect's balances, and every user's transactions, are readable
 * without credentials, as the plugin had them (docs/compat.md).
 */
export const compatPublicReads = (env: { COMPAT_PUBLIC_READS?: string }) =>
  flagOn(env.COMPAT_PUBLIC_READS);

/** What a flag var may say: anything else is named, and read as off. */
const FLAG_WORDS = ["", "true", "false"];

/** A var's whole number, or null. */
function whole(value: unknown) {
  const text = varText(value).trim();
  return /^[0-9]{1,15}$/.test(text) ? Number(text) : null;
}

/** A var's positive whole number, or null. */
function positiveWhole(value: unknown) {
  const n = whole(value);
  return n !== null && n > 0 ? n : null;
}

/** WEBHOOK_RETRY_BASE_S in seconds: a positive whole number, else the default, 60. */
export const retryBaseS = (value: unknown) => positiveWhole(value) ?? 60;

/**
 * WEBHOOK_LEASE_S's bounds, in seconds. A lease must outlive one delivery attempt (its 10 s timeout,
 * events/deliver.ts) and the D1 calls around it, else another consumer takes the endpoint over
 * mid-attempt and sends the event again; past an hour, longer than the longest back-off, an
 * endpoint whose consumer died would wait longer than any failing one.
 */
export const WEBHOOK_LEASE_S_MIN = 20;
export const WEBHOOK_LEASE_S_MAX = 3600;

/** WEBHOOK_LEASE_S as set: a whole number of seconds within its bounds, else null. */
function leaseSet(value: unknown) {
  const n = whole(value);
  return n !== null && n >= WEBHOOK_LEASE_S_MIN && n <= WEBHOOK_LEASE_S_MAX ? n : null;
}

/** WEBHOOK_LEASE_S: as set, else the default, 60. */
export const webhookLeaseS = (value: unknown) => leaseSet(value) ?? 60;

/**
 * MAIL_LIMIT_PER_CLIENT's default: mails one client address may ask for in an hour, to any
 * addresses. Generous, since a site's own server asking verification mail for its users is one
 * client address.
 */
export const MAIL_LIMIT_PER_CLIENT_DEFAULT = 1000;

/**
 * The largest MAIL_LIMIT_PER_CLIENT: a client's count keeps the instant of each mail in its hour,
 * read and written whole by every mail request it makes, so a larger limit makes each request
 * slower and the row larger (past about 150,000, more than a Durable Object row may hold).
 */
export const MAIL_LIMIT_PER_CLIENT_MAX = 10_000;

/** MAIL_LIMIT_PER_CLIENT as set: a whole number up to the largest (0: no limit), else null. */
function mailLimitSet(value: unknown) {
  const n = whole(value);
  return n !== null && n <= MAIL_LIMIT_PER_CLIENT_MAX ? n : null;
}

/** MAIL_LIMIT_PER_CLIENT: as set, else the default. */
export const mailLimitPerClient = (value: unknown) =>
  mailLimitSet(value) ?? MAIL_LIMIT_PER_CLIENT_DEFAULT;

/** Whether JWT_SECRET is long enough, not counting spaces at its ends (as WEBHOOK_SECRET_KEY). */
export const usableJwtSecret = (secret: unknown) =>
  varText(secret).trim().length >= JWT_SECRET_MIN_LENGTH;

/**
 * Whether `url` names this machine (127.0.0.1, localhost, [::1]): `npm run dev`, `npm run serve`
 * and the tests, where the dev-only settings work. A deployment's requests come to its hostname.
 */
export const isLocalAddress = (url: string) =>
  /^https?:\/\/(127\.0\.0\.1|localhost|\[::1\])(:|\/|$)/.test(url);

/** MAIL_TRANSPORT's name as the service reads it (mail/transport.ts): any letter case, trimmed. */
export const mailTransportName = (env: { MAIL_TRANSPORT?: unknown }) =>
  varText(env.MAIL_TRANSPORT).trim().toLowerCase();

/** MAIL_FROM as mail is sent from it: trimmed; "" when unset or not an e-mail address. */
export function mailFrom(env: Pick<SettingsEnv, "MAIL_FROM">) {
  const from = varText(env.MAIL_FROM).trim();
  return isEmailAddress(from) ? from : "";
}

/** The shortest WEBHOOK_SECRET_KEY accepted (not counting spaces at its ends): the HKDF input. */
export const WEBHOOK_SECRET_KEY_MIN_LENGTH = 32;

/** Whether WEBHOOK_SECRET_KEY can seal and open webhook signing secrets (events/secrets.ts). */
export const usableSecretKey = (key: unknown) =>
  varText(key).trim().length >= WEBHOOK_SECRET_KEY_MIN_LENGTH;

/** The settings with a default (docs/configuration.md), which one that is wrong leaves them at. */
export const OPTIONAL_SETTINGS = [
  "COMPAT_PUBLIC_READS",
  "CORS_ORIGINS",
  "MAIL_TRANSPORT",
  "MAIL_FROM",
  "MAIL_LIMIT_PER_CLIENT",
  "WEBHOOK_ALLOW_LOCAL",
  "WEBHOOK_RETRY_BASE_S",
  "WEBHOOK_LEASE_S",
  "WEBHOOK_SECRET_KEY",
] as const;

/** Every var and secret the service reads as text (wrangler.toml [vars], .env.types). */
const TEXT_SETTINGS = [
  "JWT_SECRET",
  "JWT_ISSUER",
  "SITE_TIMEZONE",
  "SITE_URL",
  "COMPAT_NAMESPACE",
  "TRANSACTIONS_SECURITY_CODE",
  ...OPTIONAL_SETTINGS,
] as const;

export type SettingName = (typeof TEXT_SETTINGS)[number];

/** The settings as the env holds them (a value that is no text is named: settingProblems). */
export type SettingsEnv = { [Name in SettingName]?: string };

/** SITE_TIMEZONE as dates are written in it: trimmed, as the other settings are read. */
export const siteTimeZone = (env: Pick<SettingsEnv, "SITE_TIMEZONE">) =>
  varText(env.SITE_TIMEZONE).trim();

/** SITE_URL as guids and links use it: trimmed, without a trailing slash; "" when unset. */
export const configuredSiteUrl = (env: Pick<SettingsEnv, "SITE_URL">) =>
  varText(env.SITE_URL).trim().replace(/\/+$/, "");

/** A setting the service cannot work with, and why (the why goes to the log, never on the wire). */
type SettingProblem = { name: SettingName; problem: string };

/** The contract's namespace segment (`/wp-json/wallet/v1`), which the plugin's must not shadow. */
export const CONTRACT_NAMESPACE = "wallet";

/** COMPAT_NAMESPACE as one path segment, lower case; "" when unset or blank. */
const compatName = (env: Pick<SettingsEnv, "COMPAT_NAMESPACE">) =>
  varText(env.COMPAT_NAMESPACE).trim().toLowerCase();

/** What keeps a COMPAT_NAMESPACE from naming the plugin's namespace, or null. */
function compatNameProblem(name: string) {
  if (!/^[a-z0-9_-]{1,64}$/.test(name))
    return "not one path segment of 1 to 64 of a-z, 0-9, _ and -";
  if (name === CONTRACT_NAMESPACE) return "the contract's own namespace";
  return null;
}

/**
 * The plugin dialect's namespace segment (`rimplenet` serves `/wp-json/rimplenet/v1`), or null when
 * off: unset, or a name it cannot serve (a problem GET /health names).
 */
export function compatNamespace(env: Pick<SettingsEnv, "COMPAT_NAMESPACE">): string | null {
  const name = compatName(env);
  return name !== "" && compatNameProblem(name) === null ? name : null;
}

/** `security_code` as the contract has it (section 7): an integer, of any length, as written. */
export const SECURITY_CODE = /^-?[0-9]+$/;

/** Whether the runtime knows an IANA zone (asked once per env: settingProblems). */
function knownZone(zone: string) {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/**
 * What is wrong with SITE_URL as the base of every link, guid and mailed address, or null. The text
 * itself is used, so it must hold nothing a URL parser would drop or change (a newline would break
 * every answer's Link header), and nothing a link must not carry or cannot be followed by.
 */
function siteUrlProblem(text: string) {
  const url = URL.parse(text);
  if (!url || !/^https?:\/\//i.test(text) || !["https:", "http:"].includes(url.protocol))
    return "not an absolute http(s) URL";
  if (/[^!-~]/.test(text)) return "holds a space, a control or a non-ASCII character";
  if (/[<>"\\^`{|}]/.test(text)) return "holds a character a URL must not";
  if (url.username !== "" || url.password !== "") return "holds a user name or password";
  if (/[?#]/.test(text)) return "holds a query or a fragment";
  return null;
}

/**
 * Every setting that is unset while required, or unusable; none when the service is configured.
 * Judged once per env object: an isolate keeps one env, so a request does not judge it again.
 */
export const settingProblems = perObject(judge);

export const NOT_TEXT = "not text (in wrangler.toml [vars], write its value in quotes)";

const DURABLE_OBJECT = {
  kind: "a Durable Object namespace",
  at: "[[durable_objects.bindings]]",
  methods: ["idFromName", "get"],
} as const;

const QUEUE_PRODUCER = {
  kind: "a queue producer",
  at: "[[queues.producers]]",
  methods: ["send", "sendBatch"],
} as const;

/**
 * Each binding the service reads, by what it is, where wrangler.toml declares it, and the methods
 * the service calls on it. A name bound to something else (a `[vars]` entry of that name, another
 * kind of binding) lacks those methods: it is read as unbound, and named, never called.
 */
const BINDINGS = {
  DB: {
    kind: "a D1 database",
    at: "[[d1_databases]]",
    methods: ["prepare", "batch", "withSession"],
  },
  LOGIN_THROTTLE: DURABLE_OBJECT,
  HISTORY_GATE: DURABLE_OBJECT,
  MONEY_RATE_LIMIT: { kind: "a rate limiter", at: "[[ratelimits]]", methods: ["limit"] },
  WEBHOOK_QUEUE: QUEUE_PRODUCER,
  WEBHOOK_DLQ: QUEUE_PRODUCER,
  ASSETS: { kind: "the assets binding", at: "[assets]", methods: ["fetch"] },
  EMAIL: { kind: "a send_email binding", at: "[[send_email]]", methods: ["send"] },
} as const;

export type BindingName = keyof typeof BINDINGS;

/** The Durable Object bindings, each by the class (src/index.ts exports) its class_name must name. */
export const OBJECT_CLASSES = {
  LOGIN_THROTTLE: "LoginThrottle",
  HISTORY_GATE: "HistoryGate",
} as const satisfies Partial<Record<BindingName, string>>;

/** A binding as the service uses it; undefined when unbound or bound to something else. */
export function bound<E extends Partial<Record<BindingName, unknown>>, N extends BindingName>(
  env: E,
  name: N,
): E[N] | undefined {
  const value = env[name] as Record<string, unknown> | null | undefined;
  if (value === null || value === undefined) return undefined;
  const usable = BINDINGS[name].methods.every((method) => typeof value[method] === "function");
  return usable ? env[name] : undefined;
}

/** What the log says of a binding that is unbound or bound to something else; null when usable. */
export function bindingProblem(env: Partial<Record<BindingName, unknown>>, name: BindingName) {
  const { kind, at } = BINDINGS[name];
  if (env[name] === null || env[name] === undefined) return `is not bound (wrangler.toml ${at})`;
  if (bound(env, name) !== undefined) return null;
  return `is not ${kind}: declare it in wrangler.toml ${at}, and give no [vars] entry or other binding that name`;
}

function judge(env: SettingsEnv): SettingProblem[] {
  // A value that is no text is named as that alone, whatever it would be as text.
  const problems: SettingProblem[] = TEXT_SETTINGS.filter(
    (name) => env[name] !== undefined && typeof env[name] !== "string",
  ).map((name) => ({ name, problem: NOT_TEXT }));
  const notText = new Set(problems.map((p) => p.name));
  const refuse = (name: SettingName, problem: string) => {
    if (!notText.has(name)) problems.push({ name, problem });
  };
  const secret = varText(env.JWT_SECRET);
  if (secret.trim() === "") refuse("JWT_SECRET", "unset");
  else if (!usableJwtSecret(secret))
    refuse("JWT_SECRET", `shorter than ${JWT_SECRET_MIN_LENGTH} characters`);
  if (varText(env.JWT_ISSUER).trim() === "") refuse("JWT_ISSUER", "unset");
  const zone = siteTimeZone(env);
  if (zone === "") refuse("SITE_TIMEZONE", "unset");
  else if (!knownZone(zone)) refuse("SITE_TIMEZONE", "not a time zone the runtime knows");
  const site = varText(env.SITE_URL).trim();
  const siteProblem = site === "" ? null : siteUrlProblem(site);
  if (siteProblem !== null) refuse("SITE_URL", siteProblem);
  const compat = compatName(env);
  const compatProblem = compat === "" ? null : compatNameProblem(compat);
  if (compatProblem !== null) refuse("COMPAT_NAMESPACE", compatProblem);
  // No security_code could match a code that is not an integer. Blank is unset.
  const code = varText(env.TRANSACTIONS_SECURITY_CODE).trim();
  if (code !== "" && !SECURITY_CODE.test(code))
    refuse("TRANSACTIONS_SECURITY_CODE", "not an integer");
  for (const name of ["COMPAT_PUBLIC_READS", "WEBHOOK_ALLOW_LOCAL"] as const)
    if (!FLAG_WORDS.includes(varText(env[name]).trim().toLowerCase()))
      refuse(name, 'neither "true" nor "false"');
  // Sent from, every mail would fail after its answer; read as unset, the mail routes say so.
  if (varText(env.MAIL_FROM).trim() !== "" && mailFrom(env) === "")
    refuse("MAIL_FROM", "not an e-mail address");
  const mailLimit = env.MAIL_LIMIT_PER_CLIENT;
  if (varText(mailLimit).trim() !== "" && mailLimitSet(mailLimit) === null)
    refuse(
      "MAIL_LIMIT_PER_CLIENT",
      `not a whole number of mails an hour up to ${MAIL_LIMIT_PER_CLIENT_MAX} (0 for no limit)`,
    );
  const retry = env.WEBHOOK_RETRY_BASE_S;
  if (varText(retry).trim() !== "" && positiveWhole(retry) === null)
    refuse("WEBHOOK_RETRY_BASE_S", "not a positive whole number of seconds");
  const lease = env.WEBHOOK_LEASE_S;
  if (varText(lease).trim() !== "" && leaseSet(lease) === null)
    refuse(
      "WEBHOOK_LEASE_S",
      `not a whole number of seconds from ${WEBHOOK_LEASE_S_MIN} to ${WEBHOOK_LEASE_S_MAX}`,
    );
  return problems.sort((a, b) => TEXT_SETTINGS.indexOf(a.name) - TEXT_SETTINGS.indexOf(b.name));
}
