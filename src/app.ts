import { Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import type { AppEnv } from "./env";
import { fail, wpError } from "./http/envelope";
import { onError } from "./http/errors";
import { InvalidJsonError } from "./http/params";
import { apiKeyRoutes } from "./routes/api-keys";
import { balances } from "./routes/balances";
import { NAMESPACE } from "./routes/catalog";
import { credits } from "./routes/credits";
import { debits } from "./routes/debits";
import { transfers } from "./routes/transfers";
import { discovery } from "./routes/discovery";
import { openapi } from "./routes/openapi";
import { transactionRoutes } from "./routes/transactions";
import { userRoutes } from "./routes/users";
import { walletRoutes } from "./routes/wallets";

export const MAX_BODY_BYTES = 64 * 1024;

export type AppOptions = { nowMs?: () => number };

/**
 * `/?rest_route=/wallet/v1/x&a=1` is WordPress's plain-permalink form of `/wp-json/wallet/v1/x?a=1`.
 * WordPress also matches routes case-insensitively; every path segment here is case-free.
 */
function fromPlainPermalink(request: Request) {
  const url = new URL(request.url);
  const route = url.searchParams.get("rest_route");
  const path = route === null || (url.pathname !== "/" && url.pathname !== "/index.php") ? url.pathname : `/wp-json${route.startsWith("/") ? route : `/${route}`}`;
  if (route === null && path === path.toLowerCase()) return request;
  if (route !== null) url.searchParams.delete("rest_route");
  url.pathname = path.toLowerCase();
  return new Request(url, request);
}

export function createApp(options: AppOptions = {}) {
  const nowMs = options.nowMs ?? Date.now;
  const app = new Hono<AppEnv>({ strict: false });

  app.use(async (c, next) => {
    c.set("envelope", "A");
    c.set("requestId", c.req.header("cf-ray") ?? crypto.randomUUID());
    c.set("nowMs", nowMs);
    await next();
  });
  app.use(bodyLimit({ maxSize: MAX_BODY_BYTES, onError: (c) => fail(c, 413, "Payload too large", { body: `at most ${MAX_BODY_BYTES} bytes` }) }));

  const api = new Hono<AppEnv>({ strict: false })
    .route("/credits", credits)
    .route("/debits", debits)
    .route("/transfers", transfers)
    .route("/user-wallet-balance", balances)
    .route("/transactions", transactionRoutes)
    .route("/users", userRoutes)
    .route("/wallets", walletRoutes)
    .route("/api-keys", apiKeyRoutes)
    .route("/openapi.json", openapi);

  app.route("/wp-json", discovery);
  app.route(`/wp-json/${NAMESPACE}`, api);

  app.notFound((c) => wpError(c, 404, "rest_no_route", "No route was found matching the URL and request method."));
  app.onError((err, c) =>
    err instanceof InvalidJsonError ? wpError(c, 400, "rest_invalid_json", "Invalid JSON body passed.") : onError(err, c),
  );

  const fetch = app.fetch;
  app.fetch = (request, env, ctx) => fetch(fromPlainPermalink(request), env, ctx);
  return app;
}
