// Types of ledger-format.mjs, for the TypeScript tests that import it.
export type WalletDisplay = { symbol: string; symbolPosition: "left" | "right"; decimals: number };
export const SLUG_MAX: number;
export function asciiLower(text: string): string;
export const MAX_MINOR: number;
export function minorToText(minor: number, decimals: number): string;
export function groupDigits(minor: number, decimals: number): string;
export function formatMoney(minor: number, wallet: WalletDisplay): string;
export function titleDate(epochS: number): string;
export function mysqlUtc(epochS: number): string;
export function postTitle(t: {
  username: string;
  txnType: "CREDIT" | "DEBIT";
  amountMinor: number;
  wallet: { symbol: string; decimals: number; name: string };
  createdAtS: number;
}): string;
export function slugify(title: string): string;
export function decimalToMinor(
  text: string,
  decimals: number,
  options?: { round?: boolean; allowNegative?: boolean },
): { minor: number; issue?: undefined } | { issue: string; minor?: undefined };
