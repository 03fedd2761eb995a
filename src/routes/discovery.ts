import { Hono } from "hono";
import type { AppEnv } from "../env";
import { send } from "../http/envelope";
import { NAMESPACE, ROUTES } from "./catalog";

/** WordPress's REST index: `/wp-json/wallet/v1/credits` appears as `/wallet/v1/credits`. */
function routeIndex() {
  const routes: Record<string, { namespace: string; methods: string[] }> = {};
  for (const route of ROUTES) {
    const path = `/${NAMESPACE}${route.path.replace(/\{(\w+)\}/g, "(?P<$1>[^/]+)")}`;
    routes[path] ??= { namespace: NAMESPACE, methods: [] };
    routes[path].methods.push(route.method);
  }
  return routes;
}

export const discovery = new Hono<AppEnv>()
  .get("/", (c) => {
    const base = c.env.SITE_URL.replace(/\/+$/, "");
    return send(c, 200, {
      name: "Wallet ledger",
      description: "Wallet ledger REST API",
      url: base,
      home: base,
      namespaces: [NAMESPACE],
      routes: { [`/${NAMESPACE}`]: { namespace: NAMESPACE, methods: ["GET"] }, ...routeIndex() },
    });
  })
  .get(`/${NAMESPACE}`, (c) => send(c, 200, { namespace: NAMESPACE, routes: routeIndex() }));
