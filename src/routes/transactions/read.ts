import * as v from "valibot";
import { findEntry } from "../../db/ledger";
import { ok } from "../../http/envelope";
import { permissionDenied, transactionNotFound } from "../../http/errors";
import { pathIdField } from "../../http/fields";
import { defineRoute } from "../../http/route";
import { siteUrl } from "../../http/site";
import { fields } from "../../http/validation";
import { transactionRecord } from "../../ledger/transaction-record";
import { TransactionAnswer } from "../answers";

export const readTransaction = defineRoute(
  {
    path: "/transactions/{id}",
    method: "GET",
    operationId: "readTransaction",
    summary: "One transaction as a WordPress post",
    auth: "reader",
    // Reads about the caller's own entries, or anyone's for an administrator (checked below).
    owner: () => undefined,
    params: fields(v.object({ id: pathIdField })),
    envelope: "A",
    errors: ["transaction_not_found"],
    success: 200,
    data: TransactionAnswer,
    patterns: { id: "[0-9]+" },
  },
  async (c, { id: { id, ref } }) => {
    const row = id === null ? undefined : await findEntry(c.var.db, id);
    const principal = c.get("principal");
    // A subscriber learns nothing about other users' entries, not even whether an id exists.
    if (principal.role !== "administrator" && row?.entry.userId !== principal.userId)
      throw permissionDenied.forbidden();
    if (!row) throw transactionNotFound(ref);
    return ok(
      c,
      200,
      "Txn Retrieved Successful",
      transactionRecord(row, { siteUrl: siteUrl(c), timeZone: c.env.SITE_TIMEZONE }),
    );
  },
);
