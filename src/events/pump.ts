// The queue consumer's work for one endpoint (docs/events.md#delivery). A queue message only says
// "endpoint N has work": the consumer that takes N's lease delivers N's events in id order from its
// cursor, one at a time, so order holds per endpoint however the queue orders, repeats or delays its
// messages. A failed attempt ends the run: the endpoint backs off (its next attempt is not before
// `next_attempt_at_ms`) and the message is retried after that delay; after MAX_ATTEMPTS the event is
// dead-lettered, the endpoint marked failing, and delivery goes on with the next event.
import type { Db } from "../db/client";
import {
  advancedUnder,
  type EndpointRow,
  hasWork,
  leaseEndpoint,
  listEvents,
  recordAttempt,
  releaseEndpoint,
} from "../db/events";
import type { SiteSettings } from "../ledger/transaction-record";
import { type Outbound, postSigned } from "./deliver";
import { eventRecord, guidNeedsSite } from "./records";
import { openSecret } from "./secrets";

/** Attempts per event, the first included; the 8th failure dead-letters it. */
export const MAX_ATTEMPTS = 8;
/** The longest back-off between two attempts. */
const MAX_BACKOFF_S = 3600;
/** When a lease taken or renewed at `atMs` ends. */
const leaseUntil = (deps: PumpDeps, atMs: number) => atMs + deps.leaseS * 1000;

/**
 * Events one run delivers under one lease before it lets the lease go and says "more" (the consumer
 * then runs again, within its budgets, else sends a new message: events/queue.ts).
 */
export const PER_RUN = 100;
const PAGE = 20;

/**
 * Characters of event data a run's page holds before its last event. The consumer drains
 * ENDPOINTS_AT_ONCE (5) endpoints side by side in one isolate, each holding its page while it
 * delivers, so together they hold about one page of GET /events (db/events.ts PAGE_DATA_CHARS,
 * sized against a Worker's 128 MB), not five.
 */
export const RUN_PAGE_CHARS = 800_000;

/** The wait after the `attempt`-th failure: base, 2×base, 4×base … at most an hour. */
const backoffS = (attempt: number, baseS: number) =>
  Math.min(baseS * 2 ** (attempt - 1), MAX_BACKOFF_S);

export type PumpDeps = {
  db: Db;
  outbound: Outbound;
  /** WEBHOOK_SECRET_KEY: opens the endpoints' signing secrets. */
  secretKey: string;
  /** Its siteUrl is "" while SITE_URL is unset. */
  site: SiteSettings;
  retryBaseS: number;
  /**
   * WEBHOOK_LEASE_S: how long a lease holds its endpoint, renewed by each delivered event; it
   * outlives one attempt's timeout with room, and is as long as a consumer that died holds it.
   */
  leaseS: number;
  /** WEBHOOK_ALLOW_LOCAL: whether a loopback URL may still be delivered to. */
  allowLocal: boolean;
  nowMs: () => number;
  /**
   * Sends an event that used up its attempts to the dead-letter queue, after its record: one the
   * queue refuses is logged in its place, since the event is not tried again.
   */
  deadLetter: (letter: DeadLetter) => Promise<unknown>;
};

export type DeadLetter = { endpointId: number; eventId: number; attempts: number; error: string };

/**
 * idle: nothing left; more: delivered PER_RUN, more waits (run again); busy: another
 * consumer holds the lease, or the endpoint is backing off or gone (it will be nudged again);
 * unsited: the next event's guid is built from SITE_URL, which is unset, so it waits unattempted;
 * retry: an attempt failed, retry the message after `delayS`.
 */
type PumpResult =
  | { kind: "idle" | "more" | "busy" | "unsited" }
  | { kind: "retry"; delayS: number };

/**
 * Delivers the endpoint's next events under its lease: up to PER_RUN, and none started once one is
 * delivered and the consumer's call has `spent` its budget (its time: a slow receiver, every answer
 * just inside its 10 s, would otherwise hold the call for PER_RUN of them, and the batch's other
 * endpoints and their retries wait for that call to end; or its calls to D1).
 */
export async function pumpEndpoint(
  deps: PumpDeps,
  endpointId: number,
  spent: () => boolean = () => false,
): Promise<PumpResult> {
  const { db } = deps;
  const token = crypto.randomUUID();
  const startMs = deps.nowMs();
  const endpoint = await leaseEndpoint(db, endpointId, token, startMs, leaseUntil(deps, startMs));
  if (!endpoint) return { kind: "busy" };
  try {
    return await deliverLeased(deps, endpoint, token, spent);
  } catch (err) {
    // A fault ends the run (the consumer logs it and the queue retries the message): the lease goes
    // with it, else the retry would find the endpoint taken and be dropped, and the endpoint wait
    // out WEBHOOK_LEASE_S and the cron. A fault in letting it go too leaves it to run out.
    await releaseEndpoint(db, endpointId, token).catch(() => {});
    throw err;
  }
}

/** The run of pumpEndpoint under the lease `token` holds, which it lets go when it ends. */
async function deliverLeased(
  deps: PumpDeps,
  endpoint: EndpointRow,
  token: string,
  spent: () => boolean,
): Promise<PumpResult> {
  const { db } = deps;
  const endpointId = endpoint.id;
  const secret = await openSecret(endpoint.secretCipher, deps.secretKey);
  let cursor = endpoint.cursorEventId;
  let attempts = endpoint.headAttempts;
  let sent = 0;
  let unsited = false;
  run: while (sent < PER_RUN) {
    // No more than the run has left, so each page's events can all be delivered in it.
    const limit = Math.min(PAGE, PER_RUN - sent);
    const page = await listEvents(db, cursor, limit, endpoint.eventTypes, RUN_PAGE_CHARS);
    if (page.length === 0) break;
    for (const event of page) {
      if (sent > 0 && spent()) break run;
      // Without SITE_URL a guid built from it would be a bare path, not the URL GET /events shows
      // (built on the request's origin): the event, and the endpoint's after it, wait for it.
      if (deps.site.siteUrl === "" && guidNeedsSite(event)) {
        unsited = true;
        break run;
      }
      const result = await deliverOne(deps, endpoint, token, secret, event, attempts + 1);
      if (result !== "advanced") return result;
      cursor = event.id;
      attempts = 0;
      sent++;
    }
  }
  await releaseEndpoint(db, endpointId, token);
  if (unsited) return { kind: "unsited" };
  // An event committed while the lease was held had its message refused as busy: look again.
  return (await hasWork(db, endpointId)) ? { kind: "more" } : { kind: "idle" };
}

async function deliverOne(
  deps: PumpDeps,
  endpoint: EndpointRow,
  token: string,
  secret: string | null,
  event: Parameters<typeof eventRecord>[0],
  attempt: number,
): Promise<"advanced" | PumpResult> {
  const atMs = deps.nowMs();
  const outcome = await postSigned(
    deps.outbound,
    endpoint.url,
    secret,
    {
      id: String(event.id),
      body: JSON.stringify(eventRecord(event, deps.site)),
      at: new Date(atMs),
    },
    deps.allowLocal,
  );
  const lease = { id: endpoint.id, token, untilMs: leaseUntil(deps, deps.nowMs()) };
  const delivery = {
    endpointId: endpoint.id,
    eventId: event.id,
    attempt,
    trigger: "queue" as const,
    httpStatus: outcome.httpStatus,
    latencyMs: outcome.latencyMs,
    error: outcome.error,
    createdAtMs: atMs,
  };
  if (!outcome.ok && attempt < MAX_ATTEMPTS) {
    const delayS = backoffS(attempt, deps.retryBaseS);
    const backedOff = await recordAttempt(
      deps.db,
      lease,
      { ...delivery, status: "failed" },
      { kind: "back-off", retryAtMs: atMs + delayS * 1000 },
    );
    // Deleted meanwhile, or taken over by a consumer that retries it itself: nothing to retry.
    return backedOff ? { kind: "retry", delayS } : { kind: "busy" };
  }
  // Delivered, or dead-lettered after its last attempt: the cursor moves past it either way.
  const held = await recordAttempt(
    deps.db,
    lease,
    { ...delivery, status: outcome.ok ? "delivered" : "dead" },
    { kind: "advance", failing: !outcome.ok },
  ).catch(async (err) => {
    // A lost answer may hide a record that committed: the event is then not tried again, and its
    // letter goes now or never. Read back under the lease; not recorded, the fault stands.
    if (outcome.ok || !(await advancedUnder(deps.db, endpoint.id, token, event.id))) throw err;
    return true;
  });
  if (!held) return { kind: "busy" };
  // The letter goes after the record that moved the cursor under the lease, so at most once per
  // event: a record that fails leaves the event to be tried again with no letter sent yet, and an
  // endpoint deleted (or taken over) before its record gets none.
  if (!outcome.ok)
    await deps.deadLetter({
      endpointId: endpoint.id,
      eventId: event.id,
      attempts: attempt,
      error: outcome.error ?? "",
    });
  return "advanced";
}
