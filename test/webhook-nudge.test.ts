// The write path's nudge (events/queue.ts nudgeAfterCommit), in a file of its own: the isolate's
// list of endpoints starts empty here, and only these tests, one after the other, add to it.
import { env } from "cloudflare:workers";
import { expect, it } from "vitest";
import { createDb } from "../src/db/client";
import { endpointIds } from "../src/db/events";
import { NUDGE_GAP_MS, nudgeAfterCommit } from "../src/events/queue";
import { fakeQueue, makeAdmin, subscribeWebhook } from "./helpers";

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
