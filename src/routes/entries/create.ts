import type { Context } from "hono";
import type * as v from "valibot";
import type { AppEnv } from "../../env";
import { ok } from "../../http/envelope";
import { EntryParams, movementOf } from "../../http/fields";
import { defineRoute } from "../../http/route";
import { moneyFields } from "../../http/validation";
import { credit, debit } from "../../wallet/movements";
import { EntryAnswer } from "../answers";

/** POST /credits and POST /debits once the input is read: one verb, answered in wallet/v1's words. */
async function postSingleEntry(
  c: Context<AppEnv>,
  verb: typeof credit | typeof debit,
  fields: v.InferOutput<typeof EntryParams>,
) {
  const moved = await verb(c.var.service, {
    user: { id: fields.user_id },
    ...movementOf(fields),
    requestId: fields.request_id,
  });
  return ok(c, 200, "Transaction Completed", {
    transaction_id: moved.transactionId,
    user_id: moved.userId,
  });
}

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
