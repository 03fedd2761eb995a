// What WordPress core does around every REST route, whichever plugin serves it (issue 12): CORS as
// rest_send_cors_headers and WP_REST_Server::serve_request send it, the API discovery Link, the
// paging Link header, and the `_method` / X-HTTP-Method-Override switch. The Allow header, which
// needs the route tables, is in ../route-methods.ts.
import type { Context, MiddlewareHandler } from "hono";
import { cors } from "hono/cors";
import { BOOKMARK_HEADER } from "../db/session";
import type { AppEnv } from "../env";
import { percentDecode } from "./decode";

/**
 * The headers WordPress names, since `*` never covers Authorization; X-API-Key for Rimplenet's
 * clients; the D1 bookmark, sent back and read by browser clients too (docs/scaling.md#read-replicas).
 */
const ALLOW_HEADERS = [
  "Authorization",
  BOOKMARK_HEADER,
  "X-WP-Nonce",
  "Content-Disposition",
  "Content-MD5",
  "Content-Type",
  "X-API-Key",
];
const EXPOSE_HEADERS = ["X-WP-Total", "X-WP-TotalPages", "Link", BOOKMARK_HEADER];

/** The origins CORS_ORIGINS names (comma-separated); none named: every origin, as WordPress allows. */
export const allowedOrigins = (setting: string | undefined) =>
  (setting ?? "")
    .split(",")
    .map((origin) => origin.trim().replace(/\/+$/, ""))
    .filter((origin) => origin !== "");

const SHARED = {
  allowMethods: ["OPTIONS", "GET", "POST", "PUT", "PATCH", "DELETE"],
  allowHeaders: ALLOW_HEADERS,
  exposeHeaders: EXPOSE_HEADERS,
};
/** CORS_ORIGINS empty: any Origin echoed, as WordPress does, but never with credentials. */
const anyOrigin = cors({ ...SHARED, origin: (origin) => origin || null });
/** An origin CORS_ORIGINS names: echoed, with credentials. */
const listedOrigin = cors({ ...SHARED, origin: (origin) => origin, credentials: true });
/** CORS_ORIGINS set and the origin not in it (or none sent): no grant at all. */
const unlistedOrigin = cors({ ...SHARED, origin: () => null });

/**
 * The request's Origin echoed on every answer (errors too), and a preflight `OPTIONS` answered 204
 * on any path: hono/cors, configured as WordPress answers, except for credentials.
 * rest_send_cors_headers always adds `Access-Control-Allow-Credentials: true`; here it comes only
 * with an origin CORS_ORIGINS names. This API authenticates by the Authorization header, never by a
 * cookie, so no client needs it; and a credentialed grant to every origin would hand any page the
 * answers to whatever cookie another surface of this host set (issue 21, docs/security.md).
 */
export const corsHeaders: MiddlewareHandler<AppEnv> = (c: Context<AppEnv>, next) => {
  const allowed = allowedOrigins(c.env.CORS_ORIGINS);
  if (allowed.length === 0) return anyOrigin(c, next);
  const origin = c.req.header("origin");
  return origin !== undefined && allowed.includes(origin)
    ? listedOrigin(c, next)
    : unlistedOrigin(c, next);
};

/** `<site/wp-json/>; rel="https://api.w.org/"`: how WordPress clients find the API (site: ./site.ts). */
export const discoveryLink = (siteUrl: string) => `<${siteUrl}/wp-json/>; rel="https://api.w.org/"`;

/**
 * WP_REST_Server's method switch: `?_method=DELETE`, else an `X-HTTP-Method-Override` header, makes a
 * POST run as that method (a form or an old proxy can only send GET and POST). Only a POST is
 * switched: a GET stays safe, so a link can never delete. Written here rather than with
 * hono/method-override, which runs the whole app a second time (two log lines, two CORS passes),
 * reads only one of the two places, and re-encodes the query string (readParams reads its raw bytes).
 */
export function overrideMethod(request: Request): Request {
  if (request.method !== "POST") return request;
  const url = new URL(request.url);
  const pairs = url.search.slice(1).split("&");
  const at = pairs.findIndex((raw) => raw.startsWith("_method="));
  let asked: string | undefined;
  try {
    asked =
      at === -1
        ? (request.headers.get("x-http-method-override") ?? undefined)
        : percentDecode(pairs[at]!.slice("_method=".length), "query");
  } catch {
    return request; // unreadable: readParams answers the query's 400
  }
  const method = asked?.trim().toUpperCase();
  if (!method || !/^[A-Z]{1,10}$/.test(method) || method === "POST") return request;
  if (at !== -1) url.search = pairs.filter((_, i) => i !== at).join("&");
  const headers = new Headers(request.headers);
  headers.delete("x-http-method-override");
  if (method !== "GET" && method !== "HEAD")
    return new Request(url, { method, headers, body: request.body });
  headers.delete("content-type");
  headers.delete("content-length");
  return new Request(url, { method, headers });
}

/**
 * The `Link` header of a paged list, as WP_REST_Posts_Controller builds it: the request's own query
 * with `page` set to the previous and next page, on the site's URL (./site.ts; `prev` stays within
 * the last page).
 */
export function pageLinks(url: URL, siteUrl: string, page: number, pages: number): string[] {
  const link = (to: number, rel: string) => {
    const target = new URL(url.pathname, `${siteUrl}/`);
    target.search = url.search;
    target.searchParams.delete("pageno");
    target.searchParams.set("page", String(to));
    return `<${target}>; rel="${rel}"`;
  };
  const links: string[] = [];
  if (page > 1) links.push(link(Math.max(1, Math.min(page - 1, pages)), "prev"));
  if (pages > page) links.push(link(page + 1, "next"));
  return links;
}
