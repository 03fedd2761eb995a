// Credentials at their edges: a cached token past its exp, a key revoked by another isolate, an
// Authorization header of three words or with a control character, and tokens signed with the
// secret but not as the service signs its own (no exp, both audiences, the other kind's session).
import { env } from "cloudflare:workers";
import { decode, sign } from "hono/jwt";
import { describe, expect, it, vi } from "vitest";
import { hashApiKey } from "../src/auth/api-keys";
import { API_AUDIENCE, CONSOLE_AUDIENCE } from "../src/auth/tokens";
import { KEY_TTL_MS } from "../src/db/isolate-cache";
import { call, INVALID_CREDENTIALS, makeAdmin, makeKey, signedToken, testApp } from "./helpers";

describe("a token this isolate verified before (its verification cached)", () => {
  it("is refused once its exp has passed", async () => {
    const admin = await makeAdmin();
    const { token } = await signedToken(admin, { lifetimeS: 2 });
    const auth = `Bearer ${token}`;
    expect((await call("GET", "/wallets", { auth })).status).toBe(200); // verified and cached
    const later = Date.now() + 3_000;
    vi.spyOn(Date, "now").mockReturnValue(later);
    const res = await call("GET", "/wallets", { auth, app: testApp({ nowMs: () => later }) });
    expect(res.body).toEqual(INVALID_CREDENTIALS);
  });

  it("is refused in the very second its exp names, as its first verification would be", async () => {
    const admin = await makeAdmin();
    const { token } = await signedToken(admin, { lifetimeS: 2 });
    const auth = `Bearer ${token}`;
    expect((await call("GET", "/wallets", { auth })).status).toBe(200); // verified and cached
    const atExp = (decode(token).payload.exp as number) * 1000;
    vi.spyOn(Date, "now").mockReturnValue(atExp);
    const res = await call("GET", "/wallets", { auth, app: testApp({ nowMs: () => atExp }) });
    expect(res.body).toEqual(INVALID_CREDENTIALS);
  });
});

describe("the isolate's key cache", () => {
  /** A key this isolate verified at `nowMs`, then revoked by another isolate (straight in D1). */
  async function revokedElsewhere(nowMs: number, app: ReturnType<typeof testApp>) {
    const admin = await makeAdmin();
    const { key, header } = await makeKey(admin, "read");
    expect((await call("GET", "/wallets", { auth: header, app })).status).toBe(200); // cached
    // Another isolate revokes it: this isolate's cache does not hear of it.
    await env.DB.prepare("UPDATE api_keys SET revoked_at_ms = ? WHERE key_hash = ?")
      .bind(nowMs, hashApiKey(key))
      .run();
    return header;
  }

  it("keeps a key revoked elsewhere working at most KEY_TTL_MS on the request's clock", async () => {
    let nowMs = Date.now();
    const app = testApp({ nowMs: () => nowMs });
    const header = await revokedElsewhere(nowMs, app);
    nowMs += KEY_TTL_MS;
    expect((await call("GET", "/wallets", { auth: header, app })).status).toBe(200);
    nowMs += 1;
    expect((await call("GET", "/wallets", { auth: header, app })).body).toEqual(
      INVALID_CREDENTIALS,
    );
  });

  it("reads a key again when the clock runs backwards, rather than trusting the cache longer", async () => {
    let nowMs = Date.now();
    const app = testApp({ nowMs: () => nowMs });
    const header = await revokedElsewhere(nowMs, app);
    nowMs -= 1;
    expect((await call("GET", "/wallets", { auth: header, app })).body).toEqual(
      INVALID_CREDENTIALS,
    );
  });
});

describe("the Authorization header is `<scheme> <credential>`, two words", () => {
  it("refuses a third word after a valid token or key", async () => {
    const admin = await makeAdmin();
    const { header } = await makeKey(admin, "read");
    for (const auth of [`${admin.bearer} extra`, `${header} extra`]) {
      expect((await call("GET", "/wallets", { auth })).body, auth).toEqual(INVALID_CREDENTIALS);
    }
  });

  it("reads the scheme in any case and any run of spaces or tabs between the words", async () => {
    const admin = await makeAdmin();
    for (const auth of [
      `bearer ${admin.token}`,
      `BEARER ${admin.token}`,
      `Bearer   ${admin.token}`,
      `Bearer\t${admin.token}`,
      `Bearer ${admin.token}   `,
    ])
      expect((await call("GET", "/wallets", { auth })).status, JSON.stringify(auth)).toBe(200);
  });

  it("refuses two Authorization headers, a scheme alone and a 10 kB token with 401, never a 5xx", async () => {
    const admin = await makeAdmin();
    const twice = new Headers();
    twice.append("Authorization", admin.bearer);
    twice.append("Authorization", admin.bearer); // the runtime joins them: `<one>, <other>`
    for (const auth of [
      twice.get("Authorization")!,
      "Bearer",
      `Bearer ${"a".repeat(10_000)}.${"b".repeat(100)}.c`,
      `Key ${"A".repeat(10_000)}`,
    ])
      expect((await call("GET", "/wallets", { auth })).body, auth.slice(0, 40)).toEqual(
        INVALID_CREDENTIALS,
      );
  });
});

describe("a credential with a control character inside", () => {
  it("is refused (401), though atob would skip a form feed", async () => {
    const admin = await makeAdmin();
    const { header } = await makeKey(admin, "read");
    const [scheme, b64] = header.split(" ") as [string, string];
    const auth = `${scheme} ${b64.slice(0, 4)}\f${b64.slice(4)}`;
    expect((await call("GET", "/wallets", { auth })).body).toEqual(INVALID_CREDENTIALS);
  });
});

describe("a token signed with the secret but not as the service signs its own", () => {
  const claimsOf = (token: string) =>
    JSON.parse(atob(token.split(".")[1]!.replaceAll("-", "+").replaceAll("_", "/")));

  it("is refused without an exp, and with an aud that lists both kinds", async () => {
    const admin = await makeAdmin();
    const { token } = await signedToken(admin);
    const { exp: _, ...noExp } = claimsOf(token);
    const both = { ...claimsOf(token), aud: ["wallet-api", "wallet-console"] };
    for (const claims of [noExp, both]) {
      const forged = await sign(claims, env.JWT_SECRET!, "HS256");
      const res = await call("GET", "/wallets", { auth: `Bearer ${forged}` });
      expect(res.body, JSON.stringify(claims)).toEqual(INVALID_CREDENTIALS);
    }
  });
});

describe("a token naming a session of the other kind", () => {
  it("is refused: an API-audience token on a console session's id", async () => {
    const admin = await makeAdmin();
    const { token } = await signedToken(admin, { audience: CONSOLE_AUDIENCE });
    const claims = JSON.parse(atob(token.split(".")[1]!.replaceAll("-", "+").replaceAll("_", "/")));
    const forged = await sign({ ...claims, aud: API_AUDIENCE }, env.JWT_SECRET!, "HS256");
    const res = await call("GET", "/wallets", { auth: `Bearer ${forged}` });
    expect(res.body).toEqual(INVALID_CREDENTIALS);
  });
});

describe("a JWT_SECRET replaced", () => {
  it("refuses a token this isolate verified under the old secret; a key, which it does not sign, keeps working", async () => {
    const admin = await makeAdmin();
    const { header } = await makeKey(admin, "read");
    expect((await call("GET", "/wallets", { auth: admin.bearer })).status).toBe(200); // cached
    const vars = { JWT_SECRET: `${env.JWT_SECRET}-replaced` };
    expect((await call("GET", "/wallets", { auth: admin.bearer, vars })).body).toEqual(
      INVALID_CREDENTIALS,
    );
    expect((await call("GET", "/wallets", { auth: header, vars })).status).toBe(200);
  });
});
