// Starts the run's server once for every section: `wrangler dev` on a free 127.0.0.1 port, with
// throwaway D1 state, migrated and seeded, serving a copy of the worker taken now; hands its address
// to the test files (provide/inject); on teardown stops it, removes the copy and prints the run's
// summary. Both projects of the suite (vitest.config.ts) name this file, and vitest runs it once per
// project: the second finds the first's run in this process and shares it, and the last teardown
// ends it.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
import { startServer } from "../../scripts/lib/server";
import type { ReliabilityRun } from "./section";
import { snapshotApp } from "./snapshot";
import { printSummary } from "./summary";

function seedFromEnv() {
  const text = process.env.RELIABILITY_SEED;
  if (text === undefined || text === "") return Math.floor(Math.random() * 2 ** 31);
  const seed = Number(text);
  if (!Number.isSafeInteger(seed)) throw new Error(`RELIABILITY_SEED is not an integer: ${text}`);
  return seed;
}

type Shared = { run: Promise<ReliabilityRun & { end(): Promise<void> }>; users: number };
// Kept on globalThis: each project loads this module anew.
const SHARED = Symbol.for("wallet-ledger reliability: the run's server");
const kept = globalThis as typeof globalThis & { [SHARED]?: Shared };

export default async function setup(project: TestProject) {
  const shared = (kept[SHARED] ??= { run: start(), users: 0 });
  shared.users++;
  const { end, ...run } = await shared.run.catch((error) => {
    kept[SHARED] = undefined;
    throw error;
  });
  project.provide("reliability", run);
  return async () => {
    if (--shared.users > 0) return;
    kept[SHARED] = undefined;
    await end();
  };
}

async function start() {
  const startedAtMs = Date.now();
  const seed = seedFromEnv();
  const app = snapshotApp();
  const runDir = mkdtempSync(join(tmpdir(), "wallet-reliability-"));
  const server = await startServer({ config: app.config, logLevel: "warn" }).catch((error) => {
    app.remove();
    rmSync(runDir, { recursive: true, force: true });
    throw error;
  });
  console.log(
    `Reliability run: seed ${seed}; wrangler dev on ${server.base} serving a copy of the worker in ${app.dir}, state in ${server.stateDir} (${((Date.now() - startedAtMs) / 1000).toFixed(1)} s to start)`,
  );
  return {
    base: server.base,
    api: server.api,
    stateDir: server.stateDir,
    jwtSecret: server.jwtSecret,
    config: app.config,
    seed,
    startedAtMs,
    runDir,
    async end() {
      await server.stop({ keepState: false });
      app.remove();
      printSummary(runDir, seed, startedAtMs);
      rmSync(runDir, { recursive: true, force: true });
    },
  };
}
