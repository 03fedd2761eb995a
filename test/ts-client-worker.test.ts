// The TypeScript client (clients/typescript) against the app inside workerd: its fetch is the
// app's own, so each call goes through the real routes and D1. Amounts go out as the text given and
// come back exactly; each refusal is an `{ error }` with the catalogue's message.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createWalletClient } from "../clients/typescript";
import { makeAdmin, makeKey, makeUser, makeWallet, sharedApp, unique } from "./helpers";

const clientOf = (auth?: { token: string } | { username: string; key: string }) =>
  createWalletClient("http://localhost/", {
    ...(auth ? { auth } : {}),
    fetch: async (request: Request) => sharedApp().request(request, undefined, env),
  });

describe("the TypeScript client inside workerd", () => {
  it("keeps every digit of an amount sent as text, and reads it back exactly", async () => {
    const admin = await makeAdmin();
    const user = await makeUser("subscriber", unique("u"));
    const wallet_id = await makeWallet(admin, { decimals: 8, symbol: "B" });
    const { key } = await makeKey(admin, "read-write");
    const wallet = clientOf({ username: admin.username, key });
    const body = {
      user_id: user.id,
      wallet_id,
      request_id: unique("r"),
      amount: "1234567.12345678",
    };
    const first = await wallet.createCredit({ body });
    expect(first.data?.data.user_id).toBe(user.id);
    const again = await wallet.createCredit({ body });
    expect(again.response.status).toBe(409);
    expect(again.error?.message).toBe("Transaction already exists");
    const balance = await wallet.readBalance({
      params: { query: { user_id: user.id, wallet_id } },
    });
    expect(String(balance.data?.data[wallet_id])).toBe("1234567.12345678");
    const history = await wallet.listTransactions({
      params: { query: { user_id: user.id, security_code: "0", page: 1, per_page: 5 } },
    });
    expect(history.data?.data[0]?.amount).toBe("1234567.12345678");
  });

  it("answers each refusal as { error }, with its status and message", async () => {
    const admin = await makeAdmin();
    const user = await makeUser("subscriber", unique("u"));
    const wallet_id = await makeWallet(admin);
    const wallet = clientOf({ token: admin.token });
    const debit = await wallet.createDebit({
      body: { user_id: user.id, wallet_id, request_id: unique("r"), amount: "1.00" },
    });
    expect([debit.response.status, debit.error?.message]).toEqual([400, "Insufficient Balance"]);
    const invalid = await wallet.createCredit({
      body: { user_id: user.id, wallet_id, request_id: unique("r"), amount: "1.005" },
    });
    expect([invalid.response.status, invalid.error?.message]).toEqual([400, "invalid input"]);
    const anonymous = await clientOf().readBalance({ params: { query: { wallet_id } } });
    expect([anonymous.response.status, anonymous.error?.message]).toEqual([
      401,
      "Permission denied",
    ]);
    const other = await clientOf({ token: user.token }).readBalance({
      params: { query: { user_id: admin.id, wallet_id } },
    });
    expect([other.response.status, other.error?.message]).toEqual([403, "Permission denied"]);
    const missing = await wallet.readHold({ params: { path: { id: 2_000_000_000 } } });
    expect([missing.response.status, missing.error?.message]).toEqual([404, "Hold not found"]);
    const twice = await wallet.createWallet({
      body: { wallet_id, wallet_name: "Again", wallet_symbol: "A" },
    });
    expect([twice.response.status, twice.error?.message]).toEqual([409, "Wallet Already Exists"]);
    const login = await clientOf().login({
      body: { user_email: user.email, user_password: "wrong password" },
    });
    expect(login.error).toMatchObject({ status: "failed", message: "Validation error" });
  });
});
