// Runs wrangler from node_modules with nothing sent beyond the command's own work: no telemetry, no
// fetch of Request.cf's data, no update checks.
import { type SpawnOptions, spawn, spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { stop } from "./exit";

const require = createRequire(import.meta.url);
// WRANGLER_BIN is for tests only: a stand-in node script that records the commands a tool runs
// (test/node/stub-wrangler.mjs), so tools that talk to a Cloudflare account can be tested offline.
// wrangler's package exports no bin file: its path is read from the package.json it does export.
const wranglerPackage = require.resolve("wrangler/package.json");
const { bin, main, version } = require(wranglerPackage) as {
  bin: { wrangler: string };
  main: string;
  version: string;
};
export const WRANGLER = process.env.WRANGLER_BIN ?? join(dirname(wranglerPackage), bin.wrangler);
export const WRANGLER_VERSION = version;

export const offlineEnv = (extra: Record<string, string> = {}): NodeJS.ProcessEnv => ({
  ...process.env,
  WRANGLER_SEND_METRICS: "false",
  CLOUDFLARE_CF_FETCH_ENABLED: "false",
  WRANGLER_LOG_SANITIZE: "true",
  NO_UPDATE_NOTIFIER: "1",
  // The banner is also what runs wrangler's update check against the registry.
  WRANGLER_HIDE_BANNER: "true",
  // No check of GitHub for newer agent skills after a command, whatever ~/.wrangler records.
  WRANGLER_NO_SKILLS_UPDATE_PROMPTS: "true",
  CI: process.env.CI ?? "true",
  // Under the tests, wrangler's usual output, whatever level vitest.config.ts set for itself.
  ...(process.env.VITEST ? { WRANGLER_LOG: "log" } : {}),
  ...extra,
});

/**
 * Runs a wrangler command to completion; its status and output, whatever they are. `cwd`: where
 * it runs (a config's `[build]` command runs there).
 */
export const runWrangler = (args: string[], env: Record<string, string> = {}, cwd?: string) =>
  spawnSync(process.execPath, [WRANGLER, ...args], { env: offlineEnv(env), encoding: "utf8", cwd });

/** wrangler's program itself, which its bin file (WRANGLER) starts in a second process, with its own argv. */
const WRANGLER_CLI = process.env.WRANGLER_BIN ?? join(dirname(wranglerPackage), main);
/**
 * A preload for wrangler's process (`node --import`): appends `--command` and the SQL read from stdin
 * to its argv, inside the process; what the machine lists for it (ps) stays the line it started with.
 */
const SQL_FROM_STDIN =
  'data:text/javascript,import{readFileSync}from"node:fs";process.argv.push("--command",readFileSync(0,"utf8"))';

/**
 * Runs `wrangler <args> --command SQL` (d1 execute) to completion, as runWrangler does, with the SQL
 * off the command line, which every user of the machine can list (ps) while wrangler runs: it goes
 * on stdin, and a preload (SQL_FROM_STDIN) adds it to wrangler's argv inside the process.
 * wrangler's program is started itself: its bin file would start it again with the whole argv. Not
 * `--file`: with --remote that goes through D1's import API, which answers no rows (no RETURNING)
 * and leaves the database unable to serve queries meanwhile.
 */
export const runWranglerSql = (args: string[], sql: string) =>
  spawnSync(
    process.execPath,
    ["--no-warnings", "--import", SQL_FROM_STDIN, WRANGLER_CLI, ...args],
    { env: offlineEnv(), encoding: "utf8", input: sql },
  );

/** Runs one statement and answers its rows: by `wrangler d1 execute`, or on a D1 open in this process. */
export type RunSql = (sql: string) => Promise<Record<string, unknown>[]>;

/**
 * `wrangler d1 execute DB <target> <args>`, one statement at a time (off the command line, as
 * runWranglerSql sends it); a failure throws what wrangler said.
 */
export const wranglerSql =
  (target: "--local" | "--remote", args: string[] = []): RunSql =>
  async (sql) => {
    const run = runWranglerSql(["d1", "execute", "DB", target, ...args, "--json"], sql);
    if (run.status !== 0)
      throw new Error(
        `wrangler d1 execute DB ${target} failed:\n${run.stdout}\n${run.stderr}`.trim(),
      );
    return (JSON.parse(run.stdout) as [{ results: Record<string, unknown>[] }])[0].results;
  };

/**
 * Runs a wrangler command to completion; when it fails, stops the tool (lib/exit.ts) with its
 * output, which says what is wrong, rather than a stack trace of this function.
 */
export function wrangler(
  args: string[],
  { quiet = false, cwd }: { quiet?: boolean; cwd?: string } = {},
) {
  const result = runWrangler(args, {}, cwd);
  if (result.status !== 0) {
    stop(`wrangler ${args.join(" ")} failed:\n${result.stdout}\n${result.stderr}`);
  }
  if (!quiet) process.stdout.write(result.stdout);
  return result.stdout;
}

/**
 * Runs a wrangler command that takes a while (an upload, migrations), showing its output as it
 * comes and handing it back whole. Nothing reads stdin: no prompt can wait for an answer.
 */
export function streamWrangler(args: string[], env: Record<string, string> = {}) {
  const child = spawn(process.execPath, [WRANGLER, ...args], {
    env: offlineEnv(env),
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => {
    output += chunk;
    process.stdout.write(chunk);
  });
  child.stderr.on("data", (chunk: Buffer) => {
    output += chunk;
    process.stderr.write(chunk);
  });
  return new Promise<{ status: number | null; output: string }>((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (status) => resolve({ status, output }));
  });
}

/** Starts a long-running node program, offline, in its own process group. */
const startDetached = (args: string[], options: SpawnOptions) =>
  spawn(process.execPath, args, {
    env: offlineEnv(),
    stdio: "inherit",
    detached: true,
    ...options,
  });

/**
 * Starts `wrangler dev` with `args` in its own process group, the Worker seeing the address it is
 * called on. By default wrangler shows it the config's first route (a custom domain,
 * docs/deploying.md) over plain http, which the console sends to https: every console page then
 * redirected to itself.
 */
export const startWranglerDev = (args: string[], options: SpawnOptions = {}) =>
  startDetached([WRANGLER, "dev", "--infer-origin-from-routes=false", ...args], options);

/**
 * What a tool's own Node process preloads, as package.json's commands do: tsx's loader, then
 * ./package-types.ts, by URL (a tool may run in a folder of its own). The loader, not tsx's CLI: the
 * CLI runs the program in a child and, on a SIGTERM, SIGKILLs a child that has not told it of the
 * signal within 60 ms; the bench worker sets its own handler in place of tsx's, so a disposal
 * slower than that (a loaded machine) was cut short.
 */
export const TOOL_PRELOADS = [
  "--import",
  pathToFileURL(require.resolve("tsx")).href,
  "--import",
  new URL("./package-types.ts", import.meta.url).href,
];
const BENCH_WORKER = fileURLToPath(new URL("./bench-worker.ts", import.meta.url));

/** Where ./bench-worker.ts reads its options: the environment, for they hold the secrets. */
export const BENCH_WORKER_OPTIONS = "WALLET_BENCH_WORKER_OPTIONS";

/**
 * The deployed bundle served by Miniflare alone (./bench-worker.ts), in its own process group. Its
 * options (the vars, secrets among them) go in its environment, which only its owner can read; a
 * command line is listed to every user of the machine.
 */
export const startBenchWorker = (config: object, options: SpawnOptions = {}) =>
  startDetached([...TOOL_PRELOADS, BENCH_WORKER], {
    ...options,
    env: { ...(options.env ?? offlineEnv()), [BENCH_WORKER_OPTIONS]: JSON.stringify(config) },
  });

/**
 * The entries wrangler appended to its output file (WRANGLER_OUTPUT_FILE_PATH), one JSON object a
 * line: `deploy` (with the Worker's `targets`), `command-failed` (with the error's `message`), and
 * others this list passes over. None when wrangler wrote nothing (the file does not exist).
 */
export function readOutputFile(file: string): WranglerOutputEntry[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as WranglerOutputEntry);
}

/** The fields of the entries the tools read (wrangler 4.86 to 4.164 write these alike). */
export type WranglerOutputEntry = { type: string; targets?: string[]; message?: string };
