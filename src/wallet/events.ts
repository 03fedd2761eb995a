// The event feed (docs/events.md): every committed change to money, holds, users and wallets, oldest
// first, resumable from the last id a reader saw. Ids only grow and D1 commits one writer at a time,
// so a page read after `after` never later gains an earlier event: a reader that keeps the last id it
// got misses nothing.
import { listEvents } from "../db/events";
import { type EventType, eventRecord } from "../events/records";
import { requireAdmin, type ServiceContext } from "./context";

export const FEED_LIMITS = { defaultLimit: 100, maxLimit: 1000 } as const;

type FeedQuery = { after: number; limit: number; types: readonly EventType[] };

/** A page of the feed, for an administrator allowed to read, as the events' records. */
export async function readFeed(ctx: ServiceContext, q: FeedQuery) {
  requireAdmin(ctx, "read");
  const rows = await listEvents(ctx.db, q.after, q.limit, q.types);
  const site = ctx.site();
  return rows.map((row) => eventRecord(row, site));
}
