// The event feed (docs/events.md): every committed change, oldest first, resumable from the last id
// a reader saw. Ids only grow and D1 commits one writer at a time, so a page read after `after` never
// later gains an earlier event: a reader that keeps the last id it got misses nothing.
import type { Db } from "../db/client";
import { listEvents } from "../db/events";
import { type EventType, eventRecord } from "../events/records";
import type { SiteSettings } from "../ledger/transaction-record";

export const FEED_LIMITS = { defaultLimit: 100, maxLimit: 1000 } as const;

export type FeedQuery = { after: number; limit: number; types: readonly EventType[] };

export async function readFeed(db: Db, q: FeedQuery, site: SiteSettings) {
  const rows = await listEvents(db, q.after, q.limit, q.types);
  return rows.map((row) => eventRecord(row, site));
}
