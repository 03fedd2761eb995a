import { ok } from "../../http/envelope";
import { permissionDenied } from "../../http/errors";
import { IdPath } from "../../http/fields";
import { defineRoute } from "../../http/route";
import { fields } from "../../http/validation";
import { mayReadUser } from "../../wallet/context";
import { readHold } from "../../wallet/holds";
import { Refusal } from "../../wallet/refusal";
import { HoldAnswer } from "../answers";
import { holdRecord } from "./schemas";

export const readHoldRoute = defineRoute(
  {
    path: "/holds/{id}",
    method: "GET",
    operationId: "readHold",
    summary: "One hold, with its status now",
    auth: "reader",
    // Its own holds, or anyone's for an administrator (checked below, once the hold is read).
    owner: () => undefined,
    params: fields(IdPath),
    errors: ["hold_not_found"],
    data: HoldAnswer,
  },
  async (c, { id: { id, ref } }) => {
    const principal = c.get("principal");
    const held = await readHold(c.var.db, id, ref, c.get("nowMs")()).catch((err: unknown) => {
      // A subscriber learns nothing about other users' holds, not even whether an id exists.
      throw err instanceof Refusal && principal.role !== "administrator"
        ? permissionDenied.forbidden()
        : err;
    });
    if (!mayReadUser(principal, held.hold.userId)) throw permissionDenied.forbidden();
    return ok(c, 200, "Hold retrieved", holdRecord(held));
  },
);
