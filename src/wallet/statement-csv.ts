// A statement as CSV (docs/api.md#get-statements-beyond-the-plugin): RFC 4180 (a header row, CRLF
// line ends, fields with a comma, quote or line end quoted and quotes doubled), written by
// csv-stringify's synchronous build a chunk of rows at a time, cells safe to open in a spreadsheet.
import { stringify } from "csv-stringify/sync";
import type { StatementRow } from "../db/statements";
import { minorToText, storageDecimals } from "../ledger/money";
import { type SiteSettings, transactionRecord } from "../ledger/transaction-record";
import { type Statement, statementSummary } from "./statements";

const STATEMENT_CSV_COLUMNS = [
  "ID",
  "post_date",
  "post_date_gmt",
  "txn_type",
  "amount",
  "balance_after",
  "note",
] as const;

/**
 * Where a spreadsheet may start a cell inside a text cell, followed by what it would read as a
 * formula there (OWASP, CSV injection) or a NUL, which a reader may drop to leave the formula after
 * it first (ASVS 5.0 V1.2.10). A cell starts at the text's start; and, for a reader that splits
 * the line otherwise (Excel where the list separator is `;`, a tab-separated import), after a `;`
 * or a tab, or after a line break, which such a reader takes for a row's end even inside quotes
 * that do not open its cell. A look-behind, so that each position is judged: a tab or a carriage
 * return at the text's start is quoted, and is itself a cell's start for what follows it.
 */
const FORMULA_AT_CELL_START = /(?<=^|[;\t\r\n])(?=[=+\-@\t\r\0])/g;
/** The only text an amount cell ever holds: a plain decimal, which every spreadsheet reads as a number. */
const PLAIN_NUMBER = /^-?[0-9]+(?:\.[0-9]+)?$/;

/**
 * A text cell a spreadsheet will not run: where a cell may start in it (above) with =, +, -, @, a
 * tab, a carriage return or a NUL, a single quote goes first (OWASP's advice), so it shows as the
 * text it is.
 */
export const textCell = (text: string) => text.replace(FORMULA_AT_CELL_START, "'");

/**
 * An amount cell: the exact decimal, signed when negative (`-12.50`), left as it is so the sheet
 * keeps it a number. A lone signed decimal is a number to a spreadsheet, never a formula (a formula
 * needs `=` or an operator with more after it); anything else is treated as text.
 */
export const numberCell = (text: string) => (PLAIN_NUMBER.test(text) ? text : textCell(text));

// csv-stringify quotes a field holding the record delimiter only as the whole "\r\n": a note with a
// lone LF or CR would start a new row in a reader, its next line a cell no leading quote guards.
const csv = (rows: string[][], quoted = /[\r\n]/) =>
  stringify(rows, { record_delimiter: "\r\n", eof: true, quoted_match: quoted });

// Its first cell quoted: Excel opens a text file whose first two bytes are `ID` as a SYLK file, and
// says the file is corrupt or of another format before it reads it as the CSV it is.
export const statementCsvHeader = () => csv([[...STATEMENT_CSV_COLUMNS]], /^ID$/);

/** Rows of the CSV: dates as the JSON's (site-local and UTC), amounts exact in the stored places. */
export function statementCsvRows(rows: StatementRow[], s: Statement, site: SiteSettings) {
  const places = storageDecimals(s.wallet);
  return csv(
    rows.map((row) => {
      const record = transactionRecord(row, site);
      return [
        String(record.ID),
        textCell(record.post_date),
        textCell(record.post_date_gmt),
        record.txn_type,
        numberCell(minorToText(row.entry.amountMinor, places)),
        numberCell(minorToText(row.entry.balanceAfterMinor, places)),
        textCell(record.note),
      ];
    }),
  );
}

/**
 * The UTC days a statement covers, first and last, as its answer's `from` and `to` write them (a
 * year outside 0000-9999 in ISO 8601's expanded form, `-000001-12-31`, not post_date's `-0001`).
 */
export function statementDays(s: Statement) {
  const { from, to } = statementSummary(s);
  return { from: from.split("T")[0]!, to: to.split("T")[0]! };
}

/**
 * The file's name: whose, which wallet, and the days it covers: the API's in UTC, as the
 * statement's `from` and `to` say them (`to=2026-11-30` is that whole UTC day, which ends on
 * December 1st east of UTC); the console's the days its form chose, in the site's time zone, which
 * a day the zone skipped leaves no range to say.
 */
export function statementFileName(s: Statement, days: { from: string; to: string }) {
  return `statement-${s.range.userId}-${s.range.walletId}-${days.from}-to-${days.to}.csv`;
}

/** The exact figures of a CSV answer, for its headers (a CSV row holds entries only). */
export function statementCsvTotals(s: Statement) {
  const places = storageDecimals(s.wallet);
  return {
    opening: minorToText(s.openingMinor, places),
    closing: minorToText(s.closingMinor, places),
    in: minorToText(s.inMinor, places),
    out: minorToText(s.outMinor, places),
  };
}
