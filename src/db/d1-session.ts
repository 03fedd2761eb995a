// Read replicas (docs/scaling.md#read-replicas): every request's queries run in one D1 session
// (the Sessions API), which reads from a replica at least as new as where the session starts and
// sends every write to the primary. The session's bookmark goes back to the client, which sends
// it again to read its own writes (http/answer-headers.ts BOOKMARK_HEADER).

/** What D1 hands out: `0000000a-00000004-00004fc3-<32 hex>`. Anything else is not passed to D1. */
const BOOKMARK = /^[0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{32}$/;

/**
 * Where a request's session starts: `replica` (a read-only route) from the client's bookmark, else
 * anywhere; `primary` (every other route) at the primary, which is newer than any bookmark.
 */
type SessionStart = "replica" | "primary";

/**
 * What the client sent: a bookmark, `first-primary` (the newest data, without a bookmark), or null
 * (nothing, or something malformed: such a client asked for fresh data, so it reads the primary).
 */
export function requestedStart(header: string | undefined): string | null {
  if (header === undefined || header === "") return null;
  return BOOKMARK.test(header) || header === "first-primary" ? header : "first-primary";
}

const unbound = (): never => {
  throw new Error("the D1 binding DB is not bound (wrangler.toml [[d1_databases]])");
};

/**
 * What stands in for a D1 binding the deployment lacks: every query fails naming it. Routes answer
 * 503 naming DB before they query (http/settings.ts), and GET /health says so.
 */
export const UNBOUND_D1 = {
  prepare: unbound,
  batch: async () => unbound(),
  exec: async () => unbound(),
  dump: async () => unbound(),
  withSession: () => ({ prepare: unbound, batch: async () => unbound(), getBookmark: () => null }),
} as unknown as D1Database;

/** The newer of two bookmarks: D1's bookmarks sort oldest to newest as strings. */
const newerBookmark = (a: string | null, b: string | null) =>
  a === null ? b : b === null || a >= b ? a : b;

/**
 * A D1 session seen as the `D1Database` drizzle-orm 0.45's D1 driver is typed for (it calls only
 * `prepare` and `batch`, which a session has). Keeps the binding it runs on (isolate caches and
 * group commit are per binding, not per request) and the newest bookmark the request has reached,
 * including one learnt beside the session (a group commit's batch written by another request).
 */
export class SessionDatabase implements D1Database {
  #learnt: string | null = null;
  #session: D1DatabaseSession;
  /** Whether the session's first query goes to the primary (a write's, or `first-primary` sent). */
  readonly #firstPrimary: boolean;

  constructor(
    readonly database: D1Database,
    readonly start: SessionStart,
    requested: string | null,
  ) {
    // Where the session starts, as `withSession` takes it.
    const constraint = start === "primary" ? "first-primary" : (requested ?? "first-unconstrained");
    this.#session = database.withSession(constraint);
    this.#firstPrimary = constraint === "first-primary";
  }

  prepare(query: string) {
    return this.#session.prepare(query);
  }

  batch<T = unknown>(statements: D1PreparedStatement[]) {
    return this.#session.batch<T>(statements);
  }

  // exec and dump have no session form; the service uses neither.
  exec(): Promise<D1ExecResult> {
    return Promise.reject(new Error("exec() runs outside a D1 session: use the binding"));
  }

  dump(): Promise<ArrayBuffer> {
    return Promise.reject(new Error("dump() runs outside a D1 session: use the binding"));
  }

  withSession(constraintOrBookmark?: string) {
    return this.database.withSession(constraintOrBookmark);
  }

  /** The newest bookmark this request has reached, or null before any query. */
  bookmark() {
    return newerBookmark(this.#session.getBookmark(), this.#learnt);
  }

  /**
   * A bookmark the request's data reached outside its session (a batch another request wrote). The
   * request's later queries run on a session started there: D1 may send any query of a session but
   * its first to a replica only as new as the session's own bookmark, which lacks that batch (a
   * console page reading back the credit it just made). A session whose first query is still to go
   * to the primary stays: the primary is newer than any bookmark, and a write (or a client that
   * sent `first-primary`) reads the newest state.
   */
  learn(bookmark: string | null) {
    const own = this.bookmark();
    if (bookmark === null || (own !== null && own >= bookmark)) return;
    this.#learnt = bookmark;
    if (this.#firstPrimary && this.#session.getBookmark() === null) return;
    this.#session = this.database.withSession(bookmark);
  }
}
