// A project script (scripts/*.ts) run and waited for, as the tool tests run them: Node with tsx's
// loader, in one process. (The tsx command runs the script in a child of its own, and was seen to
// wait for good after that child had exited, failing a green test after two minutes.) runScript's
// wait blocks vitest's own timeout, so a child that never ends is stopped here (runScriptAsync's
// too) and fails its test with what it printed. A script must end by finishing, not by
// process.exit(), which can hang for good (scripts/lib/exit.ts): one that calls it fails its test
// too, whatever its status.
import {
  type SpawnOptions,
  type SpawnSyncOptionsWithStringEncoding,
  spawn,
  spawnSync,
} from "node:child_process";
import path from "node:path";
import type { Readable } from "node:stream";

import { TOOL_PRELOADS } from "../../scripts/lib/wrangler";

const ROOT = path.resolve(import.meta.dirname, "../..");

/**
 * Preloaded into each script: says on fd 3 that its event loop ran dry, which process.exit() skips
 * (Node emits no 'beforeExit' for it).
 */
const FINISHED = `data:text/javascript,${encodeURIComponent(
  'import { writeSync } from "node:fs"; process.once("beforeExit", () => writeSync(3, "finished"));',
)}`;

/** Each script run here takes seconds; two minutes is a hang. */
const SCRIPT_TIMEOUT_MS = 120_000;

const scriptArgs = (script: string, args: string[]) => [
  "--import",
  FINISHED,
  ...TOOL_PRELOADS,
  path.join(ROOT, script),
  ...args,
];

type ScriptResult = {
  status: number | null;
  stdout: string;
  stderr: string;
  /** What the script wrote on fd 3: "finished" once its event loop ran dry. */
  finished: string;
  error?: Error;
};

function checked(script: string, result: ScriptResult) {
  if (result.error)
    throw new Error(
      `${script}: ${result.error.message} (stopped after ${SCRIPT_TIMEOUT_MS / 1000} s):\n${result.stdout}${result.stderr}`,
    );
  if (result.finished !== "finished")
    throw new Error(
      `${script} did not end by finishing (process.exit() or an uncaught error; status ${result.status}):\n${result.stdout}${result.stderr}`,
    );
  return result;
}

export function runScript(
  script: string,
  args: string[],
  options: Omit<SpawnSyncOptionsWithStringEncoding, "encoding" | "timeout" | "stdio">,
) {
  const result = spawnSync(process.execPath, scriptArgs(script, args), {
    ...options,
    stdio: ["pipe", "pipe", "pipe", "pipe"],
    encoding: "utf8",
    timeout: SCRIPT_TIMEOUT_MS,
  });
  return checked(script, { ...result, finished: result.output[3] ?? "" });
}

/**
 * runScript without blocking this process, so a test can run scripts that do not depend on each
 * other side by side. The same pipes (stdin ends at once), the same time limit, the same checks.
 */
export function runScriptAsync(
  script: string,
  args: string[],
  options: Omit<SpawnOptions, "timeout" | "stdio">,
) {
  const child = spawn(process.execPath, scriptArgs(script, args), {
    ...options,
    stdio: ["pipe", "pipe", "pipe", "pipe"],
  });
  child.stdin?.end();
  const texts = ["", "", ""];
  [child.stdout, child.stderr, child.stdio[3] as Readable | null].forEach((stream, i) => {
    stream?.setEncoding("utf8");
    stream?.on("data", (chunk: string) => (texts[i] += chunk));
  });
  let error: Error | undefined;
  const timer = setTimeout(() => {
    error = new Error("timed out");
    child.kill("SIGTERM");
  }, SCRIPT_TIMEOUT_MS);
  return new Promise<ScriptResult>((resolve, reject) => {
    child.on("error", (spawnError) => {
      clearTimeout(timer);
      reject(spawnError);
    });
    child.on("close", (status) => {
      clearTimeout(timer);
      const [stdout = "", stderr = "", finished = ""] = texts;
      try {
        resolve(checked(script, { status, stdout, stderr, finished, error }));
      } catch (failure) {
        reject(failure);
      }
    });
  });
}

/** A script started as runScript runs one, not waited for (to be signalled as it runs), piped. */
export const startScript = (script: string, args: string[], options: SpawnOptions = {}) =>
  spawn(process.execPath, [...TOOL_PRELOADS, path.join(ROOT, script), ...args], {
    ...options,
    stdio: "pipe",
  });
