import { requireAdmin } from "../../http/auth";
import { ok } from "../../http/envelope";
import { minorIn } from "../../http/money-input";
import { readParams } from "../../http/params";
import { entryStamp } from "../../http/site";
import { parseFields } from "../../http/validation";
import { captureHold, readHold } from "../../wallet/holds";
import { HoldAnswer } from "../answers";
import { defineRoute, pathParam } from "../route";
import { CaptureHoldParams, holdRecord } from "./schemas";

/** One DEBIT of at most the held amount, naming the hold; the rest released. Once, however many race. */
export const captureHoldRoute = defineRoute(
  {
    path: "/holds/{id}/capture",
    method: "POST",
    summary: "Capture a hold: debit all or part of it, release the rest",
    auth: "admin",
    params: CaptureHoldParams,
    envelope: "A",
    errors: ["invalid_input", "hold_not_found", "insufficient_balance", "hold_resolved"],
    success: 200,
    data: HoldAnswer,
    patterns: { id: "[0-9]+" },
  },
  async (c) => {
    requireAdmin(c, "write");
    const fields = parseFields(CaptureHoldParams, await readParams(c));
    const ref = pathParam(c, "id");
    const stamp = entryStamp(c);
    const db = c.var.db;
    const held = await readHold(db, Number(ref), ref, stamp.nowMs);
    const captured = await captureHold({ db, stamp }, held, {
      // The amount's places are judged against the hold's wallet.
      amountMinor: fields.amount && minorIn(fields.amount, held.wallet),
      amountText: fields.amount?.text,
      note: fields.note,
    });
    return ok(c, 200, "Hold captured", holdRecord(captured));
  },
);
