import { ok } from "../../http/envelope";
import { IdPath } from "../../http/fields";
import { defineRoute } from "../../http/route";
import { fields } from "../../http/validation";
import { voidHold } from "../../wallet/holds";
import { holdRecord } from "../../wallet/rules";
import { HoldAnswer } from "../answers";

/** Releases the whole of a hold still held; once, however many captures and voids race. */
export const voidHoldRoute = defineRoute(
  {
    path: "/holds/{id}/void",
    method: "POST",
    operationId: "voidHold",
    summary: "Void a hold: release all of it",
    auth: "admin",
    movesMoney: true,
    access: "write",
    // No fields but its path's, yet a body is read as on every route: a broken JSON body is 400
    // rest_invalid_json.
    params: fields(IdPath),
    errors: ["hold_not_found", "hold_resolved"],
    data: HoldAnswer,
  },
  async (c, { id }) => {
    const voided = await voidHold(c.var.service, { hold: id });
    return ok(c, 200, "Hold voided", holdRecord(voided));
  },
);
