import { ok } from "../../http/envelope";
import { IdPath } from "../../http/fields";
import { defineRoute } from "../../http/route";
import { fields } from "../../http/validation";
import { readHold } from "../../wallet/holds";
import { holdRecord } from "../../wallet/rules";
import { HoldAnswer } from "../answers";

export const readHoldRoute = defineRoute(
  {
    path: "/holds/{id}",
    method: "GET",
    operationId: "readHold",
    summary: "One hold, with its status now",
    auth: "reader",
    // Its own holds, or anyone's for an administrator (the verb checks).
    owner: () => undefined,
    params: fields(IdPath),
    errors: ["hold_not_found"],
    data: HoldAnswer,
  },
  async (c, { id }) => ok(c, 200, "Hold retrieved", holdRecord(await readHold(c.var.service, id))),
);
