// Where credits are written and balances read. The service has one engine, D1 (`d1Ledger`); the
// seam exists for the sharding prototype in bench/do-writer/ (a Durable Object per user as the
// single writer, docs/scaling.md), which swaps it in through createApp's options and changes nothing
// else: the routes validate, authorize and answer exactly as they do over D1.
import type { Context } from "hono";
import { readBalances } from "../db/ledger";
import type { AppEnv } from "../env";
import { keepAlive } from "../http/keep-alive";
import type { AppendResult, NewEntry } from "./append";
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
