// WordPress's REST index (`GET /wp-json/`, `GET /wp-json/<namespace>`): each route under its
// namespace, with the methods it answers, as rest_get_server()->get_index() lists them.
import { indexPath, type RouteInfo } from "./route";

type RouteIndex = Record<string, { namespace: string; methods: string[] }>;

/**
 * A namespace's routes as WordPress indexes them: register_route makes `/<namespace>` (its index,
 * GET) the namespace's first route, so `GET /wp-json/` and `GET /wp-json/<namespace>` both list it;
 * `/wp-json/wallet/v1/credits` appears as `/wallet/v1/credits`, a path parameter as its pattern.
 */
export function namespaceRoutes(namespace: string, routes: readonly RouteInfo[]): RouteIndex {
  const index: RouteIndex = { [`/${namespace}`]: { namespace, methods: ["GET"] } };
  for (const route of routes) {
    const path = `/${namespace}${indexPath(route)}`;
    index[path] ??= { namespace, methods: [] };
    index[path].methods.push(route.method);
  }
  return index;
}
