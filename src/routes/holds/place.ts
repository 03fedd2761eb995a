import { ok } from "../../http/envelope";
import { moneyFields } from "../../http/money-input";
import { defineRoute } from "../../http/route";
import { entryStamp } from "../../http/site";
import { placeHold } from "../../wallet/holds";
import { requireUser } from "../../wallet/users";
import { HoldPlacedAnswer } from "../answers";
import { PlaceHoldParams, placedRecord } from "./schemas";

/** A hold (src/wallet/holds.ts): refused beyond the available balance, however many race. */
export const placeHoldRoute = defineRoute(
  {
    path: "/holds",
    method: "POST",
    operationId: "placeHold",
    summary: "Reserve money now, to capture or void later (a hold)",
    auth: "admin",
    movesMoney: true,
    access: "write",
    params: moneyFields(PlaceHoldParams),
    errors: ["invalid_input", "user_not_found", "insufficient_balance", "transaction_exists"],
    data: HoldPlacedAnswer,
  },
  async (c, { fields, wallet, amountMinor }) => {
    const db = c.var.db;
    const user = await requireUser(db, fields.user_id);
    const held = await placeHold(
      { db, stamp: entryStamp(c) },
      {
        user,
        wallet,
        amountMinor,
        amountText: fields.amount.text,
        requestId: fields.request_id,
        note: fields.note,
        expiresInS: fields.expires_in,
      },
    );
    return ok(c, 200, "Hold placed", placedRecord(held));
  },
);
