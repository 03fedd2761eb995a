import { describe, expect, it } from "vitest";
import {
  call,
  credit,
  FORBIDDEN,
  makeAdmin,
  makeKey,
  makeUser,
  makeWallet,
  type TestUser,
  type WalletSpec,
} from "./helpers";

const balance = (auth: TestUser, query: Record<string, string | number>) =>
  call("GET", "/user-wallet-balance", { auth: auth.bearer, query });

/** An administrator, a subscriber and one wallet, optionally already credited for the subscriber. */
async function setup(spec: WalletSpec = {}, amount?: number | string) {
  const admin = await makeAdmin();
  const user = await makeUser();
  const wallet = await makeWallet(admin, spec);
  if (amount !== undefined)
    expect((await credit(admin, { user_id: user.id, wallet_id: wallet, amount })).status).toBe(200);
  return { admin, user, wallet };
}

const ok = (data: unknown) => ({
  status_code: 200,
  status: true,
  message: "Wallet Balance retrieved",
  data,
});
const invalid = (error: unknown) => ({
  status_code: 400,
  status: false,
  message: "invalid input",
  error,
});

describe("GET /user-wallet-balance", () => {
  it("answers one wallet's balance as a number", async () => {
    const { admin, user, wallet } = await setup({}, 1500);
    const res = await balance(admin, { user_id: user.id, wallet_id: wallet });
    expect(res.status).toBe(200);
    expect(res.body).toStrictEqual(ok({ [wallet]: 1500 }));
    expect(res.headers.get("content-type")).toBe("application/json; charset=UTF-8");
  });

  it("answers several wallets keyed lowercase in request order, ignoring spaces and repeats", async () => {
    const { admin, user, wallet: first } = await setup({}, 10);
    const second = await makeWallet(admin);
    await credit(admin, { user_id: user.id, wallet_id: second, amount: 20 });
    const res = await balance(admin, {
      user_id: user.id,
      wallet_id: ` ${second.toUpperCase()} , ${first} ,${second}`,
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toStrictEqual({ [second]: 20, [first]: 10 });
    expect(Object.keys(res.body.data)).toEqual([second, first]);
  });

  it("adds formatted strings beside the wallet keys with formatted=yes", async () => {
    const { admin, user, wallet } = await setup({}, 1500);
    const res = await balance(admin, { user_id: user.id, wallet_id: wallet, formatted: "yes" });
    expect(res.text).toBe(
      JSON.stringify(ok({ [wallet]: 1500, formatted: { [wallet]: "₦1,500.00" } })),
    );
  });

  it("refuses formatted sent as PHP's list, as it refuses a JSON list", async () => {
    const { admin, user, wallet } = await setup({}, 1500);
    for (const name of ["formatted[]", "formatted[x]"]) {
      const res = await balance(admin, { user_id: user.id, wallet_id: wallet, [name]: "yes" });
      expect(res.body).toStrictEqual(invalid({ formatted: "formatted must be text" }));
    }
  });

  it("keys formatted strings like the balances for several wallets and symbol positions", async () => {
    const {
      admin,
      user,
      wallet: coin,
    } = await setup({ symbol: "RMPNCOIN", position: "right", decimals: 0 }, 12000);
    const dollar = await makeWallet(admin, { symbol: "$" });
    const res = await balance(admin, {
      user_id: user.id,
      wallet_id: `${dollar},${coin}`,
      formatted: "yes",
    });
    expect(res.text).toBe(
      JSON.stringify(
        ok({
          [dollar]: 0,
          [coin]: 12000,
          formatted: { [dollar]: "$0.00", [coin]: "12,000 RMPNCOIN" },
        }),
      ),
    );
  });

  it("leaves formatted out unless asked for", async () => {
    const { admin, user, wallet } = await setup({}, 5);
    expect(
      (await balance(admin, { user_id: user.id, wallet_id: wallet, formatted: "no" })).body.data,
    ).toStrictEqual({ [wallet]: 5 });
  });

  it("answers 0 for a wallet the user never used", async () => {
    const { admin, user, wallet } = await setup();
    expect((await balance(admin, { user_id: user.id, wallet_id: wallet })).body).toStrictEqual(
      ok({ [wallet]: 0 }),
    );
  });

  it("gives exact JSON numbers for wallets with 0, 2 and 8 decimals", async () => {
    const { admin, user, wallet: whole } = await setup({ decimals: 0 }, "12000");
    const cents = await makeWallet(admin, { decimals: 2 });
    const sats = await makeWallet(admin, { decimals: 8 });
    await credit(admin, { user_id: user.id, wallet_id: cents, amount: "100.50" });
    await credit(admin, { user_id: user.id, wallet_id: sats, amount: "0.00000001" });
    const res = await balance(admin, { user_id: user.id, wallet_id: `${whole},${cents},${sats}` });
    expect(res.body.data).toStrictEqual({ [whole]: 12000, [cents]: 100.5, [sats]: 0.00000001 });
  });

  it("adds decimal amounts without binary floating-point error", async () => {
    const { admin, user, wallet } = await setup({}, "0.10");
    await credit(admin, { user_id: user.id, wallet_id: wallet, amount: 0.2 });
    const res = await balance(admin, { user_id: user.id, wallet_id: wallet, formatted: "yes" });
    expect(res.body.data).toStrictEqual({ [wallet]: 0.3, formatted: { [wallet]: "₦0.30" } });
  });

  it("reads the caller's own balance when user_id is omitted", async () => {
    const { user, wallet } = await setup({}, 1500);
    expect((await balance(user, { wallet_id: wallet })).body).toStrictEqual(ok({ [wallet]: 1500 }));
  });

  it("lets a subscriber read its own balance by user_id", async () => {
    const { user, wallet } = await setup({}, 42);
    const res = await balance(user, { user_id: user.id, wallet_id: wallet });
    expect(res.status).toBe(200);
    expect(res.body.data).toStrictEqual({ [wallet]: 42 });
  });

  it("refuses a subscriber reading another user, existing or not, with 403", async () => {
    const { admin, user, wallet } = await setup();
    // A user_id the rule refuses ("abc", zero, negative) names nobody the subscriber is: 403 too.
    for (const user_id of [admin.id, 987654321, "abc", "0", "-4"]) {
      const res = await balance(user, { user_id, wallet_id: wallet });
      expect(res.status).toBe(403);
      expect(res.body).toStrictEqual(FORBIDDEN);
    }
  });

  it("reads up to 50 wallet ids and refuses 51 for their number", async () => {
    const { user } = await setup();
    const ids = (n: number) => Array.from({ length: n }, (_, i) => `nosuch${i}`).join(",");
    // 50 well-formed ids are read, and the first unknown one is named.
    const fifty = await balance(user, { wallet_id: ids(50) });
    expect([fifty.status, fifty.body.error]).toEqual([
      400,
      { wallet_id: "wallet_id not found: nosuch0" },
    ]);
    const more = await balance(user, { wallet_id: ids(51) });
    expect([more.status, more.body.error]).toEqual([
      400,
      { wallet_id: "wallet_id lists at most 50 wallets" },
    ]);
  });

  it("answers 400 when wallet_id is missing or empty", async () => {
    const { admin, user } = await setup();
    const queries: Record<string, string | number>[] = [
      { user_id: user.id },
      { user_id: user.id, wallet_id: "" },
      { user_id: user.id, wallet_id: " , " },
    ];
    for (const query of queries) {
      const res = await balance(admin, query);
      expect(res.status).toBe(400);
      expect(res.body).toStrictEqual(invalid({ wallet_id: "Field Cannot be empty" }));
    }
  });

  it("answers 400 naming an unknown wallet id", async () => {
    const { admin, user, wallet } = await setup();
    const res = await balance(admin, { user_id: user.id, wallet_id: `${wallet},nosuchwallet` });
    expect(res.status).toBe(400);
    expect(res.body).toStrictEqual(invalid({ wallet_id: "wallet_id not found: nosuchwallet" }));
  });

  it("answers 400 for a user_id that is not a positive integer", async () => {
    const { admin, wallet } = await setup();
    const cases: [string, string][] = [
      ["abc", "user_id requires an integer"],
      ["-3", "user_id requires an integer"],
      ["1.5", "user_id requires an integer"],
      ["0", "user_id cannot be zero"],
      ["00", "user_id cannot be zero"],
    ];
    for (const [user_id, message] of cases) {
      const res = await balance(admin, { user_id, wallet_id: wallet });
      expect(res.status, user_id).toBe(400);
      expect(res.body, user_id).toStrictEqual(invalid({ user_id: message }));
    }
  });

  it("answers 404 for an unknown user", async () => {
    const { admin, wallet } = await setup();
    const res = await balance(admin, { user_id: 987654321, wallet_id: wallet });
    expect(res.status).toBe(404);
    expect(res.body).toStrictEqual({
      status_code: 404,
      status: false,
      message: "Invalid User credentials",
      error: ["Unable to reach 987654321"],
    });
  });

  it("answers 404 for an unknown user in a wallet already read (the isolate knows the wallet)", async () => {
    const { admin, user, wallet } = await setup({}, 5);
    expect((await balance(admin, { user_id: user.id, wallet_id: wallet })).status).toBe(200);
    const res = await balance(admin, { user_id: 987654322, wallet_id: wallet });
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ error: ["Unable to reach 987654322"] });
  });

  it("reports an unknown wallet (400) before an unknown user (404)", async () => {
    const { admin } = await setup();
    const res = await balance(admin, { user_id: 987654321, wallet_id: "nosuchwallet" });
    expect(res.status).toBe(400);
    expect(res.body).toStrictEqual(invalid({ wallet_id: "wallet_id not found: nosuchwallet" }));
  });

  it("accepts a read-scoped API key and refuses a write-only key with 403", async () => {
    const { user, wallet } = await setup({}, 9);
    const read = await makeKey(user, "read");
    const write = await makeKey(user, "write");
    const withKey = (auth: string) =>
      call("GET", "/user-wallet-balance", { auth, query: { wallet_id: wallet } });
    expect((await withKey(read.header)).body).toStrictEqual(ok({ [wallet]: 9 }));
    expect((await withKey(write.header)).body).toStrictEqual(FORBIDDEN);
  });

  it("answers 401 without credentials", async () => {
    const { wallet } = await setup();
    const res = await call("GET", "/user-wallet-balance", { query: { wallet_id: wallet } });
    expect(res.status).toBe(401);
    expect(res.body).toStrictEqual({
      status_code: 401,
      status: false,
      message: "Permission denied",
      error: { unauthorize: "No authorization provided" },
    });
  });

  it("reads its parameters from the plain-permalink query string", async () => {
    const { admin, user, wallet } = await setup({}, 7);
    const res = await call(
      "GET",
      `/?rest_route=/wallet/v1/user-wallet-balance&user_id=${user.id}&wallet_id=${wallet}`,
      { auth: admin.bearer },
    );
    expect(res.body).toStrictEqual(ok({ [wallet]: 7 }));
  });
});
