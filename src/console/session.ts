// The console's session: a console token (audience `wallet-console`, its own row in `sessions`) in a
// cookie (HttpOnly, SameSite=Strict, Secure except on a local http address), and a CSRF token derived
// from it for every form. An API token in the cookie is no session; a console token is no API
// credential (docs/security.md#sessions).
import type { Context } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import { CONSOLE_AUDIENCE, TOKEN_LIFETIME_S } from "../auth/tokens";
import { jwtSecret, tokenKeys } from "../http/auth";
import { sessionPrincipal } from "../wallet/sessions";
import type { ConsoleEnv, Session } from "./env";

export const BASE = "/wallet-admin";
const COOKIE = "wallet_admin";

const isLocalHttp = (url: string) => /^http:\/\/(127\.0\.0\.1|localhost|\[::1\])(:|\/|$)/.test(url);

/** Every console cookie's attributes: its own path, HttpOnly, SameSite=Strict, Secure. */
export const cookieOptions = (c: Context<ConsoleEnv>, maxAge: number) =>
  ({
    path: BASE,
    httpOnly: true,
    sameSite: "Strict",
    secure: !isLocalHttp(c.req.url),
    maxAge,
  }) as const;

export function startSession(c: Context<ConsoleEnv>, token: string) {
  setCookie(c, COOKIE, token, cookieOptions(c, TOKEN_LIFETIME_S));
}

export const endSession = (c: Context<ConsoleEnv>) => deleteCookie(c, COOKIE, { path: BASE });

/** The signed-in operator, or null: a console token this service issued, its session live. */
export async function readSession(c: Context<ConsoleEnv>): Promise<Session | null> {
  const token = getCookie(c, COOKIE);
  if (!token) return null;
  const principal = await sessionPrincipal(
    c.var.db,
    token,
    CONSOLE_AUDIENCE,
    tokenKeys(c),
    c.get("nowMs")(),
  );
  if (!principal) return null;
  // An authenticated caller: its log line names it, and its answers may carry the D1 bookmark.
  c.set("principal", principal);
  return { token, principal, csrf: await csrfFor(c, token) };
}

/** HMAC-SHA-256 of the session's token under the JWT secret: a form can only come from our page. */
async function csrfFor(c: Context<ConsoleEnv>, token: string) {
  const key = await crypto.subtle.importKey(
    "raw",
    new TextEncoder().encode(jwtSecret(c)),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  const mac = await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(`csrf:${token}`));
  return [...new Uint8Array(mac)].map((b) => b.toString(16).padStart(2, "0")).join("");
}
