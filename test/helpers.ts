import { env } from "cloudflare:workers";
import * as v from "valibot";
import { expect } from "vitest";
import { appendHistorySql, sqlLiteral } from "../scripts/lib/sql";
import worker from "../src";
import { type AppOptions, createApp } from "../src/app";
import { generateApiKey, hashApiKey } from "../src/auth/api-keys";
import type { Pace } from "../src/auth/pace";
import type { Role, Scope } from "../src/auth/principal";
import { API_AUDIENCE } from "../src/auth/tokens";
import { createDb } from "../src/db/client";
import { apiKeys, users } from "../src/db/schema";
import type { Audience } from "../src/db/sessions";
import { ERRORS, type ErrorCode } from "../src/http/errors";
import { overrideMethod } from "../src/http/wp-core";
import { ROUTES } from "../src/routes";
import { errorCodes } from "../src/routes/openapi";
import { openSession } from "../src/wallet/sessions";

export const API = "/wp-json/wallet/v1";

/** WordPress's answer to a path or method no route has. */
export const NO_ROUTE = {
  code: "rest_no_route",
  message: "No route was found matching the URL and request method.",
  data: { status: 404 },
};

/** WordPress's answer to a body that claims JSON but does not parse (json_decode refuses it). */
export const INVALID_JSON = {
  code: "rest_invalid_json",
  message: "Invalid JSON body passed.",
  data: { status: 400 },
};

/** wallet/v1's answer to a caller whose role or scope does not allow the request (contract section 2). */
export const FORBIDDEN = {
  status_code: 403,
  status: false,
  message: "Permission denied",
  error: { unauthorize: "Request is not authorized" },
};
export const PASSWORD = "correct horse";
// PBKDF2 of PASSWORD, made once (hashing in every test would dominate the suite's time).
let passwordHash: Promise<string> | undefined;
const hashOnce = async () =>
  (passwordHash ??= import("../src/auth/password").then((m) => m.hashPassword(PASSWORD)));

let counter = 0;
/** A name no other test uses: tests share one database per file and must not depend on order. */
export const unique = (prefix: string) =>
  `${prefix}${Date.now().toString(36)}${(counter++).toString(36)}${Math.random().toString(36).slice(2, 6)}`;

// biome-ignore lint/suspicious/noExplicitAny: answers are JSON the tests read field by field
export type Json = Record<string, any>;
export type Reply = { status: number; body: Json; headers: Headers; text: string };

export type CallOptions = {
  body?: unknown;
  query?: Record<string, string | number>;
  auth?: string;
  headers?: Record<string, string>;
  app?: ReturnType<typeof createApp>;
  /** A D1 binding in place of env.DB (one that counts, or fails on purpose). */
  d1?: D1Database;
  /** Vars for this request on top of the test env (MAIL_TRANSPORT, COMPAT_NAMESPACE…, a binding). */
  vars?: Record<string, unknown>;
};

/**
 * Refused sign-ins wait out a floor (src/auth/pace.ts); the suite's apps skip that wait, and tests of
 * the padding pass a `pace` that records what was asked.
 */
export const noPace: Pace = async () => {};
export const testApp = (options: AppOptions = {}) => createApp({ pace: noPace, ...options });
/**
 * The app `call` sends to when a test names none, built once per isolate: building one (several
 * hundred routes, a cold router) costs more than many a request does. Its clock reads Date.now at
 * each request, as a new app's would, so a test that mocks Date.now moves it.
 */
let defaultApp: ReturnType<typeof createApp> | undefined;
export const sharedApp = () => (defaultApp ??= testApp({ nowMs: () => Date.now() }));

/** One request through the same app production builds, inside the Workers runtime, against real D1. */
export async function call(
  method: string,
  path: string,
  options: CallOptions = {},
): Promise<Reply> {
  const url = new URL(
    path.startsWith("/wp-json") || path.startsWith("/?") ? path : `${API}${path}`,
    "http://localhost",
  );
  for (const [k, v] of Object.entries(options.query ?? {})) url.searchParams.set(k, String(v));
  const headers: Record<string, string> = { ...options.headers };
  if (options.auth !== undefined) headers.Authorization = options.auth;
  let body: BodyInit | undefined;
  if (options.body !== undefined) {
    const raw =
      typeof options.body === "string" ||
      options.body instanceof FormData ||
      options.body instanceof URLSearchParams ||
      options.body instanceof Uint8Array;
    body = raw ? (options.body as BodyInit) : JSON.stringify(options.body);
    if (!raw) headers["Content-Type"] ??= "application/json";
  }
  const res = await (options.app ?? sharedApp()).request(
    url.pathname + url.search,
    { method, headers, body },
    { ...env, ...options.vars, ...(options.d1 ? { DB: options.d1 } : {}) },
  );
  const text = await res.text();
  let parsed: Json = {};
  try {
    parsed = JSON.parse(text);
  } catch {
    // left empty: the assertion on `text` will say what came back
  }
  // The method the route saw: a POST may run as another (`_method`, X-HTTP-Method-Override).
  const served = overrideMethod(new Request(url, { method, headers })).method;
  expectCatalogued(served, url.pathname, res.status, parsed);
  // A CSV answer (GET /statements format=csv) has no envelope; its tests read the text.
  if (!res.headers.get("content-type")?.startsWith("text/csv"))
    expectDocumentedData(served, url.pathname, res.status, parsed);
  return { status: res.status, body: parsed, headers: res.headers, text };
}

const ROUTE_PATTERNS = ROUTES.map((route) => ({
  route,
  pattern: new RegExp(`^${API}${route.path.replace(/\{\w+\}/g, "[^/]+")}/?$`, "i"),
}));

const routeAt = (method: string, path: string) =>
  ROUTE_PATTERNS.find(({ route, pattern }) => route.method === method && pattern.test(path))?.route;

/**
 * Every error answer any test meets on a `wallet/v1` route must be one of the catalogue codes the
 * route's OpenAPI operation lists (src/routes/openapi.ts errorCodes): so the document cannot miss
 * an answer the suite has seen. WordPress's own errors (`code` on the body) are outside it.
 */
function expectCatalogued(method: string, path: string, status: number, body: Json) {
  if (status < 400 || typeof body.code === "string") return;
  const route = routeAt(method, path);
  if (!route) return;
  const listed = errorCodes(route).filter(
    (code: ErrorCode) => ERRORS[code].status === status && ERRORS[code].message === body.message,
  );
  expect(
    listed,
    `${method} ${path} answered ${status} "${body.message}", which its operation does not list`,
  ).not.toEqual([]);
}

/**
 * Every success answer any test meets on a `wallet/v1` route must match the `data` schema its
 * route declares (src/routes/answers.ts): the OpenAPI document publishes those schemas, so it
 * cannot drift from what the service sends.
 */
function expectDocumentedData(method: string, path: string, status: number, body: Json) {
  if (status >= 300) return;
  const route = routeAt(method, path);
  if (!route) return;
  const data = route.envelope === "index" ? body : body.data;
  const result = v.safeParse(route.data, data);
  expect(
    result.issues?.map((i) => `${v.getDotPath(i) ?? "data"}: ${i.message}`) ?? [],
    `${method} ${path} answered ${status} with data its route's schema does not describe`,
  ).toEqual([]);
}

export const appAt = (nowMs: number, options: AppOptions = {}) =>
  testApp({ ...options, nowMs: () => nowMs });

/** A wallet/v1 sign-in by `user`'s e-mail from the client address `ip`. */
export const signInFrom = (
  user: TestUser,
  password: string,
  ip: string,
  app?: ReturnType<typeof appAt>,
) =>
  call("POST", "/users/login", {
    body: { user_email: user.email, user_password: password },
    headers: { "CF-Connecting-IP": ip },
    app,
  });

/** Ten failed sign-ins lock `user`'s e-mail at `ip`: even the right password is then 429. */
export async function lockSignIn(user: TestUser, ip: string) {
  for (let i = 0; i < 10; i++) expect((await signInFrom(user, `wrong-${i}`, ip)).status).toBe(400);
  expect((await signInFrom(user, PASSWORD, ip)).status).toBe(429);
}

export type TestUser = {
  id: number;
  username: string;
  email: string;
  role: Role;
  token: string;
  bearer: string;
};

export type TokenOptions = {
  audience?: Audience;
  lifetimeS?: number;
  nowMs?: number;
  secret?: string;
  issuer?: string;
};

/**
 * An access token for a user, on a new session written to D1 (as a sign-in makes it): an API token
 * unless `audience` says otherwise. Its session id is returned beside it.
 */
export async function signedToken(
  user: { id: number; username: string; role: Role },
  {
    audience = API_AUDIENCE,
    lifetimeS = 3600,
    nowMs = Date.now(),
    secret = env.JWT_SECRET!,
    issuer = env.JWT_ISSUER,
  }: TokenOptions = {},
) {
  const session = await openSession(
    createDb(env.DB),
    { userId: user.id, username: user.username, role: user.role },
    audience,
    { lifetimeS, nowMs, keys: { secret, issuer } },
  );
  // Without a password hash to guard it, the session is always written.
  return session!;
}

const BASE64URL = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
/**
 * The same signature spelled another way: HS256's 32 bytes take 43 characters, whose last carries
 * two bits no byte uses; a decoder that ignores them reads this as the token's own signature.
 */
export function respelled(token: string) {
  const last = BASE64URL.indexOf(token.at(-1)!);
  return token.slice(0, -1) + BASE64URL[last ^ 1];
}

/**
 * A user written straight to D1 (with a known password, PASSWORD unless `passwordHash` is another
 * hash of it) and a signed access token for it.
 */
export async function makeUser(
  role: Role = "subscriber",
  name = unique("user"),
  passwordHash?: string,
): Promise<TestUser> {
  const [row] = await createDb(env.DB)
    .insert(users)
    .values({
      username: name,
      email: `${name}@example.test`,
      passwordHash: passwordHash ?? (await hashOnce()),
      role,
      registeredAtMs: Date.now(),
    })
    .returning();
  const { token } = await signedToken({ id: row!.id, username: name, role });
  return { id: row!.id, username: name, email: row!.email, role, token, bearer: `Bearer ${token}` };
}

export const makeAdmin = () => makeUser("administrator", unique("admin"));

/** An API key for `user`; returns the `Key base64(username:key)` header value. */
export async function makeKey(user: TestUser, scope: Scope, { revoked = false } = {}) {
  const key = generateApiKey();
  await createDb(env.DB)
    .insert(apiKeys)
    .values({
      userId: user.id,
      name: "test",
      scope,
      keyHash: hashApiKey(key),
      createdAtMs: Date.now(),
      revokedAtMs: revoked ? Date.now() : null,
    });
  return { key, header: `Key ${btoa(`${user.username}:${key}`)}` };
}

export type WalletSpec = {
  decimals?: number;
  symbol?: string;
  position?: "left" | "right";
  name?: string;
  id?: string;
};

export async function makeWallet(admin: TestUser, spec: WalletSpec = {}) {
  const id = spec.id ?? unique("w").toLowerCase().slice(0, 32);
  const res = await call("POST", "/wallets", {
    auth: admin.bearer,
    body: {
      wallet_id: id,
      wallet_name: spec.name ?? "Naira Wallet",
      wallet_symbol: spec.symbol ?? "₦",
      wallet_symbol_position: spec.position ?? "left",
      wallet_decimal: spec.decimals ?? 2,
    },
  });
  if (res.status !== 200) throw new Error(`wallet not created: ${res.text}`);
  return id;
}

/** wallet/v1's 401 for a bad, expired, revoked or foreign token or key (envelope A). */
export const INVALID_CREDENTIALS = {
  status_code: 401,
  status: false,
  message: "Permission denied",
  error: { unauthorize: "Invalid credentials" },
};

export async function credit(admin: TestUser, body: Json) {
  return call("POST", "/credits", {
    auth: admin.bearer,
    body: { request_id: unique("req"), ...body },
  });
}

/** A (user, wallet)'s balance as stored and the sum of its entries (`total`), in stored units. */
export async function storedBalance(userId: number, walletId: string) {
  const row = await env.DB.prepare(
    `SELECT coalesce((SELECT balance_minor FROM balances WHERE user_id = ?1 AND wallet_id = ?2), 0) AS balance,
       (SELECT coalesce(sum(CASE txn_type WHEN 'CREDIT' THEN amount_minor ELSE -amount_minor END), 0)
          FROM transactions WHERE user_id = ?1 AND wallet_id = ?2) AS total`,
  )
    .bind(userId, walletId)
    .first<{ balance: number; total: number }>();
  return row!;
}

/**
 * Ledger invariant: every balance equals the sum of its entries and is the head of its chain. Of
 * `users`' balances and entries when named: in the shared workers the database holds every earlier
 * file's rows, which the whole check would read again each time.
 */
export async function ledgerViolations(users?: readonly number[]) {
  const of = (column: string) =>
    users ? `WHERE ${column} IN (${users.map(Number).join(",")})` : "";
  const { results } = await env.DB.prepare(
    `SELECT b.user_id, b.wallet_id, b.balance_minor,
       (SELECT coalesce(sum(CASE txn_type WHEN 'CREDIT' THEN amount_minor ELSE -amount_minor END), 0)
          FROM transactions t WHERE t.user_id = b.user_id AND t.wallet_id = b.wallet_id) AS total,
       (SELECT count(*) FROM transactions t WHERE t.user_id = b.user_id AND t.wallet_id = b.wallet_id) AS n,
       b.entry_count
     FROM balances b ${of("b.user_id")}`,
  ).all<{ balance_minor: number; total: number; n: number; entry_count: number }>();
  const broken = results.filter((r) => r.balance_minor !== r.total || r.n !== r.entry_count);
  const { results: chain } = await env.DB.prepare(
    `SELECT id FROM (SELECT id, balance_before_minor,
       lag(balance_after_minor, 1, 0) OVER (PARTITION BY user_id, wallet_id ORDER BY id) AS before_minor
       FROM transactions ${of("user_id")}) WHERE balance_before_minor IS NOT before_minor`,
  ).all();
  const orphans = await env.DB.prepare(
    `SELECT count(*) AS n FROM (SELECT DISTINCT user_id, wallet_id FROM transactions ${of("user_id")}) t
     WHERE NOT EXISTS (SELECT 1 FROM balances b WHERE b.user_id = t.user_id AND b.wallet_id = t.wallet_id)`,
  ).first<{ n: number }>();
  return { broken, chain, orphans: orphans!.n };
}

/**
 * Counts of every table, to prove a refused request wrote nothing. The money held is summed in two
 * parts (as src/db/exact-sum.ts does), so that no test's turnover can overflow it. Events stand
 * as their newest id: none can be updated or deleted (trigger events_no_delete), so each one
 * written raises it by one, where a count reads the whole table, which no narrow index covers.
 */
export async function tableCounts() {
  const row = await env.DB.prepare(
    `SELECT (SELECT count(*) FROM users) AS users, (SELECT count(*) FROM wallets) AS wallets,
       (SELECT count(*) FROM transactions) AS transactions, (SELECT count(*) FROM balances) AS balances,
       (SELECT coalesce(sum(balance_minor / 1000000000), 0) || ':' || coalesce(sum(balance_minor % 1000000000), 0)
         FROM balances) AS money, (SELECT count(*) FROM api_keys) AS api_keys,
       (SELECT coalesce(max(id), 0) FROM events) AS events, (SELECT count(*) FROM webhook_endpoints) AS webhook_endpoints,
       (SELECT count(*) FROM holds) AS holds, (SELECT count(*) FROM holds WHERE status = 'held') AS held,
       (SELECT count(*) FROM batches) AS batches`,
  ).first<Record<string, number> & { money: string }>();
  const [billions, rest] = row!.money.split(":");
  const money = BigInt(billions!) * 1_000_000_000n + BigInt(rest!);
  // Exact text past 2^53, where no test compares it with a number.
  const exact = money <= Number.MAX_SAFE_INTEGER ? Number(money) : String(money);
  return { ...row, money: exact } as unknown as Record<string, number>;
}

/** The refusal in the route's envelope family: A has no `data` key, B has `data: []` and status "failed". */
export function expectRefusal(
  res: Reply,
  family: "A" | "B",
  status: 401 | 403,
  error: Record<string, string>,
) {
  expect(res.status).toBe(status);
  expect(res.headers.get("content-type")).toBe("application/json; charset=UTF-8");
  const envelope =
    family === "A"
      ? { status_code: status, status: false, message: "Permission denied", error }
      : { status_code: status, status: "failed", message: "Permission denied", data: [], error };
  expect(res.body).toStrictEqual(envelope);
}

/** What ledgerViolations() finds in a sound ledger. */
export const CLEAN = { broken: [], chain: [], orphans: 0 };
export const INSUFFICIENT = {
  status_code: 400,
  status: false,
  message: "Insufficient Balance",
  error: { amount: "Insufficient Balance" },
};
/** The 409 of a request_id already used by `txnId`. */
export const alreadyExists = (txnId: number) => ({
  status_code: 409,
  status: false,
  message: "Transaction already exists",
  error: { txn_id: String(txnId), exist: "Transaction already executed" },
});

export const debit = (admin: TestUser, body: Json) =>
  call("POST", "/debits", { auth: admin.bearer, body: { request_id: unique("req"), ...body } });
export const transfer = (admin: TestUser, body: Json) =>
  call("POST", "/transfers", { auth: admin.bearer, body: { request_id: unique("req"), ...body } });

/** An administrator, a subscriber and a wallet with `decimals` places. */
export async function makeAccount(decimals = 2) {
  const admin = await makeAdmin();
  const user = await makeUser();
  const wallet = await makeWallet(admin, { decimals });
  return { admin, user, wallet };
}

/** A user's balance in one wallet, as GET /user-wallet-balance answers it. */
export async function balanceOf(admin: { bearer: string }, userId: number, wallet: string) {
  const res = await call("GET", "/user-wallet-balance", {
    auth: admin.bearer,
    query: { user_id: userId, wallet_id: wallet },
  });
  expect(res.status, res.text).toBe(200);
  return res.body.data[wallet] as number;
}

/** `count` one-minor-unit credits appended in one statement (scripts/lib/sql.ts). */
export async function appendHistory(userId: number, walletId: string, count: number) {
  await env.DB.prepare(appendHistorySql(userId, walletId, count, unique("h"))).run();
}

/**
 * `answer`, or a failure saying `why` when it has not come within 5 s: a test that holds some work
 * back (a mail, a write) sees whether the answer waits for it.
 */
export const answeredWithout = <T>(answer: T | Promise<T>, why: string) =>
  Promise.race([
    answer,
    new Promise<never>((_, reject) => setTimeout(() => reject(new Error(why)), 5_000)),
  ]);

/**
 * `count` holds of one minor unit for `userId` in `walletId`, written straight to D1 and dated as
 * appendHistory dates its entries: the odd ones still held (until 2096), the even ones voided.
 */
export async function appendHolds(userId: number, walletId: string, count: number) {
  const tag = unique("hold");
  await env.DB.batch([
    env.DB.prepare(
      `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?4)
       INSERT INTO holds (user_id, wallet_id, amount_minor, amount_text, request_id, request_key,
         status, created_at_s, expires_at_s)
       SELECT ?1, ?2, 1, '0.01', ?3 || i, ?3 || i, 'held', 1700000000 + i, 4000000000 FROM n`,
    ).bind(userId, walletId, tag, count),
    env.DB.prepare(
      `UPDATE holds SET status = 'voided', resolved_at_s = created_at_s + 1
       WHERE user_id = ? AND id % 2 = 0`,
    ).bind(userId),
  ]);
}

/** A batch of one credit of 1 to `userId` in `walletId`, posted by `admin`: its id. */
export async function creditBatch(admin: TestUser, userId: number, walletId: string) {
  const res = await call("POST", "/batches", {
    auth: admin.bearer,
    body: {
      request_id: unique("b"),
      operations: [{ type: "credit", user_id: userId, wallet_id: walletId, amount: "1" }],
    },
  });
  expect(res.status, res.text).toBe(200);
  return res.body.data.batch_id as number;
}

/**
 * `count` user.created events whose data holds `chars` characters of username each (users of a very
 * long name), written straight to D1: pages of the event feed end at about 4 MB of data.
 */
export async function appendLongEvents(count: number, chars: number) {
  await env.DB.batch(
    Array.from({ length: count }, () =>
      env.DB.prepare(
        `INSERT INTO events (type, subject, data, created_at_ms)
         VALUES ('user.created', '0', json_object('id', 0, 'username', hex(zeroblob(?1)),
           'email', 'x@example.test', 'first_name', '', 'last_name', '', 'role', 'subscriber',
           'registered_at_ms', 0), 0)`,
      ).bind(chars / 2),
    ),
  );
}

/** The largest amount an entry can move, in minor units. */
export const MAX_AMOUNT = 999_999_999_999_999;

/**
 * `pairs` credits of the largest amount, each followed by a debit of it, dated `atS`, in one statement
 * (the ledger's triggers check every row): a turnover past 2^63 units in seconds, from a balance of 0.
 */
export async function appendTurnover(userId: number, walletId: string, pairs: number, atS: number) {
  const tag = unique("t");
  await env.DB.prepare(
    `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?1 * 2)
INSERT INTO transactions (user_id, wallet_id, txn_type, amount_minor, amount_text, balance_before_minor,
  balance_after_minor, request_id, request_key, note, title, slug_base, slug, created_at_s)
SELECT ?2, ?3, CASE i % 2 WHEN 1 THEN 'CREDIT' ELSE 'DEBIT' END, ${MAX_AMOUNT}, '${MAX_AMOUNT}',
  CASE i % 2 WHEN 1 THEN 0 ELSE ${MAX_AMOUNT} END, CASE i % 2 WHEN 1 THEN ${MAX_AMOUNT} ELSE 0 END,
  ?4 || i, ?4 || i, '', 't', ?4 || i, ?4 || i, ?5 FROM n`,
  )
    .bind(pairs, userId, walletId, tag, atS)
    .run();
}

/**
 * env.DB (and its sessions) whose sends go through `around`: each batch, and each statement sent on
 * its own (run, all, raw, first: Drizzle's single queries and prepared statements alike), as the
 * statements that send holds.
 */
function aroundSends(
  around: (send: () => Promise<unknown>, statements: D1PreparedStatement[]) => Promise<unknown>,
): D1Database {
  const bound = <T extends object>(target: T, name: string | symbol) => {
    const value: unknown = Reflect.get(target, name, target);
    return typeof value === "function" ? value.bind(target) : value;
  };
  // A batch is sent D1's own statements, not the proxies handed out.
  const unwrapped = new WeakMap<object, D1PreparedStatement>();
  const statement = (s: D1PreparedStatement): D1PreparedStatement => {
    const proxy = new Proxy(s, {
      get: (target, name) =>
        name === "bind"
          ? (...values: unknown[]) => statement(target.bind(...values))
          : typeof name === "string" && ["run", "all", "raw", "first"].includes(name)
            ? (...args: unknown[]) =>
                // biome-ignore lint/suspicious/noExplicitAny: forwarding D1's own method
                around(() => (target as any)[name](...args), [target])
            : bound(target, name),
    });
    unwrapped.set(proxy, s);
    return proxy;
  };
  const database = <T extends D1Database | D1DatabaseSession>(d1: T): T =>
    new Proxy(d1, {
      get: (target, name) => {
        if (name === "prepare") return (sql: string) => statement(target.prepare(sql));
        if (name === "batch")
          return (statements: D1PreparedStatement[]) => {
            const sent = statements.map((s) => unwrapped.get(s) ?? s);
            return around(() => target.batch(sent), sent);
          };
        if (name === "withSession" && "withSession" in target)
          return (start?: string) => database(target.withSession(start));
        return bound(target, name);
      },
    });
  return database(env.DB);
}

/**
 * env.DB (and its sessions) on which the first send the database refuses (a batch or a statement
 * on its own) is followed, before its caller sees the refusal, by `arrive`: another request's write
 * landing a moment after the refusal.
 */
export function arrivingAfterRefusal(arrive: () => Promise<unknown>): D1Database {
  let arrived = false;
  return aroundSends(async (send) => {
    try {
      return await send();
    } catch (err) {
      if (!arrived) {
        arrived = true;
        await arrive();
      }
      throw err;
    }
  });
}

/**
 * env.DB (and its sessions) on which `arrive`, another request's write, lands just before the first
 * send that writes (a batch, or a statement on its own, holding an INSERT, UPDATE or DELETE; or one
 * whose text `writing` matches): after everything the caller read to make it.
 */
export function arrivingBeforeWrite(
  arrive: () => Promise<unknown>,
  writing = /^\s*(insert|update|delete)\b/i,
): D1Database {
  let arrived = false;
  const writes = (s: D1PreparedStatement) =>
    writing.test((s as unknown as { statement: string }).statement);
  return aroundSends(async (send, statements) => {
    if (!arrived && statements.some(writes)) {
      arrived = true;
      await arrive();
    }
    return send();
  });
}

/** A queue that keeps what it is sent, and refuses a batch past Cloudflare Queues' 100 messages. */
export function fakeQueue() {
  const sent: unknown[] = [];
  const queue = {
    send: async (body: unknown, options?: QueueSendOptions) =>
      void sent.push(options?.delaySeconds === undefined ? body : { body, ...options }),
    sendBatch: async (messages: { body: unknown }[]) => {
      if (messages.length > 100) throw new Error(`sendBatch of ${messages.length} messages`);
      sent.push(...messages.map((m) => m.body));
    },
  };
  return { sent, queue: queue as unknown as Queue };
}

/**
 * `nowMs`, or a minute earlier in an hour's first minute: the time of a minute's cron run. The run
 * scheduled in an hour's first minute also deletes expired sessions and mail tokens, and logs
 * their counts (src/index.ts scheduled).
 */
export const minutesRunAt = (nowMs = Date.now()) =>
  nowMs % 3_600_000 < 60_000 ? nowMs - 60_000 : nowMs;

/**
 * The cron trigger's run (src/index.ts scheduled) at `scheduledTime`, its sweep's nudges kept in a
 * fake queue: where the test files of a worker share a database (vitest.config.ts) the sweep finds
 * other files' endpoints, and the real queue's consumer would try their deliveries a second later,
 * in the middle of another file (and workerd would log each unresolvable example host).
 */
export async function runCron(scheduledTime: number, cron = "* * * * *") {
  const { queue } = fakeQueue();
  await worker.scheduled({ scheduledTime, cron, noRetry() {} }, { ...env, WEBHOOK_QUEUE: queue });
}

/** A webhook endpoint of `admin`'s for `events`, created through the API. */
export async function subscribeWebhook(
  admin: TestUser,
  events = "transaction.created,wallet.created",
) {
  const res = await call("POST", "/webhooks", {
    auth: admin.bearer,
    body: { url: `https://hooks.example.com/${unique("r")}`, events },
  });
  expect(res.status, res.text).toBe(201);
  return res.body.data as Json;
}

/** A 2-decimal wallet storing `extra` more places, as the WordPress import creates one. */
export async function storingMore(extra = 1) {
  const wallet = unique("x").toLowerCase().slice(0, 20);
  await env.DB.prepare(
    `INSERT INTO wallets (id, name, symbol, symbol_position, decimals, extra_decimals, type, created_at_ms)
     VALUES (?, 'Naira', '₦', 'left', 2, ?, 'fiat', 0)`,
  )
    .bind(wallet, extra)
    .run();
  return wallet;
}

/** An entry written as the WordPress import writes one (imported = 1), continuing the chain. */
export async function importedEntry(
  userId: number,
  walletId: string,
  type: "CREDIT" | "DEBIT",
  amountMinor: number,
  amountText: string,
  beforeMinor: number,
  createdAtS: number,
  {
    transferId = null,
    note = "",
    guid = null,
  }: { transferId?: string | null; note?: string; guid?: string | null } = {},
) {
  const after = beforeMinor + (type === "CREDIT" ? amountMinor : -amountMinor);
  const tag = unique("imp");
  const orNull = (text: string | null) => (text === null ? "NULL" : sqlLiteral(text));
  await env.DB.prepare(
    `INSERT INTO transactions (user_id, wallet_id, txn_type, amount_minor, amount_text,
       balance_before_minor, balance_after_minor, request_id, request_key, note, title, slug_base,
       slug, created_at_s, imported, transfer_id, guid)
     VALUES (${[userId, walletId, type, amountMinor, amountText].map(sqlLiteral).join(", ")},
       ${beforeMinor}, ${after}, '${tag}', '${tag}', ${sqlLiteral(note)}, 't', '${tag}', '${tag}',
       ${createdAtS}, 1, ${orNull(transferId)}, ${orNull(guid)})`,
  ).run();
}

/** Deterministic PRNG (mulberry32), so a failing run can be replayed exactly. */
export function mulberry32(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
