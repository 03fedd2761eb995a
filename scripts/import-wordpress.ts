// npm run import:wordpress -- <dump.sql[.gz]> [--prefix wp_] [--users-prefix wp_]
//   [--namespace wallet] [--local|--remote] [--dry-run] [--rehearse] [--balances ledger|site]
//   [--places WALLET=N] [--force] [--persist-to DIR] [--config FILE] [--database DB]
//   [--report FILE.json] [--chunk-statements N] [--tmp-dir DIR]
//
// Moves a WordPress site's wallet data (users, wallets, every CREDIT/DEBIT) into the service's D1:
// reads the mysqldump as a stream (the transactions spill to a temporary folder by post id range),
// plans the import against what the database already holds, writes the SQL in chunks and has
// wrangler run them in order. Safe to run again; refuses conflicting data unless --force. See
// docs/migrating.md.
import {
  closeSync,
  createReadStream,
  mkdtempSync,
  openSync,
  readSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { finished } from "node:stream/promises";
import { parseArgs } from "node:util";
import { createGunzip } from "node:zlib";
import { MAX_STORAGE_DECIMALS } from "../src/ledger/money";
import { ChunkWriter } from "./import/chunks";
import { createReader, DamagedDumpError } from "./import/collect";
import { type ImportD1, LocalD1, RemoteD1 } from "./import/d1";
import { DumpOptionError, RowTooLongError } from "./import/plan/context";
import { type Phase, Progress } from "./import/progress";
import type { Report } from "./import/report";
import { formatReport } from "./import/report-text";
import { SpillBuckets } from "./import/spill";
import { DumpSyntaxError, NotUtf8TextError, notUtf8Mark } from "./import/sql-dump";
import {
  emptyTarget,
  readTargetRows,
  SchemaMissing,
  type Target,
  type TargetRows,
  targetState,
} from "./import/target";
import { planImport } from "./import/wordpress";
import { endBySignal, runMain, stop } from "./lib/exit";
import { migrateLocalD1 } from "./lib/migrate-local";

const USAGE = `usage: npm run import:wordpress -- <dump.sql[.gz]> (--local | --remote | --dry-run) [options]
  --prefix wp_              table prefix of the WordPress site (default wp_)
  --users-prefix wp_        table prefix of the users tables, for a site of a multisite network
                            (--prefix wp_2_ --users-prefix wp_; default the --prefix)
  --namespace wallet        the plugin's namespace word (post type <ns>transaction)
  --balances ledger|site    ledger: balances are the sum of the entries (default);
                            site: one adjustment entry per wallet brings each to the site's stored balance
  --dry-run                 write nothing; print the report (reads the database when --local/--remote is given)
  --rehearse                with --local: write through \`wrangler d1 execute --local --file\`, the very SQL
                            files and commands a --remote import sends (slower than plain --local)
  --places WALLET=N         the decimal places WALLET stores (repeat for more wallets), instead of as many
                            as its most precise amount needs: histories holding an amount with more
                            places are refused (left out with --force)
  --force                   for a damaged dump or a conflicting database: import what can be carried
                            over and leave out the rest (reported)
  --persist-to DIR          local D1 state folder (as wrangler's --persist-to)
  --config FILE             wrangler configuration file
  --database DB             D1 binding or name (default DB)
  --report FILE             also write the full report as JSON
  --chunk-statements N      statements per wrangler call (default 20000, at most 100000)
  --tmp-dir DIR             where the temporary spill and SQL files go (default the system's)`;

/** 5 times the default chunk; a chunk also ends at MAX_CHUNK_BYTES (import/chunks.ts). */
const MAX_CHUNK_STATEMENTS = 100_000;

const ARGS = {
  allowPositionals: true,
  options: {
    // No default here: the import tells the default (wp_) from a prefix named on purpose.
    prefix: { type: "string" },
    "users-prefix": { type: "string" },
    namespace: { type: "string", default: "wallet" },
    local: { type: "boolean", default: false },
    remote: { type: "boolean", default: false },
    "dry-run": { type: "boolean", default: false },
    rehearse: { type: "boolean", default: false },
    balances: { type: "string", default: "ledger" },
    force: { type: "boolean", default: false },
    places: { type: "string", multiple: true, default: [] as string[] },
    "persist-to": { type: "string" },
    config: { type: "string" },
    database: { type: "string", default: "DB" },
    report: { type: "string" },
    "chunk-statements": { type: "string", default: "20000" },
    "tmp-dir": { type: "string" },
    help: { type: "boolean", short: "h", default: false },
  },
} as const;

function parse() {
  try {
    return parseArgs(ARGS);
  } catch (err) {
    return fail(`${(err as Error).message}\n${USAGE}`);
  }
}

function options() {
  const { values, positionals } = parse();
  if (values.help) {
    console.log(USAGE);
    return null;
  }
  if (positionals.length !== 1) fail(USAGE);
  if (values.local && values.remote) fail("choose one of --local and --remote");
  if (!values.local && !values.remote && !values["dry-run"])
    fail(`say where to import: --local or --remote (or --dry-run)\n${USAGE}`);
  const balances: "ledger" | "site" =
    values.balances === "ledger"
      ? "ledger"
      : values.balances === "site"
        ? "site"
        : fail("--balances is ledger or site");
  for (const option of ["prefix", "users-prefix"] as const)
    if (values[option] !== undefined && !/^[A-Za-z0-9_$]*$/.test(values[option]))
      fail(`--${option} may hold letters, digits, _ and $`);
  if (!/^[a-z0-9_]+$/i.test(values.namespace)) fail("--namespace is a word");
  const places = new Map<string, number>();
  for (const given of values.places) {
    const [, id, n] = /^\s*([^=\s]+)\s*=\s*(\d{1,2})\s*$/.exec(given) ?? [];
    if (id === undefined || Number(n) > MAX_STORAGE_DECIMALS)
      fail(
        `--places takes WALLET=N with N from 0 to ${MAX_STORAGE_DECIMALS}, as --places ngn=2 (got ${given})`,
      );
    if (places.has(id.toLowerCase())) fail(`--places names wallet ${id} twice`);
    places.set(id.toLowerCase(), Number(n));
  }
  // A local chunk is read whole and run as one batch: a bound keeps it within memory.
  const chunkText = values["chunk-statements"];
  const chunk = Number(chunkText);
  if (!/^[0-9]{1,6}$/.test(chunkText) || chunk < 1 || chunk > MAX_CHUNK_STATEMENTS)
    fail(`--chunk-statements is a whole number from 1 to ${MAX_CHUNK_STATEMENTS}`);
  if (values["persist-to"] && !values.local) fail("--persist-to goes with --local");
  if (values.rehearse && !values.local) fail("--rehearse goes with --local");
  // Before anything is touched (--local migrates its state first): a dump that is not there, and
  // the folders and files the run writes at its end.
  const file = positionals[0]!;
  const dumpStat = statSync(file, { throwIfNoEntry: false });
  if (!dumpStat) fail(`no dump at ${file}: no such file`);
  if (dumpStat.isDirectory()) fail(`the dump ${file} is a folder: name the dump file in it`);
  if (!dumpStat.isFile())
    fail(
      `the dump ${file} is not a file (a pipe or a device): the import reads its first bytes before the rest, so save it to a file first (a .gz is read as it is)`,
    );
  const isFolder = (dir: string) => statSync(dir, { throwIfNoEntry: false })?.isDirectory();
  const persistTo = values["persist-to"];
  if (persistTo !== undefined && statSync(persistTo, { throwIfNoEntry: false })?.isFile())
    fail(`--persist-to ${persistTo} is a file: name the folder of the local state`);
  if (values["tmp-dir"] !== undefined && !isFolder(values["tmp-dir"]))
    fail(`--tmp-dir ${values["tmp-dir"]} is not a folder`);
  if (values.report !== undefined) {
    if (isFolder(values.report))
      fail(`--report ${values.report} is a folder: name the JSON file to write`);
    const folder = path.dirname(path.resolve(values.report));
    if (!isFolder(folder)) fail(`--report ${values.report}: no folder ${folder} to write it in`);
  }
  return { ...values, file, balances, places, chunkStatements: chunk };
}

type CliOptions = NonNullable<ReturnType<typeof options>>;

function fail(message: string): never {
  stop(message, 2);
}

/** A dump file that cannot be read to its end (a gzip stream cut short or damaged). */
class DumpFileError extends Error {}

/**
 * What the file's first bytes say it is: a dump is read by what it holds, not its name. A gzip
 * stream is read; phpMyAdmin's zip and a bzip2 file (phpMyAdmin's, Adminer's) are refused with what
 * to do, where their bytes would only be refused as text that is not UTF-8.
 */
function compression(file: string) {
  const fd = openSync(file, "r");
  try {
    const head = Buffer.alloc(4);
    const n = readSync(fd, head, 0, 4, 0);
    const starts = (magic: string) =>
      n >= magic.length && head.toString("latin1").startsWith(magic);
    if (starts("\x1f\x8b")) return "gzip";
    if (starts("PK\x03\x04"))
      throw new DumpFileError(
        `${file} is a zip archive: unzip it and import the .sql file it holds`,
      );
    if (starts("BZh"))
      throw new DumpFileError(
        `${file} is bzip2-compressed: decompress it (bunzip2) or export it again without compression or gzipped`,
      );
    return null;
  } finally {
    closeSync(fd);
  }
}

/** The bytes of the last character of valid UTF-8 `bytes` (its lead byte on), complete or not. */
function lastCharacter(bytes: Buffer) {
  let start = bytes.length - 1;
  while (start > 0 && start > bytes.length - 4 && (bytes[start]! & 0xc0) === 0x80) start--;
  return bytes.subarray(Math.max(start, 0));
}

/** How many bytes the UTF-8 character that `lead` begins takes (1 for a byte that begins none). */
const utf8Length = (lead: number) =>
  lead >= 0xc2 && lead <= 0xdf
    ? 2
    : lead >= 0xe0 && lead <= 0xef
      ? 3
      : lead >= 0xf0 && lead <= 0xf4
        ? 4
        : 1;

/** Whether `byte` continues, as its `k`th byte, a character that `lead` begins (WHATWG's UTF-8). */
function continues(lead: number, k: number, byte: number) {
  if (k > 1) return byte >= 0x80 && byte <= 0xbf;
  if (lead === 0xe0) return byte >= 0xa0 && byte <= 0xbf; // no overlong form
  if (lead === 0xed) return byte >= 0x80 && byte <= 0x9f; // no surrogate
  if (lead === 0xf0) return byte >= 0x90 && byte <= 0xbf; // no overlong form
  if (lead === 0xf4) return byte >= 0x80 && byte <= 0x8f; // none past U+10FFFF
  return byte >= 0x80 && byte <= 0xbf;
}

/**
 * `bytes` as text, each byte that is not UTF-8 read as its notUtf8Mark (`marks`: where each is, in
 * the text and in `bytes`), and the start of a character the bytes end inside (`rest`), which a
 * streaming TextDecoder keeps for the next read. A byte is not UTF-8 where it begins no character,
 * or begins one the next bytes do not continue (which are then read afresh), as the TextDecoder
 * reads them.
 */
function decodeMarked(bytes: Buffer) {
  const marks: { text: number; byte: number }[] = [];
  let text = "";
  let run = 0; // where the bytes not yet in `text` begin
  let i = 0;
  while (i < bytes.length) {
    const lead = bytes[i]!;
    const length = lead < 0x80 ? 1 : utf8Length(lead);
    let k = 1;
    while (k < length && i + k < bytes.length && continues(lead, k, bytes[i + k]!)) k++;
    if (lead < 0x80 || (length > 1 && k === length)) {
      i += length;
      continue;
    }
    if (length > 1 && i + k === bytes.length) break; // cut short by the read's end
    text += bytes.toString("utf8", run, i);
    marks.push({ text: text.length, byte: i });
    text += notUtf8Mark(lead);
    run = ++i;
  }
  text += bytes.toString("utf8", run, i);
  return { text, marks, rest: bytes.subarray(i) };
}

async function readDump(file: string, reader: ReturnType<typeof createReader>, progress: Progress) {
  const size = statSync(file).size;
  const gzip = compression(file) === "gzip";
  const raw = createReadStream(file, { highWaterMark: 1 << 20 });
  const input = gzip ? raw.pipe(createGunzip()) : raw;
  // Read as UTF-8, or refused where the import reads it: a decoder that replaced a byte with U+FFFD
  // would change a login, a name or a request_id, and make two that differ in such bytes one. A
  // byte that is not UTF-8 is read as its notUtf8Mark, and refused in a value of a table the import
  // reads (the parser's NotUtf8TextError); other tables' (Wordfence's binary columns, as mysqldump
  // writes them without --hex-blob) are skipped.
  let decoder = new TextDecoder("utf-8", { fatal: true });
  let offset = 0; // bytes of text before the current chunk
  // The start of a character the reads so far end inside, which the decoder keeps for the next.
  let held: Buffer = Buffer.alloc(0);
  let rest: Buffer | null = null; // `held` after a read with bytes that are not UTF-8
  let textRead = 0; // characters of text before the current chunk's
  let marked = false; // the text has held a byte that is not UTF-8
  let marks: { text: number; byte: number }[] = []; // where each such byte not yet passed is
  const notUtf8 = (at: number) =>
    new DumpFileError(
      `${file} is not UTF-8 text (byte ${at.toLocaleString("en-US")} is not): export the site again as UTF-8 (mysqldump --default-character-set=utf8mb4; phpMyAdmin: Character set of the file, utf-8), or decrypt an encrypted backup (UpdraftPlus's .crypt) first`,
    );
  const decode = (chunk: Buffer | null) => {
    try {
      return chunk === null ? decoder.decode() : decoder.decode(chunk, { stream: true });
    } catch {
      // Windows PowerShell 5's `mysqldump … > file` writes UTF-16 with its mark: the advice below
      // would make the same file again.
      const mark = offset === 0 && chunk !== null ? chunk.subarray(0, 2).toString("hex") : "";
      if (mark === "fffe" || mark === "feff")
        throw new DumpFileError(
          `${file} is UTF-16 text, as Windows PowerShell's > writes a command's output: export it with mysqldump --result-file=wordpress.sql (or from cmd.exe), or save it again as UTF-8`,
        );
      // A character the file ends inside: cut short.
      if (chunk === null) throw notUtf8(offset - held.length);
      const read = decodeMarked(Buffer.concat([held, chunk]));
      for (const m of read.marks)
        marks.push({ text: textRead + m.text, byte: offset - held.length + m.byte });
      marked = true;
      decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
      decoder.decode(read.rest, { stream: true });
      rest = read.rest;
      return read.text;
    }
  };
  /** The parser's refusal of a byte that is not UTF-8 as the file's, naming the byte; else `err`. */
  const notUtf8Text = (err: unknown) =>
    err instanceof NotUtf8TextError
      ? notUtf8(marks.find((m) => m.text === err.at)?.byte ?? offset)
      : err;
  const push = (text: string) => {
    try {
      reader.parser.push(text, marked);
    } catch (err) {
      throw notUtf8Text(err);
    }
    textRead += text.length;
    if (marks.length > 0) marks = marks.filter((m) => m.text >= textRead - reader.parser.pending);
  };
  const bar = progress.phase(`Reading ${path.basename(file)}`, size, "bytes");
  try {
    for await (const chunk of input as AsyncIterable<Buffer>) {
      push(decode(chunk));
      offset += chunk.length;
      const last = rest ?? lastCharacter(chunk.length >= 4 ? chunk : Buffer.concat([held, chunk]));
      held = last.length < utf8Length(last[0] ?? 0) ? last : Buffer.alloc(0);
      rest = null;
      bar.update(raw.bytesRead, `${reader.parser.rows.toLocaleString("en-US")} rows`);
    }
    push(decode(null));
  } catch (err) {
    // The loop's end destroys the file stream, whose close is still in flight: waited for, so the
    // refusal leaves nothing of the file open.
    raw.destroy();
    await finished(raw).catch(() => {});
    // zlib's own words ("unexpected end of file") name neither the file nor what to do.
    const code = (err as NodeJS.ErrnoException).code ?? "";
    if (!code.startsWith("Z_")) throw err;
    throw new DumpFileError(
      `${file} is a damaged gzip file (${(err as Error).message}): copy or export it again`,
    );
  }
  try {
    reader.parser.end();
  } catch (err) {
    throw notUtf8Text(err);
  }
  bar.done(`${reader.parser.rows.toLocaleString("en-US")} rows`);
}

async function readTarget(
  d1: ImportD1,
  progress: Progress,
  siteUsers: { has(id: number): boolean },
) {
  const bar = progress.phase(`Reading ${d1.description}`, 1, "queries");
  let rows: TargetRows;
  try {
    rows = await readTargetRows((sqls) => d1.queries(sqls), siteUsers);
  } catch (err) {
    if (!(err instanceof SchemaMissing)) throw err;
    throw new Error(
      `${err.message}\n\nThe database lacks this service's schema or its latest migration: apply the migrations first (${d1.migrateHint}).`,
    );
  }
  bar.done();
  return targetState(rows);
}

async function verify(d1: ImportD1, report: Report, target: Target) {
  const [rows = []] = await d1.queries([
    "SELECT user_id, wallet_id, balance_minor, entry_count FROM balances",
  ]);
  const actual = new Map(rows.map((r) => [`${r.user_id}\t${r.wallet_id}`, r]));
  const problems: string[] = [];
  for (const e of report.expectedBalances) {
    const key = `${e.userId}\t${e.walletId}`;
    if ((target.pairs.get(key)?.foreign ?? 0) > 0) continue; // the service has moved it on since
    const a = actual.get(key);
    if (!a || Number(a.balance_minor) !== e.balanceMinor || Number(a.entry_count) !== e.entries) {
      problems.push(
        `user ${e.userId} ${e.walletId}: expected ${e.entries} entries and a balance of ${e.balanceMinor} in the wallet's smallest units, found ${a ? `${a.entry_count} entries and ${a.balance_minor}` : "nothing"}`,
      );
    }
  }
  return problems;
}

async function main(opts: CliOptions) {
  const started = Date.now();
  const progress = new Progress();
  const dryRun = opts["dry-run"];
  const where = { database: opts.database, persistTo: opts["persist-to"], config: opts.config };
  if (opts.local) {
    // Local state is the developer's own: bring it to the shipped schema first, as `npm run dev` does.
    // A remote database is never migrated behind its operator's back (`npm run db:migrate -- --remote`).
    migrateLocalD1(where);
    console.log("Local D1 migrated.");
  }
  const d1: ImportD1 | null = opts.rehearse
    ? new RemoteD1({ ...where, local: true })
    : opts.local
      ? await LocalD1.open(where)
      : opts.remote
        ? new RemoteD1(where)
        : null;
  try {
    return await run(opts, d1, started, progress, dryRun);
  } catch (err) {
    // Refused before the report is written: an earlier run's report must not stand for this one.
    if (opts.report && nothingWritten(err) !== null)
      writeFileSync(
        opts.report,
        `${JSON.stringify({ refused: true, refusalReasons: [(err as Error).message] }, null, 2)}\n`,
      );
    throw err;
  } finally {
    await d1?.close();
  }
}

/** What a refusal thrown while reading or planning, before any write, adds; null for other errors. */
function nothingWritten(err: unknown) {
  if (err instanceof DamagedDumpError || err instanceof DumpSyntaxError)
    return `Nothing was written.${err.remedy === "" ? "" : ` ${err.remedy}`}`;
  if (
    err instanceof RowTooLongError ||
    err instanceof DumpOptionError ||
    err instanceof DumpFileError
  )
    return "Nothing was written.";
  return null;
}

async function run(
  opts: CliOptions,
  d1: ImportD1 | null,
  started: number,
  progress: Progress,
  dryRun: boolean,
) {
  const importOptions = {
    ...(opts.prefix !== undefined && { prefix: opts.prefix }),
    ...(opts["users-prefix"] !== undefined && { usersPrefix: opts["users-prefix"] }),
    namespace: opts.namespace,
    balances: opts.balances,
    force: opts.force,
    places: opts.places,
  };

  const tmp = mkdtempSync(path.join(opts["tmp-dir"] ?? tmpdir(), "wp-import-"));
  const cleanup = () => rmSync(tmp, { recursive: true, force: true });
  process.on("exit", cleanup);
  // Ctrl-C or SIGTERM ends the import now, its spill folder removed first: planning reads every
  // bucket in one synchronous stretch and the writes run wrangler, so a stop asked for by a flag
  // would wait minutes to be seen. Ended by the signal itself, not process.exit(), which can hang
  // (lib/exit.ts). With --local, Miniflare's own handler (set when the local D1 opened, so before
  // this one) stops its runtime and exits first; the 'exit' handler above removes the folder then.
  for (const signal of ["SIGINT", "SIGTERM"] as const)
    process.on(signal, () => {
      cleanup();
      endBySignal(signal);
    });

  const buckets = new SpillBuckets(path.join(tmp, "buckets"));
  const reader = createReader(importOptions, buckets);
  await readDump(opts.file, reader, progress);
  buckets.finish();
  progress.log(
    `Spilled ${(buckets.bytesOnDisk / (1 << 20)).toFixed(1)} MiB of transaction rows in ${buckets.indexes().length} buckets`,
  );

  const target = d1 ? await readTarget(d1, progress, reader.collector.users) : emptyTarget();

  const writer = new ChunkWriter(path.join(tmp, "sql"), opts.chunkStatements, {
    dryRun,
    format: d1?.format,
  });
  const bars = new Map<string, Phase>();
  const report = planImport({
    collector: reader.collector,
    buckets,
    options: importOptions,
    target,
    nowMs: Date.now(),
    emit: writer.add,
    progress: (label, done, total) => {
      if (!bars.has(label)) bars.set(label, progress.phase(`Planning: ${label}`, total, "buckets"));
      const bar = bars.get(label)!;
      if (done >= total) bar.done(`${writer.count.toLocaleString("en-US")} statements so far`);
      else bar.update(done);
    },
  });
  writer.finish();
  buckets.remove();

  const targetText = d1 ? d1.description : "no database (a fresh one is assumed)";
  console.log(`\n${formatReport(report, { dryRun, target: targetText })}`);
  console.log(
    `  SQL: ${writer.count.toLocaleString("en-US")} statements (${(writer.bytes / (1 << 20)).toFixed(1)} MiB): ${JSON.stringify(writer.byKind)}`,
  );
  if (opts.report)
    writeFileSync(
      opts.report,
      `${JSON.stringify({ ...report, sql: { statements: writer.count, bytes: writer.bytes, byKind: writer.byKind } }, null, 2)}\n`,
    );

  const summary = () =>
    `Took ${((Date.now() - started) / 1000).toFixed(1)} s; peak memory ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MiB (resident set).`;
  if (report.refused && !opts.force) {
    console.log(summary());
    return 1;
  }
  if (dryRun) {
    console.log(`Dry run: nothing written. ${summary()}`);
    return 0;
  }
  if (writer.count === 0) {
    console.log(`Nothing to write: the database holds this site's data already. ${summary()}`);
    return 0;
  }

  if (!d1) throw new Error("nothing to write to"); // --dry-run returned above
  const bar = progress.phase(`Writing to ${d1.description}`, writer.count, "statements");
  let done = 0;
  for (const [i, chunk] of writer.files.entries()) {
    try {
      await d1.executeChunk(chunk.file);
    } catch (err) {
      console.error(
        `\nChunk ${i + 1} of ${writer.files.length} failed; the chunks before it are written, this one is not.`,
      );
      console.error(
        String(err).includes("transactions_import_under_hold")
          ? "The service placed a hold, while this ran, on a wallet this chunk writes to. Running the same command again reports that wallet as a conflict (--force leaves it out and writes the rest)."
          : "Running the same command again continues from where the database stands.",
      );
      console.error((err as Error).message);
      return 1;
    }
    done += chunk.statements;
    bar.update(done, `chunk ${i + 1}/${writer.files.length}`);
  }
  bar.done(`${done.toLocaleString("en-US")} statements in ${writer.files.length} chunks`);

  const problems = await verify(d1, report, target);
  if (problems.length > 0) {
    console.error(
      `Verification: ${problems.length} (user, wallet) balances are not what the import planned:\n  ${problems.slice(0, 20).join("\n  ")}`,
    );
    return 1;
  }
  console.log(
    `Verified: ${report.expectedBalances.length.toLocaleString("en-US")} ${report.expectedBalances.length === 1 ? "balance equals the sum of its" : "balances equal the sum of their"} entries as planned. ${summary()}`,
  );
  return 0;
}

await runMain(() => {
  const opts = options();
  if (!opts) return 0;
  return main(opts).catch((err: unknown) => {
    if (process.env.DEBUG_IMPORT) console.error(err);
    console.error(err instanceof Error ? err.message : err);
    // Read to the end before anything is written: a dump refused while reading left nothing.
    const nothing = nothingWritten(err);
    if (nothing !== null) console.error(nothing);
    return 1;
  });
});
