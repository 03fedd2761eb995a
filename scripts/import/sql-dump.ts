// A streaming reader of mysqldump output: feed it text in chunks of any size (split anywhere, even
// inside a string or an escape) and it calls back once per row of every INSERT / REPLACE statement.
// It keeps in memory only the statement head it is reading and the row it is in, so a dump of any
// size is read in bounded memory. No Node APIs: the Worker tests import it too.
//
// What it understands:
// - extended INSERTs: `INSERT [IGNORE] INTO `t` [(`a`,`b`)] VALUES (...),(...);`, one line or many;
// - MySQL string literals: '...' and "..." with the escapes \0 \' \" \b \n \r \t \Z \\ \% \_ (other
//   escaped characters stand for themselves, `''` inside '...' is a quote), optional
//   _charset introducers, X'..' / 0x.. hex (kept as text of the hex digits), b'..' bits;
// - NULL (null), numbers and other bare words (kept as their text, so big ids stay exact);
// - CREATE TABLE, whose column list names the values of INSERTs written without one;
// - comments (-- …, # …, /* … */, /*!40101 … */) and other statements, which are skipped.

const MAX_PENDING = 64 * 1024 * 1024; // one row, or one non-INSERT statement, may not exceed this

const ESCAPES: Record<string, string> = { 0: "\0", b: "\b", n: "\n", r: "\r", t: "\t", Z: "\x1a" };

export class DumpSyntaxError extends Error {}

/** A value of a dump's row: text (numbers too, as written) or null. */
export type DumpValue = string | null;

export type RowHandler = (table: string, values: DumpValue[], columns: string[] | null) => void;

type Insert = { table: string; columns: string[] | null; wanted: boolean };

/** Unquotes a MySQL identifier: `a``b` → a`b. */
function identifier(text: string) {
  const t = text.trim();
  if (t.startsWith("`") && t.endsWith("`")) return t.slice(1, -1).replaceAll("``", "`");
  if (t.startsWith('"') && t.endsWith('"')) return t.slice(1, -1).replaceAll('""', '"');
  return t;
}

/** Column names of a CREATE TABLE statement, in order. */
export function createTableColumns(statement: string) {
  const open = statement.indexOf("(");
  const close = statement.lastIndexOf(")");
  if (open < 0 || close < open) return [];
  const columns: string[] = [];
  for (const raw of statement.slice(open + 1, close).split("\n")) {
    const line = raw.trim();
    const m = /^(`(?:[^`]|``)+`|"(?:[^"]|"")+"|[A-Za-z0-9_$]+)\s/.exec(line);
    if (!m) continue;
    if (/^(PRIMARY|UNIQUE|KEY|INDEX|CONSTRAINT|FOREIGN|FULLTEXT|SPATIAL|CHECK)$/i.test(m[1]!))
      continue;
    columns.push(identifier(m[1]!));
  }
  return columns;
}

/**
 * Streaming parser. `onRow(table, values, columns)` gets each row: values are strings (text and
 * numbers alike) or null; columns are the INSERT's column list, or the table's from its CREATE TABLE,
 * or null when neither was seen. `onTable(table, columns)` gets each CREATE TABLE.
 */
export class DumpParser {
  private readonly onRow: RowHandler;
  private readonly onTable: (table: string, columns: string[]) => void;
  private readonly wantTable: (table: string) => boolean;
  private buf = "";
  private pos = 0;
  private insert: Insert | null = null; // while inside VALUES
  private expectRow = false; // after VALUES or a ',' between rows
  private readonly tables = new Map<string, string[]>(); // table → columns from CREATE TABLE
  rows = 0;

  constructor({
    onRow,
    onTable = () => {},
    wantTable = () => true,
  }: {
    onRow: RowHandler;
    onTable?: (table: string, columns: string[]) => void;
    wantTable?: (table: string) => boolean;
  }) {
    this.onRow = onRow;
    this.onTable = onTable;
    this.wantTable = wantTable;
  }

  push(text: string) {
    this.buf = this.pos < this.buf.length ? this.buf.slice(this.pos) + text : text;
    this.pos = 0;
    this.run(false);
  }

  end() {
    this.run(true);
    const rest = this.buf.slice(this.pos).trim();
    if (this.insert || rest.length > 0)
      throw new DumpSyntaxError(`the dump ends inside a statement: ${rest.slice(0, 80)}`);
  }

  /** Throws when what is pending has grown past any sane statement or row. */
  private wait() {
    if (this.buf.length - this.pos > MAX_PENDING)
      throw new DumpSyntaxError(`a statement or row longer than ${MAX_PENDING} characters`);
    return false;
  }

  private run(final: boolean) {
    while (this.pos < this.buf.length) {
      const progressed = this.insert ? this.stepValues(final) : this.stepTop(final);
      if (!progressed) return;
    }
  }

  private skipSpace() {
    this.pos = skipSpace(this.buf, this.pos);
  }

  /** Between statements: a comment, an INSERT head, or some other statement to skip. */
  private stepTop(final: boolean): boolean {
    this.skipSpace();
    const buf = this.buf;
    const p = this.pos;
    if (p >= buf.length) return false;
    if (!final && buf.length - p < 2) return this.wait();
    if (buf.startsWith("--", p) || buf[p] === "#") {
      const nl = buf.indexOf("\n", p);
      if (nl < 0) {
        if (!final) return this.wait();
        this.pos = buf.length;
        return true;
      }
      this.pos = nl + 1;
      return true;
    }
    if (buf.startsWith("/*", p)) {
      const close = buf.indexOf("*/", p + 2);
      if (close < 0) return final ? this.fail("unterminated comment") : this.wait();
      this.pos = close + 2;
      this.skipSpace();
      if (this.buf[this.pos] === ";") this.pos++;
      return true;
    }
    const word = /^(INSERT|REPLACE)\b/i.exec(buf.slice(p, p + 8));
    if (word) return this.readInsertHead(final);
    const end = this.statementEnd(p);
    if (end < 0) return final ? this.fail("unterminated statement") : this.wait();
    const statement = buf.slice(p, end);
    this.pos = end + 1;
    const create =
      /^CREATE\s+TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?(`(?:[^`]|``)+`|"[^"]+"|[A-Za-z0-9_$.]+)/i.exec(
        statement,
      );
    if (create) {
      const table = identifier(create[1]!.split(".").pop()!);
      const columns = createTableColumns(statement);
      this.tables.set(table, columns);
      this.onTable(table, columns);
    }
    return true;
  }

  /** Index of the `;` ending the statement that starts at p (outside quotes), or -1 if not yet read. */
  private statementEnd(p: number) {
    const buf = this.buf;
    let quote = 0;
    for (let i = p; i < buf.length; i++) {
      const c = buf.charCodeAt(i);
      if (quote) {
        if (c === 92 /* \ */ && quote !== 96) i++;
        else if (c === quote) {
          if (buf.charCodeAt(i + 1) === quote) i++;
          else quote = 0;
        }
      } else if (c === 39 || c === 34 || c === 96) quote = c;
      else if (c === 59) return i;
    }
    return -1;
  }

  private readInsertHead(final: boolean): boolean {
    const buf = this.buf;
    const p = this.pos;
    // The head is short: INSERT [LOW_PRIORITY|IGNORE …] INTO `t` [(`a`, …)] VALUES
    const head =
      /^(?:INSERT|REPLACE)\s+(?:(?:LOW_PRIORITY|DELAYED|HIGH_PRIORITY|IGNORE)\s+)*(?:INTO\s+)?(`(?:[^`]|``)+`|"[^"]+"|[A-Za-z0-9_$.]+)\s*(\((?:[^()`]|`(?:[^`]|``)*`)*\))?\s*VALUES\s*/i;
    const window = buf.slice(p, p + 64 * 1024);
    const m = head.exec(window);
    if (m?.index !== 0 || p + m[0].length >= buf.length) {
      if (!final && buf.length - p < 64 * 1024) return this.wait();
      if (!m)
        return this.fail(`an INSERT this reader does not understand: ${window.slice(0, 120)}`);
    }
    const table = identifier(m[1]!.split(".").pop()!);
    const columns = m[2]
      ? m[2].slice(1, -1).split(",").map(identifier)
      : (this.tables.get(table) ?? null);
    this.insert = { table, columns, wanted: this.wantTable(table) };
    this.expectRow = true;
    this.pos = p + m[0].length;
    return true;
  }

  /** Inside VALUES: a row, a ',' before the next one, or the ';' that ends the statement. */
  private stepValues(final: boolean): boolean {
    this.skipSpace();
    const buf = this.buf;
    if (this.pos >= buf.length) return false;
    const c = buf[this.pos];
    if (this.expectRow) {
      if (c !== "(") return this.fail(`expected '(' in the VALUES of ${this.insert!.table}`);
      const row = this.readRow(this.pos + 1, final);
      if (!row)
        return final
          ? this.fail(`the dump ends inside a row of ${this.insert!.table}`)
          : this.wait();
      this.pos = row.end;
      this.expectRow = false;
      this.rows++;
      if (this.insert!.wanted) this.onRow(this.insert!.table, row.values, this.insert!.columns);
      return true;
    }
    if (c === ",") {
      this.pos++;
      this.expectRow = true;
      return true;
    }
    if (c === ";") {
      this.pos++;
      this.insert = null;
      return true;
    }
    // ON DUPLICATE KEY UPDATE …: skip to the end of the statement.
    const end = this.statementEnd(this.pos);
    if (end < 0) return final ? this.fail("unterminated statement") : this.wait();
    this.pos = end + 1;
    this.insert = null;
    return true;
  }

  /**
   * Reads one row's values starting just after its '('. Returns { values, end } with end after the
   * ')', or null when the row is not complete in the buffer yet.
   */
  private readRow(start: number, final: boolean): { values: DumpValue[]; end: number } | null {
    const buf = this.buf;
    const n = buf.length;
    const values: DumpValue[] = [];
    let p = start;
    for (;;) {
      p = skipSpace(buf, p);
      if (p >= n) return null;
      let ch = buf[p]!;
      if (ch === ")" && values.length === 0) return { values, end: p + 1 };
      // _utf8mb4'…', _binary'…' introducers
      if (ch === "_") {
        const intro = /^_[A-Za-z0-9]+\s*/.exec(buf.slice(p, p + 40));
        if (intro && (buf[p + intro[0].length] === "'" || buf[p + intro[0].length] === '"')) {
          p += intro[0].length;
          ch = buf[p]!;
        } else if (p + 40 > n && !final) return null;
      }
      if (ch === "'" || ch === '"') {
        const s = readString(buf, p + 1, ch);
        if (!s) return null;
        values.push(s.value);
        p = s.end;
      } else if ((ch === "X" || ch === "x" || ch === "B" || ch === "b") && buf[p + 1] === "'") {
        const close = buf.indexOf("'", p + 2);
        if (close < 0) return null;
        values.push(buf.slice(p + 2, close));
        p = close + 1;
      } else {
        let q = p;
        while (q < n) {
          const c = buf.charCodeAt(q);
          if (c === 44 || c === 41 || c === 32 || c === 10 || c === 13 || c === 9) break;
          q++;
        }
        if (q >= n) return null;
        const word = buf.slice(p, q);
        if (word.length === 0) this.fail(`an empty value in a row of ${this.insert!.table}`);
        values.push(/^NULL$/i.test(word) ? null : word);
        p = q;
      }
      p = skipSpace(buf, p);
      if (p >= n) return null;
      if (buf[p] === ",") p++;
      else if (buf[p] === ")") return { values, end: p + 1 };
      else this.fail(`unexpected '${buf[p]}' in a row of ${this.insert!.table}`);
    }
  }

  private fail(message: string): never {
    const around = this.buf.slice(this.pos, this.pos + 80).replace(/\s+/g, " ");
    throw new DumpSyntaxError(`${message} (near: ${around})`);
  }
}

/** The index of the first character at or after `p` that is not a space, tab, CR or LF. */
function skipSpace(buf: string, p: number) {
  let q = p;
  while (q < buf.length) {
    const c = buf.charCodeAt(q);
    if (c !== 32 && c !== 10 && c !== 13 && c !== 9) break;
    q++;
  }
  return q;
}

/** A MySQL string literal's value; `start` is just after the opening quote. Null when incomplete. */
function readString(buf: string, start: number, quote: string) {
  const n = buf.length;
  const quoteCode = quote.charCodeAt(0);
  let out = "";
  let p = start;
  for (;;) {
    // Copy the run up to the next quote or backslash in one slice.
    let i = p;
    let c = 0;
    while (i < n) {
      c = buf.charCodeAt(i);
      if (c === quoteCode || c === 92) break;
      i++;
    }
    if (i + 1 >= n) return null; // incomplete, or a quote whose doubling may be in the next chunk
    out += buf.slice(p, i);
    if (c === 92) {
      const e = buf[i + 1]!;
      if (e === "%" || e === "_") out += `\\${e}`;
      else out += ESCAPES[e] ?? e;
      p = i + 2;
    } else if (buf.charCodeAt(i + 1) === quoteCode) {
      out += quote;
      p = i + 2;
    } else {
      return { value: out, end: i + 1 };
    }
  }
}

/** Parses a whole dump given as one string (tests, small files); returns rows grouped by table. */
export function parseDumpText(text: string, chunkSize = Infinity) {
  const tables: Record<string, { columns: string[] | null; rows: DumpValue[][] }> = {};
  const parser = new DumpParser({
    onRow: (table, values, columns) => (tables[table] ??= { columns, rows: [] }).rows.push(values),
  });
  if (chunkSize === Infinity) parser.push(text);
  else for (let i = 0; i < text.length; i += chunkSize) parser.push(text.slice(i, i + chunkSize));
  parser.end();
  return tables;
}
