import { findEntry } from "../../db/ledger";
import { ok } from "../../http/envelope";
import { permissionDenied, transactionNotFound } from "../../http/errors";
import { defineRoute, pathParam } from "../../http/route";
import { siteUrl } from "../../http/site";
import { transactionRecord } from "../../ledger/transaction-record";
import { TransactionAnswer } from "../answers";

export const readTransaction = defineRoute(
  {
    path: "/transactions/{id}",
    method: "GET",
    summary: "One transaction as a WordPress post",
    auth: "reader",
    // Reads about the caller's own entries, or anyone's for an administrator (checked below).
    owner: () => undefined,
    envelope: "A",
    errors: ["transaction_not_found"],
    success: 200,
    data: TransactionAnswer,
    patterns: { id: "[0-9]+" },
  },
  async (c) => {
    const raw = pathParam(c, "id");
    const row = raw.length <= 15 ? await findEntry(c.var.db, Number(raw)) : undefined;
    const principal = c.get("principal");
    // A subscriber learns nothing about other users' entries, not even whether an id exists.
    if (principal.role !== "administrator" && row?.entry.userId !== principal.userId)
      throw permissionDenied.forbidden();
    if (!row) throw transactionNotFound(raw);
    return ok(
      c,
      200,
      "Txn Retrieved Successful",
      transactionRecord(row, { siteUrl: siteUrl(c), timeZone: c.env.SITE_TIMEZONE }),
    );
  },
);
