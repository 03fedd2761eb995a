// Every route of both dialects (ROUTES, COMPAT_ROUTES) swept with request shapes a client can
// send: bodies under every Content-Type, JSON that is not an object, nested and repeated names,
// bytes that are not text, odd path ids, method switches, HEAD and OPTIONS, odd Authorization
// headers. Whatever comes back is below 500, JSON in the route's envelope or WordPress's error, no
// stack trace; and a refused request writes nothing.
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { COMPAT_ROUTES } from "../src/compat";
import type { Route } from "../src/http/route";
import { ROUTES } from "../src/routes";
import { GUARDED } from "./compat-helpers";
import {
  call,
  credit,
  creditBatch,
  INVALID_JSON,
  type Json,
  makeAdmin,
  makeUser,
  makeWallet,
  signedToken,
  subscribeWebhook,
  type TestUser,
  tableCounts,
  testApp,
  unique,
} from "./helpers";

const STACK =
  /\bat \S+ \(|\n\s+at |SQLITE|D1_ERROR|TypeError|ReferenceError|RangeError|SyntaxError|node_modules|\.ts:\d+/;

/**
 * A route's fields: text, a number where only a JSON number will do, or a list of objects (a
 * batch's operations), which only JSON carries whole.
 */
type Fields = Record<string, string | number | Record<string, string>[]>;

type Shape = { name: string; headers?: Record<string, string>; body?: BodyInit; query?: string };

let admin: TestUser;
let user: TestUser;
let wallet: string;
let txnId: number;
/** An event of the feed, which a resend names. */
let eventId: string;
/** The object of its own the running sweep's path names (OWN), if its route has one. */
let ownId: number;

/** A route's key in SAMPLES: its dialect (`w`allet/v1, `p`lugin), method and path. */
const keyOf = (route: Route, plugin: boolean) =>
  `${plugin ? "p" : "w"} ${route.method} ${route.path}`;

/**
 * Every route's fields as its clients send them (a new request_id, username, wallet id each time),
 * `{}` for one that takes none, so every shape reaches past the first missing field. Keyed by
 * `keyOf`: a route of ROUTES or COMPAT_ROUTES without an entry fails the sweep and the test below.
 */
const samples = (): Record<string, Fields> => {
  const r = unique("r");
  const u = `${user.id}`;
  return {
    "w POST /credits": { user_id: u, wallet_id: wallet, amount: "1", request_id: r },
    "w POST /debits": { user_id: u, wallet_id: wallet, amount: "1", request_id: r },
    "w POST /transfers": {
      from_user_id: u,
      to_user_id: `${admin.id}`,
      wallet_id: wallet,
      amount: "1",
      request_id: r,
    },
    "w GET /user-wallet-balance": { user_id: u, wallet_id: wallet },
    "w GET /balances": { user_id: u },
    "w POST /holds": { user_id: u, wallet_id: wallet, amount: "1", request_id: r },
    "w GET /holds": { user_id: u },
    "w GET /holds/{id}": {},
    "w POST /holds/{id}/capture": { amount: "1" },
    "w POST /holds/{id}/void": {},
    "w GET /transactions": { user_id: u, security_code: "1" },
    "w GET /statements": { user_id: u, wallet_id: wallet },
    "w GET /transactions/{id}": {},
    "w POST /transactions/{id}/reverse": { request_id: r },
    "w POST /batches": {
      request_id: r,
      operations: [{ type: "credit", user_id: u, wallet_id: wallet, amount: "1" }],
    },
    "w GET /batches": { user_id: u },
    "w GET /batches/{id}": {},
    "w POST /batches/{id}/reverse": {},
    "w POST /users": {
      username: r,
      user_email: `${r}@example.test`,
      user_password: "correct horse",
    },
    "w POST /users/login": { username: user.username, user_password: "correct horse" },
    "w POST /users/logout": {},
    "w POST /users/{user_id}/unlock": {},
    "w POST /users/{user_id}/sessions/revoke": {},
    "w POST /users/verify-email": { user_email: `${r}@example.test` },
    "w GET /users/verify-email": { token: r },
    "w POST /users/password-reset": { user_email: `${r}@example.test` },
    "w POST /users/password-reset/confirm": { token: r, user_password: "another horse" },
    "w POST /wallets": {
      wallet_id: r.slice(0, 20).toLowerCase(),
      wallet_name: "X",
      wallet_symbol: "$",
      wallet_decimal: "2",
    },
    "w GET /wallets": {},
    "w GET /wallets/{wallet_id}": {},
    "w GET /wallets/{wallet_id}/summary": { user_id: u },
    "w POST /api-keys": { name: "k", scope: "read" },
    "w GET /api-keys": {},
    "w DELETE /api-keys/{id}": {},
    "w GET /events": { types: "transaction.created" },
    "w POST /webhooks": { url: `https://hooks.example.com/${r}`, events: "wallet.created" },
    "w GET /webhooks": {},
    "w DELETE /webhooks/{id}": {},
    "w POST /webhooks/{id}/test": {},
    "w POST /webhooks/{id}/resend": { event_id: eventId },
    "w GET /webhooks/{id}/deliveries": {},
    "w GET /openapi.json": {},
    "w GET ": {},
    "p GET /credits": {},
    "p POST /credits": { user_id: u, wallet_id: wallet, amount: "1", request_id: r },
    "p GET /debits": {},
    "p POST /debits": { user_id: u, wallet_id: wallet, amount: "1", request_id: r },
    "p GET /transactions": { user_id: u },
    "p GET /user-wallet-balance": { user_id: u, wallet_id: wallet },
    "p GET /user-wallet-balance/multi": { user_id: u, wallet_id: wallet },
    "p GET /users": { user_id: u },
    "p POST /users": {
      username: r,
      user_email: `${r}@example.test`,
      user_password: "correct horse",
    },
    "p POST /users/login": { username: user.username, user_password: "correct horse" },
    "p DELETE /users/{user_id}": {},
    "p GET /transfers": {},
    "p POST /transfers": {
      transfer_from_user: u,
      transfer_to_user: `${admin.id}`,
      wallet_id: wallet,
      amount_to_transfer: "1",
      request_id: r,
    },
    "p GET /wallets": {},
    "p GET /wallets/{wallet}": {},
    "p POST /wallets": {
      wallet_name: "X",
      // The plugin's `string` rule: letters only.
      wallet_id: r.replace(/[^a-z]/gi, "").slice(0, 20),
      wallet_symbol: "$",
      wallet_symbol_pos: "left",
      wallet_type: "fiat",
      // JSON numbers: the plugin took no text for these (is_int, is_float).
      wallet_decimal: 2,
      max_withdrawal_amount: 100,
      min_withdrawal_amount: 1,
    },
    "p DELETE /wallets/{wallet}": {},
    "p GET /wallet-summary": { user_id: u, wallet_id: wallet },
    "p GET /verify-email-address": { email_address: `${r}@example.test`, fire_email: "true" },
    "p GET ": {},
  };
};

/**
 * Routes that no request of the sweep need be served by, and why; every other route must answer
 * some shape below 300, and its JSON under `application/x+json` too when it takes fields.
 */
const UNSERVED: Record<string, string> = {
  "w GET /users/verify-email": "only a mailed token confirms",
  "w POST /users/password-reset/confirm": "likewise",
  "p DELETE /users/{user_id}": "the sweep's user has entries",
  "p DELETE /wallets/{wallet}": "the sweep's wallet has entries",
};

/** A route's sample fields, fresh; a route without one is a failure, not a sweep of `{}`. */
function fields(route: Route, plugin: boolean): Fields {
  const f = samples()[keyOf(route, plugin)];
  if (!f) throw new Error(`${keyOf(route, plugin)} has no sample fields in request-shapes.test.ts`);
  return f;
}

/**
 * The names a shape sends odd values under: the route's fields, every other parameter it declares
 * (a read's filters and paging), and one no route reads.
 */
const namesOf = (route: Route, plugin: boolean) => [
  ...new Set([
    ...Object.keys(fields(route, plugin)),
    ...declaredNames(route.params?.schema).filter((name) => !route.path.includes(`{${name}}`)),
    "zz",
  ]),
];

/** The names an input schema declares: an object's entries, through pipes, unions and intersections. */
function declaredNames(schema: unknown): string[] {
  if (schema === null || typeof schema !== "object") return [];
  const s = schema as {
    entries?: object;
    pipe?: unknown[];
    options?: unknown[];
    wrapped?: unknown;
  };
  if (s.entries) return Object.keys(s.entries);
  const inner = [...(s.pipe ?? []), ...(s.options ?? []), ...(s.wrapped ? [s.wrapped] : [])];
  return [...new Set(inner.flatMap((part) => (part === schema ? [] : declaredNames(part))))];
}

/** The id a path names: the route's own object (OWN), else the sweep's wallet, user or entry. */
const idFor = (route: Route, plugin: boolean, name: string) => {
  if (keyOf(route, plugin) in OWN) return `${ownId}`;
  if (name === "wallet" || name === "wallet_id") return wallet;
  return name === "user_id" ? `${user.id}` : `${txnId}`;
};

const pathFor = (route: Route, plugin: boolean, id?: string) =>
  (plugin ? "/wp-json/rimplenet/v1" : "/wp-json/wallet/v1") +
  route.path.replace(/\{(\w+)\}/g, (_, name: string) => id ?? idFor(route, plugin, name));

const enc = new TextEncoder();
const LARGE = JSON.stringify({ note: "x".repeat(3 * 1024 * 1024) });
const form = (f: Fields) =>
  new URLSearchParams(Object.entries(f).map(([k, v]) => [k, String(v)])).toString();
const json = (f: Record<string, unknown>) => JSON.stringify(f);

function bodyShapes(f: Fields, names: string[]): Shape[] {
  const JSON_CT = { "Content-Type": "application/json" };
  const FORM_CT = { "Content-Type": "application/x-www-form-urlencoded" };
  const swap = (value: unknown) => Object.fromEntries(names.map((n) => [n, value]));
  const multipart = new FormData();
  for (const [k, v] of Object.entries(f)) multipart.append(k, String(v));
  const shapes: Shape[] = [
    { name: "no body" },
    { name: "json no content-type", body: json(f) },
    { name: "text/plain json", headers: { "Content-Type": "text/plain" }, body: json(f) },
    { name: "json ct form body", headers: JSON_CT, body: form(f) },
    { name: "form ct json body", headers: FORM_CT, body: json(f) },
    {
      name: "json latin1",
      headers: { "Content-Type": "application/json; charset=latin1" },
      body: json(f),
    },
    {
      name: "json latin1 bytes",
      headers: { "Content-Type": "application/json; charset=latin1" },
      body: new Uint8Array([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xe9, 0x22, 0x7d]),
    },
    { name: "multipart", body: multipart },
    {
      name: "multipart no boundary",
      headers: { "Content-Type": "multipart/form-data" },
      body: "x",
    },
    {
      name: "multipart bad boundary",
      headers: { "Content-Type": "multipart/form-data; boundary=zz" },
      body: "--zz\r\nContent-Disposition: form-data; name=a\r\n\r\n1\r\n",
    },
    { name: "form nested", headers: FORM_CT, body: names.map((n) => `${n}[b]=1`).join("&") },
    { name: "form list", headers: FORM_CT, body: names.map((n) => `${n}[]=1&${n}[]=2`).join("&") },
    { name: "form dup", headers: FORM_CT, body: `${form(f)}&${form(f)}` },
    {
      name: "form proto",
      headers: FORM_CT,
      body: `${form(f)}&__proto__[x]=1&constructor[prototype][y]=2&toString=1`,
    },
    {
      name: "json proto",
      headers: JSON_CT,
      body: `{"__proto__":{"amount":"5"},"constructor":{"prototype":{"x":1}},"toString":1,${json(f).slice(1)}`,
    },
    { name: "json dup", headers: JSON_CT, body: `${json(f).slice(0, -1)},${json(f).slice(1)}` },
    { name: "json empty", headers: JSON_CT, body: "" },
    ...["null", "[]", '"str"', "1", "true", "{}", "[1,2]"].map((b) => ({
      name: `json ${b}`,
      headers: JSON_CT,
      body: b,
    })),
    { name: "json deep", headers: JSON_CT, body: `${"[".repeat(10000)}${"]".repeat(10000)}` },
    {
      name: "json deep obj",
      headers: JSON_CT,
      body: `${'{"a":'.repeat(10000)}1${"}".repeat(10000)}`,
    },
    { name: "json large", headers: JSON_CT, body: LARGE },
    {
      name: "invalid utf8",
      headers: JSON_CT,
      body: new Uint8Array([0x7b, 0x22, 0xff, 0x22, 0x3a, 0x31, 0x7d]),
    },
    {
      name: "invalid utf8 form",
      headers: FORM_CT,
      body: new Uint8Array([...enc.encode(form(f)), 0x26, 0x61, 0x3d, 0xff]),
    },
    {
      name: "bom",
      headers: JSON_CT,
      body: new Uint8Array([0xef, 0xbb, 0xbf, ...enc.encode(json(f))]),
    },
    {
      name: "lone surrogate",
      headers: JSON_CT,
      body: json({ ...f, note: "PLACEHOLDER" }).replace("PLACEHOLDER", "\\ud800"),
    },
    { name: "nul", headers: JSON_CT, body: json(swap("a\u0000b")) },
    { name: "nul form", headers: FORM_CT, body: names.map((n) => `${n}=a%00b`).join("&") },
    { name: "nul raw", headers: JSON_CT, body: `{"a":"\u0000"}` },
    {
      name: "overlong numbers",
      headers: JSON_CT,
      body: `{${names.map((n) => `"${n}":1${"0".repeat(38)}`).join(",")}}`,
    },
    { name: "1e400", headers: JSON_CT, body: `{${names.map((n) => `"${n}":1e400`).join(",")}}` },
    { name: "-0", headers: JSON_CT, body: `{${names.map((n) => `"${n}":-0`).join(",")}}` },
    {
      name: "2^53+1",
      headers: JSON_CT,
      body: `{${names.map((n) => `"${n}":9007199254740993`).join(",")}}`,
    },
    { name: "objects", headers: JSON_CT, body: json(swap({ $ne: 1 })) },
    { name: "arrays", headers: JSON_CT, body: json(swap([1])) },
    { name: "bools", headers: JSON_CT, body: json(swap(true)) },
    { name: "false", headers: JSON_CT, body: json(swap(false)) },
    { name: "floats", headers: JSON_CT, body: json(swap(1.5)) },
    { name: "huge string", headers: JSON_CT, body: json(swap("9".repeat(5000))) },
    { name: "space string", headers: JSON_CT, body: json(swap(" ")) },
    { name: "unicode", headers: JSON_CT, body: json(swap("١٢٣")) },
    { name: "fullwidth", headers: JSON_CT, body: json(swap("１２")) },
    { name: "query arrays", query: names.map((n) => `${n}[]=1&${n}[a]=2`).join("&") },
    { name: "query dup", query: `${form(f)}&${form(f)}` },
    { name: "query nul", query: names.map((n) => `${n}=%00`).join("&") },
    { name: "query invalid utf8", query: names.map((n) => `${n}=%ff`).join("&") },
    { name: "query lone surrogate", query: names.map((n) => `${n}=%ed%a0%80`).join("&") },
    { name: "query fields", query: form(f) },
    { name: "query proto", query: `__proto__[x]=1&constructor=1&hasOwnProperty=1&${form(f)}` },
    {
      name: "ct weird",
      headers: { "Content-Type": 'application/json; charset="utf-8' },
      body: json(f),
    },
    { name: "ct empty", headers: { "Content-Type": "" }, body: json(f) },
    {
      name: "ct params",
      headers: { "Content-Type": "application/json;;;boundary=" },
      body: json(f),
    },
    { name: "ct upper", headers: { "Content-Type": "APPLICATION/JSON" }, body: json(f) },
    { name: "ct +json", headers: { "Content-Type": "application/x+json" }, body: json(f) },
    { name: "ct +json broken", headers: { "Content-Type": "application/x+json" }, body: '{"a":' },
    {
      name: "ct form charset",
      headers: { "Content-Type": "application/x-www-form-urlencoded; charset=latin1" },
      body: form(f),
    },
  ];
  return shapes;
}

/** Mail is kept in the outbox table, so the routes that mail links serve their samples. */
const OUTBOX = { MAIL_TRANSPORT: "outbox" };

/**
 * Webhook tests and resends go to a receiver that answers at once, never to the network; with no
 * execution context, a write nudges no delivery either.
 */
const app = testApp({
  nowMs: () => Date.now(),
  outbound: async () => new Response(null, { status: 204 }),
});

/**
 * A request as a client sends it. A GET or HEAD may carry a body (WordPress reads one on any
 * method, and the runtime hands one over), which no Request can be built with here: it is built as
 * a POST whose method then reads GET, its body streamed as such a body arrives. Only for a path
 * the app serves as sent: one it rebuilds (a plain permalink, an escaped or upper-case path) would
 * be rebuilt as the POST it is underneath.
 */
function requestOf(method: string, url: string, headers: Headers, body: BodyInit | undefined) {
  if (body === undefined || (method !== "GET" && method !== "HEAD"))
    return new Request(url, { method, headers, body });
  const sent = new Request(url, { method: "POST", headers, body });
  const request = new Request(url, {
    method: "POST",
    headers: sent.headers,
    body: sent.body,
    duplex: "half",
  } as RequestInit);
  Object.defineProperty(request, "method", { value: method });
  return request;
}

type Anomaly = { where: string; status: number; why: string; text: string };

async function send(
  method: string,
  path: string,
  shape: Shape,
  auth: string | undefined,
  extraHeaders: Record<string, string> = {},
) {
  const headers = new Headers(shape.headers);
  if (auth !== undefined) headers.set("Authorization", auth);
  for (const [k, v] of Object.entries(extraHeaders)) headers.append(k, v);
  const sep = path.includes("?") ? "&" : "?";
  const url = `http://localhost${path}${shape.query ? sep + shape.query : ""}`;
  const res = await app.fetch(requestOf(method, url, headers, shape.body), {
    ...env,
    ...GUARDED,
    ...OUTBOX,
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text };
}

function judge(
  where: string,
  method: string,
  res: { status: number; headers: Headers; text: string },
  anomalies: Anomaly[],
) {
  const add = (why: string) =>
    anomalies.push({ where, status: res.status, why, text: res.text.slice(0, 300) });
  if (res.status >= 500) add("5xx");
  if (STACK.test(res.text)) add("stack");
  if (method === "HEAD" || res.status === 204) return;
  const type = res.headers.get("content-type") ?? "";
  if (type.startsWith("text/csv")) return;
  if (type !== "application/json; charset=UTF-8") add(`content-type ${type}`);
  let body: Json;
  try {
    body = JSON.parse(res.text);
  } catch {
    add("not json");
    return;
  }
  if (res.status >= 400) {
    const wp = typeof body.code === "string" && body.data?.status === res.status;
    const ours = body.status_code === res.status && typeof body.message === "string";
    if (!wp && !ours) add("no envelope");
  }
}

/** The administrator's bearer; a fresh session's for a sign-out, which ends the one it is sent with. */
const authFor = async (route: Route) =>
  route.path === "/users/logout" ? `Bearer ${(await signedToken(admin)).token}` : admin.bearer;

beforeAll(async () => {
  // Users before the sweep's own, so that an odd id that reads as 1 or 2 (`01`, `+1`) names them.
  await makeUser();
  await makeUser();
  admin = await makeAdmin();
  user = await makeUser();
  wallet = await makeWallet(admin);
  const res = await credit(admin, { user_id: user.id, wallet_id: wallet, amount: "100" });
  txnId = res.body.data.transaction_id;
  const events = await call("GET", "/events", { auth: admin.bearer, query: { limit: 1 } });
  expect(events.status, events.text).toBe(200);
  eventId = `${events.body.data[0].id}`;
});

/** A hold of 5 on the sweep's user, credited first: the sweep's debits may have spent the rest. */
async function placeHold() {
  await credit(admin, { user_id: user.id, wallet_id: wallet, amount: "5" });
  const placed = await call("POST", "/holds", {
    auth: admin.bearer,
    body: { user_id: user.id, wallet_id: wallet, amount: "5", request_id: unique("h") },
  });
  expect(placed.status, placed.text).toBe(200);
  return placed.body.data.hold_id as number;
}

/** A credit of 1 to the sweep's user, its own to reverse: the reversal's debit has it to spend. */
async function freshEntry() {
  const res = await credit(admin, { user_id: user.id, wallet_id: wallet, amount: "1" });
  expect(res.status, res.text).toBe(200);
  return res.body.data.transaction_id as number;
}

/** A batch crediting 1 to the sweep's user, which its reversal has to spend likewise. */
const makeBatch = () => creditBatch(admin, user.id, wallet);

/** A webhook endpoint of the sweep's administrator. */
const makeWebhook = async () => (await subscribeWebhook(admin)).id as number;

/**
 * The routes whose path names an object of a kind of its own, how one is made, and whether a
 * request served uses it up (a hold resolves once, a reversal or a deletion is done once). Each
 * sweep of such a route makes its own; one used up is made again after every request served, so
 * that every shape reaches the route's validation and its write.
 */
const OWN: Record<string, { make: () => Promise<number>; spent: boolean }> = {
  "w GET /holds/{id}": { make: placeHold, spent: false },
  "w POST /holds/{id}/capture": { make: placeHold, spent: true },
  "w POST /holds/{id}/void": { make: placeHold, spent: true },
  "w POST /transactions/{id}/reverse": { make: freshEntry, spent: true },
  "w GET /batches/{id}": { make: makeBatch, spent: false },
  "w POST /batches/{id}/reverse": { make: makeBatch, spent: true },
  "w DELETE /webhooks/{id}": { make: makeWebhook, spent: true },
  "w POST /webhooks/{id}/test": { make: makeWebhook, spent: false },
  "w POST /webhooks/{id}/resend": { make: makeWebhook, spent: false },
  "w GET /webhooks/{id}/deliveries": { make: makeWebhook, spent: false },
};

/** A sweep's own object for its route's path, when its route has one (OWN). */
async function ownObject(route: Route, plugin: boolean) {
  const own = OWN[keyOf(route, plugin)];
  if (own) ownId = await own.make();
}

/** A new object in place of the one a request just used up, so the next request has one. */
async function renewSpent(route: Route, plugin: boolean, status: number) {
  if (status < 300 && OWN[keyOf(route, plugin)]?.spent) await ownObject(route, plugin);
}

/** The namespace's own index, which neither table lists. */
const INDEX = { path: "", method: "GET" } as Route;

const TABLES: [string, readonly Route[], boolean][] = [
  ["wallet/v1", [...ROUTES, INDEX], false],
  ["plugin", [...COMPAT_ROUTES, INDEX], true],
];

/** Path parameter values a client can send in place of an id or a wallet's name. */
const IDS = [
  "1e3",
  "0x10",
  "%201",
  "+1",
  "01",
  "-0",
  "-1",
  "0",
  "9007199254740993",
  "9".repeat(400),
  "1%2F2",
  "%2F",
  "%E0%A5%A7",
  "١",
  "%2e%2e",
  "..",
  ".",
  "1.0",
  "1%00",
  "%00",
  "a".repeat(5000),
  "%ff",
  "%ed%a0%80",
  "%20",
  "%09",
  "1;2",
  "1,2",
  "W",
  "NGN%20",
  "%C3%A9",
];

/** Path forms of a whole route: slashes added or escaped, dot segments. */
const PATHS = (path: string) => {
  const [head, ...rest] = path.split("/").filter(Boolean);
  const tail = rest.join("/");
  return [
    `${path}/`,
    `${path}//`,
    `${path}/.`,
    `${path}/..`,
    `${path}/%2e`,
    `${path}%2F`,
    `${path}%20`,
    `${path}%00`,
    `${path}/x/..`,
    `/${head}//${tail}`,
    `/${head}/%2F${tail}`,
    `/${head}/./${tail}`,
    path.toUpperCase(),
    `${path};x`,
    `${path}#x`,
    `/index.php${path}`,
    `/?rest_route=${path.slice("/wp-json".length)}`,
    `/index.php?rest_route=${encodeURIComponent(path.slice("/wp-json".length))}`,
    `/?rest_route=${path.slice("/wp-json".length)}/../x`,
    `/?rest_route=${path.slice("/wp-json".length)}&rest_route[]=x`,
    `${path}?rest_route=${path.slice("/wp-json".length)}`,
    `${path}?rest_route=/wallet/v1/credits`,
  ];
};

/** A route's fields as its clients send them: a GET's in the query, any other's as a JSON body. */
const plainShape = (route: Route, f: Fields, name: string): Shape =>
  route.method === "GET"
    ? { name, query: form(f) }
    : { name, headers: { "Content-Type": "application/json" }, body: json(f) };

const sweep = async (
  anomalies: Anomaly[],
  where: string,
  method: string,
  path: string,
  shape: Shape,
  auth: string | undefined,
  extra: Record<string, string> = {},
) => {
  const before = await tableCounts();
  const res = await send(method, path, shape, auth, extra);
  const switched =
    extra["X-HTTP-Method-Override"] ?? /_method=([^&]*)/.exec(shape.query ?? "")?.[1];
  const served =
    method === "POST" && switched ? decodeURIComponent(switched).trim().toUpperCase() : method;
  judge(where, served, res, anomalies);
  if (res.status >= 400 && JSON.stringify(await tableCounts()) !== JSON.stringify(before))
    anomalies.push({ where, status: res.status, why: "wrote", text: res.text.slice(0, 300) });
  return res;
};

// One test a route and sweep: each stays a few seconds however many routes there are, so the
// runner's 30 s guard still means a request hung.
const eachRoute = (routes: readonly Route[]) =>
  routes.map((r) => [`${r.method} ${r.path}`, r] as const);

describe("the sweep's samples", () => {
  it("has fields for every route of both tables, and none for a route that is gone", () => {
    for (const [name, routes, plugin] of TABLES) {
      const declared = routes.map((route) => keyOf(route, plugin));
      const sampled = Object.keys(samples()).filter((k) => k.startsWith(plugin ? "p " : "w "));
      expect(
        declared.filter((k) => !sampled.includes(k)),
        `${name}: routes without sample fields`,
      ).toEqual([]);
      expect(
        sampled.filter((k) => !declared.includes(k)),
        `${name}: samples without a route`,
      ).toEqual([]);
    }
    const sampled = Object.keys(samples());
    expect(Object.keys(UNSERVED).filter((k) => !sampled.includes(k))).toEqual([]);
    expect(Object.keys(OWN).filter((k) => !sampled.includes(k))).toEqual([]);
  });
});

describe("the site's index, /wp-json/", () => {
  it("reads its request as every route does: a broken JSON body is 400", async () => {
    const shape = { name: "broken", headers: { "Content-Type": "application/json" }, body: "{" };
    const broken = await send("GET", "/wp-json/", shape, undefined);
    expect([broken.status, broken.text]).toEqual([400, JSON.stringify(INVALID_JSON)]);
    const fine = await send("GET", "/wp-json/", { ...shape, body: "{}" }, undefined);
    expect(fine.status).toBe(200);
  });
});

describe.each(TABLES)("%s routes", (_name, routes, plugin) => {
  it.each(eachRoute(routes))(
    "%s answers every body shape below 500 in an envelope, writing nothing when refused",
    async (_, route) => {
      const anomalies: Anomaly[] = [];
      const neverServed: string[] = [];
      const notJson: string[] = [];
      const spent: string[] = [];
      const own = keyOf(route, plugin) in OWN;
      await ownObject(route, plugin);
      let path = pathFor(route, plugin);
      const mustServe = !(keyOf(route, plugin) in UNSERVED);
      const count = bodyShapes(fields(route, plugin), namesOf(route, plugin)).length;
      let served = false;
      let plain = "";
      let asJson = 0;
      for (let i = 0; i < count; i++) {
        // Fresh fields (a new request_id, username, wallet id) for every request.
        const f = fields(route, plugin);
        const shape = bodyShapes(f, namesOf(route, plugin))[i]!;
        path = pathFor(route, plugin);
        const where = `${route.method} ${path} [${shape.name}]`;
        const res = await sweep(anomalies, where, route.method, path, shape, await authFor(route));
        await renewSpent(route, plugin, res.status);
        if (shape.name === "query fields") plain = res.text.slice(0, 300);
        served ||= res.status < 300;
        // A `+json` type is JSON: its body's fields (a number, a list, which only JSON carries)
        // are answered as under `application/json` (`ct upper`), and a body that does not parse
        // is WordPress's rest_invalid_json, on the namespace's index too.
        if (shape.name === "ct upper") asJson = res.status;
        // An object of the route's own is unspent for every shape, however many came before:
        // late in the sweep, its plain fields under both JSON types are still served.
        if (own && (shape.name === "ct upper" || shape.name === "ct +json") && res.status >= 300)
          spent.push(`${where}: ${res.status} ${res.text.slice(0, 200)}`);
        if (shape.name === "ct +json" && Object.keys(f).length > 0 && res.status !== asJson)
          notJson.push(`${where}: ${res.status}, not ${asJson} ${res.text.slice(0, 200)}`);
        if (
          shape.name === "ct +json broken" &&
          (res.status !== 400 || !res.text.includes('"rest_invalid_json"'))
        )
          notJson.push(`${where}: ${res.status} ${res.text.slice(0, 200)}`);
      }
      // The sweep reached past validation: a route sent its plain fields served some shape.
      if (mustServe && !served) neverServed.push(`${route.method} ${path}: ${plain}`);
      expect(anomalies).toEqual([]);
      expect(neverServed).toEqual([]);
      expect(notJson).toEqual([]);
      expect(spent).toEqual([]);
    },
  );
});

describe.each(TABLES)("%s paths", (_name, routes, plugin) => {
  it.each(eachRoute(routes))(
    "%s answers odd ids and path forms below 500 in an envelope, writing nothing when refused",
    async (_, route) => {
      const anomalies: Anomaly[] = [];
      await ownObject(route, plugin);
      const ids = route.path.includes("{") ? IDS : [];
      const count = ids.length + PATHS("").length;
      for (let i = 0; i < count; i++) {
        // The route's path with its own object's id of now: one served may have used it up.
        const path =
          i < ids.length
            ? pathFor(route, plugin, ids[i])
            : PATHS(pathFor(route, plugin))[i - ids.length]!;
        const f = fields(route, plugin);
        const shape = plainShape(route, f, "plain");
        const res = await sweep(
          anomalies,
          `${route.method} ${path}`,
          route.method,
          path,
          shape,
          await authFor(route),
        );
        await renewSpent(route, plugin, res.status);
      }
      expect(anomalies).toEqual([]);
    },
  );
});

describe.each(TABLES)("%s methods", (_name, routes, plugin) => {
  it.each(eachRoute(routes))(
    "%s answers every method and method switch below 500 in an envelope, writing nothing when refused",
    async (_, route) => {
      const anomalies: Anomaly[] = [];
      await ownObject(route, plugin);
      for (const method of ["HEAD", "OPTIONS", "PUT", "PATCH", "DELETE", "GET", "POST"]) {
        const path = pathFor(route, plugin);
        const f = fields(route, plugin);
        const shape = plainShape(route, f, method);
        const res = await sweep(
          anomalies,
          `${method} ${path}`,
          method,
          path,
          shape,
          await authFor(route),
        );
        await renewSpent(route, plugin, res.status);
      }
      for (const over of [
        "GET",
        "DELETE",
        "PUT",
        "HEAD",
        "OPTIONS",
        "FOO",
        "post",
        " delete ",
        "GET,DELETE",
      ]) {
        const f = fields(route, plugin);
        const shape = plainShape(route, f, `override ${over}`);
        let path = pathFor(route, plugin);
        const res = await sweep(
          anomalies,
          `POST ${path} [X-HTTP-Method-Override ${over}]`,
          "POST",
          path,
          shape,
          await authFor(route),
          { "X-HTTP-Method-Override": over },
        );
        await renewSpent(route, plugin, res.status);
        path = pathFor(route, plugin);
        const q = {
          ...shape,
          name: `_method ${over}`,
          query: `${shape.query ? `${shape.query}&` : ""}_method=${encodeURIComponent(over)}`,
        };
        const switched = await sweep(
          anomalies,
          `POST ${path} [_method ${over}]`,
          "POST",
          path,
          q,
          await authFor(route),
        );
        await renewSpent(route, plugin, switched.status);
      }
      expect(anomalies).toEqual([]);
    },
  );
});

describe.each(TABLES)("%s headers", (_name, routes, plugin) => {
  it.each(eachRoute(routes))(
    "%s answers odd Authorization, Accept and Origin headers below 500 in an envelope, writing nothing when refused",
    async (_, route) => {
      const anomalies: Anomaly[] = [];
      await ownObject(route, plugin);
      const variants = (token: string): [string, string | undefined, Record<string, string>?][] => [
        ["none", undefined],
        ["lower scheme", `bearer ${token}`],
        ["upper scheme", `BEARER ${token}`],
        ["two spaces", `Bearer  ${token}`],
        ["leading space", ` Bearer ${token}`],
        ["trailing space", `Bearer ${token} `],
        ["tab", `Bearer\t${token}`],
        ["empty", ""],
        ["scheme only", "Bearer"],
        ["scheme space", "Bearer "],
        ["two headers", `Bearer ${token}`, { Authorization: `Bearer ${token}` }],
        ["two different", admin.bearer, { Authorization: user.bearer }],
        ["huge", `Bearer ${"a".repeat(60000)}`],
        ["huge key", `Key ${"a".repeat(60000)}`],
        ["basic", `Basic ${btoa(`${admin.username}:correct horse`)}`],
        ["basic junk", "Basic !!!"],
        ["key junk", "Key !!!"],
        ["key nocolon", `Key ${btoa("nocolon")}`],
        ["jwt none", `Bearer ${btoa('{"alg":"none"}')}.${btoa('{"sub":"1"}')}.`],
        ["dots", "Bearer ..."],
        ["x-api-key", undefined, { "X-API-Key": "abc" }],
        ["accept html", admin.bearer, { Accept: "text/html" }],
        ["accept none", admin.bearer, { Accept: "application/xml;q=1, */*;q=0" }],
        ["origin", admin.bearer, { Origin: "https://evil.example" }],
        ["origin null", admin.bearer, { Origin: "null" }],
        ["origin long", admin.bearer, { Origin: `https://${"a".repeat(10000)}.example` }],
        ["bookmark junk", admin.bearer, { "X-D1-Bookmark": "junk" }],
        ["cf-ray junk", admin.bearer, { "cf-ray": "x".repeat(1000) }],
      ];
      const count = variants(admin.token).length;
      for (let i = 0; i < count; i++) {
        // A sign-out ends the session it is sent with: each gets a session of its own.
        const fresh =
          route.path === "/users/logout" ? (await signedToken(admin)).token : admin.token;
        const [name, auth, extra] = variants(fresh)[i]!;
        const a = auth === admin.bearer ? `Bearer ${fresh}` : auth;
        const f = fields(route, plugin);
        const shape = plainShape(route, f, name);
        const path = pathFor(route, plugin);
        const res = await sweep(
          anomalies,
          `${route.method} ${path} [${name}]`,
          route.method,
          path,
          shape,
          a,
          extra,
        );
        await renewSpent(route, plugin, res.status);
      }
      expect(anomalies).toEqual([]);
    },
  );
});
