// What is kept per isolate to spend less CPU per request, each shown to answer exactly what
// the work it saves would have answered: the router's remembered matches, the verified tokens, JSON
// bodies read without the exact-number reviver when no number needs it, UTC dates read off a Date.
import { env } from "cloudflare:workers";
import fc from "fast-check";
import { TrieRouter } from "hono/router/trie-router";
import { afterEach, describe, expect, it, vi } from "vitest";
import { API_AUDIENCE, CONSOLE_AUDIENCE, verifyToken } from "../src/auth/tokens";
import { BoundedMap } from "../src/bounded-map";
import { MemoRouter, REMEMBERED_PATHS } from "../src/http/memo-router";
import { parseExactly, parseJsonBody } from "../src/http/params";
import {
  mysqlDate,
  mysqlDateSeconds,
  partsIn,
  siteDayBounds,
  zoneParts,
} from "../src/ledger/post-format";
import { call, makeAdmin, signedToken } from "./helpers";

describe("what an isolate remembers (BoundedMap)", () => {
  it("holds at most its limit, dropping the key added first; setting a held key drops none", () => {
    const m = new BoundedMap<string, number>(3);
    for (const k of ["a", "b", "c"]) m.set(k, 1);
    m.set("a", 2);
    expect([...m]).toEqual([
      ["a", 2],
      ["b", 1],
      ["c", 1],
    ]);
    m.set("d", 1);
    expect([...m.keys()]).toEqual(["b", "c", "d"]);
  });
});

describe("the router's remembered matches", () => {
  const routes: [string, string][] = [
    ["ALL", "*"],
    ["GET", "/wp-json/wallet/v1/transactions/:id{[0-9]+}"],
    ["POST", "/wp-json/wallet/v1/users/:user_id{[0-9]+}/unlock"],
    ["ALL", "/wp-json/:ns/v1/*"],
    ["GET", "/wp-json/:ns/v1/transactions"],
  ];
  const both = () => {
    const memo = new MemoRouter<string>();
    const trie = new TrieRouter<string>();
    for (const [i, [method, path]] of routes.entries()) {
      memo.add(method, path, `h${i}`);
      trie.add(method, path, `h${i}`);
    }
    return { memo, trie };
  };

  it("answers each path as Hono's TrieRouter does, the first time and every time after", () => {
    const { memo, trie } = both();
    const asked = [
      ["GET", "/wp-json/wallet/v1/transactions/42"],
      ["GET", "/wp-json/wallet/v1/transactions/x"],
      ["POST", "/wp-json/wallet/v1/users/7/unlock"],
      ["GET", "/wp-json/rimplenet/v1/transactions"],
      ["DELETE", "/wp-json/rimplenet/v1/transactions"],
      ["GET", "/nowhere"],
    ] as const;
    for (let round = 0; round < 3; round++)
      for (const [method, path] of asked)
        expect(memo.match(method, path)).toEqual(trie.match(method, path));
  });

  it("keeps at most REMEMBERED_PATHS paths and still answers the forgotten ones rightly", () => {
    const { memo, trie } = both();
    for (let id = 0; id < REMEMBERED_PATHS + 50; id++)
      memo.match("GET", `/wp-json/wallet/v1/transactions/${id}`);
    const first = "/wp-json/wallet/v1/transactions/0"; // forgotten by now
    expect(memo.match("GET", first)).toEqual(trie.match("GET", first));
  });
});

describe("the isolate's verified tokens", () => {
  afterEach(() => {
    vi.useRealTimers();
  });
  const keys = { secret: env.JWT_SECRET!, issuer: env.JWT_ISSUER };

  it("answer a token verified before with the same principal, and refuse it once it expires", async () => {
    const admin = await makeAdmin();
    const { token } = await signedToken(admin, { lifetimeS: 60 });
    const first = await verifyToken(token, keys.secret, keys.issuer, API_AUDIENCE);
    expect(first).toMatchObject({ userId: admin.id, username: admin.username });
    expect(await verifyToken(token, keys.secret, keys.issuer, API_AUDIENCE)).toEqual(first);
    vi.useFakeTimers({ now: Date.now() + 61_000, toFake: ["Date"] });
    expect(await verifyToken(token, keys.secret, keys.issuer, API_AUDIENCE)).toBeNull();
  });

  it("are kept per secret, issuer and audience: a token verified for one is refused by another", async () => {
    const admin = await makeAdmin();
    const { token } = await signedToken(admin);
    expect(await verifyToken(token, keys.secret, keys.issuer, API_AUDIENCE)).not.toBeNull();
    expect(await verifyToken(token, `${keys.secret}x`, keys.issuer, API_AUDIENCE)).toBeNull();
    expect(await verifyToken(token, keys.secret, `${keys.issuer}x`, API_AUDIENCE)).toBeNull();
    expect(await verifyToken(token, keys.secret, keys.issuer, CONSOLE_AUDIENCE)).toBeNull();
  });

  it("never keep a refused token: a forged one stays refused", async () => {
    const admin = await makeAdmin();
    const { token } = await signedToken(admin);
    const [head, body] = token.split(".");
    const forged = `${head}.${body}.${"A".repeat(43)}`;
    expect(await verifyToken(forged, keys.secret, keys.issuer, API_AUDIENCE)).toBeNull();
    expect(await verifyToken(forged, keys.secret, keys.issuer, API_AUDIENCE)).toBeNull();
  });

  it("still refuse a token at once after its sign-out in this isolate, though it was verified before", async () => {
    const admin = await makeAdmin();
    const auth = `Bearer ${(await signedToken(admin)).token}`;
    expect((await call("GET", "/wallets", { auth })).status).toBe(200);
    expect((await call("GET", "/wallets", { auth })).status).toBe(200);
    expect((await call("POST", "/users/logout", { auth })).status).toBe(200);
    expect((await call("GET", "/wallets", { auth })).status).toBe(401);
  });

  it("refuse an expired token through the API though it was verified before", async () => {
    const admin = await makeAdmin();
    const auth = `Bearer ${(await signedToken(admin, { lifetimeS: 60 })).token}`;
    expect((await call("GET", "/wallets", { auth })).status).toBe(200);
    vi.useFakeTimers({ now: Date.now() + 61_000, toFake: ["Date"] });
    expect((await call("GET", "/wallets", { auth })).status).toBe(401);
  });
});

describe("JSON bodies read without the reviver", () => {
  /** What a parse answered, with -0 told from 0 and a number from its text. */
  const outcome = (parse: (text: string) => unknown, text: string) => {
    try {
      return JSON.stringify(parse(text), (_key, value) =>
        Object.is(value, -0) ? "(-0)" : typeof value === "number" ? `(number ${value})` : value,
      );
    } catch (err) {
      return `${(err as Error).constructor.name}: ${(err as Error).message}`;
    }
  };
  const digits = (min: number, max: number) =>
    fc.stringMatching(new RegExp(`^[0-9]{${min},${max}}$`));
  const numberText = fc.oneof(
    fc.integer().map(String),
    fc.double({ noNaN: true, noDefaultInfinity: true }).map((d) => JSON.stringify(d)),
    fc
      .tuple(fc.constantFrom("", "-"), digits(1, 25), fc.option(digits(1, 25)))
      .map(([sign, int, frac]) => `${sign}${int.replace(/^0+(?=.)/, "")}${frac ? `.${frac}` : ""}`),
    fc
      .tuple(digits(1, 3), fc.constantFrom("e", "E", "e+", "e-"), digits(1, 3))
      .map(([m, e, x]) => `${m.replace(/^0+(?=.)/, "")}${e}${x}`),
    fc.constantFrom("-0", "0.0", "-0.0", "1e400", "12345678901234567890", "0.1", "1.50", "100"),
  );
  const stringText = fc.oneof(
    fc.string().map((s) => JSON.stringify(s)),
    fc.constantFrom('"\\ud800"', '"a\\udc00b"', '"12345678901234567890"', '"1.5e3 and 2"'),
  );
  const value: fc.Arbitrary<string> = fc.letrec<{ leaf: string; node: string }>((tie) => ({
    leaf: fc.oneof(numberText, stringText, fc.constantFrom("true", "false", "null")),
    node: fc.oneof(
      { depthSize: "small" },
      tie("leaf"),
      fc.array(tie("node"), { maxLength: 4 }).map((items) => `[${items.join(",")}]`),
      fc
        .array(fc.tuple(fc.string(), tie("node")), { maxLength: 4 })
        .map((pairs) => `{${pairs.map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(",")}}`),
    ),
  })).node;

  it("answer what the reviver answers for any body: values, exact number texts and refusals", () => {
    fc.assert(
      fc.property(value, (text) => {
        expect(outcome(parseJsonBody, text)).toBe(outcome(parseExactly, text));
      }),
      { numRuns: 3000, seed: 24 },
    );
  });

  it("answer what the reviver answers for bodies that are not JSON", () => {
    for (const text of ["{", '{"a":1,}', '{"a":01}', "[1.]", '{"a":"\\ud800"', "nul"])
      expect(outcome(parseJsonBody, text)).toBe(outcome(parseExactly, text));
  });

  it("keep the written text of a number a double cannot hold, as the reviver does", () => {
    expect(parseJsonBody('{"amount":12345678901234567890,"b":1.00000000000000001}')).toEqual({
      amount: "12345678901234567890",
      b: "1.00000000000000001",
    });
  });
});

describe("UTC wall-clock parts read off a Date", () => {
  it("are the parts Intl formats in UTC, for any instant of years 100 to 9999 and outside them", () => {
    const edges = [
      -62_135_596_800, -59_011_459_201, -59_011_459_200, 0, -1, 951_782_400, 253_402_300_799,
      253_402_300_800,
    ];
    for (const epochS of edges) expect(partsIn(epochS, "UTC")).toEqual(zoneParts(epochS, "UTC"));
    fc.assert(
      fc.property(fc.integer({ min: -62_200_000_000, max: 253_500_000_000 }), (epochS) => {
        expect(partsIn(epochS, "UTC")).toEqual(zoneParts(epochS, "UTC"));
      }),
      { numRuns: 3000, seed: 24 },
    );
  });

  it("name the weekday and read wall times back in the years 0 to 99 too (not as 19xx)", () => {
    for (const text of ["0001-01-01 00:00:00", "0050-06-15 12:30:45", "0099-12-31 23:59:59"]) {
      const epochS = Date.parse(`${text.replace(" ", "T")}Z`) / 1000;
      expect(mysqlDateSeconds(text), text).toBe(epochS);
      expect(zoneParts(epochS, "UTC").weekday, text).toBe(new Date(epochS * 1000).getUTCDay());
      for (const zone of ["UTC", "Africa/Lagos", "America/New_York"]) {
        const { firstS, lastS } = siteDayBounds(text.slice(0, 10), zone);
        expect(mysqlDate(firstS, zone), `${text} ${zone}`).toBe(`${text.slice(0, 10)} 00:00:00`);
        expect(mysqlDate(lastS, zone), `${text} ${zone}`).toBe(`${text.slice(0, 10)} 23:59:59`);
      }
    }
  });

  it("bound site days without gap or overlap, in zones whose clock changes skip or repeat midnight", () => {
    const years: [string, number][] = [
      ["America/Santiago", 2026],
      ["Atlantic/Azores", 2026],
      ["America/Havana", 2026],
      ["Asia/Beirut", 2026],
      // The clock jumps from 23:00 straight to 00:00: no second reads 23:59:59.
      ["America/Nuuk", 2026],
      ["America/Scoresbysund", 2027],
      // A whole day skipped (2011-12-30 and 1994-12-31): it is empty.
      ["Pacific/Apia", 2011],
      ["Pacific/Kiritimati", 1994],
    ];
    const dateOf = (second: number, zone: string) => mysqlDate(second, zone).slice(0, 10);
    for (const [zone, year] of years) {
      let previous = siteDayBounds(`${year - 1}-12-31`, zone);
      for (let ms = Date.UTC(year, 0, 1); ms < Date.UTC(year + 1, 0, 1); ms += 86_400_000) {
        const day = new Date(ms).toISOString().slice(0, 10);
        const { firstS, lastS } = siteDayBounds(day, zone);
        const what = `${zone} ${day}`;
        expect(Number.isSafeInteger(firstS) && Number.isSafeInteger(lastS), what).toBe(true);
        expect(firstS, what).toBe(previous.lastS + 1);
        expect(dateOf(firstS - 1, zone), what).not.toBe(day);
        expect(dateOf(lastS + 1, zone), what).not.toBe(day);
        if (lastS >= firstS) {
          expect(dateOf(firstS, zone), what).toBe(day);
          expect(dateOf(lastS, zone), what).toBe(day);
        } else expect(lastS, `${what} is skipped`).toBe(firstS - 1);
        previous = { firstS, lastS };
      }
    }
    expect(siteDayBounds("2011-12-30", "Pacific/Apia")).toEqual({
      firstS: Date.UTC(2011, 11, 30, 10) / 1000,
      lastS: Date.UTC(2011, 11, 30, 10) / 1000 - 1,
    });
  });
});
