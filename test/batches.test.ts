// POST /batches, GET /batches/{id}, GET /batches, POST /batches/{id}/reverse over HTTP: the answer
// shapes, every bad input named by operation, idempotency under races, money conserved under
// overlapping batches, and the batch events.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { BATCH_ENTRIES_PER_READ } from "../src/wallet/batch-reads";
import { MAX_OPERATIONS } from "../src/wallet/batches";
import {
  balanceOf,
  CLEAN,
  call,
  credit,
  type Json,
  ledgerViolations,
  makeAdmin,
  makeUser,
  makeWallet,
  type TestUser,
  tableCounts,
  unique,
} from "./helpers";

async function setup(decimals = 2) {
  const admin = await makeAdmin();
  const [buyer, seller, platform] = [await makeUser(), await makeUser(), await makeUser()];
  const wallet = await makeWallet(admin, { decimals });
  return { admin, buyer, seller, platform, wallet };
}

const post = (admin: TestUser, body: Json | string | URLSearchParams) =>
  call("POST", "/batches", { auth: admin.bearer, body });

const sale = (wallet: string, buyer: TestUser, seller: TestUser, platform: TestUser) => ({
  request_id: unique("sale"),
  operations: [
    { type: "debit", user_id: buyer.id, wallet_id: wallet, amount: "10.00", note: "order 17" },
    { type: "credit", user_id: seller.id, wallet_id: wallet, amount: "9.50", note: "order 17" },
    { type: "credit", user_id: platform.id, wallet_id: wallet, amount: "0.50", note: "fee" },
    {
      type: "transfer",
      from_user_id: seller.id,
      to_user_id: platform.id,
      wallet_id: wallet,
      amount: "1.00",
    },
  ],
});

const base = (wallet: string, userId: number) => ({
  type: "credit",
  user_id: userId,
  wallet_id: wallet,
  amount: "1",
});

const invalid = (error: Json) => ({
  status_code: 400,
  status: false,
  message: "invalid input",
  error,
});

describe("POST /batches", () => {
  it("answers 200 Batch Completed with the entries' ids in operation order", async () => {
    const { admin, buyer, seller, platform, wallet } = await setup();
    await credit(admin, { user_id: buyer.id, wallet_id: wallet, amount: 10 });
    const body = sale(wallet, buyer, seller, platform);
    const res = await post(admin, { ...body, balanced: true });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({
      status_code: 200,
      status: true,
      message: "Batch Completed",
      data: { request_id: body.request_id },
    });
    const ids = res.body.data.transaction_ids as number[];
    expect(ids).toHaveLength(5);
    expect([...ids].sort((a, b) => a - b)).toEqual(ids);
    expect(await balanceOf(admin, buyer.id, wallet)).toBe(0);
    expect(await balanceOf(admin, seller.id, wallet)).toBe(8.5);
    expect(await balanceOf(admin, platform.id, wallet)).toBe(1.5);
  });

  /** A credit of 2.50 to `userId` as PHP's form names send it, with `more` fields beside it. */
  const creditForm = (userId: number, wallet: string, more: Record<string, string> = {}) =>
    new URLSearchParams({
      request_id: unique("form"),
      "operations[0][type]": "credit",
      "operations[0][user_id]": String(userId),
      "operations[0][wallet_id]": wallet,
      "operations[0][amount]": "2.50",
      ...more,
    });

  it("takes a form body with PHP's operations[i][field] names", async () => {
    const { admin, buyer, wallet } = await setup();
    const res = await post(admin, creditForm(buyer.id, wallet));
    expect(res.status, res.text).toBe(200);
    expect(await balanceOf(admin, buyer.id, wallet)).toBe(2.5);
  });

  it("runs a JSON body's operations, not operations[i][field] names in its query", async () => {
    const { admin, buyer, seller, wallet } = await setup();
    const names = new URLSearchParams({
      "operations[0][type]": "credit",
      "operations[0][user_id]": String(seller.id),
      "operations[0][wallet_id]": wallet,
      "operations[0][amount]": "9999",
    });
    const res = await call("POST", `/batches?${names}`, {
      auth: admin.bearer,
      body: {
        request_id: unique("json"),
        operations: [{ type: "credit", user_id: buyer.id, wallet_id: wallet, amount: "1" }],
      },
    });
    expect(res.status, res.text).toBe(200);
    expect(await balanceOf(admin, buyer.id, wallet)).toBe(1);
    expect(await balanceOf(admin, seller.id, wallet)).toBe(0);
  });

  it("takes the most operations a batch may hold, as JSON and as a form's operations[99]", async () => {
    const { admin, buyer, wallet } = await setup();
    const json = await post(admin, {
      request_id: unique("most"),
      operations: Array.from({ length: MAX_OPERATIONS }, () => base(wallet, buyer.id)),
    });
    expect(json.status, json.text).toBe(200);
    expect(json.body.data.transaction_ids).toHaveLength(MAX_OPERATIONS);
    // Named last first, so PHP's array is no list: read by its indexes, up to operations[99].
    const fields = new URLSearchParams({ request_id: unique("most") });
    for (let i = MAX_OPERATIONS - 1; i >= 0; i--)
      for (const [field, value] of Object.entries(base(wallet, buyer.id)))
        fields.set(`operations[${i}][${field}]`, String(value));
    const form = await post(admin, fields);
    expect(form.status, form.text).toBe(200);
    expect(form.body.data.transaction_ids).toHaveLength(MAX_OPERATIONS);
    expect(await balanceOf(admin, buyer.id, wallet)).toBe(2 * MAX_OPERATIONS);
  });

  it.each([100, 101, 9999])(
    "refuses a form body naming operations[%i], past the 100th, and writes nothing",
    async (index) => {
      const { admin, buyer, wallet } = await setup();
      const before = await tableCounts();
      const extra = { [`operations[${index}][type]`]: "credit" };
      const res = await post(admin, creditForm(buyer.id, wallet, extra));
      expect(res.status, res.text).toBe(400);
      expect(res.body.error).toEqual({ operations: "operations must hold at most 100 operations" });
      expect(await tableCounts()).toEqual(before);
    },
  );

  it("reads a form's nested or non-index operation names as PHP does: refused, never dropped", async () => {
    const { admin, buyer, seller, wallet } = await setup();
    const before = await tableCounts();
    // `operations[0][note][x]` makes the note an array (a JSON object), which no note is; dropped,
    // the credit ran without it. `operations[00]` is a key of its own in PHP, not operation 0:
    // read as 0, it overwrote operation 0's user, and the seller was credited.
    for (const [more, error] of [
      [{ "operations[0][note][x]": "invoice 7" }, { "operations[0].note": "note must be text" }],
      [{ "operations[0][note][]": "invoice 7" }, { "operations[0].note": "note must be text" }],
      [
        { "operations[00][user_id]": String(seller.id) },
        { operations: "operations must be a list of operations" },
      ],
      [
        { "operations[a][type]": "credit" },
        { operations: "operations must be a list of operations" },
      ],
    ] as const) {
      const res = await post(admin, creditForm(buyer.id, wallet, more));
      expect(res.status, `${JSON.stringify(more)}: ${res.text}`).toBe(400);
      expect(res.body.error).toEqual(error);
    }
    expect(await tableCounts()).toEqual(before);
  });

  it.each<[string, (w: string, u: number, v: number) => Json, Json]>([
    ["an empty list", () => ({ operations: [] }), { operations: "Field Cannot be empty" }],
    ["no list", () => ({}), { operations: "Field Cannot be empty" }],
    // An object that looks like a list (`length`, indexes) is not one: a JSON body stays JSON,
    // where a form's `operations[0][type]` names are indexed.
    ...[
      { length: 1 },
      { length: -1 },
      { length: 1, 0: { type: "credit" } },
      { 0: { type: "credit" } },
      "credit",
    ].map((operations): [string, () => Json, Json] => [
      `operations ${JSON.stringify(operations)}`,
      () => ({ operations }),
      { operations: "operations must be a list of operations" },
    ]),
    [
      "101 operations",
      (w, u) => ({ operations: Array.from({ length: 101 }, () => base(w, u)) }),
      { operations: "operations must hold at most 100 operations" },
    ],
    [
      "an unknown type",
      (w, u) => ({ operations: [base(w, u), { ...base(w, u), type: "refund" }] }),
      { "operations[1].type": "type must be credit, debit or transfer" },
    ],
    [
      "a transfer to oneself",
      (w, u) => ({
        operations: [
          { type: "transfer", from_user_id: u, to_user_id: u, wallet_id: w, amount: "1" },
        ],
      }),
      { "operations[0].to_user_id": "to_user_id must differ from from_user_id" },
    ],
    [
      "a missing wallet in one leg",
      (w, u) => ({ operations: [base(w, u), { ...base(w, u), wallet_id: "nosuchwallet" }] }),
      { "operations[1].wallet_id": "wallet_id not found" },
    ],
    [
      "amounts with too many places",
      (w, u) => ({ operations: [base(w, u), base(w, u), { ...base(w, u), amount: "1.001" }] }),
      {
        "operations[2].amount": expect.stringContaining("more decimal places"),
      },
    ],
    [
      "a credit without its user_id, which no operation reads as zero",
      (w, u) => ({ operations: [base(w, u), { type: "credit", wallet_id: w, amount: "1" }] }),
      { "operations[1].user_id": "Field Cannot be empty" },
    ],
    [
      "every bad field of every operation together",
      (w, u) => ({
        operations: [
          { type: "debit", user_id: 0, wallet_id: w, amount: "-1" },
          "credit",
          { type: "transfer", from_user_id: u, wallet_id: w, amount: "x" },
        ],
      }),
      {
        "operations[0].user_id": "user_id cannot be zero",
        "operations[0].amount": "amount must be greater than zero",
        "operations[1]": "each operation must be an object",
        "operations[2].to_user_id": "Field Cannot be empty",
        "operations[2].amount": "amount requires a valid amount",
      },
    ],
  ])("refuses %s with 400 naming the operation, and writes nothing", async (_, body, error) => {
    const { admin, buyer, seller, wallet } = await setup();
    const before = await tableCounts();
    const res = await post(admin, {
      request_id: unique("bad"),
      ...body(wallet, buyer.id, seller.id),
    });
    expect(res.body).toEqual(invalid(error));
    expect(await tableCounts()).toEqual(before);
  });

  it("refuses a missing user in one leg with 404 naming the operation", async () => {
    const { admin, buyer, wallet } = await setup();
    const before = await tableCounts();
    const res = await post(admin, {
      request_id: unique("b"),
      operations: [base(wallet, buyer.id), base(wallet, 2_000_000_000)],
    });
    expect(res.body).toEqual({
      status_code: 404,
      status: false,
      message: "Invalid User credentials",
      error: ["operations[1]: Unable to reach 2000000000"],
    });
    expect(await tableCounts()).toEqual(before);
  });

  it("names the first missing user in operation order, a transfer's sender before its receiver", async () => {
    const { admin, buyer, wallet } = await setup();
    const transferLeg = (from: number, to: number) => ({
      type: "transfer",
      from_user_id: from,
      to_user_id: to,
      wallet_id: wallet,
      amount: "1",
    });
    const cases: [Json[], string][] = [
      [
        [base(wallet, 2_000_000_001), base(wallet, 2_000_000_002)],
        "operations[0]: Unable to reach 2000000001",
      ],
      [
        [base(wallet, buyer.id), transferLeg(2_000_000_003, 2_000_000_004)],
        "operations[1]: Unable to reach 2000000003",
      ],
      [
        [transferLeg(buyer.id, 2_000_000_005), base(wallet, 2_000_000_006)],
        "operations[0]: Unable to reach 2000000005",
      ],
    ];
    const before = await tableCounts();
    for (const [operations, named] of cases) {
      const res = await post(admin, { request_id: unique("b"), operations });
      expect(res.body).toEqual({
        status_code: 404,
        status: false,
        message: "Invalid User credentials",
        error: [named],
      });
    }
    expect(await tableCounts()).toEqual(before);
  });

  it("refuses an overdraft in any leg with 400 naming it; nothing is written", async () => {
    const { admin, buyer, seller, platform, wallet } = await setup();
    await credit(admin, { user_id: buyer.id, wallet_id: wallet, amount: "9.99" });
    const before = await tableCounts();
    const res = await post(admin, sale(wallet, buyer, seller, platform));
    expect(res.body).toEqual({
      status_code: 400,
      status: false,
      message: "Insufficient Balance",
      error: { "operations[0].amount": "Insufficient Balance" },
    });
    expect(await tableCounts()).toEqual(before);
  });

  it("refuses a credit past the largest balance with 400 naming its operation; nothing is written", async () => {
    const { admin, buyer, seller, wallet } = await setup(0);
    const max = "999999999999999";
    await credit(admin, { user_id: seller.id, wallet_id: wallet, amount: max });
    const before = await tableCounts();
    const res = await post(admin, {
      request_id: unique("b"),
      operations: [base(wallet, buyer.id), base(wallet, buyer.id), base(wallet, seller.id)],
    });
    expect(res.body).toEqual(
      invalid({
        "operations[2].amount":
          "amount would take the balance past the largest balance a wallet can hold",
      }),
    );
    expect(await tableCounts()).toEqual(before);
  });

  it("balanced refuses credits and debits that differ in a wallet", async () => {
    const { admin, buyer, seller, wallet } = await setup();
    const res = await post(admin, {
      request_id: unique("b"),
      balanced: "true",
      operations: [
        base(wallet, buyer.id),
        { ...base(wallet, seller.id), type: "debit" },
        base(wallet, seller.id),
      ],
    });
    expect(res.body).toEqual(
      invalid({ balanced: `credits (2.00) and debits (1.00) differ in wallet ${wallet}` }),
    );
  });

  it("reads an operation's type in any letter case", async () => {
    const { admin, buyer, seller, wallet } = await setup();
    const res = await post(admin, {
      request_id: unique("b"),
      operations: [
        { ...base(wallet, buyer.id), type: "CREDIT" },
        {
          type: "Transfer",
          from_user_id: buyer.id,
          to_user_id: seller.id,
          wallet_id: wallet,
          amount: "1",
        },
        { ...base(wallet, seller.id), type: "Debit" },
      ],
    });
    expect(res.status, res.text).toBe(200);
    expect(await balanceOf(admin, seller.id, wallet)).toBe(0);
  });

  it("reads balanced as true or false in any letter case, or 1 or 0, and refuses any other text", async () => {
    const { admin, buyer, seller, wallet } = await setup();
    const operations = [
      base(wallet, buyer.id),
      { ...base(wallet, seller.id), type: "debit" },
      base(wallet, seller.id),
    ];
    const before = await tableCounts();
    for (const balanced of ["TRUE", "True", "1", 1]) {
      const res = await post(admin, { request_id: unique("b"), balanced, operations });
      expect(res.body, String(balanced)).toEqual(
        invalid({ balanced: `credits (2.00) and debits (1.00) differ in wallet ${wallet}` }),
      );
    }
    for (const balanced of ["yes", "on", "2", 2]) {
      const res = await post(admin, { request_id: unique("b"), balanced, operations });
      expect(res.body, String(balanced)).toEqual(
        invalid({ balanced: "balanced must be true or false" }),
      );
    }
    expect(await tableCounts()).toEqual(before);
  });

  it("balanced refuses debits above credits too", async () => {
    const { admin, buyer, seller, wallet } = await setup();
    await credit(admin, { user_id: buyer.id, wallet_id: wallet, amount: "10" });
    const before = await tableCounts();
    const res = await post(admin, {
      request_id: unique("b"),
      balanced: true,
      operations: [
        { ...base(wallet, buyer.id), type: "debit", amount: "10" },
        { ...base(wallet, seller.id), amount: "5" },
      ],
    });
    expect(res.body).toEqual(
      invalid({ balanced: `credits (5.00) and debits (10.00) differ in wallet ${wallet}` }),
    );
    expect(await tableCounts()).toEqual(before);
  });

  it("names the operation that passes the largest balance, not one that reaches it", async () => {
    const { admin, buyer, wallet } = await setup();
    await credit(admin, { user_id: buyer.id, wallet_id: wallet, amount: "0.01" });
    const before = await tableCounts();
    const res = await post(admin, {
      request_id: unique("b"),
      operations: [
        { ...base(wallet, buyer.id), amount: "9999999999999.98" },
        { ...base(wallet, buyer.id), amount: "0.01" },
      ],
    });
    expect(res.body).toEqual(
      invalid({
        "operations[1].amount":
          "amount would take the balance past the largest balance a wallet can hold",
      }),
    );
    expect(await tableCounts()).toEqual(before);
  });

  it("a leg's request_id is refused when a hold of that user has it (one key space)", async () => {
    // Also where that hold reserves what the leg would debit: the key, which no money changes,
    // refuses it, as it refuses a debit on its own.
    for (const [type, held] of [
      ["credit", "1"],
      ["debit", "10"],
    ] as const) {
      const { admin, buyer, wallet } = await setup();
      await credit(admin, { user_id: buyer.id, wallet_id: wallet, amount: "10" });
      const id = unique("b");
      const hold = await call("POST", "/holds", {
        auth: admin.bearer,
        body: { user_id: buyer.id, wallet_id: wallet, amount: held, request_id: `batch:${id}#0` },
      });
      expect(hold.status, hold.text).toBe(200);
      const before = await tableCounts();
      const res = await post(admin, {
        request_id: id,
        operations: [{ ...base(wallet, buyer.id), type }],
      });
      expect(res.body, type).toEqual({
        status_code: 409,
        status: false,
        message: "Transaction already exists",
        error: {
          "operations[0].hold_id": String(hold.body.data.hold_id),
          "operations[0].exist": "Hold already placed",
        },
      });
      expect(await tableCounts()).toEqual(before);
    }
  });

  it("a leg's used request_id is 409 even when the leg would also pass the largest balance", async () => {
    // The triggers that refuse a used key run before the balance limit's (SQLite runs the newest
    // first): the leg is a repeat, answered as a credit with that request_id on its own is.
    const { admin, buyer, seller, platform, wallet } = await setup(0);
    const id = unique("b");
    const max = "999999999999999";
    const first = await credit(admin, {
      user_id: buyer.id,
      wallet_id: wallet,
      amount: max,
      request_id: `batch:${id}#0`,
    });
    await credit(admin, { user_id: seller.id, wallet_id: wallet, amount: max });
    const hold = await call("POST", "/holds", {
      auth: admin.bearer,
      body: { user_id: seller.id, wallet_id: wallet, amount: "1", request_id: `batch:${id}#1` },
    });
    expect(hold.status, hold.text).toBe(200);
    const before = await tableCounts();
    for (const [i, user, error] of [
      [
        0,
        buyer,
        { txn_id: String(first.body.data.transaction_id), exist: "Transaction already executed" },
      ],
      [1, seller, { hold_id: String(hold.body.data.hold_id), exist: "Hold already placed" }],
    ] as const) {
      const legs = [base(wallet, platform.id)].slice(0, i);
      const res = await post(admin, {
        request_id: id,
        operations: [...legs, base(wallet, user.id)],
      });
      expect(res.body).toEqual({
        status_code: 409,
        status: false,
        message: "Transaction already exists",
        error: Object.fromEntries(
          Object.entries(error).map(([k, v]) => [`operations[${i}].${k}`, v]),
        ),
      });
    }
    expect(await tableCounts()).toEqual(before);
  });

  it("a leg's used request_id is 409 even when an earlier leg passes the largest balance", async () => {
    // The earlier leg's limit fails the batch before the later leg is tried: no balance would let
    // the batch through, its used key is the answer.
    const { admin, buyer, seller, wallet } = await setup(0);
    const id = unique("b");
    await credit(admin, { user_id: buyer.id, wallet_id: wallet, amount: "999999999999999" });
    const used = await credit(admin, {
      user_id: seller.id,
      wallet_id: wallet,
      amount: "1",
      request_id: `batch:${id}#1`,
    });
    const before = await tableCounts();
    const res = await post(admin, {
      request_id: id,
      operations: [base(wallet, buyer.id), base(wallet, seller.id)],
    });
    expect(res.body).toEqual({
      status_code: 409,
      status: false,
      message: "Transaction already exists",
      error: {
        "operations[1].txn_id": String(used.body.data.transaction_id),
        "operations[1].exist": "Transaction already executed",
      },
    });
    expect(await tableCounts()).toEqual(before);
  });

  it("a transfer leg keys the sender's entry only: the receiver's request_ids stay its own", async () => {
    const { admin, buyer, seller, wallet } = await setup();
    await credit(admin, { user_id: buyer.id, wallet_id: wallet, amount: "10" });
    const id = unique("b");
    const posted = await post(admin, {
      request_id: id,
      operations: [
        {
          type: "transfer",
          from_user_id: buyer.id,
          to_user_id: seller.id,
          wallet_id: wallet,
          amount: "1",
        },
      ],
    });
    expect(posted.status, posted.text).toBe(200);
    const leg = { wallet_id: wallet, amount: "2", request_id: `batch:${id}#0` };
    expect((await credit(admin, { ...leg, user_id: seller.id })).status).toBe(200);
    expect((await credit(admin, { ...leg, user_id: buyer.id })).status).toBe(409);
  });

  it("judges every operation's fields and the balance before it looks for the users (400 before 404)", async () => {
    const { admin, wallet } = await setup();
    const before = await tableCounts();
    const unbalanced = await post(admin, {
      request_id: unique("b"),
      balanced: true,
      operations: [base(wallet, 2_000_000_000)],
    });
    expect(unbalanced.body).toEqual(
      invalid({ balanced: `credits (1.00) and debits (0.00) differ in wallet ${wallet}` }),
    );
    const laterAmount = await post(admin, {
      request_id: unique("b"),
      operations: [base(wallet, 2_000_000_000), { ...base(wallet, 2_000_000_000), amount: "0" }],
    });
    expect(laterAmount.body).toEqual(
      invalid({ "operations[1].amount": "amount must be greater than zero" }),
    );
    expect(await tableCounts()).toEqual(before);
  });

  it("a repeat answers 409 and writes nothing; 20 identical batches racing apply once", async () => {
    const { admin, buyer, wallet } = await setup();
    const body = {
      request_id: unique("race"),
      operations: [base(wallet, buyer.id), base(wallet, buyer.id)],
    };
    const answers = await Promise.all(Array.from({ length: 20 }, () => post(admin, body)));
    const won = answers.filter((r) => r.status === 200);
    expect(won).toHaveLength(1);
    const batchId = won[0]!.body.data.batch_id;
    for (const r of answers.filter((a) => a.status !== 200))
      expect(r.body).toEqual({
        status_code: 409,
        status: false,
        message: "Transaction already exists",
        error: { batch_id: String(batchId), exist: "Batch already executed" },
      });
    expect(await balanceOf(admin, buyer.id, wallet)).toBe(2);
  });

  it("50 overlapping batches racing never overdraw and conserve money", async () => {
    const { admin, buyer, seller, platform, wallet } = await setup();
    await credit(admin, { user_id: buyer.id, wallet_id: wallet, amount: 100 });
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        post(admin, {
          request_id: unique("overlap"),
          operations: [
            {
              type: "transfer",
              from_user_id: buyer.id,
              to_user_id: seller.id,
              wallet_id: wallet,
              amount: "3",
            },
            {
              type: "transfer",
              from_user_id: seller.id,
              to_user_id: platform.id,
              wallet_id: wallet,
              amount: i % 2 ? "1" : "2",
            },
          ],
        }),
      ),
    );
    for (const r of answers) expect([200, 400]).toContain(r.status);
    const total =
      (await balanceOf(admin, buyer.id, wallet)) +
      (await balanceOf(admin, seller.id, wallet)) +
      (await balanceOf(admin, platform.id, wallet));
    expect(total).toBe(100);
    expect(await balanceOf(admin, buyer.id, wallet)).toBeGreaterThanOrEqual(0);
    expect(answers.filter((r) => r.status === 200).length).toBe(33);
    expect(await ledgerViolations()).toEqual(CLEAN);
  });
});

describe("GET /batches/{id}, GET /batches", () => {
  it("answers the batch with its entries as GET /transactions/{id} does, each naming the batch", async () => {
    const { admin, buyer, seller, platform, wallet } = await setup();
    await credit(admin, { user_id: buyer.id, wallet_id: wallet, amount: 10 });
    const posted = await post(admin, sale(wallet, buyer, seller, platform));
    const { batch_id, transaction_ids } = posted.body.data;
    const res = await call("GET", `/batches/${batch_id}`, { auth: admin.bearer });
    expect(res.status, res.text).toBe(200);
    expect(res.body.data).toMatchObject({
      batch_id,
      status: "completed",
      balanced: false,
      reverses_batch_id: null,
      reversal_batch_id: null,
    });
    expect(res.body.data.transactions.map((t: Json) => t.ID)).toEqual(transaction_ids);
    const one = await call("GET", `/transactions/${transaction_ids[1]}`, { auth: admin.bearer });
    expect(res.body.data.transactions[1]).toEqual({ ...one.body.data, batch_id });
    const missing = await call("GET", "/batches/999999999", { auth: admin.bearer });
    expect(missing.body).toEqual({
      status_code: 404,
      status: false,
      message: "Batch not found",
      error: { id: "No batch 999999999" },
    });
  });

  it("sends a page of large batches a few at a time, each as GET /batches/{id} answers it", async () => {
    const { admin, buyer, wallet } = await setup();
    const perBatch = 100;
    const count = Math.ceil((2 * BATCH_ENTRIES_PER_READ) / perBatch) + 1; // three reads
    const ids: number[] = [];
    for (let i = 0; i < count; i++) {
      const r = await post(admin, {
        request_id: unique("big"),
        operations: Array.from({ length: perBatch }, () => base(wallet, buyer.id)),
      });
      expect(r.status, r.text).toBe(200);
      ids.push(r.body.data.batch_id);
    }
    const res = await call("GET", "/batches", {
      auth: admin.bearer,
      query: { user_id: buyer.id, per_page: 100 },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.headers.get("X-WP-Total")).toBe(String(count));
    const listed = res.body.data as Json[];
    expect(listed.map((b) => b.batch_id)).toEqual(ids.toReversed());
    for (const id of [ids[0], ids[count - 1]]) {
      const one = await call("GET", `/batches/${id}`, { auth: admin.bearer });
      expect(listed.find((b) => b.batch_id === id)).toStrictEqual(one.body.data);
    }
  });

  it("lists a user's batches newest first with WordPress paging headers", async () => {
    const { admin, buyer, wallet } = await setup();
    const ids: number[] = [];
    for (let i = 0; i < 3; i++) {
      const r = await post(admin, {
        request_id: unique("l"),
        operations: [base(wallet, buyer.id)],
      });
      ids.push(r.body.data.batch_id);
    }
    const res = await call("GET", "/batches", {
      auth: admin.bearer,
      query: { user_id: buyer.id, per_page: 2, page: 1 },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.map((b: Json) => b.batch_id)).toEqual([ids[2], ids[1]]);
    expect(res.headers.get("X-WP-Total")).toBe("3");
    expect(res.headers.get("X-WP-TotalPages")).toBe("2");
  });
});

describe("POST /batches/{id}/reverse", () => {
  it("reverses every entry at once; a second reverse answers 409 and moves nothing", async () => {
    const { admin, buyer, seller, platform, wallet } = await setup();
    await credit(admin, { user_id: buyer.id, wallet_id: wallet, amount: 10 });
    const posted = await post(admin, sale(wallet, buyer, seller, platform));
    const { batch_id, transaction_ids } = posted.body.data;
    const res = await call("POST", `/batches/${batch_id}/reverse`, { auth: admin.bearer });
    expect(res.status, res.text).toBe(200);
    expect(res.body.message).toBe("Batch Reversed");
    // Undone newest first.
    expect(res.body.data.reversed_transaction_ids).toEqual([...transaction_ids].reverse());
    expect(await balanceOf(admin, buyer.id, wallet)).toBe(10);
    expect(await balanceOf(admin, seller.id, wallet)).toBe(0);
    const read = await call("GET", `/batches/${batch_id}`, { auth: admin.bearer });
    expect(read.body.data).toMatchObject({
      status: "reversed",
      reversal_batch_id: res.body.data.reversal_batch_id,
    });
    const before = await tableCounts();
    const again = await call("POST", `/batches/${batch_id}/reverse`, { auth: admin.bearer });
    expect(again.body).toEqual({
      status_code: 409,
      status: false,
      message: "Transaction already reversed",
      error: { id: `Batch ${batch_id} was already reversed` },
    });
    expect(await tableCounts()).toEqual(before);
  });

  it("refuses to reverse a batch's reversal: 400, nothing moves", async () => {
    const { admin, buyer, seller, wallet } = await setup();
    await credit(admin, { user_id: buyer.id, wallet_id: wallet, amount: "10" });
    const posted = await post(admin, {
      request_id: unique("b"),
      operations: [
        {
          type: "transfer",
          from_user_id: buyer.id,
          to_user_id: seller.id,
          wallet_id: wallet,
          amount: "10",
        },
      ],
    });
    const reversed = await call("POST", `/batches/${posted.body.data.batch_id}/reverse`, {
      auth: admin.bearer,
    });
    const reversal = reversed.body.data.reversal_batch_id;
    const before = await tableCounts();
    const res = await call("POST", `/batches/${reversal}/reverse`, { auth: admin.bearer });
    expect(res.body).toEqual(invalid({ id: "a batch reversal cannot be reversed" }));
    expect(await tableCounts()).toEqual(before);
    expect(await balanceOf(admin, buyer.id, wallet)).toBe(10);
    expect(await balanceOf(admin, seller.id, wallet)).toBe(0);
  });

  it("refuses a reversal that would take a balance past the largest, naming that entry", async () => {
    const { admin, buyer, seller, wallet } = await setup(0);
    const max = "999999999999999";
    await credit(admin, { user_id: seller.id, wallet_id: wallet, amount: "5" });
    const posted = await post(admin, {
      request_id: unique("b"),
      operations: [
        base(wallet, buyer.id),
        { ...base(wallet, seller.id), type: "debit" },
        base(wallet, buyer.id),
      ],
    });
    const { batch_id, transaction_ids } = posted.body.data;
    await credit(admin, { user_id: seller.id, wallet_id: wallet, amount: "999999999999995" });
    expect(await balanceOf(admin, seller.id, wallet)).toBe(Number(max));
    const before = await tableCounts();
    const res = await call("POST", `/batches/${batch_id}/reverse`, { auth: admin.bearer });
    expect(res.body).toEqual({
      status_code: 400,
      status: false,
      message: "invalid input",
      error: {
        amount: "amount would take the balance past the largest balance a wallet can hold",
        transaction_id: String(transaction_ids[1]),
      },
    });
    expect(await tableCounts()).toEqual(before);
  });

  it("refuses when one entry was already reversed on its own, naming it", async () => {
    const { admin, buyer, seller, wallet } = await setup();
    const posted = await post(admin, {
      request_id: unique("b"),
      operations: [base(wallet, buyer.id), base(wallet, seller.id)],
    });
    const { batch_id, transaction_ids } = posted.body.data;
    await call("POST", `/transactions/${transaction_ids[1]}/reverse`, {
      auth: admin.bearer,
      body: { request_id: unique("rev") },
    });
    const before = await tableCounts();
    const res = await call("POST", `/batches/${batch_id}/reverse`, { auth: admin.bearer });
    expect(res.body).toEqual({
      status_code: 409,
      status: false,
      message: "Transaction already reversed",
      error: { id: `Transaction ${transaction_ids[1]} was already reversed` },
    });
    expect(await tableCounts()).toEqual(before);
  });
});

describe("batch events", () => {
  it("writes batch.completed and batch.reversed with the batch as GET /batches/{id} answers it", async () => {
    const { admin, buyer, seller, wallet } = await setup();
    const newest = async () =>
      (await env.DB.prepare("SELECT coalesce(max(id), 0) AS id FROM events").first<{
        id: number;
      }>())!.id;
    const after = await newest();
    const posted = await post(admin, {
      request_id: unique("ev"),
      operations: [base(wallet, buyer.id), base(wallet, seller.id)],
    });
    const { batch_id } = posted.body.data;
    const completedRead = await call("GET", `/batches/${batch_id}`, { auth: admin.bearer });
    await call("POST", `/batches/${batch_id}/reverse`, { auth: admin.bearer });
    const reversedRead = await call("GET", `/batches/${batch_id}`, { auth: admin.bearer });
    const feed = await call("GET", "/events", {
      auth: admin.bearer,
      query: { after, types: "batch.completed,batch.reversed" },
    });
    const mine = (feed.body.data as Json[]).filter((e) => e.data.batch_id === batch_id);
    expect(mine.map((e) => e.type)).toEqual(["batch.completed", "batch.reversed"]);
    expect(mine[0]!.data).toEqual(completedRead.body.data);
    expect(mine[1]!.data).toEqual(reversedRead.body.data);
    const created = await call("GET", "/events", {
      auth: admin.bearer,
      query: { after, types: "transaction.created" },
    });
    expect((created.body.data as Json[]).length).toBeGreaterThanOrEqual(4);
    // Each entry's own event comes before its batch's (docs/events.md).
    const all = (await call("GET", "/events", { auth: admin.bearer, query: { after } })).body
      .data as Json[];
    expect(all.map((e) => e.type)).toEqual([
      "transaction.created",
      "transaction.created",
      "batch.completed",
      "transaction.created",
      "transaction.created",
      "batch.reversed",
    ]);
  });
});
