// The authorization matrix, generated from the route tables: every route of wallet/v1 (ROUTES) and
// of the plugin's dialect (COMPAT_ROUTES) × every kind of credential. The expected answer comes from
// the route's declaration (`auth`, `access`, `owner`, `publicWhen`, `refusals`); where the handler
// checks for itself, the route's entry below says how. A route without an entry fails here, as a
// new error code fails test/error-catalogue.test.ts.
import { env } from "cloudflare:workers";
import { sign } from "hono/jwt";
import { beforeAll, describe, expect, it } from "vitest";
import type { Role, Scope } from "../src/auth/principal";
import { CONSOLE_AUDIENCE } from "../src/auth/tokens";
import { COMPAT_ROUTES } from "../src/compat";
import { jwtRouteRefusals } from "../src/compat/auth";
import { createDb } from "../src/db/client";
import { deleteUserIfUnused } from "../src/db/users";
import type { RouteInfo } from "../src/http/route";
import { ROUTES } from "../src/routes";
import { GUARDED, ON } from "./compat-helpers";
import {
  call,
  credit,
  expectRefusal,
  makeAdmin,
  makeKey,
  makeUser,
  makeWallet,
  PASSWORD,
  type Reply,
  respelled,
  signedToken,
  type TestUser,
  tableCounts,
  unique,
} from "./helpers";

// ---------------------------------------------------------------------------------------------
// Who calls: the credential kinds.

/**
 * What the service should make of a credential: none sent, one that does not verify, or a verified
 * caller (a key's scope; none for a token) asking about itself or about another user.
 */
type Caller =
  | "missing"
  | "invalid"
  | { role: Role; scope?: Scope; about: "itself" | "another user" | "nobody" };

/**
 * Who the cases are about and what they move. The administrator, subscriber and other user, and so
 * each kind's credential, are the file's (made once: tokens and keys are a write each); the wallet,
 * and the administrator that makes each case's money (`maker`: MONEY_RATE_LIMIT counts per user),
 * are each route's.
 */
type Fixture = {
  admin: TestUser;
  subscriber: TestUser;
  other: TestUser;
  wallet: string;
  maker: TestUser;
};
type Sent = Record<string, string>;
type Kind = { name: string; caller: Caller; headers: (fx: Fixture) => Sent | Promise<Sent> };

const authorization = (value: string): Sent => ({ Authorization: value });
const tokenOf = async (u: TestUser, options: Parameters<typeof signedToken>[1] = {}) =>
  (await signedToken(u, options)).token;
/** A token on a new session of its own. */
const bearer = async (u: TestUser) => authorization(`Bearer ${await tokenOf(u)}`);
const keyOf = async (u: TestUser, scope: Scope, options: { revoked?: boolean } = {}) =>
  authorization((await makeKey(u, scope, options)).header);

const b64url = (value: unknown) =>
  btoa(JSON.stringify(value)).replace(/=+$/, "").replace(/\+/g, "-").replace(/\//g, "_");
// biome-ignore lint/suspicious/noExplicitAny: a token's claims, rewritten field by field
const claimsOf = (token: string): Record<string, any> =>
  JSON.parse(atob(token.split(".")[1]!.replace(/-/g, "+").replace(/_/g, "/")));

/** The first signature character changed. */
function tampered(token: string) {
  const [head, payload, sig] = token.split(".") as [string, string, string];
  return `${head}.${payload}.${sig[0] === "A" ? "B" : "A"}${sig.slice(1)}`;
}
/** A subscriber's token whose payload now says administrator, under the old signature. */
function escalated(u: TestUser) {
  const [head, , sig] = u.token.split(".") as [string, string, string];
  const claims = claimsOf(u.token);
  const user = { ...claims.user, roles: ["administrator"] };
  return `${head}.${b64url({ ...claims, user })}.${sig}`;
}
/** The contract's claims, signed with the right secret, with no session (as before sessions). */
async function sessionless(u: TestUser) {
  const iat = Math.floor(Date.now() / 1000);
  const claims = {
    iss: env.JWT_ISSUER,
    iat,
    exp: iat + 3600,
    user: { id: u.id, username: u.username, roles: [u.role] },
  };
  return sign(claims, env.JWT_SECRET!, "HS256");
}
/** A token whose session was ended by POST /users/logout. */
async function signedOut(u: TestUser) {
  const token = await tokenOf(u);
  const res = await call("POST", "/users/logout", { auth: `Bearer ${token}` });
  expect(res.status, res.text).toBe(200);
  return token;
}

/** An administrator's token and key, made before it was deleted; once per file (both are dead). */
let deleted: Promise<{ token: string; key: string }> | undefined;
const deletedAdministrator = () =>
  (deleted ??= (async () => {
    const gone = await makeAdmin();
    const key = (await makeKey(gone, "read-write")).header;
    expect(await deleteUserIfUnused(createDb(env.DB), gone.id)).toBe("deleted");
    return { token: gone.token, key };
  })());

/**
 * An administrator's token and read-write key, the administrator a subscriber now (an operator's
 * UPDATE: no route demotes).
 */
async function demotedAdministrator() {
  const demoted = await makeAdmin();
  const { header } = await makeKey(demoted, "read-write");
  await env.DB.prepare("UPDATE users SET role = 'subscriber' WHERE id = ?").bind(demoted.id).run();
  return { token: demoted.bearer, key: header };
}

const KINDS: Kind[] = [
  { name: "no credentials", caller: "missing", headers: () => ({}) },
  { name: "an empty Authorization header", caller: "missing", headers: () => authorization("") },
  {
    // The console's session: its cookie carries a live console token, which is no API credential.
    name: "the console's session cookie",
    caller: "missing",
    headers: async (fx) => ({
      Cookie: `wallet_admin=${await tokenOf(fx.admin, { audience: CONSOLE_AUDIENCE })}`,
    }),
  },
  {
    // What the plugin's middleware clients send beside (or instead of) Authorization.
    name: "an x-api-key header",
    caller: "missing",
    headers: async (fx) => ({ "x-api-key": (await makeKey(fx.admin, "read-write")).key }),
  },
  { name: "a malformed token", caller: "invalid", headers: () => authorization("Bearer a.b") },
  {
    // The plugin's clients before they have a token.
    name: "Bearer undefined",
    caller: "invalid",
    headers: () => authorization("Bearer undefined"),
  },
  { name: "an unknown scheme", caller: "invalid", headers: () => authorization("Foo bar") },
  {
    name: "a Key that is not base64",
    caller: "invalid",
    headers: () => authorization("Key %%%not*base64%%%"),
  },
  {
    name: "a Key without a colon",
    caller: "invalid",
    headers: () => authorization(`Key ${btoa("justoneword")}`),
  },
  {
    name: "a 10 KB header",
    caller: "invalid",
    headers: () => authorization(`Bearer ${"a".repeat(10 * 1024)}`),
  },
  {
    name: "an expired token",
    caller: "invalid",
    headers: async (fx) =>
      authorization(`Bearer ${await tokenOf(fx.admin, { nowMs: Date.now() - 2 * 3600_000 })}`),
  },
  {
    name: "a revoked token",
    caller: "invalid",
    headers: async (fx) => authorization(`Bearer ${await signedOut(fx.admin)}`),
  },
  {
    name: "a tampered signature",
    caller: "invalid",
    headers: (fx) => authorization(`Bearer ${tampered(fx.admin.token)}`),
  },
  {
    name: "a signature spelled another way",
    caller: "invalid",
    headers: (fx) => authorization(`Bearer ${respelled(fx.admin.token)}`),
  },
  {
    name: "a token signed with another secret",
    caller: "invalid",
    headers: async (fx) =>
      authorization(`Bearer ${await tokenOf(fx.admin, { secret: "some-other-secret" })}`),
  },
  {
    name: "a token from another issuer",
    caller: "invalid",
    headers: async (fx) =>
      authorization(`Bearer ${await tokenOf(fx.admin, { issuer: "someone-else" })}`),
  },
  {
    name: "an unsigned token",
    caller: "invalid",
    headers: (fx) =>
      authorization(
        `Bearer ${b64url({ alg: "none", typ: "JWT" })}.${b64url(claimsOf(fx.admin.token))}.`,
      ),
  },
  {
    name: "a subscriber token rewritten to administrator",
    caller: "invalid",
    headers: (fx) => authorization(`Bearer ${escalated(fx.subscriber)}`),
  },
  {
    name: "a token without a session",
    caller: "invalid",
    headers: async (fx) => authorization(`Bearer ${await sessionless(fx.admin)}`),
  },
  {
    name: "a console token as Bearer",
    caller: "invalid",
    headers: async (fx) =>
      authorization(`Bearer ${await tokenOf(fx.admin, { audience: CONSOLE_AUDIENCE })}`),
  },
  {
    name: "an unknown API key",
    caller: "invalid",
    headers: (fx) => authorization(`Key ${btoa(`${fx.admin.username}:wk_${"0".repeat(64)}`)}`),
  },
  {
    name: "a key sent with another username",
    caller: "invalid",
    headers: async (fx) =>
      authorization(
        `Key ${btoa(`${fx.subscriber.username}:${(await makeKey(fx.admin, "read-write")).key}`)}`,
      ),
  },
  {
    name: "a revoked key",
    caller: "invalid",
    headers: (fx) => keyOf(fx.admin, "read-write", { revoked: true }),
  },
  {
    // Deleting a user deletes its sessions and keys (docs/compat.md): what it held is refused.
    name: "a deleted administrator's token",
    caller: "invalid",
    headers: async () => authorization(`Bearer ${(await deletedAdministrator()).token}`),
  },
  {
    name: "a deleted administrator's key",
    caller: "invalid",
    headers: async () => authorization((await deletedAdministrator()).key),
  },
  {
    // A key and a token act with their user's role as the database has it now, not as when made.
    name: "a read-write key of an administrator made a subscriber",
    caller: { role: "subscriber", scope: "read-write", about: "another user" },
    headers: async () => authorization((await demotedAdministrator()).key),
  },
  {
    name: "a token of an administrator made a subscriber",
    caller: { role: "subscriber", about: "another user" },
    headers: async () => authorization((await demotedAdministrator()).token),
  },
  {
    name: "subscriber token about itself",
    caller: { role: "subscriber", about: "itself" },
    headers: (fx) => bearer(fx.subscriber),
  },
  {
    // A user id, hold or entry that does not exist: refused before existence, as anyone else's.
    name: "subscriber token about a user that does not exist",
    caller: { role: "subscriber", about: "nobody" },
    headers: (fx) => bearer(fx.subscriber),
  },
  {
    name: "subscriber token about another user",
    caller: { role: "subscriber", about: "another user" },
    headers: (fx) => bearer(fx.subscriber),
  },
  ...(["read", "write", "read-write"] as const).map(
    (scope): Kind => ({
      name: `subscriber ${scope} key about itself`,
      caller: { role: "subscriber", scope, about: "itself" },
      headers: (fx) => keyOf(fx.subscriber, scope),
    }),
  ),
  {
    name: "subscriber read-write key about another user",
    caller: { role: "subscriber", scope: "read-write", about: "another user" },
    headers: (fx) => keyOf(fx.subscriber, "read-write"),
  },
  {
    name: "administrator token",
    caller: { role: "administrator", about: "another user" },
    headers: (fx) => bearer(fx.admin),
  },
  ...(["read", "write", "read-write"] as const).map(
    (scope): Kind => ({
      name: `administrator ${scope} key`,
      caller: { role: "administrator", scope, about: "another user" },
      headers: (fx) => keyOf(fx.admin, scope),
    }),
  ),
];

// ---------------------------------------------------------------------------------------------
// What each route is sent, and where its handler checks for itself.

type Request = { path?: string; query?: Record<string, string | number>; body?: unknown };
type Outcome = "allowed" | "missing" | "invalid" | "forbidden" | "no session";
type Verified = Exclude<Caller, "missing" | "invalid">;

type Entry = {
  /** A valid request about `subject` (the user it reads or moves money for), fresh per case. */
  request: (fx: Fixture, subject: TestUser) => Request | Promise<Request>;
  /** The handler's own check, for what the declaration leaves to it. */
  handler?: (caller: Verified) => Outcome;
  /** An allowed request's status when it is not a success (a mailed link that is not a real one). */
  allowedStatus?: number;
  /** Vars the route needs to do something real (a mail transport). */
  vars?: Record<string, string>;
  /** An allowed case ends the session it was sent with: each case gets credentials of its own. */
  endsSession?: boolean;
};

const readsScope = (caller: Verified) =>
  caller.scope === undefined || caller.scope === "read" || caller.scope === "read-write";
/** The reader's rule: an administrator reads anyone; a subscriber only itself; a key needs read. */
const mayRead = (caller: Verified) =>
  readsScope(caller) && (caller.role === "administrator" || caller.about === "itself");

/** Handlers that find the user by the resource (a hold, an entry) or by the plugin's reference. */
const readsOwnOnly = (caller: Verified): Outcome => (mayRead(caller) ? "allowed" : "forbidden");

/** A user that does not exist, with no entries and no holds. */
const NOBODY = { id: 2_000_000_000, username: "nobody" } as TestUser;
const NO_SUCH_ID = 999_999_999;

/** Gives `subject` 100 in the fixture's wallet; the credit's transaction id. */
async function funded(fx: Fixture, subject: TestUser) {
  if (subject === NOBODY) return NO_SUCH_ID;
  const res = await credit(fx.maker, { user_id: subject.id, wallet_id: fx.wallet, amount: 100 });
  if (res.status !== 200) throw new Error(`credit failed: ${res.text}`);
  return res.body.data.transaction_id as number;
}
/**
 * Money for `subject` to spend in the route's wallet, credited once per route: 100 for each case,
 * each of which takes at most 10 (a hold).
 */
const stocks = new WeakMap<Fixture, Map<TestUser, Promise<unknown>>>();
function stocked(fx: Fixture, subject: TestUser) {
  if (subject === NOBODY) return;
  const stock = stocks.get(fx) ?? new Map<TestUser, Promise<unknown>>();
  stocks.set(fx, stock);
  if (!stock.has(subject)) {
    const amount = 100 * KINDS.length;
    stock.set(
      subject,
      credit(fx.maker, { user_id: subject.id, wallet_id: fx.wallet, amount }).then((res) => {
        if (res.status !== 200) throw new Error(`credit failed: ${res.text}`);
      }),
    );
  }
  return stock.get(subject);
}
/** `request` once the subject has money (to debit, hold, list). */
const withMoney =
  (request: Entry["request"]): Entry["request"] =>
  async (fx, subject) => {
    await stocked(fx, subject);
    return request(fx, subject);
  };
/** Places a hold of 10 on `subject`'s money; its id. */
async function held(fx: Fixture, subject: TestUser) {
  if (subject === NOBODY) return NO_SUCH_ID;
  await stocked(fx, subject);
  const res = await call("POST", "/holds", {
    auth: fx.maker.bearer,
    body: { user_id: subject.id, wallet_id: fx.wallet, amount: 10, request_id: unique("hold") },
  });
  if (res.status !== 200) throw new Error(`hold failed: ${res.text}`);
  return res.body.data.hold_id as number;
}
/** A batch crediting `subject` 5 and the fixture's administrator 1; its id. */
async function batched(fx: Fixture, subject: TestUser) {
  if (subject === NOBODY) return NO_SUCH_ID;
  const res = await call("POST", "/batches", {
    auth: fx.maker.bearer,
    body: batchOf(fx, subject, "credit"),
  });
  if (res.status !== 200) throw new Error(`batch failed: ${res.text}`);
  return res.body.data.batch_id as number;
}
const batchOf = (fx: Fixture, subject: TestUser, type: "credit" | "debit") => ({
  request_id: unique("batch"),
  operations: [
    { type, user_id: subject.id, wallet_id: fx.wallet, amount: "5" },
    { type: "credit", user_id: fx.admin.id, wallet_id: fx.wallet, amount: "1" },
  ],
});
/** A webhook on a local port nothing listens on: tests and resends fail fast, nothing leaves. */
async function hook(fx: Fixture) {
  const res = await call("POST", "/webhooks", {
    auth: fx.admin.bearer,
    body: { url: `http://127.0.0.1:9/${unique("h")}`, events: "transaction.created" },
  });
  if (res.status !== 201) throw new Error(`webhook failed: ${res.text}`);
  return res.body.data.id as number;
}
const newUser = () => {
  const username = unique("nu");
  return { username, user_email: `${username}@example.test`, user_password: "secret-123" };
};
const movement = (fx: Fixture, subject: TestUser) => ({
  user_id: subject.id,
  wallet_id: fx.wallet,
  amount: 1,
  request_id: unique("req"),
});
/** A wallet id the plugin accepts: letters only. */
const letters = () =>
  Array.from(crypto.getRandomValues(new Uint8Array(12)), (b) =>
    String.fromCharCode(97 + (b % 26)),
  ).join("");
const OUTBOX = { MAIL_TRANSPORT: "outbox" };

/** wallet/v1, by `METHOD /path`. */
const V1: Record<string, Entry> = {
  "POST /credits": { request: (fx, s) => ({ body: movement(fx, s) }) },
  "POST /debits": {
    request: withMoney((fx, s) => ({ body: movement(fx, s) })),
  },
  "POST /transfers": {
    request: async (fx, s) => {
      await stocked(fx, s);
      const { user_id, ...rest } = movement(fx, s);
      const to = s.id === fx.other.id ? fx.subscriber : fx.other;
      return { body: { ...rest, from_user_id: user_id, to_user_id: to.id } };
    },
  },
  "GET /user-wallet-balance": {
    request: (fx, s) => ({ query: { user_id: s.id, wallet_id: fx.wallet } }),
  },
  "GET /balances": { request: (_fx, s) => ({ query: { user_id: s.id } }) },
  "POST /holds": {
    request: withMoney((fx, s) => ({ body: movement(fx, s) })),
  },
  "GET /holds": { request: (_fx, s) => ({ query: { user_id: s.id } }) },
  "GET /holds/{id}": {
    // The hold names its user: the handler checks the caller against it.
    request: async (fx, s) => ({ path: `/holds/${await held(fx, s)}` }),
    handler: readsOwnOnly,
  },
  "POST /holds/{id}/capture": {
    request: async (fx, s) => ({
      path: `/holds/${await held(fx, s)}/capture`,
      body: { amount: 4 },
    }),
  },
  "POST /holds/{id}/void": {
    request: async (fx, s) => ({ path: `/holds/${await held(fx, s)}/void` }),
  },
  "GET /transactions": {
    request: (_fx, s) => ({ query: { user_id: s.id, security_code: 1234 } }),
  },
  "GET /statements": {
    request: (fx, s) => ({ query: { user_id: s.id, wallet_id: fx.wallet } }),
  },
  "GET /transactions/{id}": {
    // The entry names its user: the handler checks the caller against it.
    request: async (fx, s) => ({ path: `/transactions/${await funded(fx, s)}` }),
    handler: readsOwnOnly,
  },
  "POST /transactions/{id}/reverse": {
    request: async (fx, s) => ({
      path: `/transactions/${await funded(fx, s)}/reverse`,
      body: { request_id: unique("rev") },
    }),
  },
  "POST /batches": {
    request: withMoney((fx, s) => ({ body: batchOf(fx, s, "debit") })),
  },
  "GET /batches": { request: (_fx, s) => ({ query: { user_id: s.id } }) },
  "GET /batches/{id}": {
    request: async (fx, s) => ({ path: `/batches/${await batched(fx, s)}` }),
  },
  "POST /batches/{id}/reverse": {
    request: async (fx, s) => ({ path: `/batches/${await batched(fx, s)}/reverse` }),
  },
  "POST /users": { request: () => ({ body: newUser() }) },
  "POST /users/login": {
    request: (fx) => ({ body: { user_email: fx.subscriber.email, user_password: PASSWORD } }),
  },
  "POST /users/logout": {
    request: () => ({}),
    // Any signed-in caller; an API key has no session to end (400).
    handler: (caller) => (caller.scope ? "no session" : "allowed"),
    endsSession: true,
  },
  "POST /users/{user_id}/unlock": { request: (_fx, s) => ({ path: `/users/${s.id}/unlock` }) },
  "POST /users/{user_id}/sessions/revoke": {
    // The fixture's users keep their tokens: a user made for the case loses its sessions.
    request: async () => ({ path: `/users/${(await makeUser()).id}/sessions/revoke` }),
  },
  "POST /users/verify-email": {
    request: () => ({ body: { user_email: `${unique("v")}@example.test` } }),
    vars: OUTBOX,
  },
  "GET /users/verify-email": {
    // No link was mailed: the token is refused as the link it is not, never as a credential.
    request: () => ({ query: { token: "not-a-mailed-token" } }),
    allowedStatus: 400,
  },
  "POST /users/password-reset": {
    request: () => ({ body: { user_email: `${unique("r")}@example.test` } }),
    vars: OUTBOX,
  },
  "POST /users/password-reset/confirm": {
    request: () => ({ body: { token: "not-a-mailed-code", user_password: "secret-123" } }),
    allowedStatus: 400,
  },
  "POST /wallets": {
    request: () => ({
      body: {
        wallet_id: unique("w").toLowerCase().slice(0, 32),
        wallet_name: "Test Coin",
        wallet_symbol: "TC",
      },
    }),
  },
  "GET /wallets": { request: () => ({}) },
  "GET /wallets/{wallet_id}": { request: (fx) => ({ path: `/wallets/${fx.wallet}` }) },
  "GET /wallets/{wallet_id}/summary": {
    request: (fx, s) => ({ path: `/wallets/${fx.wallet}/summary`, query: { user_id: s.id } }),
  },
  "POST /api-keys": {
    // "write": a key mints keys only within its own scope, so a write-only key can do it too.
    request: () => ({ body: { name: "ci", scope: "write" } }),
  },
  "GET /api-keys": { request: () => ({}) },
  "DELETE /api-keys/{id}": {
    request: async (fx) => {
      const res = await call("POST", "/api-keys", {
        auth: fx.admin.bearer,
        body: { name: "to revoke", scope: "read" },
      });
      if (res.status !== 201) throw new Error(`key not created: ${res.text}`);
      return { path: `/api-keys/${res.body.data.id}` };
    },
  },
  "GET /events": { request: () => ({ query: { limit: 5 } }) },
  "POST /webhooks": {
    request: () => ({ body: { url: "https://hooks.example.com/m", events: "user.created" } }),
  },
  "GET /webhooks": { request: () => ({}) },
  "DELETE /webhooks/{id}": { request: async (fx) => ({ path: `/webhooks/${await hook(fx)}` }) },
  "POST /webhooks/{id}/test": {
    request: async (fx) => ({ path: `/webhooks/${await hook(fx)}/test` }),
  },
  "POST /webhooks/{id}/resend": {
    request: async (fx, s) => {
      await funded(fx, s);
      const events = await call("GET", "/events", { auth: fx.admin.bearer, query: { limit: 1 } });
      return {
        path: `/webhooks/${await hook(fx)}/resend`,
        body: { event_id: events.body.data[0].id },
      };
    },
  },
  "GET /webhooks/{id}/deliveries": {
    request: async (fx) => ({ path: `/webhooks/${await hook(fx)}/deliveries` }),
  },
  "GET /openapi.json": { request: () => ({}) },
};

/** The plugin's dialect under COMPAT_NAMESPACE, by `METHOD /path`. */
const PLUGIN: Record<string, Entry> = {
  "GET /credits": { request: withMoney(() => ({})) },
  "POST /credits": { request: (fx, s) => ({ body: movement(fx, s) }) },
  "GET /debits": {
    request: async (fx, s) => {
      await stocked(fx, s);
      await call("POST", "/debits", { auth: fx.maker.bearer, body: movement(fx, s) });
      return {};
    },
  },
  "POST /debits": {
    request: withMoney((fx, s) => ({ body: movement(fx, s) })),
  },
  "GET /transactions": {
    // Without public reads a subscriber's search is kept to its own entries (owner: the caller).
    request: withMoney((fx) => ({ query: { meta_key: "wallet_id", meta_value: fx.wallet } })),
  },
  "GET /user-wallet-balance": {
    // Declared without an owner: the handler checks the user the plugin's reference names.
    request: (fx, s) => ({ query: { user_id: s.id, wallet_id: fx.wallet } }),
    handler: readsOwnOnly,
  },
  "GET /user-wallet-balance/multi": {
    request: (fx, s) => ({ query: { user_id: s.id, wallet_id: fx.wallet } }),
    handler: readsOwnOnly,
  },
  "GET /wallet-summary": {
    // Declared without an owner: the verb checks the user the plugin's reference names.
    request: (fx, s) => ({ query: { user_id: s.id, wallet_id: fx.wallet } }),
    handler: readsOwnOnly,
  },
  "GET /users": {
    request: (_fx, s) => ({ query: { user_id: s.id } }),
    handler: readsOwnOnly,
  },
  "POST /users": { request: () => ({ body: newUser() }) },
  "POST /users/login": {
    request: (fx) => ({ body: { user_email: fx.subscriber.email, user_password: PASSWORD } }),
  },
  "DELETE /users/{user_id}": {
    // A user no entry names, made for the case: deleting it is real.
    request: async () => ({ path: `/users/${(await makeUser()).id}` }),
  },
  "GET /transfers": {
    request: async (fx, s) => {
      await stocked(fx, s);
      const { user_id, ...rest } = movement(fx, s);
      await call("POST", "/transfers", {
        auth: fx.maker.bearer,
        body: { ...rest, from_user_id: user_id, to_user_id: fx.admin.id },
      });
      return {};
    },
  },
  "POST /transfers": {
    request: async (fx, s) => {
      await stocked(fx, s);
      const to = s.id === fx.other.id ? fx.subscriber : fx.other;
      return {
        body: {
          transfer_from_user: s.id,
          transfer_to_user: to.id,
          wallet_id: fx.wallet,
          amount_to_transfer: 1,
          request_id: unique("req"),
        },
      };
    },
  },
  "GET /wallets": { request: () => ({}) },
  "GET /wallets/{wallet}": { request: (fx) => ({ path: `/wallets/${fx.wallet}` }) },
  "POST /wallets": {
    request: () => ({
      body: {
        wallet_name: "Test Wallet",
        wallet_id: letters(),
        wallet_symbol: "$",
        wallet_type: "fiat",
      },
    }),
  },
  "DELETE /wallets/{wallet}": {
    // A wallet no entry names, made for the case.
    request: async (fx) => ({ path: `/wallets/${await makeWallet(fx.admin)}` }),
  },
  "GET /verify-email-address": {
    request: () => ({
      query: { email_address: `${unique("v")}@example.test`, fire_email: "true" },
    }),
    vars: OUTBOX,
  },
};

// ---------------------------------------------------------------------------------------------
// The expected answer, from the declaration.

type Dialect = {
  name: string;
  prefix: string;
  routes: readonly RouteInfo[];
  entries: Record<string, Entry>;
  vars: Record<string, string>;
};
const DIALECTS: Dialect[] = [
  { name: "wallet/v1", prefix: "/wp-json/wallet/v1", routes: ROUTES, entries: V1, vars: {} },
  {
    name: "rimplenet/v1",
    prefix: `/wp-json/${GUARDED.COMPAT_NAMESPACE}/v1`,
    routes: COMPAT_ROUTES,
    entries: PLUGIN,
    vars: GUARDED,
  },
  {
    // The plugin's public reads: routes public by configuration take no credentials at all.
    name: "rimplenet/v1, public reads on",
    prefix: `/wp-json/${ON.COMPAT_NAMESPACE}/v1`,
    routes: COMPAT_ROUTES.filter((r) => r.publicWhen),
    entries: PLUGIN,
    vars: ON,
  },
];

const keyOfRoute = (r: RouteInfo) => `${r.method} ${r.path}`;
/** Whether a route's declared owner reads the user its request names (by user_id). */
const namesSubject = (r: RouteInfo) => r.owner?.({ user_id: "someone" }) !== undefined;

function expected(route: RouteInfo, entry: Entry, caller: Caller, vars: Sent): Outcome {
  const configured = { ...env, ...vars } as Parameters<NonNullable<RouteInfo["publicWhen"]>>[0];
  if (route.auth === "none" || route.publicWhen?.(configured)) return "allowed";
  if (caller === "missing" || caller === "invalid") return caller;
  if (route.auth === "admin") {
    const access = route.access ?? "write";
    const scoped =
      caller.scope === undefined || caller.scope === "read-write" || caller.scope === access;
    return caller.role === "administrator" && scoped ? "allowed" : "forbidden";
  }
  if (entry.handler) return entry.handler(caller);
  if (route.auth === "session") return "allowed";
  // `reader`: the owner it declares is the user a request names (each entry names its subject by
  // user_id, checked as the case runs), or none: the caller itself, so only a key's scope counts.
  if (!route.owner) throw new Error(`${keyOfRoute(route)}: a reader without owner needs a handler`);
  const names = namesSubject(route);
  return readsScope(caller) && (!names || mayRead(caller)) ? "allowed" : "forbidden";
}

// The dialects' refusal texts (contract section 2; the plugin's, docs/compat.md).
type Refusal = { status: number; message: string; error: unknown };
const CONTRACT: Record<"missing" | "invalid" | "forbidden", Refusal> = {
  missing: {
    status: 401,
    message: "Permission denied",
    error: { unauthorize: "No authorization provided" },
  },
  invalid: {
    status: 401,
    message: "Permission denied",
    error: { unauthorize: "Invalid credentials" },
  },
  forbidden: {
    status: 403,
    message: "Permission denied",
    error: { unauthorize: "Request is not authorized" },
  },
};
const PLUGIN_JWT = {
  ...CONTRACT,
  invalid: { status: 400, message: "Validation error", error: ["Invalid signature"] },
};
const pluginKey = (action: string) => ({
  missing: {
    status: 403,
    message: "Permission Denied",
    error: {
      authorization: "An authorization is required",
      recommendation: "Provide an authorization header",
    },
  },
  invalid: {
    status: 401,
    message: "Invalid Token",
    error: {
      credentials: "Authorization Denied",
      recommendation: {
        username: "Re-visit the specified username",
        password: "Confirm password matches",
      },
    },
  },
  forbidden: {
    status: 403,
    message: "Permission Denied",
    error: {
      permission: `Permission Denied for ${action}`,
      recommendation: "Set allowed actions withing the given permissions list",
    },
  },
});

/** The refusal family a route declares; a key route's action is the one name it adds. */
function refusalsOf(route: RouteInfo) {
  if (!route.refusals) return CONTRACT;
  if (route.refusals === jwtRouteRefusals) return PLUGIN_JWT;
  const words = JSON.stringify(route.refusals.forbidden().error);
  const action = /Permission Denied for (\w+)/.exec(words)?.[1];
  if (!action) throw new Error(`${keyOfRoute(route)}: refusals of no known family`);
  return pluginKey(action);
}

function expectRefused(res: Reply, route: RouteInfo, refusal: Refusal) {
  expect(res.status, res.text).toBe(refusal.status);
  expect(res.headers.get("content-type")).toBe("application/json; charset=UTF-8");
  // The plugin's JWT check answered in envelope B on every route it guarded.
  const envelope =
    route.envelope === "B" || route.refusals === jwtRouteRefusals
      ? { status: "failed", message: refusal.message, data: [], error: refusal.error }
      : { status: false, message: refusal.message, error: refusal.error };
  expect(res.body).toStrictEqual({ status_code: refusal.status, ...envelope });
}

/** Row counts, money and revocations: a refused request writes none of them. */
async function snapshot() {
  const revoked = await env.DB.prepare(
    `SELECT (SELECT count(*) FROM api_keys WHERE revoked_at_ms IS NOT NULL) AS keys,
       (SELECT count(*) FROM sessions WHERE revoked_at_ms IS NOT NULL) AS sessions`,
  ).first();
  return { ...(await tableCounts()), revoked };
}

/** The user a case's request is about: an administrator's, the subscriber's. */
function subjectOf(caller: Caller, fx: Fixture) {
  if (typeof caller !== "object" || caller.role === "administrator") return fx.subscriber;
  return { itself: fx.subscriber, "another user": fx.other, nobody: NOBODY }[caller.about];
}

const STATUS: Record<Outcome, string> = {
  allowed: "allowed",
  missing: "refused (no credentials)",
  invalid: "refused (invalid)",
  forbidden: "refused (forbidden)",
  "no session": "400 (a key has no session)",
};

// ---------------------------------------------------------------------------------------------
// The matrix.

/** The file's administrator, subscriber and other user. */
let people: Promise<Pick<Fixture, "admin" | "subscriber" | "other">> | undefined;
const peopleOnce = () =>
  (people ??= (async () => {
    const [admin, subscriber, other] = await Promise.all([makeAdmin(), makeUser(), makeUser()]);
    return { admin: admin!, subscriber: subscriber!, other: other! };
  })());

/** Each kind's credential, made once for the file's people: no case ends it but a logout. */
const credentials = new Map<Kind, Promise<Sent>>();
const credentialOf = (kind: Kind, fx: Fixture) => {
  if (!credentials.has(kind)) credentials.set(kind, Promise.resolve(kind.headers(fx)));
  return credentials.get(kind)!;
};

describe("the authorization matrix", () => {
  it("has an entry for every route of both dialects, and none for a route that is gone", () => {
    for (const { name, routes, entries } of DIALECTS.slice(0, 2)) {
      const declared = routes.map(keyOfRoute);
      expect(
        declared.filter((r) => !entries[r]),
        `${name}: routes without an entry`,
      ).toEqual([]);
      expect(
        Object.keys(entries).filter((r) => !declared.includes(r)),
        `${name}: entries without a route`,
      ).toEqual([]);
    }
  });

  for (const dialect of DIALECTS)
    for (const route of dialect.routes) {
      const entry = dialect.entries[keyOfRoute(route)];
      if (!entry) continue; // reported by the test above
      describe(`${dialect.name} ${keyOfRoute(route)}`, () => {
        let fx: Fixture;
        beforeAll(async () => {
          const [who, maker] = await Promise.all([peopleOnce(), makeAdmin()]);
          fx = { ...who, maker, wallet: await makeWallet(maker) };
        });
        const vars = { ...dialect.vars, ...entry.vars };
        for (const kind of KINDS) {
          let outcome: Outcome;
          try {
            outcome = expected(route, entry, kind.caller, vars);
          } catch (err) {
            it(`${route.method} ${route.path} × ${kind.name}`, () => {
              throw err;
            });
            continue;
          }
          const refusal = outcome === "allowed" || outcome === "no session" ? null : outcome;
          const answer = refusal ? refusalsOf(route)[refusal].status : STATUS[outcome];
          it(`${route.method} ${route.path} × ${kind.name} → ${answer}`, async () => {
            const subject = subjectOf(kind.caller, fx);
            const headers = await (entry.endsSession ? kind.headers(fx) : credentialOf(kind, fx));
            const req = await entry.request(fx, subject);
            if (namesSubject(route))
              expect(String(route.owner!({ ...req.query, ...(req.body as object) }))).toBe(
                String(subject.id),
              );
            const writes = route.method !== "GET";
            const before = writes && refusal ? await snapshot() : undefined;
            const res = await call(route.method, `${dialect.prefix}${req.path ?? route.path}`, {
              headers,
              query: req.query,
              body: req.body,
              vars,
            });
            if (refusal) {
              expectRefused(res, route, refusalsOf(route)[refusal]);
              if (before) expect(await snapshot()).toEqual(before);
            } else if (outcome === "no session") {
              expect(res.status, res.text).toBe(400);
              expect(res.body).toMatchObject({ status: "failed", message: "Validation error" });
            } else {
              expect([401, 403], res.text).not.toContain(res.status);
              if (entry.allowedStatus) expect(res.status, res.text).toBe(entry.allowedStatus);
              else expect(res.status, res.text).toBeLessThan(300);
            }
          });
        }
      });
    }
});

describe("the plain-permalink form", () => {
  it("is guarded as the route it names", async () => {
    const admin = await makeAdmin();
    const subscriber = await makeUser();
    const wallet = await makeWallet(admin);
    const path = "/?rest_route=/wallet/v1/credits";
    const body = () => ({
      user_id: subscriber.id,
      wallet_id: wallet,
      amount: "2.50",
      request_id: unique("req"),
    });
    const before = await snapshot();
    expectRefusal(
      await call("POST", path, { body: body() }),
      "A",
      401,
      CONTRACT.missing.error as Sent,
    );
    expectRefusal(
      await call("POST", path, { auth: subscriber.bearer, body: body() }),
      "A",
      403,
      CONTRACT.forbidden.error as Sent,
    );
    expect(await snapshot()).toEqual(before);
    const res = await call("POST", path, {
      auth: (await makeKey(admin, "write")).header,
      body: body(),
    });
    expect(res.status, res.text).toBe(200);
  });
});
