// Group commit for credits: credits that arrive while a batch is in flight wait and are written
// together, as one D1 batch (one transaction), instead of one round trip each. Nothing waits when
// nothing is in flight, so a lone credit costs one round trip; under load a round trip carries many.
//
// The guarantees are those of appendEntries, entry by entry:
// - each entry's statements run in arrival order inside the batch, so a repeated request_id (in the
//   batch or before it) writes nothing and answers the entry that has it;
// - a batch that a ledger rule refuses (a credit past the largest balance) rolled back and
//   takes no one down: each of its entries is then written on its own, and only the one at fault is
//   refused;
// - a batch that fails otherwise (a connection lost: it may have committed) is read back, and each
//   entry is answered from what the ledger holds under its request_id: its own entry (the one with
//   its attempt id) is answered as written (never 409 to a first attempt), another entry as a repeat
//   (though identical), and an absent one is written;
// - a request is answered only after the batch holding its entry has committed.
//
// Workers run each request in its own context, and I/O belongs to the context that started it. So a
// batch is always written by a request whose entry is in it, never by one that has already answered,
// and no request is ever woken by another: a waiting request resumes only from its own timer, looks
// at its ticket, and acts in its own context (writes its answer's result, takes the lead, or writes
// alone). A request woken from another's promise resolution can resume in the waker's context,
// where its D1 batch fails "Cannot perform I/O on behalf of a different request" (a 500).
//
// Every request's queries run in its own D1 session (db/d1-session.ts); a credit's session starts at
// the primary, and D1 sends every write to the primary anyway. The leader's session is the one that
// sees the batch commit, so it hands its bookmark to each request answered from the batch: that
// bookmark is as new as the batch, hence as new as the waiter's own entry and all it read before.
import { bindingOf, bookmarkOf, type Db, learnBookmark } from "../db/client";
import { perObject } from "../per-object";
import {
  type AppendResult,
  appendEntries,
  movementResult,
  movementStatements,
  type NewEntry,
  readBack,
  refusedByRule,
} from "./append";

/** Entries per batch: 2 statements each, well inside D1's limits on a batch's size. */
const MAX_GROUP = 50;

/** A waiting request looks at its ticket after 1 ms, then 2, then every 4 ms. */
const FIRST_LOOK_MS = 1;
const MAX_LOOK_MS = 4;

/**
 * How long an entry waits in the queue before it is written alone (the queue is long, or the
 * request writing a batch is gone); and how long a batch may be in flight before a waiting request
 * stops waiting for its writer and leads the next one itself.
 */
const WAIT_ALONE_MS = 1_000;
const LEAD_LEASE_MS = 10_000;

type Ticket = {
  entry: NewEntry;
  /** The request's own handle: its statements are prepared there, so its D1 meter counts them. */
  db: Db;
  /**
   * waiting: queued; batched: in a batch being written; alone: to write on its own (its batch
   * failed a ledger rule, or did not commit it); done: answered, `result` and `bookmark` set; lost:
   * its batch's outcome could not be learnt, `error` set.
   */
  state: "waiting" | "batched" | "alone" | "done" | "lost";
  /** The batch holding it, once batched. */
  batch?: Lease;
  result?: AppendResult;
  bookmark?: string | null;
  error?: unknown;
};

/** A batch in flight: when its writer started it. */
type Lease = { sinceMs: number };

/** The batch in flight, or null; the entries waiting for the next. */
type Group = { leader: Lease | null; waiting: Ticket[] };

// One queue per D1 binding and isolate (as db/isolate-cache.ts keys its facts), not per request.
const groupOf = perObject((_d1: D1Database): Group => ({ leader: null, waiting: [] }));

/** How a request keeps its work alive after it answers (ExecutionContext.waitUntil), if it can. */
export type KeepAlive = (work: Promise<unknown>) => void;

/** Writes one credit, in a group with the credits arriving beside it. */
export async function appendCredit(db: Db, entry: NewEntry, keepAlive: KeepAlive) {
  // Only an entry named by a request_id can be found again after a batch of unknown outcome.
  if (!entry.keyed) return appendEntries(db, [entry]);
  const queue = groupOf(bindingOf(db));
  const lead = () => {
    const work = writeBatch(db, entry, queue);
    keepAlive(work);
    return work;
  };
  if (!leaderAlive(queue)) return lead();

  const ticket: Ticket = { entry, db, state: "waiting" };
  queue.waiting.push(ticket);
  const sinceMs = Date.now();
  for (let ms = FIRST_LOOK_MS; ; ms = Math.min(ms * 2, MAX_LOOK_MS)) {
    await scheduler.wait(ms);
    switch (ticket.state) {
      case "done":
        learnBookmark(db, ticket.bookmark ?? null);
        return ticket.result!;
      case "alone":
        return writeAlone(db, entry);
      case "lost":
        throw ticket.error;
      case "batched":
        // Its batch is being written: wait for the outcome. Should its writer be gone (the lease
        // ran out), the batch may have committed: the ledger answers, else it writes alone.
        if (live(ticket.batch!)) continue;
        return (await readBack(db, [entry]))[0] ?? writeAlone(db, entry);
      case "waiting":
        if (leaderAlive(queue) && Date.now() - sinceMs < WAIT_ALONE_MS) continue;
        queue.waiting.splice(queue.waiting.indexOf(ticket), 1);
        return leaderAlive(queue) ? appendEntries(db, [entry]) : lead();
    }
  }
}

/** Whether a batch's writer is within its lease (past it, the writer is presumed gone). */
const live = (lease: Lease) => Date.now() - lease.sinceMs < LEAD_LEASE_MS;

/** Whether a batch is in flight, its writer alive. */
const leaderAlive = (group: Group) => group.leader !== null && live(group.leader);

/**
 * Writes this request's entry and the entries waiting (up to MAX_GROUP) as one batch, and leaves each
 * waiting request its outcome on its ticket. Returns this request's own answer.
 */
async function writeBatch(db: Db, own: NewEntry, group: Group): Promise<AppendResult> {
  const lease: Lease = { sinceMs: Date.now() };
  group.leader = lease;
  const others = group.waiting.splice(0, MAX_GROUP - 1);
  for (const t of others) {
    t.state = "batched";
    t.batch = lease;
  }
  try {
    if (others.length === 0) return await appendEntries(db, [own]);
    let results: readonly D1Result[];
    try {
      // Each entry's statements prepared on its own request's handle, so its meter counts them.
      results = await db.$client.batch([
        ...movementStatements(db, [own]),
        ...others.flatMap((t) => movementStatements(t.db, [t.entry])),
      ]);
    } catch (err) {
      if (!refusedByRule(err)) return await answerFromLedger(db, own, others, err);
      // Someone's entry failed a ledger rule and the batch rolled back: each writes its own, alone.
      for (const t of others) t.state = "alone";
      return await appendEntries(db, [own]);
    }
    const bookmark = bookmarkOf(db);
    others.forEach((t, i) => {
      answer(t, movementResult(results.slice(2 * (i + 1), 2 * (i + 2))), bookmark);
    });
    return movementResult(results.slice(0, 2));
  } finally {
    // Anything thrown past the batch leaves no entry waiting on it: each unanswered one writes
    // alone (a committed one answers 409 with itself, never twice).
    for (const t of others) if (t.state === "batched") t.state = "alone";
    if (group.leader === lease) group.leader = null;
  }
}

function answer(ticket: Ticket, result: AppendResult, bookmark: string | null) {
  ticket.result = result;
  ticket.bookmark = bookmark;
  ticket.state = "done";
}

/**
 * A batch failed without a ledger rule's verdict, so it may have committed: each entry is answered
 * from what the ledger holds under its request_id, and one it does not hold is written (alone).
 * Should that read fail too, nobody learns the outcome: every request answers the error, and a
 * retry with the same request_id finds what was written.
 */
async function answerFromLedger(
  db: Db,
  own: NewEntry,
  others: Ticket[],
  batchError: unknown,
): Promise<AppendResult> {
  let found: Awaited<ReturnType<typeof readBack>>;
  try {
    found = await readBack(db, [own, ...others.map((t) => t.entry)]);
  } catch {
    for (const t of others) {
      t.error = batchError;
      t.state = "lost";
    }
    throw batchError;
  }
  const bookmark = bookmarkOf(db);
  others.forEach((t, i) => {
    const held = found[i + 1];
    if (held === undefined) t.state = "alone";
    else answer(t, held, bookmark);
  });
  return found[0] ?? writeAlone(db, own);
}

/**
 * Writes alone an entry its batch may still commit (a batch whose outcome is unknown, or whose
 * writer is past its lease). Should the batch commit it first, this write finds its request_id
 * used: the entry under it is read back, and the request's own (its attempt id) is answered as
 * written, never 409 to a first attempt.
 */
async function writeAlone(db: Db, entry: NewEntry): Promise<AppendResult> {
  const written = await appendEntries(db, [entry]);
  if (written.created || written.existingId === undefined) return written;
  const [held] = await readBack(db, [entry]);
  return held ?? written;
}
