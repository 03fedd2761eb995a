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
  makeAccount,
  makeAdmin,
  makeUser,
  makeWallet,
  type TestUser,
  tableCounts,
  transfer,
  unique,
} from "./helpers";

const alreadyReversed = (id: number) => ({
  status_code: 409,
  status: false,
  message: "Transaction already reversed",
  error: { id: `Transaction ${id} was already reversed` },
});
const cannotReverseReversal = {
  status_code: 400,
  status: false,
  message: "invalid input",
  error: { id: "a reversal cannot be reversed" },
};

const reverse = (admin: TestUser, id: number | string, body: Json = {}) =>
  call("POST", `/transactions/${id}/reverse`, {
    auth: admin.bearer,
    body: { request_id: unique("rev"), ...body },
  });

type Row = {
  id: number;
  user_id: number;
  wallet_id: string;
  txn_type: string;
  amount_minor: number;
  amount_text: string;
  balance_before_minor: number;
  balance_after_minor: number;
  request_id: string;
  transfer_id: string | null;
  reverses_id: number | null;
  note: string;
  title: string;
  slug: string;
  created_at_s: number;
};

const row = (id: number) =>
  env.DB.prepare(`SELECT * FROM transactions WHERE id = ?`).bind(id).first<Row>();

async function expectRefusedReverse(
  admin: TestUser,
  id: number | string,
  body: Json,
  status: number,
  expected: Json,
) {
  const before = await tableCounts();
  const res = await call("POST", `/transactions/${id}/reverse`, { auth: admin.bearer, body });
  expect(res.status).toBe(status);
  expect(res.body).toEqual(expected);
  expect(await tableCounts()).toEqual(before);
  return res;
}

/** A fresh transfer of `amount` between two new users; the sender starts with `fromBalance`. */
async function setupTransfer(fromBalance = 100, amount = 40) {
  const admin = await makeAdmin();
  const [from, to] = [await makeUser(), await makeUser()];
  const wallet = await makeWallet(admin);
  await credit(admin, { user_id: from.id, wallet_id: wallet, amount: fromBalance });
  const t = await transfer(admin, {
    from_user_id: from.id,
    to_user_id: to.id,
    wallet_id: wallet,
    amount,
  });
  expect(t.status).toBe(200);
  return {
    admin,
    from,
    to,
    wallet,
    debitId: t.body.data.debit_transaction_id as number,
    creditId: t.body.data.credit_transaction_id as number,
  };
}

describe("POST /transactions/{id}/reverse", () => {
  describe("single entries", () => {
    it("reverses a credit with a linked DEBIT and answers 200 with both ids", async () => {
      const { admin, user, wallet } = await makeAccount();
      const c = await credit(admin, { user_id: user.id, wallet_id: wallet, amount: "150.50" });
      const id = c.body.data.transaction_id as number;
      const res = await reverse(admin, id);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        status_code: 200,
        status: true,
        message: "Transaction Reversed",
        data: { transaction_ids: [expect.any(Number)], reversed_transaction_ids: [id] },
      });
      const rev = await row(res.body.data.transaction_ids[0]);
      expect(rev).toMatchObject({
        user_id: user.id,
        wallet_id: wallet,
        txn_type: "DEBIT",
        amount_minor: 15050,
        amount_text: "150.50",
        balance_before_minor: 15050,
        balance_after_minor: 0,
        reverses_id: id,
        transfer_id: null,
      });
      expect(await balanceOf(admin, user.id, wallet)).toBe(0);
    });

    it("never edits or deletes the original entry", async () => {
      const { admin, user, wallet } = await makeAccount();
      const c = await credit(admin, {
        user_id: user.id,
        wallet_id: wallet,
        amount: 20,
        note: "original",
      });
      const id = c.body.data.transaction_id as number;
      const before = await row(id);
      expect((await reverse(admin, id)).status).toBe(200);
      expect(await row(id)).toEqual(before);
      const list = await call("GET", "/transactions", {
        auth: admin.bearer,
        query: { user_id: user.id, security_code: 1, order: "asc" },
      });
      expect(list.body.data.map((r: Json) => r.txn_type)).toEqual(["CREDIT", "DEBIT"]);
    });

    it("reverses a debit with a linked CREDIT", async () => {
      const { admin, user, wallet } = await makeAccount();
      await credit(admin, { user_id: user.id, wallet_id: wallet, amount: 100 });
      const d = await debit(admin, { user_id: user.id, wallet_id: wallet, amount: 30 });
      const id = d.body.data.transaction_id as number;
      const res = await reverse(admin, id);
      expect(res.status).toBe(200);
      expect(await row(res.body.data.transaction_ids[0])).toMatchObject({
        txn_type: "CREDIT",
        amount_minor: 3000,
        balance_before_minor: 7000,
        balance_after_minor: 10000,
        reverses_id: id,
      });
      expect(await balanceOf(admin, user.id, wallet)).toBe(100);
      expect(await ledgerViolations()).toEqual(CLEAN);
    });

    it("reverses a debit that took the balance to zero", async () => {
      const { admin, user, wallet } = await makeAccount();
      await credit(admin, { user_id: user.id, wallet_id: wallet, amount: 9 });
      const d = await debit(admin, { user_id: user.id, wallet_id: wallet, amount: 9 });
      expect((await reverse(admin, d.body.data.transaction_id)).status).toBe(200);
      expect(await balanceOf(admin, user.id, wallet)).toBe(9);
    });

    it("keeps the note given, and otherwise names the reversed transaction", async () => {
      const { admin, user, wallet } = await makeAccount();
      const a = await credit(admin, { user_id: user.id, wallet_id: wallet, amount: 5 });
      const b = await credit(admin, { user_id: user.id, wallet_id: wallet, amount: 5 });
      const withNote = await reverse(admin, a.body.data.transaction_id, {
        note: "refund: duplicate",
      });
      const withoutNote = await reverse(admin, b.body.data.transaction_id);
      expect((await row(withNote.body.data.transaction_ids[0]))!.note).toBe("refund: duplicate");
      expect((await row(withoutNote.body.data.transaction_ids[0]))!.note).toBe(
        `Reversal of transaction ${b.body.data.transaction_id}`,
      );
    });

    it("appends the reversal to the chain after entries written since the original", async () => {
      const { admin, user, wallet } = await makeAccount(0);
      const first = await credit(admin, { user_id: user.id, wallet_id: wallet, amount: 10 });
      await credit(admin, { user_id: user.id, wallet_id: wallet, amount: 5 });
      await debit(admin, { user_id: user.id, wallet_id: wallet, amount: 3 });
      const res = await reverse(admin, first.body.data.transaction_id);
      expect(await row(res.body.data.transaction_ids[0])).toMatchObject({
        balance_before_minor: 12,
        balance_after_minor: 2,
      });
      expect(await ledgerViolations()).toEqual(CLEAN);
    });
  });

  describe("transfers", () => {
    it("reverses both halves together when named by the debit half", async () => {
      const { admin, from, to, wallet, debitId, creditId } = await setupTransfer(100, 40);
      const res = await reverse(admin, debitId);
      expect(res.status).toBe(200);
      expect(res.body.data.reversed_transaction_ids).toEqual([debitId, creditId]);
      expect(res.body.data.transaction_ids).toHaveLength(2);
      const [revDebit, revCredit] = [
        await row(res.body.data.transaction_ids[0]),
        await row(res.body.data.transaction_ids[1]),
      ];
      expect(revDebit).toMatchObject({
        user_id: from.id,
        txn_type: "CREDIT",
        amount_minor: 4000,
        balance_before_minor: 6000,
        balance_after_minor: 10000,
        reverses_id: debitId,
      });
      expect(revCredit).toMatchObject({
        user_id: to.id,
        txn_type: "DEBIT",
        amount_minor: 4000,
        balance_before_minor: 4000,
        balance_after_minor: 0,
        reverses_id: creditId,
      });
      // The two reversal entries are linked to each other, and not into the original transfer.
      expect(revDebit!.transfer_id).not.toBeNull();
      expect(revCredit!.transfer_id).toBe(revDebit!.transfer_id);
      expect(revDebit!.transfer_id).not.toBe((await row(debitId))!.transfer_id);
      expect(await balanceOf(admin, from.id, wallet)).toBe(100);
      expect(await balanceOf(admin, to.id, wallet)).toBe(0);
      expect(await ledgerViolations()).toEqual(CLEAN);
    });

    it("reverses both halves together when named by the credit half, the named one first", async () => {
      const { admin, from, to, wallet, debitId, creditId } = await setupTransfer(100, 40);
      const res = await reverse(admin, creditId);
      expect(res.status).toBe(200);
      expect(res.body.data.reversed_transaction_ids).toEqual([creditId, debitId]);
      expect((await row(res.body.data.transaction_ids[0]))!.reverses_id).toBe(creditId);
      expect((await row(res.body.data.transaction_ids[1]))!.reverses_id).toBe(debitId);
      expect(await balanceOf(admin, from.id, wallet)).toBe(100);
      expect(await balanceOf(admin, to.id, wallet)).toBe(0);
    });

    it("refuses to reverse a transfer the receiver has spent, writing neither half", async () => {
      const { admin, from, to, wallet, debitId } = await setupTransfer(100, 40);
      await debit(admin, { user_id: to.id, wallet_id: wallet, amount: "0.01" });
      await expectRefusedReverse(admin, debitId, { request_id: unique("r") }, 400, INSUFFICIENT);
      expect(await balanceOf(admin, from.id, wallet)).toBe(60);
      expect(await balanceOf(admin, to.id, wallet)).toBe(39.99);
    });

    it("refuses a second reversal of a transfer named by its other half", async () => {
      const { admin, to, wallet, debitId, creditId } = await setupTransfer(100, 40);
      expect((await reverse(admin, debitId)).status).toBe(200);
      // The receiver can pay for it again, so only the reversal rule stands in the way.
      await credit(admin, { user_id: to.id, wallet_id: wallet, amount: 100 });
      await expectRefusedReverse(
        admin,
        creditId,
        { request_id: unique("r") },
        409,
        alreadyReversed(creditId),
      );
    });

    it("answers 409 already reversed for the other half even when the receiver could not pay again", async () => {
      const { admin, debitId, creditId } = await setupTransfer(100, 40);
      expect((await reverse(admin, debitId)).status).toBe(200);
      await expectRefusedReverse(
        admin,
        creditId,
        { request_id: unique("r") },
        409,
        alreadyReversed(creditId),
      );
    });

    it("refuses to reverse either half of a transfer's reversal", async () => {
      const { admin, debitId } = await setupTransfer(100, 40);
      const res = await reverse(admin, debitId);
      const halves = res.body.data.transaction_ids as number[];
      expect(halves).toHaveLength(2);
      for (const id of halves) {
        await expectRefusedReverse(
          admin,
          id,
          { request_id: unique("r") },
          400,
          cannotReverseReversal,
        );
      }
    });

    it("reverses exactly once under simultaneous reversals of both halves", async () => {
      const { admin, from, to, wallet, debitId, creditId } = await setupTransfer(100, 40);
      const named = Array.from({ length: 20 }, (_, i) => (i % 2 ? debitId : creditId));
      const replies = await Promise.all(named.map((id) => reverse(admin, id)));
      expect(replies.filter((r) => r.status === 200)).toHaveLength(1);
      // Whichever way a loser lost (the keyed insert skipped, or the UNIQUE reverses_id refused
      // it), the answer names the transaction it asked about.
      const refused = replies.flatMap((r, i) =>
        r.status === 200 ? [] : [[r, named[i]!] as const],
      );
      for (const [r, id] of refused)
        expect(r).toMatchObject({ status: 409, body: alreadyReversed(id) });
      expect(refused).toHaveLength(19);
      expect(await balanceOf(admin, from.id, wallet)).toBe(100);
      expect(await balanceOf(admin, to.id, wallet)).toBe(0);
      expect(await ledgerViolations()).toEqual(CLEAN);
    });
  });

  describe("once only", () => {
    /** An account holding `before`, then a credit of 10, reversed: the credit's id beside it. */
    const reversedCredit = async (before: number) => {
      const account = await makeAccount();
      const { admin, user, wallet } = account;
      if (before > 0) await credit(admin, { user_id: user.id, wallet_id: wallet, amount: before });
      const c = await credit(admin, { user_id: user.id, wallet_id: wallet, amount: 10 });
      const id = c.body.data.transaction_id as number;
      expect((await reverse(admin, id)).status).toBe(200);
      return { ...account, id };
    };

    it("refuses a second reversal with a new request_id with 409 and writes nothing", async () => {
      const { admin, user, wallet, id } = await reversedCredit(1000);
      await expectRefusedReverse(admin, id, { request_id: unique("r") }, 409, alreadyReversed(id));
      expect(await balanceOf(admin, user.id, wallet)).toBe(1000);
    });

    it("answers 409 already reversed, not Insufficient Balance, when the balance could not cover a second reversal", async () => {
      const { admin, user, wallet, id } = await reversedCredit(0);
      await expectRefusedReverse(admin, id, { request_id: unique("r") }, 409, alreadyReversed(id));
      expect(await balanceOf(admin, user.id, wallet)).toBe(0);
    });

    it("answers 409 already reversed, not Insufficient Balance, when a hold reserves what a second reversal would take", async () => {
      const { admin, user, wallet, id } = await reversedCredit(10);
      // A second DEBIT of 10 would leave 0, below the 5 held: the reversal rule must answer first.
      const hold = await call("POST", "/holds", {
        auth: admin.bearer,
        body: { user_id: user.id, wallet_id: wallet, amount: 5, request_id: unique("hold") },
      });
      expect(hold.status, hold.text).toBe(200);
      await expectRefusedReverse(admin, id, { request_id: unique("r") }, 409, alreadyReversed(id));
      expect(await balanceOf(admin, user.id, wallet)).toBe(10);
    });

    it("refuses a second reversal of a debit with 409", async () => {
      const { admin, user, wallet } = await makeAccount();
      await credit(admin, { user_id: user.id, wallet_id: wallet, amount: 10 });
      const d = await debit(admin, { user_id: user.id, wallet_id: wallet, amount: 4 });
      const id = d.body.data.transaction_id as number;
      expect((await reverse(admin, id)).status).toBe(200);
      await expectRefusedReverse(admin, id, { request_id: unique("r") }, 409, alreadyReversed(id));
      expect(await balanceOf(admin, user.id, wallet)).toBe(10);
    });

    it("refuses to reverse a reversal", async () => {
      const { admin, user, wallet } = await makeAccount();
      const c = await credit(admin, { user_id: user.id, wallet_id: wallet, amount: 10 });
      const res = await reverse(admin, c.body.data.transaction_id);
      await expectRefusedReverse(
        admin,
        res.body.data.transaction_ids[0],
        { request_id: unique("r") },
        400,
        cannotReverseReversal,
      );
    });

    it("reverses exactly once under 30 simultaneous reversals with distinct request_ids", async () => {
      const { admin, user, wallet } = await makeAccount();
      await credit(admin, { user_id: user.id, wallet_id: wallet, amount: 1000 });
      const c = await credit(admin, { user_id: user.id, wallet_id: wallet, amount: 10 });
      const id = c.body.data.transaction_id as number;
      const replies = await Promise.all(Array.from({ length: 30 }, () => reverse(admin, id)));
      expect(replies.filter((r) => r.status === 200)).toHaveLength(1);
      const lost = replies.filter((r) => r.status !== 200);
      expect(lost).toHaveLength(29);
      for (const r of lost) expect(r.body).toEqual(alreadyReversed(id));
      expect(await balanceOf(admin, user.id, wallet)).toBe(1000);
      expect(await ledgerViolations()).toEqual(CLEAN);
    });
  });

  describe("idempotency", () => {
    it("answers a replayed request_id with 409 naming the reversal, and writes nothing", async () => {
      const { admin, user, wallet } = await makeAccount();
      const c = await credit(admin, { user_id: user.id, wallet_id: wallet, amount: 10 });
      const id = c.body.data.transaction_id as number;
      const first = await reverse(admin, id, { request_id: "Undo-1" });
      expect(first.status).toBe(200);
      await expectRefusedReverse(
        admin,
        id,
        { request_id: "undo-1" },
        409,
        alreadyExists(first.body.data.transaction_ids[0]),
      );
    });

    it("answers a replayed transfer reversal with 409 naming the first reversal entry", async () => {
      const { admin, creditId } = await setupTransfer(100, 40);
      const first = await reverse(admin, creditId, { request_id: "undo-transfer" });
      expect(first.status).toBe(200);
      await expectRefusedReverse(
        admin,
        creditId,
        { request_id: "undo-transfer" },
        409,
        alreadyExists(first.body.data.transaction_ids[0]),
      );
    });

    it("applies 30 simultaneous replays of one reversal exactly once", async () => {
      const { admin, user, wallet } = await makeAccount();
      await credit(admin, { user_id: user.id, wallet_id: wallet, amount: 1000 });
      const c = await credit(admin, { user_id: user.id, wallet_id: wallet, amount: 10 });
      const request_id = unique("same");
      const replies = await Promise.all(
        Array.from({ length: 30 }, () =>
          reverse(admin, c.body.data.transaction_id, { request_id }),
        ),
      );
      const won = replies.filter((r) => r.status === 200);
      expect(won).toHaveLength(1);
      const lost = replies.filter((r) => r.status !== 200);
      for (const r of lost)
        expect(r.body).toEqual(alreadyExists(won[0]!.body.data.transaction_ids[0]));
      expect(await balanceOf(admin, user.id, wallet)).toBe(1000);
    });

    it("blocks a reversal whose request_id the owner's credit already used", async () => {
      const { admin, user, wallet } = await makeAccount();
      const c = await credit(admin, {
        user_id: user.id,
        wallet_id: wallet,
        amount: 10,
        request_id: "pay-42",
      });
      await expectRefusedReverse(
        admin,
        c.body.data.transaction_id,
        { request_id: "PAY-42" },
        409,
        alreadyExists(c.body.data.transaction_id),
      );
    });

    it("blocks a later debit whose request_id the owner's reversal already used", async () => {
      const { admin, user, wallet } = await makeAccount();
      await credit(admin, { user_id: user.id, wallet_id: wallet, amount: 100 });
      const c = await credit(admin, { user_id: user.id, wallet_id: wallet, amount: 10 });
      const r = await reverse(admin, c.body.data.transaction_id, { request_id: "rev-7" });
      const before = await tableCounts();
      const res = await debit(admin, {
        user_id: user.id,
        wallet_id: wallet,
        amount: 1,
        request_id: "rev-7",
      });
      expect(res.status).toBe(409);
      expect(res.body).toEqual(alreadyExists(r.body.data.transaction_ids[0]));
      expect(await tableCounts()).toEqual(before);
    });

    it("refuses an overdrawing reversal without consuming its request_id or the right to reverse", async () => {
      const { admin, user, wallet } = await makeAccount();
      const c = await credit(admin, { user_id: user.id, wallet_id: wallet, amount: 10 });
      await debit(admin, { user_id: user.id, wallet_id: wallet, amount: 5 });
      const id = c.body.data.transaction_id as number;
      await expectRefusedReverse(admin, id, { request_id: "try-undo" }, 400, INSUFFICIENT);
      await credit(admin, { user_id: user.id, wallet_id: wallet, amount: 5 });
      const res = await reverse(admin, id, { request_id: "try-undo" });
      expect(res.status).toBe(200);
      expect(await balanceOf(admin, user.id, wallet)).toBe(0);
    });
  });

  describe("spent credits", () => {
    it("refuses to reverse a credit whose amount has been spent, like an overdraft", async () => {
      const { admin, user, wallet } = await makeAccount();
      const c = await credit(admin, { user_id: user.id, wallet_id: wallet, amount: 10 });
      await debit(admin, { user_id: user.id, wallet_id: wallet, amount: "0.01" });
      await expectRefusedReverse(
        admin,
        c.body.data.transaction_id,
        { request_id: unique("r") },
        400,
        INSUFFICIENT,
      );
      expect(await balanceOf(admin, user.id, wallet)).toBe(9.99);
    });

    it("reverses a credit when other money still covers it", async () => {
      const { admin, user, wallet } = await makeAccount();
      const c = await credit(admin, { user_id: user.id, wallet_id: wallet, amount: 10 });
      await credit(admin, { user_id: user.id, wallet_id: wallet, amount: 3 });
      await debit(admin, { user_id: user.id, wallet_id: wallet, amount: 3 });
      expect((await reverse(admin, c.body.data.transaction_id)).status).toBe(200);
      expect(await balanceOf(admin, user.id, wallet)).toBe(0);
    });
  });

  describe("the largest balance", () => {
    it("refuses to reverse a debit whose credit back would pass the largest balance, writing nothing", async () => {
      const { admin, user, wallet } = await makeAccount(0);
      await credit(admin, { user_id: user.id, wallet_id: wallet, amount: 5 });
      const d = await debit(admin, { user_id: user.id, wallet_id: wallet, amount: 5 });
      await credit(admin, { user_id: user.id, wallet_id: wallet, amount: "999999999999999" });
      await expectRefusedReverse(
        admin,
        d.body.data.transaction_id,
        { request_id: unique("r") },
        400,
        {
          status_code: 400,
          status: false,
          message: "invalid input",
          error: {
            amount: "amount would take the balance past the largest balance a wallet can hold",
          },
        },
      );
      expect(await balanceOf(admin, user.id, wallet)).toBe(999_999_999_999_999);
    });
  });

  describe("requests refused before reversing", () => {
    it("answers 404 for an unknown transaction", async () => {
      const admin = await makeAdmin();
      await expectRefusedReverse(admin, 987654321, { request_id: "r" }, 404, {
        status_code: 404,
        status: false,
        message: "Transaction not found",
        error: { id: "No transaction 987654321" },
      });
    });

    it("answers 404 for an id too long to exist", async () => {
      const admin = await makeAdmin();
      const res = await expectRefusedReverse(
        admin,
        "99999999999999999999",
        { request_id: "r" },
        404,
        {
          status_code: 404,
          status: false,
          message: "Transaction not found",
          error: { id: "No transaction 99999999999999999999" },
        },
      );
      expect(res.status).toBe(404);
    });

    it("requires a request_id, before looking the transaction up", async () => {
      const { admin, user, wallet } = await makeAccount();
      const c = await credit(admin, { user_id: user.id, wallet_id: wallet, amount: 10 });
      const empty = {
        status_code: 400,
        status: false,
        message: "invalid input",
        error: { request_id: "Field Cannot be empty" },
      };
      await expectRefusedReverse(admin, c.body.data.transaction_id, {}, 400, empty);
      await expectRefusedReverse(admin, c.body.data.transaction_id, { request_id: "" }, 400, empty);
      await expectRefusedReverse(admin, 987654321, {}, 400, empty);
    });
  });
});

describe("GET /transactions/{id}", () => {
  it("answers one record with exactly the list's fields and values", async () => {
    const { admin, user, wallet } = await makeAccount();
    const c = await credit(admin, {
      user_id: user.id,
      wallet_id: wallet,
      amount: "1500",
      note: "salary",
    });
    const id = c.body.data.transaction_id as number;
    const one = await call("GET", `/transactions/${id}`, { auth: admin.bearer });
    expect(one.status).toBe(200);
    const list = await call("GET", "/transactions", {
      auth: admin.bearer,
      query: { user_id: user.id, security_code: 1 },
    });
    const fromList = list.body.data.find((r: Json) => r.ID === id);
    expect(one.body).toEqual({
      status_code: 200,
      status: true,
      message: "Txn Retrieved Successful",
      data: fromList,
    });
    expect(Object.keys(one.body.data)).toEqual(Object.keys(fromList));
    expect(one.body.data).toMatchObject({
      ID: id,
      post_author: String(user.id),
      amount: "1500",
      txn_type: "CREDIT",
      note: "salary",
      amount_formatted_disp: "₦1,500.00",
    });
  });

  it("shows a reversal as a record of the opposite type", async () => {
    const { admin, user, wallet } = await makeAccount();
    const c = await credit(admin, { user_id: user.id, wallet_id: wallet, amount: 8 });
    const r = await reverse(admin, c.body.data.transaction_id);
    const one = await call("GET", `/transactions/${r.body.data.transaction_ids[0]}`, {
      auth: admin.bearer,
    });
    expect(one.status).toBe(200);
    expect(one.body.data).toMatchObject({
      txn_type: "DEBIT",
      amount: "8",
      post_author: String(user.id),
    });
  });

  it("answers 404 to an administrator asking for an unknown id", async () => {
    const admin = await makeAdmin();
    const res = await call("GET", "/transactions/987654321", { auth: admin.bearer });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({
      status_code: 404,
      status: false,
      message: "Transaction not found",
      error: { id: "No transaction 987654321" },
    });
  });
});
