import { env } from "cloudflare:workers";

export type D1Cost = { roundTrips: number; rowsRead: number; rowsWritten: number };

type Meta = { rows_read?: number; rows_written?: number };

/**
 * A D1 binding that counts round trips (`run`/`all`/`first`/`raw` of a statement, `batch`, `exec`),
 * on itself and on the sessions opened on it,
 * and sums rows read and written from each result's meta. `raw` and `first` carry no meta, so they
 * are answered through `all` (same statement, same rows) to be measured too; this relies on no
 * query selecting two columns of one name, which the app avoids anyway (D1 batches key rows by name).
 */
export function countingD1(inner: D1Database = env.DB) {
  const cost: D1Cost = { roundTrips: 0, rowsRead: 0, rowsWritten: 0 };
  const add = (meta: Meta | undefined) => {
    cost.rowsRead += meta?.rows_read ?? 0;
    cost.rowsWritten += meta?.rows_written ?? 0;
  };
  const wrap = (stmt: D1PreparedStatement): D1PreparedStatement =>
    new Proxy(stmt, {
      get(target, prop) {
        if (prop === "__target") return target;
        if (prop === "bind") return (...args: unknown[]) => wrap(target.bind(...args));
        if (prop === "run" || prop === "all") {
          return async () => {
            cost.roundTrips++;
            const result = await target.all();
            add(result.meta);
            return result;
          };
        }
        if (prop === "raw") {
          return async (options?: { columnNames?: boolean }) => {
            cost.roundTrips++;
            const result = await target.all<Record<string, unknown>>();
            add(result.meta);
            const rows = result.results.map((row) => Object.values(row));
            return options?.columnNames ? [Object.keys(result.results[0] ?? {}), ...rows] : rows;
          };
        }
        if (prop === "first") {
          return async (column?: string) => {
            cost.roundTrips++;
            const result = await target.all<Record<string, unknown>>();
            add(result.meta);
            const row = result.results[0] ?? null;
            return column === undefined || row === null ? row : row[column];
          };
        }
        const value = Reflect.get(target, prop, target);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
  // The binding and each session opened on it (the app runs every request in one) count alike.
  const counted = <T extends D1Database | D1DatabaseSession>(inner: T): T =>
    new Proxy(inner, {
      get(target, prop) {
        if (prop === "prepare") return (query: string) => wrap(target.prepare(query));
        if (prop === "batch") {
          return async (statements: D1PreparedStatement[]) => {
            cost.roundTrips++;
            const results = await target.batch(
              statements.map(
                (s) => (s as unknown as { __target?: D1PreparedStatement }).__target ?? s,
              ),
            );
            for (const r of results) add(r.meta);
            return results;
          };
        }
        if (prop === "exec" && "exec" in target) {
          return async (query: string) => {
            cost.roundTrips++;
            return target.exec(query);
          };
        }
        if (prop === "withSession" && "withSession" in target)
          return (start?: string) => counted(target.withSession(start));
        const value = Reflect.get(target, prop, target);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
  const db = counted(inner);
  const measure = async <T>(fn: () => T | Promise<T>) => {
    Object.assign(cost, { roundTrips: 0, rowsRead: 0, rowsWritten: 0 });
    const value = await fn();
    return { value, cost: { ...cost } };
  };
  return { db, cost, measure };
}
