// What a request costs in D1, as D1 bills it: the statements it sends and the rows they read and
// write, summed from each result's `meta`. A meter wraps a D1 binding (or a D1 session) per request
// and answers exactly what the binding answers, with no extra round trip.
//
// `raw()` is where that takes care: D1 drops the meta of a `raw()` answer, and Drizzle reads every
// select with fields through `raw()`. So a metered `raw()` sends the same query through `all()`,
// which answers the same rows with their meta, as objects keyed by column name; their values in
// column order are `raw()`'s rows. That is Drizzle's own reading of a batch's rows, so it holds for
// any query whose columns have distinct names that are not array indexes: the rule the app's
// queries already keep for `batch()`. Not metered, though counted as statements: `exec()` and
// `raw({ columnNames: true })` (the app calls neither), and the rows of a statement that fails.

export type D1Cost = {
  statements: number;
  rowsRead: number;
  rowsWritten: number;
  /** Calls to D1: a batch is one, whatever its size. */
  roundTrips: number;
};

type D1Like = D1Database | D1DatabaseSession;

const INNER = Symbol("unmetered");
const COST = Symbol("cost");

/** What a meter wraps (one layer): per-isolate state is keyed by the binding, not a request's meter. */
export const unmetered = <T extends D1Like>(d1: T): T => (d1 as T & { [INNER]?: T })[INNER] ?? d1;

export const emptyCost = (): D1Cost => ({
  statements: 0,
  rowsRead: 0,
  rowsWritten: 0,
  roundTrips: 0,
});

/**
 * A binding that sums into `cost` what it sends. A statement is charged to the meter that prepared
 * it, even in another meter's batch: a group commit (ledger/group-commit.ts) writes waiting
 * requests' credits in the leading request's batch, and each request's log still says its own cost.
 */
export function meterD1<T extends D1Like>(d1: T): { db: T; cost: D1Cost } {
  const cost = emptyCost();
  return { db: meteredDb(d1, cost), cost };
}

function meteredDb<T extends D1Like>(d1: T, cost: D1Cost): T {
  return new Proxy(d1, {
    get(target, prop) {
      switch (prop) {
        case INNER:
          return target;
        case "prepare":
          return (query: string) => statement(target.prepare(query), cost);
        case "batch":
          return async (statements: D1PreparedStatement[]) => {
            const owners = statements.map((s) => (s as Metered)[COST] ?? cost);
            cost.roundTrips++;
            for (const owner of owners) owner.statements++;
            const results = await target.batch(statements.map((s) => (s as Metered)[INNER] ?? s));
            for (const [i, r] of results.entries()) addRows(owners[i]!, r.meta);
            return results;
          };
        case "exec":
          return async (query: string) => {
            cost.roundTrips++;
            const result = await (target as D1Database).exec(query);
            cost.statements += result.count;
            return result;
          };
        case "withSession":
          return (...args: Parameters<D1Database["withSession"]>) =>
            meteredDb((target as D1Database).withSession(...args), cost);
      }
      const value = Reflect.get(target, prop, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

type Metered = D1PreparedStatement & { [INNER]?: D1PreparedStatement; [COST]?: D1Cost };

function addRows(cost: D1Cost, meta: Partial<D1Meta> | undefined) {
  cost.rowsRead += meta?.rows_read ?? 0;
  cost.rowsWritten += meta?.rows_written ?? 0;
}

function statement(inner: D1PreparedStatement, cost: D1Cost): D1PreparedStatement {
  const send = async <R>(call: () => Promise<R>) => {
    cost.roundTrips++;
    cost.statements++;
    return call();
  };
  const all = async <R = Record<string, unknown>>() => {
    const result = await send(() => inner.all<R>());
    addRows(cost, result.meta);
    return result;
  };
  return new Proxy(inner, {
    get(target, prop) {
      switch (prop) {
        case INNER:
          return target;
        case COST:
          return cost;
        case "bind":
          return (...values: unknown[]) => statement(target.bind(...values), cost);
        case "all":
          return all;
        case "run":
          return async () => {
            const result = await send(() => target.run());
            addRows(cost, result.meta);
            return result;
          };
        case "raw":
          return async (options?: { columnNames?: boolean }) => {
            if (options?.columnNames)
              return send(() => target.raw(options as { columnNames: true }));
            return (await all()).results.map((row) => Object.values(row));
          };
        case "first":
          // D1's first() is all()'s first row: the same query, the same object.
          return async (column?: string) => {
            const row = (await all()).results[0] ?? null;
            if (column === undefined || row === null) return row;
            if (row[column] === undefined)
              throw new Error(`D1_COLUMN_NOTFOUND: Column not found (${column})`);
            return row[column];
          };
      }
      const value = Reflect.get(target, prop, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}
