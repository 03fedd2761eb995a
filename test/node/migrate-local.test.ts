// The local migrations of `npm run dev`, `npm run serve`, the importer and the test servers: on a
// new database one `d1 execute` of every migration, which must leave exactly what wrangler's own
// `d1 migrations apply` leaves, and hand anything else to `migrations apply`.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, expect, it } from "vitest";
import { migrateLocalD1 } from "../../scripts/lib/migrate-local";
import { offlineEnv, runWrangler, WRANGLER } from "../../scripts/lib/wrangler";

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

it("leaves on a new database exactly the schema and records of wrangler's migrations apply", async () => {
  const byWrangler = ["--persist-to", path.join(root, "wrangler")];
  // wrangler's own way in a process beside this one's (it starts a runtime per migration).
  const applying = new Promise<{ status: number | null; output: string }>((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [WRANGLER, "d1", "migrations", "apply", "DB", "--local", ...byWrangler],
      { env: offlineEnv(), stdio: ["ignore", "pipe", "pipe"] },
    );
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk));
    child.on("error", reject);
    child.on("close", (status) => resolve({ status, output }));
  });
  const ours = path.join(root, "ours");
  migrateLocalD1({ persistTo: ours });
  const applied = await applying;
  expect(applied.status, applied.output).toBe(0);

  const made = schemaAndRecords(["--persist-to", ours]);
  expect(made).toEqual(schemaAndRecords(byWrangler));
  expect(made.records!.length).toBeGreaterThan(25);
  // Over the database it made, wrangler's own command finds nothing pending.
  const again = runWrangler(["d1", "migrations", "apply", "DB", "--local", "--persist-to", ours]);
  expect(again.stdout).toContain("No migrations to apply");
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

  // The message is migrations apply's: the one batch's failure is not shown.
  expect(() => migrateLocalD1({ config })).toThrow(/0001_second\.sql[\s\S]*already exists/);
}, 300_000);

it("writes its one file beside the project in .wrangler/tmp, and removes it, never in /tmp", () => {
  // A process stopped while wrangler runs (Ctrl-C reaches the group) cannot remove the file; left
  // in the project's .wrangler it is the project's own, not litter in the system's /tmp.
  const project = path.join(root, "beside");
  mkdirSync(path.join(project, "migrations"), { recursive: true });
  writeFileSync(
    path.join(project, "wrangler.toml"),
    'name = "beside"\ncompatibility_date = "2025-01-01"\n\n[[d1_databases]]\nbinding = "DB"\ndatabase_name = "beside"\n',
  );
  writeFileSync(path.join(project, "migrations/0000_first.sql"), "CREATE TABLE first (x);");
  const stateFile = path.join(project, "stub-state.json");
  writeFileSync(stateFile, JSON.stringify({ commands: [] }));
  // The stand-in wrangler records each command and refuses both: the file's path is what is read.
  const tool = new URL("../../scripts/lib/migrate-local.ts", import.meta.url).href;
  const run = spawnSync(
    process.execPath,
    [
      "--import",
      "tsx",
      "--input-type=module",
      "-e",
      `import { migrateLocalD1 } from ${JSON.stringify(tool)};
       try { migrateLocalD1({ config: ${JSON.stringify(path.join(project, "wrangler.toml"))} }); } catch {}`,
    ],
    {
      encoding: "utf8",
      env: {
        ...process.env,
        WRANGLER_BIN: new URL("./stub-wrangler.mjs", import.meta.url).pathname,
        STUB_WRANGLER_STATE: stateFile,
      },
    },
  );
  const { commands } = JSON.parse(readFileSync(stateFile, "utf8")) as { commands: string[] };
  const file = commands
    .map((c) => c.match(/ --file (\S+)/)?.[1])
    .find((f): f is string => f !== undefined);
  expect(file, run.stderr + commands.join("\n")).toMatch(
    new RegExp(`^${path.join(project, ".wrangler", "tmp")}/migrations-[^/]+/migrations\\.sql$`),
  );
  expect(existsSync(path.dirname(file!))).toBe(false);
}, 60_000);
