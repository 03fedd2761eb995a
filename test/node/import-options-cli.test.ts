// `import:wordpress` options an operator can get wrong: each is refused with one line of usage and
// exit 2, before the dump is read or a database touched; a --users-prefix the dump does not hold,
// once it is read.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { offlineEnv } from "../../scripts/lib/wrangler";
import { runScriptAsync } from "./run-script";

const root = mkdtempSync(path.join(tmpdir(), "wallet-import-options-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const dump = path.resolve(import.meta.dirname, "../fixtures/wordpress-dump.sql");
const aFile = path.join(root, "a-file");
writeFileSync(aFile, "");
const aFolder = path.join(root, "a-folder");
mkdirSync(aFolder);

const run = (...flags: string[]) =>
  runScriptAsync("scripts/import-wordpress.ts", [dump, "--dry-run", ...flags], {
    env: offlineEnv(),
  });

describe.concurrent("import:wordpress options", () => {
  it.each([
    [["--chunk-statements", "1e30"], "--chunk-statements is a whole number from 1 to 100000"],
    [
      ["--chunk-statements", "99999999999999999999"],
      "--chunk-statements is a whole number from 1 to 100000",
    ],
    [["--chunk-statements", " 5"], "--chunk-statements is a whole number from 1 to 100000"],
    [["--chunk-statements", "0x10"], "--chunk-statements is a whole number from 1 to 100000"],
    [["--chunk-statements=-5"], "--chunk-statements is a whole number from 1 to 100000"],
    [["--chunk-statements", "100001"], "--chunk-statements is a whole number from 1 to 100000"],
    [
      ["--report", path.join(root, "no-such-folder", "report.json")],
      `--report ${path.join(root, "no-such-folder", "report.json")}: no folder ${path.join(root, "no-such-folder")} to write it in`,
    ],
    [["--report", aFolder], `--report ${aFolder} is a folder: name the JSON file to write`],
    [["--tmp-dir", aFile], `--tmp-dir ${aFile} is not a folder`],
    [
      ["--tmp-dir", path.join(root, "missing")],
      `--tmp-dir ${path.join(root, "missing")} is not a folder`,
    ],
    [["--prefix", "wp-2"], "--prefix may hold letters, digits, _ and $"],
    [["--users-prefix", "wp_;"], "--users-prefix may hold letters, digits, _ and $"],
    [
      ["--local", "--persist-to", aFile],
      `--persist-to ${aFile} is a file: name the folder of the local state`,
    ],
  ])("refuses %j with one line, before reading the dump", async (flags, message) => {
    const result = await run(...flags);
    expect(result.status, result.stdout + result.stderr).toBe(2);
    expect(result.stderr.trim()).toBe(message);
    expect(result.stdout).toBe("");
  });

  it.each([
    [aFolder, `the dump ${aFolder} is a folder: name the dump file in it`],
    [
      "/dev/null",
      "the dump /dev/null is not a file (a pipe or a device): the import reads its first bytes before the rest, so save it to a file first (a .gz is read as it is)",
    ],
  ])("refuses a dump path %s that is no file with what it is", async (dumpPath, message) => {
    const result = await runScriptAsync("scripts/import-wordpress.ts", [dumpPath, "--dry-run"], {
      env: offlineEnv(),
    });
    expect(result.status, result.stdout + result.stderr).toBe(2);
    expect(result.stderr.trim()).toBe(message);
  });

  it("names --users-prefix in the report's first line when it is not the --prefix", async () => {
    // The fixture's users under wp_: the same site read as if its users were the network's.
    const result = await run("--users-prefix", "wp_");
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toContain("WordPress import report — prefix wp_, namespace wallet");
    const network = path.join(root, "network.sql");
    writeFileSync(
      network,
      readFileSync(dump, "utf8")
        .replaceAll("`wp_users`", "`wpx_users`")
        .replaceAll("`wp_usermeta`", "`wpx_usermeta`"),
    );
    const site = await runScriptAsync(
      "scripts/import-wordpress.ts",
      [network, "--dry-run", "--users-prefix", "wpx_"],
      { env: offlineEnv() },
    );
    expect(site.status, site.stderr).toBe(0);
    expect(site.stdout).toContain(
      "WordPress import report — prefix wp_ (users wpx_), namespace wallet",
    );
    expect(site.stdout).toContain("Users: 5 in the dump; 5 would import");
  });

  it("refuses a --users-prefix whose users table the dump does not hold, naming the one it holds", async () => {
    const result = await run("--users-prefix", "wpx_");
    expect(result.status).toBe(1);
    expect(result.stderr.trim().split("\n").slice(-2)).toEqual([
      "the dump holds no rows of wpx_users, which --users-prefix wpx_ names: it holds wp_users, run with --users-prefix wp_",
      "Nothing was written.",
    ]);
  });

  it("takes the largest --chunk-statements and a --report in a folder that exists", async () => {
    const report = path.join(root, "report.json");
    const result = await run("--chunk-statements", "100000", "--report", report);
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toContain("Dry run: nothing written.");
  });
});
