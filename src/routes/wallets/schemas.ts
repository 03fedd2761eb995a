import * as v from "valibot";
import { textField } from "../../http/fields";
import { EMPTY } from "../../http/validation";
import {
  isReservedWalletId,
  isWalletDecimals,
  isWalletId,
  isWalletType,
  normalizeWalletId,
  normalizeWalletType,
  WALLET_LIMITS,
} from "../../wallet/wallets";

const required = (max: number, name: string) =>
  v.pipe(
    v.string(`${name} must be text`),
    v.nonEmpty(EMPTY),
    v.maxLength(max, `${name} must be at most ${max} characters`),
  );

export const WalletParams = v.object({
  wallet_id: v.pipe(
    v.string("wallet_id must be text"),
    v.nonEmpty(EMPTY),
    v.transform(normalizeWalletId),
    v.check(isWalletId, "wallet_id must start with a letter and hold at most 32 of a-z, 0-9 and _"),
    v.check((id) => !isReservedWalletId(id), "wallet_id formatted is reserved"),
  ),
  wallet_name: required(WALLET_LIMITS.nameMax, "wallet_name"),
  wallet_symbol: required(WALLET_LIMITS.symbolMax, "wallet_symbol"),
  wallet_symbol_position: v.optional(
    v.picklist(["left", "right"], "wallet_symbol_position must be left or right"),
    "left",
  ),
  wallet_decimal: v.optional(
    v.pipe(
      v.union([v.string(), v.number()], "wallet_decimal must be an integer from 0 to 8"),
      v.transform(String),
      v.regex(/^[0-9]$/, "wallet_decimal must be an integer from 0 to 8"),
      v.transform(Number),
      v.check(isWalletDecimals, "wallet_decimal must be an integer from 0 to 8"),
    ),
    2,
  ),
  wallet_type: v.optional(
    v.pipe(
      v.string("wallet_type must be text"),
      v.transform(normalizeWalletType),
      v.check(isWalletType, "wallet_type must hold 1 to 32 of a-z, 0-9, _ and -"),
    ),
    "fiat",
  ),
  wallet_note: v.optional(textField(WALLET_LIMITS.noteMax, "wallet_note"), ""),
});

export { walletRecord } from "../../ledger/wallet-record";
