// `npm run bench -- --reads`: each read beside its floor, the least a read answering as many rows,
// as wide, through a D1 session does (bench/baseline/worker.ts `select-replica`; scenarios.ts
// READ_FLOORS), and two floors beside the bare one-SELECT worker, in interleaved rounds: the side
// that goes first alternates by round (compare.ts), so a drift of the machine's load weighs on
// both.
// One run of `npm run bench` puts each read and each baseline through one 8-second run; their
// ratios move by a fifth between runs minutes apart, and the medians of rounds move less.
import { loadavg } from "node:os";
import { adminAuth, startServer } from "../lib/server";
import { formatRows } from "./against";
import { interleavedPlan, sideBySide } from "./compare";
import { fingerprint } from "./fingerprint";
import { makeFixtures } from "./fixtures";
import { appScenarioMaker, baselineScenarios, READ_FLOORS } from "./scenarios";
import {
  type BenchRun,
  finishReport,
  loadSettings,
  roundSettings,
  runMeta,
  runSides,
  servedBy,
  sideRunOf,
} from "./session";

/** Each read and its floor, and two floors beside the bare SELECT. */
const PAIRS: Record<string, string> = {
  ...READ_FLOORS,
  "select-replica": "select",
  "select-replica-20": "select",
};

export async function benchReads({ log, stopping, startedMs }: BenchRun) {
  const load = loadSettings();
  // 32 connections, as `npm run bench` measures the reads.
  const { durationS, warmupS, rounds, connections } = roundSettings({
    connections: 32,
    maxRounds: 9,
  });
  const names = process.env.BENCH_SCENARIOS?.split(",") ?? Object.keys(PAIRS);
  const unknown = names.filter((n) => !(n in PAIRS));
  if (unknown.length)
    throw new Error(
      `BENCH_SCENARIOS: --reads compares ${Object.keys(PAIRS).join(", ")}; not ${unknown.join(", ")}`,
    );
  const runId = Date.now().toString(36);
  const sourcesAtStart = fingerprint();
  const meta = runMeta({
    mode: "reads",
    durationS,
    warmupS,
    rounds,
    connections,
    devtools: load.devtools,
    host: "127.0.0.1",
  });

  log(`starting the app and the baseline (${servedBy(load.devtools)}, 127.0.0.1)`);
  const app = await startServer({ config: "wrangler.toml", wranglerDev: load.devtools });
  const baseline = await startServer({
    config: "bench/baseline/wrangler.toml",
    logLevel: "warn",
    seedAdmin: false,
    wranglerDev: load.devtools,
  });
  const auth = await adminAuth(app.api);
  log("creating users, wallets and history through the API");
  const fx = await makeFixtures({ api: app.api, auth, runId });
  const scenarios = {
    ...(await baselineScenarios(baseline, runId)),
    ...appScenarioMaker(runId)(app, auth, fx),
  };

  // "tree" is the read, "ref" its floor (compare.ts's names).
  const plan = interleavedPlan(names, rounds);
  const runs = await runSides(
    plan,
    (step) => {
      const name = step.side === "tree" ? step.scenario : PAIRS[step.scenario]!;
      return { scenario: scenarios[name]!, label: name };
    },
    { connections, warmupS, durationS },
    { log, stopping },
  );

  const sideRuns = runs.map(sideRunOf);
  const rows = sideBySide(sideRuns).map((row) => ({
    ...row,
    scenario: `${row.scenario} ÷ ${PAIRS[row.scenario]}`,
  }));
  const loads = runs.map((r) => r.loadavg1Before);
  const errors = sideRuns.reduce((n, r) => n + r.errors, 0);

  const out: string[] = [];
  out.push(
    `Bench --reads: each read beside its floor (bench/baseline/worker.ts: select-replica reads as many rows, as wide, through a D1 session), and the floors beside one bare SELECT; commit ${meta.commit ?? "?"}.`,
  );
  out.push(
    `${rounds} rounds, each scenario ${durationS}s after ${warmupS}s warm-up, ${connections} connections, ${servedBy(load.devtools)}, 127.0.0.1, ${meta.cpus} CPUs shared with the load generator; the side that runs first alternates by round.`,
  );
  out.push(
    "Each side's medians over the rounds; ratios are read ÷ floor: req/s above 1 and CPU below 1 favour the read. CPU ms per request sent, user + system (/proc), as in --against.",
  );
  out.push("");
  out.push(formatRows(rows, { tree: "read", ref: "floor" }));
  out.push("");
  out.push(
    `Load average (1 min) before the runs: ${Math.min(...loads).toFixed(2)} to ${Math.max(...loads).toFixed(2)}; at the end ${loadavg()[0]!.toFixed(2)} (this bench alone adds about 2).`,
  );
  if (errors > 0)
    out.push(`\n${errors} unexpected answers (status codes per run are in the JSON file).`);
  const valid = finishReport(out, {
    prefix: "reads",
    meta,
    startedMs,
    sourcesAtStart,
    results: { table: rows, runs },
  });
  return errors === 0 && valid;
}
