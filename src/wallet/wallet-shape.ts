// What a wallet may be: its id, its type and its limits. Both dialects, the service and the
// WordPress importer judge wallets by these; they import nothing of the runtime's, so the importer's
// Node tools can use them too.
import { asciiLower } from "../ledger/request-key";
import { C_SPACE, trimOf } from "../text";

/** Ids are lowercase: a-z first, then a-z, 0-9 and _, at most 32 (balance keys and SQL ids). */
export const WALLET_ID = /^[a-z][a-z0-9_]{0,31}$/;
/** `formatted` would clash with the balance response's `formatted` key. */
const RESERVED_IDS = new Set(["formatted"]);
export const WALLET_TYPE = /^[a-z0-9_-]{1,32}$/;

export const WALLET_LIMITS = {
  nameMax: 100,
  symbolMax: 16,
  decimalsMax: 8,
  noteMax: 1000,
} as const;

/**
 * Wallet ids and types as the service keeps them: C's white space trimmed (a client's stray space,
 * tab or line break), no other (`"NGN\u2003"` keeps its em space and names no wallet, as in the
 * plugin's dialect, whose fields PHP trimmed alike), and ASCII letters folded only, as request
 * keys are (`"\u212Angn"` is not `kngn`).
 */
export const normalizeWalletId = (id: string) => asciiLower(trimOf(id, C_SPACE));
export const normalizeWalletType = normalizeWalletId;

export const isWalletId = (id: string) => WALLET_ID.test(id);
export const isReservedWalletId = (id: string) => RESERVED_IDS.has(id);
export const isWalletType = (type: string) => WALLET_TYPE.test(type);
export const isWalletDecimals = (n: number) =>
  Number.isInteger(n) && n >= 0 && n <= WALLET_LIMITS.decimalsMax;
