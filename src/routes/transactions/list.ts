import { Hono } from "hono";
import { sameSecret } from "../../auth/same-secret";
import { createDb } from "../../db/client";
import { listEntries } from "../../db/ledger";
import type { AppEnv } from "../../env";
import { authenticate, requireReaderOf } from "../../http/auth";
import { ok } from "../../http/envelope";
import { ApiError, invalidInput, userNotFound } from "../../http/errors";
import { readParams } from "../../http/params";
import { checkFields, EMPTY } from "../../http/validation";
import { transactionRecord } from "../../ledger/transaction-record";
import { TransactionListParams } from "./schemas";

export const listTransactions = new Hono<AppEnv>().get("/", authenticate, async (c) => {
  const params = await readParams(c);
  requireReaderOf(c, params.user_id);
  const principal = c.get("principal");
  const { output: fields, errors = {} } = checkFields(TransactionListParams, {
    ...params,
    page: params.page ?? params.pageno,
  });
  if (params.user_id === undefined && principal.role === "administrator") errors.user_id = EMPTY;
  if (!fields || Object.keys(errors).length > 0) {
    const keys = Object.keys(TransactionListParams.entries);
    throw invalidInput(
      Object.fromEntries(keys.filter((k) => errors[k]).map((k) => [k, errors[k]!])),
    );
  }

  const expected = c.env.TRANSACTIONS_SECURITY_CODE;
  if (expected && !(await sameSecret(fields.security_code, expected.trim()))) {
    throw new ApiError(401, "Security verification failed", {
      security_code: "Security verification failed",
    });
  }

  const userId = fields.user_id ?? principal.userId;
  const { rows, total, userExists, walletExists } = await listEntries(
    createDb(c.env.DB),
    {
      userId,
      walletId: fields.wallet_id,
      txnType: fields.txn_type,
      afterS: fields.after,
      beforeS: fields.before,
    },
    { offset: (fields.page - 1) * fields.per_page, limit: fields.per_page, order: fields.order },
  );
  if (!walletExists) throw invalidInput({ wallet_id: "wallet_id not found" });
  if (!userExists) throw userNotFound(userId);

  const site = { siteUrl: c.env.SITE_URL, timeZone: c.env.SITE_TIMEZONE };
  return ok(
    c,
    200,
    "Txns Retrieved Successful",
    rows.map((row) => transactionRecord(row, site)),
    {
      "X-WP-Total": String(total),
      "X-WP-TotalPages": String(Math.ceil(total / fields.per_page)),
    },
  );
});
