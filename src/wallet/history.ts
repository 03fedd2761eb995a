// A user's history, for every dialect that lists it: a page, or the whole of it as chunks read one
// after another. An unknown user or wallet is a refusal; the dialect shapes the records.
import type { Db } from "../db/client";
import { type EntryFilter, HISTORY_CHUNK, listEntries, readHistory } from "../db/ledger";
import { Refusal } from "./refusal";

function requireExisting(
  found: { userExists: boolean; walletExists: boolean },
  filter: EntryFilter,
) {
  if (!found.walletExists)
    throw new Refusal({ code: "wallet_not_found", walletId: filter.walletId ?? "" });
  if (!found.userExists) throw new Refusal({ code: "user_not_found", userId: filter.userId });
}

/** One page of the entries `filter` selects, and how many it selects in all. */
export async function historyPage(
  db: Db,
  filter: EntryFilter,
  page: { offset: number; limit: number; order: "asc" | "desc" },
) {
  const read = await listEntries(db, filter, page);
  requireExisting(read, filter);
  return { rows: read.rows, total: read.total };
}

/**
 * Every entry `filter` selects, as chunks read one after another. A history longer than its first
 * chunk is read by one caller at a time (`openGate`, across isolates: parallel long streams of one
 * caller starved everyone's reads); `busy` when another of the caller's is under way.
 */
export async function wholeHistory(
  db: Db,
  filter: EntryFilter,
  order: "asc" | "desc",
  openGate: () => Promise<HistoryTurn | null>,
) {
  const history = await readHistory(db, filter, order);
  requireExisting(history, filter);
  if (history.total <= HISTORY_CHUNK)
    return {
      busy: false as const,
      total: history.total,
      chunks: history.chunks,
      release: undefined,
    };
  const turn = await openGate();
  if (!turn) return { busy: true as const };
  const chunks = turn.holding(history.chunks);
  return { busy: false as const, total: history.total, chunks, release: turn.release };
}

/** A caller's turn at a long read: ended by `release`, kept while `holding` passes chunks on. */
export type HistoryTurn = {
  release: () => Promise<void>;
  holding: <T>(chunks: AsyncIterable<T>) => AsyncIterable<T>;
};
