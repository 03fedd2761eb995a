// `import:wordpress` options an operator can get wrong: each is refused with one line of usage and
// exit 2, before the dump is read or a database touched.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { offlineEnv } from "../../scripts/lib/wrangler";
import { runScript } from "./run-script";

const root = mkdtempSync(path.join(tmpdir(), "wallet-import-options-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const dump = path.resolve(import.meta.dirname, "../fixtures/wordpress-dump.sql");
const aFile = path.join(root, "a-file");
writeFileSync(aFile, "");
const aFolder = path.join(root, "a-folder");
mkdirSync(aFolder);

const run = (...flags: string[]) =>
  runScript("scripts/import-wordpress.ts", [dump, "--dry-run", ...flags], { env: offlineEnv() });

describe("import:wordpress options", () => {
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
    [
      ["--local", "--persist-to", aFile],
      `--persist-to ${aFile} is a file: name the folder of the local state`,
    ],
  ])("refuses %j with one line, before reading the dump", (flags, message) => {
    const result = run(...flags);
    expect(result.status, result.stdout + result.stderr).toBe(2);
    expect(result.stderr.trim()).toBe(message);
    expect(result.stdout).toBe("");
  });

  it("takes the largest --chunk-statements and a --report in a folder that exists", () => {
    const report = path.join(root, "report.json");
    const result = run("--chunk-statements", "100000", "--report", report);
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toContain("Dry run: nothing written.");
  });
});
