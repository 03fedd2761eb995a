// `npm run bench`: local throughput and latency of the app's main routes, each next to a baseline
// worker (same runtime and settings: nothing, one D1 INSERT, one D1 SELECT) measured in the same
// run, bracketing it (baseline, app scenarios, baseline again), so the ratios compare like with like
// on a noisy shared machine. Both servers are throwaway: each worker's deploy bundle served by
// Miniflare alone on 127.0.0.1 (scripts/lib/server.ts, bench-worker.ts: without wrangler dev's proxy
// and log reader, which took a deployed Worker's share of the cores), stopped, process groups and
// state, on success, error or Ctrl-C.
//
// Each run also reads the workerd CPU time per request (/proc), and a pass after the timed runs reads
// each app request's D1 statements and rows from the worker's own log lines (src/db/meter.ts), with
// one user's history grown to 100,000 entries to show which reads grow with it.
//
// Settings (environment): BENCH_DURATION seconds per scenario (8), BENCH_WARMUP seconds of warm-up
// before each (3), BENCH_CONNECTIONS (32), BENCH_COST_DURATION seconds per scenario of the cost pass
// (3), BENCH_DEVTOOLS (1: the servers with wrangler's DevTools inspector), BENCH_EMULATIONS (1: with
// Miniflare's assets router and rate limiter, lib/bench-worker.ts). Output: tables on stdout,
// progress on stderr, and bench-results/bench-<timestamp>.json.
//
// Modes after `--` (bench/args.ts): `--against <git ref>`, the working tree beside another commit
// (bench/against.ts); `--remote-d1 [ms,…]`, credits over a simulated remote D1 with group commit on
// and off (bench/remote-d1.ts); `--webhook`, credits with one subscribed webhook endpoint beside
// credits with none (bench/webhook.ts); `--reads`, each read beside the least a read of its size
// does, in rounds (bench/reads.ts).
import { loadavg } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { benchAgainst } from "./bench/against";
import { type BenchMode, parseBenchArgs, USAGE } from "./bench/args";
import { bundleSize, kib } from "./bench/bundle";
import { d1Medians, type RequestCost, requestLogReader } from "./bench/cost";
import { fingerprint } from "./bench/fingerprint";
import { balanceSum, makeFixtures, WALLETS } from "./bench/fixtures";
import { runLoad } from "./bench/load";
import { benchReads } from "./bench/reads";
import { benchRemoteD1 } from "./bench/remote-d1";
import {
  type AppSummary,
  type CostRow,
  evaluateCostTargets,
  evaluateTargets,
  formatCostTable,
  formatTable,
  type TableRow,
} from "./bench/report";
import {
  appScenarioMaker,
  BASELINE_SCENARIOS,
  baselineScenarios,
  loadOf,
  READ_FLOORS,
  type Scenario,
} from "./bench/scenarios";
import {
  answeredAndSent,
  baselineDrift,
  finishReport,
  loadSettings,
  progressLog,
  removeAtEnd,
  runBench,
  runMeta,
  runPlan,
  servedBy,
  setting,
  stopOnSignals,
} from "./bench/session";
import { benchWebhook } from "./bench/webhook";
import { adminAuth, startServer } from "./lib/server";
import { appendHistorySql } from "./lib/sql";
import { wrangler } from "./lib/wrangler";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
process.chdir(ROOT);

// Refused arguments: status 2, and nothing runs (the dispatch at the end finds no mode).
let MODE: BenchMode | undefined;
try {
  MODE = parseBenchArgs(process.argv.slice(2));
} catch (error) {
  process.stderr.write(`${(error as Error).message}\n`);
  process.exitCode = 2;
}
/** Entries appended to one user's history, against another user's 10 (the cost pass). */
const HISTORY_LONG = 100_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const started = Date.now();
const log = progressLog("bench", started);
const stopping = stopOnSignals(log);

async function main() {
  // The default mode's settings, judged once it runs: a refused argument has stopped before.
  const LOAD = loadSettings();
  const { durationS: DURATION, warmupS: WARMUP, connections: CONNECTIONS } = LOAD;
  const COST_DURATION = setting("BENCH_COST_DURATION", 3);
  const DEVTOOLS = LOAD.devtools;
  const SERVED = servedBy(DEVTOOLS);
  const runId = Date.now().toString(36);
  const sourcesAtStart = fingerprint();
  const meta = runMeta({
    durationS: DURATION,
    warmupS: WARMUP,
    connections: CONNECTIONS,
    devtools: DEVTOOLS,
    host: "127.0.0.1",
  });

  log("bundling (wrangler deploy --dry-run)");
  const bundles = {
    app: bundleSize({ config: "wrangler.toml", main: "src/index.ts" }),
    baseline: bundleSize({ config: "bench/baseline/wrangler.toml", main: "worker.ts" }),
  };

  log(`starting the app and the baseline (${SERVED}, 127.0.0.1)`);
  const app = await startServer({ config: "wrangler.toml", wranglerDev: DEVTOOLS });
  const baseline = await startServer({
    config: "bench/baseline/wrangler.toml",
    logLevel: "warn",
    seedAdmin: false,
    wranglerDev: DEVTOOLS,
  });
  log(`app ${app.base}, baseline ${baseline.base}`);

  const auth = await adminAuth(app.api);
  log("creating users, wallets and history through the API");
  const fx = await makeFixtures({ api: app.api, auth, runId });
  const scenarios: Record<string, Scenario> = await baselineScenarios(baseline, runId);
  // The app's scenarios (the cost pass makes them again for the restarted app).
  const appScenarios = appScenarioMaker(runId);
  Object.assign(scenarios, appScenarios(app, auth, fx));

  // Each group is bracketed by its baseline: the baseline figure is the mean of the two runs.
  const plan = [
    [
      "insert",
      "credits",
      "batches-3",
      "batches-100",
      "credits-duplicate-409",
      "credits-invalid-400",
      "insert",
    ],
    [
      "select",
      // Every baseline read: behind a token, through a session, the reads' floors.
      ...BASELINE_SCENARIOS.filter((name) => name.startsWith("select-")),
      "balance-1-wallet",
      "balance-5-wallets",
      "transaction-read",
      "transaction-unknown-404",
      "transactions-page-20",
      "select",
    ],
    ["noop", "login", "noop"],
  ].flat();

  const runs = await runPlan(
    plan,
    scenarios,
    (s) => (s.server === app ? "app" : "baseline"),
    LOAD,
    { log, stopping },
  );

  // The credits (single and batched) landed once each: the payees' balances (minus the seeded
  // duplicate) lie between the units answered 200 and the units sent.
  const { answered200: credited, sent } = answeredAndSent(runs);
  await sleep(1000);
  const applied =
    (await balanceSum({ api: app.api, auth, users: fx.users, wallet: WALLETS[0] })) -
    fx.duplicate.amount;
  const ledgerCheck = {
    creditsAnswered200: credited,
    creditsSent: sent,
    creditsApplied: applied,
    ok: applied >= credited && applied <= sent,
  };
  log(
    `ledger check: ${ledgerCheck.ok ? "ok" : "MISMATCH"} (${credited} credited by answers 200, ${sent} by requests sent, ${applied} applied)`,
  );

  // ---- cost pass: D1 statements and rows per request, read from the worker's own log lines ------
  // The server passes the worker's console.log lines on only when asked (under wrangler dev, from
  // log level "log"), which costs it CPU, so the lines are read in a pass of their own after the timed runs: the app stops, one user's history
  // grows by HISTORY_LONG entries straight in its D1 state, and the app starts again on that state.
  log(`stopping the app; appending ${HISTORY_LONG} entries to one user's history`);
  await app.stop({ keepState: true });
  removeAtEnd(app.stateDir);
  const seedStarted = Date.now();
  const seedSql = appendHistorySql(fx.history.long.id, WALLETS[0], HISTORY_LONG, `long-${runId}`);
  const persist = ["--config", "wrangler.toml", "--persist-to", app.stateDir];
  wrangler(["d1", "execute", "DB", "--local", ...persist, "--command", seedSql], { quiet: true });
  const historySeed = { entries: HISTORY_LONG, seconds: (Date.now() - seedStarted) / 1000 };
  log(
    `appended in ${historySeed.seconds.toFixed(1)}s; starting the app with its log lines passed on`,
  );
  const logLines: RequestCost[] = [];
  const costApp = await startServer({
    persistTo: app.stateDir,
    logLevel: "log",
    wranglerDev: DEVTOOLS,
    onStdout: requestLogReader(logLines),
  });
  const costAuth = await adminAuth(costApp.api);
  const long = [fx.history.long];
  const longBalance = await balanceSum({
    api: costApp.api,
    auth: costAuth,
    users: long,
    wallet: WALLETS[0],
  });
  if (longBalance !== HISTORY_LONG / 100)
    throw new Error(`the long history's balance is ${longBalance}, not ${HISTORY_LONG / 100}`);
  const costScenarios = appScenarios(costApp, costAuth, fx);
  const costs: Record<string, ReturnType<typeof d1Medians> & { errors: number }> = {};
  for (const [name, s] of Object.entries(costScenarios)) {
    if (stopping()) throw new Error("interrupted");
    await runLoad({ ...loadOf(s, CONNECTIONS), duration: 1 });
    await sleep(1000); // the warm-up's lines are not counted
    const from = logLines.length;
    const measured = await runLoad({ ...loadOf(s, CONNECTIONS), duration: COST_DURATION });
    await sleep(1000);
    const cost = { ...d1Medians(logLines.slice(from)), errors: measured.errors };
    costs[name] = cost;
    log(
      `${name}: ${cost.requests} log lines; median ${cost.statements.median} statements, ${cost.rowsRead.median} rows read, ${cost.rowsWritten.median} written`,
    );
  }

  // Table rows: baselines (both bracketing runs, and their mean), app scenarios with ratios.
  const baselineRuns = (name: string) => runs.filter((r) => r.name === name);
  const baselineMean = (name: string) => {
    const rs = baselineRuns(name);
    return rs.reduce((a, r) => a + r.reqPerSec, 0) / rs.length;
  };
  const rows: TableRow[] = [];
  const cpuOf = ({ cpuMsPerRequest: cpu }: (typeof runs)[number]) => ({
    cpuMs: cpu?.workerd,
    nodeCpuMs: cpu && cpu.group - cpu.workerd,
  });
  const appSummary: AppSummary = {};
  for (const name of BASELINE_SCENARIOS) {
    const bracketed = baselineRuns(name).length > 1;
    baselineRuns(name).forEach((r, i) => {
      rows.push({
        scenario: `baseline ${name}${bracketed ? ` (${i === 0 ? "before" : "after"})` : ""}`,
        reqPerSec: r.reqPerSec,
        p50: r.latencyMs.p50,
        p99: r.latencyMs.p99,
        errors: r.errors,
        ...cpuOf(r),
      });
    });
  }
  for (const r of runs.filter((x) => x.kind === "app")) {
    const vs = scenarios[r.name]!.vs!;
    const ratio = r.reqPerSec / baselineMean(vs);
    appSummary[r.name] = {
      reqPerSec: r.reqPerSec,
      p50: r.latencyMs.p50,
      p99: r.latencyMs.p99,
      errors: r.errors,
      ratio,
      vs,
    };
    rows.push({ scenario: r.name, ...appSummary[r.name]!, ...cpuOf(r) });
  }
  const targets = evaluateTargets(
    appSummary,
    Object.fromEntries(
      ["insert", "select"].map((name) => {
        const rs = baselineRuns(name);
        return [name, rs.reduce((a, r) => a + r.latencyMs.p99, 0) / rs.length];
      }),
    ),
  );
  const costRows: CostRow[] = Object.entries(costs).map(([scenario, c]) => ({
    scenario,
    ...c,
    cpuMs: runs.find((r) => r.name === scenario)?.cpuMsPerRequest?.workerd,
  }));
  const costTargets = evaluateCostTargets(costRows);
  const totalErrors =
    runs.reduce((n, r) => n + r.errors + r.warmup.errors, 0) +
    Object.values(costs).reduce((n, c) => n + c.errors, 0);

  const out: string[] = [];
  out.push(
    `Bench: ${DURATION}s per scenario after ${WARMUP}s warm-up, ${CONNECTIONS} connections, ${SERVED}, on 127.0.0.1, ${meta.cpus} CPUs shared with the load generator.`,
  );
  out.push(
    "Ratios: app req/s ÷ the mean of the two bracketing baseline runs (credits vs insert, reads vs select, login vs noop).",
  );
  out.push(
    "CPU ms: CPU time (user + system) of the server's workerd processes per request sent, over the timed run and the second after it (/proc/<pid>/stat); local D1 runs inside workerd, so it counts too.",
  );
  out.push("");
  out.push(formatTable(rows));
  // Against the least an authenticated, logged read does (bench/baseline/worker.ts), without and
  // with the D1 session a read-replica-aware read goes through.
  const reads = [
    "balance-1-wallet",
    "balance-5-wallets",
    "transaction-read",
    "transaction-unknown-404",
    "transactions-page-20",
  ];
  for (const [name, what] of [
    ["select-authed", "one SELECT behind a verified bearer token, a request id and a log line"],
    ["select-replica", "select-authed's read through a D1 session, answering its bookmark"],
  ] as const) {
    const run = baselineRuns(name)[0];
    if (!run) continue;
    out.push(
      `\n${name} (${what}): ${(run.reqPerSec / baselineMean("select")).toFixed(2)}× select; reads ÷ ${name}: ${reads
        .filter((read) => appSummary[read])
        .map((read) => `${read} ${(appSummary[read]!.reqPerSec / run.reqPerSec).toFixed(2)}×`)
        .join(", ")}.`,
    );
  }
  // Against each read's floor: the same session read of as many rows, as wide.
  const floors = Object.entries(READ_FLOORS).flatMap(([read, floor]) => {
    const run = baselineRuns(floor)[0];
    return run && appSummary[read]
      ? [`${read} ÷ ${floor} ${(appSummary[read].reqPerSec / run.reqPerSec).toFixed(2)}×`]
      : [];
  });
  if (floors.length > 0)
    out.push(
      `\nreads ÷ their floors (select-replica's read of as many rows, as wide; npm run bench -- --reads measures these in rounds): ${floors.join(", ")}.`,
    );
  out.push("");
  out.push(
    `Cost per request: medians (and ranges) of the D1 fields of the worker's request log lines (src/db/meter.ts), from a pass of ${COST_DURATION}s per scenario with the log lines passed on, after the timed runs; CPU ms from the timed run above. One user's history was grown by ${HISTORY_LONG} entries for it (${historySeed.seconds.toFixed(0)}s).`,
  );
  out.push("");
  out.push(formatCostTable(costRows));
  const drift = baselineDrift(runs, ["noop", "insert", "select"]);
  out.push("");
  out.push(
    `Baseline drift between its two bracketing runs: ${drift.map((d) => `${d.name} ${d.pct.toFixed(0)}%`).join(", ")}` +
      (drift.some((d) => d.pct > 20)
        ? " (over 20%: the machine was busy; read the ratios with care)."
        : "."),
  );
  out.push(
    `Load average (1 min) before the first scenario ${runs[0]!.loadavg1Before.toFixed(2)}, at the end ${loadavg()[0]!.toFixed(2)} (this bench alone adds about 2).`,
  );
  out.push("");
  out.push(
    `Bundle (wrangler deploy --dry-run, main .js): app ${bundles.app.file} ${kib(bundles.app.rawBytes)} raw, ${kib(bundles.app.gzipBytes)} gzip` +
      (bundles.app.wranglerReported
        ? ` (wrangler: ${bundles.app.wranglerReported.total} / gzip ${bundles.app.wranglerReported.gzip})`
        : "") +
      `; baseline ${kib(bundles.baseline.rawBytes)} raw, ${kib(bundles.baseline.gzipBytes)} gzip.`,
  );
  out.push(
    `Ledger check after the credit load: ${ledgerCheck.ok ? "ok" : "MISMATCH"} (${credited} credited by answers 200, ${sent} by requests sent, ${applied} applied to the payees' balances).`,
  );
  out.push("");
  out.push("Targets:");
  for (const t of [...targets, ...costTargets])
    out.push(`  ${t.met ? "MET   " : "MISSED"}  ${t.target}: ${t.value}`);
  if (totalErrors > 0)
    out.push(
      `\n${totalErrors} unexpected answers in total (status codes per scenario are in the JSON file).`,
    );
  const valid = finishReport(out, {
    prefix: "bench",
    meta,
    startedMs: started,
    sourcesAtStart,
    results: {
      baselineDriftPct: drift,
      bundles,
      ledgerCheck,
      table: rows,
      targets,
      historySeed,
      costs: costRows,
      costTargets,
      runs,
    },
  });
  return totalErrors === 0 && ledgerCheck.ok && valid;
}

const run = { log, stopping, startedMs: started };
if (MODE === undefined) {
  // refused above
} else if (MODE.mode === "help") process.stdout.write(`${USAGE}\n`);
else if (MODE.mode === "against") {
  const { ref } = MODE;
  await runBench(() => benchAgainst({ ref, root: ROOT, ...run }), run);
} else if (MODE.mode === "remote-d1") {
  const { roundTripsMs } = MODE;
  await runBench(() => benchRemoteD1({ roundTripsMs, ...run }), run);
} else if (MODE.mode === "webhook") await runBench(() => benchWebhook(run), run);
else if (MODE.mode === "reads") await runBench(() => benchReads(run), run);
else await runBench(main, run);
