// The latency model of a remote D1 database for `npm run bench -- --remote-d1` (BENCHMARKS.md,
// "Group commit over a simulated remote D1"). Pure: no runtime, no clock of its own; the binding
// that applies it (latency-d1.ts) hands it the time. test/node/remote-d1-model.test.ts checks it.
//
// The model:
// - every call to D1 (a statement's run/all/first/raw, a batch, an exec) waits one round trip;
// - a D1 database has one writer: a call that writes holds it for its whole round trip, and the
//   next write starts when it is free (first come, first served). Reads wait their round trip
//   only: they neither hold the writer nor wait for it.
// That is D1 at its least favourable for one write per credit, which is what group commit changes:
// the database is "single-threaded and processes queries one at a time" (Cloudflare's D1 limits),
// and here a write's whole round trip counts as the time it takes.

/** Whether a statement writes: anything but a SELECT (or a WITH … SELECT, VALUES, EXPLAIN). */
export function writes(sql: string) {
  const text = sql.replace(/^(\s|--[^\n]*\n|\/\*[\s\S]*?\*\/)*/, "");
  const first = /^[A-Za-z]+/.exec(text)?.[0]?.toUpperCase();
  if (first === "SELECT" || first === "VALUES" || first === "EXPLAIN") return false;
  if (first === "WITH") return /\b(INSERT|UPDATE|DELETE|REPLACE)\b/i.test(text);
  return true;
}

/** The database's one writer: when each write holds it, in the order the writes arrive. */
export class SingleWriter {
  #freeAtMs = Number.NEGATIVE_INFINITY;

  /** Holds the writer for `holdMs` from `nowMs` or from when it is next free, whichever is later. */
  reserve(nowMs: number, holdMs: number) {
    const startMs = Math.max(nowMs, this.#freeAtMs);
    this.#freeAtMs = startMs + holdMs;
    return { startMs, endMs: this.#freeAtMs };
  }
}

/** What a model has seen since it was made (the bench reads it before and after each run). */
export type ModelStats = {
  reads: number;
  writes: number;
  /** Statements sent in write calls (a batch counts each of its statements). */
  writeStatements: number;
  /** Milliseconds write calls waited for the writer, beyond their own round trip. */
  writerQueueMs: number;
  /** Milliseconds the writer was held. */
  writerBusyMs: number;
};

export class RemoteD1Model {
  readonly writer = new SingleWriter();
  readonly stats: ModelStats = {
    reads: 0,
    writes: 0,
    writeStatements: 0,
    writerQueueMs: 0,
    writerBusyMs: 0,
  };

  constructor(readonly roundTripMs: number) {
    if (!(roundTripMs >= 0)) throw new Error("a round trip is 0 ms or more");
  }

  /**
   * How long a call sent at `nowMs` waits before D1 answers it: its round trip, and for a write
   * (`writeStatements` > 0 of its statements write) the wait for the writer before it.
   */
  delayMs(nowMs: number, writeStatements: number) {
    if (writeStatements === 0) {
      this.stats.reads++;
      return this.roundTripMs;
    }
    const { startMs, endMs } = this.writer.reserve(nowMs, this.roundTripMs);
    this.stats.writes++;
    this.stats.writeStatements += writeStatements;
    this.stats.writerQueueMs += startMs - nowMs;
    this.stats.writerBusyMs += this.roundTripMs;
    return endMs - nowMs;
  }
}
