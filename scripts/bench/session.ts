// What every bench script shares around its load: settings from the environment, a progress log on
// stderr, the commit it measured, stopping its servers (and removing the state they kept) on Ctrl-C
// or however it ends, one scenario's warm-up and measured run with its CPU time per request, and the
// results file.
import { execFileSync } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { join } from "node:path";
import type autocannon from "autocannon";
import { endBySignal, runMain, stop } from "../lib/exit";
import { stopAllServers } from "../lib/server";
import type { Side, SideRun } from "./compare";
import { cpuMsPerRequest, groupCpuSeconds } from "./cost";
import { changedFiles, type Fingerprint, fingerprint } from "./fingerprint";
import { runLoad, stopCurrentLoad } from "./load";
import { type GroupIo, groupIo } from "./process-io";
import { CREDITED_PER_REQUEST } from "./scenarios";

/** A positive number from the environment, or `fallback`. */
export const setting = (name: string, fallback: number) => {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isFinite(value) || value <= 0) stop(`${name} must be a positive number`);
  return value;
};

/**
 * BENCH_DURATION and BENCH_WARMUP seconds per scenario (8, 3), over BENCH_CONNECTIONS (32); with
 * BENCH_DEVTOOLS=1 the servers run as the `wrangler dev` command starts them, DevTools inspector
 * included, else as deployed, under Miniflare alone (scripts/lib/bench-worker.ts says why).
 */
export const loadSettings = () => ({
  durationS: setting("BENCH_DURATION", 8),
  warmupS: setting("BENCH_WARMUP", 3),
  connections: setting("BENCH_CONNECTIONS", 32),
  devtools: process.env.BENCH_DEVTOOLS === "1",
});

/** How a bench names the way its servers run, in its report. */
export const servedBy = (devtools: boolean) =>
  devtools
    ? "wrangler dev with DevTools, log level warn"
    : "the deploy bundle under Miniflare alone, its log lines dropped";

/** Progress lines on stderr, stamped with the seconds since `startedMs`. */
export const progressLog = (tag: string, startedMs: number) => (msg: string) =>
  process.stderr.write(
    `[${tag} ${((Date.now() - startedMs) / 1000).toFixed(0).padStart(3)}s] ${msg}\n`,
  );

/** Server state kept across a restart (`stop({ keepState: true })`), removed when the bench ends. */
const keptState = new Set<string>();
export const removeAtEnd = (dir: string) => keptState.add(dir);

/** Work to do once the servers have stopped (a temporary git worktree to remove), newest first. */
const atEnd: (() => void)[] = [];
export const cleanUpAtEnd = (work: () => void) => atEnd.push(work);

/**
 * Stops the load running now and every server, removes the state kept for `removeAtEnd`, then runs
 * the `cleanUpAtEnd` work (after the servers: they may run from what it removes).
 */
async function cleanup() {
  stopCurrentLoad();
  await stopAllServers();
  for (const dir of keptState) rmSync(dir, { recursive: true, force: true });
  for (const work of atEnd.splice(0).reverse()) {
    try {
      work();
    } catch (error) {
      process.stderr.write(`cleanup: ${(error as Error)?.message ?? error}\n`);
    }
  }
}

/**
 * On Ctrl-C, SIGTERM or SIGHUP: stops the load running now, then the servers, and ends the bench.
 * Returns whether a signal has come, for loops that should stop between scenarios.
 */
export function stopOnSignals(log: (msg: string) => void) {
  let stopping = false;
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
    process.on(signal, async () => {
      if (stopping) return;
      stopping = true;
      log(`${signal}: stopping the servers`);
      await cleanup();
      // Ended now, by the signal: the run it cut short would go on to its next step (a server to
      // restart, a load to start) before any check of `stopping`, against servers that are gone.
      // Not process.exit(), which can hang (lib/exit.ts).
      endBySignal(signal);
    });
  }
  return () => stopping;
}

/** HEAD, marked when the tracked files differ from it. */
function gitCommit() {
  try {
    const head = execFileSync("git", ["rev-parse", "HEAD"], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
    }).trim();
    // read-only: GIT_OPTIONAL_LOCKS=0 keeps `git status` from refreshing the index
    const dirty =
      execFileSync("git", ["status", "--porcelain", "--untracked-files=no"], {
        encoding: "utf8",
        stdio: ["ignore", "pipe", "ignore"],
        env: { ...process.env, GIT_OPTIONAL_LOCKS: "0" },
      }).trim() !== "";
    return dirty ? `${head} (with uncommitted changes)` : head;
  } catch {
    return null;
  }
}

const pick = (r: Awaited<ReturnType<typeof runLoad>>) => ({
  reqPerSec: r.reqPerSec,
  sent: r.sent,
  responses: r.responses,
  errors: r.errors,
  statusCodes: r.statusCodes,
  errorSamples: r.errorSamples,
});

/**
 * One scenario: a warm-up, then the measured run, logged; answers still in flight drain after.
 * Given the server's process group (`pgid`), it also reads the CPU time the group used per request
 * sent, over the measured run and the drain after it (`cpuMsPerRequest`, Linux only).
 */
export async function runScenario({
  name,
  base,
  request,
  expectStatus,
  connections,
  warmupS,
  durationS,
  log,
  pgid,
  stateDir,
}: {
  name: string;
  base: string;
  request: autocannon.Request;
  expectStatus?: number;
  connections: number;
  warmupS: number;
  durationS: number;
  log: (msg: string) => void;
  pgid?: number;
  /** The server's state folder: names the workerd that runs the worker (cost.ts `app`). */
  stateDir?: string;
}) {
  const common = { base, request, expectStatus, connections };
  log(`${name}: warm-up ${warmupS}s`);
  const warmup = await runLoad({ ...common, duration: warmupS });
  log(`${name}: ${durationS}s × ${connections} connections`);
  const loadavg1Before = loadavg()[0]!;
  const cpuBefore = pgid === undefined ? undefined : groupCpuSeconds(pgid, stateDir);
  const measured = await runLoad({ ...common, duration: durationS });
  log(
    `${name}: ${measured.reqPerSec.toFixed(1)} req/s, p50 ${measured.latencyMs.p50} ms, p99 ${measured.latencyMs.p99} ms, errors ${measured.errors}`,
  );
  if (measured.errorSamples.length)
    log(`${name}: unexpected answers, e.g. ${JSON.stringify(measured.errorSamples[0])}`);
  await new Promise((r) => setTimeout(r, 1000)); // let answers still in flight drain
  // Every request sent is answered by the server (a ledger check shows it for credits), including
  // the few still in flight when autocannon stopped counting.
  const cpu =
    cpuBefore && cpuMsPerRequest(cpuBefore, groupCpuSeconds(pgid!, stateDir), measured.sent);
  return { name, loadavg1Before, warmup: pick(warmup), cpuMsPerRequest: cpu, ...measured };
}

export type ScenarioRun = Awaited<ReturnType<typeof runScenario>>;

type Scenario = {
  server: { base: string; child?: { pid?: number }; stateDir?: string };
  request: autocannon.Request;
  expectStatus?: number;
};

/**
 * Each step of an interleaved plan (compare.ts) on the scenario `pick` names for it, each run
 * recorded under the step's scenario, round and side.
 */
export async function runSides(
  plan: { round: number; scenario: string; side: Side }[],
  pick: (step: { scenario: string; side: Side }) => { scenario: Scenario; label: string },
  settings: { connections: number; warmupS: number; durationS: number },
  { log, stopping }: Pick<BenchRun, "log" | "stopping">,
) {
  const runs: (ScenarioRun & { round: number; side: Side })[] = [];
  for (const [i, step] of plan.entries()) {
    if (stopping()) throw new Error("interrupted");
    const { scenario: s, label } = pick(step);
    const run = await runScenario({
      name: `[${i + 1}/${plan.length}] round ${step.round + 1} ${label}`,
      base: s.server.base,
      request: s.request,
      expectStatus: s.expectStatus,
      ...settings,
      log,
      pgid: s.server.child?.pid,
      stateDir: s.server.stateDir,
    });
    runs.push({ ...run, name: step.scenario, round: step.round, side: step.side });
  }
  return runs;
}

/**
 * The scenarios of `plan` in order, each labelled `kind` (which server, for the report), with the
 * CPU time (`cpuMsPerRequest`) and disk writes (`io`) its server's process group spent per request
 * sent (Linux only).
 */
export async function runPlan<S extends Scenario, K extends string>(
  plan: string[],
  scenarios: Record<string, S>,
  kind: (scenario: S) => K,
  settings: { connections: number; warmupS: number; durationS: number },
  { log, stopping }: { log: (msg: string) => void; stopping: () => boolean },
) {
  const runs: (ScenarioRun & { kind: K; io: GroupIo })[] = [];
  for (const name of plan) {
    if (stopping()) throw new Error("interrupted");
    const s = scenarios[name]!;
    const pgid = s.server.child?.pid;
    const ioBefore = pgid === undefined ? undefined : groupIo(pgid);
    const run = await runScenario({
      name,
      base: s.server.base,
      request: s.request,
      expectStatus: s.expectStatus,
      ...settings,
      log,
      pgid,
    });
    const ioAfter = pgid === undefined ? undefined : groupIo(pgid);
    // warm-up and measured run together, per request sent
    const sent = run.sent + run.warmup.sent;
    const io = {
      writeBytes: ((ioAfter?.writeBytes ?? 0) - (ioBefore?.writeBytes ?? 0)) / sent,
      writeCalls: ((ioAfter?.writeCalls ?? 0) - (ioBefore?.writeCalls ?? 0)) / sent,
    };
    runs.push({ ...run, kind: kind(s), io });
  }
  return runs;
}

/**
 * Units credited to the payees by the requests answered 200 and by the requests sent, warm-ups
 * included: what a ledger check bounds the credits applied with (autocannon drops the answers still
 * in flight when a run ends; the server applies those requests all the same). A run that credits
 * nothing (reads, refusals) counts for nothing.
 */
export const answeredAndSent = (
  runs: ScenarioRun[],
  unitsOf = (run: ScenarioRun) => CREDITED_PER_REQUEST[run.name] ?? 0,
) =>
  runs.reduce(
    (sum, r) => {
      const units = unitsOf(r);
      sum.answered200 += units * ((r.statusCodes["200"] ?? 0) + (r.warmup.statusCodes["200"] ?? 0));
      sum.sent += units * (r.sent + r.warmup.sent);
      return sum;
    },
    { answered200: 0, sent: 0 },
  );

/** What a results file says of the run: when, where, on which commit, with which settings. */
export const runMeta = (settings: Record<string, unknown>) => ({
  date: new Date().toISOString(),
  node: process.version,
  cpus: cpus().length,
  cpuModel: cpus()[0]?.model,
  loadavgAtStart: loadavg(),
  commit: gitCommit(),
  settings,
});

/** How far each baseline's two bracketing runs lie apart, in % of their mean. */
export const baselineDrift = (runs: { name: string; reqPerSec: number }[], names: string[]) =>
  names.map((name) => {
    const [a = 0, b = 0] = runs.filter((r) => r.name === name).map((r) => r.reqPerSec);
    return { name, pct: (Math.abs(a - b) / ((a + b) / 2)) * 100 };
  });

/** Writes bench-results/<prefix>-<date>.json (git-ignored) with the run's end added to its meta. */
export function writeResults(
  prefix: string,
  meta: ReturnType<typeof runMeta> & Record<string, unknown>,
  startedMs: number,
  results: Record<string, unknown>,
) {
  mkdirSync("bench-results", { recursive: true });
  const file = join("bench-results", `${prefix}-${meta.date.replace(/[:.]/g, "-")}.json`);
  const end = { loadavgAtEnd: loadavg(), wallSeconds: (Date.now() - startedMs) / 1000 };
  writeFileSync(file, `${JSON.stringify({ meta: { ...meta, ...end }, ...results }, null, 2)}\n`);
  return file;
}

/**
 * The interleaved modes' runs (--against, --webhook, --reads; --remote-d1 reads the same
 * durations itself, over its own connection counts): BENCH_DURATION seconds (5) after
 * BENCH_WARMUP (2), in BENCH_ROUNDS rounds (3, at most `maxRounds`), over BENCH_CONNECTIONS
 * (`connections` by default): shorter than the baselines' 8 s, repeated for a median.
 */
export function roundSettings({
  connections,
  maxRounds,
}: {
  connections: number;
  maxRounds: number;
}) {
  const rounds = setting("BENCH_ROUNDS", 3);
  if (!Number.isInteger(rounds) || rounds > maxRounds) stop(`BENCH_ROUNDS: 1 to ${maxRounds}`);
  return {
    durationS: setting("BENCH_DURATION", 5),
    warmupS: setting("BENCH_WARMUP", 2),
    rounds,
    connections: setting("BENCH_CONNECTIONS", connections),
  };
}

/**
 * Ends a bench's report: an INVALID RUN line when a source file changed since `sourcesAtStart`
 * (the servers ran what was there at the start), the results written with their validity, the
 * file's name; prints the report and answers whether the run is valid.
 */
export function finishReport(
  out: string[],
  {
    prefix,
    meta,
    startedMs,
    sourcesAtStart,
    results,
  }: {
    prefix: string;
    meta: ReturnType<typeof runMeta> & Record<string, unknown>;
    startedMs: number;
    sourcesAtStart: Fingerprint;
    results: Record<string, unknown>;
  },
) {
  const sourcesChanged = changedFiles(sourcesAtStart, fingerprint());
  const valid = sourcesChanged.length === 0;
  if (!valid)
    out.push(
      `\nINVALID RUN: ${sourcesChanged.length} source files changed while it ran (the servers run what was there at the start, the fingerprint what is there now), e.g. ${sourcesChanged.slice(0, 5).join(", ")}.`,
    );
  const file = writeResults(prefix, meta, startedMs, { valid, sourcesChanged, ...results });
  out.push(`\nResults: ${file}`);
  process.stdout.write(`${out.join("\n")}\n`);
  return valid;
}

/** What every mode of the bench is handed: its progress log, whether a signal stopped it, its start. */
export type BenchRun = { log: (msg: string) => void; stopping: () => boolean; startedMs: number };

/** A run of one side of a round (compare.ts), the server's CPU split as the side-by-side tables show it. */
export const sideRunOf = (r: ScenarioRun & { round: number; side: Side }): SideRun => ({
  round: r.round,
  scenario: r.name,
  side: r.side,
  reqPerSec: r.reqPerSec,
  p50: r.latencyMs.p50,
  p99: r.latencyMs.p99,
  errors: r.errors + r.warmup.errors,
  cpuMs: r.cpuMsPerRequest?.workerd,
  appCpuMs: r.cpuMsPerRequest?.app,
  plumbingMs:
    r.cpuMsPerRequest?.app === undefined
      ? undefined
      : r.cpuMsPerRequest.group - r.cpuMsPerRequest.app,
  nodeMs:
    r.cpuMsPerRequest === undefined
      ? undefined
      : r.cpuMsPerRequest.group - r.cpuMsPerRequest.workerd,
});

/**
 * Runs a bench's `main` and stops its servers however it ends; the exit code says if it passed. A
 * setting it refuses (stop()) is said in one line; anything else that fails, with its stack.
 */
export async function runBench(
  main: () => Promise<boolean>,
  { log, stopping, startedMs }: BenchRun,
) {
  try {
    await runMain(async () => ((await main()) ? 0 : 1));
  } catch (error) {
    log(`failed: ${(error as Error)?.stack ?? error}`);
    process.exitCode = 1;
  } finally {
    if (!stopping()) {
      log("stopping the servers");
      await cleanup();
      log(`done in ${((Date.now() - startedMs) / 1000).toFixed(0)}s`);
    }
  }
}
