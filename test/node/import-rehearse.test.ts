// The --remote import sends SQL files through `wrangler d1 execute --file`, a path the in-runtime
// import tests never take. `--local --rehearse` sends those same files through wrangler into local
// state: here it must leave exactly the rows the direct --local import leaves, and a second run
// must find nothing to write.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { LocalD1 } from "../../scripts/import/d1";
import { prepareState } from "../../scripts/lib/server";
import { offlineEnv } from "../../scripts/lib/wrangler";
import { runScript, runScriptAsync } from "./run-script";

const root = mkdtempSync(path.join(tmpdir(), "wallet-rehearse-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

// The hand-made site with a note holding words wrangler's file runner edits wherever they stand.
const NOTE = "Paiement reçu — merci 🙏 BEGIN TRANSACTION; COMMIT;";
const handMade = path.join(root, "wordpress-dump.sql");
writeFileSync(
  handMade,
  readFileSync("test/fixtures/wordpress-dump.sql", "utf8").replace(
    "'note','Paiement reçu — merci 🙏'",
    `'note','${NOTE}'`,
  ),
);

// The hand-made site, and the live-shaped one (balances below zero, zero amounts, wallets storing more
// places than they show: the SQL text of each must survive wrangler's splitter and D1's import).
const SITES = [
  { name: "hand-made", dump: handMade, flags: [] },
  {
    name: "live-shaped",
    dump: "test/fixtures/wordpress-real-site-dump.sql",
    flags: ["--prefix", "wpx7_", "--namespace", "rimplenet"],
  },
];

type Site = (typeof SITES)[number];

/** A state folder holding the migrated schema, nothing else (scripts/lib/server.ts prepares it once). */
async function migratedState(name: string) {
  const dir = path.join(root, name);
  await prepareState(dir, { seedAdmin: false });
  return dir;
}

async function importInto(site: Site, dir: string, ...flags: string[]) {
  const result = await runScriptAsync(
    "scripts/import-wordpress.ts",
    [site.dump, "--local", "--persist-to", dir, ...site.flags, ...flags],
    { env: offlineEnv() },
  );
  expect(result.status, `${result.stdout}\n${result.stderr}`).toBe(0);
  return result.stdout;
}

const TABLES = ["users", "wallets", "transactions", "balances"];

/**
 * Each table's rows, read alike from either folder: in one batch, through the local D1 the direct
 * import writes with (Miniflare in this process), which starts sooner than a wrangler call.
 */
async function rows(dir: string) {
  const d1 = await LocalD1.open({ persistTo: dir });
  try {
    const results = await d1.queries(TABLES.map((table) => `SELECT * FROM ${table} ORDER BY 1, 2`));
    return Object.fromEntries(TABLES.map((table, i) => [table, results[i]!]));
  } finally {
    await d1.close();
  }
}

describe("import:wordpress --local --rehearse (the SQL files a --remote import sends)", () => {
  it.each(SITES)(
    "leaves exactly the rows of a direct local import, and a second run writes nothing ($name site)",
    async (site) => {
      // The first site's direct import starts from a state folder nothing has touched: --local
      // applies the pending migrations itself.
      const fresh = site === SITES[0];
      const direct = fresh
        ? path.join(root, `${site.name}-direct`)
        : await migratedState(`${site.name}-direct`);
      const rehearsed = await migratedState(`${site.name}-rehearsed`);
      // The two imports, and then the two reads, touch folders of their own: each pair at once.
      const [report, rehearsal] = await Promise.all([
        importInto(site, direct),
        importInto(site, rehearsed, "--rehearse"),
      ]);
      expect(report).toContain("Verified:");
      if (fresh) expect(report).toContain("Local D1 migrated.");
      expect(rehearsal).toContain("as --remote would");
      const [expected, actual] = await Promise.all([rows(direct), rows(rehearsed)]);
      for (const table of TABLES) {
        expect(expected[table]!.length, table).toBeGreaterThan(0);
        expect(actual[table], table).toEqual(expected[table]);
      }
      if (site === SITES[0]) expect(actual.transactions!.map((t) => t.note)).toContain(NOTE);
      expect(await importInto(site, rehearsed, "--rehearse")).toContain("Nothing to write");
    },
    // Eight wrangler and import processes, most starting the local runtime: over the 120 s default
    // on a loaded 2-core machine.
    300_000,
  );

  it("names a dump that is not there before it touches the local state", () => {
    const untouched = path.join(root, "untouched");
    const result = runScript(
      "scripts/import-wordpress.ts",
      ["test/fixtures/no-such-dump.sql", "--local", "--persist-to", untouched],
      { env: offlineEnv() },
    );
    expect(result.status).toBe(2);
    expect(result.stderr.trim()).toBe("no dump at test/fixtures/no-such-dump.sql: no such file");
    expect(result.stdout).not.toContain("migrated");
    expect(existsSync(untouched)).toBe(false);
  });
});
