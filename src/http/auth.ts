import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import { decodeKeyCredential, hashApiKey } from "../auth/api-keys";
import { type Principal, scopeAllows } from "../auth/principal";
import { verifyToken } from "../auth/tokens";
import { findKeyOwner, touchApiKey } from "../db/api-keys";
import { isolateCache, KEY_TTL_MS } from "../db/isolate-cache";
import type { AppEnv } from "../env";
import { isPrintableAscii } from "./decode";
import { permissionDenied } from "./errors";

const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;
// last_used_at is a hint, not an audit log: refresh it at most once a minute per key.
const TOUCH_INTERVAL_MS = 60_000;

export function jwtSecret(c: Context<AppEnv>) {
  const secret = c.env.JWT_SECRET;
  if (!secret) throw new Error("JWT_SECRET is not configured");
  return secret;
}

async function principalFromKey(c: Context<AppEnv>, token: string): Promise<Principal | null> {
  const credential = decodeKeyCredential(token);
  if (!credential) return null;
  const keyHash = await hashApiKey(credential.key);
  const cache = isolateCache(c.env.DB).keys;
  const nowMs = Date.now();
  let cached = cache.get(keyHash);
  if (!cached || nowMs - cached.verifiedAtMs > KEY_TTL_MS) {
    const db = c.var.db;
    const owner = await findKeyOwner(db, keyHash);
    cache.delete(keyHash);
    if (!owner) return null;
    cached = {
      keyId: owner.keyId,
      verifiedAtMs: nowMs,
      principal: {
        userId: owner.userId,
        username: owner.username,
        role: owner.role,
        scope: owner.scope,
      },
    };
    cache.set(keyHash, cached);
    if (owner.lastUsedAtMs === null || nowMs - owner.lastUsedAtMs > TOUCH_INTERVAL_MS)
      await touch(c, touchApiKey(db, owner.keyId, nowMs));
  }
  // A key works only with its own username; say nothing about which part was wrong.
  if (cached.principal.username.toLowerCase() !== credential.username.toLowerCase()) return null;
  return cached.principal;
}

/** Runs a bookkeeping write after the response when the runtime allows, else before it. */
async function touch(c: Context<AppEnv>, write: Promise<unknown>) {
  const settled = write.then(
    () => undefined,
    () => undefined,
  );
  try {
    c.executionCtx.waitUntil(settled);
  } catch {
    await settled; // no execution context (tests calling app.request directly)
  }
}

async function principalFrom(c: Context<AppEnv>, header: string): Promise<Principal | null> {
  // `<scheme> <token>`: two words split by white space (the header arrives trimmed).
  const [scheme, token, ...rest] = header.split(/[ \t]+/);
  if (!scheme || !token || rest.length > 0) return null;
  switch (scheme.toLowerCase()) {
    case "bearer":
      if (JWT_SHAPE.test(token)) return verifyToken(token, jwtSecret(c), c.env.JWT_ISSUER);
      return principalFromKey(c, token);
    case "key":
    case "basic":
      return principalFromKey(c, token);
    default:
      return null;
  }
}

/**
 * Who the `Authorization` header names: a principal, or why not. Routes answer the refusal in their
 * own dialect (contract section 2 here, the plugin's texts in src/compat/).
 */
export async function credentialOf(c: Context<AppEnv>): Promise<Principal | "missing" | "invalid"> {
  const header = c.req.header("authorization")?.trim();
  if (!header) return "missing";
  // Bytes outside ASCII can be no credential: the same 401 as any other (contract section 2).
  if (!isPrintableAscii(header)) return "invalid";
  return (await principalFrom(c, header)) ?? "invalid";
}

/** Requires credentials (contract section 2) and sets `principal`. */
export const authenticate = createMiddleware<AppEnv>(async (c, next) => {
  const principal = await credentialOf(c);
  if (principal === "missing") throw permissionDenied.missing();
  if (principal === "invalid") throw permissionDenied.invalid();
  c.set("principal", principal);
  await next();
});

/** Administrator routes: a JWT administrator, or an administrator's key with the needed scope. */
export function requireAdmin(c: Context<AppEnv>, access: "read" | "write") {
  const p = c.get("principal");
  if (p.role !== "administrator" || !scopeAllows(p.scope, access))
    throw permissionDenied.forbidden();
}

/**
 * Whether `p` may read about user `userId`: administrators read anyone, subscribers only themselves
 * (`undefined` means the caller's own user); a key needs the read scope.
 */
export const mayReadUser = (p: Principal, userId: number | undefined) =>
  scopeAllows(p.scope, "read") &&
  (p.role === "administrator" || userId === undefined || userId === p.userId);

/** Reads about one user: administrators read anyone, subscribers only themselves. */
export function requireReaderOf(c: Context<AppEnv>, userId: unknown) {
  const id =
    userId === undefined
      ? undefined
      : /^[0-9]+$/.test(String(userId))
        ? Number(userId)
        : Number.NaN;
  if (!mayReadUser(c.get("principal"), id)) throw permissionDenied.forbidden();
}
