// Client-side helpers over HTTP: sign in, make users, wallets, credits and keys, read balances and
// every page of a user's transactions, and mint HS256 tokens with the server's secret.
import { createHmac, randomBytes } from "node:crypto";
import * as v from "valibot";
import { ADMIN } from "../../scripts/lib/server";
import { type Answer, http, registerPassword, send, unique } from "./harness";

export const ISSUER = "wallet-ledger"; // wrangler.toml [vars] JWT_ISSUER

/** What a section needs of a running server. */
export type Endpoint = { api: string; base: string; stateDir: string; jwtSecret: string };

export type Admin = { id: number; username: string; email: string; token: string };

/** The context every check receives: the server, its wrangler config, the administrator. */
export type Ctx = Endpoint & { config: string; admin: Admin; adminAuth: string };

export type User = {
  id: number;
  username: string;
  email: string;
  password: string;
  token: string;
  bearer: string;
  role: "subscriber";
};

export type Key = { id: number; key: string; scope: string; username: string; header: string };

const Id = v.pipe(v.number(), v.safeInteger());
const Envelope = <T extends v.GenericSchema>(data: T) => v.object({ data });
const LoginData = Envelope(v.object({ user_id: Id, access_token: v.string() }));

/** `res.data` checked against `schema`, or an error naming the request when the status is not `status`. */
function expectStatus<T extends v.GenericSchema>(
  res: Answer,
  status: number,
  what: string,
  schema: T,
): v.InferOutput<T> {
  if (res.status !== status)
    throw new Error(`${what}: expected ${status}, got ${res.status} ${res.text.slice(0, 300)}`);
  return v.parse(Envelope(schema), res.json).data;
}

/** Signs in as the seeded administrator on `server`. */
export async function connect(server: Endpoint, config: string): Promise<Ctx> {
  const login = await send(server.api, "POST", "/users/login", {
    retryTransport: true,
    json: { user_email: ADMIN.email, user_password: ADMIN.password },
  });
  if (login.status !== 200) throw new Error(`admin login failed: ${login.text}`);
  registerPassword(ADMIN.password);
  const { data } = v.parse(LoginData, login.json);
  return {
    api: server.api,
    base: server.base,
    stateDir: server.stateDir,
    jwtSecret: server.jwtSecret,
    config,
    admin: {
      id: data.user_id,
      username: ADMIN.username,
      email: ADMIN.email,
      token: data.access_token,
    },
    adminAuth: `Bearer ${data.access_token}`,
  };
}

/** Signs in through POST /users/login (a new API session); the access token. */
export async function login(ctx: Ctx, email: string, password: string) {
  const res = await send(ctx.api, "POST", "/users/login", {
    json: { user_email: email, user_password: password },
  });
  return expectStatus(res, 200, "login", v.object({ access_token: v.string() })).access_token;
}

/** Signs out through POST /users/logout: the token's session ends. */
export async function logout(ctx: Ctx, token: string) {
  const res = await send(ctx.api, "POST", "/users/logout", { auth: `Bearer ${token}` });
  expectStatus(res, 200, "logout", v.unknown());
}

/** Signs in to the operator console over HTTP, as its form does; the cookie's value (a console token). */
export async function consoleSignIn(ctx: Ctx, email: string, password: string) {
  const res = await http(`${ctx.base}/wallet-admin/sign-in`, {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ email, password }).toString(),
  });
  const cookie = /wallet_admin=([^;]+)/.exec(res.headers.get("set-cookie") ?? "")?.[1];
  if (res.status !== 303 || !cookie)
    throw new Error(`console sign-in: expected 303 with a cookie, got ${res.status}`);
  return cookie;
}

/** The session claims of a token (`sid`, `aud`), to mint tokens that differ from a live one in one way. */
export function sessionClaims(token: string) {
  const claims = JSON.parse(Buffer.from(token.split(".")[1] ?? "", "base64url").toString());
  return { sid: String(claims.sid), aud: String(claims.aud) };
}

/** A subscriber created through POST /users, signed in. */
export async function createUser(ctx: Ctx, prefix = "rel"): Promise<User> {
  const username = unique(prefix).slice(0, 40);
  const password = `pw-${randomBytes(12).toString("hex")}`;
  registerPassword(password);
  const email = `${username}@example.test`;
  const created = await send(ctx.api, "POST", "/users", {
    retryTransport: true,
    auth: ctx.adminAuth,
    json: { username, user_email: email, user_password: password },
  });
  const { id } = expectStatus(created, 201, "create user", v.object({ id: Id }));
  const login = await send(ctx.api, "POST", "/users/login", {
    retryTransport: true,
    json: { user_email: email, user_password: password },
  });
  const { access_token } = expectStatus(
    login,
    200,
    "user login",
    v.object({ access_token: v.string() }),
  );
  return {
    id,
    username,
    email,
    password,
    token: access_token,
    bearer: `Bearer ${access_token}`,
    role: "subscriber",
  };
}

export async function createWallet(ctx: Ctx, { decimals = 2, symbol = "$", prefix = "rw" } = {}) {
  const id = unique(prefix)
    .toLowerCase()
    .replace(/[^a-z0-9_]/g, "_")
    .slice(0, 32);
  const res = await send(ctx.api, "POST", "/wallets", {
    retryTransport: true,
    auth: ctx.adminAuth,
    json: {
      wallet_id: id,
      wallet_name: `Reliability ${id}`,
      wallet_symbol: symbol,
      wallet_decimal: decimals,
    },
  });
  expectStatus(res, 200, "create wallet", v.unknown());
  return id;
}

export async function credit(
  ctx: Ctx,
  userId: number,
  walletId: string,
  amount: string,
  requestId = unique("c-"),
) {
  const res = await send(ctx.api, "POST", "/credits", {
    auth: ctx.adminAuth,
    json: { user_id: userId, wallet_id: walletId, amount, request_id: requestId },
  });
  return expectStatus(res, 200, "credit", v.object({ transaction_id: Id })).transaction_id;
}

/** The key a POST /api-keys answer shows (the one response allowed to show it). */
export const shownKey = (json: unknown) =>
  v.is(Envelope(v.object({ key: v.string() })), json) ? json.data.key : undefined;

/** Creates a key through POST /api-keys. */
export async function createKey(
  ctx: Ctx,
  { scope, username, auth = ctx.adminAuth }: { scope: string; username?: string; auth?: string },
): Promise<Key> {
  const res = await send(ctx.api, "POST", "/api-keys", {
    auth,
    json: { name: unique("key"), scope, ...(username ? { username } : {}) },
    allowKey: shownKey,
  });
  const data = expectStatus(res, 201, "create key", v.object({ id: Id, key: v.string() }));
  const owner = username ?? ctx.admin.username;
  return {
    id: data.id,
    key: data.key,
    scope,
    username: owner,
    header: `Key ${Buffer.from(`${owner}:${data.key}`).toString("base64")}`,
  };
}

export async function revokeKey(ctx: Ctx, id: number) {
  const res = await send(ctx.api, "DELETE", `/api-keys/${id}`, { auth: ctx.adminAuth });
  expectStatus(res, 200, "revoke key", v.unknown());
}

/** One wallet's balance as the API shows it (a number of major units). */
export async function balance(ctx: Ctx, userId: number, walletId: string, auth = ctx.adminAuth) {
  const res = await send(ctx.api, "GET", "/user-wallet-balance", {
    auth,
    query: { user_id: userId, wallet_id: walletId },
  });
  return expectStatus(res, 200, "balance", v.record(v.string(), v.number()))[walletId];
}

const Entry = v.looseObject({ ID: Id, amount: v.union([v.string(), v.number()]) });
export type Entry = v.InferOutput<typeof Entry>;

/** Every transaction of a user, page by page (per_page=100), with X-WP-Total; bounded in pages. */
export async function allTransactions(ctx: Ctx, userId: number, { maxPages = 200 } = {}) {
  const rows: Entry[] = [];
  let total = Number.NaN;
  for (let page = 1; page <= maxPages; page++) {
    const res = await send(ctx.api, "GET", "/transactions", {
      auth: ctx.adminAuth,
      query: { user_id: userId, security_code: 0, per_page: 100, page },
    });
    const data = expectStatus(res, 200, `transactions page ${page}`, v.array(Entry));
    total = Number(res.headers.get("x-wp-total"));
    rows.push(...data);
    if (data.length < 100) break;
  }
  return { rows, total };
}

// ---------------------------------------------------------------------------------------------
// Tokens, minted here with node's HMAC-SHA256 (the server's secret comes from startServer).

export type Claims = Record<string, unknown> & { user: Record<string, unknown>; exp: number };

const b64url = (value: unknown) =>
  Buffer.from(typeof value === "string" ? value : JSON.stringify(value)).toString("base64url");

export type TokenUser = { id: number; username: string; role: string };

export function mintToken({
  secret,
  user,
  issuer = ISSUER,
  iat = Math.floor(Date.now() / 1000),
  lifetimeS = 3600,
  alg = "HS256",
  claims = {},
}: {
  secret: string;
  user: TokenUser;
  issuer?: string;
  iat?: number;
  lifetimeS?: number;
  alg?: string;
  claims?: Record<string, unknown>;
}) {
  const head = b64url({ alg, typ: "JWT" });
  const payload = b64url({
    iss: issuer,
    iat,
    exp: iat + lifetimeS,
    user: { id: user.id, username: user.username, roles: [user.role] },
    ...claims,
  });
  if (alg === "none") return `${head}.${payload}.`;
  const sig = createHmac("sha256", secret).update(`${head}.${payload}`).digest("base64url");
  return `${head}.${payload}.${sig}`;
}

/** The same token with one signature character changed. */
export function tamperSignature(token: string) {
  const [head, payload, sig = ""] = token.split(".");
  return `${head}.${payload}.${sig[0] === "A" ? "B" : "A"}${sig.slice(1)}`;
}

/** A token's payload rewritten (e.g. a subscriber made administrator) under its old signature. */
export function tamperPayload(token: string, change: (claims: Claims) => Claims) {
  const [head, payload = "", sig] = token.split(".");
  const claims: Claims = JSON.parse(Buffer.from(payload, "base64url").toString());
  return `${head}.${b64url(change(claims))}.${sig}`;
}
