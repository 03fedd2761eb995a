// The service logs a line per request (src/app.ts). The runner shows a test's lines only when it
// fails (silent: "passed-only" in vitest.config.ts), but carries every line out of the runtime to
// Node first: about a fifth of what a request costs here. So a test's lines wait in the isolate,
// and go out, in order, only if it fails. Lines logged outside a test go out at once.
import { afterEach, beforeEach } from "vitest";

// The runner's console.log, kept across the files that share a worker (vitest.config.ts): each file
// runs this setup again, and must not hold what the file before it holds.
const RUNNER_LOG = Symbol.for("wallet-ledger test: the runner's console.log");
type Log = typeof console.log & { [RUNNER_LOG]?: typeof console.log };
const write = (console.log as Log)[RUNNER_LOG] ?? console.log;

let held: unknown[][] | undefined;
const holding: Log = (...args: unknown[]) => {
  if (held) held.push(args);
  else write(...args);
};
holding[RUNNER_LOG] = write;
console.log = holding;

beforeEach(({ onTestFailed }) => {
  const lines: unknown[][] = [];
  held = lines;
  onTestFailed(() => {
    for (const line of lines) write(...line);
  });
});
afterEach(() => {
  held = undefined;
});
