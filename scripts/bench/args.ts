// The command line of `npm run bench` (scripts/bench.ts): which mode it runs. Settings of the load
// itself (duration, connections) are in the environment (session.ts).

export const USAGE = `npm run bench [-- <mode>]
  (no mode)              the app beside the baseline worker (BENCHMARKS.md)
  --against <git ref>    the working tree beside <git ref>, built in a temporary git worktree,
                         round by round
  --remote-d1 [ms,...]   credits over a simulated remote D1 (each call waits the round trip, one
                         write at a time), group commit on and off; default 2,5,10
  --webhook              credits with one subscribed webhook endpoint beside credits with none,
                         interleaved rounds on one server (a receiver on 127.0.0.1)
  --reads                each read beside the baseline's read of as many rows, as wide, through
                         a D1 session, interleaved rounds`;

export type BenchMode =
  | { mode: "baselines" }
  | { mode: "help" }
  | { mode: "against"; ref: string }
  | { mode: "remote-d1"; roundTripsMs: number[] }
  | { mode: "webhook" }
  | { mode: "reads" };

export const DEFAULT_ROUND_TRIPS_MS = [2, 5, 10];
/** Bounds of the simulated round trip, and how many a run may take (each is about a minute). */
const MAX_ROUND_TRIP_MS = 100;
const MAX_ROUND_TRIPS = 4;

/**
 * A git revision as a person types it (a hash, a branch, a tag, HEAD~3, main^2, v1@{1}): handed to
 * `git rev-parse` after `--end-of-options`, and still refused here if it could read as an option.
 */
const GIT_REF = /^[A-Za-z0-9_][A-Za-z0-9_./~^@{}-]{0,199}$/;

/** A comma-separated list of round trips in ms: each 0 to MAX_ROUND_TRIP_MS, at most MAX_ROUND_TRIPS. */
function parseRoundTrips(text: string): number[] {
  const parts = text.split(",").map((p) => p.trim());
  const values = parts.map((p) => (/^\d+(\.\d+)?$/.test(p) ? Number(p) : Number.NaN));
  if (values.some((v) => !(v >= 0 && v <= MAX_ROUND_TRIP_MS)))
    throw new Error(
      `--remote-d1 takes round trips in ms from 0 to ${MAX_ROUND_TRIP_MS}, comma-separated (e.g. 2,5,10), not "${text}"`,
    );
  const unique = [...new Set(values)];
  if (unique.length > MAX_ROUND_TRIPS)
    throw new Error(
      `--remote-d1 takes at most ${MAX_ROUND_TRIPS} round trips, not ${unique.length}`,
    );
  return unique;
}

/** The mode `argv` (the arguments after the script) asks for; throws on anything it cannot read. */
export function parseBenchArgs(argv: readonly string[]): BenchMode {
  const modes: BenchMode[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const [flag, inline] = arg.startsWith("--") && arg.includes("=") ? arg.split(/=(.*)/s) : [arg];
    // The flag's value: after "=", else the next argument unless that is a flag itself.
    const next = argv[i + 1];
    const takeValue = () => {
      if (inline !== undefined) return inline;
      if (next === undefined || next.startsWith("-")) return undefined;
      i++;
      return next;
    };
    switch (flag) {
      case "-h":
      case "--help":
        return { mode: "help" };
      case "--against": {
        const ref = takeValue();
        if (ref === undefined || !GIT_REF.test(ref))
          throw new Error(
            `--against takes a git revision (a commit, branch or tag), not ${ref === undefined ? "nothing" : `"${ref}"`}`,
          );
        modes.push({ mode: "against", ref });
        break;
      }
      case "--remote-d1": {
        const list = takeValue();
        const roundTripsMs = list === undefined ? DEFAULT_ROUND_TRIPS_MS : parseRoundTrips(list);
        modes.push({ mode: "remote-d1", roundTripsMs });
        break;
      }
      case "--webhook":
        if (inline !== undefined) throw new Error(`--webhook takes no value, not "${inline}"`);
        modes.push({ mode: "webhook" });
        break;
      case "--reads":
        if (inline !== undefined) throw new Error(`--reads takes no value, not "${inline}"`);
        modes.push({ mode: "reads" });
        break;
      default:
        throw new Error(`unknown argument "${arg}"\n${USAGE}`);
    }
  }
  if (modes.length > 1) throw new Error(`one mode at a time\n${USAGE}`);
  return modes[0] ?? { mode: "baselines" };
}
