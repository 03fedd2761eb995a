// WordPress's REST index (`GET /wp-json/`, `GET /wp-json/<namespace>`): each route under its
// namespace, with the methods it answers, as rest_get_server()->get_index() lists them.
import { CONTRACT_NAMESPACE } from "../settings";

/** The contract's namespace: `/wp-json/wallet/v1/...`. */
export const NAMESPACE = `${CONTRACT_NAMESPACE}/v1`;

/** The `{name}`s of a route's path, in order (read on every request of the route: kept). */
export const pathNames = (path: string) => {
  let names = namesOf.get(path);
  if (!names) namesOf.set(path, (names = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!)));
  return names;
};
const namesOf = new Map<string, string[]>();

export type RouteIndex = Record<string, { namespace: string; methods: string[] }>;

/** `/wp-json/wallet/v1/credits` appears as `/wallet/v1/credits`; `{id}` as `(?P<id>[^/]+)`. */
export function routeIndex(
  namespace: string,
  routes: readonly { path: string; method: string }[],
): RouteIndex {
  const index: RouteIndex = {};
  for (const route of routes) {
    const path = `/${namespace}${route.path.replace(/\{(\w+)\}/g, "(?P<$1>[^/]+)")}`;
    index[path] ??= { namespace, methods: [] };
    index[path].methods.push(route.method);
  }
  return index;
}

/**
 * A namespace's routes as WordPress indexes them: register_route makes `/<namespace>` (its index,
 * GET) the namespace's first route, so `GET /wp-json/` and `GET /wp-json/<namespace>` both list it.
 */
export const namespaceRoutes = (
  namespace: string,
  routes: readonly { path: string; method: string }[],
): RouteIndex => ({
  [`/${namespace}`]: { namespace, methods: ["GET"] },
  ...routeIndex(namespace, routes),
});
