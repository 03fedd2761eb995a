// startServer (scripts/lib/server.ts), which the benches, the reliability, clients and browser
// suites start their servers with: a `wrangler dev` that exits at once (a port taken between the
// probe and the bind) is started again on other ports, and what the call made for it is removed
// when it gives up. Wrangler here is a stand-in that makes its first `dev` runs exit, then hands
// every command to the real one.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, expect, it } from "vitest";

const ROOT = path.resolve(import.meta.dirname, "../..");
const work = mkdtempSync(path.join(tmpdir(), "wallet-start-server-"));
const log = path.join(work, "dev-runs.log");
const require = createRequire(import.meta.url);
const wranglerPackage = require.resolve("wrangler/package.json");
const real = path.join(
  path.dirname(wranglerPackage),
  (require(wranglerPackage) as { bin: { wrangler: string } }).bin.wrangler,
);
const stub = path.join(work, "wrangler.mjs");
writeFileSync(
  stub,
  `import { spawnSync } from "node:child_process";
import { appendFileSync, existsSync, readFileSync } from "node:fs";
const args = process.argv.slice(2);
if (args[0] === "dev") {
  const runs = existsSync(${JSON.stringify(log)}) ? readFileSync(${JSON.stringify(log)}, "utf8").split("\\n").length - 1 : 0;
  appendFileSync(${JSON.stringify(log)}, JSON.stringify(args) + "\\n");
  // As wrangler dev on a port taken since it was probed: it exits at once (its "Address already
  // in use" is left unsaid here, for the server's stderr is the test run's own).
  if (runs < Number(process.env.FAIL_DEV_RUNS)) process.exitCode = 1;
}
if (process.exitCode !== 1)
  process.exitCode = spawnSync(process.execPath, [${JSON.stringify(real)}, ...args], { stdio: "inherit" }).status ?? 1;
`,
);
// The module reads WRANGLER_BIN when it loads: set first, imported after.
process.env.WRANGLER_BIN = stub;
const { startServer } = await import("../../scripts/lib/server");

afterAll(() => rmSync(work, { recursive: true, force: true }));

/** The `dev` command lines the stand-in saw since the last call, as argument lists. */
function devRuns() {
  if (!existsSync(log)) return [];
  const runs = readFileSync(log, "utf8")
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as string[]);
  rmSync(log);
  return runs;
}
const option = (args: string[], name: string) => args[args.indexOf(name) + 1];
/** The config copies startServer makes beside wrangler.toml (wrangler.load-<pid>-<n>.toml). */
const configCopies = () =>
  readdirSync(ROOT).filter((name) => name.startsWith(`wrangler.load-${process.pid}-`));

it("starts wrangler dev again on other ports when it exits at once, its config copy kept for the next", async () => {
  process.env.FAIL_DEV_RUNS = "2";
  const stateDir = path.join(work, "kept");
  const server = await startServer({ persistTo: stateDir });
  try {
    expect((await fetch(`${server.base}/wp-json/`)).status).toBe(200);
    const runs = devRuns();
    expect(runs).toHaveLength(3);
    // Each run its own port and inspector port (wrangler's default 9229 is not left to chance).
    expect(new Set(runs.map((args) => option(args, "--port"))).size).toBe(3);
    expect(new Set(runs.map((args) => option(args, "--inspector-port"))).size).toBe(3);
    expect(runs.every((args) => existsSync(path.resolve(ROOT, option(args, "--config")!)))).toBe(
      true,
    );
  } finally {
    await server.stop();
  }
  expect(configCopies()).toEqual([]);
  expect(existsSync(path.join(stateDir, "v3", "d1")), "a state the caller named is kept").toBe(
    true,
  );
}, 180_000);

it("gives up after three runs that exit, leaving no config copy or temporary state behind", async () => {
  process.env.FAIL_DEV_RUNS = "3";
  // Its temporary state in a folder of this test's own: the system's /tmp also holds the states of
  // servers other test files start and stop meanwhile.
  const ownTmp = mkdtempSync(path.join(work, "tmp-"));
  const systemTmp = process.env.TMPDIR;
  process.env.TMPDIR = ownTmp;
  try {
    await expect(startServer()).rejects.toThrow("the server exited with 1");
  } finally {
    if (systemTmp === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = systemTmp;
  }
  expect(devRuns()).toHaveLength(3);
  expect(configCopies()).toEqual([]);
  expect(readdirSync(ownTmp).filter((name) => name.startsWith("wallet-state-"))).toEqual([]);
}, 180_000);
