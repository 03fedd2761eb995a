import { Hono } from "hono";
import { findWallet, listWallets } from "../../db/wallets";
import type { AppEnv } from "../../env";
import { authenticate, requireAdmin } from "../../http/auth";
import { ok } from "../../http/envelope";
import { apiError } from "../../http/errors";
import { walletRecord } from "./schemas";

export const readWallets = new Hono<AppEnv>()
  .get("/", authenticate, async (c) => {
    requireAdmin(c, "read");
    const rows = await listWallets(c.var.db);
    return ok(c, 200, "Wallets retrieved", rows.map(walletRecord));
  })
  .get("/:wallet_id", authenticate, async (c) => {
    requireAdmin(c, "read");
    const id = c.req.param("wallet_id").trim().toLowerCase();
    const wallet = id.length <= 32 ? await findWallet(c.var.db, id) : undefined;
    if (!wallet) throw apiError("wallet_not_found", { wallet_id: "wallet_id not found" });
    return ok(c, 200, "Wallet retrieved", walletRecord(wallet));
  });
