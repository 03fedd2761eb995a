// `npm run bench`: local throughput and latency of the app's main routes, each next to a baseline
// worker (same runtime and settings: nothing, one D1 INSERT, one D1 SELECT) measured in the same
// run, bracketing it (baseline, app scenarios, baseline again), so the ratios compare like with like
// on a noisy shared machine. Both servers are throwaway `wrangler dev` instances on 127.0.0.1
// (scripts/lib/server.ts) and are stopped, process groups and state, on success, error or Ctrl-C.
//
// Settings (environment): BENCH_DURATION seconds per scenario (8), BENCH_WARMUP seconds of warm-up
// before each (3), BENCH_CONNECTIONS (32). Output: a table on stdout, progress on stderr, and
// bench-results/bench-<timestamp>.json.
import { loadavg } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type autocannon from "autocannon";
import { bundleSize, kib } from "./bench/bundle";
import { changedFiles, fingerprint } from "./bench/fingerprint";
import { balanceSum, makeFixtures, USER_PASSWORD, WALLETS } from "./bench/fixtures";
import { type AppSummary, evaluateTargets, formatTable, type TableRow } from "./bench/report";
import {
  answeredAndSent,
  baselineDrift,
  loadSettings,
  progressLog,
  runBench,
  runMeta,
  runPlan,
  stopOnSignals,
  writeResults,
} from "./bench/session";
import { adminAuth, type Server, startServer } from "./lib/server";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
process.chdir(ROOT);

const LOAD = loadSettings();
const { durationS: DURATION, warmupS: WARMUP, connections: CONNECTIONS } = LOAD;

const started = Date.now();
const log = progressLog("bench", started);
const stopping = stopOnSignals(log);

async function main() {
  const runId = Date.now().toString(36);
  const sourcesAtStart = fingerprint();
  const meta = runMeta({
    durationS: DURATION,
    warmupS: WARMUP,
    connections: CONNECTIONS,
    logLevel: "warn",
    host: "127.0.0.1",
  });

  log("bundling (wrangler deploy --dry-run)");
  const bundles = {
    app: bundleSize({ config: "wrangler.toml", main: "src/index.ts" }),
    baseline: bundleSize({ config: "bench/baseline/wrangler.toml", main: "worker.ts" }),
  };

  log("starting the app and the baseline (wrangler dev, 127.0.0.1, log level warn)");
  const app = await startServer({ config: "wrangler.toml", logLevel: "warn" });
  const baseline = await startServer({
    config: "bench/baseline/wrangler.toml",
    logLevel: "warn",
    seedAdmin: false,
  });
  log(`app ${app.base}, baseline ${baseline.base}`);

  const auth = await adminAuth(app.api);
  log("creating users, wallets and history through the API");
  const fx = await makeFixtures({ api: app.api, auth, runId });
  const apiPath = new URL(app.api).pathname;
  const json = { "Content-Type": "application/json" };
  const signers = [fx.reader, ...fx.users].map((u) => u.email);
  let turn = 0;
  const signer = () => signers[turn++ % signers.length];
  const authed = { Authorization: auth };

  // Baseline: one row to select.
  const seeded = await fetch(`${baseline.base}/insert`, {
    method: "POST",
    headers: json,
    body: JSON.stringify({ request_id: "seed", amount: 1 }),
  });
  if (seeded.status !== 200) throw new Error(`baseline /insert answered ${seeded.status}`);
  const seedId = ((await seeded.json()) as { data: { id: number } }).data.id;

  type Scenario = {
    server: Server;
    request: autocannon.Request;
    /** The baseline this scenario's req/s is compared with. */
    vs?: string;
    expectStatus?: number;
  };
  const withBody = (req: autocannon.Request, body: string) => ({ ...req, body });

  let insertSeq = 0;
  let creditSeq = 0;
  const scenarios: Record<string, Scenario> = {
    // baseline
    noop: { server: baseline, request: { method: "GET", path: "/noop" } },
    insert: {
      server: baseline,
      request: {
        method: "POST",
        path: "/insert",
        headers: json,
        setupRequest: (req) =>
          withBody(req, JSON.stringify({ request_id: `ins-${runId}-${++insertSeq}`, amount: 100 })),
      },
    },
    select: { server: baseline, request: { method: "GET", path: `/select?id=${seedId}` } },
    // app
    credits: {
      server: app,
      vs: "insert",
      request: {
        method: "POST",
        path: `${apiPath}/credits`,
        headers: { ...authed, ...json },
        setupRequest: (req) => {
          const n = ++creditSeq;
          const user = fx.users[n % fx.users.length]!;
          return withBody(
            req,
            JSON.stringify({
              user_id: user.id,
              wallet_id: WALLETS[0],
              amount: 1,
              request_id: `load-${runId}-${n}`,
            }),
          );
        },
      },
    },
    "credits-duplicate-409": {
      server: app,
      vs: "insert",
      expectStatus: 409,
      request: {
        method: "POST",
        path: `${apiPath}/credits`,
        headers: { ...authed, ...json },
        body: JSON.stringify(fx.duplicate),
      },
    },
    "credits-invalid-400": {
      server: app,
      vs: "insert",
      expectStatus: 400,
      request: {
        method: "POST",
        path: `${apiPath}/credits`,
        headers: { ...authed, ...json },
        body: JSON.stringify({
          user_id: fx.users[0]!.id,
          wallet_id: WALLETS[0],
          amount: "-1",
          request_id: "never-written",
        }),
      },
    },
    "transaction-read": {
      server: app,
      vs: "noop",
      request: {
        method: "GET",
        path: `${apiPath}/transactions/${fx.transactionId}`,
        headers: authed,
      },
    },
    "transaction-unknown-404": {
      server: app,
      vs: "noop",
      expectStatus: 404,
      request: { method: "GET", path: `${apiPath}/transactions/999999999`, headers: authed },
    },
    "balance-1-wallet": {
      server: app,
      vs: "select",
      request: {
        method: "GET",
        path: `${apiPath}/user-wallet-balance?user_id=${fx.reader.id}&wallet_id=${WALLETS[0]}&formatted=yes`,
        headers: authed,
      },
    },
    "balance-5-wallets": {
      server: app,
      vs: "select",
      request: {
        method: "GET",
        path: `${apiPath}/user-wallet-balance?user_id=${fx.reader.id}&wallet_id=${WALLETS.join(",")}&formatted=yes`,
        headers: authed,
      },
    },
    "transactions-page-20": {
      server: app,
      vs: "noop",
      request: {
        method: "GET",
        path: `${apiPath}/transactions?user_id=${fx.reader.id}&security_code=1&per_page=20`,
        headers: authed,
      },
    },
    login: {
      server: app,
      vs: "noop",
      // Over the bench's nine users in turn: the sign-in throttle checks at most 10 sign-ins of one
      // account at a time (docs/security.md), fewer than the connections.
      request: {
        method: "POST",
        path: `${apiPath}/users/login`,
        headers: json,
        setupRequest: (req) =>
          withBody(req, JSON.stringify({ user_email: signer(), user_password: USER_PASSWORD })),
      },
    },
  };

  // Each group is bracketed by its baseline: the baseline figure is the mean of the two runs.
  const plan = [
    ["insert", "credits", "credits-duplicate-409", "credits-invalid-400", "insert"],
    ["select", "balance-1-wallet", "balance-5-wallets", "select"],
    [
      "noop",
      "transaction-read",
      "transaction-unknown-404",
      "transactions-page-20",
      "login",
      "noop",
    ],
  ].flat();

  const runs = await runPlan(
    plan,
    scenarios,
    (s) => (s.server === app ? "app" : "baseline"),
    LOAD,
    { log, stopping },
  );

  // The credits landed once each: the payees' balances (minus the seeded duplicate) lie between
  // the credits answered 200 and the credits sent.
  const { answered200: credited, sent } = answeredAndSent(runs.filter((r) => r.name === "credits"));
  await new Promise((r) => setTimeout(r, 1000));
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
    `ledger check: ${ledgerCheck.ok ? "ok" : "MISMATCH"} (${credited} credits of 1 answered 200, ${sent} sent, ${applied} applied)`,
  );

  // Table rows: baselines (both bracketing runs, and their mean), app scenarios with ratios.
  const baselineRuns = (name: string) => runs.filter((r) => r.name === name);
  const baselineMean = (name: string) => {
    const rs = baselineRuns(name);
    return rs.reduce((a, r) => a + r.reqPerSec, 0) / rs.length;
  };
  const rows: TableRow[] = [];
  const appSummary: AppSummary = {};
  for (const name of ["noop", "insert", "select"]) {
    baselineRuns(name).forEach((r, i) => {
      rows.push({
        scenario: `baseline ${name} (${i === 0 ? "before" : "after"})`,
        reqPerSec: r.reqPerSec,
        p50: r.latencyMs.p50,
        p99: r.latencyMs.p99,
        errors: r.errors,
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
    rows.push({ scenario: r.name, ...appSummary[r.name]! });
  }
  const targets = evaluateTargets(appSummary);
  const totalErrors = runs.reduce((n, r) => n + r.errors + r.warmup.errors, 0);
  const sourcesChanged = changedFiles(sourcesAtStart, fingerprint());

  const out: string[] = [];
  out.push(
    `Bench: ${DURATION}s per scenario after ${WARMUP}s warm-up, ${CONNECTIONS} connections, wrangler dev --log-level=warn on 127.0.0.1, ${meta.cpus} CPUs shared with the load generator.`,
  );
  out.push(
    "Ratios: app req/s ÷ the mean of the two bracketing baseline runs (credits vs insert, balance reads vs select, others vs noop).",
  );
  out.push("");
  out.push(formatTable(rows));
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
    `Ledger check after the credit load: ${ledgerCheck.ok ? "ok" : "MISMATCH"} (${credited} credits answered 200, ${sent} sent, ${applied} applied to the payees' balances).`,
  );
  out.push("");
  out.push("Targets:");
  for (const t of targets) out.push(`  ${t.met ? "MET   " : "MISSED"}  ${t.target}: ${t.value}`);
  if (totalErrors > 0)
    out.push(
      `\n${totalErrors} unexpected answers in total (status codes per scenario are in the JSON file).`,
    );
  if (sourcesChanged.length > 0) {
    out.push(
      `\nINVALID RUN: ${sourcesChanged.length} source files changed while it ran (wrangler dev reloads on change), e.g. ${sourcesChanged.slice(0, 5).join(", ")}.`,
    );
  }

  const file = writeResults("bench", meta, started, {
    valid: sourcesChanged.length === 0,
    sourcesChanged,
    baselineDriftPct: drift,
    bundles,
    ledgerCheck,
    table: rows,
    targets,
    runs,
  });
  out.push(`\nResults: ${file}`);
  process.stdout.write(`${out.join("\n")}\n`);
  return totalErrors === 0 && ledgerCheck.ok && sourcesChanged.length === 0;
}

await runBench(main, { log, stopping, startedMs: started });
