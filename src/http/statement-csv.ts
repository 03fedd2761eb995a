// A statement as a CSV download (docs/api.md#get-statements-beyond-the-plugin), as wallet/v1's
// `GET /statements?format=csv` and the console's download both answer it: a `text/csv` attachment
// written as it is read (envelope.ts `pulledBody`), a chunk at a time, its figures in headers.
import type { Context } from "hono";
import type { AppEnv } from "../env";
import {
  statementCsvHeader,
  statementCsvRows,
  statementCsvTotals,
  statementFileName,
} from "../wallet/statement-csv";
import { type Statement, wholeStatement } from "../wallet/statements";
import { pulledBody } from "./envelope";
import { siteSettings } from "./site";
import { wholeListHeaders } from "./wp-core";

/**
 * The CSV of a statement opened from its first entry (`STATEMENT_CHUNK` rows at a time), its file
 * named by the days it covers (statementFileName), each a date the caller wrote or checked.
 */
export async function answerStatementCsv(
  c: Context<AppEnv>,
  statement: Statement,
  days: { from: string; to: string },
) {
  const site = siteSettings(c);
  const read = await wholeStatement(c.var.service, statement);
  const totals = statementCsvTotals(statement);
  const body = pulledBody(c, {
    head: statementCsvHeader(),
    chunks: read.chunks,
    render: (rows) => statementCsvRows(rows, statement, site),
    tail: "",
    onEnd: read.release,
  });
  return c.body(body, 200, {
    "Content-Type": "text/csv; charset=utf-8",
    // The name is built from digits, a wallet id ([a-z0-9_]) and days (YYYY-MM-DD, or ±YYYYYY-MM-DD)
    // as the callers wrote or checked them: no quoting is needed.
    "Content-Disposition": `attachment; filename="${statementFileName(statement, days)}"`,
    "Cache-Control": "no-store",
    ...wholeListHeaders(statement.count),
    "X-Statement-Opening-Balance": totals.opening,
    "X-Statement-Closing-Balance": totals.closing,
    "X-Statement-Total-In": totals.in,
    "X-Statement-Total-Out": totals.out,
  });
}
