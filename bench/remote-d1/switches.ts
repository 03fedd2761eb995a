// The headers by which a request to bench/remote-d1/worker.ts picks its simulated D1 and its credit
// path; `npm run bench -- --remote-d1` (scripts/bench/remote-d1.ts) sends them. Only that worker
// reads them: the deployed service has no such switch.

/** The simulated round trip in ms (0 to 100); without it, the plain binding. */
export const ROUND_TRIP_HEADER = "x-bench-d1-round-trip-ms";
/** "off": every credit its own D1 batch; anything else: group commit, as deployed. */
export const GROUP_COMMIT_HEADER = "x-bench-group-commit";
