// `wrangler dev` without the DevTools inspector, for the benchmarks (scripts/lib/server.ts starts it
// with `devtools: false`). The CLI always starts the inspector, and with it attached wrangler's Node
// process spent about 0.9 ms of CPU per D1 call and 0.45 ms per console.log line, as much as the
// worker itself (BENCHMARKS.md#wranglers-devtools-inspector): a cost no deployed Worker pays.
// Wrangler's own programmatic start (`unstable_startWorker`, what `wrangler dev` runs) takes
// `inspector: false`; everything else is the CLI's: the config's bindings, vars and flags, the same
// bundle (the Node.js compatibility mode the CLI derives from the config's date and flags, through
// miniflare's own function), the local D1 state under `persist`, the worker's console lines on
// stdout from log level "log".
//
// Usage (a child process, in its own process group, stopped by SIGTERM):
//   tsx scripts/lib/dev-worker.ts '{"config":…,"port":…,"persist":…,"logLevel":…,"vars":{…}}'
import { getNodeCompat } from "miniflare";
import { unstable_startWorker } from "wrangler";

type Options = {
  config: string;
  port: number;
  persist: string;
  logLevel: "none" | "error" | "warn" | "info" | "log" | "debug";
  vars: Record<string, string>;
};

// Wrangler also appends every line the worker logs, whatever the log level, to a debug file
// (~/.config/.wrangler/logs, or WRANGLER_LOG_PATH): a mkdir, an open and an append per line, which
// cost this process 0.25–0.3 ms of CPU per request (the worker logs one line per request;
// BENCHMARKS.md#wranglers-debug-log-file), more than the worker's own difference from another
// commit, and filled 841 MB here. Its logger skips the file when a global `vitest` is defined (its own
// unit tests' switch, read at each line, `doLog` in wrangler-dist/cli.js); this process runs nothing
// else that reads it. Lines still reach stdout from `logLevel` on.
(globalThis as { vitest?: object }).vitest = {};

const options = JSON.parse(process.argv[2] ?? "{}") as Options;
const worker = await unstable_startWorker({
  config: options.config,
  bindings: Object.fromEntries(
    Object.entries(options.vars).map(([name, value]) => [
      name,
      { type: "plain_text" as const, value },
    ]),
  ),
  build: {
    nodejsCompatMode: (config) =>
      getNodeCompat(config.compatibility_date, config.compatibility_flags).mode,
  },
  dev: {
    inspector: false,
    server: { hostname: "127.0.0.1", port: options.port },
    persist: options.persist,
    logLevel: options.logLevel,
    watch: false,
  },
});
await worker.ready;

const stop = async () => {
  await worker.dispose();
  process.exit(0);
};
process.once("SIGTERM", stop);
process.once("SIGINT", stop);
