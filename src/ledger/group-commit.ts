// Group commit for credits: credits that arrive while a batch is in flight wait and are written
// together, as one D1 batch (one transaction), instead of one round trip each. Nothing waits when
// nothing is in flight, so a lone credit costs what it did; under load a round trip carries many.
//
// The guarantees are those of appendEntries, entry by entry:
// - each entry's statements run in arrival order inside the batch, so a repeated request_id (in the
//   batch or before it) writes nothing and answers the entry that has it;
// - a batch that fails (a CHECK: a credit past the largest balance) takes no one down: each of its
//   entries is then written on its own, and only the one at fault is refused;
// - a request is answered only after the batch holding its entry has committed.
//
// Workers run each request in its own context, and I/O belongs to the context that started it. So a
// batch is always written by a request whose entry is in it (the first one waiting), never by one
// that has already answered: when a batch ends, the next waiting request is handed the lead.
//
// Every request's queries run in its own D1 session (db/session.ts); a credit's session starts at
// the primary, and D1 sends every write to the primary anyway. The leader's session is the one that
// sees the batch commit, so it hands its bookmark to each request answered from the batch: that
// bookmark is as new as the batch, hence as new as the waiter's own entry and all it read before.
import { bindingOf, bookmarkOf, type Db, learnBookmark } from "../db/client";
import {
  type AppendResult,
  appendEntries,
  movementResult,
  movementStatements,
  type NewEntry,
} from "./append";

/** Entries per batch: 2 statements each, well inside D1's limits on a batch's size. */
export const MAX_GROUP = 50;

type Outcome = { result: AppendResult; bookmark: string | null } | { alone: true } | { lead: true };

type Ticket = {
  entry: NewEntry;
  /** The request's own handle: its statements are prepared there, so its D1 meter counts them. */
  db: Db;
  /** waiting: queued; leading: handed the next batch; batched: in a batch being written. */
  state: "waiting" | "leading" | "batched" | "alone";
  settle: (outcome: Outcome) => void;
};

type Group = { busy: boolean; waiting: Ticket[] };

// One queue per D1 binding and isolate (as db/isolate-cache.ts keys its facts), not per request.
const groups = new WeakMap<D1Database, Group>();

/** How a request keeps its work alive after it answers (ExecutionContext.waitUntil), if it can. */
export type KeepAlive = (work: Promise<unknown>) => void;

/** How often a waiting request looks whether its entry is still queued (see appendCredit). */
const WAIT_CHECK_MS = 1_000;

/** Writes one credit, in a group with the credits arriving beside it. */
export async function appendCredit(db: Db, entry: NewEntry, keepAlive?: KeepAlive) {
  const d1 = bindingOf(db);
  let group = groups.get(d1);
  if (!group) groups.set(d1, (group = { busy: false, waiting: [] }));
  const queue = group;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const outcome = await new Promise<Outcome>((settle) => {
    const ticket: Ticket = { entry, db, state: "waiting", settle };
    queue.waiting.push(ticket);
    if (!queue.busy) {
      queue.busy = true;
      ticket.state = "leading";
      settle({ lead: true });
      return;
    }
    // The runtime cancels a request that waits on nothing of its own ("would never generate a
    // response"), and another request settles this one: a timer of its own keeps it alive. Should
    // the entry still be queued when it fires (the queue is long, or its writer is gone), it leaves
    // the queue and is written alone; once handed a batch, it waits for that batch's answer.
    const check = () => {
      if (ticket.state === "waiting") {
        queue.waiting.splice(queue.waiting.indexOf(ticket), 1);
        ticket.state = "alone";
        settle({ alone: true });
      } else if (ticket.state === "batched") timer = setTimeout(check, WAIT_CHECK_MS);
    };
    timer = setTimeout(check, WAIT_CHECK_MS);
  });
  if (timer !== undefined) clearTimeout(timer);
  if ("result" in outcome) {
    learnBookmark(db, outcome.bookmark);
    return outcome.result;
  }
  if ("alone" in outcome) return appendEntries(db, [entry]);
  const work = lead(db, queue);
  keepAlive?.(work);
  return work;
}

/**
 * Writes the waiting entries (this request's first) as one batch, answers each, and hands the lead
 * to the next waiting request. Returns this request's own answer.
 */
async function lead(db: Db, group: Group): Promise<AppendResult> {
  const batch = group.waiting.splice(0, MAX_GROUP);
  for (const t of batch) t.state = "batched";
  try {
    if (batch.length === 1) return await appendEntries(db, [batch[0]!.entry]);
    let results: readonly unknown[] | undefined;
    try {
      const [own, ...others] = batch;
      results = await db.batch([
        ...movementStatements(db, [own!.entry]),
        ...others.flatMap((t) => movementStatements(t.db, [t.entry])),
      ]);
    } catch {
      // Someone's entry failed a CHECK and the batch rolled back: each writes its own, alone.
      for (const t of batch.slice(1)) {
        t.state = "alone";
        t.settle({ alone: true });
      }
      return await appendEntries(db, [batch[0]!.entry]);
    }
    const bookmark = bookmarkOf(db);
    batch.forEach((t, i) => {
      if (i > 0) t.settle({ result: movementResult(results.slice(2 * i, 2 * i + 2)), bookmark });
    });
    return movementResult(results.slice(0, 2));
  } finally {
    const next = group.waiting[0];
    if (next) {
      next.state = "leading";
      next.settle({ lead: true });
    } else group.busy = false;
  }
}
