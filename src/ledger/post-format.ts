// How the plugin's transactions look as WordPress posts: titles, slugs and dates, kept to the byte
// because clients parse them (contract section 7).
import { formatMoney, type WalletDisplay } from "./money";

export const SLUG_MAX = 200;
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

type Parts = {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  weekday: number;
};

const formatters = new Map<string, Intl.DateTimeFormat>();

/** Epoch ms of a UTC calendar time: Date.UTC's, but the years 0 to 99 are themselves, not 19xx. */
export function utcMs(year: number, month: number, day: number, hour = 0, minute = 0, second = 0) {
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second, 0);
  return date.getTime();
}

/**
 * Wall-clock parts of an instant in an IANA time zone. UTC (every entry's title, and the default
 * site zone) is read off a Date, as zoneParts would answer it, without formatToParts' cost on
 * every credit.
 */
export function partsIn(epochS: number, timeZone: string): Parts {
  if (timeZone === "UTC" && epochS >= FIRST_YEAR_S && epochS <= LAST_YEAR_S) {
    const d = new Date(epochS * 1000);
    return {
      year: d.getUTCFullYear(),
      month: d.getUTCMonth() + 1,
      day: d.getUTCDate(),
      hour: d.getUTCHours(),
      minute: d.getUTCMinutes(),
      second: d.getUTCSeconds(),
      weekday: d.getUTCDay(),
    };
  }
  return zoneParts(epochS, timeZone);
}

/** Years 100 to 9999: Intl writes them as Date counts them. */
const FIRST_YEAR_S = -59_011_459_200; // 0100-01-01 00:00:00 UTC
const LAST_YEAR_S = 253_402_300_799; // 9999-12-31 23:59:59 UTC

/** Wall-clock parts of an instant in an IANA time zone, as Intl formats them. */
export function zoneParts(epochS: number, timeZone: string): Parts {
  let format = formatters.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat("en-US", {
      timeZone,
      hourCycle: "h23",
      era: "short",
      year: "numeric",
      month: "numeric",
      day: "numeric",
      hour: "numeric",
      minute: "numeric",
      second: "numeric",
    });
    formatters.set(timeZone, format);
  }
  const get = (type: string, parts: Intl.DateTimeFormatPart[]) =>
    Number(parts.find((p) => p.type === type)?.value);
  const parts = format.formatToParts(new Date(epochS * 1000));
  const [month, day] = [get("month", parts), get("day", parts)];
  // Intl counts the years before 1 as 1 BC, 2 BC, …; ISO 8601 (and Date) as 0, -1, ….
  const era = get("year", parts);
  const year = parts.find((p) => p.type === "era")?.value === "BC" ? 1 - era : era;
  return {
    year,
    month,
    day,
    hour: get("hour", parts),
    minute: get("minute", parts),
    second: get("second", parts),
    weekday: new Date(utcMs(year, month, day)).getUTCDay(),
  };
}

const pad = (n: number) => String(n).padStart(2, "0");
const hour12 = (hour: number) => hour % 12 || 12;
const meridiem = (hour: number) => (hour < 12 ? "AM" : "PM");

function ordinal(day: number) {
  if (day % 100 >= 11 && day % 100 <= 13) return `${day}th`;
  return day + (["th", "st", "nd", "rd"][day % 10] ?? "th");
}

/** PHP's `Y` (and MySQL's): at least four digits, `-` before a year before 1 (`-0001`). */
const yearText = (year: number) =>
  `${year < 0 ? "-" : ""}${String(Math.abs(year)).padStart(4, "0")}`;

/** MySQL DATETIME text, `YYYY-MM-DD HH:MM:SS`, as post_date and post_date_gmt hold. */
export function mysqlDate(epochS: number, timeZone: string) {
  const p = partsIn(epochS, timeZone);
  return `${yearText(p.year)}-${pad(p.month)}-${pad(p.day)} ${pad(p.hour)}:${pad(p.minute)}:${pad(p.second)}`;
}

/** PHP `D, M j, Y<br>g:i A`: `Mon, Sep 5, 2022<br>3:15 PM`. */
export function displayDate(epochS: number, timeZone: string) {
  const p = partsIn(epochS, timeZone);
  const date = `${WEEKDAYS[p.weekday]!.slice(0, 3)}, ${MONTHS[p.month - 1]!.slice(0, 3)} ${p.day}, ${yearText(p.year)}`;
  return `${date}<br>${hour12(p.hour)}:${pad(p.minute)} ${meridiem(p.hour)}`;
}

/** A MySQL DATETIME text's wall time read as UTC, in epoch seconds; NaN for anything else. */
export function mysqlDateSeconds(text: string) {
  const m = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})$/.exec(text);
  return m ? utcMs(+m[1]!, +m[2]!, +m[3]!, +m[4]!, +m[5]!, +m[6]!) / 1000 : Number.NaN;
}

/** The zone's offset from UTC at an instant, in seconds. */
const offsetAt = (epochS: number, timeZone: string) =>
  mysqlDateSeconds(mysqlDate(epochS, timeZone)) - epochS;

/** The last second whose wall time in the zone is before a wall midnight (read as UTC seconds). */
function lastSecondBefore(wallMidnightS: number, timeZone: string) {
  // The offsets in force around it: the last second before it under each, where that offset holds.
  const offsets = [
    ...new Set([-86_400, 0, 86_400].map((d) => offsetAt(wallMidnightS + d, timeZone))),
  ];
  let last = Number.NEGATIVE_INFINITY;
  for (const offset of offsets) {
    const second = wallMidnightS - offset - 1;
    if (offsetAt(second, timeZone) === offset) last = Math.max(last, second);
  }
  if (last > Number.NEGATIVE_INFINITY) return last;
  // The clock jumped over 23:59:59 (to 00:00, or past a whole day): the last second before the
  // jump, between the instants the wall time names under the smallest and largest offsets.
  const before = (second: number) => second + offsetAt(second, timeZone) < wallMidnightS;
  let low = wallMidnightS - Math.max(...offsets) - 1;
  let high = wallMidnightS - Math.min(...offsets) - 1;
  while (high - low > 1) {
    const middle = Math.floor((low + high) / 2);
    if (before(middle)) low = middle;
    else high = middle;
  }
  return low;
}

/**
 * A site-local day (`YYYY-MM-DD`, years 0000 to 9998) as epoch seconds, first and last: days so
 * bounded cover time without gap or overlap, on days a clock change skips or repeats midnight too
 * (a repeated hour belongs to the day its wall clock shows; a day the zone skipped is empty, its
 * last second the one before its first).
 */
export function siteDayBounds(day: string, timeZone: string) {
  const midnight = mysqlDateSeconds(`${day} 00:00:00`);
  return {
    firstS: lastSecondBefore(midnight, timeZone) + 1,
    lastS: lastSecondBefore(midnight + 86_400, timeZone),
  };
}

/** The same display of a MySQL DATETIME text that is already site-local (an imported post_date). */
export function displayLocalDate(local: string) {
  const epochS = mysqlDateSeconds(local);
  return Number.isFinite(epochS) ? displayDate(epochS, "UTC") : "";
}

/**
 * A site-local post_date as the plugin's transaction list showed it: PHP `l, F j, Y g:iA`
 * (`Sunday, November 22, 2026 3:36AM`), and `get_post_time('U', false)`, the local wall time read
 * as if it were UTC.
 */
export function localListDate(local: string) {
  const epochS = mysqlDateSeconds(local);
  if (!Number.isFinite(epochS)) return { dateTime: "", timestamp: 0 };
  const p = partsIn(epochS, "UTC");
  const date = `${WEEKDAYS[p.weekday]}, ${MONTHS[p.month - 1]} ${p.day}, ${yearText(p.year)}`;
  return {
    dateTime: `${date} ${hour12(p.hour)}:${pad(p.minute)}${meridiem(p.hour)}`,
    timestamp: epochS,
  };
}

/**
 * A site-local DATETIME text as the plugin's transfer list showed it: PHP `Y M D h:i a`
 * (`2026 Nov Sun 03:36 am`), out-of-range parts rolled over as strtotime() did (the zero date
 * `0000-00-00 00:00:00` is `-0001 Nov Tue 12:00 am`); "" for a text of another shape.
 */
export function transferListDate(local: string) {
  const epochS = mysqlDateSeconds(local);
  if (!Number.isFinite(epochS)) return "";
  const p = partsIn(epochS, "UTC");
  const [month, weekday] = [MONTHS[p.month - 1]!.slice(0, 3), WEEKDAYS[p.weekday]!.slice(0, 3)];
  return `${yearText(p.year)} ${month} ${weekday} ${pad(hour12(p.hour))}:${pad(p.minute)} ${meridiem(p.hour).toLowerCase()}`;
}

/** PHP `l jS \of F Y @ h:i:s A` in UTC: `Monday 5th of September 2022 @ 02:15:07 PM`. */
export function titleDate(epochS: number) {
  const p = partsIn(epochS, "UTC");
  const time = `${pad(hour12(p.hour))}:${pad(p.minute)}:${pad(p.second)} ${meridiem(p.hour)}`;
  return `${WEEKDAYS[p.weekday]} ${ordinal(p.day)} of ${MONTHS[p.month - 1]} ${yearText(p.year)} @ ${time}`;
}

type TitleInput = {
  username: string;
  txnType: "CREDIT" | "DEBIT";
  amountMinor: number;
  wallet: WalletDisplay & { name: string };
  createdAtS: number;
};

export function postTitle(t: TitleInput) {
  // The plugin puts the symbol before the amount here whatever the wallet's symbol position.
  const amount = formatMoney(t.amountMinor, { ...t.wallet, symbolPosition: "left" });
  return `TRANSACTION by ${t.username}, Type: ${t.txnType}, Wallet Info: ${amount} ${t.wallet.name}  on ${titleDate(t.createdAtS)}`;
}

const utf8 = new TextEncoder();

/**
 * The text without its `<…>` tags, as `replace(/<[^>]*>/g, "")` reads them, in one pass: that
 * regex tries every `<` against the rest of the text, quadratic on an imported title of many `<`
 * and no `>`. Once a `<` has no `>` after it, no later one has.
 */
function withoutTags(text: string) {
  let kept = "";
  let from = 0;
  for (let open = text.indexOf("<"); open !== -1; open = text.indexOf("<", from)) {
    const close = text.indexOf(">", open);
    if (close === -1) break;
    kept += text.slice(from, open);
    from = close + 1;
  }
  return kept + text.slice(from);
}

/**
 * WordPress's sanitize_title_with_dashes in its 'save' context: lowercase, non-ASCII percent-encoded
 * (utf8_uri_encode, which stops before passing 200 encoded characters), `.` to `-`, anything else
 * outside [%a-z0-9 _-] dropped, runs of spaces and dashes folded into one `-`, dashes trimmed.
 */
export function slugify(title: string) {
  let encoded = "";
  for (const ch of withoutTags(title)
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
