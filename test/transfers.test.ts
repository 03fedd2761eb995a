import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
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
  makeAdmin,
  makeUser,
  makeWallet,
  type TestUser,
  tableCounts,
  transfer,
  unique,
} from "./helpers";

const invalid = (error: Record<string, string>) => ({
  status_code: 400,
  status: false,
  message: "invalid input",
  error,
});

/** An administrator, a wallet, and two users holding `fromBalance` and `toBalance` in it. */
async function setup({
  decimals = 2,
  fromBalance = 0 as number | string,
  toBalance = 0 as number | string,
} = {}) {
  const admin = await makeAdmin();
  const from = await makeUser();
  const to = await makeUser();
  const wallet = await makeWallet(admin, { decimals });
  if (Number(fromBalance) > 0)
    expect(
      (await credit(admin, { user_id: from.id, wallet_id: wallet, amount: fromBalance })).status,
    ).toBe(200);
  if (Number(toBalance) > 0)
    expect(
      (await credit(admin, { user_id: to.id, wallet_id: wallet, amount: toBalance })).status,
    ).toBe(200);
  return { admin, from, to, wallet };
}

type EntryRow = {
  id: number;
  user_id: number;
  txn_type: string;
  amount_minor: number;
  balance_before_minor: number;
  balance_after_minor: number;
  transfer_id: string | null;
  reverses_id: number | null;
  note: string;
};

async function entry(id: number) {
  return env.DB.prepare(
    `SELECT id, user_id, txn_type, amount_minor, balance_before_minor, balance_after_minor, transfer_id, reverses_id, note
     FROM transactions WHERE id = ?`,
  )
    .bind(id)
    .first<EntryRow>();
}

async function entriesOf(userId: number, wallet: string) {
  const { results } = await env.DB.prepare(
    `SELECT id, balance_before_minor, balance_after_minor FROM transactions WHERE user_id = ? AND wallet_id = ? ORDER BY id`,
  )
    .bind(userId, wallet)
    .all<{ id: number; balance_before_minor: number; balance_after_minor: number }>();
  return results;
}

async function expectRefusedTransfer(admin: TestUser, body: Json, status: number, expected: Json) {
  const before = await tableCounts();
  const res = await call("POST", "/transfers", { auth: admin.bearer, body });
  expect(res.status).toBe(status);
  expect(res.body).toEqual(expected);
  expect(await tableCounts()).toEqual(before);
  return res;
}

describe("POST /transfers", () => {
  it("moves money and answers 200 with both transaction ids", async () => {
    const { admin, from, to, wallet } = await setup({ fromBalance: 100, toBalance: 5 });
    const res = await transfer(admin, {
      from_user_id: from.id,
      to_user_id: to.id,
      wallet_id: wallet,
      amount: "40.25",
      note: "lunch",
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      status_code: 200,
      status: true,
      message: "Transfer Action Completed",
      data: {
        debit_transaction_id: expect.any(Number),
        credit_transaction_id: expect.any(Number),
        from_user_id: from.id,
        to_user_id: to.id,
      },
    });
    expect(res.body.data.debit_transaction_id).not.toBe(res.body.data.credit_transaction_id);
    expect(await balanceOf(admin, from.id, wallet)).toBe(59.75);
    expect(await balanceOf(admin, to.id, wallet)).toBe(45.25);
  });

  it("writes one DEBIT for the sender and one CREDIT for the receiver, linked by one transfer id, with balances before and after", async () => {
    const { admin, from, to, wallet } = await setup({ fromBalance: 100, toBalance: 5 });
    const res = await transfer(admin, {
      from_user_id: from.id,
      to_user_id: to.id,
      wallet_id: wallet,
      amount: 30,
      note: "rent share",
    });
    const d = await entry(res.body.data.debit_transaction_id);
    const c = await entry(res.body.data.credit_transaction_id);
    expect(d).toEqual({
      id: res.body.data.debit_transaction_id,
      user_id: from.id,
      txn_type: "DEBIT",
      amount_minor: 3000,
      balance_before_minor: 10000,
      balance_after_minor: 7000,
      transfer_id: expect.any(String),
      reverses_id: null,
      note: "rent share",
    });
    expect(c).toEqual({
      id: res.body.data.credit_transaction_id,
      user_id: to.id,
      txn_type: "CREDIT",
      amount_minor: 3000,
      balance_before_minor: 500,
      balance_after_minor: 3500,
      transfer_id: d!.transfer_id,
      reverses_id: null,
      note: "rent share",
    });
    const { results } = await env.DB.prepare(
      `SELECT id FROM transactions WHERE transfer_id = ? ORDER BY id`,
    )
      .bind(d!.transfer_id)
      .all<{ id: number }>();
    expect(results.map((r) => r.id)).toEqual([d!.id, c!.id]);
    expect(await ledgerViolations()).toEqual(CLEAN);
  });

  it("shows each half in its owner's transaction list and by id", async () => {
    const { admin, from, to, wallet } = await setup({ fromBalance: 10 });
    const res = await transfer(admin, {
      from_user_id: from.id,
      to_user_id: to.id,
      wallet_id: wallet,
      amount: 4,
    });
    const sent = await call("GET", `/transactions/${res.body.data.debit_transaction_id}`, {
      auth: from.bearer,
    });
    expect(sent.status).toBe(200);
    expect(sent.body.data).toMatchObject({
      post_author: String(from.id),
      txn_type: "DEBIT",
      amount: "4",
    });
    const received = await call("GET", `/transactions/${res.body.data.credit_transaction_id}`, {
      auth: to.bearer,
    });
    expect(received.status).toBe(200);
    expect(received.body.data).toMatchObject({
      post_author: String(to.id),
      txn_type: "CREDIT",
      amount: "4",
    });
    const list = await call("GET", "/transactions", {
      auth: admin.bearer,
      query: { user_id: to.id, security_code: 1 },
    });
    expect(list.body.data.map((r: Json) => r.ID)).toEqual([res.body.data.credit_transaction_id]);
  });

  describe("insufficient funds", () => {
    it("refuses a transfer larger than the sender's balance and writes neither half", async () => {
      const { admin, from, to, wallet } = await setup({ fromBalance: 10, toBalance: 1 });
      await expectRefusedTransfer(
        admin,
        {
          from_user_id: from.id,
          to_user_id: to.id,
          wallet_id: wallet,
          amount: 20,
          request_id: unique("r"),
        },
        400,
        INSUFFICIENT,
      );
      expect(await balanceOf(admin, from.id, wallet)).toBe(10);
      expect(await balanceOf(admin, to.id, wallet)).toBe(1);
    });

    it("refuses a transfer from a sender who never held the wallet, creating no balance rows", async () => {
      const { admin, from, to, wallet } = await setup();
      await expectRefusedTransfer(
        admin,
        {
          from_user_id: from.id,
          to_user_id: to.id,
          wallet_id: wallet,
          amount: 1,
          request_id: unique("r"),
        },
        400,
        INSUFFICIENT,
      );
      const { results } = await env.DB.prepare(`SELECT * FROM balances WHERE user_id IN (?, ?)`)
        .bind(from.id, to.id)
        .all();
      expect(results).toEqual([]);
    });

    it("transfers the sender's whole balance, leaving exactly zero", async () => {
      const { admin, from, to, wallet } = await setup({ fromBalance: "25.01" });
      const res = await transfer(admin, {
        from_user_id: from.id,
        to_user_id: to.id,
        wallet_id: wallet,
        amount: "25.01",
      });
      expect(res.status).toBe(200);
      expect(await balanceOf(admin, from.id, wallet)).toBe(0);
      expect(await balanceOf(admin, to.id, wallet)).toBe(25.01);
    });

    it("refuses one minor unit more than the sender's balance", async () => {
      const { admin, from, to, wallet } = await setup({ fromBalance: "25.01" });
      await expectRefusedTransfer(
        admin,
        {
          from_user_id: from.id,
          to_user_id: to.id,
          wallet_id: wallet,
          amount: "25.02",
          request_id: unique("r"),
        },
        400,
        INSUFFICIENT,
      );
    });

    it("does not let the receiver's balance cover the sender's shortfall", async () => {
      const { admin, from, to, wallet } = await setup({ fromBalance: 1, toBalance: 1000 });
      await expectRefusedTransfer(
        admin,
        {
          from_user_id: from.id,
          to_user_id: to.id,
          wallet_id: wallet,
          amount: 2,
          request_id: unique("r"),
        },
        400,
        INSUFFICIENT,
      );
    });
  });

  describe("validation and existence", () => {
    // A user named twice, however spelled, and refused before any look-up (400 before 404).
    it.each([
      ["the same id", (id: number) => [id, id]],
      ["another spelling of the same id", (id: number) => [id, `00${id}`]],
      ["an id no user has", () => [999_999, 999_999]],
    ] as const)("refuses a transfer to oneself by %s and writes nothing", async (_, ends) => {
      const { admin, from, wallet } = await setup({ fromBalance: 100 });
      const [fromId, toId] = ends(from.id);
      await expectRefusedTransfer(
        admin,
        {
          from_user_id: fromId,
          to_user_id: toId,
          wallet_id: wallet,
          amount: 1,
          request_id: unique("r"),
        },
        400,
        invalid({ to_user_id: "to_user_id must differ from from_user_id" }),
      );
    });

    // A batch's transfer leg named these together already: one transfer, one answer, either way.
    it.each([
      ["an unknown wallet", { wallet_id: "nosuchwalletzz" }, { wallet_id: "wallet_id not found" }],
      [
        "too many places",
        { amount: "1.001" },
        { amount: expect.stringContaining("more decimal places") },
      ],
      [
        "an amount that is no number",
        { amount: "abc" },
        { amount: "amount requires a valid amount" },
      ],
      ["a zero amount", { amount: "0" }, { amount: "amount must be greater than zero" }],
    ] as const)(
      "names a transfer to oneself with %s together, as a batch's leg does",
      async (_, fault, error) => {
        const { admin, from, wallet } = await setup({ fromBalance: 100 });
        const fields = {
          from_user_id: from.id,
          to_user_id: from.id,
          wallet_id: wallet,
          amount: "1",
          ...fault,
        };
        const expected = { to_user_id: "to_user_id must differ from from_user_id", ...error };
        const single = await expectRefusedTransfer(
          admin,
          { ...fields, request_id: unique("r") },
          400,
          invalid(expected),
        );
        expect(Object.keys(single.body.error)).toEqual(Object.keys(expected));
        const batch = await call("POST", "/batches", {
          auth: admin.bearer,
          body: { request_id: unique("b"), operations: [{ type: "transfer", ...fields }] },
        });
        expect(batch.status).toBe(400);
        expect(batch.body.error).toEqual(
          Object.fromEntries(
            Object.entries(single.body.error).map(([k, v]) => [`operations[0].${k}`, v]),
          ),
        );
      },
    );

    it("reports every empty field together", async () => {
      const { admin } = await setup();
      await expectRefusedTransfer(
        admin,
        { from_user_id: "", to_user_id: "", wallet_id: "", request_id: "", amount: "" },
        400,
        invalid({
          from_user_id: "Field Cannot be empty",
          to_user_id: "Field Cannot be empty",
          wallet_id: "Field Cannot be empty",
          request_id: "Field Cannot be empty",
          amount: "Field Cannot be empty",
        }),
      );
    });

    it("reports missing fields as empty", async () => {
      const { admin } = await setup();
      await expectRefusedTransfer(
        admin,
        {},
        400,
        invalid({
          from_user_id: "Field Cannot be empty",
          to_user_id: "Field Cannot be empty",
          wallet_id: "Field Cannot be empty",
          request_id: "Field Cannot be empty",
          amount: "Field Cannot be empty",
        }),
      );
    });

    it("refuses bad user ids, an unknown wallet and a bad amount", async () => {
      const { admin } = await setup();
      await expectRefusedTransfer(
        admin,
        {
          from_user_id: "0",
          to_user_id: "x",
          wallet_id: "nosuchwallet",
          request_id: "r",
          amount: "-1",
        },
        400,
        invalid({
          from_user_id: "from_user_id cannot be zero",
          to_user_id: "to_user_id requires an integer",
          wallet_id: "wallet_id not found",
          amount: "amount must be greater than zero",
        }),
      );
    });

    it("refuses more decimals than the wallet has", async () => {
      const { admin, from, to, wallet } = await setup({ decimals: 0, fromBalance: 100 });
      const res = await expectRefusedTransfer(
        admin,
        {
          from_user_id: from.id,
          to_user_id: to.id,
          wallet_id: wallet,
          amount: "1.5",
          request_id: "r",
        },
        400,
        invalid({
          amount: expect.any(String),
        }),
      );
      expect(res.body.error.amount).not.toBe("Insufficient Balance");
    });

    it("answers 404 for an unknown sender", async () => {
      const { admin, to, wallet } = await setup();
      await expectRefusedTransfer(
        admin,
        {
          from_user_id: 987654321,
          to_user_id: to.id,
          wallet_id: wallet,
          amount: 1,
          request_id: "r",
        },
        404,
        {
          status_code: 404,
          status: false,
          message: "Invalid User credentials",
          error: ["Unable to reach 987654321"],
        },
      );
    });

    it("answers 404 for an unknown receiver, writing nothing even though the sender could pay", async () => {
      const { admin, from, wallet } = await setup({ fromBalance: 100 });
      await expectRefusedTransfer(
        admin,
        {
          from_user_id: from.id,
          to_user_id: 987654322,
          wallet_id: wallet,
          amount: 1,
          request_id: "r",
        },
        404,
        {
          status_code: 404,
          status: false,
          message: "Invalid User credentials",
          error: ["Unable to reach 987654322"],
        },
      );
    });

    it("answers 403 to a subscriber moving its own money, and writes nothing", async () => {
      const { from, to, wallet } = await setup({ fromBalance: 100 });
      const before = await tableCounts();
      const res = await call("POST", "/transfers", {
        auth: from.bearer,
        body: {
          from_user_id: from.id,
          to_user_id: to.id,
          wallet_id: wallet,
          amount: 1,
          request_id: "r",
        },
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
  });

  describe("idempotency", () => {
    it("answers a replayed sender request_id with 409 naming the debit half, and writes nothing", async () => {
      const { admin, from, to, wallet } = await setup({ fromBalance: 100 });
      const first = await transfer(admin, {
        from_user_id: from.id,
        to_user_id: to.id,
        wallet_id: wallet,
        amount: 10,
        request_id: "Move-1",
      });
      expect(first.status).toBe(200);
      await expectRefusedTransfer(
        admin,
        {
          from_user_id: from.id,
          to_user_id: to.id,
          wallet_id: wallet,
          amount: 10,
          request_id: "MOVE-1",
        },
        409,
        alreadyExists(first.body.data.debit_transaction_id),
      );
      expect(await balanceOf(admin, from.id, wallet)).toBe(90);
      expect(await balanceOf(admin, to.id, wallet)).toBe(10);
    });

    it("answers a replay with a different receiver and amount with 409, and writes nothing", async () => {
      const { admin, from, to, wallet } = await setup({ fromBalance: 100 });
      const third = await makeUser();
      const first = await transfer(admin, {
        from_user_id: from.id,
        to_user_id: to.id,
        wallet_id: wallet,
        amount: 10,
        request_id: "move-2",
      });
      await expectRefusedTransfer(
        admin,
        {
          from_user_id: from.id,
          to_user_id: third.id,
          wallet_id: wallet,
          amount: 99,
          request_id: "move-2",
        },
        409,
        alreadyExists(first.body.data.debit_transaction_id),
      );
    });

    it("answers a replay with 409 even after the sender has spent the rest", async () => {
      const { admin, from, to, wallet } = await setup({ fromBalance: 10 });
      const first = await transfer(admin, {
        from_user_id: from.id,
        to_user_id: to.id,
        wallet_id: wallet,
        amount: 10,
        request_id: "move-all",
      });
      await expectRefusedTransfer(
        admin,
        {
          from_user_id: from.id,
          to_user_id: to.id,
          wallet_id: wallet,
          amount: 10,
          request_id: "move-all",
        },
        409,
        alreadyExists(first.body.data.debit_transaction_id),
      );
    });

    it("refuses a transfer whose request_id the sender's credit already used", async () => {
      const { admin, from, to, wallet } = await setup();
      const c = await credit(admin, {
        user_id: from.id,
        wallet_id: wallet,
        amount: 50,
        request_id: "topup-1",
      });
      await expectRefusedTransfer(
        admin,
        {
          from_user_id: from.id,
          to_user_id: to.id,
          wallet_id: wallet,
          amount: 10,
          request_id: "topup-1",
        },
        409,
        alreadyExists(c.body.data.transaction_id),
      );
    });

    it("refuses a debit of the sender whose request_id a transfer already used", async () => {
      const { admin, from, to, wallet } = await setup({ fromBalance: 50 });
      const t = await transfer(admin, {
        from_user_id: from.id,
        to_user_id: to.id,
        wallet_id: wallet,
        amount: 10,
        request_id: "t-9",
      });
      const before = await tableCounts();
      const res = await debit(admin, {
        user_id: from.id,
        wallet_id: wallet,
        amount: 1,
        request_id: "t-9",
      });
      expect(res.status).toBe(409);
      expect(res.body).toEqual(alreadyExists(t.body.data.debit_transaction_id));
      expect(await tableCounts()).toEqual(before);
    });

    it("leaves the receiver's request_id space untouched", async () => {
      const { admin, from, to, wallet } = await setup({ fromBalance: 50 });
      expect(
        (
          await transfer(admin, {
            from_user_id: from.id,
            to_user_id: to.id,
            wallet_id: wallet,
            amount: 10,
            request_id: "gift",
          })
        ).status,
      ).toBe(200);
      expect(
        (await credit(admin, { user_id: to.id, wallet_id: wallet, amount: 1, request_id: "gift" }))
          .status,
      ).toBe(200);
      expect(
        (
          await transfer(admin, {
            from_user_id: to.id,
            to_user_id: from.id,
            wallet_id: wallet,
            amount: 1,
            request_id: "gift-back",
          })
        ).status,
      ).toBe(200);
      expect(await balanceOf(admin, to.id, wallet)).toBe(10);
    });

    it("refuses an overdrawing transfer without consuming its request_id", async () => {
      const { admin, from, to, wallet } = await setup({ fromBalance: 5 });
      await expectRefusedTransfer(
        admin,
        {
          from_user_id: from.id,
          to_user_id: to.id,
          wallet_id: wallet,
          amount: 6,
          request_id: "later",
        },
        400,
        INSUFFICIENT,
      );
      expect(
        (
          await transfer(admin, {
            from_user_id: from.id,
            to_user_id: to.id,
            wallet_id: wallet,
            amount: 5,
            request_id: "later",
          })
        ).status,
      ).toBe(200);
    });

    it("applies 40 concurrent duplicates of one transfer exactly once", async () => {
      const { admin, from, to, wallet } = await setup({ fromBalance: 100 });
      const request_id = unique("dup");
      const replies = await Promise.all(
        Array.from({ length: 40 }, () =>
          transfer(admin, {
            from_user_id: from.id,
            to_user_id: to.id,
            wallet_id: wallet,
            amount: 7,
            request_id,
          }),
        ),
      );
      const won = replies.filter((r) => r.status === 200);
      expect(won).toHaveLength(1);
      const lost = replies.filter((r) => r.status === 409);
      expect(lost).toHaveLength(39);
      for (const r of lost)
        expect(r.body).toEqual(alreadyExists(won[0]!.body.data.debit_transaction_id));
      expect(await balanceOf(admin, from.id, wallet)).toBe(93);
      expect(await balanceOf(admin, to.id, wallet)).toBe(7);
      expect(await ledgerViolations()).toEqual(CLEAN);
    });
  });

  describe("race safety", () => {
    it("never loses or creates money under simultaneous transfers in both directions", async () => {
      const {
        admin,
        from: a,
        to: b,
        wallet,
      } = await setup({ decimals: 2, fromBalance: 50, toBalance: 50 });
      // Amounts in minor units. a sends far more than it holds or receives back, so many of its
      // transfers are refused while b's mostly go through.
      const moves = Array.from({ length: 120 }, (_, i) =>
        i % 2 === 0
          ? { aToB: true, minor: 300 + ((i * 7919) % 1200) }
          : { aToB: false, minor: 1 + ((i * 104729) % 300) },
      );
      const replies = await Promise.all(
        moves.map((m) =>
          transfer(admin, {
            from_user_id: m.aToB ? a.id : b.id,
            to_user_id: m.aToB ? b.id : a.id,
            wallet_id: wallet,
            amount: (m.minor / 100).toFixed(2),
          }),
        ),
      );
      for (const r of replies) {
        if (r.status !== 200) expect(r.body).toEqual(INSUFFICIENT);
      }
      const succeeded = moves.filter((_, i) => replies[i]!.status === 200);
      expect(succeeded.length).toBeGreaterThan(0);
      expect(succeeded.length).toBeLessThan(moves.length);
      const net = succeeded.reduce((sum, m) => sum + (m.aToB ? -m.minor : m.minor), 0);

      const [aBal, bBal] = [
        await balanceOf(admin, a.id, wallet),
        await balanceOf(admin, b.id, wallet),
      ];
      expect(Math.round(aBal * 100) + Math.round(bBal * 100)).toBe(10000);
      expect(Math.round(aBal * 100)).toBe(5000 + net);
      expect(Math.round(bBal * 100)).toBe(5000 - net);

      const { results } = await env.DB.prepare(
        `SELECT transfer_id, count(*) AS n, sum(CASE txn_type WHEN 'CREDIT' THEN amount_minor ELSE -amount_minor END) AS net
         FROM transactions WHERE user_id IN (?, ?) AND wallet_id = ? AND transfer_id IS NOT NULL GROUP BY transfer_id`,
      )
        .bind(a.id, b.id, wallet)
        .all<{ n: number; net: number }>();
      expect(results).toHaveLength(succeeded.length);
      expect(results.every((r) => r.n === 2 && r.net === 0)).toBe(true);

      for (const user of [a, b]) {
        const rows = await entriesOf(user.id, wallet);
        expect(rows.every((r) => r.balance_after_minor >= 0)).toBe(true);
        for (let i = 1; i < rows.length; i++)
          expect(rows[i]!.balance_before_minor).toBe(rows[i - 1]!.balance_after_minor);
      }
      expect(await ledgerViolations()).toEqual(CLEAN);
    });

    it("lets exactly as many simultaneous transfers through as the sender can pay for", async () => {
      const { admin, from, to, wallet } = await setup({ decimals: 0, fromBalance: 30 });
      const replies = await Promise.all(
        Array.from({ length: 50 }, () =>
          transfer(admin, {
            from_user_id: from.id,
            to_user_id: to.id,
            wallet_id: wallet,
            amount: 3,
          }),
        ),
      );
      expect(replies.filter((r) => r.status === 200)).toHaveLength(10);
      expect(replies.filter((r) => r.status === 400)).toHaveLength(40);
      expect(await balanceOf(admin, from.id, wallet)).toBe(0);
      expect(await balanceOf(admin, to.id, wallet)).toBe(30);
      expect(await ledgerViolations()).toEqual(CLEAN);
    });

    it("keeps three users' total constant under a simultaneous ring of transfers", async () => {
      const admin = await makeAdmin();
      const wallet = await makeWallet(admin, { decimals: 0 });
      const users = [await makeUser(), await makeUser(), await makeUser()];
      for (const u of users) await credit(admin, { user_id: u.id, wallet_id: wallet, amount: 20 });
      const replies = await Promise.all(
        Array.from({ length: 90 }, (_, i) =>
          transfer(admin, {
            from_user_id: users[i % 3]!.id,
            to_user_id: users[(i + 1 + (i % 2)) % 3]!.id,
            wallet_id: wallet,
            amount: (i % 5) + 1,
          }),
        ),
      );
      expect(replies.every((r) => r.status === 200 || r.status === 400)).toBe(true);
      let total = 0;
      for (const u of users) {
        const b = await balanceOf(admin, u.id, wallet);
        expect(b).toBeGreaterThanOrEqual(0);
        total += b;
      }
      expect(total).toBe(60);
      expect(await ledgerViolations()).toEqual(CLEAN);
    });
  });
});
