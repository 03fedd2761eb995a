// How a tool ends: by returning, its status in process.exitCode, never by process.exit().
// process.exit() tears V8's platform down while the main isolate still lives: a background
// Sparkplug or Maglev compile that needs a garbage collection at that moment waits for the main
// thread, which waits for it, and the process never ends. Ending the event loop disposes of the
// isolate first, which releases such a compile.

/** A refusal on its way out of runMain: its message goes to stderr, its code is the exit status. */
class Stop extends Error {
  constructor(
    message: string,
    readonly code: number,
  ) {
    super(message);
  }
}

/** Ends the tool with a message (stderr) and an exit status: thrown to runMain, which reports it. */
export function stop(message: string, code = 1): never {
  throw new Stop(message, code);
}

/**
 * Runs a tool's body: its exit status is the number it returns (0 without one) or its stop()'s.
 * The process ends once nothing is left to wait for, so the body ends what it started.
 */
export async function runMain(body: () => Promise<number | undefined> | number | undefined) {
  try {
    process.exitCode = (await body()) ?? 0;
  } catch (error) {
    if (!(error instanceof Stop)) throw error;
    console.error(error.message);
    process.exitCode = error.code;
  }
}

/**
 * Ends the process now by `signal`, as if no handler had been set for it: for a signal handler
 * whose tool has no point to stop at soon (a long synchronous step, child processes under way).
 * The kernel ends the process, so nothing of V8 is torn down and nothing can hang as in
 * process.exit(); the shell sees the signal (its status 128 + the signal's number, 130 for
 * Ctrl-C). No 'exit' handler runs: the caller cleans up first.
 */
export function endBySignal(signal: NodeJS.Signals) {
  // With no listener left, the signal's disposition is the default again (termination).
  process.removeAllListeners(signal);
  process.kill(process.pid, signal);
}
