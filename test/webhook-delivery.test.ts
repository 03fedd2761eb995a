import {
  createExecutionContext,
  createMessageBatch,
  createScheduledController,
  getQueueResult,
  waitOnExecutionContext,
} from "cloudflare:test";
import { env } from "cloudflare:workers";
import { Webhook } from "standardwebhooks";
import { describe, expect, it, vi } from "vitest";
import { createDb } from "../src/db/client";
import { insertDelivery, PAGE_DATA_CHARS } from "../src/db/events";
import { NOT_MIGRATED } from "../src/db/health";
import { type Outbound, postSigned } from "../src/events/deliver";
import {
  type DeadLetter,
  MAX_ATTEMPTS,
  PER_RUN,
  type PumpDeps,
  pumpEndpoint,
  RUN_PAGE_CHARS,
} from "../src/events/pump";
import {
  consumeNudges,
  pumpDeps as consumerDeps,
  DRAIN_BUDGET_MS,
  ENDPOINTS_AT_ONCE,
  FAULT_RETRY_S,
  FRESH_AFTER_ATTEMPTS,
  type Nudge,
} from "../src/events/queue";
import worker from "../src/index";
import { CONSOLE, consoleOf, form, hidden, noticeLeft } from "./console-helpers";
import { aroundReads, countingD1, pausingD1, wrappedD1 } from "./d1-counter";
import {
  appAt,
  appendHistory,
  appendLongEvents,
  call,
  credit,
  creditBatch,
  debit,
  fakeQueue,
  INSUFFICIENT,
  importedEntry,
  type Json,
  makeAccount,
  makeUser,
  makeWallet,
  minutesRunAt,
  subscribeWebhook,
  type TestUser,
  testApp,
  unique,
} from "./helpers";
import { pumpDeps } from "./service-helpers";

type Received = { id: string; body: string; headers: Record<string, string> };

/** A receiver: records each POST and answers what `answer` says for its webhook-id. */
function receiver(answer: (id: string, n: number) => number | Promise<number> = () => 200) {
  const got: Received[] = [];
  const outbound: Outbound = async (_url, init) => {
    const headers = Object.fromEntries(new Headers(init.headers).entries());
    const id = headers["webhook-id"]!;
    got.push({ id, body: String(init.body), headers });
    return new Response(null, { status: await answer(id, got.length) });
  };
  return { got, outbound };
}

/** A clock the test moves. */
function clock() {
  let now = Date.now();
  return { nowMs: () => now, advance: (s: number) => (now += s * 1000) };
}

/** An endpoint whose receiver fails the first event it is sent (`poison`) and takes the rest. */
async function poisonedEndpoint() {
  const { admin, user, wallet } = await makeAccount();
  const hook = await subscribeWebhook(admin, "transaction.created");
  await credit(admin, { user_id: user.id, wallet_id: wallet, amount: 1 });
  const [poison] = await eventsAfter(admin, hook.last_event_id, "transaction.created");
  const { got, outbound } = receiver((id) => (id === String(poison!.id) ? 500 : 200));
  return { admin, user, wallet, hook, poison: poison!, got, outbound, t: clock() };
}

/** Pumps an endpoint, moving the clock past each retry's delay, until it stops retrying: the delays. */
async function pumpThroughRetries(deps: PumpDeps, endpointId: number, t: ReturnType<typeof clock>) {
  const delays: number[] = [];
  for (;;) {
    const r = await pumpEndpoint(deps, endpointId);
    if (r.kind !== "retry") return delays;
    delays.push(r.delayS);
    t.advance(r.delayS);
  }
}

async function eventsAfter(admin: TestUser, after: number, types: string) {
  const res = await call("GET", "/events", { auth: admin.bearer, query: { after, types } });
  return res.body.data as Json[];
}

const webhook = async (admin: TestUser, id: number) =>
  ((await call("GET", "/webhooks", { auth: admin.bearer })).body.data as Json[]).find(
    (w) => w.id === id,
  )!;

/** How many deliveries are kept of the endpoint, straight from the table. */
const deliveriesOf = async (endpointId: number) =>
  (await env.DB.prepare("SELECT count(*) AS n FROM webhook_deliveries WHERE endpoint_id = ?1")
    .bind(endpointId)
    .first<{ n: number }>())!.n;

describe("the consumer's pump", () => {
  it(`a run delivers at most ${PER_RUN} events, says more only while more wait, and the next run goes on`, async () => {
    const { admin, user, wallet } = await makeAccount();
    const hook = await subscribeWebhook(admin, "transaction.created");
    const { got, outbound } = receiver();
    const deps = pumpDeps(outbound, Date.now);
    await appendHistory(user.id, wallet, PER_RUN);
    expect(await pumpEndpoint(deps, hook.id)).toEqual({ kind: "idle" });
    expect(got).toHaveLength(PER_RUN);
    await appendHistory(user.id, wallet, PER_RUN + 1);
    expect(await pumpEndpoint(deps, hook.id)).toEqual({ kind: "more" });
    expect(got).toHaveLength(2 * PER_RUN);
    expect(await pumpEndpoint(deps, hook.id)).toEqual({ kind: "idle" });
    const ids = got.map((r) => Number(r.id));
    expect(ids).toHaveLength(2 * PER_RUN + 1);
    expect(ids).toEqual([...new Set(ids)].sort((a, b) => a - b));
  });

  it(`a run that meets a page cut by its data still delivers at most ${PER_RUN} events`, async () => {
    const { admin, user, wallet } = await makeAccount();
    const hook = await subscribeWebhook(admin, "transaction.created,user.created");
    // Two events of 2.5 million characters (users of a very long name): the run's first pages hold
    // one each (a run's page ends past RUN_PAGE_CHARS of data), so its later pages of 20 do not end
    // at PER_RUN.
    await appendLongEvents(2, 2_500_000);
    await appendHistory(user.id, wallet, PER_RUN);
    const { got, outbound } = receiver();
    const deps = pumpDeps(outbound, Date.now);
    expect(await pumpEndpoint(deps, hook.id)).toEqual({ kind: "more" });
    expect(got).toHaveLength(PER_RUN);
    expect(await pumpEndpoint(deps, hook.id)).toEqual({ kind: "idle" });
    expect(got).toHaveLength(PER_RUN + 2);
  });

  // The consumer drains ENDPOINTS_AT_ONCE endpoints side by side in one isolate, each holding its
  // page while it delivers: together they hold no more than the one page of GET /events that
  // PAGE_DATA_CHARS sizes against a Worker's 128 MB, which local workerd does not enforce.
  it("reads pages of at most RUN_PAGE_CHARS of data before their last event: its drains hold one feed page", async () => {
    expect(RUN_PAGE_CHARS * ENDPOINTS_AT_ONCE).toBeLessThanOrEqual(PAGE_DATA_CHARS);
    const { admin } = await makeAccount();
    const hook = await subscribeWebhook(admin, "user.created");
    await appendLongEvents(3, 500_000);
    // Each page's data, event by event, as D1 answered the pump's read.
    const pages: number[][] = [];
    const d1 = aroundReads(/sum\(length\(/i, async (read) => {
      const rows = (await read()) as unknown[][];
      pages.push(
        rows.map((row) => Math.max(...row.map((v) => (typeof v === "string" ? v.length : 0)))),
      );
      return rows;
    });
    const { got, outbound } = receiver();
    const deps = { ...pumpDeps(outbound, Date.now), db: createDb(d1) };
    expect(await pumpEndpoint(deps, hook.id)).toEqual({ kind: "idle" });
    expect(got).toHaveLength(3);
    const held = pages.map((page) => page.slice(0, -1).reduce((a, b) => a + b, 0));
    expect(
      held.every((chars) => chars < RUN_PAGE_CHARS),
      `${pages}`,
    ).toBe(true);
  });

  it("starts one delivery however spent its consumer's budget, so every endpoint of a batch gets on", async () => {
    const { admin, user, wallet } = await makeAccount();
    const hook = await subscribeWebhook(admin, "transaction.created");
    await appendHistory(user.id, wallet, 2);
    const { got, outbound } = receiver();
    const deps = pumpDeps(outbound, Date.now);
    expect(await pumpEndpoint(deps, hook.id, () => true)).toEqual({ kind: "more" });
    expect(got).toHaveLength(1);
    expect(await pumpEndpoint(deps, hook.id)).toEqual({ kind: "idle" });
    expect(got).toHaveLength(2);
  });

  it("renews its lease with each delivery: a run longer than WEBHOOK_LEASE_S keeps its endpoint", async () => {
    const { admin, user, wallet } = await makeAccount();
    const hook = await subscribeWebhook(admin, "transaction.created");
    await appendHistory(user.id, wallet, 3);
    const t = clock();
    // Each answer takes 50 of the lease's 60 s; a consumer nudged meanwhile finds the endpoint held.
    const rivals: string[] = [];
    const { got, outbound } = receiver(async () => {
      t.advance(50);
      rivals.push((await pumpEndpoint(pumpDeps(receiver().outbound, t.nowMs), hook.id)).kind);
      return 200;
    });
    expect(await pumpEndpoint(pumpDeps(outbound, t.nowMs), hook.id)).toEqual({ kind: "idle" });
    expect(got).toHaveLength(3);
    expect(rivals).toEqual(["busy", "busy", "busy"]);
  });

  it("lets go of its own lease only: a run that failed after another consumer took over leaves it held", async () => {
    const { admin, user, wallet } = await makeAccount();
    const hook = await subscribeWebhook(admin, "transaction.created");
    await credit(admin, { user_id: user.id, wallet_id: wallet, amount: 1 });
    const t = clock();
    // The second consumer holds the endpoint mid-delivery until `answer` is called.
    let answer = () => {};
    const answered = new Promise<number>((resolve) => {
      answer = () => resolve(200);
    });
    let taken = () => {};
    const holding = new Promise<void>((resolve) => {
      taken = resolve;
    });
    const second = receiver(() => {
      taken();
      return answered;
    });
    let secondRun: Promise<unknown> = Promise.resolve();
    // The first consumer's answer outlasts its lease, and its record fails on D1.
    const first = receiver(async () => {
      t.advance(61);
      secondRun = pumpEndpoint(pumpDeps(second.outbound, t.nowMs), hook.id);
      await holding;
      return 200;
    });
    const failing = createDb(
      pausingD1(async (kind) => {
        if (kind === "batch") throw new Error("D1_ERROR: Network connection lost.");
      }),
    );
    await expect(
      pumpEndpoint({ ...pumpDeps(first.outbound, t.nowMs), db: failing }, hook.id),
    ).rejects.toThrow();
    // Its letting go left the second consumer's lease alone: a third finds the endpoint held.
    expect(await pumpEndpoint(pumpDeps(receiver().outbound, t.nowMs), hook.id)).toEqual({
      kind: "busy",
    });
    answer();
    expect(await secondRun).toEqual({ kind: "idle" });
    expect(second.got).toHaveLength(1);
  });

  it("lets its lease go as it backs off: a retry sooner than WEBHOOK_LEASE_S delivers", async () => {
    const { admin, user, wallet } = await makeAccount();
    const hook = await subscribeWebhook(admin, "transaction.created");
    await credit(admin, { user_id: user.id, wallet_id: wallet, amount: 1 });
    const { got, outbound } = receiver((_id, n) => (n === 1 ? 503 : 200));
    const t = clock();
    const deps = { ...pumpDeps(outbound, t.nowMs), retryBaseS: 2 };
    expect(await pumpEndpoint(deps, hook.id)).toEqual({ kind: "retry", delayS: 2 });
    t.advance(2);
    expect(await pumpEndpoint(deps, hook.id)).toEqual({ kind: "idle" });
    expect(got).toHaveLength(2);
  });

  it("delivers an endpoint's events of its types in id order, signed, webhook-id the event id, and moves its cursor", async () => {
    const { admin, user, wallet } = await makeAccount();
    const hook = await subscribeWebhook(admin);
    for (const amount of [1, 2, 3])
      await credit(admin, { user_id: user.id, wallet_id: wallet, amount });
    await makeWallet(admin);
    await call("POST", "/users", {
      auth: admin.bearer,
      body: {
        username: unique("u"),
        user_email: `${unique("e")}@example.test`,
        user_password: "secret123",
      },
    });
    const expected = await eventsAfter(
      admin,
      hook.last_event_id,
      "transaction.created,wallet.created",
    );
    const { got, outbound } = receiver();
    const t = clock();
    expect(await pumpEndpoint(pumpDeps(outbound, t.nowMs), hook.id)).toEqual({ kind: "idle" });
    expect(got.map((r) => r.id)).toEqual(expected.map((e) => String(e.id)));
    expect(got.map((r) => new Webhook(hook.secret).verify(r.body, r.headers))).toStrictEqual(
      expected,
    );
    // Caught up, its cursor is the newest event (the user.created it does not receive, too).
    const newest = await env.DB.prepare("SELECT max(id) AS id FROM events").first<{ id: number }>();
    expect(await webhook(admin, hook.id)).toMatchObject({
      last_event_id: newest!.id,
      status: "active",
    });
    const log = await call("GET", `/webhooks/${hook.id}/deliveries`, { auth: admin.bearer });
    expect(log.body.data.map((d: Json) => [d.event_id, d.status, d.attempt, d.trigger])).toEqual(
      expected.map((e) => [e.id, "delivered", 1, "queue"]).reverse(),
    );
  });

  it("backs off after a failed attempt, then delivers the same event again and the rest in order", async () => {
    const { admin, user, wallet } = await makeAccount();
    const hook = await subscribeWebhook(admin, "transaction.created");
    for (let i = 0; i < 3; i++)
      await credit(admin, { user_id: user.id, wallet_id: wallet, amount: 1 });
    const expected = (await eventsAfter(admin, hook.last_event_id, "transaction.created")).map(
      (e) => String(e.id),
    );
    const { got, outbound } = receiver((_id, n) => (n === 1 ? 503 : 200));
    const t = clock();
    const deps = pumpDeps(outbound, t.nowMs);
    expect(await pumpEndpoint(deps, hook.id)).toEqual({ kind: "retry", delayS: 60 });
    expect(await webhook(admin, hook.id)).toMatchObject({
      failed_attempts: 1,
      next_attempt_at: expect.any(String),
    });
    // Within the back-off a nudge finds the endpoint resting.
    expect(await pumpEndpoint(deps, hook.id)).toEqual({ kind: "busy" });
    t.advance(60);
    expect(await pumpEndpoint(deps, hook.id)).toEqual({ kind: "idle" });
    expect(got.map((r) => r.id)).toEqual([expected[0], ...expected]);
    const log = (await call("GET", `/webhooks/${hook.id}/deliveries`, { auth: admin.bearer })).body
      .data;
    expect(log.at(-1)).toMatchObject({ status: "failed", attempt: 1, http_status: 503 });
    expect(log.at(-2)).toMatchObject({ status: "delivered", attempt: 2 });
  });

  it("without the WEBHOOK_DLQ binding, logs a dead letter naming it and goes on, rather than retry it for ever", async () => {
    const errors = vi.spyOn(console, "error").mockImplementation(() => {});
    const { admin, hook, poison, got, outbound, t } = await poisonedEndpoint();
    const unbound = { ...env, WEBHOOK_DLQ: undefined } as unknown as typeof env;
    const deps = { ...consumerDeps(unbound), outbound, nowMs: t.nowMs };
    await pumpThroughRetries(deps, hook.id, t);
    expect(got).toHaveLength(MAX_ATTEMPTS);
    expect(await webhook(admin, hook.id)).toMatchObject({ last_event_id: poison!.id });
    expect(errors.mock.calls.map(([line]) => JSON.parse(String(line)))).toContainEqual({
      webhook_dead_letter: {
        endpointId: hook.id,
        eventId: poison!.id,
        attempts: MAX_ATTEMPTS,
        error: "answered HTTP 500",
      },
      setting: "WEBHOOK_DLQ",
      problem: "is not bound (wrangler.toml [[queues.producers]])",
    });
  });

  it(`dead-letters an event after ${MAX_ATTEMPTS} failed attempts with doubling delays, marks the endpoint failing, and goes on with the next`, async () => {
    const { admin, user, wallet, hook, poison, got, outbound, t } = await poisonedEndpoint();
    const letters: DeadLetter[] = [];
    const deps = pumpDeps(outbound, t.nowMs, letters);
    const delays = await pumpThroughRetries(deps, hook.id, t);
    expect(delays).toEqual([60, 120, 240, 480, 960, 1920, 3600]);
    expect(got).toHaveLength(MAX_ATTEMPTS);
    expect(letters).toEqual([
      {
        endpointId: hook.id,
        eventId: poison!.id,
        attempts: MAX_ATTEMPTS,
        error: "answered HTTP 500",
      },
    ]);
    expect(await webhook(admin, hook.id)).toMatchObject({
      status: "failing",
      last_event_id: poison!.id,
      failed_attempts: 0,
    });
    const log = (await call("GET", `/webhooks/${hook.id}/deliveries`, { auth: admin.bearer })).body
      .data;
    expect(log[0]).toMatchObject({ status: "dead", attempt: MAX_ATTEMPTS });
    // A test delivered says nothing of the events: the endpoint stays failing.
    const app = testApp({ outbound });
    const tested = await call("POST", `/webhooks/${hook.id}/test`, { auth: admin.bearer, app });
    expect(tested.body.data.status).toBe("delivered");
    expect(await webhook(admin, hook.id)).toMatchObject({ status: "failing" });
    // The next event goes out, and a delivery clears the failing mark.
    await credit(admin, { user_id: user.id, wallet_id: wallet, amount: 1 });
    expect(await pumpEndpoint(deps, hook.id)).toEqual({ kind: "idle" });
    expect(got.at(-1)!.id).not.toBe(String(poison!.id));
    expect(await webhook(admin, hook.id)).toMatchObject({ status: "active", failing_since: null });
  });

  it("keeps failing_since at the first dead letter while the next event is dead-lettered too", async () => {
    const { admin, user, wallet } = await makeAccount();
    const hook = await subscribeWebhook(admin, "transaction.created");
    for (let i = 0; i < 2; i++)
      await credit(admin, { user_id: user.id, wallet_id: wallet, amount: 1 });
    const { got, outbound } = receiver(() => 500);
    const t = clock();
    const letters: DeadLetter[] = [];
    await pumpThroughRetries(pumpDeps(outbound, t.nowMs, letters), hook.id, t);
    expect(got).toHaveLength(2 * MAX_ATTEMPTS);
    expect(letters).toHaveLength(2);
    const log = (await call("GET", `/webhooks/${hook.id}/deliveries`, { auth: admin.bearer })).body
      .data as Json[];
    const dead = log.filter((d) => d.status === "dead");
    expect(dead).toHaveLength(2);
    // The endpoint has been failing since its first dead letter, hours before the second.
    expect(await webhook(admin, hook.id)).toMatchObject({
      status: "failing",
      failing_since: dead.at(-1)!.created_at,
    });
    expect(dead.at(-1)!.created_at).not.toBe(dead[0]!.created_at);
  });

  it("sends an event's dead letter once when the record of its last attempt fails and the message comes back", async () => {
    const { admin, hook, poison, got, outbound, t } = await poisonedEndpoint();
    let lost = false;
    const db = createDb(
      pausingD1(async (kind) => {
        if (kind !== "batch" || got.length !== MAX_ATTEMPTS || lost) return;
        lost = true;
        throw new Error("D1_ERROR: Network connection lost.");
      }),
    );
    const letters: DeadLetter[] = [];
    const deps = { ...pumpDeps(outbound, t.nowMs, letters), db };
    await expect(pumpThroughRetries(deps, hook.id, t)).rejects.toThrow("Network connection lost");
    // The failed run lets its lease go, and the queue's retry of its message comes (later here).
    t.advance(61);
    await pumpThroughRetries(deps, hook.id, t);
    expect(got.map((r) => r.id)).toEqual(Array(MAX_ATTEMPTS + 1).fill(String(poison.id)));
    expect(letters).toEqual([
      {
        endpointId: hook.id,
        eventId: poison.id,
        attempts: MAX_ATTEMPTS,
        error: "answered HTTP 500",
      },
    ]);
    const log = (await call("GET", `/webhooks/${hook.id}/deliveries`, { auth: admin.bearer })).body
      .data as Json[];
    expect(log.filter((d) => d.status === "dead")).toHaveLength(1);
  });

  it("sends an event's dead letter once when the record of its last attempt commits but its answer is lost", async () => {
    // D1 committed the record (the cursor moved past the event, the delivery is dead), then the
    // connection dropped its answer: the event is not tried again, so its letter goes now or never.
    const { admin, hook, poison, got, outbound, t } = await poisonedEndpoint();
    let lost = false;
    const db = createDb(
      wrappedD1(async (_statements, send) => {
        const answer = await send();
        if (got.length !== MAX_ATTEMPTS || lost) return answer;
        lost = true;
        throw new Error("D1_ERROR: Network connection lost.");
      }),
    );
    const letters: DeadLetter[] = [];
    const deps = { ...pumpDeps(outbound, t.nowMs, letters), db };
    await pumpThroughRetries(deps, hook.id, t).catch(() => {});
    // The queue's retry of its message, once the lease is out.
    t.advance(61);
    await pumpThroughRetries(deps, hook.id, t);
    expect(lost).toBe(true);
    expect(got).toHaveLength(MAX_ATTEMPTS);
    expect(await webhook(admin, hook.id)).toMatchObject({
      status: "failing",
      last_event_id: poison.id,
    });
    expect(letters).toEqual([
      {
        endpointId: hook.id,
        eventId: poison.id,
        attempts: MAX_ATTEMPTS,
        error: "answered HTTP 500",
      },
    ]);
  });

  it("holds the endpoint of a consumer that died mid-delivery for WEBHOOK_LEASE_S, then delivers again from the cursor", async () => {
    const { admin, user, wallet } = await makeAccount();
    const hook = await subscribeWebhook(admin, "transaction.created");
    await credit(admin, { user_id: user.id, wallet_id: wallet, amount: 1 });
    const [event] = await eventsAfter(admin, hook.last_event_id, "transaction.created");
    const { got, outbound } = receiver();
    const t = clock();
    const deps = { ...consumerDeps({ ...env, WEBHOOK_LEASE_S: "20" }), outbound, nowMs: t.nowMs };
    // It dies after sending, before its record of the attempt: nothing of it reaches D1 from then
    // on (not even the letting go of its lease after a fault), and the lease is left taken.
    let dead = false;
    const dying = createDb(
      pausingD1(async (kind) => {
        if (kind === "batch") dead = true;
        if (dead) throw new Error("the consumer died");
      }),
    );
    await expect(pumpEndpoint({ ...deps, db: dying }, hook.id)).rejects.toThrow("died");
    t.advance(19);
    expect(await pumpEndpoint(deps, hook.id)).toEqual({ kind: "busy" });
    t.advance(1);
    expect(await pumpEndpoint(deps, hook.id)).toEqual({ kind: "idle" });
    // The event in flight arrives twice, under one webhook-id.
    expect(got.map((r) => r.id)).toEqual([String(event!.id), String(event!.id)]);
  });

  it("lets the endpoint go when D1 fails mid-run, so the queue's retry of its message delivers", async () => {
    const { admin, user, wallet } = await makeAccount();
    const hook = await subscribeWebhook(admin, "transaction.created");
    await credit(admin, { user_id: user.id, wallet_id: wallet, amount: 1 });
    const [event] = await eventsAfter(admin, hook.last_event_id, "transaction.created");
    const { got, outbound } = receiver();
    const t = clock();
    // The read of the endpoint's events, after its lease was taken, is lost once.
    let reads = 0;
    const losing = aroundReads(/OVER \(ORDER BY/, async (read) => {
      if (reads++ === 0) throw new Error("D1_ERROR: Network connection lost.");
      return read();
    });
    const deps = pumpDeps(outbound, t.nowMs);
    await expect(pumpEndpoint({ ...deps, db: createDb(losing) }, hook.id)).rejects.toThrow(
      "Failed query",
    );
    // The message comes back (FAULT_RETRY_S later), long before the lease would have run out: the
    // clock left where it was, the endpoint is free for it.
    expect(await pumpEndpoint(deps, hook.id)).toEqual({ kind: "idle" });
    expect(got.map((r) => r.id)).toEqual([String(event!.id)]);
  });

  it("retries a message whose run failed on D1 after FAULT_RETRY_S, not at once", async () => {
    const { admin, user, wallet } = await makeAccount();
    const hook = await subscribeWebhook(admin, "transaction.created");
    await credit(admin, { user_id: user.id, wallet_id: wallet, amount: 1 });
    // D1's words, however long, and the statement reach the log cut to 300 characters each.
    const losing = aroundReads(/OVER \(ORDER BY/, () => {
      throw new Error(`D1_ERROR: Network connection lost.${" Retry.".repeat(60)}`);
    });
    const settled: unknown[] = [];
    const batch = {
      queue: "wallet-webhooks",
      messages: [
        {
          body: { endpointId: hook.id },
          attempts: 1,
          ack: () => settled.push("ack"),
          retry: (options?: QueueRetryOptions) => settled.push({ retry: options }),
        },
      ],
    } as unknown as MessageBatch<Nudge>;
    const errors = vi.spyOn(console, "error").mockImplementation(() => {});
    await consumeNudges(batch.messages, env, { ...consumerDeps(env), db: createDb(losing) });
    const lines = errors.mock.calls.map(([line]) => JSON.parse(String(line)));
    vi.restoreAllMocks();
    expect(lines).toEqual([expect.objectContaining({ webhook_endpoint: hook.id })]);
    expect(lines[0].fault).toMatch(/^Error: D1_ERROR: Network connection lost\./);
    expect([lines[0].fault.length, lines[0].statement.length]).toEqual([300, 300]);
    expect(settled).toEqual([{ retry: { delaySeconds: FAULT_RETRY_S } }]);
  });

  it("records no dead delivery for a last attempt whose lease was taken over: the event is tried again", async () => {
    const { admin, user, wallet } = await makeAccount();
    const hook = await subscribeWebhook(admin, "transaction.created");
    await credit(admin, { user_id: user.id, wallet_id: wallet, amount: 1 });
    const [poison] = await eventsAfter(admin, hook.last_event_id, "transaction.created");
    const t = clock();
    // The 8th attempt stalls past its lease, and another consumer takes the endpoint over.
    const { got, outbound } = receiver(async (_id, n) => {
      if (n === MAX_ATTEMPTS)
        await env.DB.prepare(
          "UPDATE webhook_endpoints SET lease_token = 'another consumer', lease_until_ms = ?2 WHERE id = ?1",
        )
          .bind(hook.id, t.nowMs() + 60_000)
          .run();
      return n <= MAX_ATTEMPTS ? 500 : 200;
    });
    const letters: DeadLetter[] = [];
    const deps = pumpDeps(outbound, t.nowMs, letters);
    expect((await pumpThroughRetries(deps, hook.id, t)).length).toBe(MAX_ATTEMPTS - 1);
    expect(letters).toEqual([]);
    const statuses = async () =>
      (
        await env.DB.prepare(
          "SELECT status FROM webhook_deliveries WHERE endpoint_id = ?1 AND event_id = ?2 ORDER BY id",
        )
          .bind(hook.id, poison!.id)
          .all<{ status: string }>()
      ).results.map((r) => r.status);
    // Not dead-lettered, and tried again by the consumer that holds the endpoint now.
    expect(await webhook(admin, hook.id)).toMatchObject({ last_event_id: hook.last_event_id });
    expect(await statuses()).not.toContain("dead");
    t.advance(61);
    await pumpThroughRetries(deps, hook.id, t);
    expect(got).toHaveLength(MAX_ATTEMPTS + 1);
    expect(await statuses()).toEqual([...Array(MAX_ATTEMPTS).fill("failed"), "delivered"]);
  });

  it("logs a dead letter the WEBHOOK_DLQ refuses in its place, once, and goes on with the next event", async () => {
    const errors = vi.spyOn(console, "error").mockImplementation(() => {});
    const { admin, hook, poison, got, outbound, t } = await poisonedEndpoint();
    const refuse = async () => {
      throw new Error("Queue send failed: internal error");
    };
    const refusing = { send: refuse, sendBatch: refuse };
    const withRefusal = { ...env, WEBHOOK_DLQ: refusing } as unknown as typeof env;
    const deps = { ...consumerDeps(withRefusal), outbound, nowMs: t.nowMs };
    await pumpThroughRetries(deps, hook.id, t);
    expect(got).toHaveLength(MAX_ATTEMPTS);
    expect(await webhook(admin, hook.id)).toMatchObject({
      status: "failing",
      last_event_id: poison.id,
    });
    const lines = errors.mock.calls.map(([line]) => JSON.parse(String(line)));
    expect(lines.filter((l) => "webhook_dead_letter" in l)).toEqual([
      {
        webhook_dead_letter: {
          endpointId: hook.id,
          eventId: poison.id,
          attempts: MAX_ATTEMPTS,
          error: "answered HTTP 500",
        },
        setting: "WEBHOOK_DLQ",
        problem: "refused the letter: Error: Queue send failed: internal error",
      },
    ]);
  });

  it("sends a dead letter to WEBHOOK_DLQ and logs nothing of it itself", async () => {
    const errors = vi.spyOn(console, "error").mockImplementation(() => {});
    const { hook, poison, outbound, t } = await poisonedEndpoint();
    const { sent, queue } = fakeQueue();
    const withDlq = { ...env, WEBHOOK_DLQ: queue } as unknown as typeof env;
    await pumpThroughRetries({ ...consumerDeps(withDlq), outbound, nowMs: t.nowMs }, hook.id, t);
    const lines = errors.mock.calls.map(([line]) => String(line));
    vi.restoreAllMocks();
    expect(sent).toEqual([
      {
        endpointId: hook.id,
        eventId: poison.id,
        attempts: MAX_ATTEMPTS,
        error: "answered HTTP 500",
      },
    ]);
    expect(lines).toEqual([]);
  });

  it("moves a caught-up endpoint's cursor past events of other types, and still delivers its own", async () => {
    const { admin, user, wallet } = await makeAccount();
    const hook = await subscribeWebhook(admin, "wallet.created");
    for (let i = 0; i < 3; i++)
      await credit(admin, { user_id: user.id, wallet_id: wallet, amount: 1 });
    const { got, outbound } = receiver();
    const t = clock();
    expect(await pumpEndpoint(pumpDeps(outbound, t.nowMs), hook.id)).toEqual({ kind: "idle" });
    expect(got).toEqual([]);
    const newest = await env.DB.prepare("SELECT max(id) AS id FROM events").first<{ id: number }>();
    expect((await webhook(admin, hook.id)).last_event_id).toBe(newest!.id);
    const walletId = await makeWallet(admin);
    expect(await pumpEndpoint(pumpDeps(outbound, t.nowMs), hook.id)).toEqual({ kind: "idle" });
    expect(got.map((r) => (JSON.parse(r.body) as Json).data.wallet_id)).toEqual([walletId]);
  });

  it("two consumers pumping one endpoint at once deliver every event exactly once, in order", async () => {
    const { admin, user, wallet } = await makeAccount();
    const hook = await subscribeWebhook(admin, "transaction.created");
    for (let i = 0; i < 6; i++)
      await credit(admin, { user_id: user.id, wallet_id: wallet, amount: 1 });
    const expected = (await eventsAfter(admin, hook.last_event_id, "transaction.created")).map(
      (e) => String(e.id),
    );
    const { got, outbound } = receiver(async () => {
      await new Promise((resume) => setTimeout(resume, 5));
      return 200;
    });
    const t = clock();
    const results = await Promise.all([
      pumpEndpoint(pumpDeps(outbound, t.nowMs), hook.id),
      pumpEndpoint(pumpDeps(outbound, t.nowMs), hook.id),
    ]);
    expect(results.map((r) => r.kind).sort()).toEqual(["busy", "idle"]);
    expect(got.map((r) => r.id)).toEqual(expected);
  });
});

describe("the consumer, as the queue repeats its messages and runs its batches side by side", () => {
  /** A batch of `ids`' messages, each naming `endpointId`. */
  const nudges = (endpointId: number, ids: string[]) =>
    createMessageBatch<Nudge>(
      "wallet-webhooks",
      ids.map((id) => ({ id, timestamp: new Date(), attempts: 1, body: { endpointId } })),
    );

  it("delivers each event once, in order, under its own webhook-id, and acks every message", async () => {
    const { admin, user, wallet } = await makeAccount();
    const hook = await subscribeWebhook(admin, "transaction.created");
    for (let i = 0; i < 4; i++)
      await credit(admin, { user_id: user.id, wallet_id: wallet, amount: 1 });
    const { sent, queue } = fakeQueue();
    const consumerEnv = { ...env, WEBHOOK_QUEUE: queue };
    const nudged: [MessageBatch<Nudge>, string[]][] = [];
    /** A write that commits while the endpoint is leased, and its nudge consumed to its end. */
    const writeAndNudge = async (id: string) => {
      const res = await credit(admin, { user_id: user.id, wallet_id: wallet, amount: 1 });
      expect(res.status, res.text).toBe(200);
      const batch = nudges(hook.id, [id]);
      nudged.push([batch, [id]]);
      await consume(batch);
    };
    // A write commits while the first delivery is under way, and another just before the lease
    // is let go (after the run found no more events); each nudge's consumer finds the endpoint
    // leased, and acks its message and drops it. The holder must deliver both events.
    const { got, outbound } = receiver(async (_id, n) => {
      if (n === 1) await writeAndNudge("during");
      await new Promise((resume) => setTimeout(resume, 2));
      return 200;
    });
    let releases = 0;
    // releaseEndpoint's statement.
    const db = aroundReads(
      /^update "webhook_endpoints" set "cursor_event_id" = CASE/i,
      async (read) => {
        if (++releases === 1) await writeAndNudge("before-release");
        return read();
      },
    );
    const consume = (batch: MessageBatch<Nudge>) =>
      consumeNudges(batch.messages, consumerEnv, {
        ...pumpDeps(outbound, Date.now),
        db: createDb(db),
      });
    const first = nudges(hook.id, ["a", "a-repeat"]);
    const second = nudges(hook.id, ["b"]);
    nudged.push([first, ["a", "a-repeat"]], [second, ["b"]]);

    await Promise.all([consume(first), consume(second)]);

    expect(nudged).toHaveLength(4);
    const expected = (await eventsAfter(admin, hook.last_event_id, "transaction.created")).map(
      (e) => String(e.id),
    );
    expect(expected).toHaveLength(6);
    expect(got.map((r) => r.id)).toEqual(expected);
    expect(got.map((r) => String((JSON.parse(r.body) as Json).id))).toEqual(expected);
    const ctx = createExecutionContext();
    for (const [batch, ids] of nudged) {
      const result = await getQueueResult(batch, ctx);
      expect(result.retryMessages).toEqual([]);
      expect(result.explicitAcks.sort()).toEqual(ids);
    }
    expect(sent).toEqual([]);
    expect((await webhook(admin, hook.id)).last_event_id).toBe(Number(expected.at(-1)));
    // A message the queue delivers again once all is done sends nothing again.
    await consume(nudges(hook.id, ["a"]));
    expect(got).toHaveLength(6);
  });
});

describe("a loopback endpoint once WEBHOOK_ALLOW_LOCAL is off", () => {
  it("gets no delivery, test or resend: each fails without connecting", async () => {
    const { admin, user, wallet } = await makeAccount();
    // Made while the flag was on (the tests' setting).
    const made = await call("POST", "/webhooks", {
      auth: admin.bearer,
      body: { url: `http://127.0.0.1:8080/${unique("h")}`, events: "transaction.created" },
    });
    expect(made.status, made.text).toBe(201);
    const hook = made.body.data as Json;
    await credit(admin, { user_id: user.id, wallet_id: wallet, amount: 1 });
    const [event] = await eventsAfter(admin, hook.last_event_id, "transaction.created");
    const { got, outbound } = receiver();

    const t = clock();
    const off = { ...pumpDeps(outbound, t.nowMs), allowLocal: false };
    expect(await pumpEndpoint(off, hook.id)).toEqual({ kind: "retry", delayS: 60 });
    const log = await call("GET", `/webhooks/${hook.id}/deliveries`, { auth: admin.bearer });
    expect(log.body.data[0]).toMatchObject({
      status: "failed",
      http_status: null,
      error: "url refused: scheme",
    });

    const request = (path: string, body?: Json) =>
      testApp({ outbound }).request(
        `/wp-json/wallet/v1/webhooks/${hook.id}/${path}`,
        {
          method: "POST",
          headers: { Authorization: admin.bearer, "Content-Type": "application/json" },
          body: JSON.stringify(body ?? {}),
        },
        { ...env, WEBHOOK_ALLOW_LOCAL: "false" },
      );
    for (const res of [await request("test"), await request("resend", { event_id: event!.id })])
      expect(((await res.json()) as Json).data).toMatchObject({
        status: "failed",
        error: "url refused: scheme",
      });
    expect(got).toEqual([]);
  });
});

describe("an endpoint deleted while its delivery is under way", () => {
  it("ends the pump without a fault, and keeps no delivery of it", async () => {
    const { admin, user, wallet } = await makeAccount();
    const hook = await subscribeWebhook(admin, "transaction.created");
    await credit(admin, { user_id: user.id, wallet_id: wallet, amount: 1 });
    const { got, outbound } = receiver(async () => {
      const gone = await call("DELETE", `/webhooks/${hook.id}`, { auth: admin.bearer });
      expect(gone.status).toBe(200);
      return 200;
    });
    await expect(pumpEndpoint(pumpDeps(outbound, clock().nowMs), hook.id)).resolves.toBeDefined();
    expect(got).toHaveLength(1);
    const kept = await env.DB.prepare(
      "SELECT count(*) AS n FROM webhook_deliveries WHERE endpoint_id = ?1",
    )
      .bind(hook.id)
      .first<{ n: number }>();
    expect(kept!.n).toBe(0);
  });

  // A failed attempt would back the endpoint off and have its message retried, or handed on as a
  // new one once retried often: for an endpoint that is gone, neither.
  it("acks its message when it is deleted during a failed attempt: no retry, no new message", async () => {
    const { admin, user, wallet } = await makeAccount();
    let deleting = 0;
    const { got, outbound } = receiver(async () => {
      const gone = await call("DELETE", `/webhooks/${deleting}`, { auth: admin.bearer });
      expect(gone.status).toBe(200);
      return 500;
    });
    for (const attempts of [1, FRESH_AFTER_ATTEMPTS]) {
      const hook = await subscribeWebhook(admin, "transaction.created");
      deleting = hook.id;
      await credit(admin, { user_id: user.id, wallet_id: wallet, amount: 1 });
      const { sent, queue } = fakeQueue();
      const settled: unknown[] = [];
      const message = {
        body: { endpointId: hook.id },
        attempts,
        ack: () => settled.push("ack"),
        retry: (options?: QueueRetryOptions) => settled.push({ retry: options }),
      } as unknown as Message<Nudge>;
      await consumeNudges(
        [message],
        { ...env, WEBHOOK_QUEUE: queue },
        pumpDeps(outbound, Date.now),
      );
      expect({ attempts, settled, sent }).toEqual({ attempts, settled: ["ack"], sent: [] });
      expect(await deliveriesOf(hook.id)).toBe(0);
    }
    // Each got the one attempt under way when it was deleted.
    expect(got).toHaveLength(2);
  });

  // The dead-letter queue's log line is the one an operator acts on (docs/operations.md): it must
  // not name an event of an endpoint that no longer exists.
  it("sends no dead letter when it is deleted during an event's last attempt", async () => {
    const { admin, hook, poison, got, outbound, t } = await poisonedEndpoint();
    const deleting: Outbound = async (url, init) => {
      if (got.length === MAX_ATTEMPTS - 1)
        expect((await call("DELETE", `/webhooks/${hook.id}`, { auth: admin.bearer })).status).toBe(
          200,
        );
      return outbound(url, init);
    };
    const letters: DeadLetter[] = [];
    await pumpThroughRetries(pumpDeps(deleting, t.nowMs, letters), hook.id, t);
    expect(got.map((r) => r.id)).toEqual(Array(MAX_ATTEMPTS).fill(String(poison.id)));
    expect(letters).toEqual([]);
  });

  // Deleted at each of the D1 calls from the last attempt's answer to its record, in turn.
  it("sends no dead letter and records nothing when it is deleted after the last attempt, before its record", async () => {
    let at = 1;
    for (; ; at++) {
      const { admin, hook, got, outbound, t } = await poisonedEndpoint();
      let calls = 0;
      let recorded = false;
      let deleted = false;
      const db = createDb(
        pausingD1(async (kind) => {
          if (got.length < MAX_ATTEMPTS || recorded) return;
          calls++;
          // The attempt is recorded by a batch: the calls after it are past the race.
          recorded = kind === "batch";
          if (calls !== at) return;
          const gone = await call("DELETE", `/webhooks/${hook.id}`, { auth: admin.bearer });
          expect(gone.status).toBe(200);
          deleted = true;
        }),
      );
      const letters: DeadLetter[] = [];
      await pumpThroughRetries({ ...pumpDeps(outbound, t.nowMs, letters), db }, hook.id, t);
      if (!deleted) break;
      expect(got).toHaveLength(MAX_ATTEMPTS);
      expect({ at, letters }).toEqual({ at, letters: [] });
      expect(await deliveriesOf(hook.id)).toBe(0);
    }
    expect(at).toBeGreaterThan(1);
  });
});

/**
 * A cron run on a D1 that refuses the statements matching `pattern` as a lost connection: the run,
 * and `said()`, once it ended, the error lines it logged (parsed) and how many other lines.
 */
function cronRefused(pattern: RegExp) {
  const refusing = aroundReads(pattern, () => {
    throw new Error("D1_ERROR: Network connection lost.");
  });
  const errors = vi.spyOn(console, "error").mockImplementation(() => {});
  const logs = vi.spyOn(console, "log").mockImplementation(() => {});
  const run = worker.scheduled(
    // A minute's run: one in an hour's first minute also deletes, and logs a line of counts.
    createScheduledController({ cron: "* * * * *", scheduledTime: minutesRunAt() }),
    { ...env, DB: refusing },
    createExecutionContext(),
  );
  const said = () => {
    const lines = errors.mock.calls.map(([line]) => JSON.parse(String(line)));
    const logged = logs.mock.calls.length;
    vi.restoreAllMocks();
    return { lines, logged };
  };
  return { run, said };
}

/** An endpoint no receiver answers (port 9), with one credit's event waiting for it. */
async function downEndpoint() {
  const { admin, user, wallet } = await makeAccount();
  const res = await call("POST", "/webhooks", {
    auth: admin.bearer,
    body: { url: "http://127.0.0.1:9/down", events: "transaction.created" },
  });
  await credit(admin, { user_id: user.id, wallet_id: wallet, amount: 1 });
  return { admin, id: res.body.data.id as number };
}

describe("the Worker's queue, cron and write path", () => {
  // 270 deliveries: seconds on a shared 2-core machine.
  it("delivers a backlog of several runs in one call, and after its budget hands the rest to a new message", {
    timeout: 30_000,
  }, async () => {
    const { admin, user, wallet } = await makeAccount();
    const hook = await subscribeWebhook(admin, "transaction.created");
    const consume = async (deps: PumpDeps) => {
      const { sent, queue } = fakeQueue();
      const batch = createMessageBatch<Nudge>("wallet-webhooks", [
        { id: "a", timestamp: new Date(), attempts: 1, body: { endpointId: hook.id } },
      ]);
      await consumeNudges(batch.messages, { ...env, WEBHOOK_QUEUE: queue }, deps);
      return sent;
    };

    await appendHistory(user.id, wallet, 2 * PER_RUN + 20);
    const fast = receiver();
    expect(await consume(pumpDeps(fast.outbound, Date.now))).toEqual([]);
    expect(fast.got).toHaveLength(2 * PER_RUN + 20);

    // A receiver slow enough that a run of PER_RUN events would outlast the budget: the run stops
    // at the budget, half way.
    await appendHistory(user.id, wallet, PER_RUN + 20);
    const time = clock();
    const slow = receiver(() => {
      time.advance((2 * DRAIN_BUDGET_MS) / PER_RUN / 1000);
      return 200;
    });
    expect(await consume(pumpDeps(slow.outbound, time.nowMs))).toEqual([{ endpointId: hook.id }]);
    expect(slow.got).toHaveLength(PER_RUN / 2);
  });

  // Workers Paid allows an invocation 1,000 calls to D1; past them every call fails, so a delivery
  // made would not be recorded (sent again later) and the endpoint's lease would stay taken.
  it("keeps one call's D1 queries under an invocation's 1,000 with a batch of endpoints behind, and hands the rest on", {
    timeout: 30_000,
  }, async () => {
    const { admin, user, wallet } = await makeAccount();
    const hooks: Json[] = [];
    for (let i = 0; i < 10; i++) hooks.push(await subscribeWebhook(admin, "transaction.created"));
    for (let i = 0; i < 110; i++)
      await credit(admin, { user_id: user.id, wallet_id: wallet, amount: 1 });
    const feed = await call("GET", "/events", {
      auth: admin.bearer,
      query: { after: hooks[0]!.last_event_id, types: "transaction.created", limit: 1000 },
    });
    const expected = (feed.body.data as Json[]).map((e) => String(e.id));
    expect(expected).toHaveLength(110);
    // Each delivery by its endpoint's URL.
    const byUrl = new Map<string, string[]>();
    const outbound: Outbound = async (url, init) => {
      const id = new Headers(init.headers).get("webhook-id")!;
      byUrl.set(url, [...(byUrl.get(url) ?? []), id]);
      return new Response(null, { status: 204 });
    };
    const counted = countingD1();
    const { sent, queue } = fakeQueue();
    const consumerEnv = { ...env, DB: counted.db, WEBHOOK_QUEUE: queue };
    const nowMs = Date.now();
    const batch = createMessageBatch<Nudge>(
      "wallet-webhooks",
      hooks.map((h, i) => ({
        id: String(i),
        timestamp: new Date(),
        attempts: 1,
        body: { endpointId: h.id },
      })),
    );
    // A clock that stands still: only the D1 budget can end this call.
    const deps = { ...consumerDeps(consumerEnv), outbound, nowMs: () => nowMs };
    await consumeNudges(batch.messages, consumerEnv, deps);
    expect(counted.cost.roundTrips).toBeLessThanOrEqual(1000);
    expect(sent.length).toBeGreaterThan(0);
    // The rest goes on from each cursor: every endpoint gets every event once, in order.
    const rest = pumpDeps(outbound, () => nowMs);
    for (const h of hooks) {
      let result = await pumpEndpoint(rest, h.id);
      while (result.kind === "more") result = await pumpEndpoint(rest, h.id);
      expect(result).toEqual({ kind: "idle" });
    }
    for (const h of hooks) expect(byUrl.get(h.url)).toEqual(expected);
  });

  // A Worker invocation has at most 6 connections waiting for an answer's headers; a 7th waits for
  // one of them, its 10 s running: 6 receivers that never answer would time out a healthy one's
  // delivery, recorded as its failure, backed off and at last dead-lettered.
  it("has fewer than 6 deliveries waiting for an answer at once, however many endpoints its batch names", async () => {
    const { admin, user, wallet } = await makeAccount();
    const hooks: Json[] = [];
    for (let i = 0; i < 10; i++) hooks.push(await subscribeWebhook(admin, "transaction.created"));
    await credit(admin, { user_id: user.id, wallet_id: wallet, amount: 1 });
    let waiting = 0;
    let most = 0;
    const outbound: Outbound = async () => {
      most = Math.max(most, ++waiting);
      await scheduler.wait(20);
      waiting--;
      return new Response(null, { status: 204 });
    };
    const batch = createMessageBatch<Nudge>(
      "wallet-webhooks",
      hooks.map((h, i) => ({
        id: String(i),
        timestamp: new Date(),
        attempts: 1,
        body: { endpointId: h.id },
      })),
    );
    await consumeNudges(batch.messages, env, pumpDeps(outbound, Date.now));
    for (const h of hooks)
      expect((await webhook(admin, h.id)).last_event_id).toBeGreaterThan(h.last_event_id);
    expect(most).toBeLessThan(6);
  });

  it("stops a run at its budget for a receiver that answers slowly, and hands the rest on", async () => {
    const { admin, user, wallet } = await makeAccount();
    const hook = await subscribeWebhook(admin, "transaction.created");
    for (let i = 0; i < 5; i++)
      await credit(admin, { user_id: user.id, wallet_id: wallet, amount: 1 });
    // Each answer takes 8 s, inside the 10 s timeout: 5 of them would hold the call for 40 s,
    // and every other endpoint of its batch (their retries too) with it.
    const time = clock();
    const slow = receiver(() => {
      time.advance(8);
      return 200;
    });
    const { sent, queue } = fakeQueue();
    const batch = createMessageBatch<Nudge>("wallet-webhooks", [
      { id: "a", timestamp: new Date(), attempts: 1, body: { endpointId: hook.id } },
    ]);
    const startedMs = time.nowMs();
    await consumeNudges(
      batch.messages,
      { ...env, WEBHOOK_QUEUE: queue },
      pumpDeps(slow.outbound, time.nowMs),
    );
    expect(slow.got).toHaveLength(2);
    expect(time.nowMs() - startedMs).toBeLessThanOrEqual(DRAIN_BUDGET_MS + 10_000);
    expect(sent).toEqual([{ endpointId: hook.id }]);
    // The next message goes on from the cursor, in order.
    const rest = receiver();
    expect(await pumpEndpoint(pumpDeps(rest.outbound, time.nowMs), hook.id)).toEqual({
      kind: "idle",
    });
    expect([...slow.got, ...rest.got].map((r) => Number(r.id))).toEqual(
      (await eventsAfter(admin, hook.last_event_id, "transaction.created")).map((e) => e.id),
    );
  });

  it("retries a nudge after the back-off when the receiver cannot be reached, and acks its repeats", async () => {
    const { admin, id } = await downEndpoint();
    const batch = createMessageBatch("wallet-webhooks", [
      { id: "a", timestamp: new Date(), attempts: 1, body: { endpointId: id } },
      { id: "b", timestamp: new Date(), attempts: 1, body: { endpointId: id } },
      { id: "c", timestamp: new Date(), attempts: 1, body: { endpointId: 2_000_000_000 } },
    ]);
    const ctx = createExecutionContext();
    await worker.queue(batch, env);
    const result = await getQueueResult(batch, ctx);
    // The pool's batch records a retry, not its delay: the endpoint's back-off shows the delay.
    expect(result.retryMessages).toEqual([{ msgId: "a" }]);
    expect(result.explicitAcks.sort()).toEqual(["b", "c"]);
    const log = (await call("GET", `/webhooks/${id}/deliveries`, { auth: admin.bearer })).body.data;
    expect(log[0]).toMatchObject({
      status: "failed",
      http_status: null,
      error: expect.stringMatching(/^could not connect/),
    });
    const after = await webhook(admin, id);
    expect(after.failed_attempts).toBe(1);
    expect(Date.parse(after.next_attempt_at) - Date.parse(log[0].created_at)).toBe(60_000);
  });

  it("logs an event's dead letter wherever it arrives, never delivering its endpoint for it", async () => {
    const { admin, id } = await downEndpoint();
    const letter = { endpointId: id, eventId: 7, attempts: 8, error: "answered HTTP 500" };
    const errors = vi.spyOn(console, "error").mockImplementation(() => {});
    // A dead-letter queue renamed in wrangler.toml: its batches reach the consumer under its name.
    // Letters alone say nothing of the deliveries' settings (a secret missing meanwhile).
    const unkeyed = { ...env, WEBHOOK_SECRET_KEY: "" };
    for (const queue of ["wallet-webhooks-dlq", "staging-webhooks-dlq"]) {
      const batch = createMessageBatch(queue, [
        { id: "l", timestamp: new Date(), attempts: 1, body: letter },
      ]);
      await worker.queue(batch, unkeyed);
      const result = await getQueueResult(batch, createExecutionContext());
      expect(result.explicitAcks).toEqual(["l"]);
    }
    const lines = errors.mock.calls.map(([line]) => JSON.parse(String(line)));
    vi.restoreAllMocks();
    expect(lines).toEqual([{ webhook_dead_letter: letter }, { webhook_dead_letter: letter }]);
    // The letter delivered nothing: the endpoint's event still waits, unattempted.
    expect(await webhook(admin, id)).toMatchObject({ failed_attempts: 0 });
    expect(
      (await call("GET", `/webhooks/${id}/deliveries`, { auth: admin.bearer })).body.data,
    ).toEqual([]);
  });

  // docs/operations.md quotes this line as it is written. Without the letter's `attempts`: that
  // is the dead-letter queue's own count, which starts afresh there, not the webhook queue's.
  it("logs a nudge the queue gave up on as one line naming its endpoint, delivering nothing", async () => {
    const { admin, id } = await downEndpoint();
    const errors = vi.spyOn(console, "error").mockImplementation(() => {});
    const batch = createMessageBatch("wallet-webhooks-dlq", [
      { id: "n", timestamp: new Date(), attempts: 3, body: { endpointId: id } },
    ]);
    await worker.queue(batch, env);
    const result = await getQueueResult(batch, createExecutionContext());
    const lines = errors.mock.calls.map(([line]) => String(line));
    vi.restoreAllMocks();
    expect(result.explicitAcks).toEqual(["n"]);
    expect(lines).toEqual([`{"webhook_nudge_dropped":{"endpointId":${id}}}`]);
    expect(await webhook(admin, id)).toMatchObject({ failed_attempts: 0 });
  });

  it("reads WEBHOOK_RETRY_BASE_S as a positive whole number of seconds, anything else as 60", () => {
    for (const [text, seconds] of [
      ["2", 2],
      [" 30 ", 30],
      [undefined, 60],
      ["0", 60],
      ["-5", 60],
      ["1.5", 60],
      ["1e3", 60],
      ["0x10", 60],
      ["abc", 60],
    ] as const)
      expect(consumerDeps({ ...env, WEBHOOK_RETRY_BASE_S: text }).retryBaseS, text).toBe(seconds);
  });

  it("reads WEBHOOK_LEASE_S as a whole number of seconds from 20 to 3600, anything else as 60", () => {
    for (const [text, seconds] of [
      ["20", 20],
      [" 90 ", 90],
      ["3600", 3600],
      [undefined, 60],
      ["", 60],
      ["19", 60],
      ["3601", 60],
      ["0", 60],
      ["-30", 60],
      ["30.5", 60],
      ["3e1", 60],
      ["abc", 60],
    ] as const)
      expect(consumerDeps({ ...env, WEBHOOK_LEASE_S: text }).leaseS, text).toBe(seconds);
  });

  it("spends no attempt while WEBHOOK_SECRET_KEY is unset or blank, or the site's settings refused: the events wait", async () => {
    const { admin, user, wallet } = await makeAccount();
    const hook = await subscribeWebhook(admin, "transaction.created");
    await credit(admin, { user_id: user.id, wallet_id: wallet, amount: 1 });
    const errors = vi.spyOn(console, "error").mockImplementation(() => {});
    const refused = { SITE_URL: "https://user:secret@wallet.example.com" };
    for (const vars of [
      { WEBHOOK_SECRET_KEY: undefined },
      { WEBHOOK_SECRET_KEY: " ".repeat(40) },
      { SITE_TIMEZONE: "Mars/Base" },
      refused,
    ]) {
      const batch = createMessageBatch<Nudge>("wallet-webhooks", [
        { id: "a", timestamp: new Date(), attempts: 1, body: { endpointId: hook.id } },
      ]);
      const ctx = createExecutionContext();
      await worker.queue(batch, { ...env, ...vars } as typeof env);
      const result = await getQueueResult(batch, ctx);
      expect(result.explicitAcks).toEqual(["a"]);
      expect(result.retryMessages).toEqual([]);
    }
    expect(JSON.parse(String(errors.mock.calls.at(-1)![0]))).toMatchObject({
      setting: "SITE_URL",
      effect: "webhook deliveries wait until it is usable",
    });
    vi.restoreAllMocks();
    const log = await call("GET", `/webhooks/${hook.id}/deliveries`, { auth: admin.bearer });
    expect(log.body.data).toEqual([]);
    expect((await webhook(admin, hook.id)).failed_attempts).toBe(0);
    // With the key back, the event goes out.
    const back = receiver();
    const consumed = createMessageBatch<Nudge>("wallet-webhooks", [
      { id: "b", timestamp: new Date(), attempts: 1, body: { endpointId: hook.id } },
    ]);
    await consumeNudges(consumed.messages, env, pumpDeps(back.outbound, Date.now));
    expect(back.got).toHaveLength(1);
  });

  it("replaces a nudge retried often (one per failed event) by a new delayed one, so the queue never dead-letters it", async () => {
    const { admin, user, wallet } = await makeAccount();
    const res = await call("POST", "/webhooks", {
      auth: admin.bearer,
      body: { url: "http://127.0.0.1:9/flaky", events: "transaction.created" },
    });
    const id = res.body.data.id as number;
    await credit(admin, { user_id: user.id, wallet_id: wallet, amount: 1 });
    const batch = createMessageBatch("wallet-webhooks", [
      {
        id: "old",
        timestamp: new Date(),
        attempts: FRESH_AFTER_ATTEMPTS,
        body: { endpointId: id },
      },
    ]);
    const { sent, queue } = fakeQueue();
    const ctx = createExecutionContext();
    await worker.queue(batch, { ...env, WEBHOOK_QUEUE: queue });
    const result = await getQueueResult(batch, ctx);
    expect(result.retryMessages).toEqual([]);
    expect(result.explicitAcks).toEqual(["old"]);
    expect(sent).toEqual([{ body: { endpointId: id }, delaySeconds: 60 }]);
  });

  // Of the 10 retries wrangler.toml's max_retries allows a nudge, a failing receiver takes at most
  // 4 (docs/operations.md): the rest can only be the consumer's own faults.
  it("retries a nudge in place for a failing receiver on its first 4 attempts, and hands it on at its 5th", async () => {
    const outcomes: unknown[] = [];
    for (const attempts of [1, 4, 5]) {
      const { id } = await downEndpoint();
      const batch = createMessageBatch<Nudge>("wallet-webhooks", [
        { id: "m", timestamp: new Date(), attempts, body: { endpointId: id } },
      ]);
      const { sent, queue } = fakeQueue();
      const ctx = createExecutionContext();
      await worker.queue(batch, { ...env, WEBHOOK_QUEUE: queue });
      const result = await getQueueResult(batch, ctx);
      outcomes.push({ attempts, retried: result.retryMessages.length, sent: sent.length });
    }
    expect(outcomes).toEqual([
      { attempts: 1, retried: 1, sent: 0 },
      { attempts: 4, retried: 1, sent: 0 },
      { attempts: 5, retried: 0, sent: 1 },
    ]);
  });

  // A var or another binding named WEBHOOK_QUEUE: the fetch handler names it (bound() finds no
  // send), where the consumer called it and logged a TypeError as the endpoint's fault.
  it("retries the message itself after the back-off, naming WEBHOOK_QUEUE, when the binding of that name is no queue", async () => {
    const { id } = await downEndpoint();
    const errors = vi.spyOn(console, "error").mockImplementation(() => {});
    const settled: unknown[] = [];
    // Built by hand: the pool's batch records a retry, not its delay.
    const batch = {
      queue: "wallet-webhooks",
      messages: [
        {
          body: { endpointId: id },
          attempts: FRESH_AFTER_ATTEMPTS,
          ack: () => settled.push("ack"),
          retry: (options?: QueueRetryOptions) => settled.push({ retry: options }),
        },
      ],
    } as unknown as MessageBatch<Nudge>;
    await worker.queue(batch, { ...env, WEBHOOK_QUEUE: "wallet-webhooks" } as unknown as Env);
    const lines = errors.mock.calls.map(([line]) => JSON.parse(String(line)) as Json);
    vi.restoreAllMocks();
    expect(settled).toEqual([{ retry: { delaySeconds: 60 } }]);
    expect(lines).toEqual([
      {
        webhook_endpoint: id,
        setting: "WEBHOOK_QUEUE",
        problem:
          "is not a queue producer: declare it in wrangler.toml [[queues.producers]], and give no [vars] entry or other binding that name",
        effect: "the endpoint's message is retried in place of a new one until it is corrected",
      },
    ]);
  });

  it("the cron nudges each endpoint an event waits for, and none that is caught up", async () => {
    const { admin, user, wallet } = await makeAccount();
    const behind = await subscribeWebhook(admin, "transaction.created");
    await credit(admin, { user_id: user.id, wallet_id: wallet, amount: 1 });
    const caughtUp = await subscribeWebhook(admin, "transaction.created");
    const { sent, queue } = fakeQueue();
    const ctx = createExecutionContext();
    await worker.scheduled(createScheduledController(), { ...env, WEBHOOK_QUEUE: queue }, ctx);
    await waitOnExecutionContext(ctx);
    expect(sent).toContainEqual({ endpointId: behind.id });
    expect(sent).not.toContainEqual({ endpointId: caughtUp.id });
  });

  it("a nudge let go while D1 lacked a migration is delivered once it is in: the cron nudges again", async () => {
    const { admin, user, wallet } = await makeAccount();
    const hook = await subscribeWebhook(admin, "transaction.created");
    await credit(admin, { user_id: user.id, wallet_id: wallet, amount: 1 });
    const [event] = await eventsAfter(admin, hook.last_event_id, "transaction.created");
    // D1 as it answers before `npm run db:migrate`: wrangler's record lacks the newest migration.
    let behind = true;
    const d1 = aroundReads(/d1_migrations/, async (read) => {
      if (behind) throw new Error("D1_ERROR: no such table: d1_migrations: SQLITE_ERROR");
      return read();
    });
    const { got, outbound } = receiver();
    const { sent, queue } = fakeQueue();
    const atD1 = { ...env, DB: d1, WEBHOOK_QUEUE: queue };
    const deps = { ...consumerDeps(atD1), outbound };
    const nudge = (id: number) =>
      createMessageBatch<Nudge>("wallet-webhooks", [
        { id: "m", timestamp: new Date(), attempts: 1, body: { endpointId: id } },
      ]);
    const errors = vi.spyOn(console, "error").mockImplementation(() => {});
    vi.spyOn(console, "log").mockImplementation(() => {});
    const cron = async () => {
      const ctx = createExecutionContext();
      await worker.scheduled(createScheduledController({ cron: "* * * * *" }), atD1, ctx);
      await waitOnExecutionContext(ctx);
    };
    const behindBatch = nudge(hook.id);
    const behindCtx = createExecutionContext();
    await consumeNudges(behindBatch.messages, atD1, deps);
    expect((await getQueueResult(behindBatch, behindCtx)).explicitAcks).toEqual(["m"]);
    await cron();
    expect([got, sent]).toEqual([[], []]);
    expect(errors.mock.calls.map(([line]) => JSON.parse(String(line)))).toEqual([
      {
        setting: "migrations",
        problem: NOT_MIGRATED,
        effect: "webhook deliveries wait until it is migrated",
      },
      { cron: "* * * * *", setting: "migrations", problem: NOT_MIGRATED },
    ]);
    // Migrated: the cron's sweep finds the event the let-go nudge was for, and its nudge delivers it.
    behind = false;
    await cron();
    vi.restoreAllMocks();
    expect(sent).toContainEqual({ endpointId: hook.id });
    await consumeNudges(nudge(hook.id).messages, atD1, deps);
    expect(got.map((r) => r.id)).toEqual([String(event!.id)]);
  });

  it("the cron nudges an endpoint for the hold.expired events its own run writes", async () => {
    const { admin, user, wallet } = await makeAccount();
    await credit(admin, { user_id: user.id, wallet_id: wallet, amount: 10 });
    const t0 = Date.UTC(2027, 5, 1);
    const placed = await call("POST", "/holds", {
      auth: admin.bearer,
      app: appAt(t0),
      body: {
        user_id: user.id,
        wallet_id: wallet,
        amount: 1,
        expires_in: 60,
        request_id: unique("h"),
      },
    });
    expect(placed.status, placed.text).toBe(200);
    const hook = await subscribeWebhook(admin, "hold.expired");
    const { sent, queue } = fakeQueue();
    const ctx = createExecutionContext();
    vi.spyOn(console, "log").mockImplementation(() => {});
    await worker.scheduled(
      createScheduledController({ scheduledTime: t0 + 60_000 }),
      { ...env, WEBHOOK_QUEUE: queue },
      ctx,
    );
    await waitOnExecutionContext(ctx);
    vi.restoreAllMocks();
    const expired = await env.DB.prepare(
      "SELECT count(*) AS n FROM events WHERE type = 'hold.expired' AND subject = ?1 AND id > ?2",
    )
      .bind(String(placed.body.data.hold_id), hook.last_event_id)
      .first<{ n: number }>();
    expect(expired!.n).toBe(1);
    // Nudged now, not a minute later by the next run's sweep.
    expect(sent).toContainEqual({ endpointId: hook.id });
  });

  it("the cron logs each step that fails, one fault hiding no other, and fails the run", async () => {
    // D1 refuses the expiry's statement and the sweep's read; the migrations check still passes.
    const { run, said } = cronRefused(/"holds"|"webhook_endpoints"/);
    // The run fails naming its steps, never a statement's bound values.
    await expect(run).rejects.toThrow(
      new Error("Cron steps failed (logged): expire_holds, sweep_outbox"),
    );
    const { lines, logged } = said();
    expect(lines).toEqual([
      expect.objectContaining({ cron: "* * * * *", step: "expire_holds" }),
      expect.objectContaining({ cron: "* * * * *", step: "sweep_outbox" }),
    ]);
    for (const line of lines) expect(line.fault).toContain("Network connection lost");
    // No holds_expired line: the expiry did not run.
    expect(logged).toBe(0);
  });

  it("the cron logs a migrations check D1 does not answer as its step, and does nothing else", async () => {
    const { run, said } = cronRefused(/d1_migrations/);
    // Not Drizzle's error, whose message is the statement and the values it bound.
    await expect(run).rejects.toThrow(new Error("Cron steps failed (logged): check_migrations"));
    const { lines, logged } = said();
    expect(lines).toEqual([
      {
        cron: "* * * * *",
        step: "check_migrations",
        fault: expect.stringContaining("Network connection lost"),
        statement: expect.stringContaining("d1_migrations"),
      },
    ]);
    // A database it could not judge is not swept or written to, as one behind its code is not.
    expect(logged).toBe(0);
  });

  it("the cron says WEBHOOK_QUEUE is not bound while an event waits for it", async () => {
    const { admin, user, wallet } = await makeAccount();
    await subscribeWebhook(admin, "transaction.created");
    await credit(admin, { user_id: user.id, wallet_id: wallet, amount: 1 });
    const errors = vi.spyOn(console, "error").mockImplementation(() => {});
    vi.spyOn(console, "log").mockImplementation(() => {});
    const ctx = createExecutionContext();
    await worker.scheduled(
      createScheduledController(),
      { ...env, WEBHOOK_QUEUE: undefined } as unknown as typeof env,
      ctx,
    );
    await waitOnExecutionContext(ctx);
    expect(errors.mock.calls.map(([line]) => JSON.parse(String(line)))).toContainEqual({
      setting: "WEBHOOK_QUEUE",
      problem: "is not bound (wrangler.toml [[queues.producers]])",
      effect: "webhook deliveries wait until it is bound",
    });
    vi.restoreAllMocks();
  });

  it("a committed write nudges every endpoint after it answers; a refused one nudges none", async () => {
    const { admin, user, wallet } = await makeAccount();
    const hook = await subscribeWebhook(admin, "transaction.created");
    const send = async (path: string, body: Json) => {
      const { sent, queue } = fakeQueue();
      const ctx = createExecutionContext();
      const res = await testApp().request(
        `/wp-json/wallet/v1${path}`,
        {
          method: "POST",
          headers: { Authorization: admin.bearer, "Content-Type": "application/json" },
          body: JSON.stringify({ request_id: unique("r"), ...body }),
        },
        { ...env, WEBHOOK_QUEUE: queue },
        ctx,
      );
      await waitOnExecutionContext(ctx);
      return { res: (await res.json()) as Json, sent };
    };
    const ok = await send("/credits", { user_id: user.id, wallet_id: wallet, amount: 1 });
    expect(ok.res.status).toBe(true);
    expect(ok.sent).toContainEqual({ endpointId: hook.id });
    const refused = await send("/debits", { user_id: user.id, wallet_id: wallet, amount: 5 });
    expect(refused.res).toStrictEqual(INSUFFICIENT);
    expect(refused.sent).toEqual([]);
    // The refused debit wrote nothing to deliver.
    expect(await debit(admin, { user_id: user.id, wallet_id: wallet, amount: 5 })).toMatchObject({
      status: 400,
    });
  });

  it("a console form that moved money nudges every endpoint; one that wrote nothing nudges none", async () => {
    const { admin, user, wallet } = await makeAccount();
    const hook = await subscribeWebhook(admin, "transaction.created");
    const app = testApp();
    const { request, signIn } = consoleOf(app);
    const cookie = await signIn(admin);
    const post = async (path: string, fields: Record<string, string>, cookie?: string) => {
      const { sent, queue } = fakeQueue();
      const ctx = createExecutionContext();
      const res = await app.request(
        `${CONSOLE}${path}`,
        {
          method: "POST",
          headers: {
            ...(cookie ? { Cookie: cookie } : {}),
            "Content-Type": "application/x-www-form-urlencoded",
          },
          body: form(fields),
          redirect: "manual",
        },
        { ...env, WEBHOOK_QUEUE: queue },
        ctx,
      );
      await waitOnExecutionContext(ctx);
      expect(res.status).toBe(303);
      return { notice: noticeLeft(res), sent };
    };
    const move = async (action: string, amount: string) => {
      const page = await request(`/users/${user.id}`, { cookie });
      const fields = {
        _csrf: hidden(page.html, "_csrf"),
        request_id: hidden(page.html, "request_id"),
        wallet_id: wallet,
        amount,
        step: "confirm",
      };
      return post(`/users/${user.id}/${action}`, fields, cookie);
    };
    const credited = await move("credit", "1.00");
    expect(credited.notice).toContain("ok:Transaction Completed");
    expect(credited.sent).toContainEqual({ endpointId: hook.id });
    const refused = await move("debit", "5.00");
    expect(refused.notice).toMatch(/^error:/);
    expect(refused.sent).toEqual([]);
    // Anyone may post a sign-out; without a session it ends nothing, and tells no endpoint.
    const signedOut = await post("/sign-out", {});
    expect(signedOut.notice).toBe("ok:Signed out.");
    expect(signedOut.sent).toEqual([]);
  });
});

describe("an event whose guid is built from SITE_URL, while SITE_URL is unset", () => {
  // An entry written while SITE_URL was set stores no guid: it is built from SITE_URL when read.
  // With SITE_URL unset, GET /events builds it from the request's origin; a delivery has none.

  /** One consumer call for the endpoint under `vars`: what it sent, its message, what it logged. */
  async function consume(endpointId: number, vars: { SITE_URL?: string } = {}) {
    const { got, outbound } = receiver();
    const errors = vi.spyOn(console, "error").mockImplementation(() => {});
    const batch = createMessageBatch<Nudge>("wallet-webhooks", [
      { id: "a", timestamp: new Date(), attempts: 1, body: { endpointId } },
    ]);
    const ctx = createExecutionContext();
    const consumerEnv = { ...env, ...vars };
    await consumeNudges(batch.messages, consumerEnv, { ...consumerDeps(consumerEnv), outbound });
    const result = await getQueueResult(batch, ctx);
    const logged = errors.mock.calls.map(([line]) => JSON.parse(String(line)) as Json);
    vi.restoreAllMocks();
    return { got: got.map((r) => JSON.parse(r.body) as Json), result, logged };
  }

  it("waits, spending no attempt, and goes out with SITE_URL's guid once it is set again, in order", async () => {
    const { admin, user, wallet } = await makeAccount();
    const hook = await subscribeWebhook(admin, "transaction.created,wallet.created");
    // Written while SITE_URL was unset: the guid names the origin it came through, and is stored.
    const unset = { SITE_URL: "" };
    await call("POST", "/credits", {
      auth: admin.bearer,
      body: { request_id: unique("r"), user_id: user.id, wallet_id: wallet, amount: 2 },
      vars: unset,
    });
    // Written while SITE_URL was set (the tests' own): no guid stored.
    await credit(admin, { user_id: user.id, wallet_id: wallet, amount: 1 });
    await makeWallet(admin);
    const types = "transaction.created,wallet.created";
    const feed = await eventsAfter(admin, hook.last_event_id, types);
    expect(feed.map((e) => e.type)).toEqual([
      "transaction.created",
      "transaction.created",
      "wallet.created",
    ]);
    const [stored, built] = [feed[0]!.data, feed[1]!.data];
    expect(stored.guid).toBe(`http://localhost/wallettransaction/${stored.post_name}/`);
    expect(built.guid).toBe(`${env.SITE_URL}/wallettransaction/${built.post_name}/`);

    const waiting = await consume(hook.id, unset);
    // The stored guid goes out; the built one waits, and the wallet after it with it (order).
    expect(waiting.got.map((e) => e.data.guid)).toEqual([stored.guid]);
    expect(waiting.result.explicitAcks).toEqual(["a"]);
    expect(waiting.result.retryMessages).toEqual([]);
    expect(waiting.logged).toEqual([
      {
        webhook_endpoints: [hook.id],
        setting: "SITE_URL",
        problem: "unset, and the next event's guid is built from it",
        effect: "webhook deliveries wait until it is set",
      },
    ]);
    const log = await call("GET", `/webhooks/${hook.id}/deliveries`, { auth: admin.bearer });
    expect(log.body.data.map((d: Json) => [d.event_id, d.status])).toEqual([
      [feed[0]!.id, "delivered"],
    ]);
    expect(await webhook(admin, hook.id)).toMatchObject({ failed_attempts: 0, status: "active" });
    // Another nudge while it is unset: still nothing sent.
    expect((await consume(hook.id, unset)).got).toEqual([]);

    // SITE_URL set again: the rest goes out, each body the feed's.
    const back = await consume(hook.id);
    expect(back.got).toEqual(feed.slice(1));
    expect(back.logged).toEqual([]);
  });

  it("waits for a batch's event whose entries' guids are built from SITE_URL", async () => {
    const { admin, user, wallet } = await makeAccount();
    const hook = await subscribeWebhook(admin, "batch.completed");
    await creditBatch(admin, user.id, wallet);
    const feed = await eventsAfter(admin, hook.last_event_id, "batch.completed");
    expect(feed).toHaveLength(1);
    expect((await consume(hook.id, { SITE_URL: "" })).got).toEqual([]);
    expect((await consume(hook.id)).got).toEqual(feed);
  });

  it("delivers, SITE_URL unset, what never needs it: a stored guid and the other event types", async () => {
    const { admin, user, wallet } = await makeAccount();
    const hook = await subscribeWebhook(
      admin,
      "transaction.created,wallet.created,batch.completed",
    );
    const unset = { SITE_URL: "" };
    const write = (path: string, body: Json) =>
      call("POST", path, {
        auth: admin.bearer,
        body: { request_id: unique("r"), ...body },
        vars: unset,
      });
    await write("/credits", { user_id: user.id, wallet_id: wallet, amount: 2 });
    await write("/batches", {
      operations: [{ type: "credit", user_id: user.id, wallet_id: wallet, amount: "1" }],
    });
    await makeWallet(admin);
    const feed = await eventsAfter(
      admin,
      hook.last_event_id,
      "transaction.created,wallet.created,batch.completed",
    );
    expect(feed.map((e) => e.type)).toEqual([
      "transaction.created",
      "transaction.created",
      "batch.completed",
      "wallet.created",
    ]);
    const sent = await consume(hook.id, unset);
    expect(sent.got).toEqual(feed);
    expect(sent.logged).toEqual([]);
  });

  it("waits, SITE_URL unset, for an entry that stored no guid since an imported entry held it", async () => {
    const { admin, user, wallet } = await makeAccount();
    const hook = await subscribeWebhook(admin, "transaction.created");
    // Two credits of one title and second: the second takes `<slug>-2`, whose guid is taken.
    const nowMs = Date.UTC(2022, 8, 5, 14, 15, 7);
    const post = () =>
      call("POST", "/credits", {
        auth: admin.bearer,
        body: { request_id: unique("r"), user_id: user.id, wallet_id: wallet, amount: 7 },
        vars: { SITE_URL: "" },
        app: testApp({ nowMs: () => nowMs }),
      });
    await post();
    const [first] = await eventsAfter(admin, hook.last_event_id, "transaction.created");
    await importedEntry((await makeUser()).id, wallet, "CREDIT", 100, "1", 0, 1, {
      guid: `http://localhost/wallettransaction/${first!.data.post_name}-2/`,
    });
    await post();
    const waiting = await consume(hook.id, { SITE_URL: "" });
    expect(waiting.got).toEqual([first]);
    expect(waiting.logged).toMatchObject([{ webhook_endpoints: [hook.id], setting: "SITE_URL" }]);
    const [, second] = await eventsAfter(admin, hook.last_event_id, "transaction.created");
    expect(second!.data.post_name).toBe(`${first!.data.post_name}-2`);
    expect((await consume(hook.id)).got).toEqual([second]);
  });

  it("waits, SITE_URL unset, for a batch only one of whose entries stored no guid", async () => {
    const { admin, user, wallet } = await makeAccount();
    const hook = await subscribeWebhook(admin, "batch.completed");
    // As above: a credit takes `<slug>`, an imported entry holds `<slug>-2`'s guid, so the batch's
    // first entry (`<slug>-2`) stores none and its second (`<slug>-3`) stores its own.
    const nowMs = Date.UTC(2022, 8, 5, 14, 15, 7);
    const write = (path: string, body: Json) =>
      call("POST", path, {
        auth: admin.bearer,
        body: { request_id: unique("r"), ...body },
        vars: { SITE_URL: "" },
        app: testApp({ nowMs: () => nowMs }),
      });
    await write("/credits", { user_id: user.id, wallet_id: wallet, amount: 7 });
    const [credited] = await eventsAfter(admin, hook.last_event_id, "transaction.created");
    const slug = credited!.data.post_name as string;
    await importedEntry((await makeUser()).id, wallet, "CREDIT", 100, "1", 0, 1, {
      guid: `http://localhost/wallettransaction/${slug}-2/`,
    });
    const op = { type: "credit", user_id: user.id, wallet_id: wallet, amount: "7" };
    expect((await write("/batches", { operations: [op, op] })).status).toBe(200);
    const feed = await eventsAfter(admin, hook.last_event_id, "batch.completed");
    expect(JSON.stringify(feed)).toContain(`${env.SITE_URL}/wallettransaction/${slug}-2/`);
    expect(JSON.stringify(feed)).toContain(`http://localhost/wallettransaction/${slug}-3/`);
    expect((await consume(hook.id, { SITE_URL: "" })).got).toEqual([]);
    expect((await consume(hook.id)).got).toEqual(feed);
  });
});

describe("an endpoint's delivery log", () => {
  it("keeps its newest 200 deliveries and no other endpoint's fewer", async () => {
    const { admin } = await makeAccount();
    const [kept, other] = [await subscribeWebhook(admin), await subscribeWebhook(admin)];
    const db = createDb(env.DB);
    const record = (endpointId: number, n: number) =>
      insertDelivery(db, {
        endpointId,
        attempt: 1,
        status: "failed",
        trigger: "test",
        latencyMs: n,
        createdAtMs: Date.now(),
      });
    // The other endpoint's are older than any of these: the pruning must not reach them.
    for (let n = 1; n <= 3; n++) await record(other.id as number, n);
    for (let n = 1; n <= 205; n++) await record(kept.id as number, n);
    const logOf = async (endpointId: number) =>
      (
        await env.DB.prepare(
          "SELECT latency_ms AS n FROM webhook_deliveries WHERE endpoint_id = ? ORDER BY id",
        )
          .bind(endpointId)
          .all<{ n: number }>()
      ).results.map((row) => row.n);
    expect(await logOf(kept.id as number)).toEqual(Array.from({ length: 200 }, (_, i) => i + 6));
    expect(await logOf(other.id as number)).toEqual([1, 2, 3]);
  });
});

describe("one signed POST", () => {
  const url = "https://hooks.example.com/x";
  const message = { id: "msg_1", body: "{}", at: new Date() };
  const signing = `whsec_${btoa("k".repeat(32))}`;

  it("sends the documented headers, and counts a 2xx answer alone as delivered", async () => {
    let headers: Record<string, string> = {};
    const outcomes: unknown[] = [];
    for (const status of [200, 204, 299, 300, 304, 404, 500]) {
      const answering: Outbound = async (_u, init) => {
        headers = Object.fromEntries(new Headers(init.headers).entries());
        return new Response(null, { status });
      };
      const { ok, httpStatus, error } = await postSigned(answering, url, signing, message, false);
      outcomes.push([ok, httpStatus, error]);
    }
    expect(outcomes).toEqual([
      [true, 200, null],
      [true, 204, null],
      [true, 299, null],
      [false, 300, "answered HTTP 300"],
      [false, 304, "answered HTTP 304"],
      [false, 404, "answered HTTP 404"],
      [false, 500, "answered HTTP 500"],
    ]);
    expect(Object.keys(headers).sort()).toEqual([
      "content-type",
      "user-agent",
      "webhook-id",
      "webhook-signature",
      "webhook-timestamp",
    ]);
    expect(headers).toMatchObject({
      "content-type": "application/json",
      "user-agent": "wallet-ledger-webhooks/1",
      "webhook-id": "msg_1",
    });
  });

  it("reads no answer's body: it lets it go, so the connection is not held for it", async () => {
    let cancelled = false;
    const talkative: Outbound = async () =>
      new Response(new ReadableStream({ cancel: () => void (cancelled = true) }), { status: 200 });
    expect((await postSigned(talkative, url, signing, message, false)).ok).toBe(true);
    expect(cancelled).toBe(true);
  });

  it("counts an answer as answered when letting its body go fails", async () => {
    const failing: Outbound = async () =>
      new Response(
        new ReadableStream({
          cancel: () => {
            throw new Error("stream already broken");
          },
        }),
        { status: 200 },
      );
    expect(await postSigned(failing, url, signing, message, false)).toMatchObject({
      ok: true,
      httpStatus: 200,
      error: null,
    });
  });

  it("gives up on a receiver that does not answer within 10 s", async () => {
    // The 10 s deadline, cut short here: the signal it makes aborts at once.
    const deadline = AbortSignal.timeout.bind(AbortSignal);
    const timeout = vi.spyOn(AbortSignal, "timeout").mockImplementation(() => deadline(1));
    const silent: Outbound = (_u, init) =>
      new Promise((answer, fail) => {
        const signal = init.signal;
        if (!signal) answer(new Response(null, { status: 200 }));
        else signal.addEventListener("abort", () => fail(signal.reason));
      });
    try {
      const attempt = await postSigned(silent, url, signing, message, false);
      expect(timeout.mock.calls).toEqual([[10_000]]);
      expect(attempt).toMatchObject({
        ok: false,
        httpStatus: null,
        error: "no answer within 10 s",
      });
    } finally {
      timeout.mockRestore();
    }
  });

  it("keeps the first 200 characters of why a receiver could not be reached, and how long it tried", async () => {
    const refusing: Outbound = async () => {
      await scheduler.wait(20);
      throw new TypeError(`connection refused ${"!".repeat(400)}`);
    };
    const attempt = await postSigned(refusing, url, signing, message, false);
    expect(attempt.error).toBe(
      `could not connect: connection refused ${"!".repeat(400)}`.slice(0, 200),
    );
    expect(attempt.latencyMs).toBeGreaterThanOrEqual(20);
  });
});

describe("an endpoint's URL in a failed attempt", () => {
  // A webhook's path and query are often the receiver's secret (Slack's /services/T…/B…/…, a
  // ?token=): a failure keeps the URL's origin, never those.
  const SECRET_PATH = `/services/T0AAAA/B0BBBB/${"x".repeat(200)}`;
  const secretUrl = (host: string) => `https://${host}${SECRET_PATH}?token=hush`;
  const message = { id: "msg_1", body: "{}", at: new Date() };
  const signing = `whsec_${btoa("k".repeat(32))}`;

  it("is quoted whole by workerd's fetch, and kept as its origin only", async () => {
    // A host name the URL parser takes and workerd's fetch does not: its TypeError quotes the URL.
    const url = secretUrl("ex*ample.com");
    const raw = await fetch(url, { method: "POST" }).catch((e: Error) => e.message);
    expect(raw).toBe(`Fetch API cannot load: ${url}`);
    // Such a host is refused before any fetch; a URL the rules take, quoted the same way, is cut.
    expect((await postSigned(fetch, url, signing, message, false)).error).toBe(
      "url refused: host-name",
    );
    const quoting: Outbound = async (u) => {
      throw new TypeError(`Fetch API cannot load: ${u}`);
    };
    const attempt = await postSigned(
      quoting,
      secretUrl("hooks.example.com"),
      signing,
      message,
      false,
    );
    expect(attempt.error).toBe(
      "could not connect: Fetch API cannot load: https://hooks.example.com",
    );
  });

  it("is cut to its origin as stored and as the URL parser writes it", async () => {
    const url = "HTTP://LocalHost:9/a/./b/T0AAAA/B0BBBB?token=hush";
    const href = new URL(url).href;
    expect(href).not.toBe(url);
    const failing: Outbound = async (u) => {
      throw new TypeError(`connect to ${u} (${href}) failed`);
    };
    const attempt = await postSigned(failing, url, signing, message, true);
    expect(attempt.error).toBe(
      "could not connect: connect to http://localhost:9 (http://localhost:9) failed",
    );
  });

  // Its path is long enough for the 200-character error to cut through it: cut there first, the
  // URL would no longer be found whole, and its start would stay.
  it("stays out of the deliveries, a test's answer, the dead letter and its log line", async () => {
    const errors = vi.spyOn(console, "error").mockImplementation(() => {});
    const { admin, user, wallet } = await makeAccount();
    const res = await call("POST", "/webhooks", {
      auth: admin.bearer,
      body: { url: secretUrl("hooks.example.com"), events: "transaction.created" },
    });
    const hook = res.body.data as Json;
    await credit(admin, { user_id: user.id, wallet_id: wallet, amount: 1 });
    // Thrown as workerd words a URL its fetch refuses.
    const outbound: Outbound = async (u) => {
      throw new TypeError(`Fetch API cannot load: ${u}`);
    };
    const said = "could not connect: Fetch API cannot load: https://hooks.example.com";
    const t = clock();
    const unbound = { ...env, WEBHOOK_DLQ: undefined } as unknown as typeof env;
    await pumpThroughRetries({ ...consumerDeps(unbound), outbound, nowMs: t.nowMs }, hook.id, t);
    const letters = errors.mock.calls.map(([line]) => JSON.parse(String(line)));
    expect(letters).toContainEqual(
      expect.objectContaining({ webhook_dead_letter: expect.objectContaining({ error: said }) }),
    );
    const tested = await call("POST", `/webhooks/${hook.id}/test`, {
      auth: admin.bearer,
      app: testApp({ outbound }),
    });
    expect(tested.body.data.error).toBe(said);
    const log = await call("GET", `/webhooks/${hook.id}/deliveries`, { auth: admin.bearer });
    expect(log.body.data).toHaveLength(MAX_ATTEMPTS + 1);
    expect(new Set(log.body.data.map((d: Json) => d.error))).toEqual(new Set([said]));
    for (const [line] of errors.mock.calls) expect(String(line)).not.toMatch(/T0AAAA|hush/);
  });
});

describe("a receiver that answers with a redirect", () => {
  // The runtime's fetch would follow a 3xx by itself (redirect: "follow" is its default), to any
  // address the Location names: the URL rules judge only the endpoint's own URL.
  it("is a failed attempt, its Location never fetched, from the queue and from a test alike", async () => {
    const { admin, user, wallet } = await makeAccount();
    const hook = await subscribeWebhook(admin, "transaction.created");
    await credit(admin, { user_id: user.id, wallet_id: wallet, amount: 1 });
    const asked: { url: string; redirect: RequestInit["redirect"] }[] = [];
    const runtimeFetch = vi.spyOn(globalThis, "fetch").mockImplementation(async (input, init) => {
      asked.push({ url: String(input), redirect: init?.redirect });
      return new Response(null, {
        status: 302,
        headers: { location: "http://169.254.169.254/latest/meta-data/" },
      });
    });
    try {
      // The consumer's own fetch, as production builds it.
      const t = clock();
      const deps = { ...consumerDeps(env), nowMs: t.nowMs };
      expect(await pumpEndpoint(deps, hook.id)).toEqual({ kind: "retry", delayS: 60 });
      // A test through the app's own outbound (no stub given).
      const tested = await call("POST", `/webhooks/${hook.id}/test`, {
        auth: admin.bearer,
        app: testApp(),
      });
      expect(tested.body.data).toMatchObject({
        status: "failed",
        http_status: 302,
        error: "answered HTTP 302",
      });
    } finally {
      runtimeFetch.mockRestore();
    }
    expect(asked).toEqual([
      { url: hook.url, redirect: "manual" },
      { url: hook.url, redirect: "manual" },
    ]);
    const log = await call("GET", `/webhooks/${hook.id}/deliveries`, { auth: admin.bearer });
    expect(log.body.data.map((d: Json) => [d.trigger, d.status, d.http_status])).toEqual([
      ["test", "failed", 302],
      ["queue", "failed", 302],
    ]);
  });
});
