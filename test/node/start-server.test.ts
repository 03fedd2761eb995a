// startServer (scripts/lib/server.ts), which the benches, the reliability, clients and browser
// suites start their servers with: a `wrangler dev` that exits at once (a port taken between the
// probe and the bind) is started again on other ports, and what the call made for it is removed
// when it gives up; the server's vars, its token secret among them, are not on its command line,
// and a developer's `.dev.vars` does not reach it; `stop()` returns once none of its processes runs.
// Wrangler here is a stand-in that records its `dev` command lines and makes the first ones exit,
// then hands every command to the real one.
import { execFileSync } from "node:child_process";
import { createHmac, randomBytes } from "node:crypto";
import {
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
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
const { adminAuth, prepareState, startServer } = await import("../../scripts/lib/server");

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
/** The processes of group `pgid` that still run ("pid state"), zombies left out: they write nothing. */
const runningInGroup = (pgid: number) =>
  execFileSync("ps", ["-e", "-o", "pgid=,stat=,pid="], { encoding: "utf8" })
    .trim()
    .split("\n")
    .map((line) => line.trim().split(/\s+/))
    .filter(([group, stat]) => Number(group) === pgid && !stat!.startsWith("Z"))
    .map(([, stat, pid]) => `${pid} ${stat}`);
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

it("gives wrangler dev its vars in a file of the owner's, and not the .dev.vars beside its config", async () => {
  process.env.FAIL_DEV_RUNS = "0";
  // A config in a folder of the test's own, its paths pointing back at the project, so the .dev.vars
  // beside it (as `npm run dev` leaves one beside wrangler.toml) is no developer's.
  const project = mkdtempSync(path.join(work, "project-"));
  let text = readFileSync(path.join(ROOT, "wrangler.toml"), "utf8");
  for (const [key, value] of [
    ["main", "src/index.ts"],
    ["directory", "assets"],
    ["migrations_dir", "drizzle"],
  ]) {
    const line = `${key} = "${value}"`;
    expect(text).toContain(line);
    text = text.replace(
      line,
      `${key} = ${JSON.stringify(path.relative(project, path.join(ROOT, value!)))}`,
    );
  }
  const config = path.join(project, "wrangler.toml");
  writeFileSync(config, text);
  writeFileSync(path.join(project, ".dev.vars"), "TRANSACTIONS_SECURITY_CODE=1234\n");
  const stateDir = path.join(work, "vars");
  await prepareState(stateDir);
  const webhookKey = randomBytes(32).toString("hex");
  const server = await startServer({
    config,
    persistTo: stateDir,
    vars: { WEBHOOK_SECRET_KEY: webhookKey },
  });
  let varsFile: string | undefined;
  try {
    const runs = devRuns();
    expect(runs).toHaveLength(1);
    const commandLine = runs[0]!.join(" ");
    expect.soft(commandLine).not.toContain(server.jwtSecret);
    expect.soft(commandLine).not.toContain(webhookKey);
    varsFile = runs[0]!.includes("--env-file") ? option(runs[0]!, "--env-file") : undefined;
    if (varsFile)
      expect.soft(statSync(varsFile).mode & 0o077, "a vars file others can read").toBe(0);

    // The server signs with the secret startServer gave it...
    const auth = await adminAuth(server.api);
    const [head, payload, signature] = auth.slice("Bearer ".length).split(".");
    const signed = createHmac("sha256", server.jwtSecret).update(`${head}.${payload}`);
    expect.soft(signed.digest("base64url")).toBe(signature);
    // ...and has no security code: .dev.vars's would refuse this one.
    const list = await fetch(`${server.api}/transactions?user_id=1&security_code=1`, {
      headers: { Authorization: auth },
    });
    expect.soft(list.status, await list.text()).toBe(200);
  } finally {
    await server.stop();
  }
  expect(varsFile, "wrangler dev started with --env-file").toBeDefined();
  expect(existsSync(varsFile!), "the vars file left behind").toBe(false);
}, 180_000);

it("stops the whole server before stop() returns, not only the process it started", async () => {
  // The stand-in is the process startServer started, and the SIGTERM ends it at once (it waits in
  // spawnSync, with no handler), before the wrangler it runs. Wrangler, left running, writes its
  // debug log into the state folder, making the folder again after its caller removed it.
  process.env.FAIL_DEV_RUNS = "0";
  const server = await startServer({ persistTo: path.join(work, "stopped") });
  devRuns();
  await server.stop();
  expect(runningInGroup(server.child.pid!), "processes of the server still running").toEqual([]);
}, 180_000);

it("leaves no runtime files of Miniflare behind when it is SIGKILLed, as a crash test does", async () => {
  // Miniflare removes its /tmp/miniflare-… folder when it stops, which a SIGKILL never lets it do.
  process.env.FAIL_DEV_RUNS = "0";
  const server = await startServer({ persistTo: path.join(work, "killed") });
  devRuns();
  const environ = readFileSync(`/proc/${server.child.pid}/environ`, "utf8").split("\0");
  const scratch = environ.find((line) => line.startsWith("TMPDIR="))?.slice("TMPDIR=".length);
  expect(scratch, "the server's own TMPDIR").toBeDefined();
  expect(readdirSync(scratch!).some((name) => name.startsWith("miniflare-"))).toBe(true);
  await server.stop({ signal: "SIGKILL" });
  expect(runningInGroup(server.child.pid!), "processes of the server still running").toEqual([]);
  expect(existsSync(scratch!), "the server's temporary folder").toBe(false);
}, 180_000);
