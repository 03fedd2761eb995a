// Values as a WordPress site stores them: HTML entities in wallet symbols, PHP-serialized roles,
// password hashes, MySQL dates. No Node APIs (the Worker tests run the planner).
import { checkableHashKind } from "../../src/auth/password";
import { wordPressHashKind } from "../../src/auth/wordpress-hashes";
import { mysqlDateSeconds } from "../../src/ledger/post-format";

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
  const roles: string[] = [];
  const re = /s:\d+:"((?:[^"\\]|\\.)*)";(?:b:1|i:1|s:1:"1")/g;
  for (let m: RegExpExecArray | null; (m = re.exec(String(serialized ?? ""))); ) roles.push(m[1]!);
  return roles;
}

/**
 * Which password hash this is: a WordPress kind sign-in accepts (src/auth/wordpress-hashes.ts, with
 * its work factor bounds), a `pbkdf2_sha256$…` sign-in can check (src/auth/password.ts), this
 * service's own or Django's, or one no sign-in takes, such as a Django `pbkdf2_sha256$260000$…`.
 */
export function passwordHashKind(hash: string) {
  return wordPressHashKind(hash) ?? checkableHashKind(hash) ?? "unknown";
}

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
