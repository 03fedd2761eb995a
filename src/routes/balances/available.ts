import { ok } from "../../http/envelope";
import { defineRoute } from "../../http/route";
import { fields } from "../../http/validation";
import { availableBalances } from "../../wallet/holds";
import { formatMoney, major } from "../../wallet/rules";
import { AvailableBalanceAnswer } from "../answers";
import { AvailableParams } from "./schemas";

/** Beside /user-wallet-balance (the ledger balance, unchanged): what holds reserve, and the rest. */
export const readAvailableBalances = defineRoute(
  {
    path: "/balances",
    method: "GET",
    operationId: "readAvailableBalances",
    summary: "Balances with what holds reserve and what is available, per wallet",
    auth: "reader",
    owner: (params) => params.user_id,
    params: fields(AvailableParams),
    errors: ["invalid_input", "user_not_found"],
    data: AvailableBalanceAnswer,
  },
  async (c, input) => {
    const rows = await availableBalances(c.var.service, input.user_id);
    return ok(
      c,
      200,
      "Balances retrieved",
      rows.map((r) => ({
        wallet_id: r.wallet.id,
        balance: major(r.balanceMinor, r.wallet),
        held: major(r.heldMinor, r.wallet),
        available: major(r.availableMinor, r.wallet),
        formatted: {
          balance: formatMoney(r.balanceMinor, r.wallet),
          held: formatMoney(r.heldMinor, r.wallet),
          available: formatMoney(r.availableMinor, r.wallet),
        },
      })),
    );
  },
);
