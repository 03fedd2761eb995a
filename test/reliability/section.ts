// One test file is one section. `section()` signs in on the run's server before the file's tests
// (or starts a server of the section's own), gives each check its share of the run's time budget,
// ends with the checks every section owes (no 5xx, no secret shown), and leaves its tally and
// figures for the summary the global teardown prints.
import { rmSync } from "node:fs";
import { afterAll, beforeAll, inject, it } from "vitest";
import { type Server, startServer, stopAllServers } from "../../scripts/lib/server";
import { type Ctx, connect } from "./api";
import { check, figures, leaks, tally, traffic } from "./harness";
import { SECTIONS, type SectionName, writeReport } from "./summary";

/** What the global setup hands every test file (vitest's provide/inject). */
export type ReliabilityRun = {
  base: string;
  api: string;
  stateDir: string;
  jwtSecret: string;
  /** The wrangler config of the run's copy of the worker. */
  config: string;
  /** fast-check seed: RELIABILITY_SEED, or drawn at random. */
  seed: number;
  startedAtMs: number;
  /** Where each section leaves its report for the summary. */
  runDir: string;
};

declare module "vitest" {
  export interface ProvidedContext {
    reliability: ReliabilityRun;
  }
}

export type Section = {
  run: ReliabilityRun;
  /** The signed-in context (set before the file's first test). */
  ctx(): Ctx;
  /**
   * A deadline `ms` from now, for a loop bounded by time (fast-check's runs, timing samples). Each
   * check gets its own time whenever it starts, so a slow machine runs fewer cases, never none.
   */
  deadlineFor(ms: number): number;
  /** The section's own server, for `{ ownServer: true }`. */
  server(): Server;
};

/**
 * A server of a test's own on fresh migrated, seeded state (the run's copy of the worker);
 * `stop()` removes the state.
 */
export const startOnCopy = (
  run: ReliabilityRun,
  options: Pick<
    Parameters<typeof startServer>[0] & object,
    "logLevel" | "wranglerDev" | "shippedRateLimits" | "emulations"
  > = {},
) =>
  startServer({
    config: run.config,
    logLevel: "warn",
    ...options,
  });

/**
 * Declares the section this file is. With `ownServer`, a fresh server (fresh migrated, seeded
 * state, the run's copy of the worker) is started for it, and every server it started is stopped
 * after it, its state removed; `"served"` makes that server the deploy bundle under Miniflare
 * alone as `npm run serve` runs it (assets router and rate limiter included; the money limit
 * raised out of the way), where wrangler dev's proxy would rewrite a request first.
 */
export function section(
  name: SectionName,
  { ownServer = false }: { ownServer?: boolean | "served" } = {},
): Section {
  const run = inject("reliability");
  let ctx: Ctx | undefined;
  let own: Server | undefined;
  let ownState: string | undefined;
  beforeAll(async () => {
    console.log(`\n== ${SECTIONS[name]} ==`);
    if (ownServer) {
      own = await startOnCopy(
        run,
        ownServer === "served" ? { wranglerDev: false, emulations: true } : {},
      );
      ownState = own.stateDir;
    }
    ctx = await connect(own ?? run, run.config);
  });
  afterAll(async () => {
    await stopAllServers(); // a section's own servers (a restart too), whatever its tests left
    if (ownState) rmSync(ownState, { recursive: true, force: true });
    writeReport(run.runDir, {
      name,
      title: SECTIONS[name],
      tally,
      figures,
      traffic,
      leaks: leaks.length,
    });
  });
  return {
    run,
    ctx: () => {
      if (!ctx) throw new Error("the section has not signed in");
      return ctx;
    },
    deadlineFor: (ms) => Date.now() + ms,
    server: () => {
      if (!own) throw new Error("the section has no server of its own");
      return own;
    },
  };
}

/** The checks every section ends with, over every response it read. */
export function endOfSection() {
  it("no answer of the worker in this section was a 5xx, and none showed a password, a password hash or an API key after its creation", () => {
    check(
      `no answer of the worker in this section was a 5xx (${traffic.responses} responses)`,
      traffic.status5xx.length === 0,
      traffic.status5xx.slice(0, 10).join("\n"),
    );
    check(
      `no response in this section showed a password, a password hash or an API key after its creation (${traffic.responses} responses scanned)`,
      leaks.length === 0,
      leaks.slice(0, 10).join("\n"),
    );
  });
}
