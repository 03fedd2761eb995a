// Attacks on batches where they meet the rest of the ledger: a leg's derived request id under the
// ASCII case fold, the longest batch key, holds and the plugin dialect on a wallet storing more
// places than it shows, and record ids in the path no route could have made. Every answer is
// checked for what it wrote as well as what it said.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { GUARDED } from "./compat-helpers";
import { wrappedD1 } from "./d1-counter";
import {
  arrivingBeforeWrite,
  CLEAN,
  call,
  credit,
  debit,
  type Json,
  ledgerViolations,
  makeAccount,
  makeAdmin,
  makeUser,
  makeWallet,
  storedBalance,
  storingMore,
  type TestUser,
  tableCounts,
  unique,
} from "./helpers";

const post = (admin: TestUser, body: Json) =>
  call("POST", "/batches", { auth: admin.bearer, body });

/** A POST in the plugin's namespace (on for this request), JSON body. */
const plugin = (path: string, admin: TestUser, body: Json) =>
  call("POST", `/wp-json/rimplenet/v1${path}`, { auth: admin.bearer, body, vars: GUARDED });

/** The balance as stored, in stored units, once it is seen to be the sum of its entries. */
async function stored(userId: number, walletId: string) {
  const { balance, total } = await storedBalance(userId, walletId);
  expect(total, "balance is the sum of its entries").toBe(balance);
  return balance;
}

describe("a leg's derived request id under the ASCII case fold", () => {
  it("a single credit whose key differs from a leg's only in letter case is that leg's repeat", async () => {
    const { admin, user, wallet } = await makeAccount();
    const key = unique("Sale-Case");
    const posted = await post(admin, {
      request_id: key,
      operations: [{ type: "credit", user_id: user.id, wallet_id: wallet, amount: "5" }],
    });
    expect(posted.status, posted.text).toBe(200);
    const [leg] = posted.body.data.transaction_ids;
    const before = await tableCounts();
    const again = await credit(admin, {
      user_id: user.id,
      wallet_id: wallet,
      amount: "5",
      request_id: `BATCH:${key.toUpperCase()}#0`,
    });
    expect(again.status, again.text).toBe(409);
    expect(again.body.error).toEqual({
      txn_id: String(leg),
      exist: "Transaction already executed",
    });
    expect(await tableCounts()).toEqual(before);
  });

  it("a batch whose leg key a single debit took in other letters is refused naming that leg", async () => {
    const { admin, user, wallet } = await makeAccount();
    await credit(admin, { user_id: user.id, wallet_id: wallet, amount: "10" });
    const key = unique("pre-case");
    const single = await debit(admin, {
      user_id: user.id,
      wallet_id: wallet,
      amount: "1",
      request_id: `Batch:${key.toUpperCase()}#1`,
    });
    expect(single.status, single.text).toBe(200);
    const before = await tableCounts();
    const refused = await post(admin, {
      request_id: key,
      operations: [
        { type: "credit", user_id: user.id, wallet_id: wallet, amount: "1" },
        // Beyond what the wallet holds: the used key is answered first, whatever the balances.
        { type: "debit", user_id: user.id, wallet_id: wallet, amount: "500" },
      ],
    });
    expect(refused.status, refused.text).toBe(409);
    expect(refused.body.error).toEqual({
      "operations[1].txn_id": String(single.body.data.transaction_id),
      "operations[1].exist": "Transaction already executed",
    });
    expect(await tableCounts()).toEqual(before);
  });

  it("a hold placed under a leg's key after the batch is refused as that leg's repeat", async () => {
    const { admin, user, wallet } = await makeAccount();
    const key = unique("hold-leg");
    const posted = await post(admin, {
      request_id: key,
      operations: [{ type: "credit", user_id: user.id, wallet_id: wallet, amount: "20" }],
    });
    expect(posted.status, posted.text).toBe(200);
    const before = await tableCounts();
    const hold = await call("POST", "/holds", {
      auth: admin.bearer,
      body: { user_id: user.id, wallet_id: wallet, amount: "1", request_id: `batch:${key}#0` },
    });
    expect(hold.status, hold.text).toBe(409);
    expect(hold.body.error).toEqual({
      txn_id: String(posted.body.data.transaction_ids[0]),
      exist: "Transaction already executed",
    });
    expect(await tableCounts()).toEqual(before);
  });
});

describe("the longest batch key", () => {
  it("writes legs whose derived keys pass 191 characters, and answers its repeat 409", async () => {
    const { admin, user, wallet } = await makeAccount();
    const key = `${unique("k")}${"x".repeat(191)}`.slice(0, 191);
    const operations = Array.from({ length: 12 }, () => ({
      type: "credit",
      user_id: user.id,
      wallet_id: wallet,
      amount: "1",
    }));
    const posted = await post(admin, { request_id: key, operations });
    expect(posted.status, posted.text).toBe(200);
    expect(await stored(user.id, wallet)).toBe(1200);
    const before = await tableCounts();
    const again = await post(admin, { request_id: key.toUpperCase(), operations });
    expect(again.status, again.text).toBe(409);
    expect(again.body.error).toEqual({
      batch_id: String(posted.body.data.batch_id),
      exist: "Batch already executed",
    });
    const tooLong = await post(admin, { request_id: `${key}y`, operations });
    expect(tooLong.status, tooLong.text).toBe(400);
    expect(Object.keys(tooLong.body.error)).toEqual(["request_id"]);
    expect(await tableCounts()).toEqual(before);
    const reversed = await call("POST", `/batches/${posted.body.data.batch_id}/reverse`, {
      auth: admin.bearer,
    });
    expect(reversed.status, reversed.text).toBe(200);
    expect(await stored(user.id, wallet)).toBe(0);
  });
});

describe("a wallet storing a place more than it shows, with the plugin dialect and holds", () => {
  it("moves the exact stored units through compat credits, batches, holds and the reversal", async () => {
    const admin = await makeAdmin();
    const [ada, bob, fee] = [await makeUser(), await makeUser(), await makeUser()];
    // 2 display places, stored at 3.
    const wallet = await storingMore(1);
    const paid = await plugin("/credits", admin, {
      user_id: ada.id,
      wallet_id: wallet,
      amount: "12.345",
      request_id: unique("c"),
    });
    expect(paid.status, paid.text).toBe(200);
    expect(await stored(ada.id, wallet)).toBe(12_345);

    // wallet/v1 takes the places the wallet shows (contract section 3), even where it stores more.
    const before = await tableCounts();
    const finer = await post(admin, {
      request_id: unique("b"),
      operations: [
        { type: "credit", user_id: bob.id, wallet_id: wallet, amount: "1" },
        { type: "debit", user_id: ada.id, wallet_id: wallet, amount: "12.345" },
      ],
    });
    expect(finer.status, finer.text).toBe(400);
    expect(finer.body.error).toEqual({
      "operations[1].amount": `amount has more decimal places than wallet ${wallet} allows (2)`,
    });
    expect(await tableCounts()).toEqual(before);

    // A hold of 10 leaves 2.345 to spend: 2.35 is five stored units more and refuses the batch.
    const hold = await call("POST", "/holds", {
      auth: admin.bearer,
      body: { user_id: ada.id, wallet_id: wallet, amount: "10", request_id: unique("h") },
    });
    expect(hold.status, hold.text).toBe(200);
    const held = await tableCounts();
    const over = await post(admin, {
      request_id: unique("b"),
      operations: [
        { type: "credit", user_id: fee.id, wallet_id: wallet, amount: "0.01" },
        {
          type: "transfer",
          from_user_id: ada.id,
          to_user_id: bob.id,
          wallet_id: wallet,
          amount: "2.35",
        },
      ],
    });
    expect(over.status, over.text).toBe(400);
    expect(over.body.error).toEqual({ "operations[1].amount": "Insufficient Balance" });
    expect(await tableCounts()).toEqual(held);
    expect(held.transactions).toBe(before.transactions);

    const sale = await post(admin, {
      request_id: unique("b"),
      balanced: true,
      operations: [
        { type: "debit", user_id: ada.id, wallet_id: wallet, amount: "2.34" },
        { type: "credit", user_id: bob.id, wallet_id: wallet, amount: "2.33" },
        { type: "credit", user_id: fee.id, wallet_id: wallet, amount: "0.01" },
      ],
    });
    expect(sale.status, sale.text).toBe(200);
    expect([
      await stored(ada.id, wallet),
      await stored(bob.id, wallet),
      await stored(fee.id, wallet),
    ]).toEqual([10_005, 2_330, 10]);
    // The batch reads back the amounts moved.
    const read = await call("GET", `/batches/${sale.body.data.batch_id}`, { auth: admin.bearer });
    expect(read.status, read.text).toBe(200);
    expect(read.body.data.transactions.map((t: Json) => t.amount_formatted_disp)).toEqual([
      "₦2.34",
      "₦2.33",
      "₦0.01",
    ]);

    // Capturing the whole hold leaves ada the stored unit she cannot spend through wallet/v1; the
    // reversal then pays her back exactly.
    const capture = await call("POST", `/holds/${hold.body.data.hold_id}/capture`, {
      auth: admin.bearer,
    });
    expect(capture.status, capture.text).toBe(200);
    expect(await stored(ada.id, wallet)).toBe(5);
    const reversed = await call("POST", `/batches/${sale.body.data.batch_id}/reverse`, {
      auth: admin.bearer,
    });
    expect(reversed.status, reversed.text).toBe(200);
    expect([
      await stored(ada.id, wallet),
      await stored(bob.id, wallet),
      await stored(fee.id, wallet),
    ]).toEqual([2_345, 0, 0]);
    expect(await ledgerViolations()).toEqual(CLEAN);
  });

  it("refuses a reversal whose credit was spent through the plugin dialect, writing nothing", async () => {
    const admin = await makeAdmin();
    const [ada, bob] = [await makeUser(), await makeUser()];
    const wallet = await storingMore(1);
    const posted = await post(admin, {
      request_id: unique("b"),
      operations: [{ type: "credit", user_id: ada.id, wallet_id: wallet, amount: "1.01" }],
    });
    expect(posted.status, posted.text).toBe(200);
    const sent = await plugin("/transfers", admin, {
      transfer_from_user: ada.id,
      transfer_to_user: bob.id,
      wallet_id: wallet,
      amount_to_transfer: "0.001",
      request_id: unique("t"),
    });
    expect(sent.status, sent.text).toBe(200);
    expect(await stored(ada.id, wallet)).toBe(1_009);
    const before = await tableCounts();
    const reversed = await call("POST", `/batches/${posted.body.data.batch_id}/reverse`, {
      auth: admin.bearer,
    });
    expect(reversed.status, reversed.text).toBe(400);
    expect(reversed.body.error).toEqual({
      amount: "Insufficient Balance",
      transaction_id: String(posted.body.data.transaction_ids[0]),
    });
    expect(await tableCounts()).toEqual(before);
    expect(await ledgerViolations()).toEqual(CLEAN);
  });
});

describe("batch ids no route could have made", () => {
  const IDS = [
    "0",
    "-1",
    "1e3",
    "0x10",
    "99999999999999999999",
    "9007199254740993",
    "1.0",
    "%20",
    "abc",
  ];

  it.each(IDS)("%s: GET /batches/{id} and its reverse answer 4xx and write nothing", async (id) => {
    const admin = await makeAdmin();
    const before = await tableCounts();
    const read = await call("GET", `/batches/${id}`, { auth: admin.bearer });
    expect(read.status, read.text).toBeGreaterThanOrEqual(400);
    expect(read.status, read.text).toBeLessThan(500);
    const reverse = await call("POST", `/batches/${id}/reverse`, { auth: admin.bearer });
    expect(reverse.status, reverse.text).toBeGreaterThanOrEqual(400);
    expect(reverse.status, reverse.text).toBeLessThan(500);
    expect(await tableCounts()).toEqual(before);
  });
});

/** The first statement of a write that moves money. */
const MONEY_WRITE = /^\s*insert into "(transactions|batches)"/i;

/** env.DB on which the first batch writing money commits and is then reported lost. */
function losingFirstMoneyWrite() {
  let lost = false;
  const writes = (s: D1PreparedStatement) =>
    MONEY_WRITE.test((s as unknown as { statement: string }).statement);
  return wrappedD1(async (statements, send) => {
    const r = await send();
    if (!lost && statements.some(writes)) {
      lost = true;
      throw new Error("D1_ERROR: Network connection lost.");
    }
    return r;
  });
}

describe("a batch or its reversal whose commit D1 reported lost", () => {
  it("answers 503, and the retry answers 409 naming what was written once", async () => {
    const admin = await makeAdmin();
    const [ada, bob] = [await makeUser(), await makeUser()];
    const wallet = await makeWallet(admin);
    await credit(admin, { user_id: ada.id, wallet_id: wallet, amount: "10" });
    const body = {
      request_id: unique("lost"),
      operations: [
        {
          type: "transfer",
          from_user_id: ada.id,
          to_user_id: bob.id,
          wallet_id: wallet,
          amount: "4",
        },
      ],
    };
    const first = await call("POST", "/batches", {
      auth: admin.bearer,
      body,
      d1: losingFirstMoneyWrite(),
    });
    expect(first.status, first.text).toBe(503);
    const retry = await post(admin, body);
    expect(retry.status, retry.text).toBe(409);
    const batchId = Number(retry.body.error.batch_id);
    expect([await stored(ada.id, wallet), await stored(bob.id, wallet)]).toEqual([600, 400]);

    const undo = await call("POST", `/batches/${batchId}/reverse`, {
      auth: admin.bearer,
      d1: losingFirstMoneyWrite(),
    });
    expect(undo.status, undo.text).toBe(503);
    const again = await call("POST", `/batches/${batchId}/reverse`, { auth: admin.bearer });
    expect(again.status, again.text).toBe(409);
    expect(again.body.error).toEqual({ id: `Batch ${batchId} was already reversed` });
    expect([await stored(ada.id, wallet), await stored(bob.id, wallet)]).toEqual([1000, 0]);
    const read = await call("GET", `/batches/${batchId}`, { auth: admin.bearer });
    expect(read.body.data.status).toBe("reversed");
    expect(await ledgerViolations()).toEqual(CLEAN);
  });
});

describe("a batch reversal meeting a write that lands between its reads and its write", () => {
  const setupPaid = async () => {
    const admin = await makeAdmin();
    const [ada, bob] = [await makeUser(), await makeUser()];
    const wallet = await makeWallet(admin);
    await credit(admin, { user_id: ada.id, wallet_id: wallet, amount: "10" });
    const posted = await post(admin, {
      request_id: unique("b"),
      operations: [
        {
          type: "transfer",
          from_user_id: ada.id,
          to_user_id: bob.id,
          wallet_id: wallet,
          amount: "4",
        },
        { type: "credit", user_id: bob.id, wallet_id: wallet, amount: "1" },
      ],
    });
    expect(posted.status, posted.text).toBe(200);
    return { admin, ada, bob, wallet, posted: posted.body.data as Json };
  };

  it("a single reversal of one of its entries: 409 naming that entry, nothing more written", async () => {
    const { admin, ada, bob, wallet, posted } = await setupPaid();
    const [, creditHalf] = posted.transaction_ids;
    let single: Awaited<ReturnType<typeof call>> | undefined;
    const d1 = arrivingBeforeWrite(async () => {
      single = await call("POST", `/transactions/${creditHalf}/reverse`, {
        auth: admin.bearer,
        body: { request_id: unique("r") },
      });
    }, MONEY_WRITE);
    const res = await call("POST", `/batches/${posted.batch_id}/reverse`, {
      auth: admin.bearer,
      d1,
    });
    expect(single?.status, single?.text).toBe(200);
    expect(res.status, res.text).toBe(409);
    // Newest first, the first entry found reversed is the transfer's CREDIT half.
    expect(res.body.error).toEqual({ id: `Transaction ${creditHalf} was already reversed` });
    // The single reversal undid the transfer; the credit stands.
    expect([await stored(ada.id, wallet), await stored(bob.id, wallet)]).toEqual([1000, 100]);
    expect(await ledgerViolations()).toEqual(CLEAN);
  });

  it("a hold on the money it would take back: 400 naming the entry, nothing written", async () => {
    const { admin, bob, wallet, posted } = await setupPaid();
    const d1 = arrivingBeforeWrite(async () => {
      const hold = await call("POST", "/holds", {
        auth: admin.bearer,
        body: { user_id: bob.id, wallet_id: wallet, amount: "3.5", request_id: unique("h") },
      });
      expect(hold.status, hold.text).toBe(200);
    }, MONEY_WRITE);
    const before = await tableCounts();
    const res = await call("POST", `/batches/${posted.batch_id}/reverse`, {
      auth: admin.bearer,
      d1,
    });
    expect(res.status, res.text).toBe(400);
    expect(res.body.message).toBe("Insufficient Balance");
    // Undoing bob's credit of 1 leaves 4, above the 3.5 held; undoing the transfer's 4 does not.
    expect(res.body.error).toEqual({
      amount: "Insufficient Balance",
      transaction_id: String(posted.transaction_ids[1]),
    });
    const after = await tableCounts();
    expect([after.transactions, after.batches, after.money]).toEqual([
      before.transactions,
      before.batches,
      before.money,
    ]);
    expect(await stored(bob.id, wallet)).toBe(500);
    expect(await ledgerViolations()).toEqual(CLEAN);
  });
});

describe("a batch meeting a single request that takes a leg's key between its reads and its write", () => {
  it.each(["credit", "hold"] as const)(
    "a %s under operation 1's key: 409 naming it, nothing of the batch written",
    async (kind) => {
      const admin = await makeAdmin();
      const [ada, bob] = [await makeUser(), await makeUser()];
      const wallet = await makeWallet(admin);
      await credit(admin, { user_id: ada.id, wallet_id: wallet, amount: "10" });
      const key = unique("race");
      let single: Json | undefined;
      const d1 = arrivingBeforeWrite(async () => {
        const res = await call("POST", kind === "credit" ? "/credits" : "/holds", {
          auth: admin.bearer,
          body: { user_id: ada.id, wallet_id: wallet, amount: "2", request_id: `batch:${key}#1` },
        });
        expect(res.status, res.text).toBe(200);
        single = res.body.data;
      }, MONEY_WRITE);
      const res = await call("POST", "/batches", {
        auth: admin.bearer,
        d1,
        body: {
          request_id: key,
          operations: [
            { type: "credit", user_id: bob.id, wallet_id: wallet, amount: "1" },
            { type: "debit", user_id: ada.id, wallet_id: wallet, amount: "9" },
          ],
        },
      });
      expect(res.status, res.text).toBe(409);
      expect(res.body.error).toEqual(
        kind === "credit"
          ? {
              "operations[1].txn_id": String(single!.transaction_id),
              "operations[1].exist": "Transaction already executed",
            }
          : {
              "operations[1].hold_id": String(single!.hold_id),
              "operations[1].exist": "Hold already placed",
            },
      );
      expect(await stored(bob.id, wallet)).toBe(0);
      expect(await stored(ada.id, wallet)).toBe(kind === "credit" ? 1200 : 1000);
      const none = await env.DB.prepare("SELECT count(*) AS n FROM batches WHERE request_key = ?")
        .bind(key.toLowerCase())
        .first<number>("n");
      expect(none).toBe(0);
      expect(await ledgerViolations()).toEqual(CLEAN);
    },
  );
});
