// Exact money: amounts live as integer minor units (amount × 10^decimals) and are read from their
// decimal text, never through binary floating point.

export type Decimal = { text: string; integer: string; fraction: string };

const DECIMAL_TEXT = /^([0-9]+)(?:\.([0-9]+))?$/;
const NEGATIVE_TEXT = /^-([0-9]+)(?:\.([0-9]+))?$/;

export type AmountIssue = "not-numeric" | "not-positive";

/** Reads a request amount (JSON number or numeric string) as decimal text, or says what is wrong. */
export function readAmount(input: unknown): Decimal | AmountIssue {
  let text: string;
  if (typeof input === "number") {
    if (!Number.isFinite(input)) return "not-numeric";
    if (input <= 0) return "not-positive";
    // A number reaching here is exactly what the client wrote: http/params.ts passes any JSON
    // number a double cannot hold as its decimal text instead.
    text = plainDecimal(String(input))!; // a finite double's exponent is within ±400
  } else if (typeof input === "string") {
    text = input;
    if (NEGATIVE_TEXT.test(text)) return "not-positive";
  } else {
    return "not-numeric";
  }
  const match = DECIMAL_TEXT.exec(text);
  if (!match) return "not-numeric";
  const decimal = { text, integer: match[1]!, fraction: match[2] ?? "" };
  if (/^0*$/.test(decimal.integer + decimal.fraction)) return "not-positive";
  return decimal;
}

const JSON_NUMBER = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/;

/** A JSON number's literal as plain decimal text ("1.50e2" → "150"), or null past sane exponents. */
export function plainDecimal(literal: string): string | null {
  const m = JSON_NUMBER.exec(literal);
  if (!m || Math.abs(Number(m[4] ?? 0)) > 400) return null;
  const [, sign, int, frac = ""] = m as unknown as [string, string, string, string | undefined];
  const point = int.length + Number(m[4] ?? 0);
  const digits = int + frac;
  const padded = point <= 0 ? "0".repeat(1 - point) + digits : point > digits.length ? digits + "0".repeat(point - digits.length) : digits;
  const at = Math.max(point, 1);
  const whole = padded.slice(0, at).replace(/^0+(?=\d)/, "");
  const fraction = padded.slice(at).replace(/0+$/, "");
  return sign + whole + (fraction ? `.${fraction}` : "");
}

export type MinorIssue = "too-many-decimals" | "too-large";

/**
 * The largest amount or balance, in minor units: 15 digits, so its major-unit value (at most 15
 * significant digits) prints as a JSON number that reads back as exactly that decimal. The
 * `transactions_balance_limit` trigger holds balances to it.
 */
export const MAX_MINOR = 999_999_999_999_999;

/** Minor units of `amount` in a wallet with `decimals` places; extra fraction digits must be zeros. */
export function toMinor(amount: Decimal, decimals: number): number | MinorIssue {
  const kept = amount.fraction.slice(0, decimals);
  if (/[1-9]/.test(amount.fraction.slice(decimals))) return "too-many-decimals";
  const minor = BigInt(amount.integer + kept.padEnd(decimals, "0"));
  return minor > BigInt(MAX_MINOR) ? "too-large" : Number(minor);
}

/** Plain decimal text of a minor-unit value: 150050 at 2 decimals → "1500.50". */
export function minorToText(minor: number, decimals: number) {
  const sign = minor < 0 ? "-" : "";
  const digits = Math.abs(minor).toString().padStart(decimals + 1, "0");
  const integer = digits.slice(0, digits.length - decimals);
  return decimals === 0 ? sign + integer : `${sign}${integer}.${digits.slice(-decimals)}`;
}

/** Major units as a JSON number: the nearest double, which prints back as the decimal up to MAX_MINOR. */
export const minorToNumber = (minor: number, decimals: number) => Number(minorToText(minor, decimals));

/** The number with `,` thousands separators and the wallet's decimals: 150050, 2 → "1,500.50". */
export function groupDigits(minor: number, decimals: number) {
  const [integer, fraction] = minorToText(minor, decimals).split(".");
  const sign = integer!.startsWith("-") ? "-" : "";
  const grouped = integer!.replace("-", "").replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  return sign + grouped + (fraction === undefined ? "" : `.${fraction}`);
}

export type WalletDisplay = { symbol: string; symbolPosition: "left" | "right"; decimals: number };

/** Display string of contract section 4: `₦1,500.00` (left) or `12,000 RMPNCOIN` (right). */
export function formatMoney(minor: number, wallet: WalletDisplay) {
  const number = groupDigits(minor, wallet.decimals);
  return wallet.symbolPosition === "right" ? `${number} ${wallet.symbol}` : `${wallet.symbol}${number}`;
}
