import { findUsers } from "../../db/users";
import { ok } from "../../http/envelope";
import { invalidInput, userNotFound } from "../../http/errors";
import { moneyFields } from "../../http/money-input";
import { defineRoute } from "../../http/route";
import { entryStamp } from "../../http/site";
import { transfer } from "../../wallet/movements";
import { TransferAnswer } from "../answers";
import { TransferParams } from "./schemas";

export const createTransfer = defineRoute(
  {
    path: "/transfers",
    method: "POST",
    summary: "Move money between two users atomically",
    auth: "admin",
    movesMoney: true,
    access: "write",
    params: moneyFields(TransferParams),
    envelope: "A",
    errors: ["invalid_input", "user_not_found", "insufficient_balance", "transaction_exists"],
    success: 200,
    data: TransferAnswer,
  },
  async (c, { fields, wallet, amountMinor }) => {
    const db = c.var.db;
    if (fields.from_user_id === fields.to_user_id)
      throw invalidInput({ to_user_id: "to_user_id must differ from from_user_id" });
    const users = await findUsers(db, [fields.from_user_id, fields.to_user_id]);
    const [from, to] = [users.get(fields.from_user_id), users.get(fields.to_user_id)];
    if (!from) throw userNotFound(fields.from_user_id);
    if (!to) throw userNotFound(fields.to_user_id);

    const spec = {
      wallet,
      amountMinor,
      amountText: fields.amount.text,
      requestId: fields.request_id,
      note: fields.note,
    };
    const moved = await transfer(
      { db, ledger: c.var.ledger, stamp: entryStamp(c) },
      { ...spec, from, to },
    );
    return ok(c, 200, "Transfer Action Completed", {
      debit_transaction_id: moved.debitId,
      credit_transaction_id: moved.creditId,
      from_user_id: from.id,
      to_user_id: to.id,
    });
  },
);
