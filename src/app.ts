import { type Context, Hono, type MiddlewareHandler } from "hono";
import { routePath } from "hono/route";
import { type Pace, padToFloor } from "./auth/pace";
import { compatRoutes } from "./compat";
import { consoleRoutes } from "./console";
import { ICON } from "./console/assets";
import { insideConsole } from "./console/boundary";
import { BASE as CONSOLE } from "./console/session";
import { createDb } from "./db/client";
import { requestedStart, SessionDatabase, UNBOUND_D1 } from "./db/d1-session";
import { type D1Cost, meterD1 } from "./db/meter";
import { discovery } from "./discovery";
import type { AppEnv } from "./env";
import type { Outbound } from "./events/deliver";
import { health } from "./health";
import { answerHeaders, BOOKMARK_HEADER, showsBookmark } from "./http/answer-headers";
import { tokenKeys } from "./http/auth";
import { BODY_TOO_LARGE, limitBody } from "./http/body-limit";
import { fail, send, wpError } from "./http/envelope";
import { ERRORS, onError } from "./http/errors";
import { afterAnswer, keepAlive } from "./http/keep-alive";
import { mailSettings } from "./http/mail";
import { MemoRouter } from "./http/memo-router";
import { InvalidJsonError } from "./http/params";
import { clientAddress, entryStamp, siteSettings, siteUrl } from "./http/site";
import { nudgeWebhooks, webhookSettings, wroteRows } from "./http/webhooks";
import { corsHeaders, discoveryLink, queryRoute, wordpressRequest } from "./http/wp-core";
import type { EntryStamp } from "./ledger/entries";
import { d1Ledger, type LedgerEngine } from "./ledger/writer";
import { reference } from "./reference";
import { allowFor, readOnlyRoute } from "./route-methods";
import { api, NAMESPACE } from "./routes";
import { REFERENCE } from "./routes/openapi";
import { bound } from "./settings";
import { reachable } from "./wallet/faults";

export type AppOptions = {
  nowMs?: () => number;
  pace?: Pace;
  ledger?: LedgerEngine;
  /** Where webhook tests and resends go (tests hand a receiver); the runtime's fetch otherwise. */
  outbound?: Outbound;
};

/** Cloudflare's ray id, logged beside the request id; anything else that claims to be one is ignored. */
const RAY_ID = /^[0-9A-Za-z-]{1,64}$/;

export function createApp(options: AppOptions = {}) {
  const app = new Hono<AppEnv>({ strict: false, router: new MemoRouter() });

  app.use(eachRequest(options));
  // The console is its own boundary (console/boundary.ts): the API's CORS never answers for it,
  // nor its body limit, whose answer is the API's JSON: the console limits its forms itself, after
  // its origin check and with its own headers (console/index.tsx).
  const apiBodyLimit = limitBody((c) =>
    fail(c, ERRORS.payload_too_large.status, ERRORS.payload_too_large.message, {
      body: BODY_TOO_LARGE,
    }),
  );
  app.use((c, next) => (insideConsole(c.req.path) ? next() : corsHeaders(c, next)));
  app.use((c, next) => (insideConsole(c.req.path) ? next() : apiBodyLimit(c, next)));

  // The site's front page: WordPress clients look for the API's Link header here (HEAD / or GET /).
  app.get("/", (c) => {
    const site = siteUrl(c);
    return send(c, 200, {
      name: "Wallet ledger",
      api: `${site}/wp-json/`,
      console: `${site}${CONSOLE}/`,
      reference: `${site}${REFERENCE}`,
    });
  });
  // Browsers ask every site for an icon: the console's.
  app.get("/favicon.ico", (c) =>
    c.body(ICON, 200, { "Content-Type": "image/svg+xml", "Cache-Control": "max-age=86400" }),
  );
  // Public: the settings present (or which is missing) and whether D1 answers (docs/operations.md).
  app.get("/health", health);
  // The interactive API reference: Swagger UI renders the OpenAPI document in the reader's browser,
  // from this page and its files alone, all served here (reference.ts).
  app.route(REFERENCE, reference);
  app.route("/wp-json", discovery);
  // The operator console (docs/console.md): its pages call the service's verbs.
  app.route(CONSOLE, consoleRoutes());
  app.route(`/wp-json/${NAMESPACE}`, api);
  // The Rimplenet dialect (COMPAT_NAMESPACE, docs/compat.md): after the contract's routes, so those win.
  app.route("/wp-json/:ns/v1", compatRoutes);

  app.notFound((c) =>
    wpError(c, 404, "rest_no_route", "No route was found matching the URL and request method."),
  );
  app.onError((err, c) =>
    err instanceof InvalidJsonError
      ? wpError(c, 400, "rest_invalid_json", "Invalid JSON body passed.")
      : onError(err, c),
  );

  const fetch = app.fetch;
  app.fetch = (request, env, ctx) => fetch(wordpressRequest(request, insideConsole), env, ctx);
  return app;
}

/**
 * What every request has before its route (its id, its D1 session, the service's context) and
 * every answer after it (the common headers, its log line).
 */
function eachRequest(options: AppOptions): MiddlewareHandler<AppEnv> {
  const nowMs = options.nowMs ?? Date.now;
  const pace = options.pace ?? padToFloor;
  const ledger = options.ledger ?? d1Ledger;
  const outbound: Outbound = options.outbound ?? ((url, init) => globalThis.fetch(url, init));
  return async (c, next) => {
    const startedMs = Date.now();
    // Always the service's own: a client-sent cf-ray must not name a log line or an error answer.
    const requestId = crypto.randomUUID();
    const ray = c.req.header("cf-ray");
    c.set("envelope", "A");
    c.set("requestId", requestId);
    // Read before any middleware builds the request anew (a streamed body's, http/body-limit.ts).
    c.set("queryRoute", queryRoute(c.req.raw));
    c.set("nowMs", nowMs);
    c.set("outbound", outbound);
    // One D1 session a request: a read-only route reads from a replica (as new as the client's
    // bookmark); any other starts at the primary. The answer carries the newest bookmark reached
    // (docs/scaling.md#read-replicas). The meter sums what the request costs in D1 for the log
    // line (docs/operations.md).
    const requested = requestedStart(c.req.header(BOOKMARK_HEADER));
    const binding = bound(c.env, "DB") ?? UNBOUND_D1;
    const session = new SessionDatabase(
      binding,
      readOnlyRoute(c) ? "replica" : "primary",
      requested,
    );
    const d1 = meterD1(session);
    openService(c, binding, d1.db, { nowMs, pace, ledger });
    await next();
    if (wroteRows(c, d1.cost.rowsWritten)) nudgeWebhooks(c);
    commonHeaders(c, session.bookmark() ?? (requested === "first-primary" ? null : requested));
    // A HEAD runs its GET; Hono then drops the body without cancelling it. Cancelled here, once
    // the headers are set, a streamed answer ends now and gives back what it holds (a whole
    // history's turn). Its answer is the headers alone, which a failed cancel does not change.
    const body = c.req.method === "HEAD" ? c.res.body : null;
    if (body && !body.locked) await body.cancel().catch(() => {});
    logRequest(c, { startedMs, ray, cost: d1.cost });
  };
}

/**
 * The request's service context (wallet/context.ts), and the one Drizzle handle over its metered
 * D1 session that routes and middleware read as c.var.db.
 */
function openService(
  c: Context<AppEnv>,
  binding: D1Database,
  metered: D1Database,
  { nowMs, pace, ledger }: { nowMs: () => number; pace: Pace; ledger: LedgerEngine },
) {
  const db = createDb(metered);
  c.set("db", db);
  const requestLedger = ledger({ db, env: c.env, keepAlive: keepAlive(c) });
  c.set("ledger", requestLedger);
  let stamp: EntryStamp | undefined;
  // The Durable Object bindings are wrapped (wallet/faults.ts reachable) when a verb asks for
  // them, not on every request: most requests never call an object.
  c.set("service", {
    get principal() {
      return c.get("principal");
    },
    requestId: c.get("requestId"),
    db,
    ledger: requestLedger,
    nowMs,
    afterAnswer: (work) => afterAnswer(c, work),
    stamp: () => (stamp ??= entryStamp(c)),
    site: () => siteSettings(c),
    d1: binding,
    tokenKeys: () => tokenKeys(c),
    signInLimits: () => ({
      throttle: reachable("LOGIN_THROTTLE", c.env.LOGIN_THROTTLE),
      // Read only where a client is counted (a sign-in), so only there is its absence logged.
      get clientAddress() {
        return clientAddress(c);
      },
      pace,
    }),
    webhooks: () => webhookSettings(c),
    mail: () => mailSettings(c),
    get historyGate() {
      return reachable("HISTORY_GATE", c.env.HISTORY_GATE);
    },
    moneyLimiter: bound(c.env, "MONEY_RATE_LIMIT") as RateLimit | undefined,
  });
}

/** The headers every answer carries, whichever route or middleware made it. */
function commonHeaders(c: Context<AppEnv>, bookmark: string | null) {
  const headers = answerHeaders(c);
  if (bookmark !== null && showsBookmark(c.res.status, c.get("principal") !== undefined))
    headers.set(BOOKMARK_HEADER, bookmark);
  // WordPress sends nosniff on every REST answer; nothing here may be cached by a shared cache,
  // but for the reference's renderer files, which say so themselves (no-cache: kept, asked again
  // by ETag).
  headers.set("X-Content-Type-Options", "nosniff");
  if (!headers.has("Cache-Control")) headers.set("Cache-Control", "no-store");
  headers.set("X-Request-Id", c.get("requestId"));
  const path = c.req.path;
  if (path.startsWith("/wp-json") || path === "/")
    headers.append("Link", discoveryLink(siteUrl(c)));
  const allow = allowFor(c);
  if (allow !== undefined) headers.set("Allow", allow);
}

/** One line per request: never a body, a header value or a secret. */
function logRequest(
  c: Context<AppEnv>,
  { startedMs, ray, cost }: { startedMs: number; ray: string | undefined; cost: D1Cost },
) {
  const route = routePath(c);
  console.log(
    JSON.stringify({
      request_id: c.get("requestId"),
      cf_ray: ray !== undefined && RAY_ID.test(ray) ? ray : null,
      method: c.req.method,
      route: route.endsWith("*") ? null : route, // a middleware's "*": no route matched
      status: c.res.status,
      duration_ms: Date.now() - startedMs,
      user_id: c.get("principal")?.userId ?? null,
      d1_statements: cost.statements,
      d1_rows_read: cost.rowsRead,
      d1_rows_written: cost.rowsWritten,
      d1_round_trips: cost.roundTrips,
    }),
  );
}
