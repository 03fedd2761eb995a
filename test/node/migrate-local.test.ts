// The local migrations of `npm run dev`, `npm run serve`, the importer and the test servers: on a
// new database one `d1 execute` of every migration, which must leave exactly what wrangler's own
// `d1 migrations apply` leaves, and hand anything else to `migrations apply`.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, expect, it } from "vitest";
import { migrateLocalD1 } from "../../scripts/lib/migrate-local";
import { runWrangler } from "../../scripts/lib/wrangler";

const root = mkdtempSync(path.join(tmpdir(), "wallet-migrate-local-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** The schema and the records of applied migrations of a local state, as wrangler reads them. */
function schemaAndRecords(args: string[]) {
  const statements =
    "SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name; " +
    "SELECT id, name FROM d1_migrations ORDER BY id";
  const result = runWrangler([
    "d1",
    "execute",
    "DB",
    "--local",
    "--json",
    "--command",
    statements,
    ...args,
  ]);
  expect(result.status, result.stdout + result.stderr).toBe(0);
  const [schema, records] = (JSON.parse(result.stdout) as { results: unknown[] }[]).map(
    (r) => r.results,
  );
  return { schema, records };
}

it("leaves on a new database exactly the schema and records of wrangler's migrations apply", () => {
  const byWrangler = ["--persist-to", path.join(root, "wrangler")];
  const applied = runWrangler(["d1", "migrations", "apply", "DB", "--local", ...byWrangler]);
  expect(applied.status, applied.stdout + applied.stderr).toBe(0);
  const ours = path.join(root, "ours");
  migrateLocalD1({ persistTo: ours });

  const made = schemaAndRecords(["--persist-to", ours]);
  expect(made).toEqual(schemaAndRecords(byWrangler));
  expect(made.records!.length).toBeGreaterThan(25);
  // Again over the database it made: wrangler's migrations apply, which finds nothing pending.
  migrateLocalD1({ persistTo: ours });
  expect(schemaAndRecords(["--persist-to", ours])).toEqual(made);
}, 300_000);

it("hands a migration the one batch refuses to migrations apply, which names it", () => {
  const project = path.join(root, "broken");
  mkdirSync(path.join(project, "migrations"), { recursive: true });
  writeFileSync(
    path.join(project, "wrangler.toml"),
    'name = "broken"\ncompatibility_date = "2025-01-01"\n\n[[d1_databases]]\nbinding = "DB"\ndatabase_name = "broken"\n',
  );
  writeFileSync(path.join(project, "migrations/0000_first.sql"), "CREATE TABLE first (x);");
  writeFileSync(path.join(project, "migrations/0001_second.sql"), "CREATE TABLE first (y);");
  const config = path.join(project, "wrangler.toml");

  expect(() => migrateLocalD1({ config })).toThrow(/0001_second\.sql[\s\S]*already exists/);
  // What wrangler applies one at a time, it keeps: the first migration, not the second.
  expect(schemaAndRecords(["--config", config]).records).toEqual([
    { id: 1, name: "0000_first.sql" },
  ]);
}, 300_000);
