// Shared plumbing of `npm run test:reliability`: named checks with a pass/fail count, an HTTP client
// that scans every response for secrets and 5xx, a bounded worker pool, and small formatting helpers.
import { randomBytes } from "node:crypto";
import { minorToText } from "../../src/ledger/money.ts";

const VERBOSE = process.env.RELIABILITY_VERBOSE === "1";

/** Every check run so far: { section, name, ok, detail }. */
export const results = [];
/** Figures the summary prints (cases tried, timing medians, crash counts, ...). */
export const figures = {};
let section = "setup";

export function startSection(name, title) {
  section = name;
  console.log(`\n== ${title} ==`);
}

/** Records one check. Failures always print (with their detail); passes print with RELIABILITY_VERBOSE=1. */
export function check(name, ok, detail = "") {
  results.push({ section, name, ok: Boolean(ok), detail: String(detail) });
  if (!ok)
    console.log(
      `  FAIL ${name}${detail ? `\n       ${truncate(String(detail), 1500).replaceAll("\n", "\n       ")}` : ""}`,
    );
  else if (VERBOSE)
    console.log(`  ok   ${name}${detail ? ` (${truncate(String(detail), 200)})` : ""}`);
  return Boolean(ok);
}

/** Prints a line that is not a check (counts, medians). */
export const note = (text) => console.log(`  ${text}`);

export function sectionTally(name) {
  const mine = results.filter((r) => r.section === name);
  const failed = mine.filter((r) => !r.ok).length;
  return { passed: mine.length - failed, failed };
}

export function truncate(text, max = 300) {
  return text.length <= max ? text : `${text.slice(0, max)}… (${text.length} chars)`;
}

let counter = 0;
/** A name nothing else in this run uses. */
export const unique = (prefix) =>
  `${prefix}${Date.now().toString(36)}${(counter++).toString(36)}${randomBytes(3).toString("hex")}`;

// ---------------------------------------------------------------------------------------------
// Secrets no response may carry: passwords we chose, PBKDF2 hashes, and API keys after their
// creation response. Every response read through `http()` is scanned.

const passwords = new Set();
export const registerPassword = (password) => passwords.add(password);
const KEY_PATTERN = /wk_[0-9a-f]{64}/g;
export const leaks = [];

function scanForSecrets(text, { allowKey, where }) {
  if (text.includes("pbkdf2_sha256$")) leaks.push(`${where}: a password hash`);
  for (const password of passwords) if (text.includes(password)) leaks.push(`${where}: a password`);
  for (const [key] of text.matchAll(KEY_PATTERN))
    if (key !== allowKey) leaks.push(`${where}: an API key (${key.slice(0, 10)}…)`);
}

// ---------------------------------------------------------------------------------------------
// HTTP. Only 127.0.0.1: the base URL comes from startServer.

export const traffic = {
  responses: 0,
  status5xx: [],
  devProxy503: [],
  byStatus: new Map(),
  networkErrors: 0,
  transportRetries: [],
};

// wrangler dev's proxy answers 503 with this text whenever its own fetch to the worker fails at the
// connection level (ProxyWorker.ts); it is not an answer of the worker.
const DEV_PROXY_503 = "Your worker restarted mid-request";
const TRANSPORT_CODES = new Set(["UND_ERR_SOCKET", "ECONNRESET", "EPIPE"]);

/**
 * One request; the body is read as text and parsed as JSON when it is JSON. `allowKey` is a
 * function of the parsed body returning the one key this response may show (POST /api-keys).
 * `retryTransport` sends the request once more after a connection-level failure of the local
 * stack (a reset socket, or the dev proxy's own 503); each such retry is counted and reported.
 */
export async function http(
  url,
  {
    method = "GET",
    headers = {},
    body,
    timeoutMs = 20_000,
    allowKey,
    duplex,
    retryTransport = false,
  } = {},
) {
  if (!url.startsWith("http://127.0.0.1:"))
    throw new Error(`refusing to send traffic off this machine: ${url}`);
  const replayable = !(body instanceof ReadableStream);
  let res;
  for (let attempt = 1; ; attempt++) {
    const last = !retryTransport || !replayable || attempt === 2;
    try {
      res = await fetch(url, {
        method,
        headers,
        body,
        signal: AbortSignal.timeout(timeoutMs),
        redirect: "manual",
        ...(duplex ? { duplex } : {}),
      });
    } catch (error) {
      const code = error.cause?.code ?? error.name;
      if (!last && TRANSPORT_CODES.has(code)) {
        traffic.transportRetries.push(`${method} ${new URL(url).pathname}: ${code}`);
        await sleep(200);
        continue;
      }
      traffic.networkErrors++;
      throw error;
    }
    if (
      !last &&
      res.status === 503 &&
      (res.headers.get("content-type") ?? "").startsWith("text/plain")
    ) {
      const text = await res.text();
      if (text.startsWith(DEV_PROXY_503)) {
        traffic.transportRetries.push(`${method} ${new URL(url).pathname}: dev proxy 503`);
        await sleep(200);
        continue;
      }
      res = new Response(text, res); // not the proxy's: judged as it is
    }
    break;
  }
  const text = await res.text();
  let json;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  traffic.responses++;
  traffic.byStatus.set(res.status, (traffic.byStatus.get(res.status) ?? 0) + 1);
  const where = `${method} ${new URL(url).pathname}`;
  if (res.status === 503 && text.startsWith(DEV_PROXY_503)) traffic.devProxy503.push(where);
  else if (res.status >= 500)
    traffic.status5xx.push(`${where} → ${res.status} ${truncate(text, 200)}`);
  scanForSecrets(text, { allowKey: allowKey && json ? allowKey(json) : undefined, where });
  return { status: res.status, headers: res.headers, text, json };
}

/** JSON request helper: `json` becomes the body with Content-Type application/json. */
export function send(
  api,
  method,
  path,
  { auth, json, query, headers = {}, allowKey, timeoutMs } = {},
) {
  const url = new URL(`${api}${path}`);
  for (const [k, v] of Object.entries(query ?? {}))
    if (v !== undefined) url.searchParams.set(k, String(v));
  const h = { ...headers };
  if (auth !== undefined) h.Authorization = auth;
  let body;
  if (json !== undefined) {
    body = JSON.stringify(json);
    h["Content-Type"] ??= "application/json";
  }
  return http(url.toString(), { method, headers: h, body, allowKey, timeoutMs });
}

/** Runs `fn(item, i)` over `items` with at most `concurrency` in flight; stops taking new items after `deadline`. */
export async function pool(items, concurrency, fn, { deadline = Infinity } = {}) {
  let next = 0;
  const out = new Array(items.length);
  async function worker() {
    while (next < items.length && Date.now() < deadline) {
      const i = next++;
      out[i] = await fn(items[i], i);
    }
  }
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
  return out;
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

export function median(values) {
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

/** Minor units as the decimal text of major units (`12345` with 2 decimals → `"123.45"`). */
export const minorText = (minor, decimals = 2) => minorToText(minor, decimals);

/** The balance the API shows (a JSON number of major units) for an amount in minor units. */
export const minorAsNumber = (minor, decimals = 2) => Number(minorText(minor, decimals));

export const histogram = (values) => {
  const counts = new Map();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  return [...counts].map(([k, n]) => `${k}×${n}`).join(", ");
};
