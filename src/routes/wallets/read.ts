import * as v from "valibot";
import { ok } from "../../http/envelope";
import { walletNotFound } from "../../http/errors";
import { pathWalletIdField } from "../../http/fields";
import { defineRoute } from "../../http/route";
import { pathFields } from "../../http/validation";
import { readWallet } from "../../wallet/directory";
import { walletRecord } from "../../wallet/rules";
import { allWallets } from "../../wallet/wallets";
import { WalletAnswer } from "../answers";

export const getWallets = defineRoute(
  {
    path: "/wallets",
    method: "GET",
    operationId: "listWallets",
    summary: "List wallets",
    auth: "admin",
    access: "read",
    data: v.array(WalletAnswer),
  },
  async (c) => {
    const rows = await allWallets(c.var.service);
    return ok(c, 200, "Wallets retrieved", rows.map(walletRecord));
  },
);

export const getWallet = defineRoute(
  {
    path: "/wallets/{wallet_id}",
    method: "GET",
    operationId: "readWallet",
    summary: "Read one wallet",
    auth: "admin",
    access: "read",
    params: pathFields(v.object({ wallet_id: pathWalletIdField })),
    errors: ["wallet_not_found"],
    data: WalletAnswer,
  },
  async (c, { wallet_id: { id } }) => {
    const wallet = id === null ? undefined : await readWallet(c.var.service, id);
    if (!wallet) throw walletNotFound();
    return ok(c, 200, "Wallet retrieved", walletRecord(wallet));
  },
);
