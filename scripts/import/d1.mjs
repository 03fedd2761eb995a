// The import's access to the service's D1 database.
// - Local state: the same local D1 that `wrangler dev` and `wrangler d1 execute --local` use, opened
//   in this process with Miniflare (as wrangler does for d1 execute --local), with a small Worker
//   that runs each chunk of statements as one D1 batch inside the runtime: no SQL splitting and no
//   wrangler start-up per chunk.
// - The remote database: `wrangler d1 execute --remote --file`, which uploads each chunk to D1's
//   import API. `--local --rehearse` sends the same files through `wrangler d1 execute --local`.
// Offline apart from that: no telemetry, no account look-ups, no update check.
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { offlineEnv, WRANGLER } from "../lib/wrangler.mjs";

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

export class LocalD1 {
  /** `persistTo` as wrangler's --persist-to (the folder holding v3/), default .wrangler/state beside the config. */
  static async open({ database = "DB", persistTo, config }) {
    for (const [k, v] of Object.entries(offlineEnv())) process.env[k] ??= v;
    const { unstable_readConfig } = await import("wrangler");
    const { Miniflare } = await import("miniflare");
    const configPath = path.resolve(config ?? "wrangler.toml");
    const wranglerConfig = unstable_readConfig({ config: configPath });
    const d1 = (wranglerConfig.d1_databases ?? []).find(
      (d) => d.binding === database || d.database_name === database,
    );
    if (!d1) throw new Error(`no D1 database ${database} in ${configPath}`);
    const root = path.resolve(
      persistTo ?? path.join(path.dirname(configPath), ".wrangler", "state"),
    );
    const mf = new Miniflare({
      modules: true,
      script: BATCH_WORKER,
      compatibilityDate: wranglerConfig.compatibility_date,
      d1Databases: { DB: d1.preview_database_id ?? d1.database_id },
      d1Persist: path.join(root, "v3", "d1"),
    });
    await mf.ready;
    return new LocalD1(mf, `local D1 database ${database} (${root})`, database, persistTo);
  }

  constructor(mf, description, database, persistTo) {
    this.mf = mf;
    this.description = description;
    this.migrateHint = `npx wrangler d1 migrations apply ${database} --local${persistTo ? ` --persist-to ${persistTo}` : ""}`;
    this.format = "jsonl";
  }

  async batch(statements) {
    const res = await this.mf.dispatchFetch("http://import.local/", {
      method: "POST",
      body: JSON.stringify(statements),
    });
    const answer = await res.json();
    if (!answer.ok) throw new Error(answer.error);
    return answer.results;
  }

  queries(sqls) {
    return this.batch(sqls);
  }

  /** A chunk file of JSON-encoded statements, run as one batch: all of it or none. */
  async executeChunk(file) {
    const statements = readFileSync(file, "utf8")
      .split("\n")
      .filter((line) => line.length > 0)
      .map((line) => JSON.parse(line));
    await this.batch(statements);
  }

  async close() {
    await this.mf.dispose();
  }
}

/** D1 through `wrangler d1 execute`: the remote database, or (`local`) local state the same way. */
export class RemoteD1 {
  constructor({ database = "DB", config, local = false, persistTo }) {
    this.database = database;
    const where = local
      ? ["--local", ...(persistTo ? ["--persist-to", persistTo] : [])]
      : ["--remote"];
    this.extra = [...where, ...(config ? ["--config", config] : [])];
    this.description = `${local ? "local (through wrangler, as --remote would)" : "remote"} D1 database ${database}`;
    this.migrateHint = `npx wrangler d1 migrations apply ${database} ${where.join(" ")}`;
    this.format = "sql";
  }

  run(args) {
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

  async queries(sqls) {
    const out = this.run([
      "--json",
      "--command",
      sqls.map((sql) => sql.replace(/\s+/g, " ").trim()).join("; "),
    ]);
    const parsed = JSON.parse(out.slice(out.indexOf("[")));
    if (parsed.length !== sqls.length)
      throw new Error(`expected ${sqls.length} results from wrangler, got ${parsed.length}`);
    return parsed.map((r) => r.results ?? []);
  }

  /** A chunk file of SQL, uploaded through D1's import API. */
  async executeChunk(file) {
    this.run(["--yes", "--file", file]);
  }

  async close() {}
}
