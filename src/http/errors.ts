import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { AppEnv } from "../env";
import { fail } from "./envelope";

/** The one error type routes throw; `onError` turns it into the route's envelope. */
export class ApiError extends Error {
  constructor(
    readonly status: ContentfulStatusCode,
    message: string,
    readonly error: unknown = [],
  ) {
    super(message);
  }
}

export const invalidInput = (fields: Record<string, string>) => new ApiError(400, "invalid input", fields);

export const permissionDenied = {
  missing: () => new ApiError(401, "Permission denied", { unauthorize: "No authorization provided" }),
  invalid: () => new ApiError(401, "Permission denied", { unauthorize: "Invalid credentials" }),
  forbidden: () => new ApiError(403, "Permission denied", { unauthorize: "Request is not authorized" }),
};

export const userNotFound = (userId: unknown) =>
  new ApiError(404, "Invalid User credentials", [`Unable to reach ${String(userId)}`]);

export function onError(err: Error, c: Context<AppEnv>) {
  if (err instanceof ApiError) return fail(c, err.status, err.message, err.error);
  // Never a stack trace or SQL text on the wire; the request id ties the log line to the answer.
  console.error(JSON.stringify({ requestId: c.get("requestId"), error: String(err), stack: err.stack }));
  return fail(c, 500, "Internal error", { request_id: c.get("requestId") ?? null });
}
