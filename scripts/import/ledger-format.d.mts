// Types of ledger-format.mjs, for the TypeScript tests that import it.
export type WalletUnits = { decimals: number; extraDecimals?: number };
export type WalletDisplay = WalletUnits & { symbol: string; symbolPosition: "left" | "right" };
export const SLUG_MAX: number;
export function asciiLower(text: string): string;
export const MAX_MINOR: number;
export const MAX_STORAGE_DECIMALS: number;
export function minorToText(minor: number, decimals: number): string;
export function toDisplayMinor(minor: number, extraDecimals: number): number;
export function groupDigits(minor: number, decimals: number, extraDecimals?: number): string;
export function formatMoney(minor: number, wallet: WalletDisplay): string;
export function storageDecimals(wallet: WalletUnits): number;
export function exactText(minor: number, wallet: WalletUnits): string;
export function titleDate(epochS: number): string;
export function mysqlUtc(epochS: number): string;
export function postTitle(t: {
  username: string;
  txnType: "CREDIT" | "DEBIT";
  amountMinor: number;
  wallet: WalletUnits & { symbol: string; name: string };
  createdAtS: number;
}): string;
export function slugify(title: string): string;
export function decimalToMinor(
  text: string,
  decimals: number,
  options?: { round?: boolean; allowNegative?: boolean },
): { minor: number; issue?: undefined } | { issue: string; minor?: undefined };
export function readSiteAmount(
  text: string,
):
  | { integer: string; fraction: string; places: number; issue?: undefined }
  | { issue: string; integer?: undefined; fraction?: undefined; places?: undefined };
