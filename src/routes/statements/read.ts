import * as v from "valibot";
import { ok } from "../../http/envelope";
import { choiceField, isoInstant, readerUserIdField, walletIdField } from "../../http/fields";
import { defineRoute } from "../../http/route";
import { siteSettings } from "../../http/site";
import { answerStatementCsv } from "../../http/statement-csv";
import { readerFields } from "../../http/validation";
import { pageHeaders } from "../../http/wp-core";
import { seconds, transactionRecord } from "../../wallet/rules";
import { statementDays } from "../../wallet/statement-csv";
import { openStatement, STATEMENT_CHUNK, statementSummary } from "../../wallet/statements";
import { StatementAnswer } from "../answers";
import { PAGE_ALIAS, PAGE_FIELDS } from "../transactions/schemas";

const StatementParams = v.object({
  user_id: readerUserIdField,
  wallet_id: walletIdField,
  // Both instants included, a date-only `to` its whole day; `from` omitted: 1970-01-01T00:00:00Z
  // (an imported entry dated earlier is in the opening balance); `to` omitted or later: the last
  // second that is over.
  from: v.optional(
    v.pipe(
      isoInstant("from"),
      v.description(
        "Included; ISO 8601, a date alone its midnight, no offset UTC. Left out: 1970-01-01T00:00:00Z",
      ),
    ),
  ),
  to: v.optional(
    v.pipe(
      isoInstant("to", { wholeDay: true }),
      v.description(
        "Included; ISO 8601, a date alone its whole day, no offset UTC. Left out, or not yet over: the last second that is over",
      ),
    ),
  ),
  ...PAGE_FIELDS,
  ...PAGE_ALIAS,
  format: v.optional(
    v.pipe(
      choiceField(["json", "csv"], "format must be json or csv"),
      v.description(
        "`csv`: the whole statement as a file, every entry (`page` and `per_page` ignored)",
      ),
    ),
    "json",
  ),
});

export const readStatementRoute = defineRoute(
  {
    path: "/statements",
    method: "GET",
    operationId: "readStatement",
    summary:
      "A statement of one wallet between two instants: opening and closing balances, totals and entries (JSON, or CSV with format=csv)",
    auth: "reader",
    owner: (params) => params.user_id,
    params: readerFields(StatementParams),
    errors: ["invalid_input", "user_not_found", "history_busy", "object_unavailable"],
    data: StatementAnswer,
  },
  async (c, fields) => {
    const csv = fields.format === "csv";
    const statement = await openStatement(c.var.service, {
      userId: fields.user_id,
      walletId: fields.wallet_id,
      fromMs: fields.from,
      toMs: fields.to,
      // A CSV is the whole statement, read from its first entry a chunk at a time.
      page: csv
        ? { offset: 0, limit: STATEMENT_CHUNK }
        : { offset: (fields.page - 1) * fields.per_page, limit: fields.per_page },
    });
    if (csv) return answerStatementCsv(c, statement, statementDays(statement));

    const site = siteSettings(c);
    const summary = statementSummary(statement);
    // A `to` omitted or not yet over was clamped to now: the other pages read up to the same second.
    const clamped = fields.to === undefined || seconds(fields.to) > statement.range.toS;
    return ok(
      c,
      200,
      "Statement retrieved",
      { ...summary, entries: statement.rows.map((row) => transactionRecord(row, site)) },
      pageHeaders(
        c,
        statement.count,
        fields.page,
        fields.per_page,
        clamped ? { to: summary.to } : {},
      ),
    );
  },
);
