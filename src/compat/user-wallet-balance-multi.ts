import { defineRoute } from "../http/route";
import { answerPluginBalances, balanceRoute } from "./balance-read";

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
  (c, req) =>
    answerPluginBalances(c, req, "field", (found) =>
      found.every(({ index }, i) => index === i)
        ? found.map(({ record }) => record)
        : Object.fromEntries(found.map(({ index, record }) => [String(index), record])),
    ),
);
