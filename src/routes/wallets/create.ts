import { ok } from "../../http/envelope";
import { apiError } from "../../http/errors";
import { defineRoute } from "../../http/route";
import { fields } from "../../http/validation";
import { createWallet as createWalletOf, unitsKeptText } from "../../wallet/wallets";
import { WalletAnswer } from "../answers";
import { WalletParams, walletRecord } from "./schemas";

export const createWallet = defineRoute(
  {
    path: "/wallets",
    method: "POST",
    operationId: "createWallet",
    summary: "Create a wallet",
    auth: "admin",
    access: "write",
    params: fields(WalletParams),
    envelope: "A",
    errors: ["invalid_input", "wallet_exists"],
    success: 200,
    data: WalletAnswer,
  },
  async (c, f) => {
    const created = await createWalletOf(
      c.var.db,
      {
        id: f.wallet_id,
        name: f.wallet_name,
        symbol: f.wallet_symbol,
        symbolPosition: f.wallet_symbol_position,
        decimals: f.wallet_decimal,
        type: f.wallet_type,
        note: f.wallet_note,
      },
      c.get("nowMs")(),
    );
    if (created === "exists")
      throw apiError("wallet_exists", {
        wallet_id: `${f.wallet_id} already exists`,
      });
    if ("deletedWithUnits" in created)
      throw apiError("invalid_input", {
        wallet_decimal: unitsKeptText(f.wallet_id, created.deletedWithUnits),
      });
    // "successully" is the plugin's typo; clients match on it.
    return ok(c, 200, "Wallet was successully created", walletRecord(created.wallet));
  },
);
