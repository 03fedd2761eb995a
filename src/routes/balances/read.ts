import { requireReaderOf } from "../../http/auth";
import { ok } from "../../http/envelope";
import { invalidInput, userNotFound } from "../../http/errors";
import { readParams } from "../../http/params";
import { parseFields } from "../../http/validation";
import { formatMoney, minorToNumber, storageDecimals } from "../../ledger/money";
import { balancesAt } from "../../wallet/statements";
import { BalanceAnswer } from "../answers";
import { defineRoute } from "../route";
import { BalanceParams } from "./schemas";

export const readBalance = defineRoute(
  {
    path: "/user-wallet-balance",
    method: "GET",
    summary: "Balances of one or more wallets, now or at an instant (`at`)",
    auth: "reader",
    params: BalanceParams,
    envelope: "A",
    errors: ["invalid_input", "user_not_found"],
    success: 200,
    data: BalanceAnswer,
  },
  async (c) => {
    const params = await readParams(c);
    requireReaderOf(c, params.user_id);
    const fields = parseFields(BalanceParams, params);
    const userId = fields.user_id ?? c.get("principal").userId;
    const nowS = Math.floor(c.get("nowMs")() / 1000);
    const { wallets, userExists, balances } =
      fields.at === undefined
        ? await c.var.ledger.readBalances(userId, fields.wallet_id)
        : await balancesAt(c.var.db, userId, fields.wallet_id, fields.at, nowS);

    const missing = fields.wallet_id.find((id) => !wallets.has(id));
    if (missing !== undefined) throw invalidInput({ wallet_id: `wallet_id not found: ${missing}` });
    if (!userExists) throw userNotFound(userId);

    const data: Record<string, unknown> = {};
    const formatted: Record<string, string> = {};
    for (const id of fields.wallet_id) {
      const wallet = wallets.get(id)!;
      const minor = balances.get(id) ?? 0;
      // Exact, even for a wallet that stores more places than it displays; `formatted` rounds.
      data[id] = minorToNumber(minor, storageDecimals(wallet));
      formatted[id] = formatMoney(minor, wallet);
    }
    if (fields.formatted.toLowerCase() === "yes") data.formatted = formatted;
    return ok(c, 200, "Wallet Balance retrieved", data);
  },
);
