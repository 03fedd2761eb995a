// Tokens signed with the service's own secret, on a live session of the right kind, that the
// service would never have issued: a header naming another HMAC or a critical extension, a token
// not valid yet (`nbf`) or issued in the future (`iat`). Each is refused with the usual 401, on
// its first use and on a use after a good token of the same session was verified and cached.
import { env } from "cloudflare:workers";
import { sign } from "hono/jwt";
import { describe, expect, it } from "vitest";
import { call, INVALID_CREDENTIALS, makeAdmin, signedToken } from "./helpers";

const b64url = (value: unknown) =>
  btoa(JSON.stringify(value)).replace(/=+$/, "").replace(/\+/g, "-").replace(/\//g, "_");
// biome-ignore lint/suspicious/noExplicitAny: a token's claims, rewritten field by field
const claimsOf = (token: string): Record<string, any> =>
  JSON.parse(atob(token.split(".")[1]!.replace(/-/g, "+").replace(/_/g, "/")));

/** HS256 over `header.payload` with the service's secret, the header written as given. */
async function signedWithHeader(header: Record<string, unknown>, claims: Record<string, unknown>) {
  const input = `${b64url(header)}.${b64url(claims)}`;
  const key = await crypto.subtle.importKey(
    "raw",
    new TextEncoder().encode(env.JWT_SECRET!),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  const mac = new Uint8Array(
    await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(input)),
  );
  const signature = btoa(String.fromCharCode(...mac))
    .replace(/=+$/, "")
    .replace(/\+/g, "-")
    .replace(/\//g, "_");
  return `${input}.${signature}`;
}

describe("a token signed with the service's secret on a live session", () => {
  it("is accepted as issued, and with an nbf already past", async () => {
    const admin = await makeAdmin();
    const { token } = await signedToken(admin);
    const claims = claimsOf(token);
    expect((await call("GET", "/wallets", { auth: `Bearer ${token}` })).status).toBe(200);
    const past = await sign({ ...claims, nbf: claims.iat - 60 }, env.JWT_SECRET!, "HS256");
    expect((await call("GET", "/wallets", { auth: `Bearer ${past}` })).status).toBe(200);
  });

  it("is refused before its nbf, and when its iat is in the future", async () => {
    const admin = await makeAdmin();
    const { token } = await signedToken(admin);
    // The session's own token, verified and cached: what follows is judged on its own claims.
    expect((await call("GET", "/wallets", { auth: `Bearer ${token}` })).status).toBe(200);
    const claims = claimsOf(token);
    const inAnHour = claims.iat + 3600;
    for (const [what, changed] of [
      ["nbf an hour ahead", { nbf: inAnHour }],
      ["nbf as text", { nbf: String(claims.iat - 60) }],
      ["iat an hour ahead", { iat: inAnHour, exp: inAnHour + 3600 }],
      ["exp as text", { exp: String(claims.exp) }],
    ] as const) {
      const forged = await signedWithHeader(
        { alg: "HS256", typ: "JWT" },
        { ...claims, ...changed },
      );
      const res = await call("GET", "/wallets", { auth: `Bearer ${forged}` });
      expect(res.body, what).toEqual(INVALID_CREDENTIALS);
    }
  });

  it("is refused when its header names another HMAC, a critical extension or another type", async () => {
    const admin = await makeAdmin();
    const { token } = await signedToken(admin);
    const claims = claimsOf(token);
    for (const alg of ["HS384", "HS512"] as const) {
      const other = await sign(claims, env.JWT_SECRET!, alg);
      const res = await call("GET", "/wallets", { auth: `Bearer ${other}` });
      expect(res.body, alg).toEqual(INVALID_CREDENTIALS);
    }
    for (const header of [
      { alg: "HS256", typ: "JWT", crit: ["exp"] },
      { alg: "HS256", typ: "JWE" },
      { alg: "hs256", typ: "JWT" },
      { typ: "JWT" },
    ]) {
      const forged = await signedWithHeader(header, claims);
      const res = await call("GET", "/wallets", { auth: `Bearer ${forged}` });
      expect(res.body, JSON.stringify(header)).toEqual(INVALID_CREDENTIALS);
    }
    // The same signer, the header as the service writes it: accepted (the refusals above are the
    // header's, not the signer's).
    const plain = await signedWithHeader({ alg: "HS256", typ: "JWT" }, claims);
    expect((await call("GET", "/wallets", { auth: `Bearer ${plain}` })).status).toBe(200);
  });
});
