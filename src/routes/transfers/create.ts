import { ok } from "../../http/envelope";
import { movementOf, TransferParams } from "../../http/fields";
import { defineRoute } from "../../http/route";
import { moneyFields } from "../../http/validation";
import { transfer } from "../../wallet/movements";
import { TransferAnswer } from "../answers";

export const createTransfer = defineRoute(
  {
    path: "/transfers",
    method: "POST",
    operationId: "createTransfer",
    summary: "Move money between two users atomically",
    auth: "admin",
    movesMoney: true,
    access: "write",
    params: moneyFields(TransferParams),
    errors: ["invalid_input", "user_not_found", "insufficient_balance", "transaction_exists"],
    data: TransferAnswer,
  },
  async (c, fields) => {
    const moved = await transfer(c.var.service, {
      from: { id: fields.from_user_id },
      to: { id: fields.to_user_id },
      ...movementOf(fields),
      requestId: fields.request_id,
    });
    return ok(c, 200, "Transfer Action Completed", {
      debit_transaction_id: moved.debitId,
      credit_transaction_id: moved.creditId,
      from_user_id: moved.fromUserId,
      to_user_id: moved.toUserId,
    });
  },
);
