// Balances at a point in time and statements (docs/ledger.md#balances-at-a-point-in-time,
// docs/api.md#get-statements-beyond-the-plugin): what a balance was at an instant, and what moved
// between two.
import type { Db } from "../db/client";
import { HISTORY_CHUNK } from "../db/ledger";
import {
  readBalancesAt,
  readStatement,
  type StatementRange,
  statementChunks,
} from "../db/statements";
import { seconds } from "../ledger/entries";
import { formatMoney, major } from "../ledger/money";
import { readUserId, type ServiceContext } from "./context";
import { Refusal } from "./refusal";
import { gated, type TooLong } from "./transactions";

/** A range or an instant refused, keyed by the field it is answered under (`invalid_field`). */
export const RANGE_REFUSED = {
  at: "at must not be in the future",
  to: "to must not be before 1970-01-01T00:00:00Z",
  from: "from must not be after to (nor in the future)",
} as const;

const refuse = (field: keyof typeof RANGE_REFUSED) =>
  new Refusal({ code: "invalid_field", field, why: RANGE_REFUSED[field] });

/**
 * The user's balances in these wallets at `atS` (readBalances' shape). Only a second that is over is
 * answered: entries dated in the current second (`nowS`) or later may still be written, so no
 * balance can be said for it yet.
 */
export function balancesAt(db: Db, userId: number, walletIds: string[], atS: number, nowS: number) {
  if (atS >= nowS) throw refuse("at");
  return readBalancesAt(db, userId, walletIds, atS);
}

type StatementRequest = {
  /** Omitted: the caller's own. */
  userId?: number;
  walletId: string;
  /** Omitted: from the chain's beginning. */
  fromMs?: number;
  /** Omitted, or not yet over: the last second that is over. */
  toMs?: number;
  page: { offset: number; limit: number };
};

export type Statement = Awaited<ReturnType<typeof openStatement>>;

/**
 * A statement of one user's wallet between two instants, both included: the balances before and at
 * the end, the sums of what came in and went out, the count, and a page of the entries. Opening +
 * in − out = closing holds by construction (the entries are exactly the chain's points between the
 * two balances) and is checked here in exact integers: a statement that did not add up would be a
 * fault, never an answer.
 */
export async function openStatement(ctx: ServiceContext, q: StatementRequest) {
  const userId = readUserId(ctx, q.userId);
  const nowMs = ctx.nowMs();
  const toMs = Math.min(q.toMs ?? nowMs, nowMs);
  const fromMs = q.fromMs ?? 0;
  if (fromMs > toMs) throw q.fromMs === undefined ? refuse("to") : refuse("from");
  // Entries are dated in whole seconds: the range holds the seconds that start inside it (none when
  // both instants fall in one second). The current second may still get entries (as for a
  // balance `at`): a range stops before it.
  const toS = Math.min(seconds(toMs), seconds(nowMs) - 1);
  const range: StatementRange = {
    userId,
    walletId: q.walletId,
    fromS: Math.min(Math.ceil(fromMs / 1000), toS + 1),
    toS,
  };
  const head = await readStatement(ctx.db, range, q.page);
  if (!head.wallet) throw new Refusal({ code: "wallet_not_found", walletId: q.walletId });
  if (!head.userExists) throw new Refusal({ code: "user_not_found", userId });
  if (BigInt(head.openingMinor) + head.inMinor - head.outMinor !== BigInt(head.closingMinor))
    throw new Error(`statement_out_of_balance ${JSON.stringify(range)}`);
  return { ...head, wallet: head.wallet, range };
}

/** Rows of a whole statement's first read: the head's page when it is read whole. */
export const STATEMENT_CHUNK = HISTORY_CHUNK;

/** A CSV statement too long to send whole: its JSON pages, or a shorter range, hold it. */
export const STATEMENT_TOO_LONG: TooLong = {
  field: "format",
  why: (max: string) =>
    `a CSV statement sends at most ${max} entries: narrow from and to, or page the JSON with per_page and page`,
};

/** Every entry of the statement, a chunk at a time from its head's rows, gated as a history is. */
export const wholeStatement = (ctx: ServiceContext, s: Statement) =>
  gated(
    ctx,
    s.count,
    statementChunks(ctx.db, s.range, s.rows, s.lastSeq, STATEMENT_CHUNK),
    STATEMENT_TOO_LONG,
  );

/** ISO 8601 in whole seconds; years outside 0000-9999 in the expanded form (`-000001-12-31T…`). */
const isoInstant = (s: number) => new Date(s * 1000).toISOString().replace(/\.\d{3}Z$/, "Z");

/** The statement's figures, as the API answers them (entries apart): exact numbers and display text. */
export function statementSummary(s: Statement) {
  // JSON numbers carry 15 digits, every balance's and amount's; a sum past them is the nearest
  // (docs/api.md). Its display text is exact, as are the CSV's headers.
  const shown = (minor: number | bigint) => formatMoney(minor, s.wallet);
  return {
    user_id: s.range.userId,
    wallet_id: s.range.walletId,
    from: isoInstant(s.range.fromS),
    to: isoInstant(s.range.toS),
    opening_balance: major(s.openingMinor, s.wallet),
    closing_balance: major(s.closingMinor, s.wallet),
    total_in: major(s.inMinor, s.wallet),
    total_out: major(s.outMinor, s.wallet),
    count: s.count,
    formatted: {
      opening_balance: shown(s.openingMinor),
      closing_balance: shown(s.closingMinor),
      total_in: shown(s.inMinor),
      total_out: shown(s.outMinor),
    },
  };
}
