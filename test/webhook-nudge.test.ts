// The write path's nudge (events/queue.ts nudgeAfterCommit) on a site with no webhook endpoint, in a
// file of its own: the isolate's list of endpoints starts empty here, and no other test adds one.
import { env } from "cloudflare:workers";
import { expect, it } from "vitest";
import { createDb } from "../src/db/client";
import { endpointIds } from "../src/db/events";
import { nudgeAfterCommit } from "../src/events/queue";
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
