// Defects found where features combine (see test/attack-combinations.test.ts for the probes that
// pass). A refused batch, or a refused batch reversal, is named by replaying its legs against the
// balances and holds (src/wallet/batches.ts firstRefused); the database judged the legs with the
// holds that counted at the legs' own instant (trigger transactions_within_available compares
// expires_at_s with the entry's created_at_s), but the replay counted them at the clock of the
// replay, a moment later. A hold that stops counting in between (its expires_at falls inside the
// request) made the replay find no leg at fault: a batch was then refused without naming its
// operation, and a batch reversal named a leg that was not at fault. The plugin dialect's refusal of
// a transfer read what the sender may move the same way, after the fact, and could say an amount
// was larger than a figure larger than it.
// A hold captured between the refusal and its naming was counted twice by the same replays: as held
// (it counted when the write was judged) and as gone (its DEBIT was in the balance read after), so a
// batch named a leg the wallet could pay, and the plugin's sentence a mature balance below zero.
// Dates are whole seconds, so the same replays took a hold placed or captured just before the
// refused write, in its own second, for one placed or captured after it: they now start from the
// state as it stands, which is the refused one when nothing moved in between.
import { beforeAll, describe, expect, it } from "vitest";
import { wrappedD1 } from "./d1-counter";
import {
  appAt,
  arrivingAfterRefusal,
  call,
  credit,
  makeAdmin,
  makeKey,
  makeUser,
  makeWallet,
  type TestUser,
  tableCounts,
  testApp,
  unique,
} from "./helpers";

let admin: TestUser;
let key: string;

beforeAll(async () => {
  admin = await makeAdmin();
  key = (await makeKey(admin, "read-write")).header;
});

/**
 * An app whose clock reads `expiresAtMs - 1` until D1 has refused a write, then `expiresAtMs`: a
 * request that began a millisecond before a hold's expires_at and is still running when it passes.
 */
function crossingExpiry(expiresAtMs: number) {
  let refused = false;
  const d1 = wrappedD1(async (_statements, send) => {
    try {
      return await send();
    } catch (err) {
      refused = true;
      throw err;
    }
  });
  const app = testApp({ nowMs: () => (refused ? expiresAtMs : expiresAtMs - 1) });
  return { app, d1 };
}

/** A hold of `amount` on the user's wallet placed at T0 for 60 s: its expires_at in ms. */
async function holdExpiring(userId: number, wallet: string, amount: string, T0: number) {
  const res = await call("POST", "/holds", {
    auth: key,
    app: appAt(T0),
    body: { user_id: userId, wallet_id: wallet, amount, request_id: unique("h"), expires_in: 60 },
  });
  expect(res.status, res.text).toBe(200);
  return Date.parse(res.body.data.expires_at);
}

describe("a batch refused by a hold that stops counting while the refusal is named", () => {
  type Op = { type: "credit" | "debit"; user_id: number; wallet_id: string; amount: string };
  it.each<[string, (payer: number, other: number, wallet: string) => Op[], number]>([
    // Before the fix: {"amount":"Insufficient Balance"}, no operation named.
    [
      "POST /batches names the operation the wallet could not pay",
      (payer, other, wallet) => [
        { type: "credit", user_id: other, wallet_id: wallet, amount: "1" },
        { type: "debit", user_id: payer, wallet_id: wallet, amount: "5" },
      ],
      1,
    ],
    // The other user has nothing, so its debit is refused whenever it is reached; the database
    // stops at the first. With the holds counted at the clock after the refusal, the expired hold
    // let the payer's debit through and named operations[1].
    [
      "POST /batches names the first operation refused, not a later one refused as well",
      (payer, other, wallet) => [
        { type: "debit", user_id: payer, wallet_id: wallet, amount: "5" },
        { type: "debit", user_id: other, wallet_id: wallet, amount: "1" },
      ],
      0,
    ],
  ])("%s", async (_, operations, refused) => {
    const wallet = await makeWallet(admin);
    const [payer, other] = [await makeUser(), await makeUser()];
    await credit(admin, { user_id: payer.id, wallet_id: wallet, amount: "10" });
    // 8 of the payer's 10 held: a debit of 5 is past what is available (2) while the hold counts.
    const E = await holdExpiring(payer.id, wallet, "8", Date.UTC(2032, 0, 1 + refused));
    const { app, d1 } = crossingExpiry(E);
    const before = await tableCounts();
    const res = await call("POST", "/batches", {
      auth: key,
      app,
      d1,
      body: { request_id: unique("b"), operations: operations(payer.id, other.id, wallet) },
    });
    expect(await tableCounts()).toEqual(before);
    // docs/api.md: 400 "Insufficient Balance" {"operations[<i>].amount":"Insufficient Balance"}.
    expect(res.body).toEqual({
      status_code: 400,
      status: false,
      message: "Insufficient Balance",
      error: { [`operations[${refused}].amount`]: "Insufficient Balance" },
    });
  });

  it("POST /batches/{id}/reverse names the entry that could not be undone", async () => {
    const wallet = await makeWallet(admin);
    const [payee, other] = [await makeUser(), await makeUser()];
    await credit(admin, { user_id: payee.id, wallet_id: wallet, amount: "10" });
    const T0 = Date.UTC(2032, 1, 1);
    const posted = await call("POST", "/batches", {
      auth: key,
      app: appAt(T0),
      body: {
        request_id: unique("b"),
        operations: [
          { type: "credit", user_id: other.id, wallet_id: wallet, amount: "1" },
          { type: "credit", user_id: payee.id, wallet_id: wallet, amount: "5" },
          { type: "credit", user_id: other.id, wallet_id: wallet, amount: "2" },
        ],
      },
    });
    expect(posted.status, posted.text).toBe(200);
    const [, payeeLeg] = posted.body.data.transaction_ids as number[];
    // The payee has 15; 8 held until E and 3 held for a week: undoing its 5 (to 10) is refused
    // while both count (11 held), and would not be once the first stops counting.
    const E = await holdExpiring(payee.id, wallet, "8", T0);
    const week = await call("POST", "/holds", {
      auth: key,
      app: appAt(T0),
      body: { user_id: payee.id, wallet_id: wallet, amount: "3", request_id: unique("h") },
    });
    expect(week.status, week.text).toBe(200);
    const { app, d1 } = crossingExpiry(E);
    const before = await tableCounts();
    const res = await call("POST", `/batches/${posted.body.data.batch_id}/reverse`, {
      auth: key,
      app,
      d1,
    });
    expect(await tableCounts()).toEqual(before);
    // Before the fix it named the newest leg (other's credit of 2, which other can pay back).
    expect(res.body).toEqual({
      status_code: 400,
      status: false,
      message: "Insufficient Balance",
      error: { amount: "Insufficient Balance", transaction_id: String(payeeLeg) },
    });
  });
});

describe("the plugin's transfer refused by a hold that stops counting while the refusal is worded", () => {
  it("names what the sender could move when it was refused, not a moment later", async () => {
    const wallet = await makeWallet(admin);
    const [from, to] = [await makeUser(), await makeUser()];
    await credit(admin, { user_id: from.id, wallet_id: wallet, amount: "10" });
    const E = await holdExpiring(from.id, wallet, "8", Date.UTC(2032, 2, 1));
    const { app, d1 } = crossingExpiry(E);
    const before = await tableCounts();
    const res = await call("POST", "/wp-json/rimplenet/v1/transfers", {
      auth: key,
      app,
      d1,
      vars: { COMPAT_NAMESPACE: "rimplenet" },
      body: {
        transfer_from_user: from.id,
        transfer_to_user: to.id,
        wallet_id: wallet,
        amount_to_transfer: "5",
      },
    });
    expect(await tableCounts()).toEqual(before);
    // Before the fix: "… [₦5.00] is larger than … mature wallet - [₦10.00] ), … immature wallet  -
    // [₦0.00] …": the figures after the hold had expired, which contradict the refusal.
    expect(res.body).toEqual({
      status_code: 400,
      status: false,
      message: "Insufficient Balance",
      error:
        "Amount to transfer - [₦5.00] is larger than the amount in your mature wallet, input amount not more than the balance in your ( Naira Wallet mature wallet - [₦2.00] ), the balance in your ( Naira Wallet immature wallet  - [₦8.00] )  cannot be transferred until maturity",
    });
  });
});

describe("a hold captured between a refusal and its naming", () => {
  /** A D1 binding on which hold `holdId` is captured (all of it, or `amount`) right after the first refusal. */
  const capturedAfterRefusal = (holdId: number, amount?: string) =>
    arrivingAfterRefusal(async () => {
      const body = amount === undefined ? {} : { amount };
      const res = await call("POST", `/holds/${holdId}/capture`, { auth: key, body });
      expect(res.status, res.text).toBe(200);
    });

  async function held(userId: number, wallet: string, amount: string) {
    const res = await call("POST", "/holds", {
      auth: key,
      body: { user_id: userId, wallet_id: wallet, amount, request_id: unique("h") },
    });
    expect(res.status, res.text).toBe(200);
    return res.body.data.hold_id as number;
  }

  it("POST /batches names the operation the wallet could not pay, not one before it", async () => {
    const wallet = await makeWallet(admin);
    const payer = await makeUser();
    await credit(admin, { user_id: payer.id, wallet_id: wallet, amount: "10" });
    // 4 of 10 held: debiting 3 leaves 7 (enough), then 4 more leaves 3, below the 4 held.
    const holdId = await held(payer.id, wallet, "4");
    const before = await tableCounts();
    const res = await call("POST", "/batches", {
      auth: key,
      d1: capturedAfterRefusal(holdId),
      body: {
        request_id: unique("b"),
        operations: [
          { type: "debit", user_id: payer.id, wallet_id: wallet, amount: "3" },
          { type: "debit", user_id: payer.id, wallet_id: wallet, amount: "4" },
        ],
      },
    });
    // Only the capture was written.
    expect((await tableCounts()).transactions).toBe(before.transactions! + 1);
    // The capture counted twice (held, and gone through its DEBIT) would name operations[0]: 6
    // after the capture less the 4 held.
    expect(res.body).toEqual({
      status_code: 400,
      status: false,
      message: "Insufficient Balance",
      error: { "operations[1].amount": "Insufficient Balance" },
    });
  });

  it("POST /batches/{id}/reverse names the entry that could not be undone", async () => {
    const wallet = await makeWallet(admin);
    const payee = await makeUser();
    await credit(admin, { user_id: payee.id, wallet_id: wallet, amount: "10" });
    const posted = await call("POST", "/batches", {
      auth: key,
      body: {
        request_id: unique("b"),
        operations: [
          { type: "credit", user_id: payee.id, wallet_id: wallet, amount: "5" },
          { type: "credit", user_id: payee.id, wallet_id: wallet, amount: "2" },
        ],
      },
    });
    expect(posted.status, posted.text).toBe(200);
    const [fiveLeg] = posted.body.data.transaction_ids as number[];
    // 17, 8 held, 5 spent: 12. Undoing the 2 leaves 10 (8 held: fine), then the 5 leaves 5, below 8.
    const holdId = await held(payee.id, wallet, "8");
    const spent = await call("POST", "/debits", {
      auth: key,
      body: { user_id: payee.id, wallet_id: wallet, amount: "5", request_id: unique("d") },
    });
    expect(spent.status, spent.text).toBe(200);
    const res = await call("POST", `/batches/${posted.body.data.batch_id}/reverse`, {
      auth: key,
      d1: capturedAfterRefusal(holdId),
    });
    // The capture counted twice would name the leg of 2: 4 after the capture less the 8 held.
    expect(res.body).toEqual({
      status_code: 400,
      status: false,
      message: "Insufficient Balance",
      error: { amount: "Insufficient Balance", transaction_id: String(fiveLeg) },
    });
  });

  it.each([
    ["all of it", undefined],
    ["part of it", "3"],
  ])(
    "the plugin's transfer names what the sender could move when refused (%s captured)",
    async (_, part) => {
      const wallet = await makeWallet(admin);
      const [from, to] = [await makeUser(), await makeUser()];
      await credit(admin, { user_id: from.id, wallet_id: wallet, amount: "10" });
      const holdId = await held(from.id, wallet, "8");
      const res = await call("POST", "/wp-json/rimplenet/v1/transfers", {
        auth: key,
        d1: capturedAfterRefusal(holdId, part),
        vars: { COMPAT_NAMESPACE: "rimplenet" },
        body: {
          transfer_from_user: from.id,
          transfer_to_user: to.id,
          wallet_id: wallet,
          amount_to_transfer: "5",
        },
      });
      // The capture counted twice would say "mature wallet - [₦-6.00]" (all captured) or
      // "[₦-1.00]" (3 captured): the balance after the capture less the hold it captured, a figure
      // the sender never had. All captured, the sender's 2 left still refuse 5: named as they stand
      // (a balance read then says so too); 3 captured leave 7, which would not: named as refused.
      const immature = part === undefined ? "₦0.00" : "₦8.00";
      expect(res.body).toEqual({
        status_code: 400,
        status: false,
        message: "Insufficient Balance",
        error: `Amount to transfer - [₦5.00] is larger than the amount in your mature wallet, input amount not more than the balance in your ( Naira Wallet mature wallet - [₦2.00] ), the balance in your ( Naira Wallet immature wallet  - [${immature}] )  cannot be transferred until maturity`,
      });
    },
  );
});

describe("a refusal named after holds were placed and captured in its own second", () => {
  // Dates are whole seconds: a hold captured in the refused write's second, before it, looked like
  // one captured after it (still counting, its DEBIT added back), and one placed in that second
  // counted beside it. Nothing moved between the refusal and its naming here.
  const T = Date.UTC(2033, 0, 1);
  const at = appAt(T);

  /** 10 credited, 8 held and 3 of it captured, all at T: 7 left, nothing held. */
  async function capturedInTheSecond() {
    const wallet = await makeWallet(admin);
    const user = await makeUser();
    const paid = await call("POST", "/credits", {
      auth: key,
      app: at,
      body: { user_id: user.id, wallet_id: wallet, amount: "10", request_id: unique("c") },
    });
    expect(paid.status, paid.text).toBe(200);
    const hold = await call("POST", "/holds", {
      auth: key,
      app: at,
      body: { user_id: user.id, wallet_id: wallet, amount: "8", request_id: unique("h") },
    });
    expect(hold.status, hold.text).toBe(200);
    const captured = await call("POST", `/holds/${hold.body.data.hold_id}/capture`, {
      auth: key,
      app: at,
      body: { amount: "3" },
    });
    expect(captured.status, captured.text).toBe(200);
    return { wallet, user };
  }

  /** env.DB on which `user` is credited 1 at T right after the first refusal. */
  const creditedAfterRefusal = (userId: number, wallet: string) =>
    arrivingAfterRefusal(async () => {
      const res = await call("POST", "/credits", {
        auth: key,
        app: at,
        body: { user_id: userId, wallet_id: wallet, amount: "1", request_id: unique("c") },
      });
      expect(res.status, res.text).toBe(200);
    });

  // Nothing moved: the capture read as after the batch named operations[0] (10 less 5 below the 8
  // held), and the plugin said mature [₦-5.00], immature [₦15.00]. A credit of 1 landing before
  // the refusal is named (8 now pays both): the replay counted the captured hold again beside a
  // balance of 8 it had left, and named operations[0], or said [₦-4.00] and [₦15.00].
  const cases = [
    ["nothing moved", false],
    ["a credit landed before it was named", true],
  ] as const;

  it.each(cases)(
    "POST /batches names the operation the wallet could not pay (%s)",
    async (_, racing) => {
      const { wallet, user } = await capturedInTheSecond();
      const before = await tableCounts();
      const res = await call("POST", "/batches", {
        auth: key,
        app: at,
        d1: racing ? creditedAfterRefusal(user.id, wallet) : undefined,
        body: {
          request_id: unique("b"),
          operations: [
            { type: "debit", user_id: user.id, wallet_id: wallet, amount: "5" },
            { type: "debit", user_id: user.id, wallet_id: wallet, amount: "3" },
          ],
        },
      });
      expect((await tableCounts()).transactions).toBe(before.transactions! + (racing ? 1 : 0));
      expect(res.body).toEqual({
        status_code: 400,
        status: false,
        message: "Insufficient Balance",
        error: { "operations[1].amount": "Insufficient Balance" },
      });
    },
  );

  it.each(cases)(
    "the plugin's transfer names the sender's balance and holds as they were (%s)",
    async (_, racing) => {
      const { wallet, user } = await capturedInTheSecond();
      const to = await makeUser();
      const again = await call("POST", "/holds", {
        auth: key,
        app: at,
        body: { user_id: user.id, wallet_id: wallet, amount: "7", request_id: unique("h") },
      });
      expect(again.status, again.text).toBe(200);
      const before = await tableCounts();
      const res = await call("POST", "/wp-json/rimplenet/v1/transfers", {
        auth: key,
        app: at,
        d1: racing ? creditedAfterRefusal(user.id, wallet) : undefined,
        vars: { COMPAT_NAMESPACE: "rimplenet" },
        body: {
          transfer_from_user: user.id,
          transfer_to_user: to.id,
          wallet_id: wallet,
          amount_to_transfer: "1",
        },
      });
      expect((await tableCounts()).transactions).toBe(before.transactions! + (racing ? 1 : 0));
      expect(res.body).toEqual({
        status_code: 400,
        status: false,
        message: "Insufficient Balance",
        error:
          "Amount to transfer - [₦1.00] is larger than the amount in your mature wallet, input amount not more than the balance in your ( Naira Wallet mature wallet - [₦0.00] ), the balance in your ( Naira Wallet immature wallet  - [₦7.00] )  cannot be transferred until maturity",
      });
    },
  );
});

describe("a refusal named after a hold was voided in its own second and a credit landed", () => {
  // 10 credited, 8 held and voided, 7 held, all at T: 3 available. The refused write's replay
  // counted the voided hold as held still (it cannot tell it from one voided after the refusal),
  // beside the credit of 1 that landed after the refusal: 11 less 15 held, a state the ledger was
  // never in (the guards keep a balance at or above what holds reserve).
  const T = Date.UTC(2033, 1, 1);
  const at = appAt(T);
  const post = (path: string, body: object, d1?: D1Database) =>
    call("POST", path, { auth: key, app: at, body, d1 });

  async function voidedInTheSecond() {
    const wallet = await makeWallet(admin);
    const user = await makeUser();
    const paid = await post("/credits", {
      user_id: user.id,
      wallet_id: wallet,
      amount: "10",
      request_id: unique("c"),
    });
    expect(paid.status, paid.text).toBe(200);
    const hold = await post("/holds", {
      user_id: user.id,
      wallet_id: wallet,
      amount: "8",
      request_id: unique("h"),
    });
    expect((await post(`/holds/${hold.body.data.hold_id}/void`, {})).status).toBe(200);
    const again = await post("/holds", {
      user_id: user.id,
      wallet_id: wallet,
      amount: "7",
      request_id: unique("h"),
    });
    expect(again.status, again.text).toBe(200);
    const d1 = arrivingAfterRefusal(() =>
      post("/credits", {
        user_id: user.id,
        wallet_id: wallet,
        amount: "1",
        request_id: unique("c"),
      }),
    );
    return { wallet, user, d1 };
  }

  it("POST /batches names the operation the wallet could not pay", async () => {
    const { wallet, user, d1 } = await voidedInTheSecond();
    const res = await post(
      "/batches",
      {
        request_id: unique("b"),
        operations: [
          { type: "debit", user_id: user.id, wallet_id: wallet, amount: "2" },
          { type: "debit", user_id: user.id, wallet_id: wallet, amount: "2" },
        ],
      },
      d1,
    );
    // Counted so, it named operations[0] (11 less 2 below 15); 10 less 2 leaves 8, above the 7.
    expect(res.body).toEqual({
      status_code: 400,
      status: false,
      message: "Insufficient Balance",
      error: { "operations[1].amount": "Insufficient Balance" },
    });
  });

  it("the plugin's transfer names the sender's balance and holds as they were", async () => {
    const { wallet, user, d1 } = await voidedInTheSecond();
    const to = await makeUser();
    const res = await call("POST", "/wp-json/rimplenet/v1/transfers", {
      auth: key,
      app: at,
      d1,
      vars: { COMPAT_NAMESPACE: "rimplenet" },
      body: {
        transfer_from_user: user.id,
        transfer_to_user: to.id,
        wallet_id: wallet,
        amount_to_transfer: "4",
      },
    });
    // Counted so, it said mature [₦-4.00] and immature [₦15.00].
    expect(res.body).toEqual({
      status_code: 400,
      status: false,
      message: "Insufficient Balance",
      error:
        "Amount to transfer - [₦4.00] is larger than the amount in your mature wallet, input amount not more than the balance in your ( Naira Wallet mature wallet - [₦3.00] ), the balance in your ( Naira Wallet immature wallet  - [₦7.00] )  cannot be transferred until maturity",
    });
  });
});

describe("a hold placed in the second after a refusal, before it is named", () => {
  it("POST /batches names the operation the wallet could not pay, not one before it", async () => {
    const T = Date.UTC(2033, 2, 1);
    const wallet = await makeWallet(admin);
    const user = await makeUser();
    const paid = await call("POST", "/credits", {
      auth: key,
      app: appAt(T),
      body: { user_id: user.id, wallet_id: wallet, amount: "10", request_id: unique("c") },
    });
    expect(paid.status, paid.text).toBe(200);
    const d1 = arrivingAfterRefusal(async () => {
      const res = await call("POST", "/holds", {
        auth: key,
        app: appAt(T + 1000),
        body: { user_id: user.id, wallet_id: wallet, amount: "8", request_id: unique("h") },
      });
      expect(res.status, res.text).toBe(200);
    });
    const res = await call("POST", "/batches", {
      auth: key,
      app: appAt(T),
      d1,
      body: {
        request_id: unique("b"),
        operations: [
          { type: "debit", user_id: user.id, wallet_id: wallet, amount: "3" },
          { type: "debit", user_id: user.id, wallet_id: wallet, amount: "8" },
        ],
      },
    });
    // Counted as it stands, the hold of 8 placed after the refusal named operations[0] (10 less 3
    // below it); the batch was refused at 7 less 8.
    expect(res.body).toEqual({
      status_code: 400,
      status: false,
      message: "Insufficient Balance",
      error: { "operations[1].amount": "Insufficient Balance" },
    });
  });
});
