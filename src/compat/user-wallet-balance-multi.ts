import { defineRoute } from "../http/route";
import { balanceRoute, readPluginBalances } from "./balance-read";
import { balanceOk, entitiesRequiredResponse } from "./respond";

/**
 * `GET user-wallet-balance/multi`: the records in request order, keyed by the piece's position. As
 * PHP's json_encode did, that is a JSON array while no unknown wallet leaves a gap before a known
 * one, and an object keyed "0", "2"… once one does (JS orders such keys ascending, as PHP kept them).
 */
export const userWalletBalanceMulti = defineRoute(
  {
    ...balanceRoute,
    path: "/user-wallet-balance/multi",
    summary: "A user's balances, in request order",
  },
  async (c, req) => {
    const read = await readPluginBalances(c, req, "field");
    if ("refused" in read) return entitiesRequiredResponse(c, read.refused);
    const dense = read.found.every(({ index }, i) => index === i);
    const records = dense
      ? read.found.map(({ record }) => record)
      : Object.fromEntries(read.found.map(({ index, record }) => [String(index), record]));
    return balanceOk(c, records, read.req);
  },
);
