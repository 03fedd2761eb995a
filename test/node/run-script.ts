// A project script (scripts/*.ts) run and waited for, as the tool tests run them: Node with tsx's
// loader, in one process. (The tsx command runs the script in a child of its own, and was seen to
// wait for good after that child had exited, failing a green test after two minutes.) The wait
// blocks vitest's own timeout, so a child that never ends is stopped here and fails its test with
// what it printed. A script must end by finishing, not by process.exit(), which can hang for good
// (scripts/lib/exit.ts): one that calls it fails its test too, whatever its status.
import {
  type SpawnOptions,
  type SpawnSyncOptionsWithStringEncoding,
  spawn,
  spawnSync,
} from "node:child_process";
import path from "node:path";
import { pathToFileURL } from "node:url";

const ROOT = path.resolve(import.meta.dirname, "../..");
/** tsx's loader (its package's "." export), by path: a script may run in a folder of its own. */
const TSX_LOADER = pathToFileURL(path.join(ROOT, "node_modules/tsx/dist/loader.mjs")).href;

/**
 * Preloaded into each script: says on fd 3 that its event loop ran dry, which process.exit() skips
 * (Node emits no 'beforeExit' for it).
 */
const FINISHED = `data:text/javascript,${encodeURIComponent(
  'import { writeSync } from "node:fs"; process.once("beforeExit", () => writeSync(3, "finished"));',
)}`;

/** Each script run here takes seconds; two minutes is a hang. */
const SCRIPT_TIMEOUT_MS = 120_000;

export function runScript(
  script: string,
  args: string[],
  options: Omit<SpawnSyncOptionsWithStringEncoding, "encoding" | "timeout" | "stdio">,
) {
  const result = spawnSync(
    process.execPath,
    ["--import", FINISHED, "--import", TSX_LOADER, path.join(ROOT, script), ...args],
    {
      ...options,
      stdio: ["pipe", "pipe", "pipe", "pipe"],
      encoding: "utf8",
      timeout: SCRIPT_TIMEOUT_MS,
    },
  );
  if (result.error)
    throw new Error(
      `${script}: ${result.error.message} (stopped after ${SCRIPT_TIMEOUT_MS / 1000} s):\n${result.stdout}${result.stderr}`,
    );
  if (result.output[3] !== "finished")
    throw new Error(
      `${script} did not end by finishing (process.exit() or an uncaught error; status ${result.status}):\n${result.stdout}${result.stderr}`,
    );
  return result;
}

/** A script started as runScript runs one, not waited for (to be signalled as it runs), piped. */
export const startScript = (script: string, args: string[], options: SpawnOptions = {}) =>
  spawn(process.execPath, ["--import", TSX_LOADER, path.join(ROOT, script), ...args], {
    ...options,
    stdio: "pipe",
  });
