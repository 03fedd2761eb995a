// The local D1 that `wrangler dev`, `npm run serve` and `wrangler d1 execute --local` use
// (.wrangler/state), opened in this process with Miniflare, as wrangler does for `d1 execute
// --local`: the importer writes through it, and `npm run dev` runs its checks and seeds on it before
// it serves. Each `wrangler d1 execute` starts wrangler and a workerd of its own (about 3 s here);
// one Miniflare starts in about 1 s and answers every statement after it.
import path from "node:path";
import { hasDatabase, migrateLocalD1, migrationNames, stateDir } from "./migrate-local";
import { offlineEnv, type RunSql } from "./wrangler";

/** A config's D1 database (its binding or its database_name) and its local state (`--persist-to`). */
export type D1Location = { database?: string; persistTo?: string; config?: string };

/**
 * Miniflare running `script` with the D1 database at `where` bound as DB, over the folder wrangler
 * keeps it in (`persistTo` as wrangler's --persist-to, else .wrangler/state beside the config), and
 * that folder. Loaded when called: a tool that writes to a remote database never loads Miniflare.
 */
export async function localD1Miniflare(
  { database = "DB", persistTo, config }: D1Location,
  script = "export default {}",
) {
  for (const [k, v] of Object.entries(offlineEnv())) process.env[k] ??= v;
  const { unstable_readConfig } = await import("wrangler");
  const { Miniflare, convertV4MiniflareOptions } = await import("miniflare");
  const configPath = path.resolve(config ?? "wrangler.toml");
  const wranglerConfig = unstable_readConfig({ config: configPath });
  const d1 = (wranglerConfig.d1_databases ?? []).find(
    (d: { binding: string; database_name?: string }) =>
      d.binding === database || d.database_name === database,
  );
  if (!d1) throw new Error(`no D1 database ${database} in ${configPath}`);
  const root = path.resolve(stateDir(configPath, persistTo));
  // Miniflare 4's options through the adapter that wrangler's own `d1 execute --local` uses.
  const mf = new Miniflare(
    convertV4MiniflareOptions({
      modules: true,
      script,
      compatibilityDate: wranglerConfig.compatibility_date,
      // wrangler's own local id: a binding without database_id (as shipped) is kept by its name.
      d1Databases: { DB: d1.preview_database_id ?? d1.database_id ?? d1.binding },
      // D1's files under <root>/v3/d1, where wrangler keeps them.
      resourcePersistencePath: path.join(root, "v3"),
    }),
  );
  await mf.ready;
  return { mf, root };
}

export type LocalD1 = { run: RunSql; close: () => Promise<void> };

/** The D1 database at `where`, one statement at a time. */
async function openLocalD1(where: D1Location): Promise<LocalD1> {
  const { mf } = await localD1Miniflare(where);
  try {
    const db = await mf.getD1Database("DB");
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
}: D1Location = {}): Promise<LocalD1> {
  const where = { config, persistTo, database };
  const expected = migrationNames(config, database);
  if (expected && hasDatabase(stateDir(config, persistTo))) {
    const local = await openLocalD1(where);
    const applied = await local
      .run(`SELECT name FROM ${expected.table}`)
      .then((rows) => new Set(rows.map((row) => row.name)))
      .catch(() => undefined); // no such table: a database made by something else
    if (applied && expected.names.every((name) => applied.has(name))) return local;
    await local.close();
  }
  migrateLocalD1(where);
  return openLocalD1(where);
}
