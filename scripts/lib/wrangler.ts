// Runs wrangler from node_modules, offline: no telemetry, no account look-ups, no update checks.
import { type SpawnOptions, spawn, spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

const require = createRequire(import.meta.url);
export const WRANGLER = require.resolve("wrangler/bin/wrangler.js");

export const offlineEnv = (extra: Record<string, string> = {}): NodeJS.ProcessEnv => ({
  ...process.env,
  WRANGLER_SEND_METRICS: "false",
  CLOUDFLARE_CF_FETCH_ENABLED: "false",
  WRANGLER_LOG_SANITIZE: "true",
  NO_UPDATE_NOTIFIER: "1",
  // The banner is also what runs wrangler's update check against the registry.
  WRANGLER_HIDE_BANNER: "true",
  CI: process.env.CI ?? "true",
  ...extra,
});

/** Runs a wrangler command to completion; throws with its output when it fails. */
export function wrangler(args: string[], { quiet = false } = {}) {
  const result = spawnSync(process.execPath, [WRANGLER, ...args], {
    env: offlineEnv(),
    encoding: "utf8",
  });
  if (result.status !== 0) {
    throw new Error(`wrangler ${args.join(" ")} failed:\n${result.stdout}\n${result.stderr}`);
  }
  if (!quiet) process.stdout.write(result.stdout);
  return result.stdout;
}

/** Starts a long-running node program, offline, in its own process group. */
const startDetached = (args: string[], options: SpawnOptions) =>
  spawn(process.execPath, args, {
    env: offlineEnv(),
    stdio: "inherit",
    detached: true,
    ...options,
  });

/** Starts a long-running wrangler command in its own process group. */
export const startWrangler = (args: string[], options: SpawnOptions = {}) =>
  startDetached([WRANGLER, ...args], options);

const TSX = require.resolve("tsx/cli");
const DEV_WORKER = fileURLToPath(new URL("./dev-worker.ts", import.meta.url));

/** `wrangler dev` without the DevTools inspector (./dev-worker.ts), in its own process group. */
export const startDevWorker = (config: object, options: SpawnOptions = {}) =>
  startDetached([TSX, DEV_WORKER, JSON.stringify(config)], options);
