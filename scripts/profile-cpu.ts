// `npm run profile:cpu -- <scenario>`: where the worker's CPU goes on one request kind. Starts the
// app (wrangler's own `unstable_startWorker`, as scripts/lib/dev-worker.ts does, but with the
// DevTools inspector on), makes the bench's fixtures, puts one kind of load on it and records
// workerd's CPU profile over it through the inspector (Profiler.start / Profiler.stop), then prints
// the functions with the most self time, each with the source file the bundle took it from.
//
// The inspector costs wrangler's Node process CPU per D1 call and per log line (BENCHMARKS.md), and
// slows workerd a little; the profile's shares, not its absolute figures, are what it is for.
//
// Scenarios: any of the bench's (scripts/bench/scenarios.ts: credits, credits-duplicate-409,
// balance-1-wallet, transaction-read…). Settings (environment):
// PROFILE_DURATION seconds (10), PROFILE_CONNECTIONS (8), PROFILE_INTERVAL_US sampling (100),
// PROFILE_TOP rows (40), PROFILE_OUT a file for the raw .cpuprofile (open it in DevTools),
// PROFILE_BUNDLE_OUT a file for the bundle it was taken from (its line numbers are the profile's).
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { unstable_startWorker } from "wrangler";
import { makeFixtures } from "./bench/fixtures";
import { runLoad } from "./bench/load";
import { appScenarioMaker, loadOf } from "./bench/scenarios";
import { setting } from "./bench/session";
import { adminAuth, freePort, prepareState } from "./lib/server";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
process.chdir(ROOT);

type Frame = { functionName: string; url: string; lineNumber: number; columnNumber: number };
type ProfileNode = { id: number; callFrame: Frame; children?: number[] };
type Profile = { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[] };

/**
 * A minimal Chrome DevTools Protocol client over Node's WebSocket (`--experimental-websocket` on
 * Node 20); wrangler's inspector proxy wants an Origin header, which undici's WebSocket can send.
 */
async function cdp(url: string) {
  const socket = new WebSocket(url, {
    headers: { Origin: "http://localhost" },
  } as unknown as string[]);
  await new Promise((resolve, reject) => {
    socket.addEventListener("open", resolve, { once: true });
    socket.addEventListener("error", reject, { once: true });
  });
  let next = 0;
  const pending = new Map<number, (message: { result?: unknown; error?: unknown }) => void>();
  const events: { method: string; params: Record<string, unknown> }[] = [];
  socket.addEventListener("message", (event) => {
    const message = JSON.parse(String(event.data));
    if (message.id !== undefined) pending.get(message.id)?.(message);
    else events.push(message);
  });
  const send = <T>(method: string, params: object = {}) =>
    new Promise<T>((resolve, reject) => {
      const id = ++next;
      pending.set(id, (message) =>
        message.error
          ? reject(new Error(JSON.stringify(message.error)))
          : resolve(message.result as T),
      );
      socket.send(JSON.stringify({ id, method, params }));
    });
  return { send, events, close: () => socket.close() };
}

/** The source file of each bundle line, from esbuild's `// src/...` markers. */
function sourceFiles(bundle: string) {
  const files: string[] = [];
  let current = "(bundle)";
  for (const line of bundle.split("\n")) {
    const marker = /^\/\/ ((?:src|node_modules)\/\S+)$/.exec(line.trim());
    if (marker) current = marker[1]!.replace(/^node_modules\/(\.pnpm\/)?/, "");
    files.push(current);
  }
  return files;
}

/** The newest of wrangler dev's bundles under .wrangler/tmp. */
function devBundle() {
  const dirs = readdirSync(".wrangler/tmp")
    .filter((d) => d.startsWith("dev-"))
    .map((d) => join(".wrangler/tmp", d, "index.js"))
    .filter((f) => {
      try {
        return statSync(f).isFile();
      } catch {
        return false;
      }
    });
  return dirs.sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs)[0]!;
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
  const state = mkdtempSync(join(tmpdir(), "wallet-profile-"));
  await prepareState(state);
  const port = await freePort();
  const inspectorPort = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const worker = await unstable_startWorker({
    config: "wrangler.toml",
    bindings: {
      JWT_SECRET: { type: "plain_text", value: "p".repeat(64) },
      SITE_URL: { type: "plain_text", value: base },
      // Profiled load comes from one caller: the money rate limit is raised out of its way (its
      // Miniflare emulation, a Durable Object over fetch, shows as cloudflare-internal:ratelimit).
      MONEY_RATE_LIMIT: {
        type: "ratelimit",
        namespace_id: "1001",
        simple: { limit: 1_000_000_000, period: 60 },
      },
    },
    dev: {
      inspector: { hostname: "127.0.0.1", port: inspectorPort },
      server: { hostname: "127.0.0.1", port },
      persist: state,
      logLevel: "warn",
      watch: false,
    },
  });
  try {
    await worker.ready;
    const api = `${base}/wp-json/wallet/v1`;
    const auth = await adminAuth(api);
    const runId = Date.now().toString(36);
    const fx = await makeFixtures({ api, auth, runId });
    // The bench's own requests (scripts/bench/scenarios.ts), any of them.
    const scenarios = appScenarioMaker(runId)({ base, api }, auth, fx);
    const chosen = scenarios[scenario];
    if (!chosen)
      throw new Error(`unknown scenario ${scenario}: ${Object.keys(scenarios).join(", ")}`);
    await runLoad({ ...loadOf(chosen, connections), duration: 3 }); // warm the isolate and its caches

    const targets = (await (await fetch(`http://127.0.0.1:${inspectorPort}/json`)).json()) as {
      webSocketDebuggerUrl: string;
    }[];
    const inspector = await cdp(targets[0]!.webSocketDebuggerUrl);
    await inspector.send("Profiler.enable");
    await inspector.send("Profiler.setSamplingInterval", { interval: intervalUs });
    await inspector.send("Profiler.start");
    const load = await runLoad({ ...loadOf(chosen, connections), duration: durationS });
    const { profile } = await inspector.send<{ profile: Profile }>("Profiler.stop");
    inspector.close();
    if (process.env.PROFILE_OUT) writeFileSync(process.env.PROFILE_OUT, JSON.stringify(profile));

    // wrangler dev's bundle of this run, on disk while the worker runs (.wrangler/tmp/dev-*/index.js)
    const bundleText = readFileSync(devBundle(), "utf8");
    if (process.env.PROFILE_BUNDLE_OUT) writeFileSync(process.env.PROFILE_BUNDLE_OUT, bundleText);
    const bundleLines = sourceFiles(bundleText);
    // The bundle's frames: "index.js" under wrangler 4.86, "file:///bundle/index.js" under 4.164.
    const fileOf = (frame: Frame) =>
      frame.url === "index.js" || frame.url === "file:///bundle/index.js"
        ? bundleLines[frame.lineNumber]!
        : frame.url || "(native)";
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
    await worker.dispose();
    rmSync(state, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
