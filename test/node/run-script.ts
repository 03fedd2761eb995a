// A project script (scripts/*.ts) run under tsx and waited for, as the tool tests run them. The
// wait blocks vitest's own timeout, so a child that never ends (tsx's loader can wait for good on
// an esbuild that has exited) is stopped here and fails its test with what it printed.
import { type SpawnSyncOptionsWithStringEncoding, spawnSync } from "node:child_process";
import path from "node:path";

const ROOT = path.resolve(import.meta.dirname, "../..");
const TSX = path.join(ROOT, "node_modules/.bin/tsx");

/** Each script run here takes seconds; two minutes is a hang. */
const SCRIPT_TIMEOUT_MS = 120_000;

export function runScript(
  script: string,
  args: string[],
  options: Omit<SpawnSyncOptionsWithStringEncoding, "encoding" | "timeout">,
) {
  const result = spawnSync(TSX, [path.join(ROOT, script), ...args], {
    ...options,
    encoding: "utf8",
    timeout: SCRIPT_TIMEOUT_MS,
  });
  if (result.error)
    throw new Error(
      `${script}: ${result.error.message} (stopped after ${SCRIPT_TIMEOUT_MS / 1000} s):\n${result.stdout}${result.stderr}`,
    );
  return result;
}
