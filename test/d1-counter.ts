import { env } from "cloudflare:workers";
import { emptyCost, meterD1 } from "../src/db/meter";

/** A D1 binding that counts what goes through it (src/db/meter.ts), and `measure` to read one call. */
export function countingD1(inner: D1Database = env.DB) {
  const { db, cost } = meterD1(inner);
  const measure = async <T>(fn: () => T | Promise<T>) => {
    Object.assign(cost, emptyCost());
    const value = await fn();
    return { value, cost: { ...cost } };
  };
  return { db, cost, measure };
}
