// The discovery index of both namespaces (`GET /wp-json/`) and the contract's own
// (`GET /wp-json/wallet/v1`): the app's to answer, since it alone knows every dialect it mounts.
import { Hono } from "hono";
import { COMPAT_ROUTES } from "./compat";
import { BASE as CONSOLE } from "./console/session";
import type { AppEnv } from "./env";
import { send } from "./http/envelope";
import { readParams } from "./http/params";
import { NAMESPACE } from "./http/rest-index";
import { namespaceRoutes } from "./http/route";
import { siteUrl } from "./http/site";
import { ROUTES } from "./routes";
import { REFERENCE } from "./routes/openapi";
import { compatNamespace } from "./settings";

// Each reads its request though it takes nothing, as every route does: a broken JSON body is 400.
export const discovery = new Hono<AppEnv>()
  .get("/", async (c) => {
    await readParams(c, "", true);
    const base = siteUrl(c);
    const compat = compatNamespace(c.env);
    const compatName = compat === null ? null : `${compat}/v1`;
    return send(c, 200, {
      name: "Wallet ledger",
      description: "Wallet ledger REST API",
      url: base,
      home: base,
      namespaces: compatName === null ? [NAMESPACE] : [NAMESPACE, compatName],
      // The operator console (docs/console.md), for a person finding the service from its index.
      console: `${base}${CONSOLE}/`,
      reference: `${base}${REFERENCE}`,
      // WordPress lists its own index first: `/`, in no namespace.
      routes: {
        "/": { namespace: "", methods: ["GET"] },
        ...namespaceRoutes(NAMESPACE, ROUTES),
        ...(compatName === null ? {} : namespaceRoutes(compatName, COMPAT_ROUTES)),
      },
    });
  })
  .get(`/${NAMESPACE}`, async (c) => {
    await readParams(c, "", true);
    return send(c, 200, { namespace: NAMESPACE, routes: namespaceRoutes(NAMESPACE, ROUTES) });
  });
