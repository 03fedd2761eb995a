import { ok } from "../../http/envelope";
import { defineRoute } from "../../http/route";
import { fields } from "../../http/validation";
import { reverseBatch } from "../../wallet/batch-reversal";
import { BatchReversalAnswer } from "../answers";
import { ReverseBatchRouteParams } from "./schemas";

/** A batch's reversal (src/wallet/batch-reversal.ts): every entry's opposite, or none. */
export const reverseBatchRoute = defineRoute(
  {
    path: "/batches/{id}/reverse",
    method: "POST",
    operationId: "reverseBatch",
    summary: "Reverse a batch as a whole",
    auth: "admin",
    movesMoney: true,
    access: "write",
    params: fields(ReverseBatchRouteParams),
    errors: ["invalid_input", "batch_not_found", "insufficient_balance", "already_reversed"],
    data: BatchReversalAnswer,
  },
  async (c, input) => {
    const { id, ref } = input.id;
    const result = await reverseBatch(c.var.service, { id, ref, note: input.note });
    return ok(c, 200, "Batch Reversed", {
      batch_id: result.batchId,
      reversal_batch_id: result.reversalBatchId,
      transaction_ids: result.transactionIds,
      reversed_transaction_ids: result.reversedIds,
    });
  },
);
