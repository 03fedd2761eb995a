import { ok } from "../../http/envelope";
import { defineRoute } from "../../http/route";
import { postBatch } from "../../wallet/batches";
import { BatchCreatedAnswer } from "../answers";
import { batchFields } from "./schemas";

/** A batch (src/wallet/batches.ts `postBatch`): every operation written, or none. */
export const createBatch = defineRoute(
  {
    path: "/batches",
    method: "POST",
    operationId: "createBatch",
    summary: "Post several credits, debits and transfers all together, or none of them",
    auth: "admin",
    movesMoney: true,
    access: "write",
    params: batchFields,
    errors: ["invalid_input", "user_not_found", "insufficient_balance", "transaction_exists"],
    data: BatchCreatedAnswer,
  },
  async (c, input) => {
    const posted = await postBatch(c.var.service, input);
    return ok(c, 200, "Batch Completed", {
      batch_id: posted.batchId,
      request_id: posted.requestId,
      transaction_ids: posted.transactionIds,
    });
  },
);
