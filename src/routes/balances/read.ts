import { ok } from "../../http/envelope";
import { defineRoute } from "../../http/route";
import { fields } from "../../http/validation";
import { userBalances } from "../../wallet/balances";
import { formatMoney, major } from "../../wallet/rules";
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
    errors: ["invalid_input", "user_not_found"],
    data: BalanceAnswer,
  },
  async (c, input) => {
    const found = await userBalances(c.var.service, {
      userId: input.user_id,
      walletIds: input.wallet_id,
      atS: input.at,
    });

    const data: Record<string, unknown> = {};
    const formatted: Record<string, string> = {};
    const withFormatted = input.formatted.toLowerCase() === "yes";
    for (const id of input.wallet_id) {
      const { wallet, minor } = found.get(id)!;
      // Exact, even for a wallet that stores more places than it displays; `formatted` rounds.
      data[id] = major(minor, wallet);
      if (withFormatted) formatted[id] = formatMoney(minor, wallet);
    }
    if (withFormatted) data.formatted = formatted;
    return ok(c, 200, "Wallet Balance retrieved", data);
  },
);
