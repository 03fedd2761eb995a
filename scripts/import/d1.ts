// The import's access to the service's D1 database.
// - Local state: the same local D1 that `wrangler dev` and `wrangler d1 execute --local` use, opened
//   in this process with Miniflare (lib/local-d1.ts, as wrangler does for d1 execute --local), with a small Worker
//   that runs each chunk of statements as one D1 batch inside the runtime: no SQL splitting and no
//   wrangler start-up per chunk.
// - The remote database: `wrangler d1 execute --remote --file`, which uploads each chunk to D1's
//   import API. `--local --rehearse` sends the same files through `wrangler d1 execute --local`.
// Nothing sent beyond that: no telemetry, no fetch of Request.cf's data, no update check.
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import type { Miniflare } from "miniflare";
import { type D1Location, localD1Miniflare } from "../lib/local-d1";
import { offlineEnv, WRANGLER } from "../lib/wrangler";
import type { Row } from "./target";

// Runs a list of statements as one batch (all or nothing) and answers each statement's rows.
const BATCH_WORKER = `export default {
  async fetch(request, env) {
    const statements = await request.json();
    try {
      const results = await env.DB.batch(statements.map((sql) => env.DB.prepare(sql)));
      return Response.json({ ok: true, results: results.map((r) => r.results ?? []) });
    } catch (err) {
      return Response.json({ ok: false, error: String(err?.cause?.message ?? err?.message ?? err) });
    }
  },
};`;

/** Where an import reads and writes: local state through Miniflare, or D1 through wrangler. */
export interface ImportD1 {
  description: string;
  /** The command that applies the migrations to this database. */
  migrateHint: string;
  /** How executeChunk wants its files: one JSON-encoded statement a line, or plain SQL. */
  format: "jsonl" | "sql";
  queries(sqls: string[]): Promise<Row[][]>;
  executeChunk(file: string): Promise<void>;
  close(): Promise<void>;
}

export class LocalD1 implements ImportD1 {
  readonly migrateHint: string;
  readonly format = "jsonl" as const;

  static async open(where: D1Location) {
    const { mf, root } = await localD1Miniflare(where, BATCH_WORKER);
    return new LocalD1(
      mf,
      `local D1 database ${where.database ?? "DB"} (${root})`,
      where.persistTo,
    );
  }

  private constructor(
    private readonly mf: Miniflare,
    readonly description: string,
    persistTo: string | undefined,
  ) {
    this.migrateHint = `npm run db:migrate -- --local${persistTo ? ` --persist-to ${persistTo}` : ""}`;
  }

  private async batch(statements: string[]) {
    const body = JSON.stringify(statements);
    const send = () => this.mf.dispatchFetch("http://import.local/", { method: "POST", body });
    // The runtime closes a connection idle for about 15 s. While this process plans, its event loop
    // is busy for longer and does not see the close, so the next request meets a closed socket. It
    // goes again on a new connection: every statement of an import writes nothing twice (a second
    // run adds nothing), so a batch that ran before the close is harmless to repeat.
    const res = await send().catch((err: unknown) => {
      if (!closedConnection(err)) throw err;
      return send();
    });
    const answer = (await res.json()) as
      | { ok: true; results: Row[][] }
      | { ok: false; error: string };
    if (!answer.ok) throw new Error(answer.error);
    return answer.results;
  }

  queries(sqls: string[]) {
    return this.batch(sqls);
  }

  /** A chunk file of JSON-encoded statements, run as one batch: all of it or none. */
  async executeChunk(file: string) {
    const statements = readFileSync(file, "utf8")
      .split("\n")
      .filter((line) => line.length > 0)
      .map((line) => JSON.parse(line) as string);
    await this.batch(statements);
  }

  async close() {
    await this.mf.dispose();
  }
}

/** undici's `fetch failed` on a connection the other side had closed. */
function closedConnection(err: unknown) {
  const code = (err as { cause?: { code?: string } })?.cause?.code;
  return code === "UND_ERR_SOCKET" || code === "EPIPE" || code === "ECONNRESET";
}

/** D1 through `wrangler d1 execute`: the remote database, or (`local`) local state the same way. */
export class RemoteD1 implements ImportD1 {
  private readonly database: string;
  private readonly extra: string[];
  readonly description: string;
  readonly migrateHint: string;
  readonly format = "sql" as const;

  constructor({
    database = "DB",
    config,
    local = false,
    persistTo,
  }: D1Location & { local?: boolean }) {
    this.database = database;
    const where = local
      ? ["--local", ...(persistTo ? ["--persist-to", persistTo] : [])]
      : ["--remote"];
    this.extra = [...where, ...(config ? ["--config", config] : [])];
    this.description = `${local ? "local (through wrangler, as --remote would)" : "remote"} D1 database ${database}`;
    this.migrateHint = `npm run db:migrate -- ${where.join(" ")}`;
  }

  private run(args: string[]) {
    const result = spawnSync(
      process.execPath,
      [WRANGLER, "d1", "execute", this.database, ...this.extra, ...args],
      {
        env: offlineEnv(),
        encoding: "utf8",
        maxBuffer: 1 << 30,
      },
    );
    if (result.status !== 0) {
      const output = `${result.stdout ?? ""}\n${result.stderr ?? ""}`.trim();
      throw new Error(`wrangler d1 execute failed:\n${output.split("\n").slice(-30).join("\n")}`);
    }
    return result.stdout;
  }

  /**
   * Read-only queries, so a failed call is tried once more: wrangler's local runtime has been seen
   * to fail a call outright under load ("false == true"), and a remote call can meet a network
   * error; a real error (a missing table) fails twice and is reported.
   */
  async queries(sqls: string[]) {
    const args = [
      "--json",
      "--command",
      sqls.map((sql) => sql.replace(/\s+/g, " ").trim()).join("; "),
    ];
    let out: string;
    try {
      out = this.run(args);
    } catch {
      out = this.run(args);
    }
    const parsed = JSON.parse(out.slice(out.indexOf("["))) as { results?: Row[] }[];
    if (parsed.length !== sqls.length)
      throw new Error(`expected ${sqls.length} results from wrangler, got ${parsed.length}`);
    return parsed.map((r) => r.results ?? []);
  }

  /** A chunk file of SQL, uploaded through D1's import API. */
  async executeChunk(file: string) {
    this.run(["--yes", "--file", file]);
  }

  async close() {}
}
