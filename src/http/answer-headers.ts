import type { Context } from "hono";
import type { AppEnv } from "../env";

/**
 * Where a request's D1 bookmark travels, both ways (db/d1-session.ts, docs/scaling.md#read-replicas):
 * Cloudflare's name for it, in their examples and templates.
 */
export const BOOKMARK_HEADER = "x-d1-bookmark";

/** Refusals of credentials, role or rate: a caller who gets one is told nothing of the database. */
const REFUSED = new Set([401, 403, 429]);

/**
 * The D1 bookmark orders the database's writes, so it tells whoever holds it how busy the database
 * is, and how many writes a request made: it goes only to a caller the route authenticated (a token
 * or a key), never with a refusal of its credentials or its pace. A public route (health, sign-in,
 * mailed links) answers without one: its writes, or their absence, must tell a stranger nothing.
 */
export const showsBookmark = (status: number, authenticated: boolean) =>
  authenticated && !REFUSED.has(status);

/**
 * The answer's headers, to write to in place, once the handler has answered. Hono's `c.header`
 * copies a finished answer on every call, because a `fetch()`'s headers cannot change; an answer
 * built here can, so it is copied only when it refuses, not once for each header.
 */
export function answerHeaders(c: Context<AppEnv>): Headers {
  try {
    c.res.headers.set("X-Content-Type-Options", "nosniff");
  } catch {
    c.res = new Response(c.res.body, c.res);
  }
  return c.res.headers;
}
