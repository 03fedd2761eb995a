import { ok } from "../../http/envelope";
import { defineRoute } from "../../http/route";
import { fields } from "../../http/validation";
import { reverse } from "../../wallet/movements";
import { ReversalAnswer } from "../answers";
import { ReverseRouteParams } from "./schemas";

/** A reversal (src/wallet/movements.ts `reverse`): its refusals are answered by http/errors.ts. */
export const reverseTransaction = defineRoute(
  {
    path: "/transactions/{id}/reverse",
    method: "POST",
    operationId: "reverseTransaction",
    summary: "Reverse a transaction (a transfer as a whole)",
    auth: "admin",
    movesMoney: true,
    access: "write",
    params: fields(ReverseRouteParams),
    errors: [
      "invalid_input",
      "transaction_not_found",
      "insufficient_balance",
      "transaction_exists",
      "already_reversed",
    ],
    data: ReversalAnswer,
  },
  async (c, input) => {
    const result = await reverse(c.var.service, {
      ...input.id,
      requestId: input.request_id,
      note: input.note,
    });
    return ok(c, 200, "Transaction Reversed", {
      transaction_ids: result.transactionIds,
      reversed_transaction_ids: result.reversedIds,
    });
  },
);
