import { Hono } from "hono";
import { COMPAT_ROUTES, compatNamespace } from "../compat/config";
import type { AppEnv } from "../env";
import { send } from "../http/envelope";
import { NAMESPACE, ROUTES } from ".";
import { REFERENCE } from "./openapi";

type Index = Record<string, { namespace: string; methods: string[] }>;

/** WordPress's REST index: `/wp-json/wallet/v1/credits` appears as `/wallet/v1/credits`. */
function routeIndex(namespace: string, routes: readonly { path: string; method: string }[]) {
  const index: Index = {};
  for (const route of routes) {
    const path = `/${namespace}${route.path.replace(/\{(\w+)\}/g, "(?P<$1>[^/]+)")}`;
    index[path] ??= { namespace, methods: [] };
    index[path].methods.push(route.method);
  }
  return index;
}

/** The compatibility namespace's own index (`GET /wp-json/<ns>/v1`), mounted with its routes. */
export const compatIndex = (namespace: string) => ({
  namespace,
  routes: routeIndex(namespace, COMPAT_ROUTES),
});

export const discovery = new Hono<AppEnv>()
  .get("/", (c) => {
    const base = c.env.SITE_URL.replace(/\/+$/, "");
    const compat = compatNamespace(c.env);
    const compatName = compat === null ? null : `${compat}/v1`;
    return send(c, 200, {
      name: "Wallet ledger",
      description: "Wallet ledger REST API",
      url: base,
      home: base,
      namespaces: compatName === null ? [NAMESPACE] : [NAMESPACE, compatName],
      // The operator console (docs/console.md), for a person finding the service from its index.
      console: `${base}/wallet-admin/`,
      reference: `${base}${REFERENCE}`,
      routes: {
        [`/${NAMESPACE}`]: { namespace: NAMESPACE, methods: ["GET"] },
        ...routeIndex(NAMESPACE, ROUTES),
        ...(compatName === null
          ? {}
          : {
              [`/${compatName}`]: { namespace: compatName, methods: ["GET"] },
              ...compatIndex(compatName).routes,
            }),
      },
    });
  })
  .get(`/${NAMESPACE}`, (c) =>
    send(c, 200, { namespace: NAMESPACE, routes: routeIndex(NAMESPACE, ROUTES) }),
  );
