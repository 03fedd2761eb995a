// Values as a WordPress site stores them: HTML entities in wallet symbols, PHP-serialized roles,
// password hashes, MySQL dates. No Node APIs (the Worker tests run the planner).
import { checkableHashKind } from "../../src/auth/password";
import { wordPressHashKind } from "../../src/auth/wordpress-hashes";
import { isUnusableHash } from "../../src/db/schema";
import { mysqlDateSeconds } from "../../src/ledger/post-format";
import { asciiLower } from "../../src/ledger/request-key";
import { phpTrim } from "../../src/text";

const NAMED_ENTITIES: Record<string, string> = {
  nbsp: "\u00a0",
  euro: "€",
  pound: "£",
  yen: "¥",
  cent: "¢",
  curren: "¤",
  dollar: "$",
  copy: "©",
  reg: "®",
  trade: "™",
  deg: "°",
  times: "×",
  divide: "÷",
  laquo: "«",
  raquo: "»",
  middot: "·",
  bull: "•",
  hellip: "…",
  ndash: "–",
  mdash: "—",
  lsquo: "‘",
  rsquo: "’",
  ldquo: "“",
  rdquo: "”",
  sect: "§",
  para: "¶",
  micro: "µ",
  fnof: "ƒ",
};

/** A named entity's character; the table's own names only (`&constructor;` is no entity). */
const namedEntity = (name: string) =>
  Object.hasOwn(NAMED_ENTITIES, name) ? NAMED_ENTITIES[name] : undefined;

/** Characters of markup: their entities stay as the site stored them, never live HTML. */
const MARKUP = new Set(["<", ">", "&", '"', "'"]);

/**
 * HTML entities to characters: `&#8358;` → ₦, `&#x20B9;` → ₹, `&euro;` → €. Unknown ones stay, and
 * so do those of markup (`&lt;`, `&#60;`): answers carry the symbol into fields clients may show as
 * HTML.
 */
export function decodeEntities(text: string) {
  return text.replace(
    /&(#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});/g,
    (whole, body: string) => {
      let char: string | undefined;
      if (body[0] === "#") {
        const code =
          body[1] === "x" || body[1] === "X"
            ? parseInt(body.slice(2), 16)
            : parseInt(body.slice(1), 10);
        if (code > 0 && code <= 0x10ffff && !(code >= 0xd800 && code <= 0xdfff))
          char = String.fromCodePoint(code);
      } else char = namedEntity(body) ?? namedEntity(body.toLowerCase());
      return char === undefined || MARKUP.has(char) ? whole : char;
    },
  );
}

/** Role names granted in a PHP-serialized capabilities array: a:1:{s:13:"administrator";b:1;}. */
export function parseRoles(serialized: string | null | undefined) {
  // maybe_unserialize reads the value trimmed: one typed by hand in phpMyAdmin may end in a newline.
  const trimmed = phpTrim(String(serialized ?? ""));
  const bytes = new TextEncoder().encode(trimmed);
  const text = (from: number, to: number) => new TextDecoder().decode(bytes.subarray(from, to));
  let at = 0;
  /** The value at `at` (PHP serialize's b, i, d, s, N and a), moving past it; null if malformed. */
  const value = (depth = 0): { kind: string; text: string; keys?: [string, string][] } | null => {
    const head = /^(?:([bid]):([^;]*);|(N);|s:(\d+):"|a:(\d+):\{)/.exec(text(at, at + 64));
    if (!head) return null;
    at += new TextEncoder().encode(head[0]).length;
    if (head[1])
      return SCALAR[head[1] as "b" | "i" | "d"].test(head[2]!)
        ? { kind: head[1], text: head[2]! }
        : null;
    if (head[3]) return { kind: "N", text: "" };
    if (head[4] !== undefined) {
      const end = at + Number(head[4]);
      if (end + 2 > bytes.length || text(end, end + 2) !== '";') return null;
      const s = text(at, end);
      at = end + 2;
      return { kind: "s", text: s };
    }
    if (depth > 32) return null; // deeper than any capabilities array: read as malformed
    const keys: [string, string][] = [];
    for (let n = Number(head[5]); n > 0; n--) {
      const key = value(depth + 1);
      if (!key || (key.kind !== "s" && key.kind !== "i")) return null;
      const v = value(depth + 1);
      if (!v) return null;
      keys.push([key.kind === "s" ? key.text : "", `${v.kind}:${v.text}`]);
    }
    if (text(at, at + 1) !== "}") return null;
    at += 1;
    return { kind: "a", text: "", keys };
  };
  const caps = value();
  // maybe_unserialize gives false for a malformed value, and leaves one that is_serialized refuses
  // (bytes after it, unless it then ends in ; or }) a string: the user has no role. Bytes after a
  // value it takes, PHP's unserialize ignores.
  if (!caps?.keys || (at !== bytes.length && !/[;}]$/.test(trimmed))) return [];
  return caps.keys.filter(([key, v]) => key !== "" && TRUTHY.has(v)).map(([key]) => key);
}

/** What PHP's unserialize takes after `b:`, `i:` and `d:`; anything else makes the value false. */
const SCALAR = {
  b: /^[01]$/,
  i: /^[+-]?\d+$/,
  d: /^(?:NAN|-?INF|[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)$/,
};

/** The capability values the import has read as granting the role: true, 1 and "1". */
const TRUTHY = new Set(["b:1", "i:1", "s:1"]);

/**
 * Which password hash this is: a WordPress kind sign-in accepts (src/auth/wordpress-hashes.ts, with
 * its work factor bounds), a `pbkdf2_sha256$…` sign-in can check (src/auth/password.ts), this
 * service's own or Django's, one marked unusable (src/db/schema.ts), or one no sign-in takes, such
 * as a Django `pbkdf2_sha256$260000$…`.
 */
export function passwordHashKind(hash: string) {
  if (isUnusableHash(hash)) return "unusable";
  return wordPressHashKind(hash) ?? checkableHashKind(hash) ?? "unknown";
}

/**
 * A username as sign-in and the unique index compare it: trimmed, A–Z folded as SQLite's lower()
 * folds (`Ωmega` and `ωmega` are two accounts here): two equal so are one login.
 */
export const loginKey = (username: string) => asciiLower(username.trim());

/** An e-mail as sign-in and the unique index compare it: A–Z folded, as SQLite's lower(). */
export const emailKey = (email: string) => asciiLower(email);

const ZERO_DATE = "0000-00-00 00:00:00";

/**
 * Epoch seconds of a MySQL DATETIME read as UTC; null for the zero date or anything else, a date of
 * no instant too: Date rolls 2022-02-30 (which MySQL's ALLOW_INVALID_DATES stores) into March.
 */
export function utcSeconds(text: string | null | undefined) {
  if (text == null || text === ZERO_DATE || text.startsWith("0000")) return null;
  const epochS = mysqlDateSeconds(text);
  if (!Number.isFinite(epochS)) return null;
  const d = new Date(epochS * 1000);
  const read = [
    d.getUTCMonth() + 1,
    d.getUTCDate(),
    d.getUTCHours(),
    d.getUTCMinutes(),
    d.getUTCSeconds(),
  ];
  return read.every((n, i) => n === Number(text.slice(5 + 3 * i, 7 + 3 * i))) ? epochS : null;
}
