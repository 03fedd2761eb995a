import { ok } from "../../http/envelope";
import { WalletParams, walletOf } from "../../http/fields";
import { defineRoute } from "../../http/route";
import { fields } from "../../http/validation";
import { walletRecord } from "../../wallet/rules";
import { newWallet } from "../../wallet/wallets";
import { WalletAnswer } from "../answers";

export const createWallet = defineRoute(
  {
    path: "/wallets",
    method: "POST",
    operationId: "createWallet",
    summary: "Create a wallet",
    auth: "admin",
    access: "write",
    params: fields(WalletParams),
    errors: ["invalid_input", "wallet_exists"],
    data: WalletAnswer,
  },
  async (c, f) => {
    const { wallet } = await newWallet(c.var.service, walletOf(f));
    // "successully" is the plugin's typo; clients match on it.
    return ok(c, 200, "Wallet was successully created", walletRecord(wallet));
  },
);
