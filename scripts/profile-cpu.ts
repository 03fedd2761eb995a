// `npm run profile:cpu -- <scenario>`: where the worker's CPU goes on one request kind. Serves the
// app as the bench does (scripts/lib/server.ts: the deploy bundle under Miniflare alone, without the
// emulations it leaves out) with workerd's own DevTools inspector on, makes the bench's fixtures,
// puts one kind of load on it and records the CPU profile of the worker's isolate alone over it
// (Profiler.start / Profiler.stop), then prints the functions with the most self time, each with
// the source file the bundle took it from. Time in V8's built-ins and in functions the optimiser
// inlined counts as the caller's.
//
// Scenarios: any of the bench's (scripts/bench/scenarios.ts: credits, credits-duplicate-409,
// balance-1-wallet, transaction-read…), or of its baseline worker (noop, insert, select,
// select-authed, select-replica and the reads' floors), served the same way: the same measure of a
// bare route. Settings (environment):
// PROFILE_DURATION seconds (10), PROFILE_CONNECTIONS (8), PROFILE_INTERVAL_US sampling (100),
// PROFILE_TOP rows (40), PROFILE_OUT a file for the raw .cpuprofile (open it in DevTools),
// PROFILE_BUNDLE_OUT a file for the bundle it was taken from (its line numbers are the profile's).
import { writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { makeFixtures } from "./bench/fixtures";
import { connectInspector, USER_WORKER } from "./bench/inspector";
import { runLoad } from "./bench/load";
import {
  APP_SCENARIOS,
  appScenarioMaker,
  BASELINE_SCENARIOS,
  baselineScenarios,
  loadOf,
} from "./bench/scenarios";
import { setting } from "./bench/session";
import { runMain, stop } from "./lib/exit";
import { adminAuth, freePort, startServer } from "./lib/server";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
process.chdir(ROOT);

type Frame = {
  functionName: string;
  scriptId: string;
  url: string;
  lineNumber: number;
  columnNumber: number;
};
type ProfileNode = { id: number; callFrame: Frame; children?: number[] };
type Profile = { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[] };

/** The source file of each bundle line, from esbuild's `// src/...` markers. */
function sourceFiles(bundle: string) {
  const files: string[] = [];
  let current = "(bundle)";
  for (const line of bundle.split("\n")) {
    // The app's bundle names `src/…` and `node_modules/…`; the baseline's `worker.ts` and
    // `../../node_modules/…` (its folder is bench/baseline).
    const marker = /^\/\/ (?:\.\.\/)*((?:src|node_modules)\/\S+|[\w.-]+\.ts)$/.exec(line.trim());
    if (marker) current = marker[1]!.replace(/^node_modules\/(\.pnpm\/)?/, "");
    files.push(current);
  }
  return files;
}

function selfTimes(profile: Profile, fileOf: (frame: Frame) => string) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const totals = new Map<string, number>();
  let all = 0;
  for (const [i, id] of profile.samples.entries()) {
    const frame = byId.get(id)!.callFrame;
    const us = profile.timeDeltas[i] ?? 0;
    all += us;
    const key = `${frame.functionName || "(anonymous)"}  ${fileOf(frame)}:${frame.lineNumber + 1}`;
    totals.set(key, (totals.get(key) ?? 0) + us);
  }
  return { all, rows: [...totals].sort((a, b) => b[1] - a[1]) };
}

async function main() {
  const scenario = process.argv[2] ?? "balance-1-wallet";
  const durationS = setting("PROFILE_DURATION", 10);
  const connections = setting("PROFILE_CONNECTIONS", 8);
  const intervalUs = setting("PROFILE_INTERVAL_US", 100);
  const top = setting("PROFILE_TOP", 40);
  // Told at once, before a server and its fixtures are made for it.
  const known: readonly string[] = [...APP_SCENARIOS, ...BASELINE_SCENARIOS];
  if (!known.includes(scenario)) stop(`unknown scenario ${scenario}: ${known.join(", ")}`);
  const inspectorPort = await freePort();
  const baseline = (BASELINE_SCENARIOS as readonly string[]).includes(scenario);
  const server = await startServer({
    wranglerDev: false,
    inspectorPort,
    ...(baseline ? { config: "bench/baseline/wrangler.toml", seedAdmin: false } : {}),
  });
  try {
    const { api } = server;
    const runId = Date.now().toString(36);
    // The bench's own requests (scripts/bench/scenarios.ts), any of them.
    const scenarios = baseline
      ? await baselineScenarios(server, runId)
      : await adminAuth(api).then(async (auth) =>
          appScenarioMaker(runId)(server, auth, await makeFixtures({ api, auth, runId })),
        );
    const chosen = scenarios[scenario]!;
    await runLoad({ ...loadOf(chosen, connections), duration: 3 }); // warm the isolate and its caches

    const inspector = await connectInspector(inspectorPort, USER_WORKER);
    await inspector.call("Profiler.enable");
    await inspector.call("Profiler.setSamplingInterval", { interval: intervalUs });
    await inspector.call("Profiler.start");
    const load = await runLoad({ ...loadOf(chosen, connections), duration: durationS });
    const { profile } = await inspector.call<{ profile: Profile }>("Profiler.stop");
    if (process.env.PROFILE_OUT) writeFileSync(process.env.PROFILE_OUT, JSON.stringify(profile));

    // The bundle the isolate runs, read back from it: its line numbers are the profile's.
    const bundleFrame = profile.nodes.find((n) => n.callFrame.url.startsWith("file://"))!.callFrame;
    await inspector.call("Debugger.enable");
    const { scriptSource: bundleText } = await inspector.call<{ scriptSource: string }>(
      "Debugger.getScriptSource",
      { scriptId: bundleFrame.scriptId },
    );
    inspector.close();
    if (process.env.PROFILE_BUNDLE_OUT) writeFileSync(process.env.PROFILE_BUNDLE_OUT, bundleText);
    const bundleLines = sourceFiles(bundleText);
    const fileOf = (frame: Frame) =>
      frame.url === bundleFrame.url ? bundleLines[frame.lineNumber]! : frame.url || "(native)";
    const { all, rows } = selfTimes(profile, fileOf);
    const idle = rows.find(([key]) => key.startsWith("(idle)"))?.[1] ?? 0;
    const busy = all - idle;
    const requestsDone = load.responses;
    console.log(
      `${scenario}: ${requestsDone} answers in ${durationS} s over ${connections} connections (errors ${load.errors}); ` +
        `sampled CPU ${(busy / 1000).toFixed(0)} ms, ${(busy / requestsDone).toFixed(0)} µs per request`,
    );
    console.log("self µs/request  share  function  file:line");
    for (const [key, us] of rows.filter(([key]) => !key.startsWith("(idle)")).slice(0, top))
      console.log(
        `${(us / requestsDone).toFixed(1).padStart(8)}  ${((us / busy) * 100).toFixed(1).padStart(5)}%  ${key}`,
      );
    // By source file: which module the time is spent in.
    const byFile = new Map<string, number>();
    for (const [key, us] of rows) {
      if (key.startsWith("(idle)")) continue;
      const file = key.split("  ")[1]!.replace(/:\d+$/, "");
      byFile.set(file, (byFile.get(file) ?? 0) + us);
    }
    console.log("\nself µs/request by file");
    for (const [file, us] of [...byFile].sort((a, b) => b[1] - a[1]).slice(0, top))
      console.log(
        `${(us / requestsDone).toFixed(1).padStart(8)}  ${((us / busy) * 100).toFixed(1).padStart(5)}%  ${file}`,
      );
  } finally {
    await server.stop();
  }
}

await runMain(() => main().then(() => 0));
