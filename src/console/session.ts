// The console's session: a console token (audience `wallet-console`, its own row in `sessions`) in a
// cookie (HttpOnly, SameSite=Strict, `__Host-` and Secure except on a local http address), and a
// CSRF token derived from it for every form. An API token in the cookie is no session; a console
// token is no API credential (docs/security.md#sessions).
import { createHmac } from "node:crypto";
import type { Context } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import { CONSOLE_AUDIENCE, TOKEN_LIFETIME_S } from "../auth/tokens";
import { jwtSecret } from "../http/auth";
import { isLocalAddress } from "../settings";
import { sessionPrincipal } from "../wallet/sessions";
import type { ConsoleEnv, Session } from "./env";

export const BASE = "/wallet-admin";
const COOKIE = "wallet_admin";

/** Whether `url` is plain http on this machine (127.0.0.1, localhost, [::1]): `npm run dev`. */
export const isLocalHttp = (url: string) => url.startsWith("http:") && isLocalAddress(url);

/**
 * Every console cookie's name prefix: `__Host-` wherever the cookie is Secure. A browser takes a
 * cookie of that name only from this very host (Path=/, no Domain), where a page on a sibling
 * subdomain may set one of the plain name for it, on a longer path, which the browser then sends
 * first: read as the session, it signed the operator out on every page (again after each sign-in),
 * or signed them in as whoever's token it held. A cookie knows no port: another port of this host
 * can set either name (on Cloudflare every port of the hostname is this Worker). A local http
 * address cannot have Secure cookies in every browser, so it keeps the plain name, under
 * /wallet-admin.
 */
export const cookiePrefix = (c: Context<ConsoleEnv>) =>
  isLocalHttp(c.req.url) ? undefined : "host";

/** Every console cookie's attributes: HttpOnly, SameSite=Strict, and Secure under cookiePrefix. */
export const cookieOptions = (c: Context<ConsoleEnv>, maxAge: number) =>
  ({
    path: BASE,
    httpOnly: true,
    sameSite: "Strict",
    secure: cookiePrefix(c) !== undefined,
    prefix: cookiePrefix(c),
    maxAge,
  }) as const;

/** The value of the console's cookie `name`, under its prefix. */
export const readCookie = (c: Context<ConsoleEnv>, name: string) =>
  getCookie(c, name, cookiePrefix(c));

/** Deletes the console's cookie `name` (the attributes it was set with). */
export const dropCookie = (c: Context<ConsoleEnv>, name: string) =>
  deleteCookie(c, name, cookieOptions(c, 0));

export function startSession(c: Context<ConsoleEnv>, token: string) {
  setCookie(c, COOKIE, token, cookieOptions(c, TOKEN_LIFETIME_S));
}

export const endSession = (c: Context<ConsoleEnv>) => dropCookie(c, COOKIE);

/** The signed-in operator, or null: a console token this service issued, its session live. */
export async function readSession(c: Context<ConsoleEnv>): Promise<Session | null> {
  const token = readCookie(c, COOKIE);
  if (!token) return null;
  const principal = await sessionPrincipal(c.var.service, token, CONSOLE_AUDIENCE);
  if (!principal) return null;
  // An authenticated caller: its log line names it, and its answers may carry the D1 bookmark.
  c.set("principal", principal);
  return { principal, csrf: csrfFor(c, token) };
}

/**
 * A key of the console's own for `purpose`, derived from JWT_SECRET: what the console signs (its
 * notices, its forms' CSRF tokens) under it is never a token's signature, which is an HMAC under
 * JWT_SECRET itself, so no token a user holds can be passed off as either.
 */
export const consoleKey = (c: Context<ConsoleEnv>, purpose: "notice" | "csrf") =>
  createHmac("sha256", jwtSecret(c)).update(`wallet-ledger console ${purpose} v1`).digest("hex");

/** HMAC-SHA-256 of the session's token under the console's CSRF key: a form only our page drew. */
const csrfFor = (c: Context<ConsoleEnv>, token: string) =>
  createHmac("sha256", consoleKey(c, "csrf")).update(token).digest("hex");
