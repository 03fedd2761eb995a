// Where credits are written and balances read. The service has one engine, D1 (`d1Ledger`); the
// seam exists for the sharding prototype in bench/do-writer/ (a Durable Object per user as the
// single writer, docs/scaling.md), which swaps it in through createApp's options and changes nothing
// else: the routes validate, authorize and answer exactly as they do over D1.
import type { Context } from "hono";
import { readBalances } from "../db/ledger";
import type { AppEnv } from "../env";
import { keepAlive } from "../http/keep-alive";
import { type AppendResult, appendEntries, type NewEntry } from "./append";
import { type EntrySpec, entry } from "./entries";
import { appendCredit } from "./group-commit";

export type BalanceRead = Awaited<ReturnType<typeof readBalances>>;

export type Ledger = {
  /** Writes one credit, idempotent on (user, request_id), as appendEntries answers it. */
  postCredit(c: Context<AppEnv>, entry: NewEntry): Promise<AppendResult>;
  /** The wallets named, whether the user exists, and the user's balances in those wallets. */
  readBalances(c: Context<AppEnv>, userId: number, walletIds: string[]): Promise<BalanceRead>;
};

export const d1Ledger: Ledger = {
  postCredit: (c, entry) => appendCredit(c.var.db, entry, keepAlive(c)),
  readBalances: (c, userId, walletIds) => readBalances(c.var.db, userId, walletIds),
};

/**
 * Writes one CREDIT or DEBIT, idempotent on (user, request_id): a credit through the request's
 * ledger (over D1, group-committed with the credits beside it); a debit, which its balance may
 * refuse, alone.
 */
export function postEntry(c: Context<AppEnv>, spec: EntrySpec): Promise<AppendResult> {
  const e = entry(spec, c.get("nowMs")());
  return e.txnType === "CREDIT" ? c.var.ledger.postCredit(c, e) : appendEntries(c.var.db, [e]);
}
