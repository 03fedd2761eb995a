// A statement as a CSV download (docs/api.md#get-statements-beyond-the-plugin), as wallet/v1's
// `GET /statements?format=csv` and the console's download both answer it: the whole statement, a
// chunk at a time, its figures in headers.
import type { Context } from "hono";
import type { AppEnv } from "../env";
import { openHistoryGate } from "../throttle/history-gate";
import {
  statementCsvHeader,
  statementCsvRows,
  statementCsvTotals,
  statementFileName,
} from "../wallet/statement-csv";
import { STATEMENT_CHUNK, type Statement, statementEntries } from "../wallet/statements";
import { streamCsv } from "./csv";
import { historyBusy } from "./errors";
import { siteSettings } from "./site";

/** The CSV of a statement opened from its first entry (`STATEMENT_CHUNK` rows at a time). */
export async function answerStatementCsv(c: Context<AppEnv>, statement: Statement) {
  const site = siteSettings(c);
  // A long statement is sent one at a time per caller, as a whole history is.
  let release: (() => Promise<void>) | undefined;
  let entries = statementEntries(c.var.db, statement);
  if (statement.count > STATEMENT_CHUNK) {
    const turn = await openHistoryGate(
      c.env.HISTORY_GATE,
      c.get("principal").userId,
      c.get("nowMs"),
    );
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
