// The outbox and the webhook endpoints (docs/events.md). Events are written by triggers beside the
// change they record (drizzle/0011_events.sql); here they are only read. An endpoint's delivery
// state (cursor, attempts, back-off, lease) changes only through statements that name the lease
// they hold, so two consumers never both advance one endpoint.
import {
  type AnyColumn,
  and,
  asc,
  desc,
  eq,
  getTableColumns,
  gt,
  gte,
  inArray,
  lt,
  max,
  type SQL,
  sql,
} from "drizzle-orm";
import { alias } from "drizzle-orm/sqlite-core";
import { columnsAsSql, type Db, indexedBy } from "./client";
import { selectList } from "./insert-select";
import { events, webhookDeliveries, webhookEndpoints } from "./schema";

export type EventRow = typeof events.$inferSelect;
export type EndpointRow = typeof webhookEndpoints.$inferSelect;
export type DeliveryRow = typeof webhookDeliveries.$inferSelect;

/** The entries' event: most events, so the type index leaves it out (drizzle/0018). */
const ENTRY_EVENT = "transaction.created";

/**
 * Characters of event data a page holds before its last event: a batch's event holds the whole
 * batch (up to about 650 KB for 100 transfers: test/d1-row-size.test.ts), so a page of 1,000
 * could pass a Worker's 128 MB. A page ends early, with at least one event; readers go on from its
 * last id, as after any page.
 */
export const PAGE_DATA_CHARS = 4_000_000;

/**
 * Events after `after`, oldest first, of the types named (all when none are), at most `limit` and
 * about `maxChars` of data (the last event may pass it). Types without the entries' event say so in
 * SQL too, as a literal: SQLite takes a partial index only for a query whose WHERE repeats the
 * index's condition, never one bound as a parameter.
 */
export function listEvents(
  db: Db,
  after: number,
  limit: number,
  types: readonly string[],
  maxChars = PAGE_DATA_CHARS,
) {
  const first = db
    .select()
    .from(events)
    .where(
      and(
        gt(events.id, after),
        types.length > 0 ? inArray(events.type, types) : undefined,
        types.length > 0 && !types.includes(ENTRY_EVENT)
          ? sql`${events.type} <> ${sql.raw(`'${ENTRY_EVENT}'`)}`
          : undefined,
      ),
    )
    .orderBy(asc(events.id))
    .limit(limit)
    .as("first");
  const { id, type, subject, data, createdAtMs } = first;
  const sized = db
    .select({
      id,
      type,
      subject,
      data,
      createdAtMs,
      // The data of the events before this one on the page.
      before: sql<number>`coalesce(sum(length(${data})) OVER (ORDER BY ${id}
        ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0)`.as("before"),
    })
    .from(first)
    .as("sized");
  return db
    .select({
      id: sized.id,
      type: sized.type,
      subject: sized.subject,
      data: sized.data,
      createdAtMs: sized.createdAtMs,
    })
    .from(sized)
    .where(lt(sized.before, maxChars))
    .orderBy(asc(sized.id));
}

export const findEvent = (db: Db, id: number) =>
  db.select().from(events).where(eq(events.id, id)).get();

/** Creates an endpoint whose cursor is the newest event: it receives what happens from now on. */
export async function insertEndpoint(
  db: Db,
  e: Omit<typeof webhookEndpoints.$inferInsert, "id" | "cursorEventId">,
) {
  const newest = db.select({ id: sql`coalesce(${max(events.id)}, 0)` }).from(events);
  const [row] = await db
    .insert(webhookEndpoints)
    .values({ ...e, cursorEventId: sql`(${newest})` })
    .returning();
  return row!;
}

export const listEndpoints = (db: Db) =>
  db.select().from(webhookEndpoints).orderBy(asc(webhookEndpoints.id));

export const findEndpoint = (db: Db, id: number) =>
  db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, id)).get();

/** Deletes an endpoint and (by the foreign key's cascade) its deliveries; false when there was none. */
export async function deleteEndpoint(db: Db, id: number) {
  const rows = await db
    .delete(webhookEndpoints)
    .where(eq(webhookEndpoints.id, id))
    .returning({ id: webhookEndpoints.id });
  return rows.length > 0;
}

/** Ids of every endpoint (the ones a write nudges, and the cron sweeps). */
export const endpointIds = async (db: Db) =>
  (await db.select({ id: webhookEndpoints.id }).from(webhookEndpoints)).map((r) => r.id);

/** Whether an event of the endpoint's types lies after its cursor (SQL over the endpoint's row). */
const pending = sql`EXISTS (SELECT 1 FROM ${events} WHERE ${events.id} > ${webhookEndpoints.cursorEventId}
  AND instr(',' || ${webhookEndpoints.eventTypes} || ',', ',' || ${events.type} || ',') > 0)`;

/** An endpoint free to deliver at `nowMs`: no other consumer holds its lease, no back-off runs. */
const freeAt = (nowMs: number) =>
  sql`${webhookEndpoints.leaseUntilMs} <= ${nowMs} AND ${webhookEndpoints.nextAttemptAtMs} <= ${nowMs}`;

/** Endpoints with an event of their types after their cursor, free now: what the cron nudges. */
export async function endpointsBehind(db: Db, nowMs: number) {
  const rows = await db
    .select({ id: webhookEndpoints.id })
    .from(webhookEndpoints)
    .where(and(freeAt(nowMs), pending));
  return rows.map((r) => r.id);
}

/** Takes a free endpoint's lease for `token` until `untilMs`: the endpoint leased, or undefined. */
export const leaseEndpoint = (db: Db, id: number, token: string, nowMs: number, untilMs: number) =>
  db
    .update(webhookEndpoints)
    .set({ leaseToken: token, leaseUntilMs: untilMs })
    .where(and(eq(webhookEndpoints.id, id), freeAt(nowMs)))
    .returning()
    .get();

const held = (id: number, token: string) =>
  and(eq(webhookEndpoints.id, id), eq(webhookEndpoints.leaseToken, token));

/** Whether an endpoint's row holds `where`. */
const endpointHolds = async (db: Db, where: SQL | undefined) =>
  (await db.select({ id: webhookEndpoints.id }).from(webhookEndpoints).where(where).get()) !==
  undefined;

/**
 * Whether `token`'s lease moved the endpoint's cursor to `eventId`: only its own record does, so a
 * record whose answer was lost (a dropped connection) committed if this holds.
 */
export const advancedUnder = (db: Db, id: number, token: string, eventId: number) =>
  endpointHolds(db, and(held(id, token), eq(webhookEndpoints.cursorEventId, eventId)));

/** Whether an event of the endpoint's types waits after its cursor (read after the lease ends). */
export const hasWork = (db: Db, id: number) =>
  endpointHolds(db, and(eq(webhookEndpoints.id, id), pending));

/** Deliveries kept per endpoint: the newest, for the API and the console. */
const DELIVERIES_KEPT = 200;

type NewDelivery = Omit<typeof webhookDeliveries.$inferInsert, "id">;

/**
 * The id of an endpoint's `n`-th newest delivery, as a subquery (NULL while it has fewer): one index
 * range on (endpoint_id, id). `endpointId` may be a column, for a query over every endpoint.
 */
function nthNewestDelivery(db: Db, endpointId: number | AnyColumn, n: number) {
  const nth = alias(webhookDeliveries, "nth");
  return db
    .select({ id: nth.id })
    .from(nth)
    .where(eq(nth.endpointId, endpointId))
    .orderBy(desc(nth.id))
    .limit(1)
    .offset(n - 1);
}

/**
 * Records a delivery and prunes the endpoint's oldest beyond DELIVERIES_KEPT: statements for a batch.
 * An endpoint deleted while its delivery was under way gets no record (its deliveries went with it).
 * `status` may be read from the endpoint's row as the batch left it (recordAttempt).
 */
function recordDelivery(db: Db, d: NewDelivery, status: SQL | NewDelivery["status"] = d.status) {
  const values = selectList(webhookDeliveries, {
    id: null,
    endpointId: webhookEndpoints.id,
    eventId: d.eventId ?? null,
    attempt: d.attempt,
    status,
    trigger: d.trigger,
    httpStatus: d.httpStatus ?? null,
    latencyMs: d.latencyMs,
    error: d.error ?? null,
    createdAtMs: d.createdAtMs,
  });
  return [
    db
      .insert(webhookDeliveries)
      .select(
        sql`SELECT ${values} FROM ${webhookEndpoints} WHERE ${webhookEndpoints.id} = ${d.endpointId}`,
      ),
    db
      .delete(webhookDeliveries)
      .where(
        and(
          eq(webhookDeliveries.endpointId, d.endpointId),
          lt(webhookDeliveries.id, nthNewestDelivery(db, d.endpointId, DELIVERIES_KEPT)),
        ),
      ),
  ] as const;
}

/** A test or a resend: recorded, nothing else changes. */
export async function insertDelivery(db: Db, d: NewDelivery) {
  await db.batch([...recordDelivery(db, d)]);
}

/**
 * What a leased delivery attempt did to its endpoint, recorded with the attempt in one batch, under
 * the lease: `advance` moves the cursor past the event (delivered, or dead-lettered: then the
 * endpoint is failing); `back-off` counts a failed attempt and holds the endpoint until `retryAtMs`,
 * ending the lease. Answers whether the endpoint changed: not when another consumer took over the
 * lease, nor for `advance` when the cursor was already past the event (the delivery is recorded
 * either way).
 */
export async function recordAttempt(
  db: Db,
  lease: { id: number; token: string; untilMs: number },
  d: NewDelivery & { eventId: number },
  outcome: { kind: "advance"; failing: boolean } | { kind: "back-off"; retryAtMs: number },
) {
  const update =
    outcome.kind === "advance"
      ? db
          .update(webhookEndpoints)
          .set({
            cursorEventId: d.eventId,
            headAttempts: 0,
            nextAttemptAtMs: 0,
            leaseUntilMs: lease.untilMs,
            failingSinceMs: outcome.failing
              ? sql`coalesce(${webhookEndpoints.failingSinceMs}, ${d.createdAtMs})`
              : null,
          })
          .where(and(held(lease.id, lease.token), lt(webhookEndpoints.cursorEventId, d.eventId)))
          .returning({ id: webhookEndpoints.id })
      : db
          .update(webhookEndpoints)
          .set({
            headAttempts: d.attempt,
            nextAttemptAtMs: outcome.retryAtMs,
            leaseToken: null,
            leaseUntilMs: 0,
          })
          .where(held(lease.id, lease.token))
          .returning({ id: webhookEndpoints.id });
  // A last attempt is dead only if its record moved the cursor: one whose lease was taken over is
  // tried again by the consumer holding the endpoint now, so it was a failed attempt, not the last.
  const status =
    d.status === "dead"
      ? sql`CASE WHEN ${held(lease.id, lease.token)} AND ${webhookEndpoints.cursorEventId} = ${d.eventId} THEN 'dead' ELSE 'failed' END`
      : d.status;
  const [updated] = await db.batch([update, ...recordDelivery(db, d, status)]);
  return updated.length > 0;
}

/**
 * Ends a lease (if still this consumer's). A caught-up endpoint's cursor moves to the newest event,
 * past events of other types, so the next look (and the cron's) starts there instead of scanning
 * them again; one statement, so an event of its types committed meanwhile is never skipped.
 */
export const releaseEndpoint = (db: Db, id: number, token: string) =>
  db
    .update(webhookEndpoints)
    .set({
      leaseToken: null,
      leaseUntilMs: 0,
      cursorEventId: sql`CASE WHEN ${pending} THEN ${webhookEndpoints.cursorEventId}
        ELSE max(${webhookEndpoints.cursorEventId}, (SELECT coalesce(max(${events.id}), 0) FROM ${events})) END`,
    })
    .where(held(id, token));

/**
 * Every endpoint's newest `perEndpoint` deliveries, by endpoint and newest first, in one statement:
 * per endpoint, an index range from its `perEndpoint`-th newest delivery (the console's screen reads
 * them all at once; a statement per endpoint would pass a Worker invocation's 1,000 queries).
 * The plan is fixed (CROSS JOIN keeps the endpoints the outer loop, INDEXED BY the range on
 * (endpoint_id, id)): with the statistics `PRAGMA optimize` leaves, SQLite otherwise reads every
 * newer delivery of every endpoint by id, or scans the deliveries first.
 */
export function newestDeliveriesOfEach(db: Db, perEndpoint: number) {
  const oldestShown = nthNewestDelivery(db, webhookEndpoints.id, perEndpoint);
  return db
    .select({ delivery: columnsAsSql(getTableColumns(webhookDeliveries)) })
    .from(webhookEndpoints)
    .crossJoin(indexedBy(webhookDeliveries, "webhook_deliveries_endpoint"))
    .where(
      and(
        eq(webhookDeliveries.endpointId, webhookEndpoints.id),
        gte(webhookDeliveries.id, sql`coalesce((${oldestShown}), 0)`),
      ),
    )
    .orderBy(asc(webhookEndpoints.id), desc(webhookDeliveries.id));
}

/** An endpoint's newest deliveries, newest first. */
export const listDeliveries = (db: Db, endpointId: number, limit: number) =>
  db
    .select()
    .from(webhookDeliveries)
    .where(eq(webhookDeliveries.endpointId, endpointId))
    .orderBy(desc(webhookDeliveries.id))
    .limit(limit);
