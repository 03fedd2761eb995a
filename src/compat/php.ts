// The few PHP and WordPress functions whose exact behaviour the plugin's answers show: clients see
// their results echoed back (`submitted`), stored (a note, a username) and as odd error keys
// (`{"":"wallet_id is required"}`). Each is PHP 8's or WordPress's own, checked against them on PHP
// 8.2 and WordPress 6.1. Every reader walks its text once, without a regex that can backtrack (as
// src/ledger/money.ts).

import { removeAccents } from "../accents";
import { EMPTY, integerText } from "../http/fields";
import { C_SPACE, phpTrim, trimOf } from "../text";
import { asciiLower, numberText, phpIsNumeric, phpLeadingNumeric } from "../wallet/rules";

/** `text` with each of C's white space characters (a tab, a form feed...) made a space. */
export const cSpaceAsSpace = (text: string) =>
  [...text].map((ch) => (C_SPACE.includes(ch) ? " " : ch)).join("");

/**
 * PHP's strip_tags() (php_strip_tags_ex, no tags allowed): a tag from `<` to its `>` (one inside
 * quotes, or a nested `<…>`, does not end it), `<?…?>`, `<!…>` and `<!--…-->` go, and so do NUL
 * bytes; a `<` before white space is text. Unclosed, the rest of the text goes.
 */
function stripTags(text: string) {
  let out = "";
  let state: "text" | "tag" | "php" | "bang" | "comment" = "text";
  let quote = ""; // the quote a tag is inside
  let last = ""; // the last quote, bracket or tag mark seen (`lc`)
  let depth = 0; // `<` inside a tag, each waiting for its own `>`
  let brackets = 0;
  let xml = false;
  const at = (i: number) => text[i] ?? "";
  for (let p = 0; p < text.length; p++) {
    const c = text[p]!;
    if (state === "comment") {
      if (c === ">" && !quote && at(p - 1) === "-" && at(p - 2) === "-") state = "text";
      continue;
    }
    if (c === "\0") continue;
    const tagOpen = c === "<" && !(p + 1 < text.length && C_SPACE.includes(at(p + 1)));
    if (state === "text") {
      if (tagOpen) [state, last] = ["tag", "<"];
      else if (c === ">" && depth > 0)
        depth--; // a `<` a comment left open inside a tag
      else out += c;
    } else if (c === ">" && (depth > 0 || quote)) {
      if (depth > 0) depth--;
    } else if (state === "tag") {
      if (c === ">") {
        last = ">";
        if (!(xml && at(p - 1) === "-")) [state, xml] = ["text", false];
      } else if (tagOpen && !quote) depth++;
      else if ((c === '"' || c === "'") && p > 0 && (!quote || c === quote)) quote = quote ? "" : c;
      else if (c === "!" && at(p - 1) === "<") [state, last] = ["bang", "!"];
      else if (c === "?" && at(p - 1) === "<") [state, brackets] = ["php", 0];
    } else if (state === "php") {
      if ((c === "(" || c === ")") && last !== '"' && last !== "'") {
        last = c;
        brackets += c === "(" ? 1 : -1;
      } else if (c === ">") {
        if (!brackets && last !== '"' && at(p - 1) === "?") state = "text";
      } else if ((c === '"' || c === "'") && p > 0 && at(p - 1) !== "\\") {
        if (last === c) last = "";
        else if (last !== "\\") last = c;
        if (!quote || c === quote) quote = quote ? "" : c;
      } else if ((c === "l" || c === "L") && p > 4 && asciiLower(text.slice(p - 4, p)) === "<?xm")
        [state, xml] = ["tag", true];
    } else if (c === ">") state = "text";
    else if ((c === '"' || c === "'") && p > 0 && at(p - 1) !== "\\" && (!quote || c === quote))
      quote = quote ? "" : c;
    else if (c === "-" && p >= 2 && at(p - 1) === "-" && at(p - 2) === "!") state = "comment";
    else if ((c === "e" || c === "E") && p > 6 && asciiLower(text.slice(p - 6, p)) === "doctyp")
      state = "tag";
  }
  return out;
}

/** Named references WordPress's esc_html keeps as they are: HTML 4.01's, which PHP knows. */
const HTML401_NAMES = new Set(
  "nbsp iexcl cent pound curren yen brvbar sect uml copy ordf laquo not shy reg macr deg plusmn acute micro para middot cedil ordm raquo iquest Agrave Aacute Acirc Atilde Auml Aring AElig Ccedil Egrave Eacute Ecirc Euml Igrave Iacute Icirc Iuml ETH Ntilde Ograve Oacute Ocirc Otilde Ouml times Oslash Ugrave Uacute Ucirc Uuml Yacute THORN szlig agrave aacute acirc atilde auml aring aelig ccedil egrave eacute ecirc euml igrave iacute icirc iuml eth ntilde ograve oacute ocirc otilde ouml divide oslash ugrave uacute ucirc uuml yacute thorn yuml quot amp lt gt OElig oelig Scaron scaron Yuml circ tilde ensp emsp thinsp zwnj zwj lrm rlm ndash mdash lsquo rsquo sbquo ldquo rdquo bdquo dagger Dagger permil lsaquo rsaquo euro fnof Alpha Beta Gamma Delta Epsilon Zeta Eta Theta Iota Kappa Lambda Mu Nu Xi Omicron Pi Rho Sigma Tau Upsilon Phi Chi Psi Omega alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho sigmaf sigma tau upsilon phi chi psi omega thetasym upsih piv bull hellip prime Prime oline frasl weierp image real trade alefsym larr uarr rarr darr harr crarr lArr uArr rArr dArr hArr forall part exist empty nabla isin notin ni prod sum minus lowast radic prop infin ang and or cap cup int sim cong asymp ne equiv le ge sub sup nsub sube supe oplus otimes perp sdot lceil rceil lfloor rfloor lang rang loz spades clubs hearts diams sup1 sup2 sup3 frac14 frac12 frac34 there4".split(
    " ",
  ),
);

/** WordPress's valid_unicode(): a code point a numeric reference may name. */
const validCodePoint = (n: number) =>
  n === 9 ||
  n === 10 ||
  n === 13 ||
  (n >= 0x20 && n <= 0xd7ff) ||
  (n >= 0xe000 && n <= 0xfffd) ||
  (n >= 0x10000 && n <= 0x10ffff);

const ENTITY = /(?:([A-Za-z]{2,8}[0-9]{0,2})|#(0*[0-9]{1,7})|#[Xx](0*[0-9A-Fa-f]{1,6}));/y;

/**
 * The `&` at `at` as WordPress's esc_html writes it (wp_kses_normalize_entities, then htmlspecialchars
 * without double encoding): a reference it knows stays (`&#65;` as `&#065;`, `&#X41;` as `&#x41;`),
 * `&#0;` and `&#x0;` vanish (PHP's empty("0")), any other `&` is `&amp;`. Returns the text written
 * and where the reference ended.
 */
function escapeAmpersand(text: string, at: number): [string, number] {
  ENTITY.lastIndex = at + 1;
  const [whole, name, decimal, hex] = ENTITY.exec(text) ?? [];
  const end = at + 1 + (whole?.length ?? 0);
  if (name !== undefined) return [HTML401_NAMES.has(name) ? `&${name};` : `&amp;${name};`, end];
  const digits = decimal ?? hex;
  if (digits === undefined) return ["&amp;", end];
  if (digits === "0") return ["", end];
  const kept = digits.replace(/^0+/, "");
  if (!validCodePoint(Number.parseInt(digits, decimal !== undefined ? 10 : 16)))
    return [`&amp;#${decimal ?? `x${hex}`};`, end];
  return [decimal !== undefined ? `&#${kept.padStart(3, "0")};` : `&#x${kept};`, end];
}

const ESCAPED: Record<string, string> = { "<": "&lt;", '"': "&quot;", "'": "&#039;" };

/**
 * WordPress's wp_pre_kses_less_than(): a `<` that no `>` closes before the next `<` is esc_html'd
 * with the text after it, up to that `<` (`a < b & c` is `a &lt; b &amp; c`); a tag is left to
 * strip_tags.
 */
function escapeLoneLessThans(text: string) {
  let out = "";
  let i = 0;
  for (let lt = text.indexOf("<"); lt !== -1; lt = text.indexOf("<", i)) {
    let end = lt + 1;
    while (end < text.length && text[end] !== "<" && text[end] !== ">") end++;
    out += text.slice(i, lt);
    i = text[end] === ">" ? end + 1 : end;
    if (text[end] === ">") {
      out += text.slice(lt, i);
      continue;
    }
    for (let k = lt; k < end; ) {
      const ch = text[k]!;
      if (ch === "&") {
        const [written, after] = escapeAmpersand(text, k);
        out += written;
        k = after;
      } else {
        out += ESCAPED[ch] ?? ch;
        k++;
      }
    }
  }
  return out + text.slice(i);
}

/**
 * WordPress's wp_strip_all_tags(): `<script>` and `<style>` elements go with what they hold
 * (`@<(script|style)[^>]*?>.*?</\1>@si`, found here without backtracking), then strip_tags, trim.
 */
function wpStripAllTags(text: string) {
  if (!text.includes("<")) return phpTrim(stripTags(text));
  const lower = asciiLower(text);
  const next = { script: -1, style: -1 };
  let out = "";
  let from = 0;
  for (let at = 0; ; ) {
    for (const name of ["script", "style"] as const)
      if (next[name] !== Number.POSITIVE_INFINITY && next[name] < at) {
        const found = lower.indexOf(`<${name}`, at);
        next[name] = found === -1 ? Number.POSITIVE_INFINITY : found;
      }
    const name = next.script <= next.style ? "script" : "style";
    const start = next[name];
    if (start === Number.POSITIVE_INFINITY) break;
    const open = text.indexOf(">", start + name.length + 1);
    if (open === -1) break; // no `>` after it: none after a later one either
    const close = lower.indexOf(`</${name}>`, open + 1);
    if (close === -1) {
      next[name] = Number.POSITIVE_INFINITY; // none closes after a later one either
      continue;
    }
    out += text.slice(from, start);
    from = at = close + name.length + 3;
  }
  return phpTrim(stripTags(out + text.slice(from)));
}

const HEX_PAIR = /^[0-9A-Fa-f]{2}$/;

/** Removes `%hh` octets, including those that removing others forms (`%%4141` → ``). */
function stripOctets(text: string) {
  const out: string[] = [];
  let found = false;
  for (const ch of text) {
    out.push(ch);
    const n = out.length;
    if (n >= 3 && out[n - 3] === "%" && HEX_PAIR.test(out[n - 2]! + out[n - 1]!)) {
      out.length = n - 3;
      found = true;
    }
  }
  return { text: out.join(""), found };
}

/**
 * PHP's text of a number json_decode read: an integer within PHP_INT_MAX its digits, else a float's.
 * ±2^63 is a float's: PHP_INT_MIN's own digits arrive as text (http/params.ts).
 */
function phpNumberText(n: number) {
  // -0 is only ever a float's (http/params.ts reads the integer `-0` as 0): "-0".
  if (Object.is(n, -0)) return "-0";
  return Number.isInteger(n) && Math.abs(n) < 2 ** 63 ? String(n) : phpFloatText(n);
}

/**
 * PHP's text of a float (`(string)` at precision 14): 14 significant digits of the double's exact
 * value, rounded half to even, `0.3`, `1.0E+20`, `1.0E-5`, `INF`.
 */
function phpFloatText(x: number): string {
  if (Number.isNaN(x)) return "NAN";
  if (!Number.isFinite(x)) return x > 0 ? "INF" : "-INF";
  if (x === 0) return Object.is(x, -0) ? "-0" : "0";
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, Math.abs(x));
  const bits = view.getBigUint64(0);
  const biased = Number(bits >> 52n);
  const fraction = bits & ((1n << 52n) - 1n);
  const mantissa = biased === 0 ? fraction : fraction | (1n << 52n);
  const power = (biased === 0 ? 1 : biased) - 1075; // |x| = mantissa × 2^power, exactly
  const scale = Math.max(0, -power); // |x| = digits × 10^-scale
  let digits = (
    power >= 0 ? mantissa << BigInt(power) : mantissa * 5n ** BigInt(-power)
  ).toString();
  let exponent = digits.length - 1 - scale;
  if (digits.length > 14) {
    const [kept, rest] = [digits.slice(0, 14), digits.slice(14)];
    const half = `5${"0".repeat(rest.length - 1)}`;
    const up = rest > half || (rest === half && Number(kept[13]) % 2 === 1);
    digits = up ? (BigInt(kept) + 1n).toString() : kept;
    if (digits.length > 14) exponent++;
  }
  digits = digits.replace(/0+$/, "") || "0";
  const sign = x < 0 ? "-" : "";
  if (exponent < -4 || exponent >= 14)
    return `${sign}${digits[0]}.${digits.slice(1) || "0"}E${exponent < 0 ? "-" : "+"}${Math.abs(exponent)}`;
  if (exponent < 0) return `${sign}0.${"0".repeat(-exponent - 1)}${digits}`;
  const whole = digits.slice(0, exponent + 1).padEnd(exponent + 1, "0");
  const rest = digits.slice(exponent + 1);
  return sign + whole + (rest ? `.${rest}` : "");
}

/**
 * WordPress's `sanitize_text_field`, which the plugin ran on every parameter: arrays and objects
 * become "", a lone `<` is escaped and tags stripped (wp_pre_kses_less_than, wp_strip_all_tags),
 * `\r\n\t ` runs become one space, the ends are trimmed and percent-encoded octets removed. A JSON
 * number is PHP's text of it (`1e20` is `1.0E+20`).
 */
export function sanitizeTextField(value: unknown): string {
  const text = sanitizeKeepingOctets(value);
  const octets = stripOctets(text);
  return octets.found ? phpTrim(octets.text.replace(/ +/g, " ")) : octets.text;
}

function sanitizeKeepingOctets(value: unknown) {
  if (value === undefined || value === null || value === false || typeof value === "object")
    return "";
  let text =
    typeof value === "number" ? phpNumberText(value) : value === true ? "1" : String(value);
  if (text.includes("<"))
    text = wpStripAllTags(escapeLoneLessThans(text)).replaceAll("<\n", "&lt;\n");
  return phpTrim(text.replace(/[\r\n\t ]+/g, " "));
}

/**
 * An amount field: sanitize_text_field but for its last step, which removed `%hh` octets and so
 * made the text `"1%2e5"` (sent in JSON, in a multipart field, or percent-encoded twice) the number
 * 15. A form body or query string has already been percent-decoded once (`amount=1%2e5` is 1.5);
 * an octet still in the text is kept, and the amount is not numeric. A JSON number is read as
 * wallet/v1 reads it (numberText): `0.0000001` is that text, not JavaScript's `1e-7`; one past what
 * a double holds is PHP's `INF`, not numeric.
 */
export const sanitizeAmountField = (value: unknown) =>
  sanitizeKeepingOctets(
    typeof value === "number" && !Object.is(value, -0)
      ? (numberText(value) ?? phpNumberText(value))
      : value,
  );

/** A raw parameter as PHP's string conversion reads it (`true` is "1", `false` empty; arrays: nothing). */
export function phpText(value: unknown) {
  if (typeof value === "string") return value;
  if (typeof value === "number") return String(value);
  if (typeof value === "boolean") return value ? "1" : "";
  return "";
}

/** PHP's `empty()` of a string: "" and "0". */
export const phpEmpty = (text: string) => text === "" || text === "0";

/**
 * `(int)` of a numeric string, or null when the string is not numeric or the integer is past what a
 * double holds exactly (no user has such an id). `"2.9"` → 2, `"1e1"` → 10, `"-2"` → -2, and
 * zeros count for nothing however many, leading (`"000…01"` → 1) or after the point (`"2.000…0"`
 * → 2), whatever the text's length, as PHP reads them.
 */
export function phpInt(text: string): number | null {
  if (!phpIsNumeric(text)) return null;
  // Number() skips the white space is_numeric allows around a number.
  const n = Math.trunc(Number(text));
  return Number.isSafeInteger(n) ? n : null;
}

/** The furthest page the dialect's lists read, so that an offset stays a small integer. */
const LAST_PAGE = 1_000_000;

/**
 * A list's page number: a numeric text's integer part, at least 1 (zero, a negative number and any
 * other text are the first page) and at most LAST_PAGE. A larger one, however large (past a
 * double's exact integers too: `1e308`), is LAST_PAGE, so a page past the end stays past it.
 */
export function phpPage(text: string) {
  const n = phpInt(text);
  if (n !== null) return Math.min(Math.max(n, 1), LAST_PAGE);
  return phpIsNumeric(text) && !trimOf(text, C_SPACE).startsWith("-") ? LAST_PAGE : 1;
}

/** The integer part of the number a text starts with (0 for none); ±Infinity past a double's range. */
const leadingInteger = (text: string) => Math.trunc(Number(phpLeadingNumeric(text) || "0"));

/**
 * PHP 8's `(int)` of a string, which WordPress's absint() and WP_Query's `(int)` applied: the integer
 * part of the number the text starts with (`12abc` is 12, `1e2x` 100, `-3.9` -3), 0 when it starts
 * with none (`abc`, `0x1A`, `- 5`) and when it is past a double's range (`1e400`: PHP's (int) of INF).
 * PHP held another larger one at PHP_INT_MAX; here past a double's exact integers it is ±Infinity,
 * which every reader bounds.
 */
export function phpIntCast(text: string) {
  const n = leadingInteger(text);
  if (!Number.isFinite(n)) return 0;
  return Number.isSafeInteger(n) ? n : n < 0 ? -Infinity : Infinity;
}

/**
 * The plugin's own `page` (GET users), read by PHP 8's arithmetic (`10 * ($page - 1)`): the integer
 * part of the number the text starts with (`2abc` is page 2; `1e400`, INF there, past the end),
 * page 1 below 1; at most LAST_PAGE.
 */
export const pluginPage = (text: string) => Math.min(Math.max(leadingInteger(text), 1), LAST_PAGE);

/**
 * WP_Query's `paged`, which it read through absint(): the absolute value of the text's `(int)`
 * (`-2` and `2abc` are page 2), and page 1 for 0; at most LAST_PAGE.
 */
export const wpPaged = (text: string) =>
  Math.min(Math.max(Math.abs(phpIntCast(text)), 1), LAST_PAGE);

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

/** The texts `requires` answers a field `key` with, by what it found (EMPTY apart). */
export const REQUIRES_TEXT = {
  zero: (key: string) => `${key} cannot be zero`,
  integer: integerText,
  amount: (key: string) => `${key} requires a valid amount`,
  alphabets: (key: string) => `${key} requires only alphabets`,
  alnum: (key: string) => `${key} can contain aplhpabets, numbers and underscore`,
  chars: (key: string) => `${key} Invalid Chars`,
} as const;

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
      if (/^0+$/.test(value)) errors[key] = REQUIRES_TEXT.zero(key);
      if (!/^[0-9]+$/.test(value)) errors[key] = REQUIRES_TEXT.integer(key);
    } else if (rule === "amount") {
      if (!phpIsNumeric(value)) errors[key] = REQUIRES_TEXT.amount(key);
    } else if (rule === "string") {
      if (!/^[A-Za-z_ ]+$/.test(value)) errors[key] = REQUIRES_TEXT.alphabets(key);
    } else if (rule === "any") {
      // emptiness only
    } else if (rule === "alnum") {
      if (!/^[A-Za-z0-9_]+$/.test(value)) errors[key] = REQUIRES_TEXT.alnum(key);
    } else if (!/[0-9A-Za-z_]/.test(value)) errors[key] = REQUIRES_TEXT.chars(key);
  }
  return errors;
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
 * WordPress's `sanitize_user($login, true)`, the login `wp_insert_user` stores: tags stripped
 * (wp_strip_all_tags: `a<b` is `a`), accents removed, `%hh` octets and `&…;` entities dropped, then
 * every character but ASCII letters, digits, space and `_ . - @`, the ends trimmed and runs of
 * spaces made one. `José` is `Jose`, `o'brien` is `obrien`, `日本` is empty.
 */
export function sanitizeUser(login: string) {
  const plain = removeAccents(wpStripAllTags(login)).replace(/%[0-9A-Fa-f]{2}/g, "");
  return phpTrim(killEntities(plain).replace(/[^A-Za-z0-9 _.@-]/g, "")).replace(/ +/g, " ");
}
