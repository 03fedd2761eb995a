// One generator for every route's authentication and authorization cases (contract section 2).
import { env } from "cloudflare:workers";
import { sign } from "hono/jwt";
import { describe, expect, it } from "vitest";
import { CONSOLE_AUDIENCE } from "../src/auth/tokens";
import {
  type CallOptions,
  call,
  makeAdmin,
  makeKey,
  makeUser,
  makeWallet,
  type Reply,
  signedToken,
  type TestUser,
  type TokenOptions,
  tableCounts,
} from "./helpers";

/**
 * `session`: any signed-in user with an access token (POST /users/logout); a key gets its 400.
 * `admin-read-write`: an administrator's route that writes and discloses (a webhook sends the
 * event feed), so a key needs both scopes.
 */
export type Access = "admin-write" | "admin-read" | "admin-read-write" | "reader" | "session";
export type MatrixContext = {
  admin: TestUser;
  subscriber: TestUser;
  other: TestUser;
  walletId: string;
};
/** A valid request for a fresh context; `path` overrides the route's path (e.g. `/api-keys/12`). */
export type MatrixRequest = {
  path?: string;
  body?: unknown;
  query?: Record<string, string | number>;
};

export type RouteSpec = {
  method: "GET" | "POST" | "DELETE";
  path: string;
  access: Access;
  envelope: "A" | "B";
  request: (ctx: MatrixContext) => MatrixRequest | Promise<MatrixRequest>;
};

const NO_AUTH = { unauthorize: "No authorization provided" };
const INVALID = { unauthorize: "Invalid credentials" };
const FORBIDDEN = { unauthorize: "Request is not authorized" };
const NO_SUCH_USER_ID = 2_000_000_000;

async function context(): Promise<MatrixContext> {
  const admin = await makeAdmin();
  const [subscriber, other, walletId] = await Promise.all([
    makeUser(),
    makeUser(),
    makeWallet(admin),
  ]);
  return { admin, subscriber, other, walletId };
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

/** Row counts plus revocations: revoking a key or a session changes no count, only a revoked_at_ms. */
async function snapshot() {
  const revoked = await env.DB.prepare(
    `SELECT (SELECT count(*) FROM api_keys WHERE revoked_at_ms IS NOT NULL) AS keys,
       (SELECT count(*) FROM sessions WHERE revoked_at_ms IS NOT NULL) AS sessions`,
  ).first<{ keys: number; sessions: number }>();
  return { ...(await tableCounts()), revoked: revoked };
}

/** A token whose signature no longer matches: the first signature character changed. */
function tamperSignature(token: string) {
  const [head, payload, sig] = token.split(".") as [string, string, string];
  return `${head}.${payload}.${sig[0] === "A" ? "B" : "A"}${sig.slice(1)}`;
}

/** A token on a new live session of `u` (an API token unless `audience` says otherwise). */
const tokenFor = async (u: TestUser, options: TokenOptions = {}) =>
  (await signedToken(u, options)).token;

const b64url = (value: unknown) =>
  btoa(JSON.stringify(value)).replace(/=+$/, "").replace(/\+/g, "-").replace(/\//g, "_");
// biome-ignore lint/suspicious/noExplicitAny: a token's claims, rewritten field by field
const payloadOf = (token: string): Record<string, any> =>
  JSON.parse(atob(token.split(".")[1]!.replace(/-/g, "+").replace(/_/g, "/")));
/** The contract's claims for `u`, without a session (as tokens were before sessions). */
const claims = (u: TestUser) => {
  const iat = Math.floor(Date.now() / 1000);
  return {
    iss: env.JWT_ISSUER,
    iat,
    exp: iat + 3600,
    user: { id: u.id, username: u.username, roles: [u.role] },
  };
};
/** `u`'s own token's claims (its live session included) with no signature at all. */
const unsigned = (u: TestUser) =>
  `${b64url({ alg: "none", typ: "JWT" })}.${b64url(payloadOf(u.token))}.`;
/** A subscriber's token whose payload now says administrator, under the old signature. */
function escalated(u: TestUser) {
  const [head, , sig] = u.token.split(".") as [string, string, string];
  const payload = payloadOf(u.token);
  return `${head}.${b64url({ ...payload, user: { ...payload.user, roles: ["administrator"] } })}.${sig}`;
}
/** The administrator's token after it signed out (POST /users/logout): its session revoked. */
async function signedOut(u: TestUser) {
  const token = await tokenFor(u);
  const res = await call("POST", "/users/logout", { auth: `Bearer ${token}` });
  expect(res.status, res.text).toBe(200);
  return `Bearer ${token}`;
}

type Credential = (ctx: MatrixContext) => string | Promise<string>;
type Change = (req: MatrixRequest, ctx: MatrixContext) => MatrixRequest;
/** The reader routes' request, asking about the user `pick` names. */
const about =
  (pick: (ctx: MatrixContext) => number): Change =>
  (r, c) => ({ ...r, query: { ...r.query, user_id: pick(c) } });

export function runAuthMatrix(route: RouteSpec) {
  const writes = route.method !== "GET";

  async function send(ctx: MatrixContext, auth: string | undefined, change?: Change) {
    const base = await route.request(ctx);
    const req = change ? change(base, ctx) : base;
    const options: CallOptions = { body: req.body, query: req.query };
    if (auth !== undefined) options.auth = auth;
    const before = writes ? await snapshot() : undefined;
    const res = await call(route.method, req.path ?? route.path, options);
    return { res, before };
  }

  async function expectRefused(
    credential: Credential | undefined,
    status: 401 | 403,
    error: Record<string, string>,
    change?: Change,
  ) {
    const ctx = await context();
    const { res, before } = await send(ctx, credential && (await credential(ctx)), change);
    expectRefusal(res, route.envelope, status, error);
    if (before) expect(await snapshot()).toEqual(before);
  }

  async function expectAllowed(credential: Credential, change?: Change) {
    const ctx = await context();
    const { res } = await send(ctx, await credential(ctx), change);
    expect([401, 403], res.text).not.toContain(res.status);
    expect(res.status, res.text).toBeLessThan(300);
    const keys =
      route.envelope === "A"
        ? ["data", "message", "status", "status_code"]
        : ["data", "error", "message", "status", "status_code"];
    expect(Object.keys(res.body).sort()).toEqual(keys);
    expect(res.body).toMatchObject({
      status_code: res.status,
      status: true,
      ...(route.envelope === "B" ? { error: [] } : {}),
    });
  }

  const invalid: [string, Credential][] = [
    ['"Bearer" without a token', () => "Bearer"],
    ['an unknown scheme ("Foo bar")', () => "Foo bar"],
    ['"Bearer a.b" (two parts, not base64)', () => "Bearer a.b"],
    ["garbage that is not base64 after Key", () => "Key %%%not*base64%%%"],
    ["base64 without a colon after Key", () => `Key ${btoa("justoneword")}`],
    ["a 10 KB header", () => `Bearer ${"a".repeat(10 * 1024)}`],
    [
      "an expired token",
      async (c) => `Bearer ${await tokenFor(c.admin, { nowMs: Date.now() - 2 * 3600_000 })}`,
    ],
    ["a token with a tampered signature", (c) => `Bearer ${tamperSignature(c.admin.token)}`],
    [
      "a token signed with another secret",
      async (c) => `Bearer ${await tokenFor(c.admin, { secret: "some-other-secret" })}`,
    ],
    [
      "a token from another issuer",
      async (c) => `Bearer ${await tokenFor(c.admin, { issuer: "someone-else" })}`,
    ],
    ['an unsigned token ("alg": "none")', (c) => `Bearer ${unsigned(c.admin)}`],
    [
      "a subscriber's token with its role rewritten to administrator",
      (c) => `Bearer ${escalated(c.subscriber)}`,
    ],
    // Sessions (docs/security.md#sessions).
    [
      "a token without a session (signed with the right secret, as issued before sessions)",
      async (c) => `Bearer ${await sign(claims(c.admin), env.JWT_SECRET!, "HS256")}`,
    ],
    ["a revoked token (its session signed out)", (c) => signedOut(c.admin)],
    [
      "a console token (the console's cookie, audience wallet-console)",
      async (c) => `Bearer ${await tokenFor(c.admin, { audience: CONSOLE_AUDIENCE })}`,
    ],
    ["an unknown API key", (c) => `Key ${btoa(`${c.admin.username}:wk_${"0".repeat(64)}`)}`],
    [
      "a valid key sent with another username",
      async (c) =>
        `Key ${btoa(`${c.subscriber.username}:${(await makeKey(c.admin, "read-write")).key}`)}`,
    ],
    [
      "a revoked key",
      async (c) => (await makeKey(c.admin, "read-write", { revoked: true })).header,
    ],
  ];

  describe(`${route.method} ${route.path} authorization`, () => {
    it("refuses a request without an Authorization header with 401 No authorization provided", () =>
      expectRefused(undefined, 401, NO_AUTH));
    it("refuses an empty Authorization header with 401 No authorization provided", () =>
      expectRefused(() => "", 401, NO_AUTH));

    for (const [name, credential] of invalid) {
      it(`refuses ${name} with 401 Invalid credentials`, () =>
        expectRefused(credential, 401, INVALID));
    }

    if (route.access === "session") {
      it("lets a subscriber in with its own access token", () =>
        expectAllowed((c) => c.subscriber.bearer));
      it("lets the administrator in with an access token", () =>
        expectAllowed((c) => c.admin.bearer));
      it("answers an administrator's read-write key with 400: a key has no session", async () => {
        const ctx = await context();
        const { res, before } = await send(ctx, (await makeKey(ctx.admin, "read-write")).header);
        expect(res.status, res.text).toBe(400);
        expect(res.body).toMatchObject({ status_code: 400, status: "failed" });
        if (before) expect(await snapshot()).toEqual(before);
      });
      return;
    }
    if (route.access === "admin-write" || route.access === "admin-read-write")
      it("refuses an administrator's read-only key with 403", () =>
        expectRefused(async (c) => (await makeKey(c.admin, "read")).header, 403, FORBIDDEN));
    if (route.access !== "admin-write")
      it("refuses an administrator's write-only key with 403", () =>
        expectRefused(async (c) => (await makeKey(c.admin, "write")).header, 403, FORBIDDEN));

    if (route.access === "reader") {
      const subscriber: Credential = (c) => c.subscriber.bearer;
      it("refuses a subscriber asking about another existing user with 403", () =>
        expectRefused(
          subscriber,
          403,
          FORBIDDEN,
          about((c) => c.other.id),
        ));
      it("refuses a subscriber asking about a user id that does not exist with 403", () =>
        expectRefused(
          subscriber,
          403,
          FORBIDDEN,
          about(() => NO_SUCH_USER_ID),
        ));
      it("lets a subscriber read its own data by user_id", () =>
        expectAllowed(
          subscriber,
          about((c) => c.subscriber.id),
        ));
      it("lets a subscriber's read key read its own data", () =>
        expectAllowed(
          async (c) => (await makeKey(c.subscriber, "read")).header,
          about((c) => c.subscriber.id),
        ));
    } else {
      it("refuses a subscriber with 403", () =>
        expectRefused((c) => c.subscriber.bearer, 403, FORBIDDEN));
      it("refuses a subscriber's read-write key with 403", () =>
        expectRefused(
          async (c) => (await makeKey(c.subscriber, "read-write")).header,
          403,
          FORBIDDEN,
        ));
    }

    it("lets the administrator in with an access token", () =>
      expectAllowed((c) => c.admin.bearer));
    // Control for the forged tokens above: the same minting, untouched, is accepted.
    it("lets the administrator in with a token minted here with the right secret and issuer", () =>
      expectAllowed(async (c) => `Bearer ${await tokenFor(c.admin)}`));
    it("lets the administrator in with a read-write key", async () =>
      expectAllowed(async (c) => (await makeKey(c.admin, "read-write")).header));
    if (route.access === "admin-read-write") return;
    it(`lets the administrator in with a ${route.access === "admin-write" ? "write" : "read"}-only key`, () =>
      expectAllowed(
        async (c) =>
          (await makeKey(c.admin, route.access === "admin-write" ? "write" : "read")).header,
      ));
  });
}
