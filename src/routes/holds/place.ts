import { ok } from "../../http/envelope";
import { movementOf } from "../../http/fields";
import { defineRoute } from "../../http/route";
import { moneyFields } from "../../http/validation";
import { placeHold } from "../../wallet/holds";
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
  async (c, fields) => {
    const held = await placeHold(c.var.service, {
      user: { id: fields.user_id },
      ...movementOf(fields),
      requestId: fields.request_id,
      expiresInS: fields.expires_in,
    });
    return ok(c, 200, "Hold placed", placedRecord(held));
  },
);
