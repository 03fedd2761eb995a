import type { Context } from "hono";
import type { AppEnv } from "../env";
import type { KeepAlive } from "../ledger/group-commit";

/**
 * Lets `work` finish after the request answers (waitUntil), its failure ignored; where the runtime
 * has no execution context (tests calling app.request) it is the promise to await instead.
 */
export function afterAnswer(c: Context<AppEnv>, work: Promise<unknown>): Promise<void> {
  const settled = work.then(
    () => undefined,
    () => undefined,
  );
  try {
    c.executionCtx.waitUntil(settled);
    return Promise.resolve();
  } catch {
    return settled;
  }
}

export const keepAlive =
  (c: Context<AppEnv>): KeepAlive =>
  (work) =>
    void afterAnswer(c, work);
