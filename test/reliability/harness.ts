// Shared plumbing of the reliability suite: named checks (each an `expect.soft`, counted per
// section), an HTTP client that scans every response for secrets and 5xx, a bounded worker pool,
// and small formatting helpers.
import { randomBytes } from "node:crypto";
import { expect } from "vitest";
import { minorToText } from "../../src/ledger/money";
import type { Figures } from "./summary";

export type Tally = { passed: number; failed: number };
/** This file's checks (each test file is one section, with its own module state). */
export const tally: Tally = { passed: 0, failed: 0 };

export function truncate(text: string, max = 300) {
  return text.length <= max ? text : `${text.slice(0, max)}… (${text.length} chars)`;
}

/**
 * One named check: it fails the test it runs in with its name and detail, and the test goes on to
 * its next check (`expect.soft`), as the checks of one scenario are read together.
 */
export function check(name: string, ok: boolean, detail: unknown = "") {
  if (ok) tally.passed++;
  else tally.failed++;
  const text = String(detail);
  expect.soft(ok, text ? `${name}\n${truncate(text, 1500)}` : name).toBe(true);
  return ok;
}

/** Prints a line that is not a check (counts, medians). */
export const note = (text: string) => console.log(`  ${text}`);

let counter = 0;
/** A name nothing else in this run uses. */
export const unique = (prefix: string) =>
  `${prefix}${Date.now().toString(36)}${(counter++).toString(36)}${randomBytes(3).toString("hex")}`;

/** A value inside parsed JSON, by keys and indexes; undefined where the path leads nowhere. */
export function at(value: unknown, ...path: (string | number)[]): unknown {
  let here = value;
  for (const step of path) {
    if (here === null || typeof here !== "object") return undefined;
    here = (here as Record<string | number, unknown>)[step];
  }
  return here;
}

/** Whether a value is a JSON object (not an array, not null). */
export const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === "object" && !Array.isArray(value);

/** A network error's code (`ECONNRESET`, `UND_ERR_SOCKET`, ...), or else its message. */
export function errorCode(error: unknown) {
  const code = at(error, "cause", "code");
  if (typeof code === "string") return code;
  return error instanceof Error ? error.message : String(error);
}

// ---------------------------------------------------------------------------------------------
// Secrets no response may carry: passwords we chose, PBKDF2 hashes, and API keys after their
// creation response. Every response read through `http()` is scanned.

const passwords = new Set<string>();
export const registerPassword = (password: string) => passwords.add(password);
const KEY_PATTERN = /wk_[0-9a-f]{64}/g;
export const leaks: string[] = [];

function scanForSecrets(text: string, allowKey: unknown, where: string) {
  if (text.includes("pbkdf2_sha256$")) leaks.push(`${where}: a password hash`);
  for (const password of passwords) if (text.includes(password)) leaks.push(`${where}: a password`);
  for (const [key] of text.matchAll(KEY_PATTERN))
    if (key !== allowKey) leaks.push(`${where}: an API key (${key.slice(0, 10)}…)`);
}

// ---------------------------------------------------------------------------------------------
// HTTP. Only 127.0.0.1: the base URL comes from startServer.

export type Traffic = {
  responses: number;
  status5xx: string[];
  devProxy503: string[];
  networkErrors: number;
  transportRetries: string[];
};
export const traffic: Traffic = {
  responses: 0,
  status5xx: [],
  devProxy503: [],
  networkErrors: 0,
  transportRetries: [],
};

// wrangler dev's proxy answers 503 with this text whenever its own fetch to the worker fails at the
// connection level (ProxyWorker.ts); it is not an answer of the worker.
export const DEV_PROXY_503 = "Your worker restarted mid-request";
const TRANSPORT_CODES = new Set(["UND_ERR_SOCKET", "ECONNRESET", "EPIPE"]);

export type Answer = { status: number; headers: Headers; text: string; json: unknown };

export type HttpOptions = {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Uint8Array<ArrayBuffer> | ReadableStream<Uint8Array>;
  timeoutMs?: number;
  /** The one key this response may show (POST /api-keys), read from its parsed body. */
  allowKey?: (json: unknown) => unknown;
  duplex?: "half";
  /** Send once more after a connection-level failure of the local stack (counted and reported). */
  retryTransport?: boolean;
};

/** One request; the body is read as text and parsed as JSON when it is JSON. */
export async function http(
  url: string,
  {
    method = "GET",
    headers = {},
    body,
    timeoutMs = 20_000,
    allowKey,
    duplex,
    retryTransport = false,
  }: HttpOptions = {},
): Promise<Answer> {
  if (!url.startsWith("http://127.0.0.1:"))
    throw new Error(`refusing to send traffic off this machine: ${url}`);
  const replayable = !(body instanceof ReadableStream);
  const where = `${method} ${new URL(url).pathname}`;
  let res: Response;
  for (let attempt = 1; ; attempt++) {
    const last = !retryTransport || !replayable || attempt === 2;
    try {
      // `duplex` is a fetch option of Node's (undici) that the DOM's RequestInit does not list.
      const init: RequestInit & { duplex?: "half" } = {
        method,
        headers,
        body,
        signal: AbortSignal.timeout(timeoutMs),
        redirect: "manual",
        ...(duplex ? { duplex } : {}),
      };
      res = await fetch(url, init);
    } catch (error) {
      const code = errorCode(error);
      if (!last && TRANSPORT_CODES.has(code)) {
        traffic.transportRetries.push(`${where}: ${code}`);
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
        traffic.transportRetries.push(`${where}: dev proxy 503`);
        await sleep(200);
        continue;
      }
      res = new Response(text, res); // not the proxy's: judged as it is
    }
    break;
  }
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  traffic.responses++;
  if (res.status === 503 && text.startsWith(DEV_PROXY_503)) traffic.devProxy503.push(where);
  else if (res.status >= 500)
    traffic.status5xx.push(`${where} → ${res.status} ${truncate(text, 200)}`);
  scanForSecrets(text, allowKey && json !== undefined ? allowKey(json) : undefined, where);
  return { status: res.status, headers: res.headers, text, json };
}

export type SendOptions = {
  /** Send once more after a transport failure or wrangler dev's own 503 (see HttpOptions). */
  retryTransport?: boolean;
  auth?: string;
  json?: unknown;
  query?: Record<string, string | number | undefined>;
  headers?: Record<string, string>;
  allowKey?: (json: unknown) => unknown;
  timeoutMs?: number;
};

/** JSON request helper: `json` becomes the body with Content-Type application/json. */
export function send(
  api: string,
  method: string,
  path: string,
  { auth, json, query, headers = {}, allowKey, timeoutMs, retryTransport }: SendOptions = {},
) {
  const url = new URL(`${api}${path}`);
  for (const [k, v] of Object.entries(query ?? {}))
    if (v !== undefined) url.searchParams.set(k, String(v));
  const h = { ...headers };
  if (auth !== undefined) h.Authorization = auth;
  let body: string | undefined;
  if (json !== undefined) {
    body = JSON.stringify(json);
    h["Content-Type"] ??= "application/json";
  }
  return http(url.toString(), { method, headers: h, body, allowKey, timeoutMs, retryTransport });
}

/** Runs `fn(item, i)` over `items` with at most `concurrency` in flight; stops taking new items after `deadline`. */
export async function pool<T, R>(
  items: readonly T[],
  concurrency: number,
  fn: (item: T, i: number) => Promise<R>,
  { deadline = Number.POSITIVE_INFINITY } = {},
) {
  let next = 0;
  const out: (R | undefined)[] = new Array(items.length);
  async function worker() {
    while (next < items.length && Date.now() < deadline) {
      const i = next++;
      out[i] = await fn(items[i]!, i);
    }
  }
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
  return out;
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export function median(values: readonly number[]) {
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/** Minor units as the decimal text of major units (`12345` with 2 decimals → `"123.45"`). */
export const minorText = (minor: number, decimals = 2) => minorToText(minor, decimals);

/** The balance the API shows (a JSON number of major units) for an amount in minor units. */
export const minorAsNumber = (minor: number, decimals = 2) => Number(minorText(minor, decimals));

export const histogram = (values: readonly unknown[]) => {
  const counts = new Map<unknown, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  return [...counts].map(([k, n]) => `${k}×${n}`).join(", ");
};

/** Milliseconds one call took, with its result. */
export async function timed<T>(fn: () => Promise<T>) {
  const t0 = performance.now();
  const res = await fn();
  return { ms: performance.now() - t0, res };
}

/** Figures this section leaves for the run's summary (cases tried, timing medians, crash counts, ...). */
export const figures: Figures = {};
