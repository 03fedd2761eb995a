import { defineRoute } from "../http/route";
import { answerPluginBalances, balanceRoute } from "./balance-read";

/**
 * `GET user-wallet-balance` (captures 37-52, 70). One piece: the wallet's record itself; several:
 * records keyed by the piece as written (`USD`, ` ngn`); none known: `[]` (PHP's empty array).
 * `formatted` changes nothing but `submitted`: the plugin always sent the formatted string.
 */
export const userWalletBalance = defineRoute(
  {
    ...balanceRoute,
    path: "/user-wallet-balance",
    summary: "A user's balance in one or more wallets",
  },
  (c, req) =>
    answerPluginBalances(c, req, "value", (found, pieces) => {
      if (found.length === 0) return [];
      if (pieces === 1) return found[0]!.record;
      // A repeated piece overwrites its key in place, as a PHP array does.
      const keyed: Record<string, unknown> = Object.create(null);
      for (const { piece, record } of found) keyed[piece] = record;
      return keyed;
    }),
);
