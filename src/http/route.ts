// How a route of either dialect (`wallet/v1` in src/routes/, the plugin's in src/compat/) is
// declared and mounted: one mechanism answers in the route's envelope, checks the settings,
// authenticates and authorizes in the dialect's words, reads the parameters through the route's
// declared input and hands the handler their typed value. The discovery index, `Allow`, the OpenAPI
// document and the error catalogue are read from the same declarations.
import { type Context, Hono, type MiddlewareHandler } from "hono";
import { createMiddleware } from "hono/factory";
import * as v from "valibot";
import type { Scope } from "../auth/principal";
import type { AppEnv } from "../env";
import { isAdmin, mayReadUser, spendMoneyShare } from "../wallet/context";
import { Refusal } from "../wallet/refusal";
import { requireCredentials } from "./auth";
import { type ErrorCode, forgotGone, permissionDenied, type Refusals } from "./errors";
import { pathIdField, userIdField } from "./fields";
import { type Params, readParams } from "./params";
import { phpVars } from "./php-vars";
import { requireSettings } from "./settings";

/**
 * A route's parameters, path ones included: the schema it documents and the reader that enforces
 * it, turning the request's merged parameters (http/params.ts) into the handler's typed input or
 * throwing the dialect's field errors. A reader may look further than the schema (does the wallet
 * exist, does the amount fit it) so that every field error is reported together.
 */
export type Input<T> = {
  schema?: v.GenericSchema;
  read: (c: Context<AppEnv>, params: Params) => T | Promise<T>;
  /** The route takes its path's parameters only: its query and body are read, and ignored. */
  pathOnly?: true;
};

/** What a route is, beside its handler. */
export type RouteInfo = {
  /** Under the namespace, `{name}` for a path parameter (OpenAPI's form). */
  path: string;
  method: "GET" | "POST" | "DELETE";
  /**
   * The operation's name in the OpenAPI document, and so the generated clients' call name: stable
   * camelCase, a verb then the resource (`createCredit`, `readBalance`). Renaming one breaks them.
   */
  operationId?: string;
  summary: string;
  /**
   * `none`: public. Otherwise credentials are required before the parameters are read;
   * `admin` then needs an administrator whose key (if a key) has `access` (`read-write`: a route
   * that writes and discloses what a read key reads, as a webhook sends the event feed); `reader`
   * a caller who may read the user `owner` names (if the route declares it; else its handler
   * checks); `session` any signed-in caller (its handler checks the session).
   */
  auth: "none" | "admin" | "reader" | "session";
  access?: Scope;
  /** `reader` routes: the user a request reads about, from its raw parameters (undefined: the caller). */
  owner?: (params: Params) => unknown;
  /**
   * A `reader` route public by configuration (the plugin's balance and transaction reads under
   * COMPAT_PUBLIC_READS): no credentials asked.
   */
  publicWhen?: (env: AppEnv["Bindings"]) => boolean;
  /** The dialect's words for refused credentials; the contract's (section 2) by default. */
  refusals?: Refusals;
  params?: Input<unknown>;
  envelope: "A" | "B" | "index";
  success: number;
  /** The success answer's `data` (src/routes/answers.ts); the body itself for `index` routes. */
  data?: v.GenericSchema;
  /** What the route itself can refuse with; credentials, malformed requests and faults are added. */
  errors?: ErrorCode[];
  /**
   * A route that moves money: each call counts against its caller's share (MONEY_RATE_LIMIT,
   * docs/security.md#rate-limits) once the caller is authorized, before anything is read.
   */
  movesMoney?: true;
  /** Path parameters that match only this pattern; any other value is no route (rest_no_route). */
  patterns?: Record<string, string>;
};

export type Route<Info extends RouteInfo = RouteInfo> = Info & {
  handler: (c: Context<AppEnv>) => Promise<Response>;
};

/** A route of a documented dialect (wallet/v1): its name and answer are declared. */
export type DocumentedInfo = RouteInfo & { operationId: string; data: v.GenericSchema };

/** A route as declared: envelope A and success 200 unless it says otherwise. */
type Declared<T> = Omit<RouteInfo, "envelope" | "success"> &
  Partial<Pick<RouteInfo, "envelope" | "success">> & { params?: Input<T> };

/** A route: its declaration, and a handler given the declared input's typed value. */
export function defineRoute<Info extends Declared<T>, T = undefined>(
  info: Info & { params?: Input<T> },
  handler: (c: Context<AppEnv>, input: T) => Response | Promise<Response>,
): Route<Info & Pick<RouteInfo, "envelope" | "success">> {
  return {
    ...info,
    envelope: info.envelope ?? "A",
    success: info.success ?? 200,
    handler: async (c) => {
      const refusals = info.refusals ?? permissionDenied;
      const asked = info.auth !== "none" && !info.publicWhen?.(c.env);
      const principal = asked ? await requireCredentials(c, refusals) : undefined;
      // Role and scope come before the request is read (contract section 1: 403 before 400).
      if (principal && info.auth === "admin" && !isAdmin(principal, info.access ?? "write"))
        throw refusals.forbidden();
      if (principal && info.auth === "reader" && !mayReadUser(principal, undefined))
        throw refusals.forbidden();
      if (principal && info.movesMoney) await spendMoneyShare(c.var.service);
      // Every route reads its request, even one that takes nothing: a broken JSON body is 400.
      const pathOnly = info.params ? info.params.pathOnly : !info.owner;
      const params = await readParams(c, info.path, pathOnly).catch((err: unknown) => {
        // Unreadable, but naming in its query a user the caller may not read about: that comes first.
        if (principal && info.owner && !mayReadUser(principal, userRef(info.owner(leniently(c)))))
          throw refusals.forbidden();
        throw err;
      });
      if (principal && info.owner && !mayReadUser(principal, userRef(info.owner(params))))
        throw refusals.forbidden();
      // The input is read per run: a reader may look up (cached) users and wallets. A verb's
      // refusal of the caller answers in the dialect's words, as the checks above do.
      const run = async () => {
        try {
          return await handler(
            c,
            (info.params ? await info.params.read(c, params) : undefined) as T,
          );
        } catch (err) {
          throw err instanceof Refusal && err.reason.code === "forbidden"
            ? refusals.forbidden()
            : err;
        }
      };
      try {
        return await run();
      } catch (err) {
        // A user or wallet this isolate remembered was deleted through another, and the ledger
        // wrote nothing: with them forgotten, the route runs once more and answers as it answers a
        // request naming them now, in its own dialect's words (the plugin's differ from wallet/v1's).
        // So a handler may run twice: before its ledger write it only reads.
        if (!forgotGone(c, err)) throw err;
        return run();
      }
    },
  };
}

/**
 * The query string read without judging its bytes (an invalid one becomes U+FFFD), as PHP
 * registers it, as a readable query is (php-vars.ts).
 */
const leniently = (c: Context<AppEnv>): Params =>
  phpVars(new URL(c.req.url).searchParams, "query", true);

const USER_ID = userIdField();

/**
 * A user id as a reader sent it, by the rule its route declares (fields.ts userIdField): what that
 * rule refuses names nobody; absent, the caller.
 */
function userRef(sent: unknown) {
  if (sent === undefined) return undefined;
  const read = v.safeParse(USER_ID, sent);
  return read.success ? read.output : Number.NaN;
}

/**
 * The pattern a path parameter matches, in WordPress's regex syntax, which JavaScript reads alike: the
 * route's own (the plugin's, as it registered it), or a record's id (`pathIdField`) as WordPress
 * writes one, `[\d]+`; undefined for any text of a segment. Hono matches it, the index shows it.
 */
function paramPattern(route: RouteInfo, name: string) {
  const declared = (route.params?.schema as { entries?: Record<string, unknown> } | undefined)
    ?.entries?.[name];
  return route.patterns?.[name] ?? (declared === pathIdField ? "[\\d]+" : undefined);
}

/** A route's path as Hono matches it: other text where a pattern is is no route (rest_no_route). */
export const honoPath = (route: RouteInfo) =>
  route.path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const pattern = paramPattern(route, name);
    return pattern ? `:${name}{${pattern}}` : `:${name}`;
  });

/** A route's path as WordPress's REST index shows it: `{id}` as `(?P<id>[\d]+)`. */
const indexPath = (route: RouteInfo) =>
  route.path.replace(
    /\{(\w+)\}/g,
    (_, name: string) => `(?P<${name}>${paramPattern(route, name) ?? "[^/]+"})`,
  );

type RouteIndex = Record<string, { namespace: string; methods: string[] }>;

/**
 * A namespace's routes as WordPress's REST index (`GET /wp-json/`, `GET /wp-json/<namespace>`)
 * lists them, as rest_get_server()->get_index() does: register_route makes `/<namespace>` (its
 * index, GET) the namespace's first route, so both list it; `/wp-json/wallet/v1/credits` appears as
 * `/wallet/v1/credits`, a path parameter as its pattern, with the methods it answers.
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

// Users and login answer in envelope B (both data and error keys, status "failed").
const envelopeB = createMiddleware<AppEnv>(async (c, next) => {
  c.set("envelope", "B");
  await next();
});

/** Whether a route needs the service's settings: all but the index ones, which name routes only. */
export const needsSettings = (route: RouteInfo) => route.envelope !== "index";

/** Each route at its path, answering in its envelope, behind the settings check (503 while one is missing). */
export function mountRoutes(routes: readonly Route[]) {
  const app = new Hono<AppEnv>({ strict: false });
  for (const route of routes) {
    const before: MiddlewareHandler<AppEnv>[] = [
      ...(route.envelope === "B" ? [envelopeB] : []),
      ...(needsSettings(route) ? [requireSettings] : []),
    ];
    app.on([route.method], [honoPath(route)], ...before, route.handler);
  }
  return app;
}
