// The worker as a deployment runs it, for the benchmarks: the bundle `wrangler deploy` uploads
// (`--dry-run --outdir`), served by Miniflare alone, in one workerd, with the config's bindings,
// vars, Durable Objects and queues (wrangler's own `unstable_getMiniflareWorkerOptions`, what the
// Workers vitest pool uses) and the local state under `persist` that wrangler's D1 commands wrote.
//
// `wrangler dev` runs beside a worker what no deployed Worker has, and on a shared 2-core machine
// it took CPU from the worker being measured
// (BENCHMARKS.md#the-benchs-server-the-deploy-bundle-under-miniflare-alone): a proxy worker in a
// second workerd that takes every connection and forwards each request (0.6–1.0 ms of CPU a
// request), its DevTools inspector (about 0.9 ms per D1 call) and its debug log file (0.3–0.4 ms a
// request). This server has none of them (an inspector only when `inspectorPort` asks for one).
// Miniflare 5 always runs workerd with structured logging and parses each line it prints into a
// { level, message } record in this process (0.03–0.08 ms a request); here the records are
// dropped, or their messages written to stdout as lines when `logs` asks for it (warnings and
// errors always go to stderr).
// Wrangler still hands out Miniflare 4's worker options; `convertV4MiniflareOptions`, the adapter
// wrangler itself uses, turns them into Miniflare 5's.
//
// Usage (a child process, in its own process group, stopped by SIGTERM), its options in the
// environment (startBenchWorker in ./wrangler.ts):
//   WALLET_BENCH_WORKER_OPTIONS='{"config":…,"port":…,"persist":…,"vars":{…},"logs":false}' \
//     node --import tsx --import ./scripts/lib/package-types.ts scripts/lib/bench-worker.ts
import { existsSync, mkdtempSync, renameSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { convertV4MiniflareOptions, Miniflare, type V4WorkerOptions } from "miniflare";
import { unstable_getMiniflareWorkerOptions, unstable_readConfig } from "wrangler";
import { bundle, bundleFile } from "./bundle";
import { BENCH_WORKER_OPTIONS } from "./wrangler";

type Options = {
  config: string;
  port: number;
  persist: string;
  vars: Record<string, string>;
  /** Whether the worker's console lines go on to this process's stdout (else they are dropped). */
  logs: boolean;
  /**
   * false: leaves out what Miniflare plays of the platform in JavaScript inside the worker's own
   * workerd, so the CPU measured is the worker's: the assets router (`[assets]`), which every
   * request enters first, and the rate limiter (`[[ratelimits]]`), a Durable Object reached over
   * fetch for each limit(). On Cloudflare neither is the Worker's CPU
   * (BENCHMARKS.md#what-the-benchs-server-leaves-out). Absent or true: both, as configured.
   */
  emulations?: boolean;
  /** workerd's DevTools inspector on this port (for `npm run profile:cpu`); none when absent. */
  inspectorPort?: number;
  /**
   * A folder the servers of this config that one process starts share their bundle in (the same
   * code): the first bundles into it, the next serve that bundle. Absent: a bundle of this server's
   * own, in a temporary folder removed when it ends.
   */
  bundle?: string;
};

const options = JSON.parse(process.env[BENCH_WORKER_OPTIONS] ?? "{}") as Options;
delete process.env[BENCH_WORKER_OPTIONS];
const own = options.bundle === undefined;
let outdir = options.bundle ?? mkdtempSync(join(tmpdir(), "wallet-bench-bundle-"));
// A bundle of its own goes once workerd has read it (below); one never served (a failed start, a
// process ended before it was ready) goes with the process.
if (own) process.on("exit", () => rmSync(outdir, { recursive: true, force: true }));

// A server that cannot start (a bundle that does not build, a port taken) ends with status 1, its
// bundle gone.
let mf: Miniflare | undefined;
try {
  // Bundled first: `wrangler deploy --dry-run` runs the config's [build] command, which makes the
  // assets directory that reading the config's options checks (a fresh checkout has none yet).
  const { main } = unstable_readConfig({ config: options.config });
  const file = own ? bundle({ config: options.config, outdir, main }).file : sharedBundle(main);
  const { workerOptions } = unstable_getMiniflareWorkerOptions(options.config);
  // No source in wrangler's options (the bundle is given below). Their modulesRules (Text, Data,
  // CompiledWasm) are left out: the adapter refuses them, and the bundle is one ES module.
  const {
    modulesRules: _rules,
    assets,
    ratelimits,
    ...worker
  } = workerOptions as V4WorkerOptions & { modulesRules?: unknown };
  mf = new Miniflare(
    convertV4MiniflareOptions({
      host: "127.0.0.1",
      port: options.port,
      resourcePersistencePath: join(options.persist, "v3"), // where wrangler's --persist-to puts its state
      logRequests: false, // else Miniflare sends every request to this process to print a line
      inspectorPort: options.inspectorPort,
      handleStructuredLogs({ level, message }) {
        if (level === "error" || level === "warn") process.stderr.write(`${message}\n`);
        else if (options.logs) process.stdout.write(`${message}\n`);
      },
      workers: [
        {
          ...worker,
          modules: true,
          modulesRoot: outdir,
          scriptPath: join(outdir, file),
          bindings: { ...worker.bindings, ...options.vars },
          ...(options.emulations === false ? {} : { assets, ratelimits }),
        },
      ],
    }),
  );
  // SIGTERM (the server stopped: scripts/lib/server.ts) or Ctrl-C disposes of Miniflare, and the
  // process ends once nothing is left to wait for. `new Miniflare` set handlers of its own that
  // dispose of it and then call process.exit(), which can hang (lib/exit.ts): this one takes their
  // place. A second signal finds none, and ends the process as the signal does.
  const server = mf;
  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    process.removeAllListeners(signal);
    process.once(signal, () => void server.dispose());
  }
  await mf.ready;
  // Miniflare has read the bundle into workerd's configuration: a bundle of this server's own is
  // not read again, and goes now rather than when the process exits, which a killed one never does.
  if (own) rmSync(outdir, { recursive: true, force: true });
} catch (error) {
  console.error(startFailure(error));
  process.exitCode = 1;
  await mf?.dispose().catch(() => {});
}

/**
 * The shared bundle (options.bundle): made in a folder of its own and renamed into place whole, so
 * a server never serves one half written. Of two made at once, the first renamed in is served.
 */
function sharedBundle(main: string | undefined) {
  const ready = join(outdir, "ready");
  if (!existsSync(ready)) {
    const making = mkdtempSync(join(outdir, "making-"));
    try {
      bundle({ config: options.config, outdir: making, main });
      renameSync(making, ready);
    } catch (error) {
      rmSync(making, { recursive: true, force: true });
      if (!existsSync(ready)) throw error;
    }
  }
  outdir = ready;
  return bundleFile(ready, main)!;
}

/**
 * Why the server did not start, in words: a failed bundle's wrangler output, Miniflare's refusal
 * (a compatibility date past its runtime's). A configuration Miniflare's schema refuses (say
 * `[[ratelimits]]` with `limit = 0`) comes as a ZodError: its issues are named by their place in
 * the config, one a line.
 */
function startFailure(error: unknown) {
  const issues = (error as { issues?: { path: PropertyKey[]; message: string }[] }).issues;
  if (!Array.isArray(issues)) return error instanceof Error ? error.message : error;
  const lines = issues.map(({ path, message }) => {
    const at = path.filter((part, i) => !(i < 2 && (part === "workers" || part === 0)));
    return `  ${at.map(String).join(".")}: ${message}`;
  });
  return `${options.config} holds a setting Miniflare refuses:\n${lines.join("\n")}`;
}
