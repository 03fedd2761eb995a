// The --remote import sends SQL files through `wrangler d1 execute --file`, a path the in-runtime
// import tests never take. `--local --rehearse` sends those same files through wrangler into local
// state: here it must leave exactly the rows the direct --local import leaves, and a second run
// must find nothing to write.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { offlineEnv, wrangler } from "../../scripts/lib/wrangler";

// The hand-made site, and the live-shaped one (balances below zero, zero amounts, wallets storing more
// places than they show: the SQL text of each must survive wrangler's splitter and D1's import).
const SITES = [
  { name: "hand-made", dump: "test/fixtures/wordpress-dump.sql", flags: [] },
  {
    name: "live-shaped",
    dump: "test/fixtures/wordpress-real-site-dump.sql",
    flags: ["--prefix", "wpx7_", "--namespace", "rimplenet"],
  },
];
const root = mkdtempSync(path.join(tmpdir(), "wallet-rehearse-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

type Site = (typeof SITES)[number];

function migratedState(name: string) {
  const dir = path.join(root, name);
  wrangler(["d1", "migrations", "apply", "DB", "--local", "--persist-to", dir], { quiet: true });
  return dir;
}

const TSX = path.resolve("node_modules/.bin/tsx");

function importInto(site: Site, dir: string, ...flags: string[]) {
  const result = spawnSync(
    TSX,
    [
      "scripts/import-wordpress.ts",
      site.dump,
      "--local",
      "--persist-to",
      dir,
      ...site.flags,
      ...flags,
    ],
    {
      env: offlineEnv(),
      encoding: "utf8",
    },
  );
  expect(result.status, `${result.stdout}\n${result.stderr}`).toBe(0);
  return result.stdout;
}

function rows(dir: string, table: string) {
  const out = wrangler(
    [
      "d1",
      "execute",
      "DB",
      "--local",
      "--persist-to",
      dir,
      "--json",
      "--command",
      `SELECT * FROM ${table} ORDER BY 1, 2`,
    ],
    { quiet: true },
  );
  return (JSON.parse(out.slice(out.indexOf("["))) as { results: unknown[] }[])[0]!.results;
}

describe("import:wordpress --local --rehearse (the SQL files a --remote import sends)", () => {
  it.each(SITES)(
    "leaves exactly the rows of a direct local import, and a second run writes nothing ($name site)",
    (site) => {
      const direct = migratedState(`${site.name}-direct`);
      const rehearsed = migratedState(`${site.name}-rehearsed`);
      expect(importInto(site, direct)).toContain("Verified:");
      expect(importInto(site, rehearsed, "--rehearse")).toContain("as --remote would");
      for (const table of ["users", "wallets", "transactions", "balances"]) {
        const expected = rows(direct, table);
        expect(expected.length, table).toBeGreaterThan(0);
        expect(rows(rehearsed, table), table).toEqual(expected);
      }
      expect(importInto(site, rehearsed, "--rehearse")).toContain("Nothing to write");
    },
    // 13 wrangler and import processes: 149 s each on a 2-core machine at load 10, over the 120 s default.
    300_000,
  );

  it("--local applies pending migrations itself, so a fresh state folder imports", () => {
    const fresh = path.join(root, "fresh");
    const out = importInto(SITES[0]!, fresh);
    expect(out).toContain("Local D1 migrated.");
    expect(rows(fresh, "users").length).toBeGreaterThan(0);
  });
});
