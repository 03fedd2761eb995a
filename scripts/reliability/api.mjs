// Client-side helpers over HTTP: sign in, make users, wallets, credits and keys, read balances and
// every page of a user's transactions, and mint HS256 tokens with the server's secret.
import { createHmac, randomBytes } from "node:crypto";
import { ADMIN } from "../lib/server.ts";
import { registerPassword, send, unique } from "./harness.mjs";

export const ISSUER = "wallet-ledger"; // wrangler.toml [vars] JWT_ISSUER

/** The context every section receives; `server` changes after the crash restart. */
export async function connect(server, config) {
  const login = await send(server.api, "POST", "/users/login", {
    json: { user_email: ADMIN.email, user_password: ADMIN.password },
  });
  if (login.status !== 200) throw new Error(`admin login failed: ${login.text}`);
  registerPassword(ADMIN.password);
  return {
    server,
    config,
    api: server.api,
    base: server.base,
    stateDir: server.stateDir,
    jwtSecret: server.jwtSecret,
    admin: {
      id: login.json.data.user_id,
      username: ADMIN.username,
      email: ADMIN.email,
      token: login.json.data.access_token,
    },
    adminAuth: `Bearer ${login.json.data.access_token}`,
  };
}

function expectStatus(res, status, what) {
  if (res.status !== status)
    throw new Error(`${what}: expected ${status}, got ${res.status} ${res.text.slice(0, 300)}`);
  return res.json.data;
}

/** A subscriber created through POST /users, signed in. */
export async function createUser(ctx, prefix = "rel") {
  const username = unique(prefix).slice(0, 40);
  const password = `pw-${randomBytes(12).toString("hex")}`;
  registerPassword(password);
  const email = `${username}@example.test`;
  const created = await send(ctx.api, "POST", "/users", {
    auth: ctx.adminAuth,
    json: { username, user_email: email, user_password: password },
  });
  const { id } = expectStatus(created, 201, "create user");
  const login = await send(ctx.api, "POST", "/users/login", {
    json: { user_email: email, user_password: password },
  });
  const { access_token } = expectStatus(login, 200, "user login");
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

export async function createWallet(ctx, { decimals = 2, symbol = "$", prefix = "rw" } = {}) {
  const id = unique(prefix)
    .toLowerCase()
    .replace(/[^a-z0-9_]/g, "_")
    .slice(0, 32);
  const res = await send(ctx.api, "POST", "/wallets", {
    auth: ctx.adminAuth,
    json: {
      wallet_id: id,
      wallet_name: `Reliability ${id}`,
      wallet_symbol: symbol,
      wallet_decimal: decimals,
    },
  });
  expectStatus(res, 200, "create wallet");
  return id;
}

export async function credit(ctx, userId, walletId, amount, requestId = unique("c-")) {
  const res = await send(ctx.api, "POST", "/credits", {
    auth: ctx.adminAuth,
    json: { user_id: userId, wallet_id: walletId, amount, request_id: requestId },
  });
  return expectStatus(res, 200, "credit").transaction_id;
}

/** Creates a key through POST /api-keys (the one response allowed to show it). */
export async function createKey(ctx, { scope, username, auth = ctx.adminAuth }) {
  const res = await send(ctx.api, "POST", "/api-keys", {
    auth,
    json: { name: unique("key"), scope, ...(username ? { username } : {}) },
    allowKey: (body) => body?.data?.key,
  });
  const data = expectStatus(res, 201, "create key");
  const owner = username ?? ctx.admin.username;
  return {
    id: data.id,
    key: data.key,
    scope,
    username: owner,
    header: `Key ${Buffer.from(`${owner}:${data.key}`).toString("base64")}`,
  };
}

export async function revokeKey(ctx, id) {
  expectStatus(
    await send(ctx.api, "DELETE", `/api-keys/${id}`, { auth: ctx.adminAuth }),
    200,
    "revoke key",
  );
}

/** One wallet's balance as the API shows it (a number of major units). */
export async function balance(ctx, userId, walletId, auth = ctx.adminAuth) {
  const res = await send(ctx.api, "GET", "/user-wallet-balance", {
    auth,
    query: { user_id: userId, wallet_id: walletId },
  });
  return expectStatus(res, 200, "balance")[walletId];
}

/** Every transaction of a user, page by page (per_page=100), with X-WP-Total; bounded in pages. */
export async function allTransactions(ctx, userId, { maxPages = 200 } = {}) {
  const rows = [];
  let total;
  for (let page = 1; page <= maxPages; page++) {
    const res = await send(ctx.api, "GET", "/transactions", {
      auth: ctx.adminAuth,
      query: { user_id: userId, security_code: 0, per_page: 100, page },
    });
    const data = expectStatus(res, 200, `transactions page ${page}`);
    total = Number(res.headers.get("x-wp-total"));
    rows.push(...data);
    if (data.length < 100) break;
  }
  return { rows, total };
}

// ---------------------------------------------------------------------------------------------
// Tokens, minted here with node's HMAC-SHA256 (the server's secret comes from startServer).

const b64url = (value) =>
  Buffer.from(typeof value === "string" ? value : JSON.stringify(value)).toString("base64url");

export function mintToken({
  secret,
  user,
  issuer = ISSUER,
  iat = Math.floor(Date.now() / 1000),
  lifetimeS = 3600,
  alg = "HS256",
  claims = {},
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
export function tamperSignature(token) {
  const [head, payload, sig] = token.split(".");
  return `${head}.${payload}.${sig[0] === "A" ? "B" : "A"}${sig.slice(1)}`;
}

/** A token's payload rewritten (e.g. a subscriber made administrator) under its old signature. */
export function tamperPayload(token, change) {
  const [head, payload, sig] = token.split(".");
  const claims = JSON.parse(Buffer.from(payload, "base64url").toString());
  return `${head}.${b64url(change(claims))}.${sig}`;
}
