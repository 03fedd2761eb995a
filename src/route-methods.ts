// What the route tables (`wallet/v1` and the compatibility namespace) say about a matched request:
// the methods of its route, for WordPress's Allow header (rest_send_allow_header), and whether it
// only reads, so that its queries may go to a read replica.
import { matchedRoutes, routePath } from "hono/route";
import { COMPAT_ROUTES } from "./compat";
import { honoPath } from "./http/route";
import { NAMESPACE, ROUTES } from "./routes";

/** A Hono route path as the table below keys it: no trailing slash. */
const patternOf = (path: string) => path.replace(/\/$/, "");

/**
 * Each route's methods, by the pattern Hono matches it with (`/wp-json/wallet/v1/transactions/:id{[\d]+}`),
 * the discovery indexes' included.
 */
const methods = new Map<string, string[]>([
  ["/wp-json", ["GET"]],
  [`/wp-json/${NAMESPACE}`, ["GET"]],
  ["/wp-json/:ns/v1", ["GET"]],
]);
for (const [prefix, routes] of [
  [`/wp-json/${NAMESPACE}`, ROUTES],
  ["/wp-json/:ns/v1", COMPAT_ROUTES],
] as const) {
  for (const route of routes) {
    // With its parameters' patterns, as Hono matched it: two routes that differ only there (the
    // plugin's `GET wallets/{wallet}` and `DELETE wallets/{wallet}`) are two WordPress routes.
    const pattern = patternOf(prefix + honoPath(route));
    methods.set(pattern, [...(methods.get(pattern) ?? []), route.method]);
  }
}

/**
 * A Hono route path's methods: worked out once per path (the paths are the route table's own, and a
 * middleware's `*`), not on every request.
 */
const methodsByPath = new Map<string, string[] | undefined>();
function methodsOf(path: string) {
  if (!methodsByPath.has(path)) methodsByPath.set(path, methods.get(patternOf(path)));
  return methodsByPath.get(path);
}

/** The `Allow` header of a matched route: the methods it answers (rest_send_allow_header). */
export const allowFor = (c: Parameters<typeof routePath>[0]) => methodsOf(routePath(c))?.join(", ");

/**
 * Whether the request matched a GET of the route tables: a route that only reads, whose queries may
 * go to a read replica. Known before any handler runs, from the handlers Hono matched (the last one
 * not a middleware); the console's pages and anything unmatched are in neither table.
 */
export function readOnlyRoute(c: Parameters<typeof matchedRoutes>[0]) {
  const handler = matchedRoutes(c).findLast((route) => route.method !== "ALL");
  if (handler?.method !== "GET") return false;
  return methodsOf(handler.path)?.includes("GET") ?? false;
}
