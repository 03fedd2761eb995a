import { ok } from "../../http/envelope";
import { IdPath } from "../../http/fields";
import { defineRoute } from "../../http/route";
import { siteSettings } from "../../http/site";
import { fields } from "../../http/validation";
import { TransactionAnswer, transactionRecord } from "../../wallet/rules";
import { readTransaction as read } from "../../wallet/transactions";

export const readTransaction = defineRoute(
  {
    path: "/transactions/{id}",
    method: "GET",
    operationId: "readTransaction",
    summary: "One transaction as a WordPress post",
    auth: "reader",
    // Reads about the caller's own entries, or anyone's for an administrator (the verb checks).
    owner: () => undefined,
    params: fields(IdPath),
    errors: ["transaction_not_found"],
    data: TransactionAnswer,
  },
  async (c, { id: { id, ref } }) => {
    const row = await read(c.var.service, { id, ref });
    return ok(c, 200, "Txn Retrieved Successful", transactionRecord(row, siteSettings(c)));
  },
);
