import { sign, verify } from "hono/jwt";
import * as v from "valibot";
import { BoundedMap } from "../bounded-map";
import type { Principal } from "./principal";
import { sha256Hex } from "./sha256";

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
/** 128 bits in base64url (wallet/sessions.ts openSession). */
const SessionId = v.pipe(v.string(), v.regex(/^[A-Za-z0-9_-]{22}$/));

type TokenSession = { id: string; audience: Audience };

/**
 * The contract's payload (`iss`, `iat`, `exp`, `user`, section 2) plus the session it belongs to:
 * `sid`, checked on every use (wallet/sessions.ts), and `aud`, the kind of token.
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

type Verified = Principal & { sessionId: string };

/**
 * Tokens this isolate has verified, by a SHA-256 of the token and what it was verified against (so
 * the token itself is not kept): what verifying one again would find, since its signature, header,
 * issuer, audience and claims cannot change. Only its times can: every use checks them again
 * (`timesHold`), and an entry is dropped once its token has expired. Whether the session is still
 * live is not cached here (wallet/sessions.ts asks on every use). Refused tokens are not kept.
 */
const MAX_VERIFIED_TOKENS = 10_000;
const verified = new BoundedMap<string, { principal: Verified; times: TokenTimes }>(
  MAX_VERIFIED_TOKENS,
);

type TokenTimes = { nbf?: unknown; exp: number; iat?: unknown };

/** hono/jwt's `verify` checks of `nbf`, `exp` and `iat`, on the same clock (Date.now, seconds). */
function timesHold({ nbf, exp, iat }: TokenTimes) {
  const now = Math.floor(Date.now() / 1000);
  if (nbf !== undefined && (typeof nbf !== "number" || !Number.isFinite(nbf) || nbf > now))
    return false;
  if (!Number.isFinite(exp) || exp <= now) return false;
  if (iat !== undefined && (typeof iat !== "number" || !Number.isFinite(iat) || now < iat))
    return false;
  return true;
}

/** SHA-256 of the token and what it is verified against (a Map key that does not keep the token). */
const verifiedKey = (token: string, secret: string, issuer: string, audience: Audience) =>
  sha256Hex(JSON.stringify([audience, issuer, secret, token]));

/**
 * The principal a valid token of `audience` names, with its session id, or null for any bad,
 * expired or foreign token, a token of the other kind, and one that names no session (`sid`).
 * Whether the session is still live is the caller's question (wallet/sessions.ts). A token verified
 * before in this isolate is not verified again (`verified`, above): its times are.
 */
export async function verifyToken(
  token: string,
  secret: string,
  issuer: string,
  audience: Audience,
): Promise<Verified | null> {
  const key = verifiedKey(token, secret, issuer, audience);
  const known = verified.get(key);
  if (known) {
    if (timesHold(known.times)) return { ...known.principal };
    verified.delete(key);
    return null;
  }
  try {
    const payload = await verify(token, secret, { alg: "HS256", iss: issuer, aud: audience });
    if (typeof payload.exp !== "number") return null; // a token without an expiry is never accepted
    if (payload.aud !== audience) return null; // one audience, as a text: never a list naming both
    const user = v.parse(TokenUser, payload.user);
    const sessionId = v.parse(SessionId, payload.sid);
    const principal = { userId: user.id, username: user.username, role: user.roles[0], sessionId };
    verified.set(key, {
      principal,
      times: { nbf: payload.nbf, exp: payload.exp, iat: payload.iat },
    });
    return { ...principal };
  } catch {
    return null;
  }
}
