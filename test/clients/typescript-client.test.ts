// The generated TypeScript client (clients/typescript) against a running wrangler dev: a credit,
// its repeat (409), a balance, a history page, a hold and its capture, and a refusal.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createWalletClient, type WalletClient } from "../../clients/typescript";
import { ADMIN, startClientServer, unique } from "./server";

const API = "/wp-json/wallet/v1";
let stop: () => Promise<void>;
let wallet: WalletClient;
let walletId: string;
let userId: number;

beforeAll(async () => {
  const server = await startClientServer();
  stop = () => server.stop({ keepState: false });
  const anonymous = createWalletClient(server.base);
  const login = await anonymous.POST(`${API}/users/login`, {
    body: { user_email: ADMIN.email, user_password: ADMIN.password },
  });
  if (!login.data) throw new Error(`login refused: ${JSON.stringify(login.error)}`);
  wallet = createWalletClient(server.base, {
    auth: { token: login.data.data.access_token },
  });
  walletId = unique("w");
  const created = await wallet.POST(`${API}/wallets`, {
    body: { wallet_id: walletId, wallet_name: "Naira", wallet_symbol: "₦", wallet_decimal: 2 },
  });
  expect(created.error).toBeUndefined();
  const user = await wallet.POST(`${API}/users`, {
    body: {
      username: unique("u"),
      user_email: `${unique("u")}@example.test`,
      user_password: "a-long-pass",
    },
  });
  if (!user.data) throw new Error(`user refused: ${JSON.stringify(user.error)}`);
  userId = user.data.data.id;
}, 120_000);

afterAll(() => stop?.());

describe("the TypeScript client against wrangler dev", () => {
  it("credits, and answers the repeat with 409 Transaction already exists", async () => {
    const body = {
      user_id: userId,
      wallet_id: walletId,
      request_id: unique("order-"),
      amount: "25.00",
    };
    const first = await wallet.createCredit({ body });
    expect(first.response.status).toBe(200);
    expect(first.data?.status).toBe(true);
    expect(first.data?.data.user_id).toBe(userId);
    const again = await wallet.createCredit({ body });
    expect(again.response.status).toBe(409);
    expect(again.error).toMatchObject({ status: false, message: "Transaction already exists" });
  });

  it("reads the balance and a page of history", async () => {
    const balance = await wallet.readBalance({
      params: { query: { user_id: userId, wallet_id: walletId } },
    });
    expect(balance.data?.data[walletId]).toBe(25);
    const history = await wallet.listTransactions({
      params: {
        query: { user_id: userId, security_code: "0", wallet_id: walletId, page: 1, per_page: 10 },
      },
    });
    expect(history.data?.data).toHaveLength(1);
  });

  it("places a hold and captures part of it", async () => {
    const placed = await wallet.placeHold({
      body: { user_id: userId, wallet_id: walletId, request_id: unique("hold-"), amount: 10 },
    });
    const holdId = placed.data?.data.hold_id;
    expect(placed.data?.data.status).toBe("held");
    const captured = await wallet.captureHold({
      params: { path: { id: holdId! } },
      body: { amount: "4.00" },
    });
    expect(captured.data?.data.status).toBe("captured");
    expect(captured.data?.data.captured_amount).toBe(4);
  });

  it("answers a debit past the balance as a refusal, with its message", async () => {
    const refused = await wallet.createDebit({
      body: { user_id: userId, wallet_id: walletId, request_id: unique("debit-"), amount: 1000 },
    });
    expect(refused.response.status).toBe(400);
    expect(refused.error?.message).toBe("Insufficient Balance");
    expect(refused.data).toBeUndefined();
  });
});
