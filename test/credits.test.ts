import { describe, expect, it } from "vitest";
import {
  alreadyExists,
  CLEAN,
  call,
  credit,
  ledgerViolations,
  makeAdmin,
  makeUser,
  makeWallet,
  tableCounts,
  unique,
} from "./helpers";

describe("POST /credits", () => {
  it("credits a user and answers 200 with the transaction id", async () => {
    const admin = await makeAdmin();
    const user = await makeUser();
    const wallet = await makeWallet(admin);
    const res = await credit(admin, { user_id: user.id, wallet_id: wallet, amount: 1500 });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      status_code: 200,
      status: true,
      message: "Transaction Completed",
      data: { transaction_id: expect.any(Number), user_id: user.id },
    });
    const balance = await call("GET", "/user-wallet-balance", {
      auth: admin.bearer,
      query: { user_id: user.id, wallet_id: wallet, formatted: "yes" },
    });
    expect(balance.body.data).toEqual({ [wallet]: 1500, formatted: { [wallet]: "₦1,500.00" } });
  });

  it("with a used request_id answers 409 and writes nothing", async () => {
    const admin = await makeAdmin();
    const user = await makeUser();
    const wallet = await makeWallet(admin);
    const first = await credit(admin, {
      user_id: user.id,
      wallet_id: wallet,
      amount: 10,
      request_id: "Order-1",
    });
    const before = await tableCounts();
    const again = await credit(admin, {
      user_id: user.id,
      wallet_id: wallet,
      amount: 99,
      request_id: "order-1",
    });
    expect(again.status).toBe(409);
    expect(again.body).toEqual(alreadyExists(first.body.data.transaction_id));
    expect(await tableCounts()).toEqual(before);
  });

  it("applies 50 concurrent duplicates exactly once", async () => {
    const admin = await makeAdmin();
    const user = await makeUser();
    const wallet = await makeWallet(admin);
    const request_id = unique("dup");
    const replies = await Promise.all(
      Array.from({ length: 50 }, () =>
        credit(admin, { user_id: user.id, wallet_id: wallet, amount: 7, request_id }),
      ),
    );
    expect(replies.filter((r) => r.status === 200)).toHaveLength(1);
    expect(replies.filter((r) => r.status === 409)).toHaveLength(49);
    const balance = await call("GET", "/user-wallet-balance", {
      auth: admin.bearer,
      query: { user_id: user.id, wallet_id: wallet },
    });
    expect(balance.body.data[wallet]).toBe(7);
    expect(await ledgerViolations()).toEqual(CLEAN);
  });

  it("lands 200 concurrent distinct credits to the exact sum", async () => {
    const admin = await makeAdmin();
    const user = await makeUser();
    const wallet = await makeWallet(admin);
    const replies = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        credit(admin, { user_id: user.id, wallet_id: wallet, amount: `${i}.01` }),
      ),
    );
    expect(replies.every((r) => r.status === 200)).toBe(true);
    const balance = await call("GET", "/user-wallet-balance", {
      auth: admin.bearer,
      query: { user_id: user.id, wallet_id: wallet },
    });
    // sum of i for 0..199 plus 200 × 0.01
    expect(balance.body.data[wallet]).toBe(19902);
    expect(await ledgerViolations()).toEqual(CLEAN);
  });
});
