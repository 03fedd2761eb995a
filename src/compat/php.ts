// The few PHP and WordPress functions whose exact behaviour the plugin's answers show: clients see
// their results echoed back (`submitted`) and as odd error keys (`{"":"wallet_id is required"}`).
// Every reader walks its text once, without a regex that can backtrack (as src/ledger/money.ts).

import { EMPTY } from "../http/fields";
import { numberText } from "../wallet/rules";

const isDigit = (ch: string | undefined) => ch !== undefined && ch >= "0" && ch <= "9";
const isHex = (ch: string | undefined) =>
  ch !== undefined && (isDigit(ch) || (ch >= "a" && ch <= "f") || (ch >= "A" && ch <= "F"));
const PHP_TRIM = " \t\n\r\0\x0B";

function phpTrim(text: string) {
  let start = 0;
  let end = text.length;
  while (start < end && PHP_TRIM.includes(text[start]!)) start++;
  while (end > start && PHP_TRIM.includes(text[end - 1]!)) end--;
  return text.slice(start, end);
}

/** Tags (`<b>`) go; a `<` that opens no tag stays as `&lt;` (wp_pre_kses_less_than, strip_tags). */
function stripTags(text: string) {
  let out = "";
  let i = 0;
  while (i < text.length) {
    const ch = text[i]!;
    if (ch !== "<") {
      out += ch;
      i++;
      continue;
    }
    const close = text.indexOf(">", i + 1);
    const nextOpen = text.indexOf("<", i + 1);
    if (close !== -1 && (nextOpen === -1 || close < nextOpen)) {
      i = close + 1;
    } else {
      out += "&lt;";
      i++;
    }
  }
  return out;
}

/** Runs of `\r\n\t ` become one space (or, with `spacesOnly`, runs of spaces). */
const collapse = (text: string, spacesOnly = false) =>
  text.replace(spacesOnly ? / +/g : /[ \t\n\r]+/g, " ");

/** Removes `%hh` octets, including those that removing others forms (`%%4141` → ``). */
function stripOctets(text: string) {
  const out: string[] = [];
  let found = false;
  for (const ch of text) {
    out.push(ch);
    const n = out.length;
    if (n >= 3 && out[n - 3] === "%" && isHex(out[n - 2]) && isHex(out[n - 1])) {
      out.length = n - 3;
      found = true;
    }
  }
  return { text: out.join(""), found };
}

/**
 * WordPress's `sanitize_text_field`, which the plugin ran on every parameter: arrays and objects
 * become "", tags are stripped, white space runs collapse, the ends are trimmed and percent-encoded
 * octets removed. (The contents of <script>/<style> elements are kept; no wallet id or user id has them.)
 */
export function sanitizeTextField(value: unknown): string {
  const text = sanitizeKeepingOctets(value);
  const octets = stripOctets(text);
  return octets.found ? phpTrim(collapse(octets.text, true)) : octets.text;
}

function sanitizeKeepingOctets(value: unknown) {
  if (value === undefined || value === null || value === false || typeof value === "object")
    return "";
  const text = value === true ? "1" : String(value);
  return phpTrim(collapse(text.includes("<") ? phpTrim(stripTags(text)) : text));
}

/**
 * An amount field: sanitize_text_field but for its last step, which removed `%hh` octets and so
 * made the text `"1%2e5"` (sent in JSON, in a multipart field, or percent-encoded twice) the number
 * 15. A form body or query string has already been percent-decoded once (`amount=1%2e5` is 1.5);
 * an octet still in the text is kept, and the amount is not numeric. A JSON number is read as
 * wallet/v1 reads it (numberText): `0.0000001` is that text, not JavaScript's `1e-7`.
 */
export const sanitizeAmountField = (value: unknown) =>
  sanitizeKeepingOctets(typeof value === "number" ? (numberText(value) ?? String(value)) : value);

/** A raw parameter as PHP's string conversion reads it (`true` is "1", `false` empty; arrays: nothing). */
export function phpText(value: unknown) {
  if (typeof value === "string") return value;
  if (typeof value === "number") return String(value);
  if (typeof value === "boolean") return value ? "1" : "";
  return "";
}

/** PHP's `empty()` of a string: "" and "0". */
export const phpEmpty = (text: string) => text === "" || text === "0";

/** PHP 8 `is_numeric` of a string: `[ws][+-](digits[.digits]|.digits)[e[+-]digits][ws]`. */
export function phpIsNumeric(text: string) {
  const t = phpTrim(text);
  let i = t[0] === "+" || t[0] === "-" ? 1 : 0;
  let digits = 0;
  for (; isDigit(t[i]); i++) digits++;
  if (t[i] === ".") {
    i++;
    for (; isDigit(t[i]); i++) digits++;
  }
  if (digits === 0) return false;
  if (t[i] === "e" || t[i] === "E") {
    i++;
    if (t[i] === "+" || t[i] === "-") i++;
    if (!isDigit(t[i])) return false;
    while (isDigit(t[i])) i++;
  }
  return i === t.length;
}

/**
 * `(int)` of a numeric string, or null when the string is not numeric or the integer is past what a
 * double holds exactly (no user has such an id). `"2.9"` → 2, `"1e1"` → 10, `"-2"` → -2, and
 * leading zeros count for nothing however many (`"000…01"` → 1).
 */
export function phpInt(text: string): number | null {
  const t = phpTrim(text).replace(/^([+-]?)0+(?=[0-9])/, "$1");
  if (t.length > 40 || !phpIsNumeric(t)) return null;
  const n = Math.trunc(Number(t));
  return Number.isSafeInteger(n) ? n : null;
}

/** The furthest page the dialect's lists read, so that an offset stays a small integer. */
const LAST_PAGE = 1_000_000;

/**
 * A list's page number: a numeric text's integer part, at least 1 (zero, a negative number and any
 * other text are the first page) and at most LAST_PAGE. A larger one, however large (past what a
 * double holds too: `1e308`), is LAST_PAGE, so a page past the end stays past it.
 */
export function phpPage(text: string) {
  const n = phpInt(text);
  if (n !== null) return Math.min(Math.max(n, 1), LAST_PAGE);
  return phpIsNumeric(text) && !phpTrim(text).startsWith("-") ? LAST_PAGE : 1;
}

/**
 * JSON text of a PHP array built key by key: a list when its keys are 0, 1, 2… in order, else an
 * object in insertion order. (A JS object would move the key "0" before the key "".)
 */
export function phpArrayJson(entries: Map<string | number, unknown>) {
  const keys = [...entries.keys()];
  if (keys.every((key, i) => key === i)) return JSON.stringify([...entries.values()]);
  const members = [...entries].map(
    ([key, value]) => `${JSON.stringify(String(key))}:${JSON.stringify(value)}`,
  );
  return `{${members.join(",")}}`;
}

type Rule = "int" | "amount" | "alnum" | "strInt" | "string" | "any";

/**
 * The plugin's `Utils::requires` (includes/utils/base-utils.php): each field's checks in its order,
 * the last failing one winning; an empty field is EMPTY ("Field Cannot be empty").
 */
export function requires(fields: Record<string, [value: string, rule: Rule]>) {
  const errors: Record<string, string> = {};
  for (const [key, [raw, rule]] of Object.entries(fields)) {
    const value = phpTrim(raw); // PHP trims ASCII whitespace only: "abc\u00a0" is not alphanumeric
    if (value === "") errors[key] = EMPTY;
    else if (rule === "int") {
      // Only digits pass the second check, and (int) of digits is 0 only when they all are.
      if (/^0+$/.test(value)) errors[key] = `${key} cannot be zero`;
      if (!/^[0-9]+$/.test(value)) errors[key] = `${key} requires an integer`;
    } else if (rule === "amount") {
      if (!phpIsNumeric(value)) errors[key] = `${key} requires a valid amount`;
    } else if (rule === "string") {
      if (!/^[A-Za-z_ ]+$/.test(value)) errors[key] = `${key} requires only alphabets`;
    } else if (rule === "any") {
      // emptiness only
    } else if (rule === "alnum") {
      if (!/^[A-Za-z0-9_]+$/.test(value))
        errors[key] = `${key} can contain aplhpabets, numbers and underscore`;
    } else if (!/[0-9A-Za-z_]/.test(value)) errors[key] = `${key} Invalid Chars`;
  }
  return errors;
}

/**
 * Letters remove_accents maps that Unicode does not decompose into a letter and its marks (strokes,
 * ligatures, ordinals), as WordPress maps them for a site in its default locale.
 */
const UNDECOMPOSED: Record<string, string> = {
  Æ: "AE",
  æ: "ae",
  Ð: "D",
  ð: "d",
  Ø: "O",
  ø: "o",
  Þ: "TH",
  þ: "th",
  ß: "s",
  Đ: "D",
  đ: "d",
  Ħ: "H",
  ħ: "h",
  ı: "i",
  Ĳ: "IJ",
  ĳ: "ij",
  ĸ: "k",
  Ŀ: "L",
  ŀ: "l",
  Ł: "L",
  ł: "l",
  ŉ: "n",
  Ŋ: "N",
  ŋ: "n",
  Œ: "OE",
  œ: "oe",
  Ŧ: "T",
  ŧ: "t",
  ſ: "s",
  ª: "a",
  º: "o",
  ɑ: "a",
  "€": "E",
};

/**
 * WordPress's `remove_accents` for Latin letters: each letter with accents (`é`, `ǖ`, `ệ`, or `e`
 * followed by a combining accent) becomes the letter, and the letters above their ASCII spelling.
 * Other characters are kept.
 */
export function removeAccents(text: string) {
  if (!/[^\p{ASCII}]/u.test(text)) return text;
  let out = "";
  for (const ch of text.normalize("NFD")) {
    if (ch >= "\u0300" && ch <= "\u036f") continue; // a combining accent
    out += UNDECOMPOSED[ch] ?? ch;
  }
  return out;
}

/**
 * Removes PHP's `/&.+?;/` matches (sanitize_user's "kill entities"): from an `&`, through the first
 * `;` at least two characters on, unless a newline comes first. Both look-ups only move forward,
 * so the text is walked once.
 */
function killEntities(text: string) {
  const next = (ch: string, from: number) => {
    const at = text.indexOf(ch, from);
    return at === -1 ? Number.POSITIVE_INFINITY : at;
  };
  let out = "";
  let semi = -1;
  let newline = -1;
  for (let i = 0; i < text.length; i++) {
    if (text[i] === "&") {
      if (semi < i + 2) semi = next(";", i + 2);
      if (newline < i + 1) newline = next("\n", i + 1);
      if (semi !== Number.POSITIVE_INFINITY && newline > semi) {
        i = semi;
        continue;
      }
    }
    out += text[i];
  }
  return out;
}

/**
 * The login `wp_insert_user` stores for a `user_login` the plugin had read with
 * `sanitize_text_field` (whose text this takes: no tags and no `%hh` octets are left in it):
 * WordPress's `sanitize_user($login, true)`, accents removed, `&…;` entities dropped, then every
 * character but ASCII letters, digits, space and `_ . - @`, the ends trimmed and runs of spaces
 * made one. `José` is `Jose`, `o'brien` is `obrien`, `日本` is empty.
 */
export function sanitizeUserStrict(sanitizedText: string) {
  const kept = killEntities(removeAccents(sanitizedText)).replace(/[^A-Za-z0-9 _.@-]/g, "");
  return collapse(phpTrim(kept), true);
}
