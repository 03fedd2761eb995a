// Readings of the contract (shared/spec/contract.md) at its edges, where it is silent or terse and
// the service keeps WordPress's and PHP's ways: each is held here so that it stays a decision.
import { describe, expect, it } from "vitest";
import {
  API,
  balanceOf,
  call,
  credit,
  type Json,
  makeAccount,
  makeUser,
  makeWallet,
  transfer,
  unique,
} from "./helpers";

const invalidKeys = (body: Json) => Object.keys(body.error ?? {});

describe("GET /transactions: the security code comes before the user", () => {
  const vars = { TRANSACTIONS_SECURITY_CODE: "4321" };
  const list = (auth: string, query: Record<string, string | number>) =>
    call("GET", "/transactions", { auth, query, vars });

  it("a wrong code is 401 whether or not the user exists, so it tells nobody which ids exist", async () => {
    const { admin, user } = await makeAccount();
    for (const user_id of [user.id, 99_999_999]) {
      const res = await list(admin.bearer, { user_id, security_code: 1111 });
      expect(res.status, String(user_id)).toBe(401);
      expect(res.body.message).toBe("Security verification failed");
    }
    // The right code reaches the user: unknown is 404, as in credits.
    const unknown = await list(admin.bearer, { user_id: 99_999_999, security_code: 4321 });
    expect(unknown.status).toBe(404);
  });

  it("a malformed parameter is 400 before any code is compared", async () => {
    const { admin } = await makeAccount();
    const res = await list(admin.bearer, { user_id: "abc", security_code: 1111 });
    expect(res.status).toBe(400);
    expect(invalidKeys(res.body)).toEqual(["user_id"]);
  });

  it("the code is compared as the integer's text: 04321 is not 4321", async () => {
    const { admin, user } = await makeAccount();
    const res = await list(admin.bearer, { user_id: user.id, security_code: "04321" });
    expect(res.status).toBe(401);
  });
});

describe("GET /user-wallet-balance: how a list of wallets and a user are read", () => {
  it("skips empty items of a comma-separated list", async () => {
    const { admin, user, wallet } = await makeAccount();
    const other = await makeWallet(admin);
    await credit(admin, {
      user_id: user.id,
      wallet_id: wallet,
      amount: 3,
      request_id: unique("r"),
    });
    for (const [list, keys] of [
      [`${wallet},`, [wallet]],
      [`,${wallet}`, [wallet]],
      [`${wallet},,${other}`, [wallet, other]],
    ] as const) {
      const res = await call("GET", "/user-wallet-balance", {
        auth: admin.bearer,
        query: { user_id: user.id, wallet_id: list },
      });
      expect(res.status, list).toBe(200);
      expect(Object.keys(res.body.data), list).toEqual(keys);
      expect(res.body.data[wallet]).toBe(3);
    }
  });

  it("a parameter sent twice is read as PHP reads it: the last one", async () => {
    const { admin, user, wallet } = await makeAccount();
    const other = await makeWallet(admin);
    const res = await call(
      "GET",
      `${API}/user-wallet-balance?user_id=${user.id}&wallet_id=${wallet}&wallet_id=${other}`,
      { auth: admin.bearer },
    );
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.data)).toEqual([other]);
  });

  it("a subscriber naming itself with leading zeros is itself", async () => {
    const { admin, wallet } = await makeAccount();
    const user = await makeUser();
    await credit(admin, {
      user_id: user.id,
      wallet_id: wallet,
      amount: 2,
      request_id: unique("r"),
    });
    const res = await call("GET", "/user-wallet-balance", {
      auth: user.bearer,
      query: { user_id: `0${user.id}`, wallet_id: wallet },
    });
    expect(res.status).toBe(200);
    expect(res.body.data[wallet]).toBe(2);
  });
});

describe("POST /transfers: the request_id is the sender's", () => {
  it("moves money under a request_id the receiver has already used for its own credit", async () => {
    const { admin, user: receiver, wallet } = await makeAccount();
    const sender = await makeUser();
    const requestId = unique("shared");
    await credit(admin, {
      user_id: sender.id,
      wallet_id: wallet,
      amount: 10,
      request_id: unique("s"),
    });
    const own = await credit(admin, {
      user_id: receiver.id,
      wallet_id: wallet,
      amount: 1,
      request_id: requestId,
    });
    expect(own.status).toBe(200);
    const moved = await transfer(admin, {
      from_user_id: sender.id,
      to_user_id: receiver.id,
      wallet_id: wallet,
      amount: 4,
      request_id: requestId,
    });
    expect(moved.status, moved.text).toBe(200);
    expect(await balanceOf(admin, sender.id, wallet)).toBe(6);
    expect(await balanceOf(admin, receiver.id, wallet)).toBe(5);
  });
});
