import { sign, verify } from "hono/jwt";
import * as v from "valibot";
import type { Principal } from "./principal";

export const TOKEN_LIFETIME_S = 3600;
export const PERSISTENT_TOKEN_LIFETIME_S = 15_780_000;

/** Tokens of `POST /users/login` (both dialects): the API's `Authorization: Bearer`. */
export const API_AUDIENCE = "wallet-api";
/** The operator console's cookie (src/console/session.ts): never accepted by the API over HTTP. */
export const CONSOLE_AUDIENCE = "wallet-console";

/** A token's kind: the sessions table stores it (wallet/sessions.ts hands one to the other). */
export type Audience = typeof API_AUDIENCE | typeof CONSOLE_AUDIENCE;

const TokenUser = v.object({
  id: v.pipe(v.number(), v.safeInteger(), v.minValue(1)),
  username: v.string(),
  roles: v.tuple([v.picklist(["administrator", "subscriber"])]),
});
/** 128 bits in base64url (src/auth/sessions.ts newSessionId). */
const SessionId = v.pipe(v.string(), v.regex(/^[A-Za-z0-9_-]{22}$/));

export type TokenSession = { id: string; audience: Audience };

/**
 * The contract's payload (`iss`, `iat`, `exp`, `user`, section 2) plus the session it belongs to:
 * `sid`, checked on every use (auth/sessions.ts), and `aud`, the kind of token.
 */
export async function issueToken(
  principal: Principal,
  session: TokenSession,
  secret: string,
  issuer: string,
  lifetimeS: number,
  nowMs: number,
) {
  const iat = Math.floor(nowMs / 1000);
  const user = { id: principal.userId, username: principal.username, roles: [principal.role] };
  const claims = { iss: issuer, iat, exp: iat + lifetimeS, user };
  return sign({ ...claims, sid: session.id, aud: session.audience }, secret, "HS256");
}

/**
 * The principal a valid token of `audience` names, with its session id, or null for any bad,
 * expired or foreign token, a token of the other kind, and one issued before sessions (no `sid`).
 * Whether the session is still live is the caller's question (auth/sessions.ts).
 */
export async function verifyToken(
  token: string,
  secret: string,
  issuer: string,
  audience: Audience,
): Promise<(Principal & { sessionId: string }) | null> {
  try {
    const payload = await verify(token, secret, { alg: "HS256", iss: issuer, aud: audience });
    if (typeof payload.exp !== "number") return null; // a token without an expiry is never accepted
    if (payload.aud !== audience) return null; // one audience, as a text: never a list naming both
    const user = v.parse(TokenUser, payload.user);
    const sessionId = v.parse(SessionId, payload.sid);
    return { userId: user.id, username: user.username, role: user.roles[0], sessionId };
  } catch {
    return null;
  }
}
