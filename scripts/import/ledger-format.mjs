// The few ledger formatting rules the importer needs, in plain JavaScript so the Node script can run
// them without a TypeScript step. They mirror src/ledger/money.ts and src/ledger/post-format.ts;
// test/import-wordpress.test.ts checks that both give the same answers.

export const SLUG_MAX = 200;

/** Idempotency keys fold A-Z to a-z and nothing else (src/ledger/request-key.ts). */
export const asciiLower = (text) => text.replace(/[A-Z]+/g, (run) => run.toLowerCase());
const WEEKDAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];
const MONTHS = [
  "January",
  "February",
  "March",
  "April",
  "May",
  "June",
  "July",
  "August",
  "September",
  "October",
  "November",
  "December",
];

/** Plain decimal text of a minor-unit value: 150050 at 2 decimals → "1500.50". */
export function minorToText(minor, decimals) {
  const sign = minor < 0 ? "-" : "";
  const digits = Math.abs(minor)
    .toString()
    .padStart(decimals + 1, "0");
  const integer = digits.slice(0, digits.length - decimals);
  return decimals === 0 ? sign + integer : `${sign}${integer}.${digits.slice(-decimals)}`;
}

/**
 * Stored units rounded to display units, half away from zero (src/ledger/money.ts toDisplayMinor):
 * a wallet may store `extraDecimals` places more than it displays.
 */
export function toDisplayMinor(minor, extraDecimals) {
  if (!extraDecimals) return minor;
  const unit = 10 ** extraDecimals;
  const magnitude = Math.abs(minor);
  const rest = magnitude % unit;
  const rounded = (magnitude - rest) / unit + (rest * 2 >= unit ? 1 : 0);
  return minor < 0 && rounded !== 0 ? -rounded : rounded;
}

/** The number with `,` thousands separators and the wallet's decimals: 150050, 2 → "1,500.50". */
export function groupDigits(minor, decimals, extraDecimals = 0) {
  const [integer, fraction] = minorToText(toDisplayMinor(minor, extraDecimals), decimals).split(
    ".",
  );
  const sign = integer.startsWith("-") ? "-" : "";
  const grouped = integer.replace("-", "").replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  return sign + grouped + (fraction === undefined ? "" : `.${fraction}`);
}

/** `₦1,500.00` (left) or `12,000 RMPNCOIN` (right), rounded to the display decimals. */
export function formatMoney(minor, wallet) {
  const number = groupDigits(minor, wallet.decimals, wallet.extraDecimals ?? 0);
  return wallet.symbolPosition === "right"
    ? `${number} ${wallet.symbol}`
    : `${wallet.symbol}${number}`;
}

/** The places a wallet's stored units carry (src/ledger/money.ts storageDecimals). */
export const storageDecimals = (wallet) => wallet.decimals + (wallet.extraDecimals ?? 0);

/** Exact decimal text of stored units, with at least the display decimals: "12.345", "12.00". */
export function exactText(minor, wallet) {
  const text = minorToText(minor, storageDecimals(wallet));
  let end = text.length;
  const keep = text.length - (wallet.extraDecimals ?? 0);
  while (end > keep && text[end - 1] === "0") end--;
  return text.slice(0, end);
}

const pad = (n) => String(n).padStart(2, "0");
const hour12 = (hour) => hour % 12 || 12;
const meridiem = (hour) => (hour < 12 ? "AM" : "PM");
function ordinal(day) {
  if (day % 100 >= 11 && day % 100 <= 13) return `${day}th`;
  return day + (["th", "st", "nd", "rd"][day % 10] ?? "th");
}

/** PHP `l jS \of F Y @ h:i:s A` in UTC: `Monday 5th of September 2022 @ 02:15:07 PM`. */
export function titleDate(epochS) {
  const d = new Date(epochS * 1000);
  const time = `${pad(hour12(d.getUTCHours()))}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())} ${meridiem(d.getUTCHours())}`;
  return `${WEEKDAYS[d.getUTCDay()]} ${ordinal(d.getUTCDate())} of ${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()} @ ${time}`;
}

/** MySQL DATETIME text of an instant in UTC. */
export function mysqlUtc(epochS) {
  return new Date(epochS * 1000).toISOString().slice(0, 19).replace("T", " ");
}

/** The plugin's post_title of an entry (the symbol always before the amount). */
export function postTitle({ username, txnType, amountMinor, wallet, createdAtS }) {
  const amount = formatMoney(amountMinor, { ...wallet, symbolPosition: "left" });
  return `TRANSACTION by ${username}, Type: ${txnType}, Wallet Info: ${amount} ${wallet.name}  on ${titleDate(createdAtS)}`;
}

const utf8 = new TextEncoder();

/** WordPress's sanitize_title_with_dashes in its 'save' context (see src/ledger/post-format.ts). */
export function slugify(title) {
  let encoded = "";
  for (const ch of title
    .replace(/<[^>]*>/g, "")
    .replace(/%(?![0-9a-fA-F]{2})/g, "")
    .toLowerCase()) {
    const piece =
      ch.charCodeAt(0) < 0x80
        ? ch
        : [...utf8.encode(ch)].map((b) => `%${b.toString(16).padStart(2, "0")}`).join("");
    if (encoded.length + piece.length > SLUG_MAX) break;
    encoded += piece;
  }
  return encoded
    .replace(/&.+?;/g, "")
    .replace(/\./g, "-")
    .replace(/[^%a-z0-9 _-]/g, "")
    .replace(/\s+/g, "-")
    .replace(/-+/g, "-")
    .replace(/^-+|-+$/g, "");
}

/** The largest amount or balance in minor units: MAX_MINOR of src/ledger/money.ts. */
export const MAX_MINOR = 999_999_999_999_999;

/**
 * Minor units of a decimal text at `decimals` places. Returns { minor } or { issue }: "not-numeric",
 * "too-many-decimals" (non-zero digits past the wallet's decimals) or "too-large" (past MAX_MINOR).
 * `round` rounds half away from zero instead of refusing extra digits (for the site's stored
 * balances, which PHP float arithmetic leaves as 0.30000000000000004).
 */
export function decimalToMinor(text, decimals, { round = false, allowNegative = false } = {}) {
  let t = String(text ?? "").trim();
  if (t === "") return { minor: 0 };
  if (/^[+-]?(\d+\.?\d*|\.\d+)e[+-]?\d+$/i.test(t)) t = expandExponent(t);
  const m = /^([+-])?(\d*)(?:\.(\d*))?$/.exec(t);
  if (!m || (m[2] === "" && (m[3] ?? "") === "")) return { issue: "not-numeric" };
  const negative = m[1] === "-";
  if (negative && !allowNegative) return { issue: "negative" };
  const integer = m[2] || "0";
  const fraction = m[3] ?? "";
  let minor = BigInt(integer + fraction.slice(0, decimals).padEnd(decimals, "0"));
  const rest = fraction.slice(decimals);
  if (/[1-9]/.test(rest)) {
    if (!round) return { issue: "too-many-decimals" };
    if (rest[0] >= "5") minor += 1n;
  }
  if (minor > BigInt(MAX_MINOR)) return { issue: "too-large" };
  return { minor: negative ? -Number(minor) : Number(minor) };
}

/** The most places a wallet stores: a balance keeps 15 digits in all (MAX_MINOR). */
export const MAX_STORAGE_DECIMALS = 15;

/**
 * An amount as the site stored it (unsigned decimal text, `1.5E-5` too), read exactly: its integer
 * digits, its fraction without trailing zeros, and how many places that fraction needs. Or { issue }.
 */
export function readSiteAmount(text) {
  let t = String(text ?? "").trim();
  if (/^(\d+\.?\d*|\.\d+)e[+-]?\d+$/i.test(t)) t = expandExponent(t);
  const m = /^(\d*)(?:\.(\d*))?$/.exec(t);
  if (!m || (m[1] === "" && (m[2] ?? "") === "")) return { issue: "not-numeric" };
  const integer = m[1].replace(/^0+(?=\d)/, "") || "0";
  const fraction = (m[2] ?? "").replace(/0+$/, "");
  return { integer, fraction, places: fraction.length };
}

/** `1.5E-5` → `0.000015`, exactly, from the digits. */
function expandExponent(t) {
  const m = /^([+-]?)(\d*)\.?(\d*)e([+-]?\d+)$/i.exec(t);
  const all = m[2] + m[3];
  const intLen = m[2].length + Number(m[4]);
  let out;
  if (intLen <= 0) out = `0.${"0".repeat(-intLen)}${all}`;
  else if (intLen >= all.length) out = all + "0".repeat(intLen - all.length);
  else out = `${all.slice(0, intLen)}.${all.slice(intLen)}`;
  return m[1] + out;
}
