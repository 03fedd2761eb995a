// `npm run bench -- --remote-d1 [ms,…]`: credits over a simulated remote D1 (bench/remote-d1/: each
// D1 call waits the round trip, one write at a time), with group commit on and off, at 1, 8 and 32
// connections, for each round trip given. One throwaway server (scripts/lib/server.ts) runs the
// bench worker; each request picks the round trip and group commit with headers only that worker
// reads. Reports credits/s, p50 and p99, D1 writes per credit and how busy the one writer was.
import { loadavg } from "node:os";
import type { ModelStats } from "../../bench/remote-d1/model";
import { GROUP_COMMIT_HEADER, ROUND_TRIP_HEADER } from "../../bench/remote-d1/switches";
import { adminAuth, startServer } from "../lib/server";
import { fingerprint } from "./fingerprint";
import { balanceSum, call, makeFixtures, WALLETS } from "./fixtures";
import { appScenarioMaker } from "./scenarios";
import {
  answeredAndSent,
  type BenchRun,
  finishReport,
  loadSettings,
  runMeta,
  runScenario,
  type ScenarioRun,
  servedBy,
  setting,
} from "./session";

const REMOTE_CONNECTIONS = [1, 8, 32];
/** Payees of the credit load: many, so that few credits share a user, amount and second (slugs). */
const PAYEES = 64;

type Run = ScenarioRun & {
  roundTripMs: number;
  groupCommit: boolean;
  /** The model's counters over the warm-up, the measured run and the drain after it… */
  model: ModelStats;
  /** …which took this long. */
  windowMs: number;
};

const fixed = (n: number, digits: number) => (Number.isFinite(n) ? n.toFixed(digits) : "-");

async function modelStats(base: string): Promise<Record<string, ModelStats>> {
  const res = await fetch(`${base}/bench/remote-d1`);
  if (res.status !== 200) throw new Error(`GET /bench/remote-d1 answered ${res.status}`);
  return (await res.json()) as Record<string, ModelStats>;
}

const zero: ModelStats = {
  reads: 0,
  writes: 0,
  writeStatements: 0,
  writerQueueMs: 0,
  writerBusyMs: 0,
};
const minus = (a: ModelStats, b: ModelStats = zero): ModelStats => ({
  reads: a.reads - b.reads,
  writes: a.writes - b.writes,
  writeStatements: a.writeStatements - b.writeStatements,
  writerQueueMs: a.writerQueueMs - b.writerQueueMs,
  writerBusyMs: a.writerBusyMs - b.writerBusyMs,
});

function formatRuns(runs: Run[]) {
  const header = [
    "round trip ms",
    "connections",
    "group commit",
    "credits/s",
    "p50 ms",
    "p99 ms",
    "credits per D1 write",
    "writer busy",
    "CPU ms",
    "errors",
    "on ÷ off",
  ];
  const body = runs.map((r) => {
    const off = runs.find(
      (o) => !o.groupCommit && o.roundTripMs === r.roundTripMs && o.connections === r.connections,
    );
    return [
      String(r.roundTripMs),
      String(r.connections),
      r.groupCommit ? "on" : "off",
      fixed(r.reqPerSec, 1),
      fixed(r.latencyMs.p50, 0),
      fixed(r.latencyMs.p99, 0),
      // A credit writes one statement (its INSERT … SELECT; the request_id lookup beside it reads).
      fixed(r.model.writeStatements / r.model.writes, 2),
      `${fixed((r.model.writerBusyMs / r.windowMs) * 100, 0)}%`,
      fixed(r.cpuMsPerRequest?.workerd ?? Number.NaN, 2),
      String(r.errors),
      r.groupCommit && off ? `${(r.reqPerSec / off.reqPerSec).toFixed(2)}×` : "",
    ];
  });
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((row) => row[i]!.length)));
  const line = (cells: string[]) =>
    `| ${cells.map((c, i) => c.padStart(widths[i]!)).join(" | ")} |`;
  const rule = `|${widths.map((w) => `${"-".repeat(w + 1)}:`).join("|")}|`;
  return [line(header), rule, ...body.map(line)].join("\n");
}

export async function benchRemoteD1({
  roundTripsMs,
  log,
  stopping,
  startedMs,
}: BenchRun & {
  roundTripsMs: number[];
}) {
  const load = loadSettings();
  const durationS = setting("BENCH_DURATION", 5);
  const warmupS = setting("BENCH_WARMUP", 2);
  const runId = Date.now().toString(36);
  const sourcesAtStart = fingerprint();
  const meta = runMeta({
    mode: "remote-d1",
    roundTripsMs,
    connections: REMOTE_CONNECTIONS,
    durationS,
    warmupS,
    payees: PAYEES,
    devtools: load.devtools,
    host: "127.0.0.1",
  });

  log(`starting bench/remote-d1 (${servedBy(load.devtools)}, 127.0.0.1)`);
  const server = await startServer({
    config: "bench/remote-d1/wrangler.toml",
    wranglerDev: load.devtools,
  });
  const auth = await adminAuth(server.api);
  log(`creating ${PAYEES} payees and the fixtures through the API (no latency)`);
  const fx = await makeFixtures({ api: server.api, auth, runId, creditUsers: PAYEES });
  const credits = appScenarioMaker(runId)(server, auth, fx).credits!;

  const runs: Run[] = [];
  let step = 0;
  let warmCredits = 0;
  const steps = roundTripsMs.length * REMOTE_CONNECTIONS.length * 2;
  for (const roundTripMs of roundTripsMs) {
    // Each round trip is its own wrapped binding, and the isolate's caches (wallets, users: the
    // app's db/isolate-cache.ts) are per binding: one credit to each payee first, so that no run
    // pays the first sight of a payee (a read) and the run before it does not.
    log(`${roundTripMs} ms: one credit to each of the ${PAYEES} payees, 8 at a time`);
    const warmHeaders = { [ROUND_TRIP_HEADER]: String(roundTripMs) };
    for (let i = 0; i < fx.users.length; i += 8) {
      await Promise.all(
        fx.users.slice(i, i + 8).map((user) =>
          call(
            server.api,
            auth,
            "POST",
            "/credits",
            {
              user_id: user.id,
              wallet_id: WALLETS[0],
              amount: 1,
              request_id: `warm-${runId}-${roundTripMs}-${user.id}`,
            },
            undefined,
            warmHeaders,
          ),
        ),
      );
    }
    warmCredits += fx.users.length;
    for (const connections of REMOTE_CONNECTIONS) {
      // Which of on and off runs first alternates, so a drift of the machine weighs on both.
      const order = step % 4 === 0 ? [true, false] : [false, true];
      for (const groupCommit of order) {
        if (stopping()) throw new Error("interrupted");
        const headers = {
          ...credits.request.headers,
          [ROUND_TRIP_HEADER]: String(roundTripMs),
          [GROUP_COMMIT_HEADER]: groupCommit ? "on" : "off",
        };
        const before = (await modelStats(server.base))[roundTripMs];
        const windowStart = Date.now();
        const run = await runScenario({
          name: `[${++step}/${steps}] ${roundTripMs} ms, ${connections} connections, group commit ${groupCommit ? "on" : "off"}`,
          base: server.base,
          request: { ...credits.request, headers },
          connections,
          warmupS,
          durationS,
          log,
          pgid: server.child.pid,
        });
        // The model's counters over the measured run, the warm-up's and the drain's included:
        // per credit, they hold whatever the run's share.
        const after = (await modelStats(server.base))[roundTripMs]!;
        const model = minus(after, before);
        const windowMs = Date.now() - windowStart;
        runs.push({ ...run, roundTripMs, groupCommit, model, windowMs });
        log(
          `  ${model.writes} D1 writes for ${model.writeStatements} credits; writer held ${fixed(model.writerBusyMs, 0)} of ${windowMs} ms`,
        );
      }
    }
  }

  await new Promise((r) => setTimeout(r, 1000));
  const measured = answeredAndSent(runs, () => 1); // every run credits 1 a request
  const [answered200, sent] = [measured.answered200 + warmCredits, measured.sent + warmCredits];
  const applied =
    (await balanceSum({ api: server.api, auth, users: fx.users, wallet: WALLETS[0] })) -
    fx.duplicate.amount;
  const ledger = { answered200, sent, applied, ok: applied >= answered200 && applied <= sent };
  const loads = runs.map((r) => r.loadavg1Before);
  const errors = runs.reduce((n, r) => n + r.errors + r.warmup.errors, 0);

  const out: string[] = [];
  out.push(
    `Bench --remote-d1 ${roundTripsMs.join(",")}: credits over a simulated remote D1 (bench/remote-d1/: every D1 call waits the round trip; a write holds the database's one writer for its round trip), group commit on and off.`,
  );
  out.push(
    `Each run ${durationS}s after ${warmupS}s warm-up, ${PAYEES} payees, ${servedBy(load.devtools)}, 127.0.0.1, ${meta.cpus} CPUs shared with the load generator; commit ${meta.commit ?? "?"}.`,
  );
  out.push(
    "Credits per D1 write and writer busy: the model's counters over the warm-up, the run and its drain (busy: the time the one writer was held ÷ that window). CPU ms: workerd per request sent.",
  );
  out.push("");
  out.push(formatRuns(runs));
  out.push("");
  out.push(
    `Load average (1 min) before the runs: ${Math.min(...loads).toFixed(2)} to ${Math.max(...loads).toFixed(2)}; at the end ${loadavg()[0]!.toFixed(2)}.`,
  );
  out.push(
    `Ledger check: ${ledger.ok ? "ok" : "MISMATCH"} (${answered200} credits answered 200, ${sent} sent, ${applied} applied).`,
  );
  if (errors > 0) out.push(`\n${errors} unexpected answers (status codes are in the JSON file).`);
  const valid = finishReport(out, {
    prefix: "remote-d1",
    meta,
    startedMs,
    sourcesAtStart,
    results: { ledger, runs },
  });
  return errors === 0 && ledger.ok && valid;
}
