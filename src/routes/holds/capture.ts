import { ok } from "../../http/envelope";
import { minorIn } from "../../http/money-input";
import { defineRoute } from "../../http/route";
import { entryStamp } from "../../http/site";
import { fields } from "../../http/validation";
import { captureHold, readHold } from "../../wallet/holds";
import { HoldAnswer } from "../answers";
import { CaptureHoldParams, holdRecord } from "./schemas";

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
    params: fields(CaptureHoldParams),
    envelope: "A",
    errors: ["invalid_input", "hold_not_found", "insufficient_balance", "hold_resolved"],
    success: 200,
    data: HoldAnswer,
    patterns: { id: "[0-9]+" },
  },
  async (c, input) => {
    const { id, ref } = input.id;
    const stamp = entryStamp(c);
    const db = c.var.db;
    const held = await readHold(db, id, ref, stamp.nowMs);
    const captured = await captureHold({ db, stamp }, held, {
      // The amount's places are judged against the hold's wallet.
      amountMinor: input.amount && minorIn(input.amount, held.wallet),
      amountText: input.amount?.text,
      note: input.note,
    });
    return ok(c, 200, "Hold captured", holdRecord(captured));
  },
);
