import { ok } from "../../http/envelope";
import { defineRoute } from "../../http/route";
import { fields } from "../../http/validation";
import { availableBalances } from "../../wallet/holds";
import { formatMoney } from "../../wallet/rules";
import { AvailableBalanceAnswer, heldFigures } from "../answers";
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
        ...heldFigures(r, r.wallet),
        formatted: heldFigures(r, r.wallet, formatMoney),
      })),
    );
  },
);
