// Who and what exists: wallets named by a dialect's input.
import { findWalletCached } from "../db/wallets";
import type { ServiceContext } from "./context";

/** A wallet by id (from this isolate's cache once seen), or undefined: naming only. */
export const findWallet = (ctx: ServiceContext, walletId: string) =>
  findWalletCached(ctx.db, walletId);
