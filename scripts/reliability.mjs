// `npm run test:reliability`: starts `wrangler dev` on a free 127.0.0.1 port with throwaway D1 state,
// runs the reliability checks over HTTP (concurrency, hostile input, authorization, timing, crash
// safety), reads the ledger's invariants straight from D1, stops everything it started, prints a
// summary ending in "N passed, M failed" and exits non-zero on any failure.
//
// Environment: RELIABILITY_SEED (fast-check seed), RELIABILITY_ONLY (comma-separated sections:
// concurrency,hostile,authz,throttle,timing,crash), RELIABILITY_VERBOSE=1 (print passing checks too).
import { startServer, stopAllServers } from "./lib/server.ts";
import { connect } from "./reliability/api.mjs";
import { runAuthz } from "./reliability/authz.mjs";
import { runConcurrency } from "./reliability/concurrency.mjs";
import { runCrash } from "./reliability/crash.mjs";
import {
  check,
  figures,
  histogram,
  leaks,
  results,
  sectionTally,
  startSection,
  traffic,
  truncate,
} from "./reliability/harness.mjs";
import { runHostile } from "./reliability/hostile.mjs";
import { checkLedgerInvariants, stopQueries, useWranglerConfig } from "./reliability/ledger.mjs";
import { snapshotApp } from "./reliability/snapshot.mjs";
import { runThrottle } from "./reliability/throttle.mjs";
import { CONSTANT_TIME, runTiming } from "./reliability/timing.mjs";

const started = Date.now();
// The whole run stays under ~5 minutes: every section gets a share of this and bounds its loops.
const BUDGET_MS = 270_000;
const only = new Set(
  (process.env.RELIABILITY_ONLY ?? "concurrency,hostile,authz,throttle,timing,crash")
    .split(",")
    .map((s) => s.trim()),
);
const seed = Number(process.env.RELIABILITY_SEED ?? Math.floor(Math.random() * 2 ** 31));

let app;
let cleaning;
/** Stops every process this run started and removes its folders; every caller awaits the same work. */
const cleanup = () =>
  (cleaning ??= (async () => {
    stopQueries();
    await stopAllServers({ keepState: false });
    app?.remove();
  })());
process.on("exit", stopQueries); // synchronous: no query outlives the run
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) {
  process.on(signal, async () => {
    console.error(`\n${signal}: stopping the servers this run started…`);
    await cleanup();
    process.exit(130);
  });
}

const SECTIONS = [
  ["concurrency", "1. Concurrency"],
  ["hostile", "2. Hostile input"],
  ["authz", "3. Authorization"],
  ["throttle", "6. Sign-in throttling"],
  ["timing", "5. Timing"],
  ["crash", "4. Crash safety"],
];

async function main() {
  console.log(`Reliability run: seed ${seed}, sections ${[...only].join(", ")}`);
  app = snapshotApp();
  useWranglerConfig(app.config);
  const server = await startServer({ config: app.config, logLevel: "warn" });
  console.log(
    `wrangler dev on ${server.base} serving a copy of the worker in ${app.dir}, state in ${server.stateDir} (${((Date.now() - started) / 1000).toFixed(1)} s to start)`,
  );
  let ctx = await connect(server, app.config);
  const deadlineFor = (ms) => Math.min(Date.now() + ms, started + BUDGET_MS);

  if (only.has("concurrency"))
    await guarded("concurrency", () => runConcurrency(ctx, { deadline: deadlineFor(60_000) }));
  if (only.has("hostile"))
    await guarded("hostile", () => runHostile(ctx, { seed, deadline: deadlineFor(105_000) }));
  if (only.has("authz")) await guarded("authz", () => runAuthz(ctx));
  if (only.has("throttle")) await guarded("throttle", () => runThrottle(ctx));
  if (only.has("timing"))
    await guarded("timing", () => runTiming(ctx, { deadline: deadlineFor(80_000) }));
  if (only.has("crash")) {
    await guarded("crash", async () => {
      ctx = await runCrash(ctx, { deadline: deadlineFor(60_000) });
    });
  }

  startSection("final", "Whole run");
  await checkLedgerInvariants(ctx.stateDir, "end of run");
  check(
    `no answer of the worker in the whole run was a 5xx (${traffic.responses} responses)`,
    traffic.status5xx.length === 0,
    traffic.status5xx.slice(0, 10).join("\n"),
  );
  check(
    `no response in the whole run showed a password, a password hash or an API key after its creation (${traffic.responses} responses scanned)`,
    leaks.length === 0,
    leaks.slice(0, 10).join("\n"),
  );
}

/** Runs a section; an exception is a failed check, and the run goes on to the next section. */
async function guarded(name, fn) {
  try {
    await fn();
  } catch (error) {
    check(`${name}: section ran to the end`, false, truncate(error?.stack ?? String(error), 2000));
  }
}

function summary() {
  const secs = ((Date.now() - started) / 1000).toFixed(1);
  console.log("\n== Summary ==");
  for (const [name, title] of [...SECTIONS, ["final", "Whole run"]]) {
    const { passed, failed } = sectionTally(name);
    if (passed + failed > 0)
      console.log(`  ${title.padEnd(20)} ${passed} passed, ${failed} failed`);
  }
  const setup = sectionTally("setup");
  if (setup.failed)
    console.log(`  ${"Setup".padEnd(20)} ${setup.passed} passed, ${setup.failed} failed`);
  const f = figures;
  if (f.distinctCredits)
    console.log(
      `  distinct credits: ${f.distinctCredits.sent} in ${f.distinctCredits.seconds.toFixed(1)} s (${f.distinctCredits.perSecond}/s)`,
    );
  if (f.hostile)
    console.log(
      `  hostile cases: ${f.hostile.cases} (${f.hostile.mixed} mixed, ${f.hostile.refused} must-refuse) over ${f.hostile.routes} routes, seed ${seed}; 5xx: ${f.hostile.status5xx}; statuses: ${f.hostile.statuses}`,
    );
  if (f.streamedUploads) console.log(`  streamed uploads over 64 KiB: ${f.streamedUploads}`);
  if (f.authz)
    console.log(
      `  authorization cases: ${f.authz.cases} over ${f.authz.routes} routes and ${f.authz.credentials} credential kinds`,
    );
  if (f.crash) {
    const c = f.crash;
    console.log(
      `  crash: ${c.sent} credits sent, ${c.acked} acknowledged before SIGKILL, ${c.foundAfter} of them found after restart (each once), ${c.unanswered} unanswered → retried ${c.retried}: ${c.appliedByRetry} applied by the retry, ${c.alreadyThere} already applied (409)`,
    );
  }
  if (f.timing)
    for (const t of f.timing)
      console.log(
        `  timing ${t.name}: medians ${t.a.toFixed(2)} ms vs ${t.b.toFixed(2)} ms, ratio ${t.ratio.toFixed(3)} (${t.samples} samples each)`,
      );
  if (f.signIn) {
    const kinds = Object.keys(f.signIn.medians);
    console.log(
      `  sign-in refusals (median ms, ratio to an unknown user; ${f.signIn.samples} samples each): ${kinds.map((k) => `${k} ${f.signIn.medians[k].toFixed(1)} (×${f.signIn.ratios[k].toFixed(3)})`).join(", ")}`,
    );
    console.log(
      `  a good imported bcrypt-12 sign-in (not padded): median ${f.signIn.goodBcrypt12.toFixed(1)} ms`,
    );
  }
  if (f.invariantRuns)
    console.log(
      `  ledger invariants: checked ${f.invariantRuns} times, last over ${f.entriesChecked} entries and ${f.pairsChecked} (user, wallet) balances`,
    );
  console.log(
    `  responses: ${traffic.responses}, 5xx: ${traffic.status5xx.length}, secrets leaked: ${leaks.length}, network errors: ${traffic.networkErrors}`,
  );
  if (traffic.devProxy503.length)
    console.log(
      `  wrangler dev proxy 503s (its report of a connection cut, not an answer of the worker): ${traffic.devProxy503.length}`,
    );
  if (traffic.transportRetries.length) {
    console.log(
      `  local-stack connection failures retried once (hostile cases only; never an answer of the worker): ${traffic.transportRetries.length} (${histogram(traffic.transportRetries.map((t) => t.split(": ")[1]))})`,
    );
  }
  console.log("  constant time:");
  for (const line of CONSTANT_TIME) console.log(`    - ${line}`);
  console.log(`  run time ${secs} s`);
  const failed = results.filter((r) => !r.ok);
  if (failed.length) {
    console.log("\nFailed checks:");
    for (const r of failed) console.log(`  - [${r.section}] ${r.name}`);
  }
  console.log(`\n${results.length - failed.length} passed, ${failed.length} failed`);
  return failed.length;
}

let exitCode = 1;
try {
  await main();
} catch (error) {
  check("the run completed", false, truncate(error?.stack ?? String(error), 2000));
} finally {
  await cleanup();
  exitCode = summary() > 0 ? 1 : 0;
}
process.exit(exitCode);
