// Reading what a client sent, strictly and in linear time. Invalid UTF-8 is refused rather than
// decoded to U+FFFD: two request_ids that differ only in invalid bytes would otherwise be one key.
// Every reader walks its input once; none uses a regex that can backtrack.
import { MalformedRequest } from "./errors";

/** Limits on a JSON body's shape, checked before it is parsed (the body itself is at most 64 KiB). */
export const JSON_LIMITS = {
  /** Nested objects and arrays. */
  depth: 32,
  /** Members of one object or array. */
  members: 1000,
  /** Characters of one number literal: longer than any amount the ledger can hold (40). */
  numberChars: 40,
};

/** Why what a client sent cannot be read, as a MalformedRequest says it (keyed by the part). */
export const MALFORMED = {
  notUtf8: (part: string) => `${part} is not valid UTF-8`,
  mediaTypes: "the Content-Type header must name one media type",
  unreadable:
    "the body could not be read whole (the upload broke off, or its chunks are malformed)",
  notForm: "a form is sent as application/x-www-form-urlencoded",
  header: (name: string) => `the ${name} header must be printable ASCII`,
  depth: `JSON nesting is deeper than ${JSON_LIMITS.depth} levels`,
  members: `a JSON object or array has more than ${JSON_LIMITS.members} members`,
  number: `a JSON number is longer than ${JSON_LIMITS.numberChars} characters`,
} as const;

/**
 * A U+FEFF that text starts with is its text, never dropped as a byte order mark, as PHP reads
 * bytes. Dropped, `request_id=%EF%BB%BFk` would be the key `k` (where the same text sent in JSON is
 * refused: it begins with white space), a form's first name would lose the bytes that make it no
 * parameter of `$_POST`, and a JSON body that json_decode refuses would be read.
 */
const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** Bytes as UTF-8 text; invalid bytes are a 400 naming `part`. */
export function decodeUtf8(bytes: ArrayBuffer | Uint8Array, part: string) {
  try {
    return utf8.decode(bytes);
  } catch {
    throw new MalformedRequest(part, MALFORMED.notUtf8(part));
  }
}

const hexValue = (code: number) =>
  code >= 48 && code <= 57
    ? code - 48
    : code >= 65 && code <= 70
      ? code - 55
      : code >= 97 && code <= 102
        ? code - 87
        : -1;

const encoder = new TextEncoder();

/**
 * application/x-www-form-urlencoded percent-decoding (`+` is a space, `%XX` a byte, a `%` not
 * followed by two hex digits stays as it is, as URLSearchParams does), then strict UTF-8.
 */
export function percentDecode(text: string, part: string) {
  if (!text.includes("%")) return text.includes("+") ? text.replaceAll("+", " ") : text;
  const bytes = encoder.encode(text);
  const out = new Uint8Array(bytes.length);
  let n = 0;
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i]!;
    const high = byte === 37 && i + 2 < bytes.length ? hexValue(bytes[i + 1]!) : -1;
    const low = high === -1 ? -1 : hexValue(bytes[i + 2]!);
    if (low !== -1) {
      out[n++] = high * 16 + low;
      i += 2;
    } else {
      out[n++] = byte === 43 ? 32 : byte;
    }
  }
  return decodeUtf8(out.subarray(0, n), part);
}

/** A query pair's value, percent-decoded; "" for a name without `=`. */
export function pairValue(raw: string) {
  const eq = raw.indexOf("=");
  return eq === -1 ? "" : percentDecode(raw.slice(eq + 1), "query");
}

/**
 * `a=1&b=2` (a query string, an urlencoded form) as its decoded name/value pairs, in order; a name
 * without `=` has the value "", and an empty pair (`a=1&&b=2`) is kept with no name, since PHP
 * counts it among a form's pairs (php-vars.ts). Invalid UTF-8 is a 400 naming `part`.
 */
export function urlPairs(text: string, part: string): [name: string, value: string][] {
  const pairs: [string, string][] = [];
  if (text === "") return pairs;
  for (const raw of text.split("&")) {
    const eq = raw.indexOf("=");
    const name = percentDecode(eq === -1 ? raw : raw.slice(0, eq), part);
    pairs.push([name, eq === -1 ? "" : percentDecode(raw.slice(eq + 1), part)]);
  }
  return pairs;
}

/** A URL's query string, without its `?` and fragment ("" when it has none). */
export function queryOf(url: string) {
  const search = url.indexOf("?");
  if (search === -1) return "";
  const hash = url.indexOf("#", search);
  return url.slice(search + 1, hash === -1 ? undefined : hash);
}

/**
 * A Content-Type's media type, lowercased, without parameters. Two types (two Content-Type headers
 * arrive joined by a comma) name no body the service could read: refused, not read as none.
 */
export function mediaType(contentType: string) {
  if (joined(contentType)) throw new MalformedRequest("content-type", MALFORMED.mediaTypes);
  const semicolon = contentType.indexOf(";");
  return (semicolon === -1 ? contentType : contentType.slice(0, semicolon)).trim().toLowerCase();
}

/**
 * Whether a header is not one value: a comma outside a parameter's quoted value (two values,
 * joined), a quote anywhere but around a parameter's value, or a quoted value left open (which
 * would hide a comma).
 */
function joined(header: string) {
  let quoted = false;
  for (let i = 0; i < header.length; i++) {
    const char = header[i];
    if (quoted) {
      if (char === "\\") i++;
      else if (char === '"') quoted = false;
    } else if (char === ",") return true;
    else if (char === '"') {
      if (header[i - 1] !== "=") return true;
      quoted = true;
    }
  }
  return quoted;
}

/**
 * A body that could not be read whole: the upload broke off, or its chunks were malformed. The
 * runtime words it as it words a lost D1 connection ("Network connection lost."), so it is named
 * where the body is read, never left to be taken for the database's fault.
 */
export const unreadableBody = (): never => {
  throw new MalformedRequest("body", MALFORMED.unreadable);
};

/**
 * An HTML form's fields (the console's): an urlencoded body read as strictly as any body, the query
 * string left out. Any other body, text that is not UTF-8 or a Content-Type that is not ASCII
 * throws MalformedRequest.
 */
export async function readForm(request: Request): Promise<Record<string, string>> {
  const type = mediaType(asciiHeader(request.headers, "Content-Type") ?? "");
  if (type !== "application/x-www-form-urlencoded")
    throw new MalformedRequest("body", MALFORMED.notForm);
  // Its own names, not PHP's: the console reads the fields its forms send, the last of each.
  const text = decodeUtf8(await request.arrayBuffer().catch(unreadableBody), "body");
  return Object.fromEntries(urlPairs(text, "body"));
}

/** Printable ASCII and tab: what a header value the service reads may hold. */
export function isPrintableAscii(text: string) {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if ((code < 32 && code !== 9) || code > 126) return false;
  }
  return true;
}

/**
 * A header the service reads as text, which must be printable ASCII (Workers hand header bytes
 * over as Latin-1 characters, so anything else would be read as text the client never meant).
 */
export function asciiHeader(headers: Headers, name: string): string | undefined {
  const value = headers.get(name) ?? undefined;
  if (value !== undefined && !isPrintableAscii(value))
    throw new MalformedRequest(name.toLowerCase(), MALFORMED.header(name));
  return value;
}

const NUMBER_CHARS = new Set("0123456789+-.eE");

/**
 * One pass over JSON text, outside its strings, refusing what would cost more than it should to
 * parse or to read: nesting past JSON_LIMITS.depth, a container of more than JSON_LIMITS.members,
 * a number literal longer than JSON_LIMITS.numberChars. Malformed JSON is left to JSON.parse.
 */
export function checkJsonShape(text: string) {
  const members: number[] = [];
  let i = 0;
  while (i < text.length) {
    const ch = text[i]!;
    if (ch === '"') {
      for (i++; i < text.length && text[i] !== '"'; i++) if (text[i] === "\\") i++;
      i++;
    } else if (ch === "{" || ch === "[") {
      if (members.length === JSON_LIMITS.depth) throw new MalformedRequest("body", MALFORMED.depth);
      members.push(1);
      i++;
    } else if (ch === "}" || ch === "]") {
      members.pop();
      i++;
    } else if (ch === ",") {
      const top = members.length - 1;
      if (top >= 0 && ++members[top]! > JSON_LIMITS.members)
        throw new MalformedRequest("body", MALFORMED.members);
      i++;
    } else if (ch === "-" || (ch >= "0" && ch <= "9")) {
      const start = i;
      while (i < text.length && NUMBER_CHARS.has(text[i]!)) i++;
      if (i - start > JSON_LIMITS.numberChars) throw new MalformedRequest("body", MALFORMED.number);
    } else {
      i++;
    }
  }
}
