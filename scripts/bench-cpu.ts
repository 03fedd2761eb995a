// `npm run bench:cpu -- <dir>...`: the worker's CPU per request, this working tree against other
// checkouts of the service (`git worktree add --detach /tmp/ref <ref>`, then `npm ci` there), side by
// side in one run. Both are served the way `npm run bench` serves the app (scripts/lib/server.ts:
// wrangler dev without the DevTools inspector, log level warn, each with its own migrated D1 state)
// and get the same fixtures through their API (scripts/bench/fixtures.ts). Then, round after round,
// each scenario runs on each server in turn, the order rotated every round, and the workerd CPU
// time of each server's process group over each run (scripts/bench/cost.ts) is divided by the
// requests sent. Interleaving spreads the machine's changing load over all; the medians per
// scenario and each checkout's ratio to this tree are the result.
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
  return patiently(() =>
    startServer({ config, persistTo: state, prepared: true, devtools: false }),
  );
}

/** A server start, tried three times: on a loaded machine one can take longer than its 60 s. */
async function patiently(start: () => Promise<Server>) {
  for (let attempt = 1; ; attempt++) {
    try {
      return await start();
    } catch (error) {
      if (attempt === 3) throw error;
      log(`start failed (${(error as Error).message}); trying again`);
    }
  }
}

async function main() {
  const refDirs = process.argv.slice(2);
  if (refDirs.length === 0 || !refDirs.every((dir) => existsSync(join(dir, "wrangler.toml"))))
    throw new Error("usage: npm run bench:cpu -- <checkouts of the service, with node_modules>...");
  const meta = runMeta({
    rounds: ROUNDS,
    durationS: DURATION,
    warmupS: WARMUP,
    connections: CONNECTIONS,
    against: refDirs.map((dir) => resolve(dir)),
  });
  log(
    `starting this tree and ${refDirs.join(", ")} (wrangler dev without DevTools, log level warn)`,
  );
  const servers: { label: string; server: Server }[] = [
    {
      label: "this tree",
      server: await patiently(() => startServer({ config: "wrangler.toml", devtools: false })),
    },
  ];
  for (const dir of refDirs) servers.push({ label: dir, server: await startCheckout(dir) });
  const runId = Date.now().toString(36);
  type Load = { request: autocannon.Request; expectStatus?: number };
  const requests: Record<string, Load>[] = [];
  for (const { label, server } of servers) {
    const auth = await adminAuth(server.api);
    log(`${label}: fixtures`);
    const fx = await makeFixtures({ api: server.api, auth, runId, historyEntries: 10 });
    const path = new URL(server.api).pathname;
    const headers = { Authorization: auth, "Content-Type": "application/json" };
    let seq = 0;
    requests.push({
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
    });
  }

  type Run = {
    round: number;
    server: number;
    name: string;
    cpuMs: number;
    reqPerSec: number;
    errors: number;
    loadavg1: number;
  };
  const runs: Run[] = [];
  for (let round = 1; round <= ROUNDS; round++) {
    for (const [i, name] of SCENARIOS.entries()) {
      const shift = (round + i) % servers.length;
      const order = servers.map((_, k) => (k + shift) % servers.length);
      for (const k of order) {
        if (stopping()) throw new Error("interrupted");
        const { request, expectStatus } = requests[k]![name]!;
        const run = await runScenario({
          name: `${name} (${servers[k]!.label}, round ${round})`,
          base: servers[k]!.server.base,
          request,
          expectStatus,
          connections: CONNECTIONS,
          warmupS: WARMUP,
          durationS: DURATION,
          log,
          pgid: servers[k]!.server.child.pid,
        });
        runs.push({
          round,
          server: k,
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
    const of = (k: number) => runs.filter((r) => r.name === name && r.server === k);
    const mine = of(0);
    return {
      name,
      servers: servers.map(({ label }, k) => {
        // Per round: this checkout's CPU ÷ this tree's (above 1: this tree is cheaper).
        const ratios = of(k).map((r) => r.cpuMs / mine.find((m) => m.round === r.round)!.cpuMs);
        return {
          label,
          cpuMs: median(of(k).map((r) => r.cpuMs)),
          reqPerSec: median(of(k).map((r) => r.reqPerSec)),
          ratio: median(ratios),
          ratios,
          errors: of(k).reduce((n, r) => n + r.errors, 0),
        };
      }),
    };
  });
  const file = writeResults("cpu", meta, started, { runs, summary });
  console.log(
    `commit ${meta.commit}; ${ROUNDS} rounds × ${DURATION} s (after ${WARMUP} s of warm-up) over ${CONNECTIONS} connections`,
  );
  console.log(
    `load average (1 min) at start ${meta.loadavgAtStart[0]!.toFixed(2)}, at end ${loadavg()[0]!.toFixed(2)}; ${file}`,
  );
  console.log(
    "| scenario | checkout | workerd CPU ms per request (median) | ratio to this tree (median; per round) | req/s | errors |",
  );
  console.log("|---|---|---:|---|---:|---:|");
  for (const s of summary)
    for (const r of s.servers)
      console.log(
        `| ${s.name} | ${r.label} | ${r.cpuMs.toFixed(3)} | ${r.label === "this tree" ? "" : `**${r.ratio.toFixed(2)}×** (${r.ratios.map((x) => x.toFixed(2)).join(", ")})`} | ${r.reqPerSec.toFixed(0)} | ${r.errors} |`,
      );
  for (const { server } of servers) await server.stop({ keepState: false });
  return summary.every((s) => s.servers.every((r) => r.errors === 0));
}

await runBench(main, { log, stopping, startedMs: started });
