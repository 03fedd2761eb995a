// Figures the documentation quotes from the code, held to it, so a change to the code that moves one
// fails until the sentence follows.
import { describe, expect, it } from "vitest";
import api from "../docs/api.md?raw";
import configuration from "../docs/configuration.md?raw";
import deploying from "../docs/deploying.md?raw";
import errors from "../docs/errors.md?raw";
import events from "../docs/events.md?raw";
import ledger from "../docs/ledger.md?raw";
import moving from "../docs/moving-from-rimplenet.md?raw";
import operations from "../docs/operations.md?raw";
import scaling from "../docs/scaling.md?raw";
import security from "../docs/security.md?raw";
import { REFUSAL_FLOOR_MS } from "../src/auth/pace";
import { PASSWORD_LENGTH } from "../src/auth/password";
import { COMPAT_ROUTES } from "../src/compat";
import { D1_CALL_BUDGET, KEYSET_CHUNK_MAX } from "../src/db/client";
import { KEY_TTL_MS, SESSION_TTL_MS } from "../src/db/isolate-cache";
import { LATEST_MIGRATION } from "../src/db/latest-migration";
import { HISTORY_CHUNK } from "../src/db/ledger";
import { PRUNE_PER_SIGN_IN } from "../src/db/sessions";
import { EMAIL_MAX_LENGTH } from "../src/email-address";
import { ENDPOINT_URL_MAX } from "../src/events/endpoint-url";
import { MAX_ATTEMPTS, PER_RUN, RUN_PAGE_CHARS } from "../src/events/pump";
import {
  DRAIN_BUDGET_MS,
  FAULT_RETRY_S,
  FRESH_AFTER_ATTEMPTS,
  NUDGE_GAP_MS,
} from "../src/events/queue";
import { MAX_BODY_BYTES } from "../src/http/body-limit";
import { JSON_LIMITS } from "../src/http/decode";
import { RETRY_S } from "../src/http/errors";
import { AMOUNT_TEXT_MAX, REQUEST_ID_MAX, USERNAME_MAX } from "../src/http/fields";
import { EXPIRY_BATCH } from "../src/ledger/holds";
import { MAX_MINOR, MAX_STORAGE_DECIMALS } from "../src/ledger/money";
import { NAMESPACE, ROUTES } from "../src/routes";
import { openApiDocument } from "../src/routes/openapi";
import {
  JWT_SECRET_MIN_LENGTH,
  MAIL_LIMIT_PER_CLIENT_DEFAULT,
  MAIL_LIMIT_PER_CLIENT_MAX,
  WEBHOOK_LEASE_S_MAX,
  WEBHOOK_LEASE_S_MIN,
  WEBHOOK_SECRET_KEY_MIN_LENGTH,
} from "../src/settings";
import { KNOWN_ADDRESS_MS, KNOWN_ADDRESSES_MAX } from "../src/throttle/account-policy";
import { HISTORY_LEASE_MS } from "../src/throttle/history-gate";
import { BACKOFF_MEMORY_MS, DAY_MS, HELD_MS, POLICIES } from "../src/throttle/policy";
import { MAX_OPERATIONS } from "../src/wallet/batches";
import { FEED_LIMITS } from "../src/wallet/events";
import { DEFAULT_HOLD_S, EXPIRY_STATEMENTS, MAX_HOLD_S } from "../src/wallet/holds";
import { TOUCH_INTERVAL_MS } from "../src/wallet/key-principal";
import { WHOLE_READ_MAX } from "../src/wallet/transactions";
import { WEBHOOK_LIMITS } from "../src/wallet/webhooks";
import wranglerToml from "../wrangler.toml?raw";

const MIGRATIONS = import.meta.glob<string>("../drizzle/*.sql", {
  query: "?raw",
  import: "default",
  eager: true,
});

describe("figures the docs quote", () => {
  it("api.md counts the OpenAPI document's paths", () => {
    const paths = Object.keys((openApiDocument(ROUTES) as { paths: object }).paths);
    expect(paths.every((p) => p.startsWith(`/wp-json/${NAMESPACE}/`))).toBe(true);
    expect(api).toContain(`3.1.0 Wallet ledger API, ${paths.length} paths`);
  });

  it("api.md gives the statement, history, hold, batch and cache figures the code has", () => {
    // Wrapped lines read as one: a figure may fall across a line break.
    const flat = api.replace(/\s+/g, " ");
    const days = (s: number) => s / 86_400;
    for (const figure of [
      `a total can (after turnover past ${MAX_MINOR.toLocaleString("en-US")} units)`,
      `It is streamed: ${HISTORY_CHUNK} entries are read first, then twice as many each read up to ${KEYSET_CHUNK_MAX.toLocaleString("en-US")}`,
      `the Worker reads ${HISTORY_CHUNK} entries first`,
      `then twice as many each read up to ${KEYSET_CHUNK_MAX.toLocaleString("en-US")}, and sends each chunk`,
      `**At most ${WHOLE_READ_MAX.toLocaleString("en-US")} entries whole.**`,
      `keeps to ${D1_CALL_BUDGET} of them (the rest is for the request's other queries), which hold ${WHOLE_READ_MAX.toLocaleString("en-US")} entries`,
      `"a whole history sends at most ${WHOLE_READ_MAX.toLocaleString("en-US")} entries: page with per_page (1-100) and page"`,
      `"a CSV statement sends at most ${WHOLE_READ_MAX.toLocaleString("en-US")} entries: narrow from and to`,
      `a whole history of more than ${WHOLE_READ_MAX.toLocaleString("en-US")} entries → 400`,
      `a statement of more than ${HISTORY_CHUNK} entries is sent one at a time per caller`,
      `A history of more than ${HISTORY_CHUNK} matching entries`,
      `ends by itself after ${HISTORY_LEASE_MS / 1000} s`,
      `(seconds, 1–${MAX_HOLD_S}, i.e. at most ${days(MAX_HOLD_S)} days; default ${DEFAULT_HOLD_S}, ${days(DEFAULT_HOLD_S)} days)`,
      `\`operations\`: 1 to ${MAX_OPERATIONS} of`,
      `console session within ${SESSION_TTL_MS / 1000} s, and on every API key within ${KEY_TTL_MS / 1000} s`,
    ])
      expect(flat.includes(figure), `api.md: ${figure}`).toBe(true);
  });

  it("deploying.md counts the migrations a fresh database is given", () => {
    expect(deploying).toContain(`Applying ${Object.keys(MIGRATIONS).length} migration(s)`);
  });

  it("the docs name the newest migration as the code does", () => {
    expect(deploying).toContain(
      `which does not hold ${LATEST_MIGRATION}, the newest this code needs`,
    );
    // GET /health's example of a migration the code does not know is the one after the newest.
    const next = String(Number(LATEST_MIGRATION.slice(0, 4)) + 1).padStart(4, "0");
    for (const doc of [api, operations, deploying])
      expect(doc).toContain(`"unknown_migrations":["${next}_….sql"]`);
  });

  it("operations.md and ledger.md give the cron's schedule as wrangler.toml sets it", () => {
    const cron = /^crons = \["([^"]+)"\]$/m.exec(wranglerToml)?.[1];
    expect(cron).toBe("* * * * *");
    expect(operations).toContain(`{"cron":"${cron}",`);
    expect(operations).toContain("Every minute (`wrangler.toml` `[triggers] crons`)");
    expect(ledger).toContain("`[triggers]`, every minute");
  });

  it("every description of COMPAT_PUBLIC_READS names each route it opens to anyone", () => {
    // An operator decides on the setting from these lines: one that says "balances" while the whole
    // ledger opens (GET transactions) would have it turned on for less than it exposes.
    const opened = COMPAT_ROUTES.filter((r) => r.publicWhen).map((r) => r.path);
    expect(opened.sort()).toEqual([
      "/transactions",
      "/user-wallet-balance",
      "/user-wallet-balance/multi",
    ]);
    const row = configuration.split("\n").find((l) => l.startsWith("| `COMPAT_PUBLIC_READS`"));
    const tomlComment = /((?:^#.*\n)+)COMPAT_PUBLIC_READS = /m.exec(wranglerToml)?.[1];
    const movingLine = moving.split("\n").find((l) => l.startsWith("COMPAT_PUBLIC_READS = "));
    for (const text of [row, tomlComment, movingLine]) {
      expect(text).toMatch(/balance/);
      expect(text).toMatch(/transactions/);
    }
  });

  it("events.md and ledger.md give the delivery, feed, hold and amount figures the code has", () => {
    // Wrapped lines read as one: a figure may fall across a line break.
    const flat = (doc: string) => doc.replace(/\s+/g, " ");
    const [ev, led] = [flat(events), flat(ledger)];
    const days = (s: number) => s / 86_400;
    const maxRetries = /^max_retries = (\d+)$/m.exec(wranglerToml)?.[1];
    for (const figure of [
      `unless its ${MAX_ATTEMPTS} attempts all fail`,
      `"attempts":${MAX_ATTEMPTS}`,
      `It delivers up to ${PER_RUN} events per lease`,
      `for up to ${DRAIN_BUDGET_MS / 1000} s`,
      `retry its message ${FAULT_RETRY_S} s later`,
      `a message already retried ${FRESH_AFTER_ATTEMPTS - 1} times`,
      `once it has retried them ${maxRetries} times`,
      `at most one such nudge per ${NUDGE_GAP_MS} ms`,
      `| \`limit\` | \`${FEED_LIMITS.defaultLimit}\` | 1–${FEED_LIMITS.maxLimit} |`,
      `(\`limit\` 1–${WEBHOOK_LIMITS.deliveriesMax}, default 50)`,
      `is at most ${WEBHOOK_LIMITS.descriptionMax} characters`,
      `at most ${ENDPOINT_URL_MAX} characters as stored`,
      `more than ${(EXPIRY_BATCH * EXPIRY_STATEMENTS).toLocaleString("en-US")} holds fall due`,
    ])
      expect(ev.includes(figure), `events.md: ${figure}`).toBe(true);
    for (const figure of [
      `${EXPIRY_BATCH} per statement, at most ${EXPIRY_STATEMENTS} statements a run`,
      `A hold lasts 1 s to ${days(MAX_HOLD_S)} days (\`expires_in\`, default ${days(DEFAULT_HOLD_S)} days)`,
      `An amount is at most ${AMOUNT_TEXT_MAX} characters`,
      `At most ${MAX_STORAGE_DECIMALS} places in all`,
      `at most ${MAX_MINOR.toLocaleString("en-US")} minor units`,
    ])
      expect(led.includes(figure), `ledger.md: ${figure}`).toBe(true);
  });

  it("operations.md gives the delivery, retry, setting and throttle figures the code has", () => {
    // Wrapped lines read as one: a figure may fall across a line break.
    const flat = operations.replace(/\s+/g, " ");
    const maxRetries = Number(/^max_retries = (\d+)$/m.exec(wranglerToml)?.[1]);
    // Words the doc uses for a figure of 1 (a minute, a day).
    expect([TOUCH_INTERVAL_MS, BACKOFF_MEMORY_MS]).toEqual([60_000, DAY_MS]);
    for (const figure of [
      `"attempts":${MAX_ATTEMPTS},`,
      `an event used up its ${MAX_ATTEMPTS} attempts`,
      `the queue retries the message ${FAULT_RETRY_S} s later`,
      `retried it ${maxRetries} times, \`max_retries\`, and its consumer failed the ${maxRetries + 1}th try; up to ${FRESH_AFTER_ATTEMPTS - 1} of those retries`,
      `with \`Retry-After: ${RETRY_S}\``,
      `before a history of more than ${HISTORY_CHUNK} entries`,
      `(\`JWT_SECRET\` shorter than ${JWT_SECRET_MIN_LENGTH} characters counts`,
      `"problem":"shorter than ${JWT_SECRET_MIN_LENGTH} characters"`,
      `"problem":"unset or shorter than ${WEBHOOK_SECRET_KEY_MIN_LENGTH} characters"`,
      `a \`WEBHOOK_LEASE_S\` that is no whole number from ${WEBHOOK_LEASE_S_MIN} to ${WEBHOOK_LEASE_S_MAX}`,
      `a \`MAIL_LIMIT_PER_CLIENT\` that is no whole number up to ${MAIL_LIMIT_PER_CLIENT_MAX.toLocaleString("en-US")}`,
      "an API key's last-used time, at most once a minute per key",
      "all forgotten at most a day after the last attempt",
      `stay known (spared the login's ceiling) for ${KNOWN_ADDRESS_MS / DAY_MS} days`,
      `if nobody is given that username or e-mail within ${KNOWN_ADDRESS_MS / DAY_MS} days`,
    ])
      expect(flat.includes(figure), `operations.md: ${figure}`).toBe(true);
  });

  it("scaling.md gives the consumer's call budget and the credential caches' bounds the code has", () => {
    const flat = scaling.replace(/\s+/g, " ");
    for (const figure of [
      `starts no delivery past ${D1_CALL_BUDGET} in one call`,
      `five endpoints at once read pages of ${RUN_PAGE_CHARS.toLocaleString("en-US")} characters each`,
      `a webhook URL is at most ${ENDPOINT_URL_MAX.toLocaleString("en-US")} characters`,
      `an isolate nudges each endpoint at most every ${NUDGE_GAP_MS} ms`,
      `it reads ${HISTORY_CHUNK} entries first, then twice as many each read up to ${KEYSET_CHUNK_MAX.toLocaleString("en-US")}, so ${D1_CALL_BUDGET} reads hold ${WHOLE_READ_MAX.toLocaleString("en-US")} entries`,
      `the replica lag plus the ${KEY_TTL_MS / 1000} s the isolate caches verified keys, but writing only for those ${KEY_TTL_MS / 1000} s`,
      `the replica lag plus the ${SESSION_TTL_MS / 1000} s the isolate caches a session's state, but writing only for those ${SESSION_TTL_MS / 1000} s`,
    ])
      expect(flat.includes(figure), `scaling.md: ${figure}`).toBe(true);
  });

  it("errors.md and security.md give the most entries a whole read sends", () => {
    const max = WHOLE_READ_MAX.toLocaleString("en-US");
    for (const figure of [
      `also a whole history of more than ${max} entries: \`{"per_page":"a whole history sends at most ${max} entries:`,
      `a CSV of more than ${max} entries: \`{"format":"a CSV statement sends at most ${max} entries:`,
    ])
      expect(errors.replace(/\s+/g, " ").includes(figure), `errors.md: ${figure}`).toBe(true);
    const inSecurity = `streams a history of up to ${max} entries in bounded memory (at most ${KEYSET_CHUNK_MAX.toLocaleString("en-US")} a read;`;
    expect(security.replace(/\s+/g, " "), "security.md").toContain(inSecurity);
  });

  it("api.md, deploying.md and scaling.md give the CPU time wrangler.toml asks for", () => {
    const cpuMs = /^\[limits\]\ncpu_ms = (\d+)$/m.exec(wranglerToml)?.[1];
    expect(cpuMs).toBeDefined();
    for (const [name, doc] of [
      ["api.md", api],
      ["deploying.md", deploying],
      ["scaling.md", scaling],
    ] as const)
      expect(doc.replace(/\s+/g, " "), name).toContain(`[limits] cpu_ms`);
    expect(api.replace(/\s+/g, " ")).toContain(`\`[limits] cpu_ms = ${cpuMs}\`, the 5 minutes`);
    expect(deploying.replace(/\s+/g, " ")).toContain(`(\`[limits] cpu_ms = ${cpuMs}\`)`);
    expect(Number(cpuMs)).toBe(5 * 60_000);
  });

  it("security.md gives the throttle, cache, session and input limits the code has", () => {
    const flat = security.replace(/\s+/g, " ");
    const min = (ms: number) => ms / 60_000;
    const { pair, account, address } = POLICIES;
    const money = /^simple = \{ limit = (\d+), period = (\d+) \}$/m.exec(wranglerToml);
    // Words the doc uses: "an hour", "a minute".
    expect([pair.maxLockMs, account.maxLockMs, Number(money?.[2])]).toEqual([
      3_600_000, 3_600_000, 60,
    ]);
    for (const figure of [
      `| ${pair.limit} failures within ${min(pair.windowMs)} minutes (counted afresh after each lock) | that address only, ${pair.lockMs / 1000} s, doubling on each lock that follows (${(2 * pair.lockMs) / 1000} s, ${(4 * pair.lockMs) / 1000} s, … up to 1 hour) |`,
      `| ${account.limit} failures within ${min(account.windowMs)} minutes (counted afresh after each lock) | every address it does not know, ${account.lockMs / 1000} s doubling up to 1 hour;`,
      `| ${address.limit} failures within ${min(address.windowMs)} minutes, over any accounts | that address, for every account, ${min(address.lockMs)} minutes |`,
      `remembered for ${KNOWN_ADDRESS_MS / DAY_MS} days after its last good sign-in there, at most the ${KNOWN_ADDRESSES_MAX} most recent`,
      `counts reserved in the last ${HELD_MS} ms (\`HELD_MS\``,
      `\`REFUSAL_FLOOR_MS\` = ${REFUSAL_FLOOR_MS} ms after the check began`,
      `mails an hour over every address (${MAIL_LIMIT_PER_CLIENT_DEFAULT.toLocaleString("en-US")} by default)`,
      `\`SESSION_TTL_MS\` = ${SESSION_TTL_MS / 1000} s (\`src/db/isolate-cache.ts\`, beside the API keys' \`KEY_TTL_MS\` = ${KEY_TTL_MS / 1000} s)`,
      `once per ${SESSION_TTL_MS / 1000} s per isolate otherwise`,
      `Each sign-in deletes up to ${PRUNE_PER_SIGN_IN} (\`PRUNE_PER_SIGN_IN\``,
      `Each user may make ${Number(money?.[1]).toLocaleString("en-US")} money requests a minute`,
      `simple = { limit = ${money?.[1]}, period = ${money?.[2]} }`,
      `retry in ${RETRY_S} seconds with the same request_id"}}\`, with \`Retry-After: ${RETRY_S}\``,
      `| body size | ${MAX_BODY_BYTES / 1024} KiB,`,
      `{"body":"at most ${MAX_BODY_BYTES} bytes"}`,
      `| JSON nesting | ${JSON_LIMITS.depth} levels of objects and arrays |`,
      `| JSON object or array | ${JSON_LIMITS.members.toLocaleString("en-US")} members each |`,
      `| JSON number literal | ${JSON_LIMITS.numberChars} characters`,
      `| amount | ${AMOUNT_TEXT_MAX} characters; at most ${MAX_MINOR.toLocaleString("en-US")} minor units |`,
      `| \`request_id\` | 1 to ${REQUEST_ID_MAX} characters,`,
      `username ${USERNAME_MAX}, e-mail ${EMAIL_MAX_LENGTH}, password ${PASSWORD_LENGTH.max} (and at least ${PASSWORD_LENGTH.min}),`,
    ])
      expect(flat.includes(figure), `security.md: ${figure}`).toBe(true);
  });
});
