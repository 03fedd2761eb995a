import { EntryParams } from "../../http/fields";
import { defineRoute } from "../../http/route";
import { moneyFields } from "../../http/validation";
import { debit } from "../../wallet/movements";
import { EntryAnswer } from "../answers";
import { postSingleEntry } from "../credits/post-entry";

export const createDebit = defineRoute(
  {
    path: "/debits",
    method: "POST",
    operationId: "createDebit",
    summary: "Debit a user's wallet; never below zero",
    auth: "admin",
    movesMoney: true,
    access: "write",
    params: moneyFields(EntryParams),
    errors: ["invalid_input", "user_not_found", "insufficient_balance", "transaction_exists"],
    data: EntryAnswer,
  },
  (c, input) => postSingleEntry(c, debit, input),
);
