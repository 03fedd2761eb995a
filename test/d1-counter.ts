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

/** env.DB recording each statement it runs (its SQL and bound values). */
export function recordingD1(seen: Map<string, unknown[]>) {
  const stmt = (inner: D1PreparedStatement, sql: string, params: unknown[]): D1PreparedStatement =>
    new Proxy(inner, {
      get(target, prop) {
        if (prop === "bind")
          return (...values: unknown[]) => stmt(target.bind(...values), sql, values);
        if (["all", "raw", "first", "run"].includes(String(prop))) seen.set(sql, params);
        const value = Reflect.get(target, prop, target);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
  const wrap = <T extends D1Database | D1DatabaseSession>(inner: T): T =>
    new Proxy(inner, {
      get(target, prop) {
        if (prop === "prepare") return (sql: string) => stmt(target.prepare(sql), sql, []);
        if (prop === "batch")
          return (statements: D1PreparedStatement[]) => {
            for (const s of statements) {
              const { statement, params } = s as unknown as {
                statement: string;
                params: unknown[];
              };
              seen.set(statement, params);
            }
            return target.batch(statements);
          };
        if (prop === "withSession" && "withSession" in target)
          return (start?: string) => wrap(target.withSession(start));
        const value = Reflect.get(target, prop, target);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
  return wrap(env.DB);
}

export type BatchSender = (
  statements: D1PreparedStatement[],
  send: () => Promise<D1Result[]>,
) => Promise<D1Result[]>;

/** `inner` (env.DB), with every batch sent (through it or a session on it) passed through `sender`. */
export function wrappedD1(sender: BatchSender, inner: D1Database = env.DB) {
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
  return wrapped(inner);
}

/**
 * env.DB whose single statements (not batches) matching `pattern` run through `around`, given the
 * statement's own call to make or not.
 */
export function aroundReads(pattern: RegExp, around: (read: () => Promise<unknown>) => unknown) {
  const statement = (inner: D1PreparedStatement): D1PreparedStatement =>
    new Proxy(inner, {
      get(target, prop) {
        if (prop === "bind") return (...values: unknown[]) => statement(target.bind(...values));
        if (["all", "raw", "first", "run"].includes(String(prop)))
          return async (...args: unknown[]) => {
            // biome-ignore lint/suspicious/noExplicitAny: forwarding D1's own method
            const read = () => (target as any)[prop](...args);
            const sql = String((target as unknown as { statement: string }).statement);
            return pattern.test(sql) ? around(read) : read();
          };
        const value = Reflect.get(target, prop, target);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
  const wrap = <T extends D1Database | D1DatabaseSession>(inner: T): T =>
    new Proxy(inner, {
      get(target, prop) {
        if (prop === "prepare") return (sql: string) => statement(target.prepare(sql));
        if (prop === "withSession" && "withSession" in target)
          return (start?: string) => wrap(target.withSession(start));
        const value = Reflect.get(target, prop, target);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
  return wrap(env.DB);
}

/**
 * env.DB on which the first read of `table` runs, then waits until `release` before its caller
 * sees the rows: a request held just after it looked its credential up.
 */
export function holdingFirstRead(table: "api_keys" | "sessions") {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let reached!: () => void;
  const reachedRead = new Promise<void>((resolve) => (reached = resolve));
  let held = false;
  const d1 = aroundReads(new RegExp(`^select .* from "${table}"`, "i"), async (read) => {
    if (held) return read();
    held = true;
    const rows = await read();
    reached();
    await released;
    return rows;
  });
  return { d1, reachedRead, release };
}

/** env.DB (and its sessions) on which every statement and every batch fails with `message`. */
export function failingD1(message: string): D1Database {
  const fail = async (): Promise<never> => {
    throw new Error(message);
  };
  return wrappedD1(fail, aroundReads(/(?:)/, fail));
}

/** env.DB whose single statements (not batches) matching `pattern` fail as a lost connection. */
export function losingReads(pattern: RegExp) {
  let lost = 0;
  const d1 = aroundReads(pattern, async () => {
    lost++;
    throw new Error("D1_ERROR: Network connection lost.");
  });
  return { d1, lost: () => lost };
}

/**
 * env.DB that awaits `before` ahead of each call it sends to D1, a single statement's or a batch's:
 * a test runs its own writes (or throws, as a lost connection) at a chosen point among them.
 */
export function pausingD1(before: (kind: "statement" | "batch") => Promise<void>) {
  const inners = new WeakMap<D1PreparedStatement, D1PreparedStatement>();
  const statement = (inner: D1PreparedStatement): D1PreparedStatement => {
    const paused = new Proxy(inner, {
      get(target, prop) {
        if (prop === "bind") return (...values: unknown[]) => statement(target.bind(...values));
        if (["all", "raw", "first", "run"].includes(String(prop)))
          return async (...args: unknown[]) => {
            await before("statement");
            // biome-ignore lint/suspicious/noExplicitAny: forwarding D1's own method
            return (target as any)[prop](...args);
          };
        const value = Reflect.get(target, prop, target);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    inners.set(paused, inner);
    return paused;
  };
  return new Proxy(env.DB, {
    get(target, prop) {
      if (prop === "prepare") return (sql: string) => statement(target.prepare(sql));
      if (prop === "batch")
        return async (statements: D1PreparedStatement[]) => {
          await before("batch");
          return target.batch(statements.map((s) => inners.get(s) ?? s));
        };
      const value = Reflect.get(target, prop, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

/** What a Proxy passes on of its target: a property, or a method bound to the target. */
export function forwarded(target: object, prop: string | symbol) {
  const value = Reflect.get(target, prop, target);
  return typeof value === "function" ? value.bind(target) : value;
}

/** env.DB whose sessions are each `wrap`ped, told what the session was started with. */
export const withSessions = (
  wrap: (session: D1DatabaseSession, start: string | undefined) => D1DatabaseSession,
): D1Database =>
  new Proxy(env.DB, {
    get(target, prop) {
      if (prop === "withSession") return (start?: string) => wrap(target.withSession(start), start);
      return forwarded(target, prop);
    },
  });
