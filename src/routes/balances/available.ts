import { requireReaderOf } from "../../http/auth";
import { ok } from "../../http/envelope";
import { readParams } from "../../http/params";
import { parseFields } from "../../http/validation";
import { formatMoney } from "../../ledger/money";
import { availableBalances } from "../../wallet/holds";
import { AvailableBalanceAnswer } from "../answers";
import { major } from "../holds/schemas";
import { defineRoute } from "../route";
import { AvailableParams } from "./schemas";

/** Beside /user-wallet-balance (the ledger balance, unchanged): what holds reserve, and the rest. */
export const readAvailableBalances = defineRoute(
  {
    path: "/balances",
    method: "GET",
    summary: "Balances with what holds reserve and what is available, per wallet",
    auth: "reader",
    params: AvailableParams,
    envelope: "A",
    errors: ["invalid_input", "user_not_found"],
    success: 200,
    data: AvailableBalanceAnswer,
  },
  async (c) => {
    const params = await readParams(c);
    requireReaderOf(c, params.user_id);
    const fields = parseFields(AvailableParams, params);
    const userId = fields.user_id ?? c.get("principal").userId;
    const rows = await availableBalances(c.var.db, userId, c.get("nowMs")());
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
