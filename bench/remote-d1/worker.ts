// The app over a simulated remote D1, for `npm run bench -- --remote-d1` (BENCHMARKS.md): the
// service's app, unchanged, with its D1 binding wrapped in a latency model (latency-d1.ts,
// model.ts), and the same app with group commit off, each credit its own D1 batch. Both switches
// exist only in this worker, which is never deployed: a request chooses them with headers the bench
// sends, and without them it is served by the app over the plain binding (the bench's fixtures and
// checks). GET /bench/remote-d1 answers each model's counters.
import { createApp } from "../../src/app";
import { appendEntries } from "../../src/ledger/append";
import { d1Ledger, type LedgerEngine } from "../../src/ledger/writer";
import { latencyD1 } from "./latency-d1";
import { RemoteD1Model } from "./model";
import { GROUP_COMMIT_HEADER, ROUND_TRIP_HEADER } from "./switches";

export { HistoryGate } from "../../src/throttle/history-gate";
export { LoginThrottle } from "../../src/throttle/login-throttle";

/** The app's D1 ledger with group commit off: each credit written alone, one batch per credit. */
export const oneWritePerCredit: LedgerEngine = (deps) => ({
  ...d1Ledger(deps),
  postCredit: (entry) => appendEntries(deps.db, [entry]),
});

const apps = { grouped: createApp(), alone: createApp({ ledger: oneWritePerCredit }) };

/** One model (one writer) per round trip and binding, and the env that carries it, made once. */
const models = new Map<number, RemoteD1Model>();
const envs = new WeakMap<Env, Map<number, Env>>();

function remoteEnv(env: Env, roundTripMs: number) {
  let byRoundTrip = envs.get(env);
  if (!byRoundTrip) envs.set(env, (byRoundTrip = new Map()));
  let remote = byRoundTrip.get(roundTripMs);
  if (!remote) {
    let model = models.get(roundTripMs);
    if (!model) models.set(roundTripMs, (model = new RemoteD1Model(roundTripMs)));
    remote = { ...env, DB: latencyD1(env.DB, model) };
    byRoundTrip.set(roundTripMs, remote);
  }
  return remote;
}

export default {
  fetch(request: Request, env: Env, ctx: ExecutionContext) {
    if (new URL(request.url).pathname === "/bench/remote-d1")
      return Response.json(Object.fromEntries([...models].map(([ms, m]) => [ms, m.stats])));
    const app = request.headers.get(GROUP_COMMIT_HEADER) === "off" ? apps.alone : apps.grouped;
    const header = request.headers.get(ROUND_TRIP_HEADER);
    if (header === null) return app.fetch(request, env, ctx);
    const roundTripMs = Number(header);
    if (!/^\d+(\.\d+)?$/.test(header) || roundTripMs > 100)
      return new Response(`${ROUND_TRIP_HEADER}: 0 to 100`, { status: 400 });
    return app.fetch(request, remoteEnv(env, roundTripMs), ctx);
  },
} satisfies ExportedHandler<Env>;
