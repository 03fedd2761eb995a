import type { Context } from "hono";
import type { AppEnv } from "../env";
import type { KeepAlive } from "../ledger/group-commit";

/** Lets work the request started finish after it answers, where the runtime allows it. */
export const keepAlive =
  (c: Context<AppEnv>): KeepAlive =>
  (work) => {
    try {
      c.executionCtx.waitUntil(work.catch(() => undefined));
    } catch {
      // No execution context (tests calling app.request): the request awaits the work anyway.
    }
  };
