import { describe, expect, it } from "vitest";
import {
  call,
  credit,
  makeAdmin,
  makeKey,
  makeUser,
  makeWallet,
  PASSWORD,
  unique,
} from "./helpers";

describe("credentials", () => {
  it("reads the Authorization header whatever the case of its name", async () => {
    const admin = await makeAdmin();
    for (const name of ["authorization", "AUTHORIZATION", "AuThOrIzAtIoN"]) {
      const res = await call("GET", "/wallets", { headers: { [name]: admin.bearer } });
      expect(res.status, name).toBe(200);
    }
  });

  it("treats Bearer with a three-part JWT as an access token", async () => {
    const admin = await makeAdmin();
    const user = await makeUser();
    const wallet = await makeWallet(admin);
    await credit(admin, { user_id: user.id, wallet_id: wallet, amount: 42 });
    // No user_id: the token's own user.
    const res = await call("GET", "/user-wallet-balance", {
      auth: `Bearer ${user.token}`,
      query: { wallet_id: wallet },
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ [wallet]: 42 });
  });

  it("treats Bearer with base64(username:key) as an API key", async () => {
    const admin = await makeAdmin();
    const user = await makeUser();
    const wallet = await makeWallet(admin);
    await credit(admin, { user_id: user.id, wallet_id: wallet, amount: 7 });
    const { key } = await makeKey(user, "read");
    const res = await call("GET", "/user-wallet-balance", {
      auth: `Bearer ${btoa(`${user.username}:${key}`)}`,
      query: { wallet_id: wallet },
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ [wallet]: 7 });
  });

  it("accepts an API key after Key, Basic and Bearer alike", async () => {
    const admin = await makeAdmin();
    const { key } = await makeKey(admin, "read-write");
    const token = btoa(`${admin.username}:${key}`);
    for (const scheme of ["Key", "Basic", "Bearer"]) {
      const res = await call("GET", "/wallets", { auth: `${scheme} ${token}` });
      expect(res.status, scheme).toBe(200);
    }
  });

  it("lets an administrator's write key credit a user", async () => {
    const admin = await makeAdmin();
    const user = await makeUser();
    const wallet = await makeWallet(admin);
    const { header } = await makeKey(admin, "write");
    const res = await call("POST", "/credits", {
      auth: header,
      body: { user_id: user.id, wallet_id: wallet, amount: 5, request_id: unique("req") },
    });
    expect(res.status).toBe(200);
    expect(res.body.message).toBe("Transaction Completed");
  });

  it("lets a subscriber list its own transactions without naming user_id", async () => {
    const admin = await makeAdmin();
    const user = await makeUser();
    const wallet = await makeWallet(admin);
    await credit(admin, { user_id: user.id, wallet_id: wallet, amount: 3 });
    const res = await call("GET", "/transactions", {
      auth: user.bearer,
      query: { security_code: 1 },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.map((t: { post_author: string }) => t.post_author)).toEqual([
      String(user.id),
    ]);
  });

  it("accepts the access token POST /users/login issues", async () => {
    const admin = await makeAdmin();
    const login = await call("POST", "/users/login", {
      body: { user_email: admin.email, user_password: PASSWORD },
    });
    expect(login.status).toBe(200);
    const res = await call("GET", "/wallets", { auth: `Bearer ${login.body.data.access_token}` });
    expect(res.status).toBe(200);
  });

  it("reads a password's trailing NULs as PBKDF2's zero padding, as docs/compat.md says", async () => {
    const user = await makeUser();
    const login = (password: string) =>
      call("POST", "/users/login", { body: { user_email: user.email, user_password: password } });
    expect((await login(`${PASSWORD}\u0000\u0000`)).status).toBe(200);
    const wrong = await login(`${PASSWORD}x`);
    expect(wrong.status).toBe(400);
    expect((await login(`${PASSWORD}\u0000x`)).body).toEqual(wrong.body);
  });

  it("stops accepting a key once it is revoked through DELETE /api-keys/{id}", async () => {
    const admin = await makeAdmin();
    const created = await call("POST", "/api-keys", {
      auth: admin.bearer,
      body: { name: "short-lived", scope: "read" },
    });
    const header = `Key ${btoa(`${admin.username}:${created.body.data.key}`)}`;
    expect((await call("GET", "/wallets", { auth: header })).status).toBe(200);
    expect(
      (await call("DELETE", `/api-keys/${created.body.data.id}`, { auth: admin.bearer })).status,
    ).toBe(200);
    const res = await call("GET", "/wallets", { auth: header });
    expect(res.status).toBe(401);
    expect(res.body.error).toEqual({ unauthorize: "Invalid credentials" });
  });
});

describe("public routes", () => {
  it("serves the discovery index at GET /wp-json/ without credentials", async () => {
    const res = await call("GET", "/wp-json/");
    expect(res.status).toBe(200);
    expect(res.body.namespaces).toContain("wallet/v1");
    expect(res.body.routes["/wallet/v1/credits"]).toEqual({
      namespace: "wallet/v1",
      methods: ["POST"],
    });
  });

  it("serves the namespace index at GET /wp-json/wallet/v1 without credentials", async () => {
    const res = await call("GET", "/wp-json/wallet/v1");
    expect(res.status).toBe(200);
    expect(res.body.namespace).toBe("wallet/v1");
    expect(res.body.routes["/wallet/v1/user-wallet-balance"]).toEqual({
      namespace: "wallet/v1",
      methods: ["GET"],
    });
    expect(res.body.routes["/wallet/v1/users/login"]).toEqual({
      namespace: "wallet/v1",
      methods: ["POST"],
    });
  });

  it("lets POST /users/login in without credentials", async () => {
    const user = await makeUser();
    const res = await call("POST", "/users/login", {
      body: { user_email: user.email, user_password: PASSWORD },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      status_code: 200,
      status: true,
      message: "Login successful",
      error: [],
    });
    expect(res.body.data).toMatchObject({
      user_id: user.id,
      username: user.username,
      user_email: user.email,
    });
  });

  it("answers POST /users/login with wrong credentials as a validation error, not a 401", async () => {
    const user = await makeUser();
    const res = await call("POST", "/users/login", {
      body: { user_email: user.email, user_password: "wrong password" },
    });
    expect(res.status).toBe(400);
    expect(res.body).toStrictEqual({
      status_code: 400,
      status: "failed",
      message: "Validation error",
      data: [],
      error: ["Invalid Credential"],
    });
  });

  it("serves GET /openapi.json without credentials, like the discovery index it details", async () => {
    const res = await call("GET", "/wp-json/wallet/v1/openapi.json");
    expect(res.status).toBe(200);
    const subscriber = await makeUser();
    const withToken = await call("GET", "/wp-json/wallet/v1/openapi.json", {
      auth: subscriber.bearer,
    });
    expect(withToken.text).toBe(res.text);
  });
});

describe("access tokens", () => {
  it("refuses a correctly signed token that never expires", async () => {
    const { sign } = await import("hono/jwt");
    const { env } = await import("cloudflare:workers");
    const admin = await makeAdmin();
    const token = await sign(
      {
        iss: env.JWT_ISSUER,
        iat: 1,
        user: { id: admin.id, username: admin.username, roles: ["administrator"] },
      },
      env.JWT_SECRET,
      "HS256",
    );
    const res = await call("GET", "/wallets", { auth: `Bearer ${token}` });
    expect(res.status).toBe(401);
    expect(res.body.error).toEqual({ unauthorize: "Invalid credentials" });
  });
});
