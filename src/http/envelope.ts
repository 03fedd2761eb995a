import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { AppEnv } from "../env";

// Two envelope families, kept exactly as the plugin sent them (contract section 1):
// A: success has `data` and no `error`, failure has `error` and no `data`, status is a boolean.
// B (users, login): both keys always present, an empty one is [], failure status is "failed".

const JSON_UTF8 = { "Content-Type": "application/json; charset=UTF-8" };

export function send(
  c: Context<AppEnv>,
  status: ContentfulStatusCode,
  body: unknown,
  headers: Record<string, string> = {},
) {
  return c.json(body, status, { ...JSON_UTF8, ...headers });
}

export function ok(
  c: Context<AppEnv>,
  status: ContentfulStatusCode,
  message: string,
  data: unknown,
  headers?: Record<string, string>,
) {
  const body =
    c.get("envelope") === "B"
      ? { status_code: status, status: true, message, data, error: [] }
      : { status_code: status, status: true, message, data };
  return send(c, status, body, headers);
}

export function fail(
  c: Context<AppEnv>,
  status: ContentfulStatusCode,
  message: string,
  error: unknown,
) {
  const body =
    c.get("envelope") === "B"
      ? { status_code: status, status: "failed", message, data: [], error }
      : { status_code: status, status: false, message, error };
  return send(c, status, body);
}

/** WordPress's own REST error shape, used where the plugin never ran (unknown route, bad JSON). */
export function wpError(
  c: Context<AppEnv>,
  status: ContentfulStatusCode,
  code: string,
  message: string,
) {
  return send(c, status, { code, message, data: { status } });
}
