import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { MAX_MINOR } from "../src/ledger/money";
import {
  alreadyExists,
  balanceOf,
  CLEAN,
  call,
  credit,
  debit,
  INSUFFICIENT,
  type Json,
  ledgerViolations,
  makeAccount,
  makeKey,
  makeUser,
  makeWallet,
  type TestUser,
  tableCounts,
  unique,
} from "./helpers";

type EntryRow = {
  id: number;
  txn_type: string;
  amount_minor: number;
  balance_before_minor: number;
  balance_after_minor: number;
  transfer_id: string | null;
  reverses_id: number | null;
};

async function entries(userId: number, wallet: string) {
  const { results } = await env.DB.prepare(
    `SELECT id, txn_type, amount_minor, balance_before_minor, balance_after_minor, transfer_id, reverses_id
     FROM transactions WHERE user_id = ? AND wallet_id = ? ORDER BY id`,
  )
    .bind(userId, wallet)
    .all<EntryRow>();
  return results;
}

async function balanceRow(userId: number, wallet: string) {
  return env.DB.prepare(
    `SELECT balance_minor, entry_count FROM balances WHERE user_id = ? AND wallet_id = ?`,
  )
    .bind(userId, wallet)
    .first<{ balance_minor: number; entry_count: number }>();
}

/** A request that must be refused with `expected` and leave every table as it was. */
async function expectRefusedDebit(admin: TestUser, body: Json, status: number, expected: Json) {
  const before = await tableCounts();
  const res = await call("POST", "/debits", { auth: admin.bearer, body });
  expect(res.status).toBe(status);
  expect(res.body).toEqual(expected);
  expect(await tableCounts()).toEqual(before);
  return res;
}

describe("POST /debits", () => {
  it("debits a user and answers 200 with the transaction id and user id", async () => {
    const { admin, user, wallet } = await makeAccount();
    await credit(admin, { user_id: user.id, wallet_id: wallet, amount: 1500 });
    const res = await debit(admin, { user_id: user.id, wallet_id: wallet, amount: "250.50" });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      status_code: 200,
      status: true,
      message: "Transaction Completed",
      data: { transaction_id: expect.any(Number), user_id: user.id },
    });
    expect(res.headers.get("content-type")).toBe("application/json; charset=UTF-8");
    expect(await balanceOf(admin, user.id, wallet)).toBe(1249.5);
  });

  it("records the debit as a DEBIT entry with the balance before and after it", async () => {
    const { admin, user, wallet } = await makeAccount();
    await credit(admin, { user_id: user.id, wallet_id: wallet, amount: 100 });
    const res = await debit(admin, {
      user_id: user.id,
      wallet_id: wallet,
      amount: "30.25",
      note: "rent",
    });
    const rows = await entries(user.id, wallet);
    expect(rows).toHaveLength(2);
    expect(rows[1]).toEqual({
      id: res.body.data.transaction_id,
      txn_type: "DEBIT",
      amount_minor: 3025,
      balance_before_minor: 10000,
      balance_after_minor: 6975,
      transfer_id: null,
      reverses_id: null,
    });
    const record = await call("GET", `/transactions/${res.body.data.transaction_id}`, {
      auth: admin.bearer,
    });
    expect(record.status).toBe(200);
    expect(record.body.data).toMatchObject({
      ID: res.body.data.transaction_id,
      post_author: String(user.id),
      txn_type: "DEBIT",
      amount: "30.25",
      note: "rent",
    });
  });

  it("shows the debit in the user's transaction list as DEBIT", async () => {
    const { admin, user, wallet } = await makeAccount();
    await credit(admin, { user_id: user.id, wallet_id: wallet, amount: 10 });
    const res = await debit(admin, { user_id: user.id, wallet_id: wallet, amount: 4 });
    const list = await call("GET", "/transactions", {
      auth: admin.bearer,
      query: { user_id: user.id, security_code: 1, txn_type: "DEBIT" },
    });
    expect(list.status).toBe(200);
    expect(list.body.data.map((r: Json) => [r.ID, r.txn_type, r.amount_formatted_disp])).toEqual([
      [res.body.data.transaction_id, "DEBIT", "₦4.00"],
    ]);
  });

  it("refuses an overdraft with 400 Insufficient Balance and writes nothing", async () => {
    const { admin, user, wallet } = await makeAccount();
    await credit(admin, { user_id: user.id, wallet_id: wallet, amount: 10 });
    await expectRefusedDebit(
      admin,
      { user_id: user.id, wallet_id: wallet, amount: 11, request_id: unique("r") },
      400,
      INSUFFICIENT,
    );
    expect(await balanceOf(admin, user.id, wallet)).toBe(10);
    expect(await entries(user.id, wallet)).toHaveLength(1);
  });

  it("refuses a debit from a wallet the user never used, creating no balance row", async () => {
    const { admin, user, wallet } = await makeAccount();
    await expectRefusedDebit(
      admin,
      { user_id: user.id, wallet_id: wallet, amount: "0.01", request_id: unique("r") },
      400,
      INSUFFICIENT,
    );
    expect(await balanceRow(user.id, wallet)).toBeNull();
    expect(await balanceOf(admin, user.id, wallet)).toBe(0);
  });

  it("does not let a balance in another wallet cover the debit", async () => {
    const { admin, user, wallet } = await makeAccount();
    const other = await makeWallet(admin);
    await credit(admin, { user_id: user.id, wallet_id: other, amount: 1000 });
    await expectRefusedDebit(
      admin,
      { user_id: user.id, wallet_id: wallet, amount: 1, request_id: unique("r") },
      400,
      INSUFFICIENT,
    );
  });

  it("refuses an overdraft without consuming its request_id", async () => {
    const { admin, user, wallet } = await makeAccount();
    await credit(admin, { user_id: user.id, wallet_id: wallet, amount: 5 });
    const request_id = unique("r");
    await expectRefusedDebit(
      admin,
      { user_id: user.id, wallet_id: wallet, amount: 6, request_id },
      400,
      INSUFFICIENT,
    );
    const retry = await debit(admin, {
      user_id: user.id,
      wallet_id: wallet,
      amount: 5,
      request_id,
    });
    expect(retry.status).toBe(200);
    expect(await balanceOf(admin, user.id, wallet)).toBe(0);
  });

  describe("exact boundaries", () => {
    it("debits the whole balance to exactly zero on a 2-decimal wallet", async () => {
      const { admin, user, wallet } = await makeAccount(2);
      await credit(admin, { user_id: user.id, wallet_id: wallet, amount: "15.37" });
      const res = await debit(admin, { user_id: user.id, wallet_id: wallet, amount: "15.37" });
      expect(res.status).toBe(200);
      expect(await balanceOf(admin, user.id, wallet)).toBe(0);
      expect((await entries(user.id, wallet)).at(-1)).toMatchObject({
        balance_before_minor: 1537,
        balance_after_minor: 0,
      });
    });

    it("refuses one minor unit more than the balance on a 2-decimal wallet", async () => {
      const { admin, user, wallet } = await makeAccount(2);
      await credit(admin, { user_id: user.id, wallet_id: wallet, amount: "15.37" });
      await expectRefusedDebit(
        admin,
        { user_id: user.id, wallet_id: wallet, amount: "15.38", request_id: unique("r") },
        400,
        INSUFFICIENT,
      );
      expect(await balanceOf(admin, user.id, wallet)).toBe(15.37);
    });

    it("debits the whole balance and refuses one unit more on a 0-decimal wallet", async () => {
      const { admin, user, wallet } = await makeAccount(0);
      await credit(admin, { user_id: user.id, wallet_id: wallet, amount: 12000 });
      await expectRefusedDebit(
        admin,
        { user_id: user.id, wallet_id: wallet, amount: 12001, request_id: unique("r") },
        400,
        INSUFFICIENT,
      );
      expect(
        (await debit(admin, { user_id: user.id, wallet_id: wallet, amount: "12000" })).status,
      ).toBe(200);
      expect(await balanceOf(admin, user.id, wallet)).toBe(0);
    });

    it("debits the whole balance and refuses one unit more on an 8-decimal wallet", async () => {
      const { admin, user, wallet } = await makeAccount(8);
      await credit(admin, { user_id: user.id, wallet_id: wallet, amount: "0.12345678" });
      await expectRefusedDebit(
        admin,
        { user_id: user.id, wallet_id: wallet, amount: "0.12345679", request_id: unique("r") },
        400,
        INSUFFICIENT,
      );
      expect(
        (await debit(admin, { user_id: user.id, wallet_id: wallet, amount: "0.12345678" })).status,
      ).toBe(200);
      expect(await balanceOf(admin, user.id, wallet)).toBe(0);
    });

    it("refuses any further debit once the balance is zero", async () => {
      const { admin, user, wallet } = await makeAccount();
      await credit(admin, { user_id: user.id, wallet_id: wallet, amount: 3 });
      expect((await debit(admin, { user_id: user.id, wallet_id: wallet, amount: 3 })).status).toBe(
        200,
      );
      await expectRefusedDebit(
        admin,
        { user_id: user.id, wallet_id: wallet, amount: "0.01", request_id: unique("r") },
        400,
        INSUFFICIENT,
      );
    });

    it("debits the largest balance a wallet can hold in full", async () => {
      const { admin, user, wallet } = await makeAccount(0);
      const max = String(MAX_MINOR);
      expect(
        (await credit(admin, { user_id: user.id, wallet_id: wallet, amount: max })).status,
      ).toBe(200);
      expect(
        (await debit(admin, { user_id: user.id, wallet_id: wallet, amount: max })).status,
      ).toBe(200);
      expect(await balanceOf(admin, user.id, wallet)).toBe(0);
    });
  });

  describe("validation, as credits", () => {
    const invalid = (error: Record<string, string>) => ({
      status_code: 400,
      status: false,
      message: "invalid input",
      error,
    });

    it("reports every empty field together, in the plugin's key order", async () => {
      const { admin } = await makeAccount();
      await expectRefusedDebit(
        admin,
        { user_id: "", wallet_id: "", request_id: "", amount: "" },
        400,
        invalid({
          user_id: "Field Cannot be empty",
          wallet_id: "Field Cannot be empty",
          request_id: "Field Cannot be empty",
          amount: "Field Cannot be empty",
        }),
      );
    });

    it("treats a missing user_id as zero", async () => {
      const { admin, wallet } = await makeAccount();
      await expectRefusedDebit(
        admin,
        { wallet_id: wallet, request_id: "r", amount: 1 },
        400,
        invalid({ user_id: "user_id cannot be zero" }),
      );
    });

    it("refuses a non-integer user_id", async () => {
      const { admin, wallet } = await makeAccount();
      await expectRefusedDebit(
        admin,
        { user_id: "abc", wallet_id: wallet, request_id: "r", amount: 1 },
        400,
        invalid({ user_id: "user_id requires an integer" }),
      );
    });

    it("refuses an unknown wallet", async () => {
      const { admin, user } = await makeAccount();
      await expectRefusedDebit(
        admin,
        { user_id: user.id, wallet_id: "nosuchwallet", request_id: "r", amount: 1 },
        400,
        invalid({ wallet_id: "wallet_id not found" }),
      );
    });

    it.each([
      ["abc", "amount requires a valid amount"],
      ["-5", "amount must be greater than zero"],
      [0, "amount must be greater than zero"],
      ["0.00", "amount must be greater than zero"],
    ])("refuses amount %j", async (amount, message) => {
      const { admin, user, wallet } = await makeAccount();
      await credit(admin, { user_id: user.id, wallet_id: wallet, amount: 100 });
      await expectRefusedDebit(
        admin,
        { user_id: user.id, wallet_id: wallet, request_id: "r", amount },
        400,
        invalid({ amount: message }),
      );
    });

    it("refuses more decimals than the wallet has, even when the balance would cover it", async () => {
      const { admin, user, wallet } = await makeAccount(2);
      await credit(admin, { user_id: user.id, wallet_id: wallet, amount: 100 });
      const res = await expectRefusedDebit(
        admin,
        { user_id: user.id, wallet_id: wallet, request_id: "r", amount: "1.005" },
        400,
        {
          status_code: 400,
          status: false,
          message: "invalid input",
          error: { amount: expect.any(String) },
        },
      );
      expect(res.body.error.amount).not.toBe("Insufficient Balance");
    });

    it("validates before checking the balance", async () => {
      const { admin, user, wallet } = await makeAccount();
      await expectRefusedDebit(
        admin,
        { user_id: user.id, wallet_id: wallet, request_id: "", amount: 5 },
        400,
        invalid({ request_id: "Field Cannot be empty" }),
      );
    });

    it("answers 404 for an unknown user, before the balance check", async () => {
      const { admin, wallet } = await makeAccount();
      await expectRefusedDebit(
        admin,
        { user_id: 987654321, wallet_id: wallet, request_id: "r", amount: 5 },
        404,
        {
          status_code: 404,
          status: false,
          message: "Invalid User credentials",
          error: ["Unable to reach 987654321"],
        },
      );
    });
  });

  describe("authorization", () => {
    it("answers 401 without credentials and writes nothing", async () => {
      const { user, wallet } = await makeAccount();
      const before = await tableCounts();
      const res = await call("POST", "/debits", {
        body: { user_id: user.id, wallet_id: wallet, request_id: "r", amount: 1 },
      });
      expect(res.status).toBe(401);
      expect(res.body).toEqual({
        status_code: 401,
        status: false,
        message: "Permission denied",
        error: { unauthorize: "No authorization provided" },
      });
      expect(await tableCounts()).toEqual(before);
    });

    it("answers 403 to a subscriber, even for its own balance", async () => {
      const { admin, user, wallet } = await makeAccount();
      await credit(admin, { user_id: user.id, wallet_id: wallet, amount: 10 });
      const before = await tableCounts();
      const res = await call("POST", "/debits", {
        auth: user.bearer,
        body: { user_id: user.id, wallet_id: wallet, request_id: "r", amount: 1 },
      });
      expect(res.status).toBe(403);
      expect(res.body).toEqual({
        status_code: 403,
        status: false,
        message: "Permission denied",
        error: { unauthorize: "Request is not authorized" },
      });
      expect(await tableCounts()).toEqual(before);
    });

    it("answers 403 to an administrator's read-only key", async () => {
      const { admin, user, wallet } = await makeAccount();
      await credit(admin, { user_id: user.id, wallet_id: wallet, amount: 10 });
      const key = await makeKey(admin, "read");
      const before = await tableCounts();
      const res = await call("POST", "/debits", {
        auth: key.header,
        body: { user_id: user.id, wallet_id: wallet, request_id: "r", amount: 1 },
      });
      expect(res.status).toBe(403);
      expect(await tableCounts()).toEqual(before);
    });

    it("accepts an administrator's write key", async () => {
      const { admin, user, wallet } = await makeAccount();
      await credit(admin, { user_id: user.id, wallet_id: wallet, amount: 10 });
      const key = await makeKey(admin, "write");
      const res = await call("POST", "/debits", {
        auth: key.header,
        body: { user_id: user.id, wallet_id: wallet, request_id: "r", amount: 1 },
      });
      expect(res.status).toBe(200);
      expect(await balanceOf(admin, user.id, wallet)).toBe(9);
    });
  });

  describe("idempotency", () => {
    it("answers a replayed request_id with 409 naming the first debit, and writes nothing", async () => {
      const { admin, user, wallet } = await makeAccount();
      await credit(admin, { user_id: user.id, wallet_id: wallet, amount: 100 });
      const first = await debit(admin, {
        user_id: user.id,
        wallet_id: wallet,
        amount: 10,
        request_id: "Pay-1",
      });
      expect(first.status).toBe(200);
      const res = await expectRefusedDebit(
        admin,
        { user_id: user.id, wallet_id: wallet, amount: 20, request_id: "pay-1" },
        409,
        alreadyExists(first.body.data.transaction_id),
      );
      expect(res.body.error.txn_id).toBe(String(first.body.data.transaction_id));
      expect(await balanceOf(admin, user.id, wallet)).toBe(90);
    });

    it("answers a replay with 409, not Insufficient Balance, after the balance has been spent", async () => {
      const { admin, user, wallet } = await makeAccount();
      await credit(admin, { user_id: user.id, wallet_id: wallet, amount: 10 });
      const first = await debit(admin, {
        user_id: user.id,
        wallet_id: wallet,
        amount: 10,
        request_id: "all-of-it",
      });
      expect(first.status).toBe(200);
      await expectRefusedDebit(
        admin,
        { user_id: user.id, wallet_id: wallet, amount: 10, request_id: "all-of-it" },
        409,
        alreadyExists(first.body.data.transaction_id),
      );
    });

    it("blocks a debit whose request_id a credit of the same user already used", async () => {
      const { admin, user, wallet } = await makeAccount();
      const c = await credit(admin, {
        user_id: user.id,
        wallet_id: wallet,
        amount: 100,
        request_id: "Shared-7",
      });
      await expectRefusedDebit(
        admin,
        { user_id: user.id, wallet_id: wallet, amount: 1, request_id: "SHARED-7" },
        409,
        alreadyExists(c.body.data.transaction_id),
      );
      expect(await balanceOf(admin, user.id, wallet)).toBe(100);
    });

    it("blocks a credit whose request_id a debit of the same user already used", async () => {
      const { admin, user, wallet } = await makeAccount();
      await credit(admin, { user_id: user.id, wallet_id: wallet, amount: 100 });
      const d = await debit(admin, {
        user_id: user.id,
        wallet_id: wallet,
        amount: 1,
        request_id: "d-1",
      });
      const before = await tableCounts();
      const res = await credit(admin, {
        user_id: user.id,
        wallet_id: wallet,
        amount: 5,
        request_id: "d-1",
      });
      expect(res.status).toBe(409);
      expect(res.body.error).toEqual({
        txn_id: String(d.body.data.transaction_id),
        exist: "Transaction already executed",
      });
      expect(await tableCounts()).toEqual(before);
    });

    it("blocks a debit whose request_id a credit used in another wallet", async () => {
      const { admin, user, wallet } = await makeAccount();
      const other = await makeWallet(admin);
      await credit(admin, { user_id: user.id, wallet_id: wallet, amount: 100 });
      const c = await credit(admin, {
        user_id: user.id,
        wallet_id: other,
        amount: 100,
        request_id: "x-wallet",
      });
      const res = await expectRefusedDebit(
        admin,
        { user_id: user.id, wallet_id: wallet, amount: 1, request_id: "x-wallet" },
        409,
        alreadyExists(c.body.data.transaction_id),
      );
      expect(res.status).toBe(409);
    });

    it("lets another user debit with the same request_id", async () => {
      const { admin, user, wallet } = await makeAccount();
      const other = await makeUser();
      await credit(admin, { user_id: user.id, wallet_id: wallet, amount: 10 });
      await credit(admin, { user_id: other.id, wallet_id: wallet, amount: 10 });
      expect(
        (await debit(admin, { user_id: user.id, wallet_id: wallet, amount: 1, request_id: "same" }))
          .status,
      ).toBe(200);
      expect(
        (
          await debit(admin, {
            user_id: other.id,
            wallet_id: wallet,
            amount: 1,
            request_id: "same",
          })
        ).status,
      ).toBe(200);
    });

    it("applies 50 concurrent duplicates of one debit exactly once", async () => {
      const { admin, user, wallet } = await makeAccount();
      await credit(admin, { user_id: user.id, wallet_id: wallet, amount: 100 });
      const request_id = unique("dup");
      const replies = await Promise.all(
        Array.from({ length: 50 }, () =>
          debit(admin, { user_id: user.id, wallet_id: wallet, amount: 7, request_id }),
        ),
      );
      const won = replies.filter((r) => r.status === 200);
      expect(won).toHaveLength(1);
      const lost = replies.filter((r) => r.status === 409);
      expect(lost).toHaveLength(49);
      for (const r of lost)
        expect(r.body.error.txn_id).toBe(String(won[0]!.body.data.transaction_id));
      expect(await balanceOf(admin, user.id, wallet)).toBe(93);
      expect(await ledgerViolations()).toEqual(CLEAN);
    });
  });

  describe("race safety", () => {
    it("lets exactly 10 of 100 simultaneous debits through when the balance covers only 10, ending at exactly zero", async () => {
      const { admin, user, wallet } = await makeAccount();
      await credit(admin, { user_id: user.id, wallet_id: wallet, amount: 100 });
      const replies = await Promise.all(
        Array.from({ length: 100 }, () =>
          debit(admin, { user_id: user.id, wallet_id: wallet, amount: 10 }),
        ),
      );
      const ok = replies.filter((r) => r.status === 200);
      const refused = replies.filter((r) => r.status === 400);
      expect(ok).toHaveLength(10);
      expect(refused).toHaveLength(90);
      for (const r of refused) expect(r.body).toEqual(INSUFFICIENT);
      expect(await balanceOf(admin, user.id, wallet)).toBe(0);

      const rows = await entries(user.id, wallet);
      expect(rows).toHaveLength(11);
      expect(rows.every((r) => r.balance_after_minor >= 0 && r.balance_before_minor >= 0)).toBe(
        true,
      );
      expect(rows.slice(1).map((r) => r.balance_after_minor)).toEqual([
        9000, 8000, 7000, 6000, 5000, 4000, 3000, 2000, 1000, 0,
      ]);
      expect(new Set(ok.map((r) => r.body.data.transaction_id))).toEqual(
        new Set(rows.slice(1).map((r) => r.id)),
      );
      expect(await balanceRow(user.id, wallet)).toEqual({ balance_minor: 0, entry_count: 11 });
      expect(await ledgerViolations()).toEqual(CLEAN);
    });

    it("never overdraws under simultaneous debits of mixed amounts", async () => {
      const { admin, user, wallet } = await makeAccount(0);
      await credit(admin, { user_id: user.id, wallet_id: wallet, amount: 500 });
      const amounts = Array.from({ length: 60 }, (_, i) => ((i * 37) % 41) + 1);
      const replies = await Promise.all(
        amounts.map((amount) => debit(admin, { user_id: user.id, wallet_id: wallet, amount })),
      );
      expect(
        replies.every(
          (r) =>
            r.status === 200 || (r.status === 400 && r.body.message === "Insufficient Balance"),
        ),
      ).toBe(true);
      const spent = amounts.filter((_, i) => replies[i]!.status === 200).reduce((a, b) => a + b, 0);
      expect(spent).toBeLessThanOrEqual(500);
      expect(await balanceOf(admin, user.id, wallet)).toBe(500 - spent);
      // Every refused debit was refused because it did not fit what was left at the time, so at
      // least the smallest refused amount must exceed the final balance.
      const refusedAmounts = amounts.filter((_, i) => replies[i]!.status === 400);
      if (refusedAmounts.length > 0)
        expect(Math.min(...refusedAmounts)).toBeGreaterThan(500 - spent);
      const rows = await entries(user.id, wallet);
      expect(rows.every((r) => r.balance_after_minor >= 0)).toBe(true);
      expect(await ledgerViolations()).toEqual(CLEAN);
    });
  });
});
