import { defineRoute } from "../http/route";
import { balanceRoute, readPluginBalances } from "./balance-read";
import { balanceOk, entitiesRequiredResponse } from "./respond";

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
  async (c, req) => {
    const read = await readPluginBalances(c, req, "value");
    if ("refused" in read) return entitiesRequiredResponse(c, read.refused);
    if (read.found.length === 0) return balanceOk(c, [], read.req);
    if (read.pieces.length === 1) return balanceOk(c, read.found[0]!.record, read.req);
    // A repeated piece overwrites its key in place, as a PHP array does.
    const keyed: Record<string, unknown> = Object.create(null);
    for (const { piece, record } of read.found) keyed[piece] = record;
    return balanceOk(c, keyed, read.req);
  },
);
