import { streamCsv } from "../../http/csv";
import { ok } from "../../http/envelope";
import { historyBusy } from "../../http/errors";
import { defineRoute } from "../../http/route";
import { siteUrl } from "../../http/site";
import { readerFields } from "../../http/validation";
import { pageLinks } from "../../http/wp-core";
import { transactionRecord } from "../../ledger/transaction-record";
import { openHistoryGate } from "../../throttle/history-gate";
import {
  statementCsvHeader,
  statementCsvRows,
  statementCsvTotals,
  statementFileName,
} from "../../wallet/statement-csv";
import {
  openStatement,
  STATEMENT_CHUNK,
  statementEntries,
  statementSummary,
} from "../../wallet/statements";
import { StatementAnswer } from "../answers";
import { withPageAlias } from "../transactions/schemas";
import { StatementParams } from "./schemas";

export const readStatementRoute = defineRoute(
  {
    path: "/statements",
    method: "GET",
    operationId: "readStatement",
    summary:
      "A statement of one wallet between two instants: opening and closing balances, totals and entries (JSON, or CSV with format=csv)",
    auth: "reader",
    owner: (params) => params.user_id,
    params: readerFields(StatementParams, withPageAlias),
    envelope: "A",
    errors: ["invalid_input", "user_not_found", "history_busy"],
    success: 200,
    data: StatementAnswer,
  },
  async (c, fields) => {
    const principal = c.get("principal");
    const csv = fields.format === "csv";
    const nowMs = c.get("nowMs")();
    const site = { siteUrl: siteUrl(c), timeZone: c.env.SITE_TIMEZONE };
    const statement = await openStatement(c.var.db, {
      userId: fields.user_id ?? principal.userId,
      walletId: fields.wallet_id,
      fromS: fields.from,
      toS: fields.to,
      nowS: Math.floor(nowMs / 1000),
      // A CSV is the whole statement, read from its first entry a chunk at a time.
      page: csv
        ? { offset: 0, limit: STATEMENT_CHUNK }
        : { offset: (fields.page - 1) * fields.per_page, limit: fields.per_page },
    });

    if (csv) {
      // A long statement is sent one at a time per caller, as a whole history is.
      let release: (() => Promise<void>) | undefined;
      let entries = statementEntries(c.var.db, statement);
      if (statement.count > STATEMENT_CHUNK) {
        const turn = await openHistoryGate(c.env.HISTORY_GATE, principal.userId, c.get("nowMs"));
        if (!turn) throw historyBusy();
        release = turn.release;
        entries = turn.holding(entries);
      }
      const totals = statementCsvTotals(statement);
      return streamCsv(
        c,
        statementFileName(statement, site.timeZone),
        statementCsvHeader(),
        entries,
        (rows) => statementCsvRows(rows, statement, site),
        {
          "X-WP-Total": totals.count,
          "X-Statement-Opening-Balance": totals.opening,
          "X-Statement-Closing-Balance": totals.closing,
          "X-Statement-Total-In": totals.in,
          "X-Statement-Total-Out": totals.out,
        },
        release,
      );
    }

    const pages = Math.ceil(statement.count / fields.per_page);
    const links = pageLinks(new URL(c.req.url), site.siteUrl, fields.page, pages);
    return ok(
      c,
      200,
      "Statement retrieved",
      {
        ...statementSummary(statement),
        entries: statement.rows.map((row) => transactionRecord(row, site)),
      },
      {
        "X-WP-Total": String(statement.count),
        "X-WP-TotalPages": String(pages),
        ...(links.length > 0 ? { Link: links.join(", ") } : {}),
      },
    );
  },
);
