// The write path's nudge (events/queue.ts nudgeAfterCommit) and the cron's sweep, in a file of
// its own: the isolate's list of endpoints starts empty here, and only these tests, one after the
// other, add to it; the sweep sees no other file's endpoint.
import { env } from "cloudflare:workers";
import { expect, it, vi } from "vitest";
import { createDb } from "../src/db/client";
import { endpointIds } from "../src/db/events";
import { NUDGE_GAP_MS, type Nudge, nudgeAfterCommit, sweepOutbox } from "../src/events/queue";
import { credit, fakeQueue, makeAccount, makeAdmin, subscribeWebhook } from "./helpers";

/** A handle of its own on the database: the isolate's list and gap for it start afresh. */
const ownHandle = () =>
  new Proxy(env.DB, {
    get: (target, name) => {
      const value = Reflect.get(target, name, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });

it("starts nothing while the isolate knows of no endpoint, and nudges one created since", async () => {
  expect(await endpointIds(createDb(env.DB))).toEqual([]);
  const { sent, queue } = fakeQueue();
  const nowMs = Date.now();
  // The isolate has not read the list yet: the nudge reads it, and finds nobody to tell.
  const first = nudgeAfterCommit(env.DB, queue, nowMs);
  expect(first).toBeInstanceOf(Promise);
  await first;
  expect(sent).toEqual([]);
  // Known empty: no read, no send, no work for waitUntil.
  expect(nudgeAfterCommit(env.DB, queue, nowMs + 1)).toBeNull();
  // Creating an endpoint here makes the isolate read the list again.
  const hook = await subscribeWebhook(await makeAdmin(), "transaction.created");
  await nudgeAfterCommit(env.DB, queue, nowMs + 2);
  expect(sent).toEqual([{ endpointId: hook.id }]);
});

it("sends one nudge per gap, and one more at its end for the writes inside it", async () => {
  const [endpointId] = await endpointIds(createDb(env.DB)); // the isolate knows it (test above)
  const { sent, queue } = fakeQueue();
  const startedMs = Date.now();
  const lead = nudgeAfterCommit(env.DB, queue, startedMs);
  expect(lead).toBeInstanceOf(Promise);
  // Writes inside the gap start nothing of their own...
  expect(nudgeAfterCommit(env.DB, queue, startedMs + 1)).toBeNull();
  expect(nudgeAfterCommit(env.DB, queue, startedMs + 2)).toBeNull();
  expect(sent).toEqual([{ endpointId }]);
  // ...and the request that opened it nudges once more when it ends, for all of them.
  await lead;
  expect(Date.now() - startedMs).toBeGreaterThanOrEqual(NUDGE_GAP_MS - 1);
  expect(sent).toEqual([{ endpointId }, { endpointId }]);

  // The gap is over: the next write nudges at once, and alone in its gap it sends nothing more.
  const next = fakeQueue();
  await nudgeAfterCommit(env.DB, next.queue, Date.now());
  expect(next.sent).toEqual([{ endpointId }]);
});

it("opens a new gap when the one before it never closed: its request was cut at an await", async () => {
  const [endpointId] = await endpointIds(createDb(env.DB));
  const d1 = ownHandle();
  const startedMs = Date.now();
  await nudgeAfterCommit(d1, fakeQueue().queue, startedMs); // reads the list
  // Its send never settles, as when waitUntil's time ran out: the request's continuations, the
  // `finally` that closes its gap among them, never run.
  const never = () => new Promise<never>(() => {});
  const cut = { send: never, sendBatch: never } as unknown as Queue;
  expect(nudgeAfterCommit(d1, cut, startedMs + 1)).toBeInstanceOf(Promise);
  expect(nudgeAfterCommit(d1, fakeQueue().queue, startedMs + 2)).toBeNull();
  // Seconds later, with the list still fresh, a write nudges again rather than wait for the cron.
  const later = fakeQueue();
  await nudgeAfterCommit(d1, later.queue, startedMs + 5_000);
  expect(later.sent).toEqual([{ endpointId }]);
});

it("reads its list of endpoints again once it is 10 s old, so it nudges one made elsewhere", async () => {
  const d1 = ownHandle();
  const startedMs = Date.now();
  const ids = (sent: unknown[]) => sent.map((n) => (n as Nudge).endpointId).sort((a, b) => a - b);
  const first = fakeQueue();
  await nudgeAfterCommit(d1, first.queue, startedMs); // reads the list
  // Made through another handle, as by another isolate: this one's list is not told.
  const hook = await subscribeWebhook(await makeAdmin(), "transaction.created");
  const fresh = fakeQueue();
  await nudgeAfterCommit(d1, fresh.queue, startedMs + 9_999);
  expect(ids(fresh.sent)).toEqual(ids(first.sent));
  const stale = fakeQueue();
  await nudgeAfterCommit(d1, stale.queue, startedMs + 10_000);
  expect(ids(stale.sent)).toEqual([...ids(first.sent), hook.id as number]);
});

// Every endpoint here is the file's own, caught up until the credit below.
it("the cron names an unbound WEBHOOK_QUEUE only while an event waits, and nothing else logs", async () => {
  const { admin, user, wallet } = await makeAccount();
  await subscribeWebhook(admin, "transaction.created");
  const errors = vi.spyOn(console, "error").mockImplementation(() => {});
  expect(await sweepOutbox(env.DB, {}, Date.now())).toBe(0);
  expect(errors).not.toHaveBeenCalled();
  await credit(admin, { user_id: user.id, wallet_id: wallet, amount: 1 });
  expect(await sweepOutbox(env.DB, {}, Date.now())).toBe(0);
  const lines = errors.mock.calls.map(([line]) => JSON.parse(String(line)));
  vi.restoreAllMocks();
  expect(lines).toEqual([
    {
      setting: "WEBHOOK_QUEUE",
      problem: "is not bound (wrangler.toml [[queues.producers]])",
      effect: "webhook deliveries wait until it is bound",
    },
  ]);
});
