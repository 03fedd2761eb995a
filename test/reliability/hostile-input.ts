// fast-check arbitraries for hostile requests, and how a generated request spec becomes an HTTP
// request: hostile values (SQL, HTML, control characters, numeric look-alikes, long strings, wrong
// JSON types, nesting), bodies in every encoding (JSON, duplicate keys, non-objects, broken JSON,
// urlencoded, multipart, broken multipart, wrong content types, over 64 KiB), conflicting
// parameters across body and query, and garbage Authorization headers.
import fc from "fast-check";

/** A parameter as [name, value]; names repeat when a case sends a field twice. */
export type Entry = [string, unknown];

/** How a case's body is sent. */
export type BodySpec =
  | { kind: "json"; contentType: string }
  | { kind: "form" }
  | { kind: "multipart"; blobs: boolean }
  | { kind: "json-nonobject" | "json-invalid"; text: string; contentType: string }
  | { kind: "multipart-broken"; text: string }
  | { kind: "wrong-type"; contentType: string }
  | { kind: "none" }
  | { kind: "oversize"; size: number; form: boolean };

/** A body ready to send: text, bytes or a form (fetch writes its boundary), and its Content-Type. */
export type BuiltBody = {
  text?: string;
  bytes?: Uint8Array<ArrayBuffer>;
  formData?: FormData;
  contentType?: string;
};

/** A JSON literal written as is (numbers JSON.parse cannot keep, deep nesting, raw escapes). */
export class RawJson {
  constructor(readonly text: string) {}
  toJSON() {
    return `<raw ${this.text.length > 60 ? `${this.text.slice(0, 60)}…` : this.text}>`;
  }
}

export const SQL = [
  "' OR '1'='1",
  "1' OR 1=1 --",
  "'; DROP TABLE transactions; --",
  "1; DELETE FROM balances",
  "admin'--",
  '" OR ""="',
  "1 UNION SELECT password_hash FROM users",
  "' UNION SELECT key_hash, 1 FROM api_keys --",
  "%' AND 1=1 AND '%'='",
  "1)) OR ((1=1",
  "`; UPDATE balances SET balance_minor = 1; --",
  "1' AND (SELECT count(*) FROM users) > 0 --",
  "'||(SELECT password_hash FROM users LIMIT 1)||'",
];
export const HTML = [
  "<script>alert(1)</script>",
  "<img src=x onerror=alert(1)>",
  '"><svg onload=alert(1)>',
  "javascript:alert(1)",
  "&lt;b&gt;&amp;&#x27;",
  "<!--",
  "]]>",
  "{{7*7}}",
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a template-injection probe, sent as text
  "${7*7}",
  "<?php echo 1; ?>",
];
export const NUMERIC = [
  " 1",
  "1 ",
  " 1 ",
  "\t1",
  "1\n",
  "1e3",
  "1E3",
  "1e-2",
  "1e400",
  "0x10",
  "0X1F",
  "0b101",
  "0o17",
  "1_000",
  "+1",
  "-1",
  "-0",
  "1.",
  ".5",
  "1,5",
  "1,000.00",
  "١٢٣",
  "１２３",
  "Infinity",
  "-Infinity",
  "NaN",
  "00",
  "0",
  "0.00",
  "000001",
  "1.005",
  "1.000",
  "9".repeat(30),
  "9007199254740993",
  "90071992547409.91",
  "1.0000000000000001",
  "0.1e1",
  "",
  " ",
  "null",
  "true",
  "undefined",
  "[]",
  "{}",
  "1 2",
  "1.2.3",
  "--1",
];
export const CONTROL = [
  "\u0000",
  "a\u0000b",
  "\u0001\u0002\u001f",
  "\r\n",
  "\n",
  "\t",
  "\u001b[31mred",
  "\u2028\u2029",
  "\ufeff",
  "\ud800",
  "\udfff\ud800",
  "e\u0301",
  "\u202eevil",
  "\u200b",
  "😀",
  "👨‍👩‍👧",
  "\uffff",
  "𝟘𝟙",
  "ß",
  "İ",
];

/** Long strings: `maxLong` keeps the ones that travel in URLs within what an HTTP server accepts. */
const longString = (maxLong: number) =>
  fc
    .constantFrom(...[300, 2_000, 20_000].filter((n) => n <= maxLong))
    .chain((n) =>
      fc.constantFrom("a", "é", "😀", "\u0000", "'", "<", "9").map((ch) => ch.repeat(n)),
    );

/** Number-like text. Built once: building an fc.stringMatching costs far more than drawing from it. */
const numericText = fc.stringMatching(
  /^\s?[+-]?(0x[0-9a-f]{1,8}|[0-9]{1,22}(\.[0-9]{0,12})?(e[+-]?[0-9]{1,3})?)\s?$/,
);

export const hostileString = (maxLong = 20_000) =>
  fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...SQL, ...HTML, ...NUMERIC, ...CONTROL) },
    { weight: 2, arbitrary: fc.string({ unit: "binary", maxLength: 30 }) },
    { weight: 1, arbitrary: fc.string({ unit: "grapheme", maxLength: 30 }) },
    { weight: 2, arbitrary: numericText },
    { weight: 1, arbitrary: longString(maxLong) },
  );

export const hostileNumber = fc.oneof(
  fc.integer(),
  fc.integer({ min: -3, max: 3 }),
  fc.double(),
  fc.constantFrom(
    0,
    -0,
    -1,
    0.5,
    1.005,
    0.1 + 0.2,
    1e21,
    1e308,
    -1e308,
    5e-324,
    2 ** 53,
    2 ** 53 + 2,
    Number.MAX_SAFE_INTEGER,
    123456789012345.67,
    1e-7,
  ),
);

const rawLiterals = fc.constantFrom(
  "1e400",
  "-1e400",
  "1E2",
  "-0",
  "0.0000000000000000000001",
  "123456789012345678901234567890",
  "9007199254740993",
  "1.005",
  "100.50",
  '"\\u0000"',
  '"\\ud800"',
  '"\\u202e"',
  "[[[[[[[[[[1]]]]]]]]]]",
);
const deepNesting = fc
  .constantFrom(100, 1_000, 20_000)
  .chain((n) =>
    fc.constantFrom(
      new RawJson("[".repeat(n) + "]".repeat(n)),
      new RawJson(`${'{"a":'.repeat(n)}1${"}".repeat(n)}`),
    ),
  );

const scalar = (maxLong: number) =>
  fc.oneof(hostileString(maxLong), hostileNumber, fc.boolean(), fc.constant(null));

/** Any hostile JSON value: scalars of every type, nested objects and arrays where scalars belong. */
export const hostileValue = (maxLong = 20_000) =>
  fc.oneof(
    { weight: 6, arbitrary: scalar(maxLong) },
    { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
    { weight: 1, arbitrary: fc.array(scalar(300), { maxLength: 3 }) },
    {
      weight: 1,
      arbitrary: fc.dictionary(fc.string({ maxLength: 8 }), scalar(300), { maxKeys: 3 }),
    },
    {
      weight: 1,
      // Objects that look like something else: an array (`length`, indexes), a prototype trick.
      arbitrary: fc.constantFrom(
        {},
        [],
        [[]],
        { $gt: "" },
        { toString: 1 },
        ["1"],
        [1, 2],
        { __proto__: null, admin: true },
        { length: 1 },
        { length: 2, 0: {}, 1: "credit" },
      ),
    },
    { weight: 1, arbitrary: rawLiterals.map((t) => new RawJson(t)) },
    { weight: 1, arbitrary: deepNesting },
  );

/** A field's value: mostly something the route could accept, often something hostile. */
export const fieldValue = (validish: fc.Arbitrary<unknown>, maxLong: number) =>
  fc.oneof({ weight: 3, arbitrary: validish }, { weight: 2, arbitrary: hostileValue(maxLong) });

const EXTRA_KEYS = fc.oneof(
  fc.constantFrom(
    "__proto__",
    "constructor",
    "prototype",
    "toString",
    "hasOwnProperty",
    "status_code",
    "data",
    "rest_route",
    "user_id[]",
    "amount[]",
    "wallet_id[0]",
    "AMOUNT",
    " amount",
    "amount ",
    "request_id\u0000",
  ),
  fc.string({ maxLength: 10 }),
);

/**
 * Parameters as [name, value] entries: each of the route's fields maybe present, extra and oddly
 * named keys, and conflicting duplicates of real fields (later ones win in JSON, forms and queries).
 */
export function paramEntries(
  fields: Record<string, fc.Arbitrary<unknown>>,
  maxLong: number,
): fc.Arbitrary<Entry[]> {
  const names = Object.keys(fields);
  // Each field's arbitrary is built once: building one (its fc.stringMatching above all) costs far
  // more than drawing a value from it, and the duplicates below draw from the same ones.
  const values = Object.fromEntries(names.map((n) => [n, fieldValue(fields[n]!, maxLong)]));
  const record = fc.record(values, { requiredKeys: [] });
  const extras = fc.array(fc.tuple(EXTRA_KEYS, hostileValue(300)), { maxLength: 2 });
  const dupes = names.length
    ? fc.array(
        fc.constantFrom(...names).chain((n) => fc.tuple(fc.constant(n), values[n]!)),
        { maxLength: 2 },
      )
    : fc.constant([]);
  return fc
    .tuple(record, extras, dupes)
    .map(([r, e, d]): Entry[] => [
      ...names.filter((n) => n in r).map((n): Entry => [n, r[n]]),
      ...e,
      ...d,
    ]);
}

// ---------------------------------------------------------------------------------------------
// Bodies.

const JSON_TYPES = [
  "application/json",
  "application/json; charset=utf-8",
  "Application/JSON",
  "application/vnd.api+json",
  "application/json; charset=iso-8859-1",
  "application/json;charset=UTF-16",
];
const WRONG_TYPES = [
  "text/plain",
  "application/xml",
  "text/html",
  "application/octet-stream",
  "image/png",
  "application/x-www-form-urlencoded",
  "multipart/form-data; boundary=xyz",
  "",
];
const INVALID_JSON = [
  "{",
  '{"a":1,}',
  "{'a':1}",
  "\u0000",
  '{"a":1} x',
  "[1,2",
  "nul",
  '{"a":"\u0001"}',
  '"\\x41"',
  "01",
  "NaN",
  '{"a":NaN}',
  '{"a":Infinity}',
  '{"a":1e}',
  '{"__proto__":}',
  '{"a":"\\ud800"',
  "\ufeff\ufeff{}",
  "}{",
];
const NON_OBJECT_JSON = [
  "[]",
  "42",
  '"x"',
  "null",
  "true",
  "[{}]",
  '["user_id", 1]',
  "-0",
  "1e400",
];

const jsonBody = fc.record({
  kind: fc.constant("json"),
  contentType: fc.constantFrom(...JSON_TYPES),
});
const textBody = (kind: "json-nonobject" | "json-invalid", texts: string[]) =>
  fc.record({
    kind: fc.constant(kind),
    text: fc.constantFrom(...texts),
    contentType: fc.constantFrom(...JSON_TYPES),
  });
const oversizeBody = (...sizes: number[]) =>
  fc.record({ kind: fc.constant("oversize"), size: fc.constantFrom(...sizes), form: fc.boolean() });
const noBody = fc.record({ kind: fc.constant("none") });

export const bodyKinds: Record<"post" | "delete" | "get", fc.Arbitrary<BodySpec>> = {
  post: fc.oneof(
    { weight: 7, arbitrary: jsonBody },
    { weight: 2, arbitrary: fc.record({ kind: fc.constant("form") }) },
    { weight: 2, arbitrary: fc.record({ kind: fc.constant("multipart"), blobs: fc.boolean() }) },
    { weight: 1, arbitrary: textBody("json-nonobject", NON_OBJECT_JSON) },
    { weight: 1, arbitrary: textBody("json-invalid", INVALID_JSON) },
    {
      weight: 1,
      arbitrary: fc.record({
        kind: fc.constant("multipart-broken"),
        text: fc.constantFrom("--x\r\nbroken", "garbage", "", "--xyz--"),
      }),
    },
    {
      weight: 1,
      arbitrary: fc.record({
        kind: fc.constant("wrong-type"),
        contentType: fc.constantFrom(...WRONG_TYPES),
      }),
    },
    { weight: 1, arbitrary: noBody },
    { weight: 1, arbitrary: oversizeBody(65_537, 70_000, 200_000) },
  ),
  delete: fc.oneof(
    { weight: 4, arbitrary: noBody },
    { weight: 2, arbitrary: jsonBody },
    { weight: 1, arbitrary: textBody("json-invalid", INVALID_JSON) },
    { weight: 1, arbitrary: oversizeBody(65_537, 200_000) },
  ),
  get: fc.constant({ kind: "none" }),
};

/** A value as form or query text. */
export function asText(value: unknown): string {
  if (value instanceof RawJson) return value.text;
  if (typeof value === "string") return value;
  if (value === null || value === undefined) return "";
  if (typeof value === "object") return JSON.stringify(value);
  return String(value);
}

const asJson = (value: unknown) =>
  value instanceof RawJson ? value.text : (JSON.stringify(value) ?? "null");
/** A JSON object text from entries, keeping duplicate keys (the last wins in JSON.parse). */
export const jsonText = (entries: readonly Entry[]) =>
  `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${asJson(v)}`).join(",")}}`;

const MAX_QUERY_VALUE = 2_000;
const RAW_QUERY = [
  "%zz",
  "%",
  "%00",
  "%E0%A4%A",
  "a=%FF%FE",
  "&&&",
  "=",
  "==",
  "a[b]=1",
  ";user_id=1",
  "user_id",
  "+",
  "%2B1",
];
export const rawQuery = fc.option(fc.constantFrom(...RAW_QUERY), { nil: undefined });

/** Query text from entries (duplicates kept, later ones win), plus a malformed tail. */
export function queryText(entries: readonly Entry[], raw: string | undefined) {
  const params = new URLSearchParams();
  for (const [k, v] of entries) params.append(k, asText(v).slice(0, MAX_QUERY_VALUE));
  let text: string;
  try {
    text = params.toString();
  } catch {
    text = ""; // a lone surrogate cannot be percent-encoded
  }
  return [text, raw].filter(Boolean).join("&");
}

/**
 * The body and Content-Type for a body spec. `forced` entries (for cases that must be refused) go
 * last, so they win whichever source the server reads.
 */
export function buildBody(body: BodySpec, entries: readonly Entry[]): BuiltBody {
  switch (body.kind) {
    case "json":
      return { text: jsonText(entries), contentType: body.contentType };
    case "json-nonobject":
    case "json-invalid":
      return { text: body.text, contentType: body.contentType };
    case "form": {
      const params = new URLSearchParams();
      for (const [k, v] of entries) params.append(k, asText(v));
      let text: string;
      try {
        text = params.toString();
      } catch {
        text = "";
      }
      return { text, contentType: "application/x-www-form-urlencoded" };
    }
    case "multipart": {
      const form = new FormData();
      entries.forEach(([k, v], i) => {
        // Now and then a file where a field belongs.
        if (body.blobs && i % 3 === 0 && typeof v !== "string")
          form.append(k, new Blob([asText(v)], { type: "application/octet-stream" }), "x.bin");
        else form.append(k, asText(v));
      });
      return { formData: form }; // fetch writes the boundary
    }
    case "multipart-broken":
      return { text: body.text, contentType: "multipart/form-data; boundary=x" };
    case "wrong-type":
      return {
        // Copied: Node's and Workers' types disagree on what encode() returns.
        bytes: new Uint8Array(new TextEncoder().encode(jsonText(entries))),
        contentType: body.contentType || undefined,
      };
    case "oversize": {
      const filler = "x".repeat(body.size);
      const text = body.form
        ? `note=${filler}`
        : jsonText([...entries.slice(0, 2), ["note", filler]]);
      return {
        text,
        contentType: body.form ? "application/x-www-form-urlencoded" : "application/json",
      };
    }
    default:
      return {};
  }
}

// ---------------------------------------------------------------------------------------------
// Authorization headers that must not get in.

const b64 = (text: string) => Buffer.from(text).toString("base64");
const headerSafe = (s: string) =>
  // biome-ignore lint/suspicious/noControlCharactersInRegex: removing control characters is the point
  s.replace(/[\u0000-\u0008\u000a-\u001f\u007f]/g, "").replace(/[^\u0000-\u00ff]/g, "?");

export const garbageAuth = fc.oneof(
  fc.constantFrom(
    "Bearer",
    "Bearer ",
    "Basic",
    "Key",
    "Foo bar",
    "Bearer a.b",
    "Bearer a.b.c",
    "Bearer ..",
    "Key %%%not*base64%%%",
    `Basic ${b64(":")}`,
    `Key ${b64("benchadmin:")}`,
    `Key ${b64(":wk_x")}`,
    `Key ${b64("nocolon")}`,
    "Bearer null",
    "Bearer undefined",
    "Negotiate abc",
    'Digest username="a"',
    `Bearer ${"a".repeat(100_000)}`,
    `Key ${"A".repeat(60_000)}`,
    `Basic ${b64(`benchadmin:${"k".repeat(5_000)}`)}`,
    "Bearer eyJhbGciOiJub25lIn0.e30.",
    `Key ${b64(`benchadmin:wk_${"0".repeat(64)}`)}`,
    `Bearer ${b64("' OR 1=1 --:x")}`,
    `Key ${b64("admin'--:' OR '1'='1")}`,
  ),
  fc
    .tuple(
      fc.constantFrom("Bearer ", "Key ", "Basic ", "", "bearer  "),
      fc.string({ unit: "grapheme-ascii", maxLength: 60 }),
    )
    .map(([s, t]) => headerSafe(s + t)),
  fc
    .tuple(fc.constantFrom("Bearer ", "Key ", "Basic "), fc.uint8Array({ maxLength: 64 }))
    .map(([s, bytes]) => s + Buffer.from(bytes).toString("base64")),
  fc
    .string({
      unit: fc.integer({ min: 0x20, max: 0xff }).map((c) => String.fromCharCode(c)),
      maxLength: 80,
    })
    .map(headerSafe),
);
