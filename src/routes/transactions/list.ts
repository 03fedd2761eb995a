import * as v from "valibot";
import { sameSecret } from "../../auth/same-secret";
import { ok, streamJson } from "../../http/envelope";
import { apiError, serviceNotConfigured } from "../../http/errors";
import { defineRoute, type Input } from "../../http/route";
import { siteSettings } from "../../http/site";
import { readerFields } from "../../http/validation";
import { pageHeaders, wholeListHeaders } from "../../http/wp-core";
import { settingProblems, varText } from "../../settings";
import { TransactionAnswer, transactionRecord } from "../../wallet/rules";
import { historyPage, wholeHistory } from "../../wallet/transactions";
import { MAX_PER_PAGE, TransactionListParams } from "./schemas";

const MESSAGE = "Txns Retrieved Successful";

/** A `security_code` that is not the one set (TRANSACTIONS_SECURITY_CODE). */
export const SECURITY_FAILED = "Security verification failed";

/**
 * The list's parameters: an administrator must name the user, and a request that names no `page`,
 * `pageno` (its alias) or `per_page` asks for the whole history (streamed).
 */
const listFields = readerFields(TransactionListParams);
const listInput: Input<{ fields: v.InferOutput<typeof TransactionListParams>; paged: boolean }> = {
  schema: TransactionListParams,
  read: async (c, params) => ({
    fields: await listFields.read(c, params),
    paged:
      params.page !== undefined || params.pageno !== undefined || params.per_page !== undefined,
  }),
};

export const listTransactions = defineRoute(
  {
    path: "/transactions",
    method: "GET",
    operationId: "listTransactions",
    summary: "A user's transactions as WordPress posts",
    auth: "reader",
    owner: (params) => params.user_id,
    params: listInput,
    errors: [
      "invalid_input",
      "security_failed",
      "user_not_found",
      "history_busy",
      "object_unavailable",
    ],
    data: v.array(TransactionAnswer),
  },
  async (c, { fields, paged }) => {
    // Logged with every other problem by requireSettings; this route alone stops for it.
    if (settingProblems(c.env).some((p) => p.name === "TRANSACTIONS_SECURITY_CODE"))
      throw serviceNotConfigured(["TRANSACTIONS_SECURITY_CODE"]);
    const expected = varText(c.env.TRANSACTIONS_SECURITY_CODE).trim();
    if (expected && !sameSecret(fields.security_code, expected))
      throw apiError("security_failed", { security_code: SECURITY_FAILED });

    const filter = {
      userId: fields.user_id,
      walletId: fields.wallet_id,
      txnType: fields.txn_type,
      afterS: fields.after,
      beforeS: fields.before,
    };
    const site = siteSettings(c);
    if (!paged) {
      // The whole history (contract section 7), streamed: memory stays one chunk however long it is.
      const history = await wholeHistory(c.var.service, { ...filter, order: fields.order });
      return streamJson(
        c,
        MESSAGE,
        history.chunks,
        (row) => transactionRecord(row, site),
        wholeListHeaders(history.total),
        history.release,
      );
    }

    const { page = 1, per_page: perPage = MAX_PER_PAGE } = fields;
    const { rows, total } = await historyPage(c.var.service, {
      ...filter,
      offset: (page - 1) * perPage,
      limit: perPage,
      order: fields.order,
    });
    return ok(
      c,
      200,
      MESSAGE,
      rows.map((row) => transactionRecord(row, site)),
      pageHeaders(c, total, page, perPage),
    );
  },
);
