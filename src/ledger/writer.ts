// Where credits are written and balances read. The service has one engine, D1 (`d1Ledger`); the
// seam exists for the sharding prototype in bench/do-writer/ (a Durable Object per user as the
// single writer, docs/scaling.md), which swaps it in through createApp's options and changes nothing
// else: the routes validate, authorize and answer exactly as they do over D1. An engine is handed a
// request's values (its D1 handle, its bindings, how it keeps work alive), never the request.
import type { Db } from "../db/client";
import { readBalances } from "../db/ledger";
import type { AppendResult, NewEntry } from "./append";
import { appendCredit, type KeepAlive } from "./group-commit";

type BalanceRead = Awaited<ReturnType<typeof readBalances>>;

/** One request's ledger. */
export type Ledger = {
  /** Writes one credit, idempotent on (user, request_id), as appendEntries answers it. */
  postCredit(entry: NewEntry): Promise<AppendResult>;
  /** The wallets named, whether the user exists, and the user's balances in those wallets. */
  readBalances(userId: number, walletIds: string[]): Promise<BalanceRead>;
};

/** What a request hands an engine: its D1 handle, its bindings, and how its work outlives it. */
type LedgerDeps = { db: Db; env: object; keepAlive: KeepAlive };

/** Makes a request's ledger. */
export type LedgerEngine = (deps: LedgerDeps) => Ledger;

export const d1Ledger: LedgerEngine = ({ db, keepAlive }) => ({
  postCredit: (e) => appendCredit(db, e, keepAlive),
  readBalances: (userId, walletIds) => readBalances(db, userId, walletIds),
});
