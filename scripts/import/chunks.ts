// The import's SQL in numbered chunk files, written while planning and run in order afterwards: each
// chunk is one D1 batch locally (its file read whole into one string) and one `wrangler d1 execute
// --file` remotely.
import { closeSync, mkdirSync, openSync, writeSync } from "node:fs";
import path from "node:path";
import type { ImportD1 } from "./d1";
import type { StatementKind } from "./plan/context";

/**
 * A chunk's most bytes: far within the longest string Node holds (512 MiB), which a local chunk's
 * file is read into. At the default 20,000 statements a chunk is about 40 MiB; a statement is at
 * most 100 KB (D1_STATEMENT_MAX_BYTES), so a chunk of long ones ends here first.
 */
const MAX_CHUNK_BYTES = 256 * 1024 * 1024;

/**
 * SQL statements into numbered files of at most `maxStatements` statements and `maxBytes` bytes
 * (nothing written in a dry run): plain SQL for the remote database, one JSON-encoded statement a
 * line for local state.
 */
export class ChunkWriter {
  readonly files: { file: string; statements: number }[] = [];
  count = 0;
  bytes = 0;
  private inChunk = 0;
  private chunkBytes = 0;
  private fd: number | null = null;
  readonly byKind: Partial<Record<StatementKind, number>> = {};
  private readonly dryRun: boolean;
  private readonly format: ImportD1["format"];
  private readonly maxBytes: number;

  constructor(
    private readonly dir: string,
    private readonly maxStatements: number,
    {
      dryRun = false,
      format = "sql",
      maxBytes = MAX_CHUNK_BYTES,
    }: { dryRun?: boolean; format?: ImportD1["format"]; maxBytes?: number } = {},
  ) {
    this.dryRun = dryRun;
    this.format = format;
    this.maxBytes = maxBytes;
    if (!dryRun) mkdirSync(dir, { recursive: true });
  }

  add = (sql: string, kind: StatementKind) => {
    this.count++;
    this.byKind[kind] = (this.byKind[kind] ?? 0) + 1;
    const line = this.format === "jsonl" ? `${JSON.stringify(sql)}\n` : `${sql}\n`;
    const size = Buffer.byteLength(line);
    this.bytes += size;
    if (this.dryRun) return;
    const full = this.inChunk >= this.maxStatements || this.chunkBytes + size > this.maxBytes;
    if (this.fd === null || (full && this.inChunk > 0)) this.rotate();
    writeSync(this.fd!, line);
    this.inChunk++;
    this.chunkBytes += size;
    this.files.at(-1)!.statements++;
  };

  private rotate() {
    if (this.fd !== null) closeSync(this.fd);
    const file = path.join(
      this.dir,
      `chunk-${String(this.files.length + 1).padStart(5, "0")}.${this.format}`,
    );
    this.fd = openSync(file, "w");
    this.files.push({ file, statements: 0 });
    this.inChunk = 0;
    this.chunkBytes = 0;
  }

  finish() {
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
  }
}
