// A batch is reversed newest entry first, the order that undoes it as it was done
// (docs/ledger.md#batches), but each reversing entry is a movement like any other: one that would
// take a balance back below zero is refused, as a debit is (docs/migrating.md). So a batch that
// credited a balance imported below zero does not reverse while undoing the credit would leave the
// balance below zero, even though nothing moved on since; the refusal names the credit and writes
// nothing.
import { beforeAll, describe, expect, it } from "vitest";
import { CLEAN, call, ledgerViolations, tableCounts } from "./helpers";
import { importedAdmin, realSite, runImport } from "./import-helpers";

let admin: string;
/** kemi (user 3) ends the live-shaped site's history at -100.00 in ngn (2 decimals, stores 3). */
const KEMI = 3;

beforeAll(async () => {
  const run = await runImport(realSite.options, realSite.dump);
  expect(run.report.refused).toBe(false);
  admin = await importedAdmin(1, "siteadmin");
});

const balance = async (userId: number) =>
  (
    await call("GET", "/user-wallet-balance", {
      auth: admin,
      query: { user_id: userId, wallet_id: "ngn" },
    })
  ).body.data.ngn;

describe("reversing a batch that credited a balance imported below zero", () => {
  it("refuses to undo the credit below zero, naming it, and writes nothing", async () => {
    expect(await balance(KEMI)).toBe(-100);
    const posted = await call("POST", "/batches", {
      auth: admin,
      body: {
        request_id: "kemi-topup",
        operations: [
          { type: "credit", user_id: KEMI, wallet_id: "ngn", amount: "150" },
          { type: "debit", user_id: KEMI, wallet_id: "ngn", amount: "30" },
        ],
      },
    });
    expect(posted.status, posted.text).toBe(200);
    expect(await balance(KEMI)).toBe(20);
    // Nothing moved on since: the batch's own entries are the newest of kemi's chain.
    const credit = posted.body.data.transaction_ids[0];
    const before = await tableCounts();
    const reversed = await call("POST", `/batches/${posted.body.data.batch_id}/reverse`, {
      auth: admin,
    });
    expect(reversed.status, reversed.text).toBe(400);
    expect(reversed.body).toEqual({
      status_code: 400,
      status: false,
      message: "Insufficient Balance",
      error: { amount: "Insufficient Balance", transaction_id: String(credit) },
    });
    expect(await tableCounts()).toEqual(before);
    expect(await balance(KEMI)).toBe(20);
    // The credit alone, reversed on its own, is refused the same way.
    const alone = await call("POST", `/transactions/${credit}/reverse`, {
      auth: admin,
      body: { request_id: "kemi-undo" },
    });
    expect(alone.status, alone.text).toBe(400);
    expect(alone.body.message, alone.text).toBe("Insufficient Balance");
    expect(await ledgerViolations()).toEqual(CLEAN);
  });
});
