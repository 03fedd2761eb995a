import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import {
  call,
  FORBIDDEN,
  type Json,
  makeAdmin,
  makeKey,
  makeUser,
  makeWallet,
  tableCounts,
  unique,
} from "./helpers";

const walletId = (prefix = "w") => unique(prefix).toLowerCase().slice(0, 32);

const postWallet = (auth: string, body: Json) => call("POST", "/wallets", { auth, body });

const fullBody = (id: string, overrides: Json = {}) => ({
  wallet_id: id,
  wallet_name: "US Dollar",
  wallet_symbol: "$",
  wallet_symbol_position: "right",
  wallet_decimal: 4,
  wallet_type: "crypto",
  wallet_note: "for tests",
  ...overrides,
});

const invalidInput = (fields: string[]) => ({
  status_code: 400,
  status: false,
  message: "invalid input",
  error: Object.fromEntries(fields.map((f) => [f, expect.any(String)])),
});

describe("POST /wallets", () => {
  it("creates a wallet and answers 200 Wallet was successully created with the record", async () => {
    const admin = await makeAdmin();
    const id = walletId();
    const res = await postWallet(admin.bearer, fullBody(id));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      status_code: 200,
      status: true,
      message: "Wallet was successully created",
      data: {
        wallet_id: id,
        wallet_name: "US Dollar",
        wallet_symbol: "$",
        wallet_symbol_position: "right",
        wallet_decimal: 4,
        wallet_type: "crypto",
        wallet_note: "for tests",
      },
    });
  });

  it("defaults position left, 2 decimals, type fiat and an empty note", async () => {
    const admin = await makeAdmin();
    const id = walletId();
    const res = await postWallet(admin.bearer, {
      wallet_id: id,
      wallet_name: "Naira",
      wallet_symbol: "₦",
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      wallet_id: id,
      wallet_name: "Naira",
      wallet_symbol: "₦",
      wallet_symbol_position: "left",
      wallet_decimal: 2,
      wallet_type: "fiat",
      wallet_note: "",
    });
  });

  it("accepts a form-encoded body with wallet_decimal as text", async () => {
    const admin = await makeAdmin();
    const id = walletId();
    const res = await call("POST", "/wallets", {
      auth: admin.bearer,
      body: new URLSearchParams({
        wallet_id: id,
        wallet_name: "Coin",
        wallet_symbol: "C",
        wallet_decimal: "0",
      }),
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ wallet_id: id, wallet_decimal: 0 });
  });

  it("with an id already used answers 409 Wallet Already Exists, also in other case, and writes nothing", async () => {
    const admin = await makeAdmin();
    const id = await makeWallet(admin);
    const before = await tableCounts();
    for (const again of [id, id.toUpperCase()]) {
      const res = await postWallet(admin.bearer, fullBody(again, { wallet_name: "Other" }));
      expect(res.status).toBe(409);
      expect(res.body).toEqual({
        status_code: 409,
        status: false,
        message: "Wallet Already Exists",
        error: expect.anything(),
      });
    }
    expect(await tableCounts()).toEqual(before);
    const read = await call("GET", `/wallets/${id}`, { auth: admin.bearer });
    expect(read.body.data.wallet_name).toBe("Naira Wallet");
  });

  it("lets exactly one of eight concurrent creations of the same id succeed", async () => {
    const admin = await makeAdmin();
    const id = walletId("race");
    const replies = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        postWallet(admin.bearer, fullBody(i % 2 ? id : id.toUpperCase())),
      ),
    );
    expect(replies.map((r) => r.status).sort()).toEqual([200, 409, 409, 409, 409, 409, 409, 409]);
  });

  it("stores an upper-case id in lower case so GET finds it in any case", async () => {
    const admin = await makeAdmin();
    const id = walletId("USD");
    const res = await postWallet(admin.bearer, fullBody(id.toUpperCase()));
    expect(res.status).toBe(200);
    expect(res.body.data.wallet_id).toBe(id);
    for (const asked of [id, id.toUpperCase()]) {
      const read = await call("GET", `/wallets/${asked}`, { auth: admin.bearer });
      expect(read.status).toBe(200);
      expect(read.body.data.wallet_id).toBe(id);
    }
  });

  it("refuses the reserved id formatted with 400 invalid input on wallet_id", async () => {
    const admin = await makeAdmin();
    for (const id of ["formatted", "FORMATTED"]) {
      const res = await postWallet(admin.bearer, fullBody(id));
      expect(res.status).toBe(400);
      expect(res.body).toEqual(invalidInput(["wallet_id"]));
    }
  });

  it("with a malformed wallet_id answers 400 invalid input on wallet_id", async () => {
    const admin = await makeAdmin();
    for (const id of [
      "",
      "1abc",
      "_abc",
      "has space",
      "dash-id",
      "ab$",
      `a${"b".repeat(32)}`,
      42,
    ]) {
      const res = await postWallet(admin.bearer, fullBody(id as string));
      expect(res.status, `wallet_id ${JSON.stringify(id)}`).toBe(400);
      expect(res.body).toEqual(invalidInput(["wallet_id"]));
    }
  });

  it("folds a wallet_type's ASCII letters only: the Kelvin sign is no k, and the type is refused", async () => {
    const admin = await makeAdmin();
    const upper = await postWallet(admin.bearer, { ...fullBody(walletId()), wallet_type: "KOIN" });
    expect(upper.status, upper.text).toBe(200);
    expect(upper.body.data.wallet_type).toBe("koin");
    const id = walletId();
    const kelvin = await postWallet(admin.bearer, { ...fullBody(id), wallet_type: "\u212Aoin" });
    expect(kelvin.status, kelvin.text).toBe(400);
    expect(kelvin.body).toEqual(invalidInput(["wallet_type"]));
    expect((await call("GET", `/wallets/${id}`, { auth: admin.bearer })).status).toBe(404);
  });

  it("accepts a 32-character wallet_id", async () => {
    const admin = await makeAdmin();
    const id = `a${walletId().padEnd(31, "x")}`.slice(0, 32);
    const res = await postWallet(admin.bearer, fullBody(id));
    expect(res.status).toBe(200);
    expect(res.body.data.wallet_id).toBe(id);
  });

  it("trims ASCII white space off an id and refuses any other space in it", async () => {
    const admin = await makeAdmin();
    const id = walletId();
    const trimmed = await postWallet(admin.bearer, fullBody(` ${id.toUpperCase()}\t\n`));
    expect(trimmed.status, trimmed.text).toBe(200);
    expect(trimmed.body.data.wallet_id).toBe(id);
    // A credit names it as a create does: trimmed of ASCII space only.
    const user = await makeUser();
    const credit = (wallet_id: string) =>
      call("POST", "/credits", {
        auth: admin.bearer,
        body: { user_id: user.id, wallet_id, amount: "1", request_id: unique("r") },
      });
    expect((await credit(`${id.toUpperCase()} `)).status).toBe(200);
    const spaced = await credit(`${id}\u00a0`);
    expect(spaced.status).toBe(400);
    expect(spaced.body.error).toEqual({ wallet_id: "wallet_id not found" });
    for (const space of ["\u00a0", "\u2003", "\u3000"]) {
      const other = walletId();
      const res = await postWallet(admin.bearer, fullBody(`${other}${space}`));
      expect(res.status, JSON.stringify(space)).toBe(400);
      expect(res.body.error).toEqual({
        wallet_id: "wallet_id must start with a letter and hold at most 32 of a-z, 0-9 and _",
      });
      const rows = await env.DB.prepare("SELECT count(*) AS n FROM wallets WHERE id IN (?, ?)")
        .bind(other, `${other}${space}`)
        .first<{ n: number }>();
      expect(rows?.n).toBe(0);
    }
  });

  it("reads a JSON -0 as the number 0, however written", async () => {
    const admin = await makeAdmin();
    for (const zero of ["-0", "-0.0", "-0e3"]) {
      const id = walletId();
      const res = await call("POST", "/wallets", {
        auth: admin.bearer,
        headers: { "Content-Type": "application/json" },
        body: `{"wallet_id":"${id}","wallet_name":"Coin","wallet_symbol":"C","wallet_decimal":${zero}}`,
      });
      expect(res.status, `${zero}: ${res.text}`).toBe(200);
      expect(res.body.data).toMatchObject({ wallet_id: id, wallet_decimal: 0 });
    }
  });

  it("with wallet_decimal outside 0-8 or not an integer answers 400 invalid input on wallet_decimal", async () => {
    const admin = await makeAdmin();
    for (const decimal of [9, -1, 1.5, "1.5", "two", "", "02", "10"]) {
      const res = await postWallet(admin.bearer, fullBody(walletId(), { wallet_decimal: decimal }));
      expect(res.status, `wallet_decimal ${JSON.stringify(decimal)}`).toBe(400);
      expect(res.body).toEqual(invalidInput(["wallet_decimal"]));
    }
  });

  it("with a position other than left or right answers 400 invalid input on wallet_symbol_position", async () => {
    const admin = await makeAdmin();
    for (const position of ["middle", "", 1]) {
      const res = await postWallet(
        admin.bearer,
        fullBody(walletId(), { wallet_symbol_position: position }),
      );
      expect(res.status).toBe(400);
      expect(res.body).toEqual(invalidInput(["wallet_symbol_position"]));
    }
  });

  it("refuses a name or symbol with control, bidirectional or invisible characters, and writes nothing", async () => {
    const admin = await makeAdmin();
    const before = await tableCounts();
    // A right-to-left override would show "$1,500.00" reversed beside the symbol; a zero-width
    // space makes two symbols look the same.
    for (const hidden of [
      ...["\u202e", "\u2066", "\u200f", "\u061c", "\u200b", "\ufeff", "\u0007", "\u0085"],
      // Other invisible ones: soft hyphen, grapheme joiner, Mongolian vowel separator, Hangul
      // filler, a tag character, the line separator.
      ...["\u00ad", "\u034f", "\u180e", "\u3164", "\u{e0041}", "\u2028"],
    ]) {
      for (const field of ["wallet_name", "wallet_symbol"]) {
        const res = await postWallet(
          admin.bearer,
          fullBody(walletId(), { [field]: `U${hidden}S` }),
        );
        expect(res.status, JSON.stringify(hidden)).toBe(400);
        expect(res.body.error).toEqual({
          [field]: `${field} must not hold control, bidirectional or invisible characters`,
        });
      }
    }
    expect(await tableCounts()).toEqual(before);
    // Emoji sequences keep their zero-width joiner; right-to-left scripts are text like any other.
    for (const symbol of ["🏳️‍🌈", "ر.س", "₦"]) {
      const res = await postWallet(admin.bearer, fullBody(walletId(), { wallet_symbol: symbol }));
      expect(res.status, symbol).toBe(200);
      expect(res.body.data.wallet_symbol).toBe(symbol);
    }
  });

  it("refuses a symbol that begins or ends with a digit or sign, or is points alone, and writes nothing", async () => {
    const admin = await makeAdmin();
    const before = await tableCounts();
    // Display strings are "<symbol><number>": the symbol 1 showed 500 as "1500.00" and nothing as
    // "10.00", the symbol - showed 500 as "-500.00"; on the right, "500.00 1" or "5.00 ,5".
    for (const symbol of [
      "1",
      "-",
      "US1",
      "0.",
      "1$",
      "+",
      "\u2212",
      ",",
      ".",
      ".5",
      "5,",
      " 1 ",
      "\u0661",
    ]) {
      for (const position of ["left", "right"]) {
        const res = await postWallet(
          admin.bearer,
          fullBody(walletId(), { wallet_symbol: symbol, wallet_symbol_position: position }),
        );
        expect(res.status, JSON.stringify(symbol)).toBe(400);
        expect(res.body.error).toEqual({
          wallet_symbol:
            "wallet_symbol must not begin or end with a digit or a sign: it would read as part of the amount",
        });
      }
    }
    expect(await tableCounts()).toEqual(before);
    // Inside a symbol they are text like any other.
    for (const symbol of ["ر.س", "US$ ", "B2B", "€", "Rs.", "kr.", "S/."]) {
      const res = await postWallet(admin.bearer, fullBody(walletId(), { wallet_symbol: symbol }));
      expect(res.status, symbol).toBe(200);
    }
  });

  it("refuses a name or symbol of white space alone as empty, and writes nothing", async () => {
    const admin = await makeAdmin();
    const before = await tableCounts();
    // A blank symbol shows every amount with no currency beside it; a blank name lists nothing.
    // However long: blank is what is wrong with it (the wallet rule checks that first).
    for (const blank of [" ", "   ", "\u00a0", "\u3000", " \u2003 ", " ".repeat(101)]) {
      for (const field of ["wallet_name", "wallet_symbol"]) {
        const res = await postWallet(admin.bearer, fullBody(walletId(), { [field]: blank }));
        expect(res.status, JSON.stringify(blank)).toBe(400);
        expect(res.body.error).toEqual({ [field]: "Field Cannot be empty" });
      }
    }
    expect(await tableCounts()).toEqual(before);
    // Spaces beside other text are the operator's to choose ("US$ ").
    const res = await postWallet(admin.bearer, fullBody(walletId(), { wallet_symbol: "US$ " }));
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.wallet_symbol).toBe("US$ ");
  });

  it("reports several invalid fields together, keyed by field, and writes nothing", async () => {
    const admin = await makeAdmin();
    const before = await tableCounts();
    const res = await postWallet(
      admin.bearer,
      fullBody("9bad", { wallet_symbol_position: "up", wallet_decimal: 12 }),
    );
    expect(res.body).toEqual(
      invalidInput(["wallet_id", "wallet_symbol_position", "wallet_decimal"]),
    );
    expect(Object.keys(res.body.error)).toEqual([
      "wallet_id",
      "wallet_symbol_position",
      "wallet_decimal",
    ]);
    expect(await tableCounts()).toEqual(before);
  });
});

describe("GET /wallets", () => {
  it("lists every wallet with its full record", async () => {
    const admin = await makeAdmin();
    const a = await makeWallet(admin, {
      decimals: 0,
      symbol: "RMP",
      position: "right",
      name: "Coin",
    });
    const b = await makeWallet(admin);
    const res = await call("GET", "/wallets", { auth: admin.bearer });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      status_code: 200,
      status: true,
      message: expect.any(String),
      data: expect.any(Array),
    });
    expect(res.body.data).toContainEqual({
      wallet_id: a,
      wallet_name: "Coin",
      wallet_symbol: "RMP",
      wallet_symbol_position: "right",
      wallet_decimal: 0,
      wallet_type: "fiat",
      wallet_note: "",
    });
    expect(res.body.data.map((w: Json) => w.wallet_id)).toContain(b);
  });

  it("reads one wallet by id", async () => {
    const admin = await makeAdmin();
    const id = walletId();
    const created = await postWallet(admin.bearer, fullBody(id));
    const res = await call("GET", `/wallets/${id}`, { auth: admin.bearer });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      status_code: 200,
      status: true,
      message: expect.any(String),
      data: created.body.data,
    });
  });

  it("with an unknown id answers 404 in envelope A", async () => {
    const admin = await makeAdmin();
    const res = await call("GET", `/wallets/${walletId("missing")}`, { auth: admin.bearer });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({
      status_code: 404,
      status: false,
      message: expect.any(String),
      error: expect.anything(),
    });
  });
});

describe("wallet permissions", () => {
  it("answers a subscriber 403 on POST, list and read", async () => {
    const admin = await makeAdmin();
    const id = await makeWallet(admin);
    const subscriber = await makeUser();
    const replies = [
      await postWallet(subscriber.bearer, fullBody(walletId())),
      await call("GET", "/wallets", { auth: subscriber.bearer }),
      await call("GET", `/wallets/${id}`, { auth: subscriber.bearer }),
    ];
    for (const res of replies) {
      expect(res.status).toBe(403);
      expect(res.body).toEqual(FORBIDDEN);
    }
  });

  it("answers 401 without credentials before looking at the body", async () => {
    const res = await postWallet("", { wallet_id: "1bad" });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({
      status_code: 401,
      status: false,
      message: "Permission denied",
      error: { unauthorize: "No authorization provided" },
    });
  });

  it("lets an administrator's read key list and read but answers 403 on POST", async () => {
    const admin = await makeAdmin();
    const id = await makeWallet(admin);
    const { header } = await makeKey(admin, "read");
    expect((await call("GET", "/wallets", { auth: header })).status).toBe(200);
    expect((await call("GET", `/wallets/${id}`, { auth: header })).status).toBe(200);
    const before = await tableCounts();
    const post = await postWallet(header, fullBody(walletId()));
    expect(post.status).toBe(403);
    expect(post.body).toEqual(FORBIDDEN);
    expect((await tableCounts())!.wallets).toBe(before!.wallets);
  });

  it("lets an administrator's write key create a wallet but not read", async () => {
    const admin = await makeAdmin();
    const { header } = await makeKey(admin, "write");
    const id = walletId();
    const res = await postWallet(header, fullBody(id));
    expect(res.status).toBe(200);
    expect(res.body.data.wallet_id).toBe(id);
    expect((await call("GET", `/wallets/${id}`, { auth: header })).status).toBe(403);
  });

  it("lets an administrator's read-write key create and read", async () => {
    const admin = await makeAdmin();
    const { header } = await makeKey(admin, "read-write");
    const id = walletId();
    expect((await postWallet(header, fullBody(id))).status).toBe(200);
    expect((await call("GET", `/wallets/${id}`, { auth: header })).status).toBe(200);
  });

  it("answers a subscriber's read-write key 403", async () => {
    const subscriber = await makeUser();
    const { header } = await makeKey(subscriber, "read-write");
    expect((await call("GET", "/wallets", { auth: header })).body).toEqual(FORBIDDEN);
    expect((await postWallet(header, fullBody(walletId()))).body).toEqual(FORBIDDEN);
  });
});
