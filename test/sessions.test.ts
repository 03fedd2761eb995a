// Sessions that can end (docs/security.md#sessions): sign-out, POST /users/logout, an operator's
// revoke-all, token kinds (API and console) kept apart, tokens from before sessions refused, and the
// per-isolate cache bounded on the request's clock.
import { env } from "cloudflare:workers";
import { sign } from "hono/jwt";
import { describe, expect, it } from "vitest";
import { CONSOLE_AUDIENCE } from "../src/auth/tokens";
import { SESSION_TTL_MS } from "../src/db/isolate-cache";
import { PRUNE_PER_SIGN_IN } from "../src/db/sessions";
import { noticeCookie, noticeLeft } from "./console-helpers";
import {
  call,
  INVALID_CREDENTIALS,
  makeAdmin,
  makeKey,
  makeUser,
  makeWallet,
  PASSWORD,
  signedToken,
  type TestUser,
  testApp,
} from "./helpers";

const INVALID = {
  status_code: 401,
  status: "failed",
  message: "Permission denied",
  data: [],
  error: { unauthorize: "Invalid credentials" },
};

/** The claims of a token (`Bearer ` or not), read without verifying. */
const claimsOf = (token: string) =>
  JSON.parse(
    atob(
      token
        .replace(/^Bearer /, "")
        .split(".")[1]!
        .replace(/-/g, "+")
        .replace(/_/g, "/"),
    ),
  );
const sidOf = (token: string): string => claimsOf(token).sid;

const apiToken = async (u: TestUser) => `Bearer ${(await signedToken(u)).token}`;
const consoleToken = async (u: TestUser) =>
  (await signedToken(u, { audience: CONSOLE_AUDIENCE })).token;
const wallets = (auth: string, app = testApp()) => call("GET", "/wallets", { auth, app });
const logout = (auth: string) => call("POST", "/users/logout", { auth });
const revokeAll = (auth: string, userId: number | string) =>
  call("POST", `/users/${userId}/sessions/revoke`, { auth });

async function apiLogin(u: TestUser) {
  const res = await call("POST", "/users/login", {
    body: { user_email: u.email, user_password: PASSWORD },
  });
  expect(res.status, res.text).toBe(200);
  return `Bearer ${res.body.data.access_token}`;
}

/** One console page with `cookie`, not following redirects. */
async function consolePage(path: string, cookie: string, init: RequestInit = {}, app = testApp()) {
  const res = await app.request(
    `http://localhost/wallet-admin${path}`,
    { ...init, headers: { ...init.headers, Cookie: cookie }, redirect: "manual" },
    env,
  );
  return { status: res.status, html: await res.text(), headers: res.headers };
}

async function consoleSignIn(u: TestUser) {
  const res = await testApp().request(
    "http://localhost/wallet-admin/sign-in",
    {
      method: "POST",
      body: new URLSearchParams({ email: u.email, password: PASSWORD }),
      redirect: "manual",
    },
    env,
  );
  expect(res.status).toBe(303);
  return res.headers.get("set-cookie")!.split(";")[0]!;
}

const csrfOf = (html: string) => html.match(/name="_csrf" value="([^"]+)"/)?.[1] ?? "";

const liveSessions = async (userId: number) =>
  (await env.DB.prepare(
    "SELECT count(*) AS n FROM sessions WHERE user_id = ? AND revoked_at_ms IS NULL",
  )
    .bind(userId)
    .first<{ n: number }>())!.n;

describe("POST /users/logout", () => {
  it("answers 200 Logout successful, and the token it was called with is refused from then on", async () => {
    const user = await makeUser();
    const token = await apiLogin(user);
    expect((await call("GET", "/user-wallet-balance", { auth: token })).status).not.toBe(401);
    const res = await logout(token);
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({
      status_code: 200,
      status: true,
      message: "Logout successful",
      data: { user_id: user.id },
      error: [],
    });
    expect((await wallets(token)).body).toEqual(INVALID_CREDENTIALS);
  });

  it("answers a second logout with the same token 401 Invalid credentials", async () => {
    const token = await apiToken(await makeUser());
    expect((await logout(token)).status).toBe(200);
    expect((await logout(token)).body).toEqual(INVALID);
  });

  it("ends only the session of the token used: the user's other sessions keep working", async () => {
    const user = await makeUser();
    const [phone, laptop] = [await apiToken(user), await apiToken(user)];
    expect((await logout(phone)).status).toBe(200);
    expect((await logout(laptop)).status).toBe(200);
    expect((await logout(phone)).status).toBe(401);
  });

  it("answers an API key 400 in envelope B, naming how keys end, and the key keeps working", async () => {
    const admin = await makeAdmin();
    const key = await makeKey(admin, "read-write");
    const res = await logout(key.header);
    expect(res.body).toEqual({
      status_code: 400,
      status: "failed",
      message: "Validation error",
      data: [],
      error: ["An API key has no session to end: revoke the key with DELETE /api-keys/{id}"],
    });
    expect((await wallets(key.header)).status).toBe(200);
  });

  it("refuses a console token sent as Bearer with 401, and ends nothing", async () => {
    const admin = await makeAdmin();
    const before = await liveSessions(admin.id);
    expect((await logout(`Bearer ${await consoleToken(admin)}`)).body).toEqual(INVALID);
    expect(await liveSessions(admin.id)).toBe(before + 1);
  });
});

describe("POST /users/{user_id}/sessions/revoke", () => {
  it("revokes every API and console session of that user, answers the count, and touches no one else", async () => {
    const admin = await makeAdmin();
    const [user, bystander] = [await makeUser("administrator"), await makeUser()];
    const tokens = [user.bearer, await apiLogin(user), await apiToken(user)];
    const cookie = await consoleSignIn(user);
    expect((await consolePage("/", cookie)).status).toBe(200);
    const key = await makeKey(user, "read-write");

    const res = await revokeAll(admin.bearer, user.id);
    expect(res.body).toEqual({
      status_code: 200,
      status: true,
      message: "Sessions revoked",
      data: { user_id: user.id, revoked: 4 },
      error: [],
    });
    for (const token of tokens) expect((await wallets(token)).body).toEqual(INVALID_CREDENTIALS);
    const page = await consolePage("/", cookie);
    expect(page.status).toBe(303);
    expect(page.headers.get("location")).toBe("/wallet-admin/sign-in");
    // Keys are not sessions; other users' sessions are theirs.
    expect((await wallets(key.header)).status).toBe(200);
    expect((await call("GET", "/user-wallet-balance", { auth: bystander.bearer })).status).not.toBe(
      401,
    );
    expect((await logout(bystander.bearer)).status).toBe(200);
    // Nothing left to revoke.
    expect((await revokeAll(admin.bearer, user.id)).body.data).toEqual({
      user_id: user.id,
      revoked: 0,
    });
  });

  it("answers an unknown user 404 in envelope B and a subscriber 403, revoking nothing", async () => {
    const admin = await makeAdmin();
    const user = await makeUser();
    expect((await revokeAll(admin.bearer, 2_000_000_000)).body).toEqual({
      status_code: 404,
      status: "failed",
      message: "Invalid User credentials",
      data: [],
      error: ["Unable to reach 2000000000"],
    });
    // Digits past any id name nobody: the text as sent, unread.
    expect((await revokeAll(admin.bearer, "0000000000000000007")).body.error).toEqual([
      "Unable to reach 0000000000000000007",
    ]);
    const sub = await revokeAll(user.bearer, user.id);
    expect(sub.status).toBe(403);
    expect(sub.body.error).toEqual({ unauthorize: "Request is not authorized" });
    expect(await liveSessions(user.id)).toBe(1);
  });
});

describe("token kinds", () => {
  it("refuses a console token as Bearer on the API with 401 Invalid credentials", async () => {
    const admin = await makeAdmin();
    expect((await wallets(`Bearer ${await consoleToken(admin)}`)).body).toEqual(
      INVALID_CREDENTIALS,
    );
  });

  it("treats an API token in the console's cookie as signed out", async () => {
    const admin = await makeAdmin();
    const page = await consolePage("/", `wallet_admin=${admin.token}`);
    expect(page.status).toBe(303);
    expect(page.headers.get("location")).toBe("/wallet-admin/sign-in");
  });

  it("never lets the API read the console's cookie: a request with only the cookie has no credentials", async () => {
    const admin = await makeAdmin();
    const res = await call("GET", "/wallets", {
      headers: { Cookie: `wallet_admin=${await consoleToken(admin)}` },
    });
    expect(res.status).toBe(401);
    expect(res.body.error).toEqual({ unauthorize: "No authorization provided" });
  });

  it("refuses a token issued before sessions (no sid or aud), rightly signed, with 401", async () => {
    const admin = await makeAdmin();
    const iat = Math.floor(Date.now() / 1000);
    const old = await sign(
      {
        iss: env.JWT_ISSUER,
        iat,
        exp: iat + 3600,
        user: { id: admin.id, username: admin.username, roles: ["administrator"] },
      },
      env.JWT_SECRET!,
      "HS256",
    );
    expect((await wallets(`Bearer ${old}`)).body).toEqual(INVALID_CREDENTIALS);
    expect((await consolePage("/", `wallet_admin=${old}`)).status).toBe(303);
  });

  it("refuses a token whose sid names no session, rightly signed, with 401", async () => {
    const admin = await makeAdmin();
    const forged = await sign(
      { ...claimsOf(admin.token), sid: "AAAAAAAAAAAAAAAAAAAAAA" },
      env.JWT_SECRET!,
    );
    expect((await wallets(`Bearer ${forged}`)).body).toEqual(INVALID_CREDENTIALS);
  });
});

describe("the console", () => {
  it("signs out by ending its session: the old cookie opens nothing afterwards", async () => {
    const admin = await makeAdmin();
    const cookie = await consoleSignIn(admin);
    const overview = await consolePage("/", cookie);
    expect(overview.status).toBe(200);
    const out = await consolePage("/sign-out", cookie, {
      method: "POST",
      body: new URLSearchParams({ _csrf: csrfOf(overview.html) }),
    });
    expect(out.status).toBe(303);
    expect(out.headers.get("location")).toBe("/wallet-admin/sign-in");
    expect(noticeLeft(out)).toBe("ok:Signed out.");
    const notice = noticeCookie(out)!.split(";")[0]!;
    expect((await consolePage("/sign-in", notice)).html).toContain("Signed out.");
    const again = await consolePage("/", cookie);
    expect(again.status).toBe(303);
    expect(again.headers.get("location")).toBe("/wallet-admin/sign-in");
    // And its token was never an API credential.
    expect((await wallets(`Bearer ${cookie.slice("wallet_admin=".length)}`)).status).toBe(401);
  });

  it("ends the session a browser had when it signs in again over it: the old cookie opens nothing", async () => {
    const [first, second] = [await makeAdmin(), await makeAdmin()];
    const old = await consoleSignIn(first);
    expect((await consolePage("/", old)).status).toBe(200);
    const signIn = (body: Record<string, string>) =>
      consolePage("/sign-in", old, { method: "POST", body: new URLSearchParams(body) });
    // A refused sign-in leaves the browser's session as it was.
    expect((await signIn({ email: second.email, password: "nope" })).status).toBe(400);
    expect((await consolePage("/", old)).status).toBe(200);
    // Signed in again (as another operator), the cookie is replaced: no Sign out could end the
    // old session afterwards, so the sign-in ends it (and no other session of its user).
    const live = await liveSessions(first.id);
    const res = await signIn({ email: second.email, password: PASSWORD });
    expect(res.status).toBe(303);
    const fresh = res.headers.get("set-cookie")!.split(";")[0]!;
    expect(fresh).not.toBe(old);
    expect((await consolePage("/", fresh)).status).toBe(200);
    const again = await consolePage("/", old);
    expect(again.status).toBe(303);
    expect(again.headers.get("location")).toBe("/wallet-admin/sign-in");
    expect(await liveSessions(first.id)).toBe(live - 1);
  });

  it("leaves no live session behind when a subscriber tries to sign in", async () => {
    const user = await makeUser();
    const before = await liveSessions(user.id);
    const res = await testApp().request(
      "http://localhost/wallet-admin/sign-in",
      { method: "POST", body: new URLSearchParams({ email: user.email, password: PASSWORD }) },
      env,
    );
    expect(res.status).toBe(403);
    expect(await liveSessions(user.id)).toBe(before);
  });

  it("ends a demoted administrator's console session at its next request, not only the cookie", async () => {
    const admin = await makeAdmin();
    const cookie = await consoleSignIn(admin);
    const sid = sidOf(cookie.slice("wallet_admin=".length));
    let nowMs = Date.now();
    const app = testApp({ nowMs: () => nowMs });
    const setRole = (role: string) =>
      env.DB.prepare("UPDATE users SET role = ? WHERE id = ?").bind(role, admin.id).run();
    expect((await consolePage("/", cookie, {}, app)).status).toBe(200);
    // An operator's UPDATE (no route demotes), seen once this isolate reads the session again.
    await setRole("subscriber");
    nowMs += SESSION_TTL_MS + 1;
    const refused = await consolePage("/", cookie, {}, app);
    expect(refused.status).toBe(403);
    expect(refused.headers.getSetCookie().join()).toMatch(/wallet_admin=;.*Max-Age=0/);
    const row = await env.DB.prepare("SELECT revoked_at_ms FROM sessions WHERE id = ?")
      .bind(sid)
      .first<{ revoked_at_ms: number | null }>();
    expect(row?.revoked_at_ms).not.toBeNull();
    // Ended as sign-out ends one: the cookie, kept or copied, opens nothing even once the user is an
    // administrator again.
    await setRole("administrator");
    nowMs += SESSION_TTL_MS + 1;
    const again = await consolePage("/", cookie, {}, app);
    expect(again.status).toBe(303);
    expect(again.headers.get("location")).toBe("/wallet-admin/sign-in");
  });

  it("ends a demoted administrator's one session it was sent with: not its others, its API token, nor a bearer sent beside it", async () => {
    const [demoted, other] = [await makeAdmin(), await makeAdmin()];
    const [cookie, second] = [await consoleSignIn(demoted), await consoleSignIn(demoted)];
    const [api, otherApi] = [await apiLogin(demoted), await apiLogin(other)];
    const otherCookie = await consoleSignIn(other);
    const live = async (token: string) => {
      const row = await env.DB.prepare("SELECT revoked_at_ms FROM sessions WHERE id = ?")
        .bind(sidOf(token))
        .first<{ revoked_at_ms: number | null }>();
      return row !== null && row.revoked_at_ms === null;
    };
    let nowMs = Date.now();
    const app = testApp({ nowMs: () => nowMs });
    await env.DB.prepare("UPDATE users SET role = 'subscriber' WHERE id = ?")
      .bind(demoted.id)
      .run();
    nowMs += SESSION_TTL_MS + 1;
    // An API token of another administrator beside the cookie, and a POST without its CSRF token.
    const refused = await consolePage(
      "/users",
      cookie,
      { method: "POST", headers: { Authorization: otherApi } },
      app,
    );
    expect(refused.status).toBe(403);
    expect(await live(cookie.slice("wallet_admin=".length))).toBe(false);
    for (const [name, token] of [
      ["its other console session", second.slice("wallet_admin=".length)],
      ["its API token", api],
      ["the bearer beside it", otherApi],
      ["another administrator's console session", otherCookie.slice("wallet_admin=".length)],
    ] as const)
      expect(await live(token), name).toBe(true);
    expect((await wallets(otherApi, app)).status).toBe(200);
    expect((await consolePage("/", otherCookie, {}, app)).status).toBe(200);
    // A subscriber's API token in the console's cookie is no console session: refused, not ended.
    const sub = await makeUser();
    const subApi = await apiLogin(sub);
    const asCookie = `wallet_admin=${subApi.replace("Bearer ", "")}`;
    expect((await consolePage("/", asCookie, {}, app)).status).toBe(303);
    expect(await live(subApi)).toBe(true);
  });

  /** A user's page as `cookie`'s operator sees it, and its Sign out everywhere sent. */
  async function signOutFromPage(userId: number, cookie: string) {
    const page = await consolePage(`/users/${userId}`, cookie);
    const res = await consolePage(`/users/${userId}/sessions/revoke`, cookie, {
      method: "POST",
      body: new URLSearchParams({ _csrf: csrfOf(page.html) }),
    });
    return { page, res };
  }

  it("signs a user out everywhere from its page, through the API", async () => {
    const admin = await makeAdmin();
    const user = await makeUser();
    const cookie = await consoleSignIn(admin);
    const { page, res } = await signOutFromPage(user.id, cookie);
    expect(page.html).toContain(`Sign ${user.username} out everywhere`);
    expect(page.html).toContain(
      `data-confirm="Sign ${user.username} out everywhere? Every access token and console session of this user stops working."`,
    );
    expect(res.status).toBe(303);
    expect(noticeLeft(res)).toContain("Signed out everywhere: 1 session ended.");
    expect((await wallets(user.bearer)).status).toBe(401);
    // The operator's own session is not the user's.
    expect((await consolePage("/", cookie)).status).toBe(200);
  });

  it("signing oneself out everywhere ends the console session too, and says so on the sign-in page", async () => {
    const admin = await makeAdmin();
    const cookie = await consoleSignIn(admin);
    const { page, res } = await signOutFromPage(admin.id, cookie);
    // The browser's question says it ends this session too.
    expect(page.html).toContain(
      `data-confirm="Sign yourself (${admin.username}) out everywhere? Every access token and console session of yours stops working, this one too."`,
    );
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/wallet-admin/sign-in");
    expect(res.headers.getSetCookie().join()).toMatch(/wallet_admin=;.*Max-Age=0/);
    expect(noticeLeft(res)).toMatch(/sessions? ended\. Sign in again\./);
    expect((await consolePage("/", cookie)).status).toBe(303);
  });
});

describe("the isolate's session cache", () => {
  it("keeps a session revoked elsewhere alive at most SESSION_TTL_MS on the request's clock", async () => {
    const admin = await makeAdmin();
    const token = await apiToken(admin);
    let nowMs = Date.now();
    const app = testApp({ nowMs: () => nowMs });
    expect((await wallets(token, app)).status).toBe(200); // read from D1 and cached at nowMs
    // Another isolate revokes it: this isolate's cache does not hear of it.
    await env.DB.prepare("UPDATE sessions SET revoked_at_ms = ? WHERE id = ?")
      .bind(nowMs, sidOf(token))
      .run();
    nowMs += SESSION_TTL_MS;
    expect((await wallets(token, app)).status).toBe(200);
    nowMs += 1;
    expect((await wallets(token, app)).body).toEqual(INVALID_CREDENTIALS);
  });

  it("acts with its user's role as the database has it, read again after SESSION_TTL_MS", async () => {
    const admin = await makeAdmin();
    const other = await makeUser();
    const wallet = await makeWallet(admin);
    const token = await apiToken(admin);
    let nowMs = Date.now();
    const app = testApp({ nowMs: () => nowMs });
    const query = `user_id=${other.id}&wallet_id=${wallet}`;
    const balance = () => call("GET", `/user-wallet-balance?${query}`, { auth: token, app });
    expect((await balance()).status).toBe(200);
    await env.DB.prepare("UPDATE users SET role = 'subscriber' WHERE id = ?").bind(admin.id).run();
    nowMs += SESSION_TTL_MS;
    expect((await balance()).status).toBe(200);
    nowMs += 1;
    expect((await balance()).status).toBe(403);
  });

  it("reads a session again when the clock runs backwards, rather than trusting the cache longer", async () => {
    const admin = await makeAdmin();
    const token = await apiToken(admin);
    let nowMs = Date.now();
    const app = testApp({ nowMs: () => nowMs });
    expect((await wallets(token, app)).status).toBe(200);
    await env.DB.prepare("UPDATE sessions SET revoked_at_ms = ? WHERE id = ?")
      .bind(nowMs, sidOf(token))
      .run();
    nowMs -= 1;
    expect((await wallets(token, app)).body).toEqual(INVALID_CREDENTIALS);
  });

  it("refuses at once in the isolate that revoked, within the bound", async () => {
    const admin = await makeAdmin();
    const user = await makeUser();
    const nowMs = Date.now();
    const app = testApp({ nowMs: () => nowMs });
    expect((await call("GET", "/user-wallet-balance", { auth: user.bearer, app })).status).not.toBe(
      401,
    );
    expect(
      (await call("POST", `/users/${user.id}/sessions/revoke`, { auth: admin.bearer, app })).status,
    ).toBe(200);
    expect((await call("GET", "/wallets", { auth: user.bearer, app })).status).toBe(401);
  });
});

describe("expired sessions", () => {
  it("are deleted at the user's next sign-in, at most PRUNE_PER_SIGN_IN of them", async () => {
    const user = await makeUser();
    const longAgo = Date.now() - 10 * 86_400_000;
    for (let i = 0; i < PRUNE_PER_SIGN_IN + 5; i++)
      await signedToken(user, { nowMs: longAgo, lifetimeS: 60 });
    const count = async () =>
      (await env.DB.prepare("SELECT count(*) AS n FROM sessions WHERE user_id = ?")
        .bind(user.id)
        .first<{ n: number }>())!.n;
    expect(await count()).toBe(PRUNE_PER_SIGN_IN + 6);
    await apiLogin(user);
    // 105 expired minus 100 pruned, the live one of makeUser, the new one.
    expect(await count()).toBe(5 + 2);
    await apiLogin(user);
    expect(await count()).toBe(3);
  });
});
