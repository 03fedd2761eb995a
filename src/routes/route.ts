import { type Context, type Handler, Hono, type MiddlewareHandler } from "hono";
import { createMiddleware } from "hono/factory";
import type * as v from "valibot";
import type { AppEnv } from "../env";
import { authenticate } from "../http/auth";
import type { ErrorCode } from "../http/errors";
import { requireSettings } from "../http/settings";

export { NAMESPACE } from "../http/rest-index";

/** What a route is, beside its handler: the discovery index, `Allow`, the OpenAPI document and
 * the error catalogue's per-route codes are all read from it. */
export type RouteInfo = {
  /** Under the namespace, `{name}` for a path parameter (OpenAPI's form). */
  path: string;
  method: "GET" | "POST" | "DELETE";
  summary: string;
  /** `none`: public; otherwise credentials are required before the handler runs, which then
   * checks the role (`admin`) or whose data it is (`reader`), or needs an access token's session
   * (`session`: any signed-in user; a key has no session). */
  auth: "none" | "admin" | "reader" | "session";
  params?: v.GenericSchema;
  envelope: "A" | "B" | "index";
  success: number;
  /** The success answer's `data` (src/routes/answers.ts); the body itself for `index` routes. */
  data: v.GenericSchema;
  /** What the route itself can refuse with; credentials, malformed requests and faults are added. */
  errors?: ErrorCode[];
  /** Path parameters that match only this pattern; any other value is no route (rest_no_route). */
  patterns?: Record<string, string>;
};

export type Route = RouteInfo & { handler: Handler<AppEnv> };

export const defineRoute = (info: RouteInfo, handler: Handler<AppEnv>): Route => ({
  ...info,
  handler,
});

const honoPath = (route: RouteInfo) =>
  route.path.replace(/\{(\w+)\}/g, (_, name: string) =>
    route.patterns?.[name] ? `:${name}{${route.patterns[name]}}` : `:${name}`,
  );

// Users and login answer in envelope B (both data and error keys, status "failed").
const envelopeB = createMiddleware<AppEnv>(async (c, next) => {
  c.set("envelope", "B");
  await next();
});

/** Whether a route needs the service's settings: all but the index ones, which name routes only. */
export const needsSettings = (route: RouteInfo) => route.envelope !== "index";

/**
 * Each route at its path, answering in its envelope, behind the settings check (503 while one is
 * missing) and authentication unless it is public.
 */
export function mountRoutes(routes: readonly Route[]) {
  const app = new Hono<AppEnv>({ strict: false });
  for (const route of routes) {
    const before: MiddlewareHandler<AppEnv>[] = [
      ...(route.envelope === "B" ? [envelopeB] : []),
      ...(needsSettings(route) ? [requireSettings] : []),
      ...(route.auth === "none" ? [] : [authenticate]),
    ];
    app.on([route.method], [honoPath(route)], ...before, route.handler);
  }
  return app;
}

/** A path parameter of the matched route (its pattern, if any, already held). */
export const pathParam = (c: Context<AppEnv>, name: string) => c.req.param(name) ?? "";
