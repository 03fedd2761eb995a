import { ok } from "../../http/envelope";
import { defineRoute } from "../../http/route";
import { fieldsBeside } from "../../http/validation";
import { firstUnknownWallet, unknownWalletText, userBalances } from "../../wallet/balances";
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
    // A well-formed wallet id no wallet has is named beside the other field errors, as a malformed
    // one is; read whole, the balances' own read finds it.
    params: fieldsBeside(BalanceParams, async (ctx, field): Promise<Record<string, string>> => {
      const ids = field("wallet_id");
      const unknown = Array.isArray(ids) ? await firstUnknownWallet(ctx, ids) : undefined;
      return unknown === undefined ? {} : { wallet_id: unknownWalletText(unknown) };
    }),
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
