import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { LedgerRefusal } from "../db/ledger";
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

/**
 * A request the service will not read (invalid UTF-8, a header that is not ASCII, a JSON body past
 * its limits): a 400 naming the part, in whichever envelope the route answers in.
 */
export class MalformedRequest extends Error {
  constructor(
    readonly part: string,
    readonly text: string,
  ) {
    super(text);
  }
}

export const invalidInput = (fields: Record<string, string>) =>
  new ApiError(400, "invalid input", fields);

export const permissionDenied = {
  missing: () =>
    new ApiError(401, "Permission denied", { unauthorize: "No authorization provided" }),
  invalid: () => new ApiError(401, "Permission denied", { unauthorize: "Invalid credentials" }),
  forbidden: () =>
    new ApiError(403, "Permission denied", { unauthorize: "Request is not authorized" }),
};

export const userNotFound = (userId: unknown) =>
  new ApiError(404, "Invalid User credentials", [`Unable to reach ${String(userId)}`]);

export const transactionExists = (id: number) =>
  new ApiError(409, "Transaction already exists", {
    txn_id: String(id),
    exist: "Transaction already executed",
  });

const REFUSALS: Record<LedgerRefusal["reason"], ApiError> = {
  "insufficient-balance": new ApiError(400, "Insufficient Balance", {
    amount: "Insufficient Balance",
  }),
  "balance-limit": new ApiError(400, "invalid input", {
    amount: "amount would take the balance past the largest balance a wallet can hold",
  }),
  "already-reversed": new ApiError(409, "Transaction already reversed", {
    id: "The transaction was already reversed",
  }),
};

export function onError(err: Error, c: Context<AppEnv>) {
  if (err instanceof LedgerRefusal) err = REFUSALS[err.reason];
  if (err instanceof MalformedRequest)
    err =
      c.get("envelope") === "B"
        ? new ApiError(400, "Validation error", [{ [err.part]: [err.text] }])
        : invalidInput({ [err.part]: err.text });
  if (err instanceof ApiError) return fail(c, err.status, err.message, err.error);
  // Never a stack trace or SQL text on the wire; the request id ties the log line to the answer.
  console.error(
    JSON.stringify({ requestId: c.get("requestId"), error: String(err), stack: err.stack }),
  );
  c.set("envelope", "A"); // a fault answers in envelope A on every route
  return fail(c, 500, "Internal error", { request_id: c.get("requestId") ?? null });
}
