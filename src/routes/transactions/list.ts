import * as v from "valibot";
import { sameSecret } from "../../auth/same-secret";
import { type EntryRow, HISTORY_CHUNK, listEntries, readHistory } from "../../db/ledger";
import { requireReaderOf } from "../../http/auth";
import { ok, streamJson } from "../../http/envelope";
import { apiError, historyBusy, invalidInput, userNotFound } from "../../http/errors";
import { readParams } from "../../http/params";
import { siteUrl } from "../../http/site";
import { checkFields, EMPTY } from "../../http/validation";
import { pageLinks } from "../../http/wp-core";
import { transactionRecord } from "../../ledger/transaction-record";
import { openHistoryGate } from "../../throttle/history-gate";
import { TransactionAnswer } from "../answers";
import { defineRoute } from "../route";
import { TransactionListParams } from "./schemas";

const MESSAGE = "Txns Retrieved Successful";

export const listTransactions = defineRoute(
  {
    path: "/transactions",
    method: "GET",
    summary: "A user's transactions as WordPress posts",
    auth: "reader",
    params: TransactionListParams,
    envelope: "A",
    errors: ["invalid_input", "security_failed", "user_not_found", "history_busy"],
    success: 200,
    data: v.array(TransactionAnswer),
  },
  async (c) => {
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
      throw apiError("security_failed", {
        security_code: "Security verification failed",
      });
    }

    const userId = fields.user_id ?? principal.userId;
    const db = c.var.db;
    const filter = {
      userId,
      walletId: fields.wallet_id,
      txnType: fields.txn_type,
      afterS: fields.after,
      beforeS: fields.before,
    };
    const site = { siteUrl: siteUrl(c), timeZone: c.env.SITE_TIMEZONE };
    const paged =
      params.page !== undefined || params.pageno !== undefined || params.per_page !== undefined;

    if (!paged) {
      // The whole history (contract section 7), streamed: memory stays one chunk however long it is.
      const history = await readHistory(db, filter, fields.order);
      if (!history.walletExists) throw invalidInput({ wallet_id: "wallet_id not found" });
      if (!history.userExists) throw userNotFound(userId);
      // A history that takes more than the read already made is sent one at a time per caller,
      // across isolates: parallel long streams of one caller starved everyone's reads (issue 21).
      let release: (() => Promise<void>) | undefined;
      let chunks: AsyncIterable<EntryRow[]> = history.chunks;
      if (history.total > HISTORY_CHUNK) {
        const gate = await openHistoryGate(c.env.HISTORY_GATE, principal.userId, c.get("nowMs"));
        if (!gate) throw historyBusy();
        release = gate.release;
        chunks = gate.holding(history.chunks);
      }
      return streamJson(
        c,
        200,
        MESSAGE,
        chunks,
        (row) => transactionRecord(row, site),
        {
          "X-WP-Total": String(history.total),
          "X-WP-TotalPages": history.total === 0 ? "0" : "1",
        },
        release,
      );
    }

    const { rows, total, userExists, walletExists } = await listEntries(db, filter, {
      offset: (fields.page - 1) * fields.per_page,
      limit: fields.per_page,
      order: fields.order,
    });
    if (!walletExists) throw invalidInput({ wallet_id: "wallet_id not found" });
    if (!userExists) throw userNotFound(userId);

    const pages = Math.ceil(total / fields.per_page);
    const links = pageLinks(new URL(c.req.url), site.siteUrl, fields.page, pages);
    return ok(
      c,
      200,
      MESSAGE,
      rows.map((row) => transactionRecord(row, site)),
      {
        "X-WP-Total": String(total),
        "X-WP-TotalPages": String(pages),
        ...(links.length > 0 ? { Link: links.join(", ") } : {}),
      },
    );
  },
);
