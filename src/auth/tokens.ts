import { sign, verify } from "hono/jwt";
import * as v from "valibot";
import type { Principal } from "./principal";

export const TOKEN_LIFETIME_S = 3600;
export const PERSISTENT_TOKEN_LIFETIME_S = 15_780_000;

const TokenUser = v.object({
  id: v.pipe(v.number(), v.safeInteger(), v.minValue(1)),
  username: v.string(),
  roles: v.tuple([v.picklist(["administrator", "subscriber"])]),
});

export async function issueToken(
  principal: Principal,
  secret: string,
  issuer: string,
  lifetimeS: number,
  nowMs: number,
) {
  const iat = Math.floor(nowMs / 1000);
  const user = { id: principal.userId, username: principal.username, roles: [principal.role] };
  return sign({ iss: issuer, iat, exp: iat + lifetimeS, user }, secret, "HS256");
}

/** The principal a valid token names, or null for any bad, expired or foreign token. */
export async function verifyToken(
  token: string,
  secret: string,
  issuer: string,
): Promise<Principal | null> {
  try {
    const payload = await verify(token, secret, { alg: "HS256", iss: issuer });
    if (typeof payload.exp !== "number") return null; // a token without an expiry is never accepted
    const user = v.parse(TokenUser, payload.user);
    return { userId: user.id, username: user.username, role: user.roles[0] };
  } catch {
    return null;
  }
}
