// Numbers as a WordPress site stored them, read exactly for the import: amounts (`1.5E-5` too) and
// the balances PHP's float arithmetic left (`0.30000000000000004`). The service itself converts
// amounts only through src/ledger/money.ts amountToMinor.
import {
  allZeros,
  MAX_MINOR,
  type MinorIssue,
  readPhpDecimal,
  trimZeros,
} from "../../src/ledger/money";

/**
 * An amount as the site stored it (`-3`, `+3`, `1.5E-5` too), read exactly: its sign, its integer
 * digits, its fraction without trailing zeros, and how many places that fraction needs.
 */
export function readSiteAmount(text: string) {
  const d = readPhpDecimal(text, true);
  if (!d) return { issue: "not-numeric" as const };
  const fraction = trimZeros(d.fraction, "end");
  const integer = trimZeros(d.integer || "0", "start");
  return { negative: d.negative, integer, fraction, places: fraction.length };
}

type SiteNumberIssue = "not-numeric" | "negative" | MinorIssue;

export type SiteMinor =
  | { minor: number; issue?: undefined }
  | { issue: SiteNumberIssue; minor?: undefined };

type PhpDecimal = NonNullable<ReturnType<typeof readPhpDecimal>>;

/** `d`'s magnitude in units of 10^-places, half away from zero, and whether digits were cut. */
function unitsAt(d: PhpDecimal, places: number) {
  const units = BigInt((d.integer || "0") + d.fraction.slice(0, places).padEnd(places, "0"));
  const rest = d.fraction.slice(places);
  const cut = !allZeros(rest);
  return { units: cut && rest[0]! >= "5" ? units + 1n : units, cut };
}

/**
 * Minor units of a site's decimal text at `decimals` places (empty text is 0). Refuses non-zero
 * digits past `decimals` ("too-many-decimals") unless `round`, which rounds half away from zero (for
 * the site's stored balances, which PHP float arithmetic leaves as 0.30000000000000004), and a sign
 * unless `allowNegative`.
 */
export function siteDecimalToMinor(
  text: string,
  decimals: number,
  { round = false, allowNegative = false } = {},
): SiteMinor {
  if (text.trim() === "") return { minor: 0 };
  const d = readPhpDecimal(text, true);
  if (!d) return { issue: "not-numeric" };
  if (d.negative && !allowNegative) return { issue: "negative" };
  const { units: minor, cut } = unitsAt(d, decimals);
  if (cut && !round) return { issue: "too-many-decimals" };
  if (minor > BigInt(MAX_MINOR)) return { issue: "too-large" };
  return { minor: d.negative ? -Number(minor) : Number(minor) };
}

/**
 * Whether a site's decimal text, rounded half away from zero at `readPlaces` (PHP's float noise
 * gone), has nothing past `places`: a figure a wallet storing `places` holds exactly.
 */
export function fitsPlaces(text: string, places: number, readPlaces: number) {
  if (text.trim() === "") return true;
  const d = readPhpDecimal(text, true);
  return d !== null && unitsAt(d, readPlaces).units % 10n ** BigInt(readPlaces - places) === 0n;
}
