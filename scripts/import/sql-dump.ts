// A streaming reader of mysqldump output: feed it text in chunks of any size (split anywhere, even
// inside a string or an escape) and it calls back once per row of every INSERT / REPLACE statement.
// It keeps in memory only the statement head it is reading and the values of the row it is in, so
// a dump of any size is read in bounded memory. No Node APIs: the Worker tests import it too.
//
// What it understands:
// - extended INSERTs: `INSERT [IGNORE] INTO `t` [(`a`,`b`)] VALUES (...),(...);`, one line or many;
// - MySQL string literals: '...' and "..." with the escapes \0 \' \" \b \n \r \t \Z \\ \% \_ (other
//   escaped characters stand for themselves, `''` inside '...' is a quote), optional
//   _charset introducers, b'..' bits (kept as their digits: no WordPress column is a BIT);
// - hex literals X'..' and 0x.., as a binary column's value is written (mysqldump --hex-blob,
//   phpMyAdmin's default, UpdraftPlus): the UTF-8 text of the bytes they stand for, which is what
//   WordPress read from such a column; in a table the import reads, bytes that are not UTF-8 are
//   refused, as they are in its other values (the CLI reads such a byte as a notUtf8Mark, and a
//   value of another table, a BINARY column mysqldump wrote without --hex-blob, is skipped);
// - NULL (null), numbers and other bare words (kept as their text, so big ids stay exact);
// - CREATE TABLE, whose column list names the values of INSERTs written without one;
// - comments (-- …, # …, /* … */, /*!40101 … */) and other statements, which are skipped (a -- or
//   # line is handed to onComment, a statement to onStatement), and so
//   are the stored routines mysqldump --routines writes between `DELIMITER ;;` and `DELIMITER ;`.
//
// A row is read as it arrives: each value is taken out of the text as soon as it is complete, and a
// string is kept as the pieces read so far, so what waits for the next chunk is a few characters,
// never the row. A row whose values together pass `maxRowChars` is refused on the chunk that takes
// it past, naming its table, row and column; memory stays at most that, whatever the dump holds.

/** MySQL's default max_allowed_packet (64 MiB): no row a stock server took can be longer. */
export const MAX_ROW_CHARS = 64 * 1024 * 1024;
const MAX_PENDING = MAX_ROW_CHARS; // one non-INSERT statement, or one bare value, may not exceed this

const ESCAPES: Record<string, string> = { 0: "\0", b: "\b", n: "\n", r: "\r", t: "\t", Z: "\x1a" };

/** What an operator does about a refused dump whose message names the row or place at fault. */
export const MEND_THE_ROW = "Export the site again, or mend the row named above.";
/** What an operator does about a dump cut short, whose message names no row to mend. */
const EXPORT_AGAIN = "Export the site again.";

/**
 * A dump no mysqldump could have written; `remedy` is what the operator does, said after "Nothing
 * was written." ("" where the message says it).
 */
export class DumpSyntaxError extends Error {
  constructor(
    message: string,
    readonly remedy = MEND_THE_ROW,
  ) {
    super(message);
  }
}

/**
 * A byte that is not UTF-8 in the dump's text, read by the CLI as the lone surrogate U+DC00 + byte
 * (U+DC80–U+DCFF, which no UTF-8 text decodes to): a value of a table the import reads that holds
 * one is refused; one in a value of another table (a BINARY or BLOB column, which mysqldump without
 * --hex-blob writes as its bytes are, as Wordfence's) is skipped with that value.
 */
export const notUtf8Mark = (byte: number) => String.fromCharCode(0xdc00 + byte);
const isNotUtf8Mark = (c: number) => c >= 0xdc80 && c <= 0xdcff;

/** A value of a table the import reads holds a byte that is not UTF-8, at `at` in the text read. */
export class NotUtf8TextError extends Error {
  constructor(readonly at: number) {
    super(`a byte that is not UTF-8 at character ${at} of the dump's text`);
  }
}

/** A value of a dump's row: text (numbers too, as written) or null. */
export type DumpValue = string | null;

/**
 * Takes a row: its values, the columns they are of (null when neither the INSERT nor a CREATE TABLE
 * named them), and the indexes of the values written as hex literals (a number column never holds
 * one: MySQL would store 0x32 there as 50, not as the "2" read here).
 */
export type RowHandler = (
  table: string,
  values: DumpValue[],
  columns: string[] | null,
  hex: readonly number[],
) => void;

type Insert = { table: string; columns: string[] | null; wanted: boolean };

/**
 * The row being read: its values so far, their length, whether one has just ended, and which were
 * hex literals.
 */
type RowState = { values: DumpValue[]; chars: number; afterValue: boolean; hex: number[] };

const NO_HEX: readonly number[] = Object.freeze([]);
const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** A string value being read: the pieces read so far (none kept for an unwanted table). */
type TextState = { quote: number; parts: string[]; chars: number };

/** Unquotes a MySQL identifier: `a``b` → a`b. */
export function identifier(text: string) {
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
  private readonly onComment: (line: string) => void;
  private readonly onStatement: (statement: string) => void;
  private readonly wantTable: (table: string) => boolean;
  private buf = "";
  private pos = 0;
  /** Characters of the text that were read before `buf`'s first. */
  private before = 0;
  /** The text pushed may hold bytes that are not UTF-8 (notUtf8Mark): values are checked. */
  private marked = false;
  private insert: Insert | null = null; // while inside VALUES
  private delimiter = ";"; // the mysql client's statement delimiter (DELIMITER ;; around routines)
  private expectRow = false; // after VALUES or a ',' between rows
  private row: RowState | null = null; // after a row's '(' until its ')'
  private text: TextState | null = null; // inside a string value of that row
  private readonly tables = new Map<string, string[]>(); // table → columns from CREATE TABLE
  private readonly tableRows = new Map<string, number>(); // rows read per table, for messages
  private readonly maxRowChars: number;
  rows = 0;

  constructor({
    onRow,
    onTable = () => {},
    onComment = () => {},
    onStatement = () => {},
    wantTable = () => true,
    maxRowChars = MAX_ROW_CHARS,
  }: {
    onRow: RowHandler;
    onTable?: (table: string, columns: string[]) => void;
    /**
     * Each `-- …` or `# …` line comment, as written: a tool's first and last lines, and a backup
     * plugin's header, which says what it holds.
     */
    onComment?: (line: string) => void;
    /** Each statement other than an INSERT or REPLACE (CREATE TABLE too), skipped here. */
    onStatement?: (statement: string) => void;
    wantTable?: (table: string) => boolean;
    /** The longest row (its values' characters together) read; tests make it small. */
    maxRowChars?: number;
  }) {
    this.onRow = onRow;
    this.onTable = onTable;
    this.onComment = onComment;
    this.onStatement = onStatement;
    this.wantTable = wantTable;
    this.maxRowChars = maxRowChars;
  }

  /** Characters pushed and not read yet (a row or statement waiting for the rest of it). */
  get pending() {
    return this.buf.length - this.pos;
  }

  /** `marked`: `text` may hold notUtf8Mark characters (then every later value is checked too). */
  push(text: string, marked = false) {
    if (marked) this.marked = true;
    this.before += Math.min(this.pos, this.buf.length);
    this.buf = this.pos < this.buf.length ? this.buf.slice(this.pos) + text : text;
    this.pos = 0;
    this.run(false);
  }

  end() {
    this.run(true);
    const rest = this.buf.slice(this.pos).trim();
    if (this.insert || rest.length > 0)
      throw new DumpSyntaxError(
        `the dump ends inside a statement: ${rest.slice(0, 80)}`,
        EXPORT_AGAIN,
      );
    // Every line after it was skipped: a dump cut short inside a routine, or not mysqldump's.
    if (this.delimiter !== ";")
      throw new DumpSyntaxError(
        `the dump ends after DELIMITER ${this.delimiter} with no DELIMITER ; (cut short?)`,
        EXPORT_AGAIN,
      );
  }

  /** Throws when what is pending has grown past any sane statement or row. */
  private wait() {
    if (this.buf.length - this.pos > MAX_PENDING)
      throw new DumpSyntaxError(
        `a statement or row longer than ${MAX_PENDING} characters`,
        EXPORT_AGAIN,
      );
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
    // `DELIMITER ;;` is the mysql client's: mysqldump --routines writes each stored routine between
    // it and `DELIMITER ;`, and the routine's body is code (an INSERT there is no row). Such a block
    // is skipped line by line; no dump writes rows in it.
    if (this.delimiter !== ";" || buf[p] === "D" || buf[p] === "d") {
      const nl = buf.indexOf("\n", p);
      if (nl < 0 && !final) return this.wait();
      const next = nl < 0 ? buf.length : nl + 1;
      const set = /^DELIMITER[ \t]+(\S+)\s*$/i.exec(buf.slice(p, next));
      if (set) this.delimiter = set[1]!;
      if (set || this.delimiter !== ";") {
        this.pos = next;
        return true;
      }
    }
    if (buf.startsWith("--", p) || buf[p] === "#") {
      const nl = buf.indexOf("\n", p);
      if (nl < 0 && !final) return this.wait();
      const next = nl < 0 ? buf.length : nl + 1;
      this.onComment(buf.slice(p, next).trimEnd());
      this.pos = next;
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
    if (end < 0 && !final) return this.wait();
    // Nothing read yet that a dump has: a CSV, JSON or XML export (phpMyAdmin's, Adminer's).
    if (end < 0 && this.rows === 0 && this.tables.size === 0)
      return this.fail(
        "the file holds no statement of an SQL dump: export the database again with the format SQL",
        "",
      );
    if (end < 0) return this.fail("unterminated statement");
    const statement = buf.slice(p, end);
    this.pos = end + 1;
    this.onStatement(statement);
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
    if (this.row) return this.readRow(final);
    this.skipSpace();
    const buf = this.buf;
    if (this.pos >= buf.length) return false;
    const c = buf[this.pos];
    if (this.expectRow) {
      if (c !== "(") return this.fail(`expected '(' in the VALUES of ${this.insert!.table}`);
      this.pos++;
      this.row = { values: [], chars: 0, afterValue: false, hex: [] };
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
   * Reads the current row's values from `pos` on, taking each out of the buffer as it completes.
   * True when the row ended (and was handed over), false when it needs the next chunk.
   */
  private readRow(final: boolean): boolean {
    const row = this.row!;
    for (;;) {
      if (this.text) {
        if (!this.readText(this.text.quote)) return this.more(final);
        continue;
      }
      const buf = this.buf;
      const n = buf.length;
      let p = skipSpace(buf, this.pos);
      this.pos = p;
      if (p >= n) return this.more(final);
      let ch = buf[p]!;
      if (row.afterValue || (ch === ")" && row.values.length === 0)) {
        if (ch === ",") {
          row.afterValue = false;
          this.pos = p + 1;
          continue;
        }
        if (ch !== ")") this.fail(`unexpected '${ch}' in a row of ${this.insert!.table}`);
        this.pos = p + 1;
        this.row = null;
        this.expectRow = false;
        this.rows++;
        this.tableRows.set(this.insert!.table, (this.tableRows.get(this.insert!.table) ?? 0) + 1);
        if (this.insert!.wanted) {
          const hex = row.hex.length > 0 ? row.hex : NO_HEX;
          this.onRow(this.insert!.table, row.values, this.insert!.columns, hex);
        }
        return true;
      }
      // _utf8mb4'…', _binary'…' introducers
      if (ch === "_") {
        const intro = /^_[A-Za-z0-9]+\s*/.exec(buf.slice(p, p + 40));
        if (intro && (buf[p + intro[0].length] === "'" || buf[p + intro[0].length] === '"')) {
          p += intro[0].length;
          ch = buf[p]!;
        } else if (p + 40 > n && !final) return this.more(final);
      }
      if (ch === "'" || ch === '"') {
        this.pos = p + 1;
        if (!this.readText(ch.charCodeAt(0))) return this.more(final);
        continue;
      }
      if ((ch === "X" || ch === "x" || ch === "B" || ch === "b") && buf[p + 1] === "'") {
        const close = buf.indexOf("'", p + 2);
        if (close < 0) return this.more(final);
        const digits = buf.slice(p + 2, close);
        this.checkText(p, close);
        if (ch === "X" || ch === "x") this.hexValue(digits, buf.slice(p, close + 1));
        else this.value(digits);
        this.pos = close + 1;
        continue;
      }
      let q = p;
      while (q < n) {
        const c = buf.charCodeAt(q);
        if (c === 44 || c === 41 || c === 32 || c === 10 || c === 13 || c === 9) break;
        q++;
      }
      if (q >= n) return this.more(final);
      const word = buf.slice(p, q);
      this.checkText(p, q);
      if (word.length === 0) this.fail(`an empty value in a row of ${this.insert!.table}`);
      if (word[1] === "x" && /^0x[0-9A-Fa-f]+$/.test(word)) this.hexValue(word.slice(2), word);
      else this.value(/^NULL$/i.test(word) ? null : word);
      this.pos = q;
    }
  }

  /**
   * Refuses a byte that is not UTF-8 in `buf` from `from` to `to`, when the text may hold one and the
   * row is of a table the import reads.
   */
  private checkText(from: number, to: number) {
    if (!this.marked || !this.insert!.wanted) return;
    const buf = this.buf;
    for (let k = from; k < to; k++)
      if (isNotUtf8Mark(buf.charCodeAt(k))) throw new NotUtf8TextError(this.before + k);
  }

  /** The row is not complete in what has been read: wait for more, or fail at the dump's end. */
  private more(final: boolean) {
    return final ? this.fail(`the dump ends inside a row of ${this.insert!.table}`) : this.wait();
  }

  /** A value of the row ended. */
  private value(value: DumpValue) {
    const row = this.row!;
    row.chars += value?.length ?? 0;
    if (row.chars > this.maxRowChars) this.refuse();
    row.values.push(value);
    row.afterValue = true;
  }

  /**
   * A hex literal ended (`literal` as written, `digits` its hex digits): the UTF-8 text of its
   * bytes. A table the import does not read keeps no value, so its bytes are not looked at.
   */
  private hexValue(digits: string, literal: string) {
    if (!this.insert!.wanted) return this.value("");
    const quoted = literal.endsWith("'");
    if (quoted && !/^[0-9A-Fa-f]*$/.test(digits))
      this.fail(
        `a hex literal with other characters than hex digits in a row of ${this.insert!.table}`,
      );
    if (quoted && digits.length % 2 === 1)
      this.refuseHex(literal, "of an odd number of digits, which MySQL refuses");
    // 0x… of an odd number of digits stands for its value with a 0 before it, as in MySQL.
    const even = digits.length % 2 === 1 ? `0${digits}` : digits;
    const bytes = new Uint8Array(even.length / 2);
    for (let i = 0; i < bytes.length; i++)
      bytes[i] = Number.parseInt(even.slice(2 * i, 2 * i + 2), 16);
    let text: string;
    try {
      text = utf8.decode(bytes);
    } catch {
      this.refuseHex(
        literal.length > 40 ? `${literal.slice(0, 37)}…` : literal,
        "whose bytes are not UTF-8 text, as a latin1 export's are: export the site's database in UTF-8",
      );
    }
    this.row!.hex.push(this.row!.values.length);
    this.value(text);
  }

  /** Refuses a hex literal of the row, naming its table, row and column. */
  private refuseHex(literal: string, why: string): never {
    const table = this.insert!.table;
    const number = (this.tableRows.get(table) ?? 0) + 1;
    const index = this.row!.values.length;
    const column = this.insert!.columns?.[index] ?? `value ${index + 1}`;
    throw new DumpSyntaxError(
      `row ${number} of ${table}: its column ${column} is a hex literal (${literal}) ${why}`,
    );
  }

  /**
   * Reads a string value from `pos` (just after its opening quote, or where the last chunk ended
   * inside it). True when its closing quote was read (the value is then the row's); false when the
   * chunk ran out, the part read so far kept as one piece (none for an unwanted table's value).
   */
  private readText(quote: number): boolean {
    const t = this.text;
    const buf = this.buf;
    const n = buf.length;
    const keep = this.insert!.wanted;
    const limit = this.maxRowChars - this.row!.chars;
    let chars = t?.chars ?? 0;
    let out = "";
    let p = this.pos;
    for (;;) {
      // Copy the run up to the next quote or backslash in one slice.
      let i = p;
      let c = 0;
      while (i < n) {
        c = buf.charCodeAt(i);
        if (c === quote || c === 92) break;
        i++;
      }
      // A quote or backslash at the chunk's end waits: its doubling or escape may be in the next.
      const last = i + 1 >= n;
      let piece = buf.slice(p, i);
      let next = i + 2;
      if (!last && c === 92) {
        const e = buf[i + 1]!;
        piece += e === "%" || e === "_" ? `\\${e}` : (ESCAPES[e] ?? e);
      } else if (!last && buf.charCodeAt(i + 1) === quote) piece += buf[i]!;
      else next = last ? i : i + 1;
      if (keep) this.checkText(p, next);
      chars += piece.length;
      if (chars > limit) this.refuse();
      if (keep) out += piece;
      this.pos = p = next;
      if (last) {
        const parts = out.length > 0 ? [out] : [];
        if (t) t.parts.push(...parts);
        this.text = t ?? { quote, parts, chars };
        this.text.chars = chars;
        return false;
      }
      if (next === i + 1) {
        const value = t ? t.parts.join("") + out : out;
        this.text = null;
        this.row!.chars += chars - value.length; // an unwanted table's value is kept empty
        this.value(value);
        return true;
      }
    }
  }

  /** Refuses the row: its values have passed the limit (its table, row and column named). */
  private refuse(): never {
    const row = this.row!;
    const table = this.insert!.table;
    const number = (this.tableRows.get(table) ?? 0) + 1;
    const index = row.values.length;
    const column = this.insert!.columns?.[index] ?? `value ${index + 1}`;
    throw new DumpSyntaxError(
      `row ${number} of ${table} is longer than ${this.maxRowChars} characters (refused while reading its column ${column}): MySQL's default max_allowed_packet could not have held it`,
    );
  }

  private fail(message: string, remedy = MEND_THE_ROW): never {
    const around = this.buf.slice(this.pos, this.pos + 80).replace(/\s+/g, " ");
    throw new DumpSyntaxError(`${message} (near: ${around})`, remedy);
  }
}

/**
 * The index of the first character at or after `p` that is not a space, tab, CR, LF or byte order
 * mark: dumps joined into one file (`cat a.sql b.sql`) carry each one's mark before its first line.
 */
function skipSpace(buf: string, p: number) {
  let q = p;
  while (q < buf.length) {
    const c = buf.charCodeAt(q);
    if (c !== 32 && c !== 10 && c !== 13 && c !== 9 && c !== 0xfeff) break;
    q++;
  }
  return q;
}

/**
 * A record keyed by the dump's own text: without a prototype, so a key such as `__proto__` or
 * `constructor` (a table, a wallet id, a meta key, a role a user's row names) is a key like any
 * other and never reaches Object.prototype.
 */
export const keyedByDump = <T>(): Record<string, T> => Object.create(null);

/** Parses a whole dump given as one string (tests, small files); returns rows grouped by table. */
export function parseDumpText(text: string, chunkSize = Infinity) {
  const tables = keyedByDump<{ columns: string[] | null; rows: DumpValue[][] }>();
  const parser = new DumpParser({
    onRow: (table, values, columns) => (tables[table] ??= { columns, rows: [] }).rows.push(values),
  });
  if (chunkSize === Infinity) parser.push(text);
  else for (let i = 0; i < text.length; i += chunkSize) parser.push(text.slice(i, i + chunkSize));
  parser.end();
  return tables;
}
