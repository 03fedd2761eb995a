import fc from "fast-check";
import { afterEach, describe, expect, it, vi } from "vitest";
import { JSON_LIMITS } from "../src/http/decode";
import { UNREADABLE_MULTIPART } from "../src/http/params";
import { plainDecimal } from "../src/ledger/money";
import {
  CLEAN,
  call,
  credit,
  FORBIDDEN,
  INVALID_JSON,
  ledgerViolations,
  makeAccount,
  makeKey,
  makeUser,
  tableCounts,
  unique,
} from "./helpers";

const utf8 = new TextEncoder();
/** A JSON credit body with `raw` bytes spliced in where the request_id's text goes. */
const creditBytes = (fields: { user: number; wallet: string }, raw: number[]) => {
  const [head, tail] = [
    `{"user_id":${fields.user},"wallet_id":"${fields.wallet}","amount":5,"request_id":"req`,
    `"}`,
  ];
  return new Uint8Array([...utf8.encode(head), ...raw, ...utf8.encode(tail)]);
};

const A = (part: string, text: string) => ({
  status_code: 400,
  status: false,
  message: "invalid input",
  error: { [part]: text },
});
const B = (part: string, text: string) => ({
  status_code: 400,
  status: "failed",
  message: "Validation error",
  data: [],
  error: [{ [part]: [text] }],
});
const NOT_UTF8 = (part: string) => `${part} is not valid UTF-8`;
const LONG_NUMBER = `a JSON number is longer than ${JSON_LIMITS.numberChars} characters`;

describe("bodies are read in linear time, within limits", () => {
  it("POST /users/login with a 64,000-digit number answers 400 naming the limit, before any parsing", async () => {
    const body = `{"user_email":"a@b.c","user_password":1.${"0".repeat(64_000)}}`;
    const res = await call("POST", "/users/login", {
      body,
      headers: { "Content-Type": "application/json" },
    });
    expect(res.body).toStrictEqual(B("body", LONG_NUMBER));
  });

  it("a number literal of exactly the limit is read; one character more is refused", async () => {
    const { admin, user, wallet } = await makeAccount();
    const at = `1${"0".repeat(JSON_LIMITS.numberChars - 4)}.00`; // 40 characters, too large an amount
    const over = `${at}0`;
    const rid = unique("r");
    const read = await call("POST", "/credits", {
      auth: admin.bearer,
      body: `{"user_id":${user.id},"wallet_id":"${wallet}","request_id":"${rid}","amount":${at}}`,
      headers: { "Content-Type": "application/json" },
    });
    expect(read.body).toStrictEqual(A("amount", "amount is too large"));
    const refused = await call("POST", "/credits", {
      auth: admin.bearer,
      body: `{"user_id":${user.id},"wallet_id":"${wallet}","request_id":"${rid}","amount":${over}}`,
      headers: { "Content-Type": "application/json" },
    });
    expect(refused.body).toStrictEqual(A("body", LONG_NUMBER));
  });

  it("a body of 900 numbers 1e-399 is read as exact decimals and answered normally", async () => {
    const { admin, user, wallet } = await makeAccount();
    const noise = Array.from({ length: 900 }, (_, i) => `"n${i}":1e-399`).join(",");
    const body = `{${noise},"user_id":${user.id},"wallet_id":"${wallet}","request_id":"${unique("r")}","amount":1e-399}`;
    const res = await call("POST", "/credits", {
      auth: admin.bearer,
      body,
      headers: { "Content-Type": "application/json" },
    });
    // 1e-399 is 0.000…1, 401 characters as a decimal: past the amount's length rule.
    expect(res.body.error).toStrictEqual({ amount: "amount must be at most 40 characters" });
  });

  it(`nesting deeper than ${JSON_LIMITS.depth} levels answers 400 and writes nothing`, async () => {
    const { admin, user, wallet } = await makeAccount();
    const nest = (levels: number) => "[".repeat(levels) + "]".repeat(levels);
    const before = await tableCounts();
    const ok = await credit(admin, {
      user_id: user.id,
      wallet_id: wallet,
      amount: 1,
      note: JSON.parse(nest(JSON_LIMITS.depth - 1)),
    });
    expect(ok.body.error).toStrictEqual({ note: "note must be text" });
    const body = `{"user_id":${user.id},"wallet_id":"${wallet}","request_id":"r","amount":1,"note":${nest(JSON_LIMITS.depth)}}`;
    const deep = await call("POST", "/credits", {
      auth: admin.bearer,
      body,
      headers: { "Content-Type": "application/json" },
    });
    expect(deep.body).toStrictEqual(
      A("body", `JSON nesting is deeper than ${JSON_LIMITS.depth} levels`),
    );
    expect(await tableCounts()).toEqual(before);
  });

  it(`an array of more than ${JSON_LIMITS.members} members answers 400`, async () => {
    const { admin } = await makeAccount();
    const items = (n: number) => `[${Array(n).fill("1").join(",")}]`;
    const at = await call("POST", "/wallets", {
      auth: admin.bearer,
      body: `{"wallet_id":${items(JSON_LIMITS.members)}}`,
      headers: { "Content-Type": "application/json" },
    });
    expect(at.body.error).not.toHaveProperty("body");
    const over = await call("POST", "/wallets", {
      auth: admin.bearer,
      body: `{"wallet_id":${items(JSON_LIMITS.members + 1)}}`,
      headers: { "Content-Type": "application/json" },
    });
    expect(over.body).toStrictEqual(
      A("body", `a JSON object or array has more than ${JSON_LIMITS.members} members`),
    );
  });

  it("digits inside strings count toward no number: a 10,000-digit request_id string is judged by its own length rule", async () => {
    const { admin, user, wallet } = await makeAccount();
    const res = await credit(admin, {
      user_id: user.id,
      wallet_id: wallet,
      amount: 1,
      request_id: "9".repeat(10_000),
    });
    expect(res.body.error).toStrictEqual({
      request_id: "request_id must be at most 191 characters",
    });
  });
});

describe("plainDecimal (no regex: one pass over the literal)", () => {
  // A reference built on BigInt: the literal's value as digits and a power of ten.
  const reference = (sign: string, int: string, frac: string, exp: number) => {
    const scale = frac.length - exp;
    const digits = BigInt(int + frac).toString();
    if (digits === "0") return `${sign}0`;
    if (scale <= 0) return sign + digits + "0".repeat(-scale);
    const padded = digits.padStart(scale + 1, "0");
    const fraction = padded.slice(-scale).replace(/0+$/, "");
    return sign + padded.slice(0, -scale) + (fraction ? `.${fraction}` : "");
  };

  it("writes every JSON number literal as the exact decimal it denotes", () => {
    const digits = (min: number, max: number) =>
      fc.string({ unit: fc.constantFrom(..."0123456789"), minLength: min, maxLength: max });
    fc.assert(
      fc.property(
        fc.constantFrom("", "-"),
        digits(1, 12),
        digits(0, 12),
        fc.integer({ min: -30, max: 30 }),
        fc.constantFrom("e", "E"),
        (sign, int, frac, exp, e) => {
          const literal = `${sign}${int}${frac ? `.${frac}` : ""}${exp === 0 ? "" : `${e}${exp}`}`;
          expect(plainDecimal(literal)).toBe(reference(sign, int, frac, exp));
        },
      ),
      { numRuns: 2000 },
    );
  });

  it("refuses what is not a number and exponents past ±400", () => {
    for (const bad of [
      "",
      "-",
      "1.",
      ".5",
      "1e",
      "1e+",
      "1.2.3",
      "1e401",
      "1e-401",
      "0x10",
      "1_000",
      "１２",
    ])
      expect(plainDecimal(bad), bad).toBeNull();
    expect(plainDecimal("1e-400")).toBe(`0.${"0".repeat(399)}1`);
  });

  it("reads an exponent written with leading zeros as its value, however many", () => {
    expect(plainDecimal("1e0000001")).toBe("10");
    expect(plainDecimal("1E-0000001")).toBe("0.1");
    expect(plainDecimal(`25e+${"0".repeat(50)}2`)).toBe("2500");
    expect(plainDecimal("7e0000000")).toBe("7");
    expect(plainDecimal(`1e${"0".repeat(50)}401`)).toBeNull();
  });
});

describe("bytes that are not UTF-8 are refused, never decoded to U+FFFD", () => {
  it("a JSON credit whose request_id holds a raw 0xFF does not parse (400) and writes nothing, so no later credit is taken for its duplicate", async () => {
    const { admin, user, wallet } = await makeAccount();
    const before = await tableCounts();
    for (const raw of [[0xff], [0xfe], [0xc3], [0xed, 0xa0, 0x80]]) {
      const res = await call("POST", "/credits", {
        auth: admin.bearer,
        body: creditBytes({ user: user.id, wallet }, raw),
        headers: { "Content-Type": "application/json" },
      });
      expect([res.status, res.body]).toStrictEqual([400, INVALID_JSON]);
    }
    expect(await tableCounts()).toEqual(before);
    const valid = await call("POST", "/credits", {
      auth: admin.bearer,
      body: creditBytes({ user: user.id, wallet }, [...utf8.encode("\ufffd")]),
      headers: { "Content-Type": "application/json" },
    });
    expect(valid.status, valid.text).toBe(200);
  });

  it("a lone surrogate escape in a JSON string does not parse (400)", async () => {
    const { admin, user, wallet } = await makeAccount();
    const body = `{"user_id":${user.id},"wallet_id":"${wallet}","amount":5,"request_id":"req\\ud800"}`;
    const res = await call("POST", "/credits", {
      auth: admin.bearer,
      body,
      headers: { "Content-Type": "application/json" },
    });
    expect([res.status, res.body]).toStrictEqual([400, INVALID_JSON]);
  });

  it("invalid percent-encoded UTF-8 in a form body or the query string answers 400 in the route's envelope", async () => {
    const { admin, user, wallet } = await makeAccount();
    const before = await tableCounts();
    const form = await call("POST", "/credits", {
      auth: admin.bearer,
      body: `user_id=${user.id}&wallet_id=${wallet}&amount=5&request_id=req%FF`,
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
    });
    expect(form.body).toStrictEqual(A("body", NOT_UTF8("body")));
    const query = await call(
      "POST",
      `/credits?user_id=${user.id}&wallet_id=${wallet}&amount=5&request_id=req%C0%AF`,
      { auth: admin.bearer },
    );
    expect(query.body).toStrictEqual(A("query", NOT_UTF8("query")));
    const plain = await call(
      "GET",
      `/?rest_route=/wallet/v1/user-wallet-balance&user_id=${user.id}&wallet_id=%FF`,
      { auth: admin.bearer },
    );
    expect(plain.body).toStrictEqual(A("query", NOT_UTF8("query")));
    const users = await call("POST", "/users?username=%FF", { auth: admin.bearer });
    expect(users.body).toStrictEqual(B("query", NOT_UTF8("query")));
    expect(await tableCounts()).toEqual(before);
  });

  it("a multipart body with invalid UTF-8 answers 400", async () => {
    const { admin, user, wallet } = await makeAccount();
    const boundary = "xyz";
    const part = (name: string, value: string) =>
      `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
    const text =
      part("user_id", String(user.id)) +
      part("wallet_id", wallet) +
      part("amount", "5") +
      `--${boundary}\r\nContent-Disposition: form-data; name="request_id"\r\n\r\n`;
    const body = new Uint8Array([
      ...utf8.encode(text),
      0x72,
      0xff,
      ...utf8.encode(`\r\n--${boundary}--\r\n`),
    ]);
    const res = await call("POST", "/credits", {
      auth: admin.bearer,
      body,
      headers: { "Content-Type": `multipart/form-data; boundary=${boundary}` },
    });
    expect(res.body).toStrictEqual(A("body", NOT_UTF8("body")));
  });

  it("a multipart body the runtime cannot read answers 400, never read as no fields", async () => {
    const { admin, user, wallet } = await makeAccount();
    const before = await tableCounts();
    const query = `user_id=${user.id}&wallet_id=${wallet}&amount=5&request_id=${unique("mp")}`;
    const named = (name: string, value: string) =>
      `--X\r\nContent-Disposition: form-data; name=${name}\r\n\r\n${value}\r\n`;
    // Each was read as no fields: the note lost, the query's user or key taken for the body's.
    for (const [type, body] of [
      ["multipart/form-data; boundary=X", named('"note"', "invoice 7")], // no closing boundary
      ["multipart/form-data; boundary=X", `${named("note", "invoice 7")}--X--\r\n`], // unquoted
      ["multipart/form-data; boundary=X", `${named('"user_id"', "1")}`],
      ["multipart/form-data", `${named('"note"', "invoice 7")}--X--\r\n`], // no boundary named
      ["multipart/form-data; boundary=X", "note=invoice+7"],
    ] as const) {
      const res = await call("POST", `/credits?${query}`, {
        auth: admin.bearer,
        body,
        headers: { "Content-Type": type },
      });
      expect(res.body, `${type} ${body}`).toStrictEqual(A("body", UNREADABLE_MULTIPART));
    }
    expect(await tableCounts()).toEqual(before);
    // An empty body, or an empty FormData as fetch sends it, holds no fields: the query's are read.
    for (const body of ["", new FormData()]) {
      const res = await call("POST", `/credits?${query}x${body === "" ? 1 : 2}`, {
        auth: admin.bearer,
        body,
        headers: body === "" ? { "Content-Type": "multipart/form-data; boundary=X" } : {},
      });
      expect(res.status, res.text).toBe(200);
    }
  });

  it("a percent-encoded U+FEFF is the text it starts, not a byte order mark dropped", async () => {
    const { admin, user, wallet } = await makeAccount();
    const key = unique("bom");
    const first = await credit(admin, {
      user_id: user.id,
      wallet_id: wallet,
      amount: 5,
      request_id: key,
    });
    expect(first.status, first.text).toBe(200);
    const before = await tableCounts();
    // As JSON's "\ufeff<key>" is: refused, never read as <key> (nor a name as another's).
    const fields = `wallet_id=${wallet}&amount=5`;
    for (const [sent, error] of [
      [
        `${fields}&user_id=${user.id}&request_id=%EF%BB%BF${key}`,
        { request_id: "request_id must not begin or end with whitespace" },
      ],
      [
        `${fields}&%EF%BB%BFuser_id=${user.id}&request_id=${unique("bom")}`,
        { user_id: "user_id cannot be zero" },
      ],
    ] as const) {
      const asQuery = await call("POST", `/credits?${sent}`, { auth: admin.bearer });
      const asForm = await call("POST", "/credits", {
        auth: admin.bearer,
        body: sent,
        headers: { "Content-Type": "application/x-www-form-urlencoded" },
      });
      for (const res of [asQuery, asForm]) {
        expect(res.status, `${sent}: ${res.text}`).toBe(400);
        expect(res.body.error).toEqual(error);
      }
    }
    const json = await credit(admin, {
      user_id: user.id,
      wallet_id: wallet,
      amount: 5,
      request_id: `\ufeff${key}`,
    });
    expect(json.body.error).toEqual({
      request_id: "request_id must not begin or end with whitespace",
    });
    expect(await tableCounts()).toEqual(before);
  });

  it("a % that starts no escape is kept as written, as URLSearchParams does", async () => {
    const { admin, user, wallet } = await makeAccount();
    const res = await call(
      "POST",
      `/credits?user_id=${user.id}&wallet_id=${wallet}&amount=5&request_id=50%25+off%zz`,
      { auth: admin.bearer },
    );
    expect(res.status, res.text).toBe(200);
    const again = await credit(admin, {
      user_id: user.id,
      wallet_id: wallet,
      amount: 5,
      request_id: "50% off%zz",
    });
    expect(again.status).toBe(409);
  });

  it("an Authorization header with bytes outside printable ASCII is an invalid credential (401), a Content-Type one a 400", async () => {
    const res = await call("GET", "/wallets", { auth: "Bearer \u00ff\u00fe" });
    expect(res.body).toStrictEqual({
      status_code: 401,
      status: false,
      message: "Permission denied",
      error: { unauthorize: "Invalid credentials" },
    });
    const login = await call("POST", "/users/login", {
      body: { user_email: "x@y.z", user_password: "secret" },
      headers: { "Content-Type": "application/json; charset=\u00e9" },
    });
    expect(login.body).toStrictEqual(
      B("content-type", "the Content-Type header must be printable ASCII"),
    );
  });

  it("two media types (two Content-Type headers, joined) are a 400, not a body read as none", async () => {
    const { admin } = await makeAccount();
    const post = (walletId: string, type: string) =>
      call("POST", "/wallets", {
        body: JSON.stringify({ wallet_id: walletId, wallet_name: "T", wallet_symbol: "T" }),
        headers: { "Content-Type": type },
        auth: admin.bearer,
      });
    // As two headers arrive: joined by a comma, after a parameter or not, or behind a quote.
    for (const type of [
      "application/json, text/plain",
      "application/json; charset=utf-8, text/plain",
      'application/json; x="a, text/plain',
      'application/json; x="a\\", text/plain',
      '"application/json, text/plain"',
    ])
      expect((await post("two", type)).body, type).toStrictEqual(
        A("content-type", "the Content-Type header must name one media type"),
      );
    // A comma or an escaped quote inside a parameter's quoted value is no second type.
    const quoted = await post("quoted", 'application/json; x="a,b"; y="c\\"d"');
    expect(quoted.status, quoted.text).toBe(200);
  });
});

describe("headers and the request log", () => {
  afterEach(() => vi.restoreAllMocks());

  it("every answer carries nosniff, no-store and a request id, errors and unknown routes included", async () => {
    const { admin } = await makeAccount();
    const answers = [
      await call("GET", "/wallets", { auth: admin.bearer }),
      await call("GET", "/wallets"),
      await call("GET", "/nope"),
      await call("GET", "/wp-json/"),
      await call("POST", "/credits", {
        auth: admin.bearer,
        body: "x".repeat(70_000),
        headers: { "Content-Type": "application/json" },
      }),
    ];
    expect(answers.map((r) => r.status)).toEqual([200, 401, 404, 200, 413]);
    for (const res of answers) {
      expect(res.headers.get("x-content-type-options")).toBe("nosniff");
      expect(res.headers.get("cache-control")).toBe("no-store");
      expect(res.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    }
    expect(new Set(answers.map((r) => r.headers.get("x-request-id"))).size).toBe(answers.length);
  });

  it("the request id is the service's own UUID whatever cf-ray a client sends; a well-formed cf-ray is logged as cf_ray", async () => {
    const lines: string[] = [];
    vi.spyOn(console, "log").mockImplementation((line: string) => void lines.push(line));
    const ray = "8d2f1c3e4b5a6978-LHR";
    const sent = await call("GET", "/wp-json/", { headers: { "cf-ray": ray } });
    const id = sent.headers.get("x-request-id")!;
    expect(id).not.toBe(ray);
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    await call("GET", "/wp-json/");
    await call("GET", "/wp-json/", { headers: { "cf-ray": 'x"}, {"admin":true' } });
    await call("GET", "/wp-json/", { headers: { "cf-ray": "a".repeat(65) } });
    const logged = lines.map((line) => JSON.parse(line));
    expect(logged[0]).toMatchObject({ request_id: id, cf_ray: ray });
    expect(logged.slice(1).map((line) => line.cf_ray)).toEqual([null, null, null]);
  });

  it("writes one JSON line per request with method, route, status, duration, user id and D1 cost, and never a secret or a body", async () => {
    const { admin, user, wallet } = await makeAccount();
    const lines: string[] = [];
    vi.spyOn(console, "log").mockImplementation((line: string) => void lines.push(line));
    const res = await credit(admin, {
      user_id: user.id,
      wallet_id: wallet,
      amount: 5,
      note: "secret-note",
    });
    await call("POST", "/users/login", {
      body: { user_email: admin.email, user_password: "not-the-password" },
    });
    expect(lines).toHaveLength(2);
    const [entry, login] = lines.map((l) => JSON.parse(l));
    expect(entry).toStrictEqual({
      request_id: res.headers.get("x-request-id"),
      cf_ray: null,
      method: "POST",
      route: "/wp-json/wallet/v1/credits",
      status: 200,
      duration_ms: expect.any(Number),
      user_id: admin.id,
      d1_statements: expect.any(Number),
      d1_rows_read: expect.any(Number),
      d1_rows_written: expect.any(Number),
      d1_round_trips: expect.any(Number),
    });
    expect(login).toMatchObject({
      method: "POST",
      route: "/wp-json/wallet/v1/users/login",
      status: 400,
      user_id: null,
    });
    const text = lines.join("\n");
    for (const secret of [admin.token, "secret-note", "not-the-password", admin.email])
      expect(text).not.toContain(secret);
  });

  it("an unknown route logs no route", async () => {
    const lines: string[] = [];
    vi.spyOn(console, "log").mockImplementation((line: string) => void lines.push(line));
    await call("GET", "/nope");
    expect(JSON.parse(lines[0]!)).toMatchObject({ route: null, status: 404 });
  });
});

describe("invariants", () => {
  it("after every refusal above the ledger is still sound", async () => {
    await makeUser();
    expect(await ledgerViolations()).toStrictEqual(CLEAN);
  });
});

describe("an unreadable request is refused for who sends it first (contract: 403 before 400)", () => {
  it("about another user, or from a key without the read scope, is 403; about oneself, 400", async () => {
    const user = await makeUser();
    const other = await makeUser();
    const read = await makeKey(user, "read");
    const writeOnly = await makeKey(user, "write");
    const about = (id: number) => `/user-wallet-balance?user_id=${id}&wallet_id=%ff`;
    expect((await call("GET", about(other.id), { auth: read.header })).body).toStrictEqual(
      FORBIDDEN,
    );
    expect((await call("GET", "/balances?x=%ff", { auth: writeOnly.header })).body).toStrictEqual(
      FORBIDDEN,
    );
    const holds = await call("GET", `/holds?user_id=${other.id}&page=%ff`, { auth: user.bearer });
    expect(holds.body).toStrictEqual(FORBIDDEN);
    // The user named as PHP registers names (`user.id` is `user_id`), as a readable query is read.
    const dotted = await call("GET", `/holds?user.id=${other.id}&page=%ff`, { auth: user.bearer });
    expect(dotted.body).toStrictEqual(FORBIDDEN);
    // Past PHP's 1000 pairs, or a name deeper than it reads, still about whom PHP names first.
    const padding = Array.from({ length: 1000 }, (_, i) => `p${i}=1`).join("&");
    for (const query of [
      `user_id=${other.id}&${padding}`,
      `user_id=${other.id}&deep${"[a]".repeat(40)}=1`,
    ]) {
      const res = await call("GET", `/holds?${query}`, { auth: user.bearer });
      expect(res.body, query.slice(0, 40)).toStrictEqual(FORBIDDEN);
    }
    expect((await call("GET", about(user.id), { auth: read.header })).body).toStrictEqual(
      A("query", NOT_UTF8("query")),
    );
  });
});
