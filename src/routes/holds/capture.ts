import { ok } from "../../http/envelope";
import { amountSent } from "../../http/fields";
import { defineRoute } from "../../http/route";
import { fields } from "../../http/validation";
import { captureHold } from "../../wallet/holds";
import { holdRecord } from "../../wallet/rules";
import { HoldAnswer } from "../answers";
import { CaptureHoldRouteParams } from "./schemas";

/** One DEBIT of at most the held amount, naming the hold; the rest released. Once, however many race. */
export const captureHoldRoute = defineRoute(
  {
    path: "/holds/{id}/capture",
    method: "POST",
    operationId: "captureHold",
    summary: "Capture a hold: debit all or part of it, release the rest",
    auth: "admin",
    movesMoney: true,
    access: "write",
    params: fields(CaptureHoldRouteParams),
    errors: ["invalid_input", "hold_not_found", "insufficient_balance", "hold_resolved"],
    data: HoldAnswer,
  },
  async (c, input) => {
    const captured = await captureHold(c.var.service, {
      hold: input.id,
      amount: input.amount && amountSent(input.amount),
      note: input.note,
    });
    return ok(c, 200, "Hold captured", holdRecord(captured));
  },
);
