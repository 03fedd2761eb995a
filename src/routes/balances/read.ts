import { ok } from "../../http/envelope";
import { invalidInput, userNotFound } from "../../http/errors";
import { defineRoute } from "../../http/route";
import { fields } from "../../http/validation";
import { formatMoney, minorToNumber, storageDecimals } from "../../ledger/money";
import { readBalances } from "../../wallet/balances";
import { balancesAt } from "../../wallet/statements";
import { BalanceAnswer } from "../answers";
import { BalanceParams } from "./schemas";

export const readBalance = defineRoute(
  {
    path: "/user-wallet-balance",
    method: "GET",
    operationId: "readBalance",
    summary: "Balances of one or more wallets, now or at an instant (`at`)",
    auth: "reader",
    params: fields(BalanceParams),
    owner: (params) => params.user_id,
    envelope: "A",
    errors: ["invalid_input", "user_not_found"],
    success: 200,
    data: BalanceAnswer,
  },
  async (c, input) => {
    const userId = input.user_id ?? c.get("principal").userId;
    const { at } = input;
    const nowS = Math.floor(c.get("nowMs")() / 1000);
    // Now: the balances; at an instant: the last balance each wallet's chain held by then.
    const source =
      at === undefined
        ? c.var.ledger
        : { readBalances: (id: number, ids: string[]) => balancesAt(c.var.db, id, ids, at, nowS) };
    const { found, unknown, userExists } = await readBalances(source, userId, input.wallet_id);
    if (unknown[0] !== undefined)
      throw invalidInput({ wallet_id: `wallet_id not found: ${unknown[0]}` });
    if (!userExists) throw userNotFound(userId);

    const data: Record<string, unknown> = {};
    const formatted: Record<string, string> = {};
    for (const id of input.wallet_id) {
      const { wallet, minor } = found.get(id)!;
      // Exact, even for a wallet that stores more places than it displays; `formatted` rounds.
      data[id] = minorToNumber(minor, storageDecimals(wallet));
      formatted[id] = formatMoney(minor, wallet);
    }
    if (input.formatted.toLowerCase() === "yes") data.formatted = formatted;
    return ok(c, 200, "Wallet Balance retrieved", data);
  },
);
