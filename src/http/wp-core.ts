// What WordPress core does around every REST route, whichever plugin serves it: the route a request
// names (its path or `rest_route`), CORS as rest_send_cors_headers and WP_REST_Server::serve_request
// send it, the API discovery Link, the paging Link header, and the `_method` /
// X-HTTP-Method-Override switch. The Allow header, which
// needs the route tables, is in ../route-methods.ts.
import type { Context, MiddlewareHandler } from "hono";
import type { AppEnv } from "../env";
import { varText } from "../settings";
import { asciiLower, asciiUpper } from "../wallet/rules";
import { answerHeaders, BOOKMARK_HEADER } from "./answer-headers";
import { pairValue } from "./decode";
import { logOnce } from "./log-once";
import { lastPairOf, pairPath, phpName } from "./php-vars";
import { siteUrl } from "./site";

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
const EXPOSE_HEADERS = ["X-WP-Total", "X-WP-TotalPages", "Link", BOOKMARK_HEADER].join(",");

/**
 * CORS_ORIGINS read: the origins it names, as browsers send them (comma-separated, a trailing `/`
 * ignored), and whether every origin is let in besides (none named, or `*`, as WordPress allows).
 * An entry that is no origin (`app.example.com`, a path, `null`) matches nothing: the first
 * request logs it, once. `null` is what a sandboxed frame or a file sends, so naming it would
 * grant any such page.
 */
function corsPolicy(setting: string | undefined) {
  const entries = (setting ?? "")
    .split(",")
    .map((entry) => entry.trim().replace(/\/+$/, ""))
    .filter((entry) => entry !== "");
  const listed = entries.filter((entry) => entry !== "*");
  const named: string[] = [];
  for (const entry of listed) {
    const origin = sentOrigin(entry);
    if (origin) named.push(origin);
    else
      logOnce(
        `CORS_ORIGINS ${entry}`,
        {
          setting: "CORS_ORIGINS",
          notice: `"${entry}" is not an origin (scheme://host[:port]), so no browser's Origin matches it`,
        },
        "error",
      );
  }
  return { everyOrigin: listed.length === 0 || listed.length < entries.length, named };
}

/**
 * An Origin header as browsers send one, or none: `null` (a sandboxed frame, a file), or a single
 * `scheme://host[:port]` in visible ASCII (apps' `capacitor://localhost` too). Anything else (two
 * joined by a comma, a non-ASCII host) is not echoed.
 */
const SENT_ORIGIN = /^(?:|null|[a-z][a-z0-9+.-]*:\/\/[\x21-\x2b\x2d\x2e\x30-\x7e]+)$/i;

/**
 * The Origin a browser sends from the page an entry names, or null if it names no origin: a
 * scheme and host (and port) alone, no path, query, fragment or user info, and no `%` (URL would
 * decode `%2e` into a host other than the one written). That of http(s) as URL
 * serialises it: scheme and host lower-case, no default port. An app's own scheme
 * (`capacitor://localhost`) has no URL origin (`null`); WebKit sends it as written, lower-case.
 * A `file:` URL has none either, and browsers send `null` for it.
 */
function sentOrigin(entry: string) {
  if (!/^[a-z][a-z0-9+.-]*:\/\/[^\s/?#@\\%]+$/i.test(entry)) return null;
  try {
    const url = new URL(entry);
    if (url.origin !== "null") return url.origin;
    if (url.protocol === "file:") return null;
    return `${url.protocol}//${url.host.toLowerCase()}`;
  } catch {
    return null;
  }
}

/** corsPolicy of the setting an isolate last saw: an env's setting is read on every request. */
let cors = { setting: undefined as string | undefined, policy: corsPolicy(undefined) };
const corsOf = (setting: string | undefined) => {
  if (cors.setting !== setting) cors = { setting, policy: corsPolicy(setting) };
  return cors.policy;
};

const ALLOW_METHODS = ["OPTIONS", "GET", "POST", "PUT", "PATCH", "DELETE"].join(",");

/**
 * The request's Origin echoed on every answer (errors too), and a preflight `OPTIONS` answered 204
 * on any path, as rest_send_cors_headers answers, except for credentials.
 * rest_send_cors_headers always adds `Access-Control-Allow-Credentials: true`; here it comes only
 * with an origin CORS_ORIGINS names. This API authenticates by the Authorization header, never by a
 * cookie, so no client needs it; and a credentialed grant to every origin would hand any page the
 * answers to whatever cookie another surface of this host set (docs/security.md).
 *
 * CORS_ORIGINS empty or `*`: any Origin echoed, never with credentials; an origin it names:
 * echoed, with credentials; any other: no CORS header at all. The headers are written onto the
 * answer once it exists, rather than through a placeholder answer that every answer is then copied
 * over.
 */
export const corsHeaders: MiddlewareHandler<AppEnv> = async (c: Context<AppEnv>, next) => {
  const { everyOrigin, named } = corsOf(varText(c.env.CORS_ORIGINS));
  const origin = c.req.header("origin") || "";
  const listed = named.includes(origin);
  const grant = listed || (everyOrigin && SENT_ORIGIN.test(origin)) ? origin : null;
  if (c.req.method === "OPTIONS") {
    const headers = new Headers();
    grantTo(headers, grant, listed);
    if (grant !== null) {
      headers.set("Access-Control-Allow-Methods", ALLOW_METHODS);
      headers.set("Access-Control-Allow-Headers", ALLOW_HEADERS.join(","));
    }
    headers.append("Vary", "Access-Control-Request-Headers");
    return new Response(null, { headers, status: 204, statusText: "No Content" });
  }
  await next();
  grantTo(answerHeaders(c), grant, listed);
};

/** `grant` null: an origin CORS_ORIGINS leaves out, told nothing of the API (no header at all). */
function grantTo(headers: Headers, grant: string | null, listed: boolean) {
  headers.append("Vary", "Origin");
  if (grant === null) return;
  if (grant) headers.set("Access-Control-Allow-Origin", grant);
  if (listed) headers.set("Access-Control-Allow-Credentials", "true");
  headers.set("Access-Control-Expose-Headers", EXPOSE_HEADERS);
}

/** `<site/wp-json/>; rel="https://api.w.org/"`: how WordPress clients find the API (site: ./site.ts). */
export const discoveryLink = (siteUrl: string) => `<${siteUrl}/wp-json/>; rel="https://api.w.org/"`;

/**
 * A path no route has. A request that names no route whatever its path says (a method no route
 * has, a plain permalink's route that cannot be read or leaves the API) is sent there, to be
 * answered as WordPress answers it: 404 `rest_no_route`.
 */
const NO_ROUTE_PATH = "/wp-json/.no-route";

/**
 * WordPress registers its REST rewrite rules under `index.php/` too, so a site with PATHINFO
 * permalinks (`/index.php/%postname%/`) gives its clients `/index.php/wp-json/` as the API's base.
 */
const withoutIndexPhp = (path: string) =>
  /^\/index\.php\/wp-json(?:\/|$)/.test(path) ? path.slice("/index.php".length) : path;

/**
 * The request as WordPress routes it. `/?rest_route=/wallet/v1/x&a=1` is the plain-permalink form of
 * `/wp-json/wallet/v1/x?a=1`. WordPress matches routes case-insensitively, once the path is
 * percent-decoded; every path segment here is case-free. The other query parameters are kept as the
 * client wrote them, so readParams still sees their raw bytes (and judges a `rest_route` left in a
 * `/wp-json/…` path's query, or a form's, against the route served: params.ts withoutRoute).
 */
function fromPlainPermalink(request: Request) {
  // Most requests name their route in a lower-case path without escapes: that is read off the URL's
  // text, which the runtime hands over serialized, without parsing it again.
  const path = pathOf(request.url);
  if (
    path !== "/" &&
    !path.startsWith("/index.php") &&
    path === path.toLowerCase() &&
    !path.includes("%") &&
    !path.endsWith("//")
  )
    return request;
  const url = new URL(request.url);
  let lower = routeTrimmed(withoutIndexPhp(asciiLower(unreservedDecoded(url.pathname))));
  let named = false;
  let queried: string | undefined;
  if (url.pathname === "/" || url.pathname === "/index.php") {
    // `$_GET['rest_route']`: the name decoded (`rest%5Froute` is it too), the last one counting.
    // A last `rest_route[…]` makes it an array, which WordPress cannot serve (PHP 8 stops with a
    // fatal error): no route, never the one an earlier pair or the path named.
    const pairs = url.search.slice(1).split("&");
    const last = lastPairOf(pairs, "rest_route", pairPathOf);
    const value = last && !last.array ? routeValueOf(pairs[last.at]!) : undefined;
    // An empty one is none: rest_api_loaded() returns at once, and WordPress serves the page.
    if (last && value !== "") {
      named = true;
      queried = value;
      lower = queried === undefined ? NO_ROUTE_PATH : restRoutePath(queried);
      // Every rest_route pair goes: an array before the last plain one was replaced by it in
      // `$_GET`, and a last array named no route.
      url.search = pairs.filter((raw) => pairPathOf(raw)?.name !== "rest_route").join("&");
    }
  }
  if (lower === url.pathname && !named) return request;
  url.pathname = lower;
  const rewritten = new Request(url, request);
  if (queried !== undefined) queryRoutes.set(rewritten, queried);
  return rewritten;
}

/** `$_GET['rest_route']` as PHP decoded it, by the request it routed. */
const queryRoutes = new WeakMap<Request, string>();

/**
 * The `rest_route` text a request's query named (`$_GET['rest_route']`), which a form body's must
 * equal exactly (WP::parse_request: 400 "A variable mismatch has been detected."); undefined when
 * the query named none.
 */
export const queryRoute = (request: Request) => queryRoutes.get(request);

/**
 * The request as WordPress serves it: routed by its path or `rest_route`, then its method switch,
 * which is the REST server's alone (`apart`: paths that are not the REST API's).
 */
export function wordpressRequest(request: Request, apart: (path: string) => boolean) {
  const routed = fromPlainPermalink(request);
  const switched = overrideMethod(routed, apart);
  const queried = queryRoutes.get(routed);
  if (queried !== undefined) queryRoutes.set(switched, queried);
  return switched;
}

/**
 * WordPress strips every trailing slash of a route (untrailingslashit): `credits//` is `credits`, and
 * `/wp-json//` the index (an empty route is `/`).
 */
const routeTrimmed = (path: string) => path.replace(/^(\/wp-json(?:\/.*[^/])?)\/{2,}$/, "$1/");

/**
 * The path a decoded `rest_route` names, as the router reads it. It was decoded once already: a `%`
 * left in it is itself, and what a path escapes is written as the path form writes it, so the router
 * reads the name as it was meant. A route is a name, not a URL path: one the path would read
 * otherwise (a `..` however escaped, a `\`, a control character) names no route, nor one without
 * its leading `/` (rest_api_loaded serves the text as it is, and every registered route starts
 * with `/`, so WordPress answers `wallet/v1/credits` rest_no_route).
 */
export function restRoutePath(route: string) {
  if (!route.startsWith("/")) return NO_ROUTE_PATH;
  const path = routeTrimmed(pathText(asciiLower(`/wp-json${route}`)));
  const url = new URL("http://route.invalid/");
  url.pathname = path;
  return url.pathname === path ? path : NO_ROUTE_PATH;
}

/**
 * A decoded route name as a URL path, written as the path form writes it: its `%`, the characters a
 * URL path escapes (space " # < > ? ` { } ^) and those outside ASCII escaped. Controls and `\` are
 * left for the URL to rewrite, which makes the name no route.
 */
const pathText = (name: string) =>
  name
    .replace(/%/g, "%25")
    .replace(/[ "#<>?`{}^\u0080-\uffff]+/g, (text) => encodeURIComponent(text));

/** A query pair's name as PHP registers it; null for one not UTF-8 (readParams refuses the query). */
function pairPathOf(raw: string) {
  try {
    return pairPath(raw);
  } catch {
    return null;
  }
}

/** A `rest_route` pair's value, decoded once as PHP decodes `$_GET`; unreadable, no route's. */
function routeValueOf(raw: string) {
  try {
    return pairValue(raw);
  } catch {
    return NO_ROUTE_PATH; // readParams refuses any other unreadable pair
  }
}

/** A path with its escapes of letters, digits and `-._~` decoded (RFC 3986 says they are the same). */
const unreservedDecoded = (path: string) =>
  path.replace(/%([0-9A-Fa-f]{2})/g, (escaped, hex: string) => {
    const char = String.fromCharCode(Number.parseInt(hex, 16));
    return /[A-Za-z0-9\-._~]/.test(char) ? char : escaped;
  });

/** A serialized absolute URL's path, as `new URL(url).pathname` reads it. */
function pathOf(url: string) {
  const start = url.indexOf("/", url.indexOf("//") + 2);
  if (start === -1) return "/";
  const end = url.slice(start).search(/[?#]/);
  return end === -1 ? url.slice(start) : url.slice(start, start + end);
}

/** The methods a WordPress route can have; a switch to any other names no route. */
const ROUTE_METHODS = new Set(["GET", "HEAD", "PUT", "PATCH", "DELETE", "OPTIONS"]);

/**
 * WP_REST_Server's method switch: `?_method=DELETE`, else an `X-HTTP-Method-Override` header, makes a
 * POST run as that method (a form or an old proxy can only send GET and POST). Only a POST is
 * switched: a GET stays safe, so a link can never delete. Written here rather than with
 * hono/method-override, which runs the whole app a second time (two log lines, two CORS passes),
 * reads only one of the two places, and re-encodes the query string (readParams reads its raw bytes).
 * A path `apart` names (the console's) is no REST route: its request keeps its method.
 */
export function overrideMethod(request: Request, apart = (_path: string) => false): Request {
  if (request.method !== "POST") return request;
  // Neither switch present (nearly every POST): nothing to read. A query with a `%` may name
  // `_method` escaped (`%5Fmethod`), which PHP decodes before it reads the name (and `.method`
  // is `_method` too, as PHP registers names: php-vars.ts phpPath).
  const query = request.url.includes("?") ? request.url.slice(request.url.indexOf("?")) : "";
  if (
    !query.includes("method") &&
    !query.includes("%") &&
    !request.headers.has("x-http-method-override")
  )
    return request;
  const url = new URL(request.url);
  if (apart(url.pathname)) return request;
  const pairs = url.search.slice(1).split("&");
  let asked: string | null;
  let last: ReturnType<typeof lastPairOf>;
  try {
    // `$_GET['_method']`. An array (a last `_method[…]`) WordPress cannot switch to (PHP 8 stops
    // with a fatal error, PHP 7 names no method): no route, never the POST it was sent as.
    last = lastPairOf(pairs, "_method");
    asked =
      last === undefined
        ? request.headers.get("x-http-method-override")
        : last.array
          ? ""
          : pairValue(pairs[last.at]!);
  } catch {
    return request; // unreadable: readParams answers the query's 400
  }
  if (asked === null) return request; // a pair such as `tax_method=`: no switch
  const method = asciiUpper(asked.trim());
  if (method === "POST") return request;
  if (last) url.search = pairs.filter((_, i) => i !== last.at).join("&");
  if (!ROUTE_METHODS.has(method)) {
    // Still a POST, but to no route: the POST route it was sent to must not run.
    url.pathname = NO_ROUTE_PATH;
    return new Request(url, request);
  }
  const headers = new Headers(request.headers);
  headers.delete("x-http-method-override");
  if (method !== "GET" && method !== "HEAD")
    return new Request(url, { method, headers, body: request.body });
  headers.delete("content-type");
  headers.delete("content-length");
  return new Request(url, { method, headers });
}

/** A whole list's headers: its total, in one page, none when it is empty (as WordPress counts). */
export const wholeListHeaders = (total: number) => ({
  "X-WP-Total": String(total),
  "X-WP-TotalPages": total === 0 ? "0" : "1",
});

/** What names a list's page: `page`, and `pageno`, the plugin's alias of it on wallet/v1. */
const PAGE_NAMES = new Set(["page", "pageno"]);

/**
 * A paged list's headers, as WordPress sends them: X-WP-Total (items), X-WP-TotalPages and, when
 * there is a previous or next page, `Link` as WP_REST_Posts_Controller builds it: the request's own
 * query with `page` set to the previous and next page, on the site's URL (./site.ts; `prev` stays
 * within the last page). wallet/v1's paged lists and the plugin's credit, debit and transfer lists
 * answer these (not its `GET transactions` search, which counts nothing). `pinned` sets parameters
 * whose value the answer settled (a statement's `to` once clamped), so every page reads the same.
 */
export function pageHeaders(
  c: Context<AppEnv>,
  total: number,
  page: number,
  perPage: number,
  pinned: Record<string, string> = {},
) {
  const pages = Math.ceil(total / perPage);
  const url = new URL(c.req.url);
  // Appended, not resolved: a SITE_URL with a path (a site in a subdirectory) keeps it, as the
  // discovery link and guids do.
  const base = new URL(`${siteUrl(c)}${url.pathname}`);
  base.search = url.search;
  // PHP reads other names as `page` and `pageno` too (` page`, `page[]`), the last one counting:
  // left in, one would name another page than the link's. So for a pinned name.
  for (const name of new Set(base.searchParams.keys())) {
    const read = phpName(name) ?? "";
    if ((PAGE_NAMES.has(read) && name !== "page") || Object.hasOwn(pinned, read))
      base.searchParams.delete(name);
  }
  for (const [name, value] of Object.entries(pinned)) base.searchParams.set(name, value);
  const link = (to: number, rel: string) => {
    const target = new URL(base);
    target.searchParams.set("page", String(to));
    return `<${target}>; rel="${rel}"`;
  };
  const links: string[] = [];
  if (page > 1) links.push(link(Math.max(1, Math.min(page - 1, pages)), "prev"));
  if (pages > page) links.push(link(page + 1, "next"));
  const headers: Record<string, string> = {
    "X-WP-Total": String(total),
    "X-WP-TotalPages": String(pages),
  };
  if (links.length > 0) headers.Link = links.join(", ");
  return headers;
}
