// The console moves money and manages accounts only through the API itself: each call is a request
// to this same app, in this isolate, vouched for with the operator the console verified from its
// cookie (http/in-process.ts), so it passes every role and scope check the API makes. No token
// travels: the console's token is no API credential, and the API's console audience has no HTTP form.
import type { Context } from "hono";
import type { Principal } from "../auth/principal";
import { CONSOLE_AUDIENCE } from "../auth/tokens";
import { bookmarkOf, learnBookmark } from "../db/client";
import { BOOKMARK_HEADER } from "../db/session";
import type { AppEnv } from "../env";
import { type ApiError, refusalAnswer } from "../http/errors";
import { inProcessEnv } from "../http/in-process";
import type { Params } from "../http/params";
import type { Input } from "../http/route";
import type { ConsoleEnv, Fetch } from "./env";

// biome-ignore lint/suspicious/noExplicitAny: API answers, read field by field by the pages
export type ApiAnswer = { status: number; body: Record<string, any> };

/** One API call as `principal` (undefined: unauthenticated, the console's sign-in). */
export async function callApi(
  c: Context<ConsoleEnv>,
  fetch: Fetch,
  principal: Principal | undefined,
  method: "GET" | "POST" | "DELETE",
  path: string,
  body?: Record<string, unknown>,
): Promise<ApiAnswer> {
  const res = await apiResponse(c, fetch, principal, method, path, body);
  const text = await res.text();
  try {
    return { status: res.status, body: JSON.parse(text) };
  } catch {
    return { status: res.status, body: { message: text } };
  }
}

/** The API's answer itself, its body unread (a file the console passes on as it streams). */
export async function apiResponse(
  c: Context<ConsoleEnv>,
  fetch: Fetch,
  principal: Principal | undefined,
  method: "GET" | "POST" | "DELETE",
  path: string,
  body?: Record<string, unknown>,
): Promise<Response> {
  const request = new Request(new URL(`/wp-json/wallet/v1${path}`, c.req.url), {
    method,
    headers: {
      ...(body ? { "Content-Type": "application/json" } : {}),
      // The operator sees the newest data: the page's own session (at the primary), else the primary.
      [BOOKMARK_HEADER]: bookmarkOf(c.var.db) ?? "first-primary",
      // The sign-in throttle counts by client address: the operator's, not the Worker's.
      ...(c.req.header("cf-connecting-ip")
        ? { "cf-connecting-ip": c.req.header("cf-connecting-ip")! }
        : {}),
    },
    body: body ? JSON.stringify(body) : undefined,
  });
  let ctx: Context["executionCtx"] | undefined;
  try {
    ctx = c.executionCtx;
  } catch {
    // No execution context (tests calling app.request): the inner request runs without one too.
  }
  const env = inProcessEnv(c.env, { principal, audience: CONSOLE_AUDIENCE });
  const res = await fetch(request, env, ctx);
  learnBookmark(c.var.db, res.headers.get(BOOKMARK_HEADER));
  return res;
}

/** A form's fields decoded by a declared input of wallet/v1 (the console's env is the app's, and more). */
export const decode = async <T>(c: Context<ConsoleEnv>, input: Input<T>, fields: Params) =>
  input.read(c as unknown as Context<AppEnv>, fields);

/** What a verb answered, or its refusal in wallet/v1's words. */
export type Outcome<T> = { ok: true; value: T } | { ok: false; refusal: ApiError };

/** Runs a verb for a page: a refusal becomes a value the page words; a fault stays a fault. */
export async function attempt<T>(verb: () => Promise<T>): Promise<Outcome<T>> {
  try {
    return { ok: true, value: await verb() };
  } catch (err) {
    const refusal = refusalAnswer(err);
    if (!refusal) throw err;
    return { ok: false, refusal };
  }
}

/** A refusal in words: its message and what its `error` names. */
export function refusalText(refused: ApiAnswer | ApiError) {
  const { message, error } = "body" in refused ? refused.body : refused;
  const details =
    error && typeof error === "object"
      ? Object.values(error as Record<string, unknown>)
          .flat(2)
          .map((d) =>
            typeof d === "object"
              ? Object.values(d as object)
                  .flat()
                  .join(", ")
              : String(d),
          )
          .join("; ")
      : "";
  return details && details !== message ? `${message}: ${details}` : String(message ?? "Refused");
}
