// The webhook queue's three doors (docs/events.md#delivery): a write nudges every endpoint after it
// commits, the cron nudges every endpoint still behind, and the consumer delivers. A nudge is only
// "endpoint N has work"; duplicates and losses are harmless (the consumer reads the work from the
// endpoint's cursor, and the cron finds what a lost nudge left), so nothing here needs to be exact.
import { bindingOf, createDb, D1_CALL_BUDGET, errorText, inRuns } from "../db/client";
import { endpointIds, endpointsBehind } from "../db/events";
import { migratedOnce, NOT_MIGRATED } from "../db/health";
import { meterD1 } from "../db/meter";
import {
  bindingProblem,
  bound,
  configuredSiteUrl,
  flagOn,
  retryBaseS,
  type SettingsEnv,
  settingProblems,
  siteTimeZone,
  usableSecretKey,
  varText,
  WEBHOOK_SECRET_KEY_MIN_LENGTH,
  webhookLeaseS,
} from "../settings";
import { type DeadLetter, type PumpDeps, pumpEndpoint } from "./pump";

export type Nudge = { endpointId: number };

/**
 * How long one consumer call goes on delivering an endpoint's backlog, run after run of the pump,
 * before it hands the rest to a new message; a run itself starts no delivery past it (one started
 * just before may take its 10 s), so a slow receiver does not hold the batch's other endpoints. A
 * message per run would wait out the queue's batch timeout (max_batch_timeout, 1 s) between runs
 * of 100 events once writes nudge sparsely.
 */
export const DRAIN_BUDGET_MS = 10_000;

/** How long a message whose run failed on D1 or the queue waits before the queue retries it. */
export const FAULT_RETRY_S = 5;

/**
 * Endpoints one consumer call delivers to side by side (a delivery each at most). A Worker invocation
 * has at most 6 connections waiting for an answer's headers, and a 7th waits for one of them with
 * its 10 s already running: receivers that never answer would time out a healthy one's deliveries.
 * One connection is left for the queue's own sends (a backlog handed on, a dead letter).
 */
export const ENDPOINTS_AT_ONCE = 5;

/** Below wrangler.toml's max_retries (10): a message retried this often is replaced by a new one. */
export const FRESH_AFTER_ATTEMPTS = 5;

/** How long an isolate trusts its list of endpoints before reading it again. */
const ENDPOINTS_TTL_MS = 10_000;
const known = new WeakMap<D1Database, { ids: number[]; readAtMs: number }>();

/** Forgets the isolate's list (an endpoint was created or deleted here). */
export const forgetEndpoints = (d1: D1Database) => known.delete(d1);

/** The endpoints this isolate read less than ENDPOINTS_TTL_MS ago, or undefined. */
function knownEndpoints(d1: D1Database, nowMs: number) {
  const cached = known.get(d1);
  return cached && nowMs - cached.readAtMs < ENDPOINTS_TTL_MS ? cached.ids : undefined;
}

async function readEndpoints(d1: D1Database, nowMs: number) {
  const ids = await endpointIds(createDb(d1));
  known.set(d1, { ids, readAtMs: nowMs });
  return ids;
}

/** Cloudflare Queues takes at most 100 messages in one sendBatch. */
const MAX_BATCH_MESSAGES = 100;

async function send(queue: Queue<Nudge>, ids: number[]) {
  const batches = inRuns(ids, MAX_BATCH_MESSAGES).map((run) =>
    queue.sendBatch(run.map((endpointId) => ({ body: { endpointId } }))),
  );
  await Promise.all(batches);
}

/**
 * An isolate sends the endpoints at most one nudge per NUDGE_GAP_MS; the writes that commit inside
 * that gap are covered by one more nudge at its end: a nudge per write would be a queue message per
 * write, whose queue and consumer work a busy server would pay for in credits it could not take
 * (BENCHMARKS.md#webhooks-credits-with-a-subscribed-endpoint).
 */
export const NUDGE_GAP_MS = 100;

/**
 * A gap still open this long after it opened was cut with the request that opened it (waitUntil's
 * time ran out, or the invocation was cancelled, at an await): the `finally` that closes it never
 * runs. The next write opens a new gap rather than leave the isolate's writes without a nudge for
 * the rest of its life; a gap merely slow costs one nudge more, which is harmless.
 */
const GAP_CUT_MS = NUDGE_GAP_MS * 10;

/**
 * The gap an isolate's last nudge opened, per database: when, and whether a write has committed
 * inside it.
 */
const gaps = new WeakMap<D1Database, { openedAtMs: number; wrote: boolean }>();

/**
 * After a write commits: every endpoint may have work now (the consumer reads which). Null, with
 * nothing started, when the isolate knows of no endpoint (a site without webhooks pays only a read
 * of the list each ENDPOINTS_TTL_MS) or when a nudge of this isolate went out under NUDGE_GAP_MS
 * ago: the request that sent it waits out the gap (in its waitUntil) and nudges once more for the
 * writes it saw, this one among them. Nothing is lost if that request is cut short: the cron's
 * sweep nudges an endpoint left behind, and a write GAP_CUT_MS after the gap opened opens another.
 */
export function nudgeAfterCommit(
  d1: D1Database,
  queue: Queue<Nudge>,
  nowMs: number,
): Promise<void> | null {
  const ids = knownEndpoints(d1, nowMs);
  if (ids === undefined) return readEndpoints(d1, nowMs).then((read) => send(queue, read));
  if (ids.length === 0) return null;
  const open = gaps.get(d1);
  if (open && nowMs - open.openedAtMs < GAP_CUT_MS) {
    open.wrote = true;
    return null;
  }
  const gap = { openedAtMs: nowMs, wrote: false };
  gaps.set(d1, gap);
  return (async () => {
    try {
      await send(queue, ids);
      await scheduler.wait(NUDGE_GAP_MS);
    } finally {
      // A gap taken for cut may close after all: the one opened since stays open.
      if (gaps.get(d1) === gap) gaps.delete(d1);
    }
    // Every write that set `wrote` committed before this line runs: one nudge covers them all.
    if (gap.wrote) await send(queue, knownEndpoints(d1, Date.now()) ?? ids);
  })();
}

/** A cause that holds every delivery back, as its log line names it. */
const blocker = (setting: string, problem: string | null, until: string) => ({
  setting,
  problem,
  effect: `webhook deliveries wait until it is ${until}`,
});

/**
 * The cron's sweep: every endpoint with an undelivered event of its types that no consumer holds
 * and no back-off delays. Without the queue bound, nothing can deliver them: said on each run while
 * events wait.
 */
export async function sweepOutbox(
  d1: D1Database,
  env: { WEBHOOK_QUEUE?: Queue<Nudge> },
  nowMs: number,
) {
  const behind = await endpointsBehind(createDb(d1), nowMs);
  const queue = bound(env, "WEBHOOK_QUEUE");
  if (!queue) {
    const problem = bindingProblem(env, "WEBHOOK_QUEUE");
    if (behind.length > 0)
      console.error(JSON.stringify(blocker("WEBHOOK_QUEUE", problem, "bound")));
    return 0;
  }
  await send(queue, behind);
  return behind.length;
}

type ConsumerEnv = SettingsEnv & {
  DB: D1Database;
  WEBHOOK_QUEUE?: Queue<Nudge>;
  WEBHOOK_DLQ?: Queue<DeadLetter>;
};

/** The consumer's dependencies from its bindings: deliveries go out through the runtime's fetch. */
export function pumpDeps(env: ConsumerEnv): PumpDeps {
  return {
    db: createDb(env.DB),
    outbound: (u, i) => fetch(u, i),
    secretKey: varText(env.WEBHOOK_SECRET_KEY),
    site: { siteUrl: configuredSiteUrl(env), timeZone: siteTimeZone(env) },
    retryBaseS: retryBaseS(env.WEBHOOK_RETRY_BASE_S),
    leaseS: webhookLeaseS(env.WEBHOOK_LEASE_S),
    allowLocal: flagOn(env.WEBHOOK_ALLOW_LOCAL),
    nowMs: Date.now,
    deadLetter: async (letter) => {
      const dlq = bound(env, "WEBHOOK_DLQ");
      let problem = bindingProblem(env, "WEBHOOK_DLQ");
      try {
        if (dlq) return await dlq.send(letter);
      } catch (err) {
        problem = `refused the letter: ${faultFields(err).fault}`;
      }
      // Without the dead-letter queue, or when it refuses the letter, the letter is logged as its
      // consumer would log it: the event's last attempt is recorded already, and it is not tried
      // again (nor sent again at every nudge).
      console.error(
        JSON.stringify({ webhook_dead_letter: letter, setting: "WEBHOOK_DLQ", problem }),
      );
    },
  };
}

/**
 * The endpoint's rest goes to a new message, after `delayS`, and this one is done. Without a usable
 * WEBHOOK_QUEUE (judged as the fetch handler judges it: unbound, or its name given to something
 * else) this message is retried instead, and the log names the binding.
 */
async function handOn(env: ConsumerEnv, m: Message<Nudge>, endpointId: number, delayS: number) {
  const queue = bound(env, "WEBHOOK_QUEUE");
  if (!queue) {
    console.error(
      JSON.stringify({
        webhook_endpoint: endpointId,
        setting: "WEBHOOK_QUEUE",
        problem: bindingProblem(env, "WEBHOOK_QUEUE"),
        effect: "the endpoint's message is retried in place of a new one until it is corrected",
      }),
    );
    return m.retry({ delaySeconds: delayS });
  }
  await queue.send({ endpointId }, delayS > 0 ? { delaySeconds: delayS } : undefined);
  m.ack();
}

/**
 * Whether deliveries must wait: then each cause is logged and every message acked, without spending
 * an attempt. No event is lost: they wait, and the cron's sweep sends them once the cause is gone.
 * The causes: no database, no key to sign with, or a SITE_URL or SITE_TIMEZONE the service refused
 * (each event's links, guids and dates follow them, and the service answers 503 meanwhile).
 */
async function heldBack(messages: readonly Message<Nudge>[], env: ConsumerEnv, deps: PumpDeps) {
  const blockers: ReturnType<typeof blocker>[] = [];
  if (!bound(env, "DB")) blockers.push(blocker("DB", bindingProblem(env, "DB"), "bound"));
  if (!usableSecretKey(deps.secretKey)) {
    const problem = `unset or shorter than ${WEBHOOK_SECRET_KEY_MIN_LENGTH} characters`;
    blockers.push(blocker("WEBHOOK_SECRET_KEY", problem, "set"));
  }
  for (const { name, problem } of settingProblems(env))
    if (name === "SITE_URL" || name === "SITE_TIMEZONE")
      blockers.push(blocker(name, problem, "usable"));
  // Failing those, a database behind its code, as the cron and every route refuse it: a delivery
  // whose record an older schema refused would be sent again at every retry. Once it is migrated
  // the cron's sweep nudges every endpoint still behind. A record of migrations that cannot be read
  // is left to the delivery's own fault and its log line.
  if (blockers.length === 0 && !(await migratedOnce(bindingOf(deps.db), deps.db).catch(() => true)))
    blockers.push(blocker("migrations", NOT_MIGRATED, "migrated"));
  if (blockers.length === 0) return false;
  for (const cause of blockers) console.error(JSON.stringify(cause));
  for (const m of messages) m.ack();
  return true;
}

/** The messages by the endpoint they name; one naming none is acked, as there is nothing to do. */
function byEndpoint(messages: readonly Message<Nudge>[]) {
  const named = new Map<number, Message<Nudge>[]>();
  for (const m of messages) {
    const id = Number(m.body?.endpointId);
    if (!Number.isSafeInteger(id)) m.ack();
    else named.set(id, [...(named.get(id) ?? []), m]);
  }
  return named;
}

/** The consumer: each endpoint named in the batch is delivered once, whatever its message count. */
export async function consumeNudges(
  messages: readonly Message<Nudge>[],
  env: ConsumerEnv,
  deps: PumpDeps,
) {
  if (await heldBack(messages, env, deps)) return;
  // The batch's endpoints share the call's time and its D1 calls.
  const meter = meterD1(deps.db.$client);
  const metered = { ...deps, db: createDb(meter.db) };
  const untilMs = deps.nowMs() + DRAIN_BUDGET_MS;
  // Past D1_CALL_BUDGET a delivery made would go unrecorded (D1's calls fail: it would be sent
  // again) and its endpoint's lease stay taken. Each endpoint of the batch (max_batch_size, 10) may
  // make a few calls once it is spent: the delivery under way, and letting its lease go.
  const spent = () => deps.nowMs() >= untilMs || meter.cost.roundTrips >= D1_CALL_BUDGET;
  const unsited: number[] = [];
  const drain = async ([endpointId, [first, ...rest]]: [number, Message<Nudge>[]]) => {
    for (const m of rest) m.ack();
    try {
      let result = await pumpEndpoint(metered, endpointId, spent);
      while (result.kind === "more" && !spent())
        result = await pumpEndpoint(metered, endpointId, spent);
      // As under a blocker: no attempt spent, and the cron's sweep nudges it again.
      if (result.kind === "unsited") unsited.push(endpointId);
      // One message's retries add up across its endpoint's events (each failure of a flaky
      // receiver retries it again): before the queue's max_retries would dead-letter it, a new
      // message with the same delay takes its place.
      if (result.kind === "retry" && first!.attempts < FRESH_AFTER_ATTEMPTS)
        return first!.retry({ delaySeconds: result.delayS });
      if (result.kind === "retry" || result.kind === "more")
        return await handOn(env, first!, endpointId, result.kind === "retry" ? result.delayS : 0);
      first!.ack();
    } catch (err) {
      // D1 or the queue failed: the message comes back (and after max_retries, to the DLQ), a
      // moment later: the run let the lease go, and a fault that lets deliveries through but not
      // their records would otherwise send the event in flight again at once, try after try.
      console.error(JSON.stringify({ webhook_endpoint: endpointId, ...faultFields(err) }));
      first!.retry({ delaySeconds: FAULT_RETRY_S });
    }
  };
  // ENDPOINTS_AT_ONCE drains side by side, each taking the next endpoint when it is done.
  const waiting = [...byEndpoint(messages)];
  await Promise.all(
    Array.from({ length: Math.min(ENDPOINTS_AT_ONCE, waiting.length) }, async () => {
      for (let next = waiting.shift(); next; next = waiting.shift()) await drain(next);
    }),
  );
  if (unsited.length > 0)
    console.error(
      JSON.stringify({
        webhook_endpoints: unsited,
        ...blocker("SITE_URL", "unset, and the next event's guid is built from it", "set"),
      }),
    );
}

/** A delivery fault's log fields: D1's words and the statement (never its values), bounded. */
export function faultFields(err: unknown) {
  const { error, statement } = errorText(err);
  return { fault: error.slice(0, 300), statement: statement?.slice(0, 300) };
}

/** An event's dead letter (pump.ts), told from a nudge by its shape. */
export const isEventLetter = (m: Message<unknown>) =>
  typeof m.body === "object" && m.body !== null && "eventId" in m.body;

/**
 * The dead-letter queue's consumer: one log line per letter (docs/operations.md), then gone. An
 * event's letter (it used up its attempts) is the one to look at; a nudge the queue gave up on (its
 * consumer failed, or the server stopped under it) only delays what the cron's sweep delivers.
 */
export function consumeDeadLetters(messages: readonly Message<unknown>[]) {
  for (const m of messages) {
    const body = m.body;
    const event = isEventLetter(m);
    console.error(
      JSON.stringify(event ? { webhook_dead_letter: body } : { webhook_nudge_dropped: body }),
    );
    m.ack();
  }
}
