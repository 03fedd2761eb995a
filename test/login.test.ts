import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import {
  appAt,
  type CallOptions,
  call,
  type Json,
  makeAdmin,
  makeUser,
  makeWallet,
  PASSWORD,
  signedToken,
  unique,
} from "./helpers";

const login = (body: unknown, options: CallOptions = {}) =>
  call("POST", "/users/login", { ...options, body });

/** The JWT payload: the base64url middle part, decoded without checking the signature. */
function jwtPayload(token: string): Json {
  const part = token.split(".")[1]!.replace(/-/g, "+").replace(/_/g, "/");
  const bytes = Uint8Array.from(atob(part.padEnd(Math.ceil(part.length / 4) * 4, "=")), (ch) =>
    ch.charCodeAt(0),
  );
  return JSON.parse(new TextDecoder().decode(bytes));
}

const b64url = (value: Json) =>
  btoa(JSON.stringify(value)).replace(/=+$/, "").replace(/\+/g, "-").replace(/\//g, "_");

const invalidCredential = {
  status_code: 400,
  status: "failed",
  message: "Validation error",
  data: [],
  error: ["Invalid Credential"],
};
const validationError = (error: Json[]) => ({
  status_code: 400,
  status: "failed",
  message: "Validation error",
  data: [],
  error,
});

describe("POST /users/login", () => {
  it("with e-mail and password answers 200 Login successful with exactly the contract's data keys", async () => {
    const user = await makeUser();
    const res = await login({ user_email: user.email, user_password: PASSWORD });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      status_code: 200,
      status: true,
      message: "Login successful",
      data: {
        access_token: expect.any(String),
        user_id: user.id,
        user_email: user.email,
        username: user.username,
        time_of_login: expect.any(String),
      },
      error: [],
    });
    expect(Object.keys(res.body.data).sort()).toEqual([
      "access_token",
      "time_of_login",
      "user_email",
      "user_id",
      "username",
    ]);
    expect(res.body.data.time_of_login).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
  });

  it("accepts a username in user_email", async () => {
    const user = await makeUser();
    const res = await login({ user_email: user.username, user_password: PASSWORD });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      user_id: user.id,
      username: user.username,
      user_email: user.email,
    });
  });

  it("reads the login trimmed, as the address was when the account was made", async () => {
    const user = await makeUser();
    for (const login_ of [` ${user.email} `, `\t${user.username}\n`]) {
      const res = await login({ user_email: login_, user_password: PASSWORD });
      expect(res.status, res.text).toBe(200);
      expect(res.body.data.user_id).toBe(user.id);
    }
  });

  it("accepts username as an alias of user_email", async () => {
    const user = await makeUser();
    const res = await login({ username: user.username, user_password: PASSWORD });
    expect(res.status).toBe(200);
    expect(res.body.data.user_id).toBe(user.id);
  });

  it("accepts a form-encoded body", async () => {
    const user = await makeUser();
    const res = await login(
      new URLSearchParams({ user_email: user.email, user_password: PASSWORD }),
    );
    expect(res.status).toBe(200);
    expect(res.body.data.user_id).toBe(user.id);
  });

  it("logs in a user created through POST /users with its own password", async () => {
    const admin = await makeAdmin();
    const name = unique("fresh");
    const created = await call("POST", "/users", {
      auth: admin.bearer,
      body: { username: name, user_email: `${name}@example.test`, user_password: "fresh-password" },
    });
    expect(created.status).toBe(201);
    const res = await login({
      user_email: `${name}@example.test`,
      user_password: "fresh-password",
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ user_id: created.body.data.id, username: name });
    expect(jwtPayload(res.body.data.access_token).user).toEqual({
      id: created.body.data.id,
      username: name,
      roles: ["subscriber"],
    });
  });

  it("with a wrong password answers 400 Invalid Credential", async () => {
    const user = await makeUser();
    const res = await login({ user_email: user.email, user_password: `${PASSWORD}x` });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(invalidCredential);
  });

  it("with an unknown user answers the same 400 Invalid Credential", async () => {
    const res = await login({
      user_email: `${unique("nobody")}@example.test`,
      user_password: PASSWORD,
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(invalidCredential);
  });

  it("with no fields answers 400 with per-field arrays", async () => {
    const res = await login({});
    expect(res.status).toBe(400);
    expect(res.body).toEqual(
      validationError([
        { user_email: ["user_email is required"] },
        { user_pass: ["user_password is required"] },
      ]),
    );
  });

  it("with only the password missing answers 400 user_password is required", async () => {
    const user = await makeUser();
    const res = await login({ user_email: user.email, user_password: "" });
    expect(res.body).toEqual(validationError([{ user_pass: ["user_password is required"] }]));
  });

  it("with only the login missing answers 400 user_email is required", async () => {
    const res = await login({ user_email: null, user_password: PASSWORD });
    expect(res.body).toEqual(validationError([{ user_email: ["user_email is required"] }]));
  });

  it("issues a token that works as Authorization: Bearer on a protected route", async () => {
    const admin = await makeAdmin();
    const wallet = await makeWallet(admin);
    const user = await makeUser();
    const res = await login({ user_email: user.email, user_password: PASSWORD });
    const balance = await call("GET", "/user-wallet-balance", {
      auth: `Bearer ${res.body.data.access_token}`,
      query: { wallet_id: wallet },
    });
    expect(balance.status).toBe(200);
    expect(balance.body.data).toEqual({ [wallet]: 0 });
    const forbidden = await call("GET", "/wallets", {
      auth: `Bearer ${res.body.data.access_token}`,
    });
    expect(forbidden.status).toBe(403);
  });

  it("issues an administrator's token that can use administrator routes", async () => {
    const admin = await makeAdmin();
    const res = await login({ user_email: admin.username, user_password: PASSWORD });
    expect(jwtPayload(res.body.data.access_token).user.roles).toEqual(["administrator"]);
    const wallets = await call("GET", "/wallets", { auth: `Bearer ${res.body.data.access_token}` });
    expect(wallets.status).toBe(200);
  });

  it("signs a payload with iss, iat, a one-hour exp and the user", async () => {
    const user = await makeUser();
    const now = Date.UTC(2024, 0, 2, 3, 4, 5, 678);
    const res = await login(
      { user_email: user.email, user_password: PASSWORD },
      { app: appAt(now) },
    );
    expect(res.status).toBe(200);
    expect(res.body.data.time_of_login).toBe("2024-01-02 03:04:05");
    const payload = jwtPayload(res.body.data.access_token);
    // The contract's claims exactly, then the session's: its id and the kind of token.
    expect(payload).toEqual({
      iss: env.JWT_ISSUER,
      iat: Math.floor(now / 1000),
      exp: Math.floor(now / 1000) + 3600,
      user: { id: user.id, username: user.username, roles: ["subscriber"] },
      sid: expect.stringMatching(/^[A-Za-z0-9_-]{22}$/),
      aud: "wallet-api",
    });
    expect(Object.keys(payload)).toEqual(["iss", "iat", "exp", "user", "sid", "aud"]);
  });

  it("with a token issued now sets iat to the current time", async () => {
    const user = await makeUser();
    const before = Math.floor(Date.now() / 1000);
    const res = await login({ user_email: user.email, user_password: PASSWORD });
    const payload = jwtPayload(res.body.data.access_token);
    expect(payload.iat).toBeGreaterThanOrEqual(before);
    expect(payload.iat).toBeLessThanOrEqual(Math.floor(Date.now() / 1000));
    expect(payload.exp - payload.iat).toBe(3600);
  });

  /** A sign-in of a new user asking for `token_expiration`: the user and its token's payload. */
  async function signedInFor(token_expiration: string) {
    const user = await makeUser();
    const res = await login({ user_email: user.email, user_password: PASSWORD, token_expiration });
    expect(res.status).toBe(200);
    return { user, payload: jwtPayload(res.body.data.access_token) };
  }

  it("with token_expiration=persistent gives a token living 15,780,000 seconds", async () => {
    const { user, payload } = await signedInFor("persistent");
    expect(payload.exp - payload.iat).toBe(15_780_000);
    expect(payload.user).toEqual({ id: user.id, username: user.username, roles: ["subscriber"] });
  });

  it("reads token_expiration as the plugin compared it: only persistent itself, in that case", async () => {
    const { payload } = await signedInFor("Persistent");
    expect(payload.exp - payload.iat).toBe(3600);
  });

  it("never returns the password", async () => {
    const user = await makeUser();
    const res = await login({ user_email: user.email, user_password: PASSWORD });
    expect(res.text).not.toContain(PASSWORD);
    expect(JSON.stringify(jwtPayload(res.body.data.access_token))).not.toContain(PASSWORD);
  });

  it("rejects a tampered, unsigned or foreign-issuer token with 401 Invalid credentials", async () => {
    const subscriber = await makeUser();
    const res = await login({ user_email: subscriber.email, user_password: PASSWORD });
    const [head, , signature] = (res.body.data.access_token as string).split(".");
    const payload = jwtPayload(res.body.data.access_token);
    const elevated = { ...payload, user: { ...payload.user, roles: ["administrator"] } };
    const { token: foreign } = await signedToken(
      { id: subscriber.id, username: subscriber.username, role: "administrator" },
      { issuer: "someone-else" },
    );
    for (const token of [
      `${head}.${b64url(elevated)}.${signature}`,
      `${b64url({ alg: "none", typ: "JWT" })}.${b64url(elevated)}.`,
      foreign,
    ]) {
      const denied = await call("GET", "/wallets", { auth: `Bearer ${token}` });
      expect(denied.status).toBe(401);
      expect(denied.body).toEqual({
        status_code: 401,
        status: false,
        message: "Permission denied",
        error: { unauthorize: "Invalid credentials" },
      });
    }
  });

  it("signs with HS256", async () => {
    const user = await makeUser();
    const res = await login({ user_email: user.email, user_password: PASSWORD });
    const header = JSON.parse(
      atob(
        (res.body.data.access_token as string).split(".")[0]!.replace(/-/g, "+").replace(/_/g, "/"),
      ),
    );
    expect(header.alg).toBe("HS256");
  });

  it("answers on the plain-permalink form /?rest_route=/wallet/v1/users/login", async () => {
    const user = await makeUser();
    const res = await call("POST", "/?rest_route=/wallet/v1/users/login", {
      body: { user_email: user.email, user_password: PASSWORD },
    });
    expect(res.status).toBe(200);
    expect(res.body.data.user_id).toBe(user.id);
  });

  it("rejects an expired token with 401 Invalid credentials", async () => {
    const admin = await makeAdmin();
    const old = await login(
      { user_email: admin.email, user_password: PASSWORD },
      { app: appAt(Date.now() - 2 * 3600 * 1000) },
    );
    const res = await call("GET", "/wallets", { auth: `Bearer ${old.body.data.access_token}` });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({
      status_code: 401,
      status: false,
      message: "Permission denied",
      error: { unauthorize: "Invalid credentials" },
    });
  });
});
