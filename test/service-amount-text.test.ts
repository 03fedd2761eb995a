// The amount text an entry keeps is the same whichever way the same amount reaches the verb: a
// JSON number is recorded as its plain decimal (ledger/money.ts numberText: "one movement records
// one amount text however sent"), never as JavaScript's exponent notation.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { credit as creditVerb } from "../src/wallet/movements";
import { credit, makeAdmin, makeUser, makeWallet, unique } from "./helpers";
import { serviceAs } from "./service-helpers";

const amountText = async (id: number) =>
  (
    await env.DB.prepare("SELECT amount_text FROM transactions WHERE id = ?")
      .bind(id)
      .first<{ amount_text: string }>()
  )?.amount_text;

describe("the credit verb given an amount as a JSON number", () => {
  it("records 0.0000001 as POST /credits records it, not as 1e-7", async () => {
    const admin = await makeAdmin();
    const user = await makeUser();
    const walletId = await makeWallet(admin, { decimals: 8 });
    const overHttp = await credit(admin, { user_id: user.id, wallet_id: walletId, amount: 1e-7 });
    expect(overHttp.status, overHttp.text).toBe(200);
    expect(await amountText(overHttp.body.data.transaction_id)).toBe("0.0000001");

    const moved = await creditVerb(serviceAs(admin), {
      user: { id: user.id },
      walletId,
      amount: { sent: 1e-7, policy: "refuse-excess-places" },
      requestId: unique("r"),
      note: "",
    });
    expect(await amountText(moved.transactionId)).toBe("0.0000001");
  });
});
