import type { Wallet } from "../db/wallets";

/** A wallet on the wire: wallet/v1's answers, and the data of wallet.created and wallet.deleted. */
export const walletRecord = (
  w: Pick<Wallet, "id" | "name" | "symbol" | "symbolPosition" | "decimals" | "type" | "note">,
) => ({
  wallet_id: w.id,
  wallet_name: w.name,
  wallet_symbol: w.symbol,
  wallet_symbol_position: w.symbolPosition,
  wallet_decimal: w.decimals,
  wallet_type: w.type,
  wallet_note: w.note,
});
