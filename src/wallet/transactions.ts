// Reading entries, for every dialect: one by id, a user's history (a page, or the whole of it as
// chunks), the plugin's lists by kind and its post-meta search. Each verb checks who may read what
// first; the rows come back as stored and each dialect words them (wallet/rules.ts).
import { D1_CALL_BUDGET, keysetRowsWithin } from "../db/client";
import {
  type EntryFilter,
  type EntryKind,
  type EntryRow,
  findEntry,
  findKind,
  HISTORY_CHUNK,
  isMetaKey,
  listEntries,
  listKind,
  type MetaSearch,
  readHistory,
  searchEntries,
} from "../db/ledger";
import { entryUnder } from "../ledger/append";
import { openHistoryGate } from "../throttle/history-gate";
import {
  caller,
  type IdRef,
  readUserId,
  requireAdmin,
  requireExisting,
  requireReader,
  type ServiceContext,
} from "./context";
import { Refusal } from "./refusal";

/**
 * One entry, by id (`ref` as the caller named it, for the refusal). A subscriber reads only its
 * own and learns nothing about others', not even whether an id exists: it is refused alike.
 */
export async function readTransaction(ctx: ServiceContext, { id, ref }: IdRef): Promise<EntryRow> {
  requireReader(ctx, undefined);
  const row = id === null ? undefined : await findEntry(ctx.db, id);
  requireReader(ctx, row?.entry.userId ?? Number.NaN);
  if (!row) throw new Refusal({ code: "transaction_not_found", ref });
  return row;
}

/** Which of a user's entries a history reads, in which order; no user: the caller's own. */
type HistoryQuery = Omit<EntryFilter, "userId"> & { userId?: number; order: "asc" | "desc" };

/** One page of a user's entries, and how many the query selects in all. */
export async function historyPage(
  ctx: ServiceContext,
  { offset, limit, order, ...query }: HistoryQuery & { offset: number; limit: number },
) {
  const filter = { ...query, userId: readUserId(ctx, query.userId) };
  const read = await listEntries(ctx.db, filter, { offset, limit, order });
  requireExisting(read, filter);
  return { rows: read.rows, total: read.total };
}

/**
 * The most entries one whole read (a history, a CSV statement) sends: what its chunks, from a first
 * of HISTORY_CHUNK, hold in D1_CALL_BUDGET reads. Past it the request's D1 queries would run out
 * midway (Workers Paid allows 1,000) and cut the answer after its 200.
 */
export const WHOLE_READ_MAX = keysetRowsWithin(HISTORY_CHUNK, D1_CALL_BUDGET);

/** A whole read past WHOLE_READ_MAX, refused before its first byte: the field to name, and why. */
export type TooLong = { field: string; why: (max: string) => string };

/**
 * A whole read of `total` rows, as chunks read one after another. One of more than WHOLE_READ_MAX
 * is refused (`tooLong`). One longer than a chunk is read one at a time per caller (the caller's
 * gate, across isolates, so that one caller's parallel long streams cannot starve everyone's
 * reads), refused `history_busy` while another of the caller's is under way; `release` ends the
 * turn once the chunks are sent.
 */
export async function gated<T>(
  ctx: ServiceContext,
  total: number,
  chunks: AsyncIterable<T>,
  tooLong: TooLong,
) {
  if (total > WHOLE_READ_MAX)
    throw new Refusal({
      code: "invalid_field",
      field: tooLong.field,
      why: tooLong.why(WHOLE_READ_MAX.toLocaleString("en-US")),
    });
  if (total <= HISTORY_CHUNK) return { chunks, release: async () => {} };
  const turn = await openHistoryGate(ctx.historyGate, caller(ctx).userId, ctx.nowMs);
  if (!turn) throw new Refusal({ code: "history_busy" });
  return { chunks: turn.holding(chunks), release: turn.release };
}

/** A whole history past WHOLE_READ_MAX: its pages hold it. */
export const HISTORY_TOO_LONG: TooLong = {
  field: "per_page",
  why: (max) => `a whole history sends at most ${max} entries: page with per_page (1-100) and page`,
};

/** Every entry of a user's the query selects, as chunks read one after another (`gated`). */
export async function wholeHistory(ctx: ServiceContext, { order, ...query }: HistoryQuery) {
  const filter = { ...query, userId: readUserId(ctx, query.userId) };
  const history = await readHistory(ctx.db, filter, order);
  requireExisting(history, filter);
  const gate = await gated(ctx, history.total, history.chunks, HISTORY_TOO_LONG);
  return { total: history.total, ...gate };
}

/** The plugin's lists: an administrator's page of one kind of entry, newest first, and its total. */
export async function entriesOfKind(
  ctx: ServiceContext,
  { kind, offset, limit }: { kind: EntryKind; offset: number; limit: number },
) {
  requireAdmin(ctx, "read");
  return listKind(ctx.db, kind, offset, limit);
}

/** One entry of a kind by id (the plugin's `credit_id`, `debit_id`, `transfer_id`), or undefined. */
export async function entryOfKind(
  ctx: ServiceContext,
  { kind, id }: { kind: EntryKind; id: number },
) {
  requireAdmin(ctx, "read");
  return id >= 1 ? findKind(ctx.db, kind, id) : undefined;
}

/**
 * The id of the entry the user's `requestId` wrote (compared as the ledger compares keys), or
 * undefined: for an administrator, to tell a form sent again after it moved money.
 */
export async function keyedEntryId(
  ctx: ServiceContext,
  { userId, requestId }: { userId: number; requestId: string },
) {
  requireAdmin(ctx, "read");
  return (await entryUnder(ctx.db, userId, requestId).get())?.id;
}

type EntrySearch = Omit<MetaSearch, "userId"> & {
  /** Public by the operator's configuration (COMPAT_PUBLIC_READS): anyone reads every entry. */
  public: boolean;
};

/**
 * The plugin's search of entries by one post meta. A caller with the read scope searches; a
 * subscriber's search is kept to its own entries.
 */
export async function searchTransactions(ctx: ServiceContext, s: EntrySearch) {
  const p = s.public ? undefined : requireReader(ctx, undefined);
  if (!isMetaKey(s.key)) return [];
  const ownOnly = p && p.role !== "administrator" ? p.userId : undefined;
  return searchEntries(ctx.db, { ...s, userId: ownOnly });
}
