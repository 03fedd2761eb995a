// A request_id a hold took is a repeat for every verb of both dialects, answered 409 naming the
// hold before any balance rule is judged: a body that would now pass the available balance or the
// largest balance (a retry sent after the money moved, or with other figures) is still the repeat
// it is, never "Insufficient Balance", and writes nothing (docs/api.md#idempotency).
import { describe, expect, it } from "vitest";
import { compatCall, ON } from "./compat-helpers";
import {
  CLEAN,
  call,
  credit,
  debit,
  ledgerViolations,
  makeAdmin,
  makeUser,
  makeWallet,
  tableCounts,
  transfer,
  unique,
} from "./helpers";

const NS = "/wp-json/rimplenet/v1";
const plugin = (admin: { bearer: string }, path: string, body: object) =>
  compatCall("POST", `${NS}/${path}`, {
    headers: { Authorization: admin.bearer, "Content-Type": "application/json" },
    body: JSON.stringify(body),
    vars: ON,
  });

describe("a hold's request_id sent again with a body the balance would refuse", () => {
  it("is 409 naming the hold in every verb of both dialects, and writes nothing", async () => {
    const admin = await makeAdmin();
    const [ada, bob] = [await makeUser(), await makeUser()];
    const wallet = await makeWallet(admin);
    await credit(admin, { user_id: ada.id, wallet_id: wallet, amount: "10" });
    const key = unique("Order_");
    const hold = await call("POST", "/holds", {
      auth: admin.bearer,
      body: { user_id: ada.id, wallet_id: wallet, amount: "10", request_id: key },
    });
    expect(hold.status, hold.text).toBe(200);
    // Nothing is left to spend, and a credit of the largest amount passes the largest balance.
    const past = "9999999999999.99";
    const id = key.toLowerCase();
    const own = { user_id: ada.id, wallet_id: wallet, request_id: id };
    const before = await tableCounts();
    const answers = [
      await call("POST", "/holds", { auth: admin.bearer, body: { ...own, amount: "500" } }),
      await debit(admin, { ...own, amount: "5" }),
      await credit(admin, { ...own, amount: past }),
      await transfer(admin, {
        from_user_id: ada.id,
        to_user_id: bob.id,
        wallet_id: wallet,
        amount: "5",
        request_id: id,
      }),
      await plugin(admin, "debits", { ...own, amount: "5" }),
      await plugin(admin, "credits", { ...own, amount: past }),
      await plugin(admin, "transfers", {
        transfer_from_user: ada.id,
        transfer_to_user: bob.id,
        wallet_id: wallet,
        amount_to_transfer: "5",
        request_id: id,
      }),
    ];
    for (const res of answers)
      expect(res.body, res.text).toEqual({
        status_code: 409,
        status: false,
        message: "Transaction already exists",
        error: { hold_id: String(hold.body.data.hold_id), exist: "Hold already placed" },
      });
    expect(await tableCounts()).toEqual(before);
    expect(await ledgerViolations()).toEqual(CLEAN);
  });
});
