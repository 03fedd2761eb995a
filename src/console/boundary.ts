// The console is its own security boundary (docs/security.md#the-console-and-the-api):
// its cookie session never meets the API's CORS (app.ts leaves these paths out of it), a request
// that changes anything must come from the console's own origin, and its pages are isolated from
// other origins' windows and loads.
import type { Context, MiddlewareHandler } from "hono";
import type { ConsoleEnv } from "./env";
import { BASE, isLocalHttp } from "./session";

/** The console's paths: `/wallet-admin` and everything under it. */
export const insideConsole = (path: string) => path === BASE || path.startsWith(`${BASE}/`);

/**
 * Where a browser says the request came from, against the origin the request was sent to. That
 * origin, and no configured one (SITE_URL), is the console's own: its forms post to relative paths,
 * so a genuine form is always sent to the origin that served it, and behind Cloudflare the Worker
 * sees the public URL the browser used. `Origin: null` (a sandboxed frame, a redirect across
 * origins) is foreign. Without Origin, Fetch Metadata: `same-origin`, or `none` (the operator's own
 * action, never a page's); `same-site` is refused, since another port or a sibling subdomain is the
 * same site. With neither header the sender is no current browser (curl, a script that holds the
 * cookie itself, a browser from before 2020): nothing a foreign page can make a browser send, so
 * the CSRF token alone decides.
 */
function requestSource(c: Context<ConsoleEnv>): "own" | "foreign" | "unstated" {
  const origin = c.req.header("origin");
  if (origin !== undefined) return origin === new URL(c.req.url).origin ? "own" : "foreign";
  const site = c.req.header("sec-fetch-site");
  if (site !== undefined) return site === "same-origin" || site === "none" ? "own" : "foreign";
  return "unstated";
}

const SAFE_METHODS = new Set(["GET", "HEAD"]);

/** Whether a browser says another origin's page sent the request (Fetch Metadata). */
export function sentFromAnotherOrigin(c: Context<ConsoleEnv>) {
  const site = c.req.header("sec-fetch-site");
  return site !== undefined && site !== "same-origin" && site !== "none";
}

/**
 * A page read that another origin's page made the browser send without opening it: an image, a
 * fetch, a frame, a link's prefetch (Fetch Metadata's resource isolation policy). Refused, though
 * nothing changes: a page is shown once with its notice or a new key's secret, which such a load
 * would use up unseen. A link followed from anywhere opens the page (a top-level navigation); a
 * prefetch, sent as one but with Sec-Purpose, is fetched again when its link is followed.
 */
function foreignLoad(c: Context<ConsoleEnv>) {
  if (!sentFromAnotherOrigin(c)) return false;
  const navigation =
    c.req.header("sec-fetch-mode") === "navigate" &&
    !c.req.header("sec-purpose")?.includes("prefetch");
  return !navigation || (c.req.header("sec-fetch-dest") ?? "document") !== "document";
}

/** The address over https, where the console's address is plain http but a local one. */
function overHttps(url: string) {
  if (!url.startsWith("http:") || isLocalHttp(url)) return undefined;
  return `https:${url.slice("http:".length)}`;
}

/**
 * Sends a request over plain http (but on a local address) to https before anything is read: a
 * sign-in form served over http would send the password in clear, and the browser would drop the
 * Secure cookie it answered, so the operator, never signed in, would send it again. Refuses a
 * state-changing request from another origin before anything is read or written (the CSRF token
 * is checked after this), and a page another origin loads without navigating to it. Isolates every
 * console answer: no other origin's window keeps a handle on it (COOP) and no other origin may load
 * it (CORP).
 */
export const FOREIGN_REQUEST = "Forbidden: this request did not come from the console's own pages.";

export const consoleBoundary: MiddlewareHandler<ConsoleEnv> = async (c, next) => {
  const secure = overHttps(c.req.url);
  if (secure) c.res = c.redirect(secure, 308);
  else if (SAFE_METHODS.has(c.req.method) ? foreignLoad(c) : requestSource(c) === "foreign")
    c.res = c.text(FOREIGN_REQUEST, 403);
  else await next();
  c.header("Cross-Origin-Opener-Policy", "same-origin");
  c.header("Cross-Origin-Resource-Policy", "same-origin");
  // Over https, the browser goes straight there for a year (HSTS): a later visit typed as http
  // never meets a network that could answer the sign-in form in clear before the redirect.
  if (c.req.url.startsWith("https:")) c.header("Strict-Transport-Security", "max-age=31536000");
};
