// Brings a local D1 to the shipped schema, leaving what `wrangler d1 migrations apply --local` leaves.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { runWrangler, wrangler } from "./wrangler";
import { readD1 } from "./wrangler-toml";

/**
 * Applies `database`'s pending migrations to its local state (`--persist-to` when given, else the
 * config's own .wrangler/state). `migrations apply` starts wrangler's local runtime once per
 * migration: about 20 s for thirty here on a database not made yet. There, the same statements, each
 * migration followed by the row wrangler records for it, go to one `d1 execute --file` instead: one
 * runtime and one transaction, so a failure leaves the database as it found it and then
 * `migrations apply` runs and says what failed. A database already there (or a config with its own
 * migrations_pattern) goes through `migrations apply` itself, which finds what is pending.
 */
export function migrateLocalD1({
  database = "DB",
  config,
  persistTo,
}: {
  database?: string;
  config?: string;
  persistTo?: string;
}) {
  const configFile = config ?? "wrangler.toml";
  const state = [
    ...(persistTo ? ["--persist-to", persistTo] : []),
    ...(config ? ["--config", config] : []),
  ];
  const fresh = !hasDatabase(stateDir(configFile, persistTo));
  const all = fresh ? allMigrations(configFile, database) : undefined;
  if (all) {
    // Beside the config, in .wrangler/tmp as wrangler's own files: a process stopped while wrangler
    // runs (Ctrl-C reaches the whole group) leaves it in the project, never in the system's /tmp.
    const tmp = join(dirname(resolve(configFile)), ".wrangler", "tmp");
    mkdirSync(tmp, { recursive: true });
    const folder = mkdtempSync(join(tmp, "migrations-"));
    try {
      const file = join(folder, "migrations.sql");
      writeFileSync(file, all);
      if (
        runWrangler(["d1", "execute", database, "--local", "--file", file, ...state]).status === 0
      )
        return;
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  }
  wrangler(["d1", "migrations", "apply", database, "--local", ...state], { quiet: true });
}

/** The local state folder: `--persist-to`'s, else the config's own .wrangler/state. */
export const stateDir = (configFile: string, persistTo?: string) =>
  persistTo ?? join(dirname(resolve(configFile)), ".wrangler", "state");

/** Whether a local state folder holds any D1 database yet. */
export function hasDatabase(stateDir: string) {
  try {
    return readdirSync(join(stateDir, "v3", "d1"), { recursive: true }).some((name) =>
      String(name).endsWith(".sqlite"),
    );
  } catch {
    return false;
  }
}

/**
 * The migrations wrangler applies, in its order (by leading number), and the table that records
 * them (quoted). Undefined where the config is not one this reads as wrangler does (a database
 * named by its name, not its binding; a migrations_pattern of its own).
 */
export function migrationNames(configFile: string, database: string) {
  let text: string;
  try {
    text = readFileSync(configFile, "utf8");
  } catch {
    return undefined;
  }
  const d1 = readD1(text, database);
  if (!d1 || d1.migrationsPattern !== undefined) return undefined;
  const folder = join(dirname(resolve(configFile)), d1.migrationsDir);
  const number = (name: string) => Number.parseInt(name, 10);
  const names = readdirSync(folder)
    .filter((name) => name.endsWith(".sql"))
    .sort((a, b) => number(a) - number(b) || (a < b ? -1 : a > b ? 1 : 0));
  return { folder, names, table: `"${d1.migrationsTable.replace(/"/g, '""')}"` };
}

/**
 * Every migration as `migrations apply` runs it on an empty database: its table first, then each
 * file followed by the INSERT that records it.
 */
function allMigrations(configFile: string, database: string) {
  const migrations = migrationNames(configFile, database);
  if (!migrations) return undefined;
  const { folder, names, table } = migrations;
  return [
    `CREATE TABLE IF NOT EXISTS ${table}(
		id         INTEGER PRIMARY KEY AUTOINCREMENT,
		name       TEXT UNIQUE,
		applied_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP NOT NULL
);`,
    ...names.map(
      (name) =>
        `${readFileSync(join(folder, name), "utf8")}\nINSERT INTO ${table} (name)\nvalues ('${name.replace(/'/g, "''")}');`,
    ),
  ].join("\n");
}
