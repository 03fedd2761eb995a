import { describe, expect, it } from "vitest";
import {
  call,
  credit,
  makeAccount,
  makeAdmin,
  makeUser,
  makeWallet,
  type TestUser,
  tableCounts,
  unique,
} from "./helpers";

const refused = (error: Record<string, string>) => ({
  status_code: 400,
  status: false,
  message: "invalid input",
  error,
});

async function expectRefused(
  admin: TestUser,
  body: Record<string, unknown>,
  error: Record<string, string>,
) {
  const before = await tableCounts();
  const res = await call("POST", "/credits", { auth: admin.bearer, body });
  expect(res.status).toBe(400);
  expect(res.body).toEqual(refused(error));
  expect(await tableCounts()).toEqual(before);
}

describe("POST /credits validation", () => {
  it("folds a wallet_id's ASCII letters only, as the plugin's dialect does: the Kelvin sign is not k", async () => {
    const { admin, user } = await makeAccount();
    const wallet = await makeWallet(admin, { id: `k${unique("w").toLowerCase().slice(0, 20)}` });
    const kelvin = `\u212A${wallet.slice(1)}`;
    expect(kelvin.toLowerCase()).toBe(wallet); // what a Unicode fold would have matched
    const before = await tableCounts();
    const res = await call("POST", "/credits", {
      auth: admin.bearer,
      body: { user_id: user.id, wallet_id: kelvin, amount: "1", request_id: unique("r") },
    });
    expect(res.status, res.text).toBe(400);
    expect(res.body.error).toEqual({ wallet_id: "wallet_id not found" });
    expect(await tableCounts()).toEqual(before);
    const upper = await call("POST", "/credits", {
      auth: admin.bearer,
      body: {
        user_id: user.id,
        wallet_id: wallet.toUpperCase(),
        amount: "1",
        request_id: unique("r"),
      },
    });
    expect(upper.status, upper.text).toBe(200);
    // The readers fold the same way: the Kelvin sign names no wallet there either.
    const balance = await call(
      "GET",
      `/user-wallet-balance?user_id=${user.id}&wallet_id=${encodeURIComponent(kelvin)}`,
      { auth: admin.bearer },
    );
    expect([balance.status, balance.body.error]).toEqual([
      400,
      { wallet_id: `wallet_id not found: ${kelvin}` },
    ]);
    const read = await call("GET", `/wallets/${encodeURIComponent(kelvin)}`, {
      auth: admin.bearer,
    });
    expect(read.status, read.text).toBe(404);
  });

  it("refuses a form's field sent as PHP's list, as it refuses a JSON list, writing nothing", async () => {
    const { admin, user } = await makeAccount();
    const wallet = await makeWallet(admin);
    const json = await call("POST", "/credits", {
      auth: admin.bearer,
      body: { user_id: user.id, wallet_id: wallet, amount: ["5"], request_id: unique("r") },
    });
    expect(json.status).toBe(400);
    const before = await tableCounts();
    const form = await call("POST", "/credits", {
      auth: admin.bearer,
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: `user_id=${user.id}&wallet_id=${wallet}&amount%5B%5D=5&request_id=${unique("r")}`,
    });
    expect(form.body).toEqual(json.body);
    expect(await tableCounts()).toEqual(before);
  });

  it("reports every empty field together, in the plugin's key order", async () => {
    const { admin } = await makeAccount();
    await expectRefused(
      admin,
      { user_id: "", wallet_id: "", request_id: "", amount: "" },
      {
        user_id: "Field Cannot be empty",
        wallet_id: "Field Cannot be empty",
        request_id: "Field Cannot be empty",
        amount: "Field Cannot be empty",
      },
    );
  });

  it("reports a missing field as empty, in the same words as an empty one", async () => {
    const { admin, user } = await makeAccount();
    await expectRefused(
      admin,
      { user_id: user.id },
      {
        wallet_id: "Field Cannot be empty",
        request_id: "Field Cannot be empty",
        amount: "Field Cannot be empty",
      },
    );
  });

  it("reports an unknown wallet beside the other field errors, in the plugin's key order", async () => {
    const { admin, user } = await makeAccount();
    const before = await tableCounts();
    const res = await call("POST", "/credits", {
      auth: admin.bearer,
      body: { user_id: user.id, wallet_id: unique("nowallet"), request_id: " r", amount: "x" },
    });
    expect(res.status).toBe(400);
    // The wire's key order is the order clients read: toEqual alone does not hold it.
    expect(Object.entries(res.body.error)).toEqual([
      ["wallet_id", "wallet_id not found"],
      ["request_id", "request_id must not begin or end with whitespace"],
      ["amount", expect.any(String)],
    ]);
    expect(await tableCounts()).toEqual(before);
  });

  it("treats a missing user_id as zero, as the plugin did", async () => {
    const { admin, wallet } = await makeAccount();
    await expectRefused(
      admin,
      { wallet_id: wallet, request_id: "r", amount: 1 },
      { user_id: "user_id cannot be zero" },
    );
  });

  it.each([0, "0", "00"])("refuses user_id %j as zero", async (user_id) => {
    const { admin, wallet } = await makeAccount();
    await expectRefused(
      admin,
      { user_id, wallet_id: wallet, request_id: "r", amount: 1 },
      { user_id: "user_id cannot be zero" },
    );
  });

  // JSON's -0 is a double's negative zero: zero, as `0` is, however it is written.
  it.each(["-0", "-0.0", "-0e5"])("refuses user_id %s, a JSON number, as zero", async (literal) => {
    const { admin, wallet } = await makeAccount();
    const before = await tableCounts();
    const res = await call("POST", "/credits", {
      auth: admin.bearer,
      headers: { "Content-Type": "application/json" },
      body: `{"user_id":${literal},"wallet_id":"${wallet}","request_id":"r","amount":1}`,
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(refused({ user_id: "user_id cannot be zero" }));
    expect(await tableCounts()).toEqual(before);
  });

  it.each(["abc", "-1", "1.5", 2.5, true, [1], { id: 1 }])(
    "refuses user_id %j as not an integer",
    async (user_id) => {
      const { admin, wallet } = await makeAccount();
      await expectRefused(
        admin,
        { user_id, wallet_id: wallet, request_id: "r", amount: 1 },
        { user_id: "user_id requires an integer" },
      );
    },
  );

  it("refuses an unknown wallet", async () => {
    const { admin, user } = await makeAccount();
    await expectRefused(
      admin,
      { user_id: user.id, wallet_id: "nosuchwallet", request_id: "r", amount: 1 },
      { wallet_id: "wallet_id not found" },
    );
  });

  it.each([
    ["abc", "amount requires a valid amount"],
    ["1e5", "amount requires a valid amount"],
    ["0x10", "amount requires a valid amount"],
    [" 5", "amount requires a valid amount"],
    ["+5", "amount requires a valid amount"],
    [{ v: 1 }, "amount requires a valid amount"],
    [`${"0".repeat(40)}1`, "amount must be at most 40 characters"],
    // 21 mathematical digits: 21 characters (42 UTF-16 units), within the length, and no number.
    ["\u{1D7CF}".repeat(21), "amount requires a valid amount"],
    [0, "amount must be greater than zero"],
    ["0.00", "amount must be greater than zero"],
    [-5, "amount must be greater than zero"],
    ["-5", "amount must be greater than zero"],
  ])("refuses amount %j", async (amount, message) => {
    const { admin, user, wallet } = await makeAccount();
    await expectRefused(
      admin,
      { user_id: user.id, wallet_id: wallet, request_id: "r", amount },
      { amount: message },
    );
  });

  it.each([
    ["1e400", "amount is too large"],
    [`"1${"0".repeat(40)}"`, "amount is too large"],
    ["-1e400", "amount must be greater than zero"],
    // A fraction past the length is refused by its length, which no wallet's places reach.
    ["1e-399", "amount must be at most 40 characters"],
    [`"${"0".repeat(40)}1"`, "amount must be at most 40 characters"],
  ])(
    "words an amount longer than 40 characters written out, %s, by what it is",
    async (amount, message) => {
      const { admin, user, wallet } = await makeAccount();
      const before = await tableCounts();
      const res = await call("POST", "/credits", {
        auth: admin.bearer,
        body: `{"user_id":${user.id},"wallet_id":"${wallet}","request_id":"${unique("r")}","amount":${amount}}`,
        headers: { "Content-Type": "application/json" },
      });
      expect(res.status).toBe(400);
      expect(res.body).toEqual(refused({ amount: message }));
      expect(await tableCounts()).toEqual(before);
    },
  );

  it("refuses more decimals than the wallet has unless they are zeros", async () => {
    const { admin, user, wallet } = await makeAccount(2);
    await expectRefused(
      admin,
      { user_id: user.id, wallet_id: wallet, request_id: "r", amount: "1.005" },
      {
        amount: `amount has more decimal places than wallet ${wallet} allows (2)`,
      },
    );
    const ok = await credit(admin, { user_id: user.id, wallet_id: wallet, amount: "1.500" });
    expect(ok.status).toBe(200);
    const balance = await call("GET", "/user-wallet-balance", {
      auth: admin.bearer,
      query: { user_id: user.id, wallet_id: wallet },
    });
    expect(balance.body.data[wallet]).toBe(1.5);
  });

  it("judges an amount's places as sent, never rounded, beside the other field errors", async () => {
    const { admin, user, wallet } = await makeAccount(2);
    const places = `amount has more decimal places than wallet ${wallet} allows (2)`;
    // Rounded half away from zero, 0.004 would be no amount at all: it is refused for its places.
    await expectRefused(
      admin,
      { user_id: user.id, wallet_id: wallet, request_id: "r", amount: "0.004" },
      { amount: places },
    );
    // Every field error of step 1 is reported together, the wallet's own judgement included.
    await expectRefused(
      admin,
      { user_id: user.id, wallet_id: wallet, request_id: "", amount: "1.005" },
      { request_id: "Field Cannot be empty", amount: places },
    );
  });

  it("refuses an amount past 999,999,999,999,999 minor units", async () => {
    const { admin, user, wallet } = await makeAccount(8);
    await expectRefused(
      admin,
      { user_id: user.id, wallet_id: wallet, request_id: "r", amount: "10000000" },
      { amount: "amount is too large" },
    );
    await expectRefused(
      admin,
      { user_id: user.id, wallet_id: wallet, request_id: "r", amount: 90071992.54740991 },
      { amount: "amount is too large" },
    );
  });

  it("keeps exact minor units on 0, 2 and 8 decimal wallets", async () => {
    const admin = await makeAdmin();
    const user = await makeUser();
    const cases = [
      { decimals: 0, amounts: [12000, "3"], expected: 12003 },
      { decimals: 2, amounts: [0.1, 0.2, "100.50"], expected: 100.8 },
      {
        decimals: 8,
        amounts: ["0.00000001", 0.00000002, "9999999.9999998"],
        expected: 9999999.99999983,
      },
    ];
    for (const c of cases) {
      const wallet = await makeWallet(admin, { decimals: c.decimals });
      for (const amount of c.amounts)
        expect((await credit(admin, { user_id: user.id, wallet_id: wallet, amount })).status).toBe(
          200,
        );
      const balance = await call("GET", "/user-wallet-balance", {
        auth: admin.bearer,
        query: { user_id: user.id, wallet_id: wallet },
      });
      expect(balance.body.data[wallet]).toBe(c.expected);
    }
  });

  it("refuses a credit that would take the balance past 999,999,999,999,999 minor units and writes nothing", async () => {
    const { admin, user, wallet } = await makeAccount(8);
    expect(
      (await credit(admin, { user_id: user.id, wallet_id: wallet, amount: "9999999.99999998" }))
        .status,
    ).toBe(200);
    await expectRefused(
      admin,
      { user_id: user.id, wallet_id: wallet, request_id: "r", amount: "0.00000002" },
      {
        amount: "amount would take the balance past the largest balance a wallet can hold",
      },
    );
    expect(
      (await credit(admin, { user_id: user.id, wallet_id: wallet, amount: "0.00000001" })).status,
    ).toBe(200);
    const balance = await call("GET", "/user-wallet-balance", {
      auth: admin.bearer,
      query: { user_id: user.id, wallet_id: wallet },
    });
    expect(balance.text).toContain(`"${wallet}":9999999.99999999`);
  });

  it("reads JSON number literals exactly, not through a rounded double", async () => {
    const { admin, user, wallet } = await makeAccount(2);
    const raw = (amount: string, user_id = String(user.id)) =>
      call("POST", "/credits", {
        auth: admin.bearer,
        headers: { "Content-Type": "application/json" },
        body: `{"user_id":${user_id},"wallet_id":"${wallet}","request_id":"${Math.random()}","amount":${amount}}`,
      });
    const before = await tableCounts();
    expect((await raw("1.00000000000000001")).body.error).toEqual({
      amount: `amount has more decimal places than wallet ${wallet} allows (2)`,
    });
    expect((await raw("1", "12345678901234567890")).body.error).toEqual({
      user_id: "user_id is too large",
    });
    expect((await raw("1e999")).body.error).toEqual({ amount: "amount requires a valid amount" });
    expect(await tableCounts()).toEqual(before);
    expect((await raw("1.50e2")).status).toBe(200);
    expect((await raw("1.000000000000000000000")).status).toBe(200);
    expect((await raw("1e0000001")).status).toBe(200); // JSON allows an exponent's leading zeros: 10
    const balance = await call("GET", "/user-wallet-balance", {
      auth: admin.bearer,
      query: { user_id: user.id, wallet_id: wallet },
    });
    expect(balance.body.data[wallet]).toBe(161);
  });

  it("refuses a request_id over 191 characters and accepts one of 191", async () => {
    const { admin, user, wallet } = await makeAccount();
    await expectRefused(
      admin,
      { user_id: user.id, wallet_id: wallet, request_id: "x".repeat(192), amount: 1 },
      {
        request_id: "request_id must be at most 191 characters",
      },
    );
    expect(
      (
        await credit(admin, {
          user_id: user.id,
          wallet_id: wallet,
          request_id: "é".repeat(191),
          amount: 1,
        })
      ).status,
    ).toBe(200);
  });

  it("answers 404 for an unknown user once the fields are valid", async () => {
    const { admin, wallet } = await makeAccount();
    const before = await tableCounts();
    const res = await call("POST", "/credits", {
      auth: admin.bearer,
      body: { user_id: 987654321, wallet_id: wallet, request_id: "r", amount: 1 },
    });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({
      status_code: 404,
      status: false,
      message: "Invalid User credentials",
      error: ["Unable to reach 987654321"],
    });
    expect(await tableCounts()).toEqual(before);
  });

  it("shares one request_id space per user but not across users", async () => {
    const { admin, user, wallet } = await makeAccount();
    const other = await makeUser();
    expect(
      (
        await credit(admin, {
          user_id: user.id,
          wallet_id: wallet,
          amount: 1,
          request_id: "shared",
        })
      ).status,
    ).toBe(200);
    expect(
      (
        await credit(admin, {
          user_id: other.id,
          wallet_id: wallet,
          amount: 1,
          request_id: "SHARED",
        })
      ).status,
    ).toBe(200);
    expect(
      (
        await credit(admin, {
          user_id: user.id,
          wallet_id: wallet,
          amount: 1,
          request_id: "Shared",
        })
      ).status,
    ).toBe(409);
  });
});
