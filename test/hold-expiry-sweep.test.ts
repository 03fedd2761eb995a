// The cron's sweep of expired holds (src/wallet/holds.ts recordExpiredHolds) at the size of its
// statement, EXPIRY_BATCH, and past it: a statement that records a full batch may leave more, so
// the sweep looks again; one that records fewer found them all. Each test first records whatever
// other files of its worker left due by its time (vitest.config.ts: the files share a database),
// so that the holds it places are the only ones due when its own run comes.

import { createExecutionContext, createScheduledController } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it, vi } from "vitest";
import worker from "../src";
import { createDb } from "../src/db/client";
import { EXPIRY_BATCH } from "../src/ledger/holds";
import type { ServiceContext } from "../src/wallet/context";
import {
  availableBalances,
  EXPIRY_STATEMENTS,
  placeHold,
  recordExpiredHolds,
} from "../src/wallet/holds";
import { aroundReads } from "./d1-counter";
import { credit, fakeQueue, makeAccount, tableCounts, unique } from "./helpers";
import { serviceAs } from "./service-helpers";

/** Holds placed a minute before the run, lasting 1 to 60 seconds: every one due at the run. */
const LEAD_MS = 60_000;
const FUNDS_MINOR = 1_000_000;
const HOLD_MINOR = 3;

/** Records every hold due by `nowMs` that is not recorded yet, whoever placed it. */
async function recordAllDue(nowMs: number) {
  while ((await recordExpiredHolds(createDb(env.DB), nowMs)) > 0);
}

/**
 * A funded account with `due` holds, all due at `runMs` (placed a minute before it, lasting 1 to 60
 * seconds), and one more that falls due a second after it.
 *
 * The service places the first and the last; the others are written straight to D1 as copies of
 * the first (every column but the request id and its key, suffixed, and the expiry, up to 59
 * seconds earlier), in one statement that the holds' guards and triggers judge row by row as they
 * judge the service's: placed one call at a time, 500 holds took 1.5 s to 3 s here, the copies
 * 35 ms to 60 ms.
 */
async function holdsDueAt(runMs: number, due: number) {
  const a = await makeAccount();
  const funded = await credit(a.admin, {
    user_id: a.user.id,
    wallet_id: a.wallet,
    amount: FUNDS_MINOR / 100,
  });
  expect(funded.status, funded.text).toBe(200);
  const ctx = clockAt(a.admin, runMs - LEAD_MS);
  const place = async (expiresInS: number) => {
    const { hold } = await placeHold(ctx, {
      user: { id: a.user.id },
      walletId: a.wallet,
      amount: { sent: (HOLD_MINOR / 100).toFixed(2), policy: "refuse-excess-places" },
      requestId: unique("h"),
      note: "",
      expiresInS,
    });
    return hold.id;
  };
  const first = await place(LEAD_MS / 1000);
  await env.DB.prepare(
    // Copies 1 to due - 1.
    `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?2)
     INSERT INTO holds (user_id, wallet_id, amount_minor, amount_text, request_id, request_key,
       note, status, created_at_s, expires_at_s)
     SELECT user_id, wallet_id, amount_minor, amount_text, request_id || '-' || i,
       request_key || '-' || i, note, status, created_at_s, expires_at_s - i % 60
     FROM holds, n WHERE id = ?1 AND i < ?2`,
  )
    .bind(first, due)
    .run();
  const live = await place(LEAD_MS / 1000 + 1);
  return { ...a, ctx, dueMinor: due * HOLD_MINOR, liveMinor: HOLD_MINOR, live };
}

function clockAt(admin: Parameters<typeof serviceAs>[0], nowMs: number): ServiceContext {
  return { ...serviceAs(admin), nowMs: () => nowMs, stamp: () => ({ nowMs, guidSite: null }) };
}

/**
 * The cron's run at `scheduledMs` (src/index.ts scheduled), on env.DB: the holds each of its
 * expiry statements recorded, in order, and the count its log line says.
 */
async function cronRun(scheduledMs: number) {
  const statements: number[] = [];
  const db = aroundReads(/^update "holds"/i, async (read) => {
    const answer = (await read()) as unknown[] | { results: unknown[] };
    statements.push(Array.isArray(answer) ? answer.length : answer.results.length);
    return answer;
  });
  const logs = vi.spyOn(console, "log").mockImplementation(() => {});
  try {
    await worker.scheduled(
      createScheduledController({ scheduledTime: scheduledMs }),
      { ...env, DB: db, WEBHOOK_QUEUE: fakeQueue().queue },
      createExecutionContext(),
    );
    const lines = logs.mock.calls.map(([line]) => JSON.parse(String(line)));
    return { statements, logged: lines.find((l) => "holds_expired" in l)?.holds_expired };
  } finally {
    vi.restoreAllMocks();
  }
}

/**
 * Each of the users' holds: its status, whether it was resolved at its own expires_at, and how many
 * hold.expired events written after `sinceEvent` name it, as expired at its expires_at.
 */
async function holdsOf(userIds: number[], sinceEvent: number) {
  const { results } = await env.DB.prepare(
    `WITH e AS (
       SELECT subject, json_extract(data, '$.resolved_at_s') AS resolved_at_s, count(*) AS n
       FROM events WHERE id > ?2 AND type = 'hold.expired' AND json_extract(data, '$.status') = 'expired'
       GROUP BY 1, 2)
     SELECT h.id, h.status, h.resolved_at_s = h.expires_at_s AS at_expiry, coalesce(e.n, 0) AS events
     FROM holds h LEFT JOIN e ON e.subject = CAST(h.id AS TEXT) AND e.resolved_at_s = h.expires_at_s
     WHERE h.user_id IN (SELECT value FROM json_each(?1)) ORDER BY h.id`,
  )
    .bind(JSON.stringify(userIds), sinceEvent)
    .all<{ id: number; status: string; at_expiry: number | null; events: number }>();
  return results;
}

/** `n` holds as holdsOf reads them, each expired at its own expires_at with one event. */
const expiredOnce = (n: number) =>
  Array.from({ length: n }, () => ({
    id: expect.any(Number),
    status: "expired",
    at_expiry: 1,
    events: 1,
  }));

/** The id of the latest event written. */
async function lastEvent() {
  const row = await env.DB.prepare("SELECT coalesce(max(id), 0) AS id FROM events").first<{
    id: number;
  }>();
  return row!.id;
}

/** One run records every hold due: each expired at its own expires_at, with one event each. */
async function expectAllRecordedByOneRun(runMs: number, due: number, statements: number[]) {
  await recordAllDue(runMs);
  const a = await holdsDueAt(runMs, due);
  const before = await availableBalances(a.ctx, a.user.id);
  expect(before).toEqual([
    expect.objectContaining({
      balanceMinor: FUNDS_MINOR,
      heldMinor: a.dueMinor + a.liveMinor,
      availableMinor: FUNDS_MINOR - a.dueMinor - a.liveMinor,
    }),
  ]);
  const counts = await tableCounts();
  const sinceEvent = await lastEvent();

  expect(await cronRun(runMs)).toEqual({ statements, logged: due });

  const rows = await holdsOf([a.user.id], sinceEvent);
  expect(rows.filter((h) => h.id !== a.live)).toEqual(expiredOnce(due));
  expect(rows.find((h) => h.id === a.live)).toMatchObject({ status: "held", events: 0 });
  // Bookkeeping only: the events and the holds' status, no entry, no balance.
  expect(await tableCounts()).toEqual({
    ...counts,
    events: counts.events! + due,
    held: counts.held! - due,
  });
  const after = await availableBalances(clockAt(a.admin, runMs), a.user.id);
  expect(after).toEqual([
    expect.objectContaining({
      balanceMinor: FUNDS_MINOR,
      heldMinor: a.liveMinor,
      availableMinor: FUNDS_MINOR - a.liveMinor,
    }),
  ]);
  // A run again at the same time finds nothing more.
  expect(await cronRun(runMs)).toEqual({ statements: [0], logged: 0 });
}

describe("the cron's sweep of expired holds", () => {
  it(`records ${EXPIRY_BATCH} holds due at once in one run, then looks once more and finds none`, {
    timeout: 60_000,
  }, async () => {
    await expectAllRecordedByOneRun(Date.UTC(2020, 5, 1), EXPIRY_BATCH, [EXPIRY_BATCH, 0]);
  });

  it(`records ${2 * EXPIRY_BATCH + 1} holds due at once in one run, in three statements`, {
    timeout: 60_000,
  }, async () => {
    await expectAllRecordedByOneRun(Date.UTC(2020, 5, 2), 2 * EXPIRY_BATCH + 1, [
      EXPIRY_BATCH,
      EXPIRY_BATCH,
      1,
    ]);
  });

  it(`records at most ${EXPIRY_STATEMENTS * EXPIRY_BATCH} holds in one run, the rest at the next`, {
    timeout: 60_000,
  }, async () => {
    const most = EXPIRY_STATEMENTS * EXPIRY_BATCH;
    const runMs = Date.UTC(2020, 5, 4);
    await recordAllDue(runMs);
    const sinceEvent = await lastEvent();
    // An account each batch's worth: a wallet's every hold placed sums the others it holds.
    const accounts = await Promise.all(
      Array.from({ length: EXPIRY_STATEMENTS + 1 }, (_, i) =>
        holdsDueAt(runMs, i < EXPIRY_STATEMENTS ? EXPIRY_BATCH : 1),
      ),
    );

    const full = Array.from({ length: EXPIRY_STATEMENTS }, () => EXPIRY_BATCH);
    expect(await cronRun(runMs)).toEqual({ statements: full, logged: most });
    expect(await cronRun(runMs)).toEqual({ statements: [1], logged: 1 });

    const rows = await holdsOf(
      accounts.map((a) => a.user.id),
      sinceEvent,
    );
    const live = new Set(accounts.map((a) => a.live));
    expect(rows.filter((h) => !live.has(h.id))).toEqual(expiredOnce(most + 1));
    expect(rows.filter((h) => live.has(h.id) && h.status === "held")).toHaveLength(live.size);
  });

  it("with nothing due writes nothing, in one statement, and records no hold a second time", async () => {
    const runMs = Date.UTC(2020, 5, 3);
    const sinceEvent = await lastEvent();
    const a = await holdsDueAt(runMs, 1);
    await recordAllDue(runMs);
    const rows = await holdsOf([a.user.id], sinceEvent);
    const counts = await tableCounts();

    expect(await cronRun(runMs)).toEqual({ statements: [0], logged: 0 });

    expect(await tableCounts()).toEqual(counts);
    expect(await holdsOf([a.user.id], sinceEvent)).toEqual(rows);
    expect(rows).toEqual([
      expect.objectContaining({ status: "expired", events: 1 }),
      expect.objectContaining({ id: a.live, status: "held", events: 0 }),
    ]);
  });
});

/**
 * Cron runs at `scheduledMs`, all at once on env.DB (Cloudflare runs a trigger at least once, and a
 * run that takes long may still be going when the next minute's starts): each run's expiry
 * statements, and the counts their lines logged.
 */
async function cronRunsAtOnce(scheduledMs: number[]) {
  const logs = vi.spyOn(console, "log").mockImplementation(() => {});
  try {
    const statements = await Promise.all(
      scheduledMs.map(async (ms) => {
        const counted: number[] = [];
        const db = aroundReads(/^update "holds"/i, async (read) => {
          const answer = (await read()) as unknown[] | { results: unknown[] };
          counted.push(Array.isArray(answer) ? answer.length : answer.results.length);
          return answer;
        });
        await worker.scheduled(
          createScheduledController({ scheduledTime: ms }),
          { ...env, DB: db, WEBHOOK_QUEUE: fakeQueue().queue },
          createExecutionContext(),
        );
        return counted;
      }),
    );
    const lines = logs.mock.calls.map(([line]) => JSON.parse(String(line)));
    const logged = lines.filter((l) => "holds_expired" in l).map((l) => l.holds_expired as number);
    return { statements, logged };
  } finally {
    vi.restoreAllMocks();
  }
}

describe("the cron's sweep of expired holds, run more than once", () => {
  it("records each hold once, with one event, when two runs overlap", {
    timeout: 60_000,
  }, async () => {
    const runMs = Date.UTC(2020, 5, 5);
    const nextMs = runMs + 60_000;
    await recordAllDue(nextMs);
    const sinceEvent = await lastEvent();
    const due = 2 * EXPIRY_BATCH + 1;
    const a = await holdsDueAt(runMs, due);
    const counts = await tableCounts();

    // The run of one minute still going when the next minute's starts, and a repeat of the first.
    const { statements, logged } = await cronRunsAtOnce([runMs, nextMs, runMs]);

    // Every hold due by the later run (the one live at the first is due by then) is recorded once,
    // at its own expires_at, whichever run recorded it.
    expect(logged).toHaveLength(3);
    expect(logged.reduce((n, x) => n + x, 0)).toBe(due + 1);
    expect(statements.flat().reduce((n, x) => n + x, 0)).toBe(due + 1);
    expect(await holdsOf([a.user.id], sinceEvent)).toEqual(expiredOnce(due + 1));
    expect(await tableCounts()).toEqual({
      ...counts,
      events: counts.events! + due + 1,
      held: counts.held! - due - 1,
    });
    const after = await availableBalances(clockAt(a.admin, nextMs), a.user.id);
    expect(after).toEqual([
      expect.objectContaining({
        balanceMinor: FUNDS_MINOR,
        heldMinor: 0,
        availableMinor: FUNDS_MINOR,
      }),
    ]);
  });

  it("records the rest at the next run when D1 fails after one of its statements", {
    timeout: 60_000,
  }, async () => {
    const runMs = Date.UTC(2020, 5, 6);
    await recordAllDue(runMs);
    const sinceEvent = await lastEvent();
    const due = 2 * EXPIRY_BATCH + 1;
    const a = await holdsDueAt(runMs, due);
    const counts = await tableCounts();

    // The first statement commits, the second is refused: the run logs the step and fails.
    let statements = 0;
    const failing = aroundReads(/^update "holds"/i, (read) => {
      if (++statements === 2) throw new Error("D1_ERROR: Network connection lost.");
      return read();
    });
    const errors = vi.spyOn(console, "error").mockImplementation(() => {});
    vi.spyOn(console, "log").mockImplementation(() => {});
    try {
      await expect(
        worker.scheduled(
          createScheduledController({ scheduledTime: runMs }),
          { ...env, DB: failing, WEBHOOK_QUEUE: fakeQueue().queue },
          createExecutionContext(),
        ),
      ).rejects.toThrow("Cron steps failed (logged): expire_holds");
      expect(errors.mock.calls.map(([l]) => JSON.parse(String(l)).step)).toEqual(["expire_holds"]);
    } finally {
      vi.restoreAllMocks();
    }
    expect(await tableCounts()).toEqual({
      ...counts,
      events: counts.events! + EXPIRY_BATCH,
      held: counts.held! - EXPIRY_BATCH,
    });

    expect(await cronRun(runMs)).toEqual({
      statements: [EXPIRY_BATCH, due - 2 * EXPIRY_BATCH],
      logged: due - EXPIRY_BATCH,
    });
    const rows = await holdsOf([a.user.id], sinceEvent);
    expect(rows.filter((h) => h.id !== a.live)).toEqual(expiredOnce(due));
  });
});
