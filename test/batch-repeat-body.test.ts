// A batch's request_id is one key for the whole site (docs/api.md "POST /batches"): a repeat is
// answered 409 with the batch that holds it, whatever users its operations name; a body refused as
// invalid input (`balanced` included) is refused so first, as on every route.
import { describe, expect, it } from "vitest";
import { call, makeAdmin, makeUser, makeWallet, tableCounts, unique } from "./helpers";

describe("a batch repeated with another body", () => {
  it("answers 409 naming the batch that holds its request_id, whoever its operations name", async () => {
    const admin = await makeAdmin();
    const user = await makeUser();
    const wallet = await makeWallet(admin);
    const requestId = unique("repeat");
    const op = { type: "credit", user_id: user.id, wallet_id: wallet, amount: "1" };
    const first = await call("POST", "/batches", {
      auth: admin.bearer,
      body: { request_id: requestId, operations: [op] },
    });
    expect(first.status, first.text).toBe(200);
    const before = await tableCounts();
    const nobody = { ...op, user_id: 2_000_000_001 };
    for (const operations of [
      [nobody],
      [op, nobody],
      [
        {
          type: "transfer",
          from_user_id: user.id,
          to_user_id: 2_000_000_001,
          wallet_id: wallet,
          amount: "1",
        },
      ],
    ]) {
      const again = await call("POST", "/batches", {
        auth: admin.bearer,
        body: { request_id: requestId.toUpperCase(), operations },
      });
      // Before, 404 ["operations[i]: Unable to reach 2000000001"].
      expect(again.body, again.text).toEqual({
        status_code: 409,
        status: false,
        message: "Transaction already exists",
        error: { batch_id: String(first.body.data.batch_id), exist: "Batch already executed" },
      });
    }
    const unbalanced = await call("POST", "/batches", {
      auth: admin.bearer,
      body: { request_id: requestId, balanced: true, operations: [op] },
    });
    expect(unbalanced.status, unbalanced.text).toBe(400);
    expect(unbalanced.body.error).toEqual({
      balanced: `credits (1.00) and debits (0.00) differ in wallet ${wallet}`,
    });
    expect(await tableCounts()).toEqual(before);
  });

  it("still answers 404 for a user not found under a key no batch has", async () => {
    const admin = await makeAdmin();
    const wallet = await makeWallet(admin);
    const res = await call("POST", "/batches", {
      auth: admin.bearer,
      body: {
        request_id: unique("new"),
        operations: [{ type: "credit", user_id: 2_000_000_001, wallet_id: wallet, amount: "1" }],
      },
    });
    expect(res.status, res.text).toBe(404);
    expect(res.body.error).toEqual(["operations[0]: Unable to reach 2000000001"]);
  });
});
