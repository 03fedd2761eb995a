// An outbox row as the feed and the webhooks send it: `data` is the record the API answers for the
// thing that changed (GET /transactions/{id}'s record, GET /wallets/{id}'s), rendered from the
// snapshot the trigger took when it committed (drizzle/0011_events.sql). Rendering reads the site's
// settings (its URL, its time zone) at read time, as GET /transactions does.

import type { EventRow } from "../db/events";
import type { HoldStatus } from "../db/holds";
import type { EntryRow } from "../db/ledger";
import type { Hold } from "../db/schema";
import { batchRecord } from "../ledger/batches";
import { holdRecord } from "../ledger/hold-record";
import { type SiteSettings, transactionRecord } from "../ledger/transaction-record";
import { walletRecord } from "../ledger/wallet-record";

/** Every event type, in the order docs/events.md lists them. */
export const EVENT_TYPES = [
  "transaction.created",
  "user.created",
  "user.deleted",
  "wallet.created",
  "wallet.deleted",
  "hold.placed",
  "hold.captured",
  "hold.voided",
  "hold.expired",
  "batch.completed",
  "batch.reversed",
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

export const isEventType = (type: string): type is EventType =>
  (EVENT_TYPES as readonly string[]).includes(type);

// The snapshots' shapes, as the triggers write them.
/** The wallet's display and units, which an entry's and a hold's snapshot carry. */
type UnitsSnapshot = {
  symbol: string;
  symbol_position: "left" | "right";
  decimals: number;
  extra_decimals: number;
};
type EntrySnapshot = UnitsSnapshot & {
  id: number;
  user_id: number;
  wallet_id: string;
  txn_type: "CREDIT" | "DEBIT";
  amount_minor: number;
  amount_text: string;
  balance_after_minor: number;
  request_id: string;
  transfer_id: string | null;
  reverses_id: number | null;
  note: string;
  title: string;
  slug: string;
  guid: string | null;
  created_at_s: number;
};
type UserSnapshot = {
  id: number;
  username: string;
  email: string;
  first_name: string;
  last_name: string;
  role: string;
  registered_at_ms: number;
};
/** A wallet's snapshot: the units without extra decimals, which its record does not read. */
type WalletSnapshot = Omit<UnitsSnapshot, "extra_decimals"> & {
  id: string;
  name: string;
  type: string;
  note: string;
};

type HoldSnapshot = UnitsSnapshot & {
  id: number;
  user_id: number;
  wallet_id: string;
  amount_minor: number;
  request_id: string;
  note: string;
  status: HoldStatus;
  created_at_s: number;
  expires_at_s: number;
  resolved_at_s: number | null;
  captured_minor: number | null;
  transaction_id: number | null;
};

/** A snapshot's wallet units as the records read them. */
const unitsOf = (s: UnitsSnapshot) => ({
  symbol: s.symbol,
  symbolPosition: s.symbol_position,
  decimals: s.decimals,
  extraDecimals: s.extra_decimals,
});

/** The hold as GET /holds/{id} answers it, as it stood when the event was written. */
const holdEventRecord = (s: HoldSnapshot) =>
  holdRecord({
    hold: {
      id: s.id,
      userId: s.user_id,
      walletId: s.wallet_id,
      amountMinor: s.amount_minor,
      requestId: s.request_id,
      note: s.note,
      status: s.status,
      createdAtS: s.created_at_s,
      expiresAtS: s.expires_at_s,
      resolvedAtS: s.resolved_at_s,
      capturedMinor: s.captured_minor,
    } as Hold,
    status: s.status,
    transactionId: s.transaction_id,
    wallet: unitsOf(s),
  });

/** A batch and its entries as the trigger `events_of_entry` wrote them. */
type BatchSnapshot = {
  id: number;
  request_id: string;
  balanced: number;
  created_at_s: number;
  reversal_batch_id: number | null;
  entries: EntrySnapshot[];
};

/** The batch as GET /batches/{id} answers it, as it stood when the event was written. */
const batchEventRecord = (s: BatchSnapshot, site: SiteSettings) =>
  batchRecord(
    {
      batch: {
        id: s.id,
        requestId: s.request_id,
        balanced: s.balanced === 1,
        createdAtS: s.created_at_s,
        reversesBatchId: null,
      },
      reversalId: s.reversal_batch_id,
      entries: s.entries.map(entryRow),
    },
    site,
  );

/** A snapshot as the row a record is built from: it holds every column GET /transactions reads. */
function entryRow(s: EntrySnapshot) {
  return {
    entry: {
      id: s.id,
      userId: s.user_id,
      walletId: s.wallet_id,
      txnType: s.txn_type,
      amountMinor: s.amount_minor,
      amountText: s.amount_text,
      note: s.note,
      title: s.title,
      slug: s.slug,
      guid: s.guid,
      createdAtS: s.created_at_s,
      // Only imported entries have these, and imported entries have no events.
      localDate: null,
      modifiedLocalDate: null,
      modifiedGmtDate: null,
    },
    ...unitsOf(s),
  } as unknown as EntryRow;
}

const iso = (ms: number) => new Date(ms).toISOString();

/** A user made or deleted: who it is, never its password (the snapshot holds no hash). */
const userRecord = (s: UserSnapshot) => ({
  id: s.id,
  username: s.username,
  user_email: s.email,
  first_name: s.first_name,
  last_name: s.last_name,
  roles: [s.role],
  registered_at: iso(s.registered_at_ms),
});

/** What an event's `data` is, by type. */
function dataOf(row: EventRow, site: SiteSettings) {
  const snapshot = JSON.parse(row.data);
  switch (row.type as EventType) {
    case "transaction.created":
      return transactionRecord(entryRow(snapshot as EntrySnapshot), site);
    case "user.created":
    case "user.deleted":
      return userRecord(snapshot as UserSnapshot);
    case "wallet.created":
    case "wallet.deleted": {
      const w = snapshot as WalletSnapshot;
      return walletRecord({ ...w, symbolPosition: w.symbol_position });
    }
    case "hold.placed":
    case "hold.captured":
    case "hold.voided":
    case "hold.expired":
      return holdEventRecord(snapshot as HoldSnapshot);
    case "batch.completed":
    case "batch.reversed":
      return batchEventRecord(snapshot as BatchSnapshot, site);
    default:
      // A type a later version writes (read by an older isolate mid-deploy): its snapshot as stored.
      return snapshot as unknown;
  }
}

/**
 * Whether the event's record builds a guid from the site's URL: an entry of it (a transaction's, or
 * one of a batch's) stores none, having been written while SITE_URL was set, or under a guid an
 * imported entry already held (ledger/append.ts). A delivery has no request origin to build it on.
 */
export function guidNeedsSite(row: EventRow) {
  const snapshot = JSON.parse(row.data);
  switch (row.type as EventType) {
    case "transaction.created":
      return (snapshot as EntrySnapshot).guid === null;
    case "batch.completed":
    case "batch.reversed":
      return (snapshot as BatchSnapshot).entries.some((entry) => entry.guid === null);
    default:
      return false;
  }
}

/** One event on the wire: the feed's item, and the body a webhook delivers. */
export const eventRecord = (row: EventRow, site: SiteSettings) => ({
  id: row.id,
  type: row.type,
  timestamp: iso(row.createdAtMs),
  data: dataOf(row, site),
});
