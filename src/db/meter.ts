// What a request costs in D1, as D1 bills it: the statements it sends and the rows they read and
// write, summed from each result's `meta`. A meter wraps a D1 binding (or a D1 session) per request
// and answers exactly what the binding answers, with no extra round trip.
//
// `raw()` is where that takes care: D1 drops the meta of a `raw()` answer, and Drizzle reads every
// select with fields through `raw()`. So a metered `raw()` sends the same query through `all()`,
// which answers the same rows with their meta, as objects keyed by column name; their values in
// column order are `raw()`'s rows. That is Drizzle's own reading of a batch's rows, so it holds for
// any query whose columns have distinct names that are not array indexes: the rule the app's
// queries already keep for `batch()`. Not metered: `exec()` and `raw({ columnNames: true })`, which
// pass straight through (the app calls neither), and the rows of a statement that fails.

export type D1Cost = {
  statements: number;
  rowsRead: number;
  rowsWritten: number;
  /** Calls to D1: a batch is one, whatever its size. */
  roundTrips: number;
};

type D1Like = D1Database | D1DatabaseSession;

const INNER = Symbol("unmetered");

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
          return (query: string) => new MeteredStatement(target.prepare(query), cost);
        case "batch":
          return async (statements: D1PreparedStatement[]) => {
            const owners = statements.map((s) => (s instanceof MeteredStatement ? s.cost : cost));
            cost.roundTrips++;
            for (const owner of owners) owner.statements++;
            const results = await target.batch(
              statements.map((s) => (s instanceof MeteredStatement ? s.inner : s)),
            );
            for (const [i, r] of results.entries()) addRows(owners[i]!, r.meta);
            return results;
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

function addRows(cost: D1Cost, meta: Partial<D1Meta> | undefined) {
  cost.rowsRead += meta?.rows_read ?? 0;
  cost.rowsWritten += meta?.rows_written ?? 0;
}

/**
 * A statement charged to `cost`: a class, not a Proxy, since every query makes two (prepare and
 * bind) and calls through them. It has the methods Drizzle and the service call.
 */
class MeteredStatement {
  constructor(
    readonly inner: D1PreparedStatement,
    readonly cost: D1Cost,
  ) {}

  bind(...values: unknown[]) {
    return new MeteredStatement(this.inner.bind(...values), this.cost);
  }

  async all<R = Record<string, unknown>>() {
    this.cost.roundTrips++;
    this.cost.statements++;
    const result = await this.inner.all<R>();
    addRows(this.cost, result.meta);
    return result;
  }

  async run() {
    this.cost.roundTrips++;
    this.cost.statements++;
    const result = await this.inner.run();
    addRows(this.cost, result.meta);
    return result;
  }

  async raw(options?: { columnNames?: boolean }) {
    if (options?.columnNames) return this.inner.raw(options as { columnNames: true });
    return (await this.all()).results.map((row) => Object.values(row));
  }

  /** D1's first() is all()'s first row: the same query, the same object. */
  async first(column?: string) {
    const row = (await this.all()).results[0] ?? null;
    if (column === undefined || row === null) return row;
    if (row[column] === undefined)
      throw new Error(`D1_COLUMN_NOTFOUND: Column not found (${column})`);
    return row[column];
  }
}
