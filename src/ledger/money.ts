// Exact money: amounts live as integer minor units (amount × 10^decimals) and are read from their
// decimal text, never through binary floating point.

import { C_SPACE, trimOf } from "../text";

export type Decimal = { text: string; integer: string; fraction: string };

// Every reader here walks its text once, by hand: nothing on the request path may use a regex that
// can backtrack, and a JSON body (at most 64 KiB, http/body-limit.ts) can hold thousands of numbers.

const isDigits = (text: string) => {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 48 || code > 57) return false;
  }
  return text.length > 0;
};

export const allZeros = (text: string) => {
  for (let i = 0; i < text.length; i++) if (text[i] !== "0") return false;
  return true;
};

/** `digits` or `digits.digits`, split at the point; null for anything else. */
function splitDecimal(text: string): { integer: string; fraction: string } | null {
  const point = text.indexOf(".");
  const integer = point === -1 ? text : text.slice(0, point);
  const fraction = point === -1 ? "" : text.slice(point + 1);
  return isDigits(integer) && (point === -1 || isDigits(fraction)) ? { integer, fraction } : null;
}

export type AmountIssue = "not-numeric" | "not-positive";

/** Reads a request amount (JSON number or numeric string) as decimal text, or says what is wrong. */
export function readAmount(input: unknown): Decimal | AmountIssue {
  let text: string;
  if (typeof input === "number") {
    if (!Number.isFinite(input)) return "not-numeric";
    if (input <= 0) return "not-positive";
    // A number reaching here is exactly what the client wrote: http/params.ts passes any JSON
    // number a double cannot hold as its decimal text instead.
    text = numberText(input)!; // a finite double's exponent is within ±400
  } else if (typeof input === "string") {
    text = input;
    if (text.startsWith("-") && splitDecimal(text.slice(1))) return "not-positive";
  } else {
    return "not-numeric";
  }
  const parts = splitDecimal(text);
  if (!parts) return "not-numeric";
  if (allZeros(parts.integer) && allZeros(parts.fraction)) return "not-positive";
  return { text, ...parts };
}

/** The largest exponent a JSON number may have for its plain decimal text to be written out. */
const MAX_EXPONENT = 400;

export function trimZeros(digits: string, from: "start" | "end") {
  let start = 0;
  let end = digits.length;
  if (from === "start") while (start < end - 1 && digits[start] === "0") start++;
  else while (end > start && digits[end - 1] === "0") end--;
  return digits.slice(start, end);
}

/** A JSON number's literal as plain decimal text ("1.50e2" → "150"), or null past sane exponents. */
export function plainDecimal(literal: string): string | null {
  const sign = literal.startsWith("-") ? "-" : "";
  const e = literal.search(/e/i); // where the exponent begins, or -1
  const parts = splitDecimal(literal.slice(sign.length, e === -1 ? undefined : e));
  if (!parts) return null;
  let exponent = 0;
  if (e !== -1) {
    const written = literal.slice(e + 1);
    const digits = written.startsWith("+") || written.startsWith("-") ? written.slice(1) : written;
    if (!isDigits(digits)) return null;
    let lead = 0; // "1e0000001" is 10: zeros before the exponent's digits count for nothing
    while (lead < digits.length - 1 && digits[lead] === "0") lead++;
    if (digits.length - lead > 6) return null;
    exponent = Number(written);
    if (Math.abs(exponent) > MAX_EXPONENT) return null;
  }
  const digits = parts.integer + parts.fraction;
  const point = parts.integer.length + exponent;
  const padded =
    point <= 0
      ? "0".repeat(1 - point) + digits
      : point > digits.length
        ? digits + "0".repeat(point - digits.length)
        : digits;
  const at = Math.max(point, 1);
  const fraction = trimZeros(padded.slice(at), "end");
  return sign + trimZeros(padded.slice(0, at), "start") + (fraction ? `.${fraction}` : "");
}

/**
 * A JSON number amount's text, in either dialect: its plain decimal form, never JavaScript's
 * exponent (`0.0000001` prints as `1e-7`), so one movement records one amount text however sent.
 */
export const numberText = (n: number) => plainDecimal(String(n));

export type MinorIssue = "too-many-decimals" | "too-large";

/**
 * The largest amount or balance, in minor units: 15 digits, so its major-unit value (at most 15
 * significant digits) prints as a JSON number that reads back as exactly that decimal. The
 * `transactions_balance_limit` trigger holds balances to it, on both sides of zero.
 */
export const MAX_MINOR = 999_999_999_999_999;

/**
 * A wallet's units: `decimals` is what it displays and what new amounts may carry; amounts and
 * balances are stored in units of 10^-(decimals + extraDecimals). extraDecimals is 0 but for a wallet
 * whose WordPress site recorded amounts with more places than it displays (the import keeps them).
 */
export type WalletUnits = { decimals: number; extraDecimals?: number };

/** The places a wallet's stored minor units carry. */
export const storageDecimals = (w: WalletUnits) => w.decimals + (w.extraDecimals ?? 0);

/**
 * How a dialect reads an amount with more places than the wallet takes. `wallet/v1` (the contract,
 * section 3) refuses fraction digits past the display decimals unless they are zeros, and reads only
 * digits with an optional fraction; the plugin's dialect took any PHP-numeric text (a sign, `.5`,
 * `1e3`) and is followed in rounding half away from zero, on the digits as sent, to the places the
 * wallet stores.
 */
export type AmountPolicy = "refuse-excess-places" | "round-half-away-from-zero";

export type AmountRefusal = AmountIssue | MinorIssue;

/**
 * THE conversion of a request amount to money: the amount as the client sent it (a JSON number or
 * its text), in minor units of the places the wallet stores, under the dialect's policy, or why not.
 * Decimal digits are read from the text; a string never goes through binary floating point.
 */
export function amountToMinor(
  sent: string | number,
  wallet: WalletUnits,
  policy: AmountPolicy,
): number | AmountRefusal {
  const places = storageDecimals(wallet);
  let minor: bigint | null;
  if (policy === "refuse-excess-places") {
    const amount = readAmount(sent);
    if (typeof amount === "string") return amount;
    if (!allZeros(amount.fraction.slice(wallet.decimals))) return "too-many-decimals";
    minor = unitsAt(amount.integer, amount.fraction, places);
  } else {
    const amount = readPluginAmount(sent);
    if (typeof amount === "string") return amount;
    if (amount.negative) return "not-positive";
    minor = unitsAt(amount.integer, amount.fraction, places);
    if (minor !== null && (amount.fraction[places] ?? "0") >= "5") minor += 1n;
    if (minor === 0n) return "not-positive";
  }
  return minor === null || minor > BigInt(MAX_MINOR) ? "too-large" : Number(minor);
}

/**
 * Units of `integer.fraction` at `places`, the digits past them dropped; null past 16 integer
 * digits, where no amount fits (MAX_MINOR) whatever the places: BigInt is spared the rest.
 */
function unitsAt(integer: string, fraction: string, places: number): bigint | null {
  const digits = trimZeros(integer || "0", "start");
  if (digits.length > 16) return null;
  return BigInt(digits + fraction.slice(0, places).padEnd(places, "0"));
}

/**
 * An amount as the plugin read it: a JSON number, or PHP-numeric text (the dialect's `requires`
 * has checked is_numeric). An exponent past plainDecimal's bounds is a number too small to be an
 * amount or too large for one.
 */
function readPluginAmount(sent: string | number) {
  if (typeof sent === "number") {
    if (!Number.isFinite(sent)) return "not-numeric" as const;
    const parts = splitDecimal(plainDecimal(String(Math.abs(sent)))!)!;
    return { negative: sent < 0, ...parts };
  }
  const amount = readPhpDecimal(sent, true);
  if (amount) return amount;
  const number = phpNumber(sent, true);
  if (!number) return "not-numeric" as const;
  // A negative number, or one too small to be an amount (zero is read above, whatever its exponent).
  return number.negative || number.exponent?.startsWith("-")
    ? ("not-positive" as const)
    : ("too-large" as const);
}

/**
 * Whether an amount the plugin's dialect reads is below or at zero, whatever the wallet: negative,
 * or zero in every digit. Known from its text alone, so the dialect refuses it with the other field
 * checks (one that only rounds to zero needs the wallet's places: amountToMinor).
 */
export function pluginAmountNotPositive(sent: string | number) {
  const amount = readPluginAmount(sent);
  if (typeof amount === "string") return amount === "not-positive";
  return amount.negative || (allZeros(amount.integer) && allZeros(amount.fraction));
}

/**
 * What an entry's answers show as its `amount`: the amount as sent when it is exactly the amount
 * that moved (any notation the dialect took: `1500`, `100.50`, `1.5E-5`), else the moved amount's
 * exact text. A plugin-dialect amount that was rounded shows what moved (`0.005` sent, `0.01`
 * moved on a 2-decimal wallet); the text as sent stays with the entry (`post_content`).
 */
export function movedAmountText(sentText: string, minor: number, wallet: WalletUnits) {
  const places = storageDecimals(wallet);
  const sent = readPhpDecimal(sentText, true);
  const exact =
    sent !== null &&
    (!sent.negative || minor === 0) &&
    allZeros(sent.fraction.slice(places)) &&
    unitsAt(sent.integer, sent.fraction, places) === BigInt(minor);
  return exact ? sentText : exactText(minor, wallet);
}

/**
 * Plain decimal text of a minor-unit value: 150050 at 2 decimals → "1500.50". A bigint (a sum of
 * many amounts, past 2^53) is written as exactly.
 */
export function minorToText(minor: number | bigint, decimals: number) {
  const sign = minor < 0 ? "-" : "";
  const digits = (typeof minor === "bigint" ? (minor < 0n ? -minor : minor) : Math.abs(minor))
    .toString()
    .padStart(decimals + 1, "0");
  const integer = digits.slice(0, digits.length - decimals);
  return decimals === 0 ? sign + integer : `${sign}${integer}.${digits.slice(-decimals)}`;
}

/**
 * The exact decimal text of stored units, with at least the display decimals: 1234500 in a
 * 2-decimal wallet stored at 5 places → "12.345"; 1200000 → "12.00".
 */
export function exactText(minor: number | bigint, w: WalletUnits) {
  const text = minorToText(minor, storageDecimals(w));
  let end = text.length;
  const keep = text.length - (w.extraDecimals ?? 0);
  while (end > keep && text[end - 1] === "0") end--;
  // A 0-decimal wallet's whole amount has no point left: 10 stored at 1 place is "1", not "1.".
  if (text[end - 1] === ".") end--;
  return text.slice(0, end);
}

/** Major units as a JSON number: the nearest double, which prints back as the decimal up to MAX_MINOR. */
export const minorToNumber = (minor: number | bigint, decimals: number) =>
  Number(minorToText(minor, decimals));

/**
 * A wallet's stored units as a JSON number of major units (contract section 3), exact to every
 * place up to MAX_MINOR; a sum past it (a statement's totals) is the nearest double.
 */
export const major = (minor: number | bigint, wallet: WalletUnits) =>
  minorToNumber(minor, storageDecimals(wallet));

/**
 * Stored units rounded to display units, half away from zero (PHP's number_format does the same):
 * integer arithmetic on safe integers, never a fraction in binary floating point.
 */
export function toDisplayMinor<T extends number | bigint>(minor: T, extraDecimals: number): T {
  if (extraDecimals === 0) return minor;
  if (typeof minor === "bigint") {
    // A sum past 2^53 (a statement's totals): the same rounding, in exact integers.
    const unit = 10n ** BigInt(extraDecimals);
    const magnitude = minor < 0n ? -minor : minor;
    const rounded = magnitude / unit + ((magnitude % unit) * 2n >= unit ? 1n : 0n);
    return (minor < 0n ? -rounded : rounded) as T;
  }
  const unit = 10 ** extraDecimals;
  const magnitude = Math.abs(minor);
  const rest = magnitude % unit;
  const rounded = (magnitude - rest) / unit + (rest * 2 >= unit ? 1 : 0);
  return (minor < 0 && rounded !== 0 ? -rounded : rounded) as T;
}

/** A decimal text with `,` thousands separators: "-1234.5" → "-1,234.5". */
function grouped(text: string) {
  const digitsFrom = text.startsWith("-") ? 1 : 0;
  const point = text.indexOf(".");
  let end = point === -1 ? text.length : point;
  let tail = text.slice(end);
  for (; end - 3 > digitsFrom; end -= 3) tail = `,${text.slice(end - 3, end)}${tail}`;
  return text.slice(0, end) + tail;
}

export type WalletDisplay = WalletUnits & { symbol: string; symbolPosition: "left" | "right" };

const withSymbol = (number: string, wallet: WalletDisplay) =>
  wallet.symbolPosition === "right" ? `${number} ${wallet.symbol}` : `${wallet.symbol}${number}`;

/**
 * Display string of contract section 4: `₦1,500.00` (left) or `12,000 RMPNCOIN` (right), with the
 * wallet's display decimals (a wallet storing more places is rounded half away from zero).
 */
export const formatMoney = (minor: number | bigint, wallet: WalletDisplay) =>
  withSymbol(
    grouped(minorToText(toDisplayMinor(minor, wallet.extraDecimals ?? 0), wallet.decimals)),
    wallet,
  );

/**
 * As formatMoney, but exact: a wallet storing more places than it shows (an imported one) shows the
 * stored digits past its decimals that are not zero (`₦0.015`, `₦1,500.00`), so that the rows of a
 * screen add up to the last place stored (the console's).
 */
export const formatExact = (minor: number | bigint, wallet: WalletDisplay) =>
  withSymbol(grouped(exactText(minor, wallet)), wallet);

/**
 * The most places a wallet stores (display decimals plus extra ones): a balance keeps 15 digits in
 * all (MAX_MINOR). The `wallets_extra_decimals` trigger (drizzle/0006) holds wallets to it.
 */
export const MAX_STORAGE_DECIMALS = 15;

// ---------------------------------------------------------------------------------------------
// Numbers as PHP reads and writes them. The plugin took any is_numeric amount and PHP wrote floats
// as it prints them ("1.5E-5", "10.000000000000002"): the plugin's dialect reads amounts this way
// (amountToMinor), and the WordPress import reads a site's stored numbers with it
// (scripts/import/site-amounts.ts).

/**
 * The number PHP 8 reads at the start of `text` (`[+-](digits[.digits]|.digits)[e[+-]digits]`, the
 * sign only when `signed`; an `e` without digits after it is not part of it), in its parts and
 * where it ends, or null when there is none.
 */
function leadingPhpNumber(text: string, signed: boolean) {
  const end = text.length;
  let i = 0;
  const negative = signed && text[i] === "-";
  if (signed && (text[i] === "-" || text[i] === "+")) i++;
  const digitsFrom = (from: number) => {
    let to = from;
    while (to < end && text.charCodeAt(to) >= 48 && text.charCodeAt(to) <= 57) to++;
    return to;
  };
  let to = digitsFrom(i);
  const integer = text.slice(i, to);
  let fraction = "";
  if (text[to] === ".") {
    i = to + 1;
    to = digitsFrom(i);
    fraction = text.slice(i, to);
  }
  if (integer + fraction === "") return null;
  let exponent: string | undefined;
  if (text[to] === "e" || text[to] === "E") {
    const sign = text[to + 1] === "+" || text[to + 1] === "-" ? 1 : 0;
    const digitsTo = digitsFrom(to + 1 + sign);
    if (digitsTo > to + 1 + sign) {
      exponent = text.slice(to + 1, digitsTo);
      to = digitsTo;
    }
  }
  return { negative, integer, fraction, exponent, length: to };
}

/**
 * PHP 8's numeric text, `[ws]number[ws]` (leadingPhpNumber's), in its parts, or null: what
 * is_numeric takes.
 */
function phpNumber(sent: string, signed: boolean) {
  const text = trimOf(sent, C_SPACE);
  const number = leadingPhpNumber(text, signed);
  if (number?.length !== text.length) return null;
  const { negative, integer, fraction, exponent } = number;
  return { negative, integer, fraction, exponent };
}

/**
 * The numeric text PHP 8's `(int)` and arithmetic read from the start of a string, C's white space
 * before it skipped: `12` of `12abc`, `1e2` of ` 1e2x`, `1` of `1e`, "" of `abc` and `0x1A`.
 */
export function phpLeadingNumeric(text: string) {
  let start = 0;
  while (start < text.length && C_SPACE.includes(text[start]!)) start++;
  const rest = text.slice(start);
  return rest.slice(0, leadingPhpNumber(rest, true)?.length ?? 0);
}

/** PHP 8's is_numeric of a string. */
export const phpIsNumeric = (text: string) => phpNumber(text, true) !== null;

/** PHP-numeric text (a sign when `signed`; an exponent, as plainDecimal bounds it), written out. */
export function readPhpDecimal(text: string, signed: boolean) {
  const number = phpNumber(text, signed);
  if (!number) return null;
  const { negative, integer, fraction, exponent } = number;
  if (exponent === undefined) return { negative, integer, fraction };
  // Zero is zero whatever its exponent; any other number past plainDecimal's bounds is no amount.
  if (allZeros(integer + fraction)) return { negative, integer: "0", fraction: "" };
  const plain = plainDecimal(`${integer || "0"}.${fraction || "0"}e${exponent}`);
  return plain === null ? null : { negative, ...splitDecimal(plain)! };
}
