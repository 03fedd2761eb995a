// `npm run bench:cpu -- <dir>`: the worker's CPU per request, this working tree against another
// checkout of the service (`git worktree add --detach /tmp/ref <ref>`, then `npm ci` there), side by
// side in one run. Both are served the way `npm run bench` serves the app (scripts/lib/server.ts:
// wrangler dev without the DevTools inspector, log level warn, each with its own migrated D1 state)
// and get the same fixtures through their API (scripts/bench/fixtures.ts). Then, round after round,
// each scenario runs on one and then the other, the order swapped every round, and the workerd CPU
// time of each server's process group over each run (scripts/bench/cost.ts) is divided by the
// requests sent. Interleaving spreads the machine's changing load over both; the medians per
// scenario and their ratio are the result.
//
// Scenarios: credits (a new request_id each), a duplicate credit (409), a balance read of one
// wallet: the bench's (scripts/bench.ts). Settings (environment): CPU_ROUNDS (5), CPU_DURATION
// seconds per run (6), CPU_WARMUP seconds before each (2), CPU_CONNECTIONS (8). Output: a table on
// stdout, progress on stderr, bench-results/cpu-<date>.json.
import { existsSync, mkdtempSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type autocannon from "autocannon";
import { makeFixtures, WALLETS } from "./bench/fixtures";
import {
  progressLog,
  runBench,
  runMeta,
  runScenario,
  setting,
  stopOnSignals,
  writeResults,
} from "./bench/session";
import { ADMIN, adminAuth, type Server, startServer } from "./lib/server";
import { wrangler } from "./lib/wrangler";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
process.chdir(ROOT);

const ROUNDS = setting("CPU_ROUNDS", 5);
const DURATION = setting("CPU_DURATION", 6);
const WARMUP = setting("CPU_WARMUP", 2);
const CONNECTIONS = setting("CPU_CONNECTIONS", 8);
const SCENARIOS = ["credits", "credits-duplicate-409", "balance-1-wallet"] as const;

const started = Date.now();
const log = progressLog("cpu", started);
const stopping = stopOnSignals(log);

/**
 * Starts the checkout in `dir` on its own migrated state, its administrator seeded by its own
 * scripts/lib/admin (the users table is that checkout's).
 */
async function startCheckout(dir: string): Promise<Server> {
  const config = join(dir, "wrangler.toml");
  const state = mkdtempSync(join(tmpdir(), "wallet-cpu-ref-"));
  const args = ["--config", config, "--persist-to", state];
  wrangler(["d1", "migrations", "apply", "DB", "--local", ...args], { quiet: true });
  const admin = ["ts", "mjs"].map((ext) => join(dir, `scripts/lib/admin.${ext}`)).find(existsSync);
  if (!admin) throw new Error(`${dir} has no scripts/lib/admin.ts or .mjs`);
  const { ensureAdmin } = await import(pathToFileURL(admin).href);
  await ensureAdmin({ target: "--local", ...ADMIN, wranglerArgs: args });
  return startServer({ config, persistTo: state, prepared: true, devtools: false });
}

async function main() {
  const refDir = process.argv[2];
  if (!refDir || !existsSync(join(refDir, "wrangler.toml")))
    throw new Error("usage: npm run bench:cpu -- <a checkout of the service, with node_modules>");
  const meta = runMeta({
    rounds: ROUNDS,
    durationS: DURATION,
    warmupS: WARMUP,
    connections: CONNECTIONS,
    against: resolve(refDir),
  });
  log(`starting this tree and ${refDir} (wrangler dev without DevTools, log level warn)`);
  const servers = {
    app: await startServer({ config: "wrangler.toml", devtools: false }),
    ref: await startCheckout(refDir),
  };
  const runId = Date.now().toString(36);
  type Kind = keyof typeof servers;
  const requests = {} as Record<
    Kind,
    Record<string, { request: autocannon.Request; expectStatus?: number }>
  >;
  for (const kind of ["app", "ref"] as const) {
    const server = servers[kind];
    const auth = await adminAuth(server.api);
    log(`${kind}: fixtures`);
    const fx = await makeFixtures({ api: server.api, auth, runId, historyEntries: 10 });
    const path = new URL(server.api).pathname;
    const headers = { Authorization: auth, "Content-Type": "application/json" };
    let seq = 0;
    requests[kind] = {
      credits: {
        request: {
          method: "POST",
          path: `${path}/credits`,
          headers,
          setupRequest: (req) => {
            const n = ++seq;
            const user = fx.users[n % fx.users.length]!;
            const body = {
              user_id: user.id,
              wallet_id: WALLETS[0],
              amount: 1,
              request_id: `c-${runId}-${n}`,
            };
            return { ...req, body: JSON.stringify(body) };
          },
        },
      },
      "credits-duplicate-409": {
        expectStatus: 409,
        request: {
          method: "POST",
          path: `${path}/credits`,
          headers,
          body: JSON.stringify(fx.duplicate),
        },
      },
      "balance-1-wallet": {
        request: {
          method: "GET",
          path: `${path}/user-wallet-balance?user_id=${fx.reader.id}&wallet_id=${WALLETS[0]}&formatted=yes`,
          headers,
        },
      },
    };
  }

  const runs: {
    round: number;
    kind: Kind;
    name: string;
    cpuMs: number;
    reqPerSec: number;
    errors: number;
    loadavg1: number;
  }[] = [];
  for (let round = 1; round <= ROUNDS; round++) {
    for (const [i, name] of SCENARIOS.entries()) {
      const order: Kind[] = (round + i) % 2 === 0 ? ["app", "ref"] : ["ref", "app"];
      for (const kind of order) {
        if (stopping()) throw new Error("interrupted");
        const { request, expectStatus } = requests[kind][name]!;
        const run = await runScenario({
          name: `${name} (${kind}, round ${round})`,
          base: servers[kind].base,
          request,
          expectStatus,
          connections: CONNECTIONS,
          warmupS: WARMUP,
          durationS: DURATION,
          log,
          pgid: servers[kind].child.pid,
        });
        runs.push({
          round,
          kind,
          name,
          cpuMs: run.cpuMsPerRequest!.workerd,
          reqPerSec: run.reqPerSec,
          errors: run.errors,
          loadavg1: run.loadavg1Before,
        });
      }
    }
  }

  const median = (values: number[]) => {
    const sorted = [...values].sort((a, b) => a - b);
    const mid = sorted.length >> 1;
    return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
  };
  const summary = SCENARIOS.map((name) => {
    const of = (kind: Kind) => runs.filter((r) => r.name === name && r.kind === kind);
    const app = of("app");
    const ref = of("ref");
    // Per round: ref's CPU ÷ app's (above 1: this tree is cheaper); the median of those.
    const ratios = app.map((a) => ref.find((r) => r.round === a.round)!.cpuMs / a.cpuMs);
    return {
      name,
      appCpuMs: median(app.map((r) => r.cpuMs)),
      refCpuMs: median(ref.map((r) => r.cpuMs)),
      cpuRatio: median(ratios),
      cpuRatios: ratios,
      appReqPerSec: median(app.map((r) => r.reqPerSec)),
      refReqPerSec: median(ref.map((r) => r.reqPerSec)),
      errors: app.concat(ref).reduce((n, r) => n + r.errors, 0),
    };
  });
  const file = writeResults("cpu", meta, started, { runs, summary });
  console.log(
    `commit ${meta.commit} against ${refDir}; ${ROUNDS} rounds × ${DURATION} s over ${CONNECTIONS} connections`,
  );
  console.log(
    `load average (1 min) at start ${meta.loadavgAtStart[0]!.toFixed(2)}, at end ${loadavg()[0]!.toFixed(2)}; ${file}`,
  );
  console.log(
    "| scenario | workerd CPU ms, this tree | the other | ratio (other ÷ this; per round) | req/s this / other | errors |",
  );
  console.log("|---|---:|---:|---|---:|---:|");
  for (const s of summary)
    console.log(
      `| ${s.name} | ${s.appCpuMs.toFixed(3)} | ${s.refCpuMs.toFixed(3)} | **${s.cpuRatio.toFixed(2)}×** (${s.cpuRatios.map((r) => r.toFixed(2)).join(", ")}) | ${s.appReqPerSec.toFixed(0)} / ${s.refReqPerSec.toFixed(0)} | ${s.errors} |`,
    );
  for (const server of Object.values(servers)) await server.stop({ keepState: false });
  return summary.every((s) => s.errors === 0);
}

await runBench(main, { log, stopping, startedMs: started });
