// The local D1 that `wrangler dev` and `npm run serve` read (.wrangler/state), opened once in this
// process for the statements `npm run dev` runs before it serves. Each `wrangler d1 execute` starts
// wrangler and a workerd of its own (about 3 s here); one Miniflare with the config's D1 binding and
// nothing else starts in about 1 s and answers every statement after it.
import { join } from "node:path";
import { convertV4MiniflareOptions, Miniflare, type V4WorkerOptions } from "miniflare";
import { unstable_getMiniflareWorkerOptions } from "wrangler";
import { hasDatabase, migrateLocalD1, migrationNames, stateDir } from "./migrate-local";
import type { RunSql } from "./wrangler";

export type LocalD1 = { run: RunSql; close: () => Promise<void> };

/**
 * The config's D1 `database` under `persist` (wrangler's `--persist-to`), as wrangler names it
 * there: its options come from wrangler itself, so this opens the file `wrangler dev` serves.
 */
async function openLocalD1(config: string, persist: string, database: string): Promise<LocalD1> {
  // Reading the options reads .dev.vars and says so; `wrangler dev` says it again when it starts.
  const level = process.env.WRANGLER_LOG;
  process.env.WRANGLER_LOG = "warn";
  let options: ReturnType<typeof unstable_getMiniflareWorkerOptions>;
  try {
    options = unstable_getMiniflareWorkerOptions(config);
  } finally {
    if (level === undefined) delete process.env.WRANGLER_LOG;
    else process.env.WRANGLER_LOG = level;
  }
  const { compatibilityDate, d1Databases } = options.workerOptions as V4WorkerOptions;
  const mf = new Miniflare(
    convertV4MiniflareOptions({
      resourcePersistencePath: join(persist, "v3"),
      workers: [
        {
          name: "local-d1",
          modules: true,
          script: "export default {}",
          compatibilityDate,
          d1Databases,
        },
      ],
    }),
  );
  try {
    const db = await mf.getD1Database(database);
    return {
      run: async (sql) => (await db.prepare(sql).all<Record<string, unknown>>()).results,
      close: () => mf.dispose(),
    };
  } catch (error) {
    await mf.dispose();
    throw error;
  }
}

/**
 * The local D1 (the config's `database`, under `persistTo` as wrangler's `--persist-to`, else the
 * config's own .wrangler/state), every shipped migration applied. A database not made yet, or one
 * with migrations pending, goes through `migrateLocalD1` first (one run for a new one; wrangler's
 * own `migrations apply` for pending ones, which says what failed); one that has them all is only
 * opened.
 */
export async function migratedLocalD1({
  config = "wrangler.toml",
  persistTo,
  database = "DB",
}: {
  config?: string;
  persistTo?: string;
  database?: string;
} = {}): Promise<LocalD1> {
  const persist = stateDir(config, persistTo);
  const expected = migrationNames(config, database);
  if (expected && hasDatabase(persist)) {
    const local = await openLocalD1(config, persist, database);
    const applied = await local
      .run(`SELECT name FROM ${expected.table}`)
      .then((rows) => new Set(rows.map((row) => row.name)))
      .catch(() => undefined); // no such table: a database made by something else
    if (applied && expected.names.every((name) => applied.has(name))) return local;
    await local.close();
  }
  migrateLocalD1({ database, config, persistTo });
  return openLocalD1(config, persist, database);
}
