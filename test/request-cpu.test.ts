// What issue 24 keeps per isolate to spend less CPU per request, each shown to answer exactly what
// the work it saves would have answered: the router's remembered matches, the verified tokens.
import { env } from "cloudflare:workers";
import { TrieRouter } from "hono/router/trie-router";
import { afterEach, describe, expect, it, vi } from "vitest";
import { API_AUDIENCE, CONSOLE_AUDIENCE, verifyToken } from "../src/auth/tokens";
import { MemoRouter, REMEMBERED_PATHS } from "../src/http/memo-router";
import { call, makeAdmin, signedToken } from "./helpers";

describe("the router's remembered matches", () => {
  const routes: [string, string][] = [
    ["ALL", "*"],
    ["GET", "/wp-json/wallet/v1/transactions/:id{[0-9]+}"],
    ["POST", "/wp-json/wallet/v1/users/:user_id{[0-9]+}/unlock"],
    ["ALL", "/wp-json/:ns/v1/*"],
    ["GET", "/wp-json/:ns/v1/transactions"],
  ];
  const both = () => {
    const memo = new MemoRouter<string>();
    const trie = new TrieRouter<string>();
    for (const [i, [method, path]] of routes.entries()) {
      memo.add(method, path, `h${i}`);
      trie.add(method, path, `h${i}`);
    }
    return { memo, trie };
  };

  it("answers each path as Hono's TrieRouter does, the first time and every time after", () => {
    const { memo, trie } = both();
    const asked = [
      ["GET", "/wp-json/wallet/v1/transactions/42"],
      ["GET", "/wp-json/wallet/v1/transactions/x"],
      ["POST", "/wp-json/wallet/v1/users/7/unlock"],
      ["GET", "/wp-json/rimplenet/v1/transactions"],
      ["DELETE", "/wp-json/rimplenet/v1/transactions"],
      ["GET", "/nowhere"],
    ] as const;
    for (let round = 0; round < 3; round++)
      for (const [method, path] of asked)
        expect(memo.match(method, path)).toEqual(trie.match(method, path));
  });

  it("keeps at most REMEMBERED_PATHS paths and still answers the forgotten ones rightly", () => {
    const { memo, trie } = both();
    for (let id = 0; id < REMEMBERED_PATHS + 50; id++)
      memo.match("GET", `/wp-json/wallet/v1/transactions/${id}`);
    const first = "/wp-json/wallet/v1/transactions/0"; // forgotten by now
    expect(memo.match("GET", first)).toEqual(trie.match("GET", first));
  });
});

describe("the isolate's verified tokens", () => {
  afterEach(() => {
    vi.useRealTimers();
  });
  const keys = { secret: env.JWT_SECRET!, issuer: env.JWT_ISSUER };

  it("answer a token verified before with the same principal, and refuse it once it expires", async () => {
    const admin = await makeAdmin();
    const { token } = await signedToken(admin, { lifetimeS: 60 });
    const first = await verifyToken(token, keys.secret, keys.issuer, API_AUDIENCE);
    expect(first).toMatchObject({ userId: admin.id, username: admin.username });
    expect(await verifyToken(token, keys.secret, keys.issuer, API_AUDIENCE)).toEqual(first);
    vi.useFakeTimers({ now: Date.now() + 61_000, toFake: ["Date"] });
    expect(await verifyToken(token, keys.secret, keys.issuer, API_AUDIENCE)).toBeNull();
  });

  it("are kept per secret, issuer and audience: a token verified for one is refused by another", async () => {
    const admin = await makeAdmin();
    const { token } = await signedToken(admin);
    expect(await verifyToken(token, keys.secret, keys.issuer, API_AUDIENCE)).not.toBeNull();
    expect(await verifyToken(token, `${keys.secret}x`, keys.issuer, API_AUDIENCE)).toBeNull();
    expect(await verifyToken(token, keys.secret, `${keys.issuer}x`, API_AUDIENCE)).toBeNull();
    expect(await verifyToken(token, keys.secret, keys.issuer, CONSOLE_AUDIENCE)).toBeNull();
  });

  it("never keep a refused token: a forged one stays refused", async () => {
    const admin = await makeAdmin();
    const { token } = await signedToken(admin);
    const [head, body] = token.split(".");
    const forged = `${head}.${body}.${"A".repeat(43)}`;
    expect(await verifyToken(forged, keys.secret, keys.issuer, API_AUDIENCE)).toBeNull();
    expect(await verifyToken(forged, keys.secret, keys.issuer, API_AUDIENCE)).toBeNull();
  });

  it("still refuse a token at once after its sign-out in this isolate, though it was verified before", async () => {
    const admin = await makeAdmin();
    const auth = `Bearer ${(await signedToken(admin)).token}`;
    expect((await call("GET", "/wallets", { auth })).status).toBe(200);
    expect((await call("GET", "/wallets", { auth })).status).toBe(200);
    expect((await call("POST", "/users/logout", { auth })).status).toBe(200);
    expect((await call("GET", "/wallets", { auth })).status).toBe(401);
  });

  it("refuse an expired token through the API though it was verified before", async () => {
    const admin = await makeAdmin();
    const auth = `Bearer ${(await signedToken(admin, { lifetimeS: 60 })).token}`;
    expect((await call("GET", "/wallets", { auth })).status).toBe(200);
    vi.useFakeTimers({ now: Date.now() + 61_000, toFake: ["Date"] });
    expect((await call("GET", "/wallets", { auth })).status).toBe(401);
  });
});
