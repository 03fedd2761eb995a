import { EntryParams } from "../../http/fields";
import { defineRoute } from "../../http/route";
import { moneyFields } from "../../http/validation";
import { credit } from "../../wallet/movements";
import { EntryAnswer } from "../answers";
import { postSingleEntry } from "./post-entry";

export const createCredit = defineRoute(
  {
    path: "/credits",
    method: "POST",
    operationId: "createCredit",
    summary: "Credit a user's wallet, idempotent on request_id",
    auth: "admin",
    movesMoney: true,
    access: "write",
    params: moneyFields(EntryParams),
    data: EntryAnswer,
    errors: ["invalid_input", "user_not_found", "transaction_exists"],
  },
  (c, input) => postSingleEntry(c, credit, input),
);
