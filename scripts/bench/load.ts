// One load scenario: autocannon's programmatic API against 127.0.0.1, every response's status
// checked against the one the scenario expects.
//
// Connections closed by the server (BENCHMARKS.md, "Connections closed, rarely, by workerd"):
// workerd's HTTP server drops a keep-alive connection whose next request it has not read within 5 s, timed on an
// event-loop clock that stands still while a saturated workerd runs without polling for I/O, so
// under load it can close a batch of connections at once, each with its next request unread.
// autocannon counts the ones reset (ECONNRESET: the request had arrived) as errors and reconnects
// silently on the others (FIN): both count here.
import autocannon from "autocannon";

/** autocannon's client, as far as counting the connections its server closes needs. */
type CannonClient = {
  destroyed: boolean;
  conn?: { once(event: "end", listener: () => void): unknown };
  _connect?: () => void;
};

/** The autocannon instance running now, so a Ctrl-C handler can stop it. */
let current: autocannon.Instance | null = null;
export const stopCurrentLoad = () => current?.stop();

/**
 * Runs `request` (an autocannon request object: method, path, headers, body, optional
 * setupRequest) for `duration` seconds over `connections` connections. A response whose status is
 * not `expectStatus` (default: any 2xx) counts as an error, as does a connection error or timeout.
 */
export async function runLoad({
  base,
  request,
  expectStatus,
  duration,
  connections,
  timeout = 30,
}: {
  base: string;
  request: autocannon.Request;
  expectStatus?: number | undefined;
  duration: number;
  connections: number;
  timeout?: number;
}) {
  const url = new URL(base);
  if (url.hostname !== "127.0.0.1")
    throw new Error(`load targets 127.0.0.1 only, not ${url.hostname}`);
  const expected = (status: number) =>
    expectStatus === undefined ? status >= 200 && status < 300 : status === expectStatus;
  const check = { ok: 0, unexpected: 0, samples: [] as { status: number; body: string }[] };
  const onResponse = (status: number, body: string) => {
    if (expected(status)) {
      check.ok++;
      return;
    }
    check.unexpected++;
    if (check.samples.length < 3) check.samples.push({ status, body: String(body).slice(0, 300) });
  };
  // A FIN from the server mid-run: autocannon reconnects and counts nothing (its own stop removes
  // these listeners before it closes the connections itself).
  let closedByServer = 0;
  const countServerCloses = (client: CannonClient) => {
    const connect = client._connect;
    if (typeof connect !== "function") return; // not the autocannon this was written for
    client._connect = function (this: CannonClient) {
      connect.call(this);
      this.conn?.once("end", () => {
        if (client.destroyed) return;
        closedByServer++;
        if (check.samples.length < 3)
          check.samples.push({
            status: 0,
            body: "FIN: the server closed the connection unanswered",
          });
      });
    };
  };
  let result: autocannon.Result;
  try {
    result = await new Promise((resolve, reject) => {
      current = autocannon(
        {
          url: base,
          connections,
          duration,
          timeout,
          requests: [{ ...request, onResponse }],
          setupClient: countServerCloses as unknown as autocannon.Options["setupClient"],
        },
        (error, done) => (error ? reject(error) : resolve(done)),
      );
      // A connection error has no status: its code and message are what says what happened.
      current.on("reqError", (error: Error & { code?: string }) => {
        if (check.samples.length < 3)
          check.samples.push({ status: 0, body: `${error.code ?? error.name}: ${error.message}` });
      });
    });
  } finally {
    current = null;
  }
  const statusCodes: Record<string, number> = Object.fromEntries(
    Object.entries(result.statusCodeStats ?? {}).map(([code, { count }]) => [code, count ?? 0]),
  );
  const responses = Object.values(statusCodes).reduce((a, b) => a + b, 0);
  // autocannon's own status counts and our onResponse check must agree; both are reported
  const unexpectedByCodes = Object.entries(statusCodes).reduce(
    (n, [code, count]) => n + (expected(Number(code)) ? 0 : count),
    0,
  );
  return {
    duration: result.duration,
    connections,
    sent: result.requests.sent,
    responses,
    reqPerSec: responses / result.duration,
    reqPerSecAutocannonMean: result.requests.average,
    latencyMs: {
      p50: result.latency.p50,
      p90: result.latency.p90,
      p99: result.latency.p99,
      max: result.latency.max,
      mean: result.latency.average,
    },
    errors: Math.max(check.unexpected, unexpectedByCodes) + result.errors + closedByServer,
    unexpectedStatus: check.unexpected,
    connectionErrors: result.errors,
    /** Connections the server ended with a FIN mid-run (the resets are among connectionErrors). */
    closedByServer,
    timeouts: result.timeouts,
    non2xx: result.non2xx,
    ok: check.ok,
    statusCodes,
    errorSamples: check.samples,
  };
}
