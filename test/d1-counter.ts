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

export type BatchSender = (
  statements: D1PreparedStatement[],
  send: () => Promise<D1Result[]>,
) => Promise<D1Result[]>;

/** env.DB, with every batch sent (through it or a session on it) passed through `sender`. */
export function wrappedD1(sender: BatchSender) {
  const wrapped = <T extends D1Database | D1DatabaseSession>(inner: T): T =>
    new Proxy(inner, {
      get(target, prop) {
        if (prop === "batch")
          return (statements: D1PreparedStatement[]) =>
            sender(statements, () => target.batch(statements));
        if (prop === "withSession" && "withSession" in target)
          return (start?: string) => wrapped(target.withSession(start));
        const value = Reflect.get(target, prop, target);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
  return wrapped(env.DB);
}
