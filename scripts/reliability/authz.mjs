// 3. Authorization over HTTP for every route and every kind of credential: missing, malformed,
// expired, tampered, foreign-secret, unsigned, unknown, revoked and mismatched; keys with the wrong
// scope; subscribers reaching for other users. Refusals must write nothing; the right credentials
// must get in (so the refusals are about credentials, not about a broken request).
import { randomBytes } from "node:crypto";
import {
  createKey,
  createUser,
  createWallet,
  credit,
  mintToken,
  revokeKey,
  tamperPayload,
  tamperSignature,
} from "./api.mjs";
import { check, figures, http, leaks, note, send, startSection, unique } from "./harness.mjs";
import { tableCounts } from "./ledger.mjs";

const NO_AUTH = { unauthorize: "No authorization provided" };
const INVALID = { unauthorize: "Invalid credentials" };
const FORBIDDEN = { unauthorize: "Request is not authorized" };
const NO_SUCH_USER = 2_000_000_000;
const b64 = (text) => Buffer.from(text).toString("base64");

function refusal(envelope, status, error) {
  return envelope === "A"
    ? { status_code: status, status: false, message: "Permission denied", error }
    : { status_code: status, status: "failed", message: "Permission denied", data: [], error };
}

export async function runAuthz(ctx) {
  startSection("authz", "3. Authorization over HTTP");
  const leaksBefore = leaks.length;
  const S = await createUser(ctx, "azs");
  const O = await createUser(ctx, "azo");
  const W = await createWallet(ctx, { prefix: "aw" });
  const sTxn = await credit(ctx, S.id, W, "100.00");
  const oTxn = await credit(ctx, O.id, W, "100.00");
  const [adminRW, adminRead, adminWrite, subRW, subRead, revoked, spare] = await Promise.all([
    createKey(ctx, { scope: "read-write" }),
    createKey(ctx, { scope: "read" }),
    createKey(ctx, { scope: "write" }),
    createKey(ctx, { scope: "read-write", username: S.username }),
    createKey(ctx, { scope: "read", username: S.username }),
    createKey(ctx, { scope: "read-write" }),
    createKey(ctx, { scope: "read-write" }),
  ]);
  await revokeKey(ctx, revoked.id);
  const admin = { id: ctx.admin.id, username: ctx.admin.username, role: "administrator" };
  const now = Math.floor(Date.now() / 1000);

  // Each route with a request that is valid for an administrator; `positive` asks for one that
  // succeeds once more (fresh request ids, a fresh entry to reverse, a fresh key to revoke).
  const routes = [
    {
      id: "POST /credits",
      method: "POST",
      access: "admin-write",
      envelope: "A",
      req: () => ({
        path: "/credits",
        json: { user_id: S.id, wallet_id: W, amount: "1.00", request_id: unique("az-") },
      }),
    },
    {
      id: "POST /debits",
      method: "POST",
      access: "admin-write",
      envelope: "A",
      req: () => ({
        path: "/debits",
        json: { user_id: S.id, wallet_id: W, amount: "0.01", request_id: unique("az-") },
      }),
    },
    {
      id: "POST /transfers",
      method: "POST",
      access: "admin-write",
      envelope: "A",
      req: () => ({
        path: "/transfers",
        json: {
          from_user_id: S.id,
          to_user_id: O.id,
          wallet_id: W,
          amount: "0.01",
          request_id: unique("az-"),
        },
      }),
    },
    {
      id: "POST /transactions/{id}/reverse",
      method: "POST",
      access: "admin-write",
      envelope: "A",
      req: async (positive) => ({
        path: `/transactions/${positive ? await credit(ctx, S.id, W, "0.05") : sTxn}/reverse`,
        json: { request_id: unique("azr-") },
      }),
    },
    {
      id: "POST /users",
      method: "POST",
      access: "admin-write",
      envelope: "B",
      req: () => {
        const name = unique("azu").slice(0, 40);
        return {
          path: "/users",
          json: {
            username: name,
            user_email: `${name}@example.test`,
            user_password: "authz-password",
          },
        };
      },
    },
    {
      id: "POST /wallets",
      method: "POST",
      access: "admin-write",
      envelope: "A",
      req: () => ({
        path: "/wallets",
        json: {
          wallet_id: unique("az").toLowerCase().slice(0, 32),
          wallet_name: "Authz",
          wallet_symbol: "$",
        },
      }),
    },
    // scope "write": a key may mint keys only within its own scope, and the write-only key is among the allowed credentials.
    {
      id: "POST /api-keys",
      method: "POST",
      access: "admin-write",
      envelope: "A",
      allowKey: true,
      req: () => ({ path: "/api-keys", json: { name: unique("azk"), scope: "write" } }),
    },
    {
      id: "DELETE /api-keys/{id}",
      method: "DELETE",
      access: "admin-write",
      envelope: "A",
      req: async (positive) => ({
        path: `/api-keys/${positive ? (await createKey(ctx, { scope: "read" })).id : spare.id}`,
      }),
    },
    {
      id: "GET /wallets",
      method: "GET",
      access: "admin-read",
      envelope: "A",
      req: () => ({ path: "/wallets" }),
    },
    {
      id: "GET /wallets/{wallet_id}",
      method: "GET",
      access: "admin-read",
      envelope: "A",
      req: () => ({ path: `/wallets/${W}` }),
    },
    {
      id: "GET /api-keys",
      method: "GET",
      access: "admin-read",
      envelope: "A",
      req: () => ({ path: "/api-keys" }),
    },
    {
      id: "GET /user-wallet-balance",
      method: "GET",
      access: "reader",
      envelope: "A",
      req: () => ({ path: "/user-wallet-balance", query: { user_id: S.id, wallet_id: W } }),
    },
    {
      id: "GET /transactions",
      method: "GET",
      access: "reader",
      envelope: "A",
      req: () => ({ path: "/transactions", query: { user_id: S.id, security_code: 0 } }),
    },
    {
      id: "GET /transactions/{id}",
      method: "GET",
      access: "reader",
      envelope: "A",
      req: () => ({ path: `/transactions/${sTxn}` }),
    },
  ];

  const missing = [
    ["no Authorization header", undefined],
    ["an empty Authorization header", ""],
    ["a blank Authorization header", "   "],
  ];
  const invalid = [
    ['"Bearer" without a token', "Bearer"],
    ["an unknown scheme", "Foo bar"],
    ["a two-part token", "Bearer a.b"],
    ["garbage after Key", "Key %%%not*base64%%%"],
    ["base64 without a colon after Key", `Key ${b64("justoneword")}`],
    ["a 10 KB header", `Bearer ${"a".repeat(10 * 1024)}`],
    [
      "an expired token",
      `Bearer ${mintToken({ secret: ctx.jwtSecret, user: admin, iat: now - 7200 })}`,
    ],
    [
      "a token issued in the future and expired",
      `Bearer ${mintToken({ secret: ctx.jwtSecret, user: admin, iat: now + 7200, lifetimeS: -3600 })}`,
    ],
    ["a token with a tampered signature", `Bearer ${tamperSignature(ctx.admin.token)}`],
    [
      "a subscriber's token rewritten to administrator",
      `Bearer ${tamperPayload(S.token, (c) => ({ ...c, user: { ...c.user, roles: ["administrator"] } }))}`,
    ],
    [
      "the administrator's token rewritten to another user id",
      `Bearer ${tamperPayload(ctx.admin.token, (c) => ({ ...c, user: { ...c.user, id: S.id } }))}`,
    ],
    [
      "the administrator's token with its expiry pushed out",
      `Bearer ${tamperPayload(ctx.admin.token, (c) => ({ ...c, exp: c.exp + 10 ** 7 }))}`,
    ],
    [
      "a token signed with another secret",
      `Bearer ${mintToken({ secret: randomBytes(32).toString("hex"), user: admin })}`,
    ],
    [
      "a token without an expiry",
      `Bearer ${mintToken({ secret: ctx.jwtSecret, user: admin, claims: { exp: undefined } })}`,
    ],
    [
      "a token from another issuer",
      `Bearer ${mintToken({ secret: ctx.jwtSecret, user: admin, issuer: "someone-else" })}`,
    ],
    [
      'an unsigned token ("alg": "none")',
      `Bearer ${mintToken({ secret: ctx.jwtSecret, user: admin, alg: "none" })}`,
    ],
    [
      'a token whose header says "HS512"',
      `Bearer ${mintToken({ secret: ctx.jwtSecret, user: admin, alg: "HS512" })}`,
    ],
    ["an unknown API key", `Key ${b64(`${admin.username}:wk_${randomBytes(32).toString("hex")}`)}`],
    ["a revoked API key", revoked.header],
    [
      "an administrator's key sent with the subscriber's username",
      `Key ${b64(`${S.username}:${adminRW.key}`)}`,
    ],
    [
      "an administrator's key after Basic with another user's username",
      `Basic ${b64(`${O.username}:${adminRW.key}`)}`,
    ],
    [
      "a subscriber's key sent with the administrator's username",
      `Key ${b64(`${admin.username}:${subRW.key}`)}`,
    ],
    [
      "a key with its last character cut",
      `Key ${b64(`${admin.username}:${adminRW.key.slice(0, -1)}`)}`,
    ],
    ["a key in upper case", `Key ${b64(`${admin.username}:${adminRW.key.toUpperCase()}`)}`],
    ["a key for a user that does not exist", `Key ${b64(`nobody-at-all:${adminRW.key}`)}`],
  ];

  let cases = 0;
  const refusals = [];
  const kinds = new Set();
  async function call(route, auth, { positive = false, change } = {}) {
    let r = await route.req(positive);
    if (change) r = change(r);
    cases++;
    return send(ctx.api, route.method, r.path, {
      auth,
      json: r.json,
      query: r.query,
      allowKey: route.allowKey && positive ? (b) => b?.data?.key : undefined,
    });
  }
  async function expectRefused(route, label, auth, status, error, change) {
    const res = await call(route, auth, { change });
    const want = refusal(route.envelope, status, error);
    refusals.push(route.id);
    kinds.add(label);
    check(
      `${route.id} refuses ${label} with ${status}`,
      res.status === status && JSON.stringify(res.json) === JSON.stringify(want),
      `${res.status} ${res.text.slice(0, 300)}`,
    );
  }
  async function expectAllowed(route, label, auth, change) {
    const res = await call(route, auth, { positive: true, change });
    kinds.add(label);
    const b = res.json ?? {};
    const keys = Object.keys(b).sort().join(",");
    const shape =
      route.envelope === "A"
        ? keys === "data,message,status,status_code"
        : keys === "data,error,message,status,status_code";
    check(
      `${route.id} lets in ${label}`,
      res.status < 300 && b.status === true && b.status_code === res.status && shape,
      `${res.status} ${res.text.slice(0, 300)}`,
    );
  }

  // Refusals first, all of them between two snapshots of the tables.
  const before = await tableCounts(ctx.stateDir);
  const aboutOther = (r) => ({ ...r, query: { ...r.query, user_id: O.id } });
  const aboutNobody = (r) => ({ ...r, query: { ...r.query, user_id: NO_SUCH_USER } });
  for (const route of routes) {
    const jobs = [];
    for (const [label, auth] of missing) jobs.push(expectRefused(route, label, auth, 401, NO_AUTH));
    for (const [label, auth] of invalid) jobs.push(expectRefused(route, label, auth, 401, INVALID));
    if (route.access === "admin-write")
      jobs.push(
        expectRefused(route, "an administrator's read-only key", adminRead.header, 403, FORBIDDEN),
      );
    else
      jobs.push(
        expectRefused(
          route,
          "an administrator's write-only key",
          adminWrite.header,
          403,
          FORBIDDEN,
        ),
      );
    if (route.access === "reader") {
      if (route.id === "GET /transactions/{id}") {
        const other = (r) => ({ ...r, path: `/transactions/${oTxn}` });
        const nothing = (r) => ({ ...r, path: "/transactions/999999999" });
        jobs.push(
          expectRefused(
            route,
            "a subscriber reading another user's entry",
            S.bearer,
            403,
            FORBIDDEN,
            other,
          ),
        );
        jobs.push(
          expectRefused(
            route,
            "a subscriber reading an entry that does not exist",
            S.bearer,
            403,
            FORBIDDEN,
            nothing,
          ),
        );
        jobs.push(
          expectRefused(
            route,
            "a subscriber's read key reading another user's entry",
            subRead.header,
            403,
            FORBIDDEN,
            other,
          ),
        );
      } else {
        jobs.push(
          expectRefused(
            route,
            "a subscriber asking about another user",
            S.bearer,
            403,
            FORBIDDEN,
            aboutOther,
          ),
        );
        jobs.push(
          expectRefused(
            route,
            "a subscriber asking about a user that does not exist",
            S.bearer,
            403,
            FORBIDDEN,
            aboutNobody,
          ),
        );
        jobs.push(
          expectRefused(
            route,
            "a subscriber's read key asking about another user",
            subRead.header,
            403,
            FORBIDDEN,
            aboutOther,
          ),
        );
        jobs.push(
          expectRefused(
            route,
            "a subscriber asking about another user as 0<id>",
            S.bearer,
            403,
            FORBIDDEN,
            (r) => ({ ...r, query: { ...r.query, user_id: `0${O.id}` } }),
          ),
        );
      }
    } else {
      jobs.push(expectRefused(route, "a subscriber's token", S.bearer, 403, FORBIDDEN));
      jobs.push(
        expectRefused(route, "a subscriber's read-write key", subRW.header, 403, FORBIDDEN),
      );
    }
    await Promise.all(jobs);
  }
  const after = await tableCounts(ctx.stateDir);
  check(
    `${refusals.length} refused requests wrote nothing (users, wallets, entries, balances, keys, revocations unchanged)`,
    JSON.stringify(before) === JSON.stringify(after),
    `before ${JSON.stringify(before)}\nafter  ${JSON.stringify(after)}`,
  );

  // The right credentials get in: the refusals above were about the credentials alone.
  const minted = `Bearer ${mintToken({ secret: ctx.jwtSecret, user: admin })}`;
  for (const route of routes) {
    await expectAllowed(route, "the administrator's access token", ctx.adminAuth);
    await expectAllowed(
      route,
      "a token minted here with the server's secret (control for the forged ones)",
      minted,
    );
    await expectAllowed(route, "an administrator's read-write key after Key", adminRW.header);
    await expectAllowed(
      route,
      "an administrator's read-write key after Basic",
      `Basic ${b64(`${admin.username}:${adminRW.key}`)}`,
    );
    await expectAllowed(
      route,
      "an administrator's read-write key after Bearer",
      `Bearer ${b64(`${admin.username}:${adminRW.key}`)}`,
    );
    if (route.access === "admin-write")
      await expectAllowed(route, "an administrator's write-only key", adminWrite.header);
    else await expectAllowed(route, "an administrator's read-only key", adminRead.header);
    if (route.access === "reader") {
      await expectAllowed(route, "a subscriber about itself", S.bearer);
      await expectAllowed(route, "a subscriber's read key about itself", subRead.header);
      if (route.id !== "GET /transactions/{id}") {
        await expectAllowed(route, "a subscriber omitting user_id (itself)", S.bearer, (r) => ({
          ...r,
          query: { ...r.query, user_id: undefined },
        }));
        await expectAllowed(route, "a subscriber about itself as 0<own id>", S.bearer, (r) => ({
          ...r,
          query: { ...r.query, user_id: `0${S.id}` },
        }));
      }
    }
  }

  // Public routes: discovery and login. Everything else the index lists needs credentials
  // (OpenAPI may be either: the contract allows it public; this service keeps it behind credentials).
  const publicRoutes = [
    ["GET /wp-json/", () => http(`${ctx.base}/wp-json/`)],
    ["GET /wp-json/wallet/v1", () => http(`${ctx.base}/wp-json/wallet/v1`)],
    [
      "POST /users/login",
      () =>
        send(ctx.api, "POST", "/users/login", {
          json: { user_email: S.email, user_password: S.password },
        }),
    ],
    [
      "POST /users/login with a garbage Authorization header",
      () =>
        send(ctx.api, "POST", "/users/login", {
          auth: "Bearer x.y.z",
          json: { user_email: S.username, user_password: S.password },
        }),
    ],
  ];
  for (const [label, fn] of publicRoutes) {
    cases++;
    const res = await fn();
    check(
      `${label} answers 200 without credentials`,
      res.status === 200,
      `${res.status} ${res.text.slice(0, 200)}`,
    );
  }
  cases += 2;
  const openapiOpen = await http(`${ctx.api}/openapi.json`);
  const openapiAdmin = await send(ctx.api, "GET", "/openapi.json", { auth: ctx.adminAuth });
  check(
    `GET /openapi.json answers 200 with credentials${openapiOpen.status === 200 ? " and without" : ` (${openapiOpen.status} without)`}`,
    openapiAdmin.status === 200 &&
      openapiAdmin.json?.openapi?.startsWith("3.1") &&
      [200, 401].includes(openapiOpen.status),
    `${openapiAdmin.status} / ${openapiOpen.status}`,
  );
  const index = await http(`${ctx.base}/wp-json/wallet/v1`);
  const listed = Object.entries(index.json?.routes ?? {});
  let guarded = 0;
  const unguarded = [];
  for (const [pattern, { methods }] of listed) {
    const path = pattern
      .replace(/^\/wallet\/v1/, "")
      .replace(/\(\?P<id>[^)]*\)/g, String(sTxn))
      .replace(/\(\?P<wallet_id>[^)]*\)/g, W);
    if (path === "" || path === "/users/login") continue;
    for (const method of methods) {
      cases++;
      const res = await send(ctx.api, method, path, method === "POST" ? { json: {} } : {});
      if (res.status === 401 && JSON.stringify(res.json?.error) === JSON.stringify(NO_AUTH))
        guarded++;
      else if (!(path === "/openapi.json" && res.status === 200))
        unguarded.push(`${method} ${path} → ${res.status}`);
    }
  }
  check(
    `every route the index lists, except discovery and login (and OpenAPI, which may be public), answers 401 without credentials (${guarded} route-methods)`,
    unguarded.length === 0 && guarded >= 14,
    unguarded.join("; "),
  );
  cases++;
  const plain = await http(`${ctx.base}/?rest_route=/wallet/v1/credits`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: "{}",
  });
  check(
    "the plain-permalink form (?rest_route=/wallet/v1/credits) also answers 401 without credentials",
    plain.status === 401,
    `${plain.status} ${plain.text.slice(0, 200)}`,
  );

  // Secrets: the list of keys never shows one; no response of this section showed a password or key.
  cases++;
  const list = await send(ctx.api, "GET", "/api-keys", { auth: ctx.adminAuth });
  const shown = [adminRW, adminRead, adminWrite, subRW, subRead, revoked, spare].filter((k) =>
    list.text.includes(k.key),
  );
  check(
    "GET /api-keys shows no key (only ids, names, scopes, dates)",
    list.status === 200 && shown.length === 0 && !/"key"\s*:/.test(list.text),
    `${shown.length} keys shown`,
  );
  check(
    "no response of this section showed a password, a password hash or an API key after its creation response",
    leaks.length === leaksBefore,
    leaks.slice(leaksBefore, leaksBefore + 10).join("\n"),
  );
  figures.authz = { cases, routes: routes.length, credentials: kinds.size };
  note(`${cases} authorization requests over ${routes.length} routes`);
}
