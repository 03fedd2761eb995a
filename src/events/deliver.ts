// One signed POST of a webhook (docs/events.md#what-a-delivery-looks-like): Standard Webhooks
// headers, signed by the `standardwebhooks` package, a timeout, no redirects (a redirect could lead
// anywhere the URL rules refuse). Its outcome is a value; the caller records it.
import { Webhook } from "standardwebhooks";
import { endpointUrlProblem } from "./endpoint-url";

/** How a delivery reaches the network: the runtime's fetch, or a test's receiver. */
export type Outbound = (url: string, init: RequestInit) => Promise<Response>;

const DELIVERY_TIMEOUT_MS = 10_000;
const ERROR_MAX = 200;

type Attempt = {
  ok: boolean;
  httpStatus: number | null;
  latencyMs: number;
  error: string | null;
};

type SignedMessage = { id: string; body: string; at: Date };

/** The headers a receiver verifies (webhook-id stays the same on every attempt: it deduplicates). */
const signedHeaders = (secret: string, m: SignedMessage) => ({
  "content-type": "application/json",
  "user-agent": "wallet-ledger-webhooks/1",
  "webhook-id": m.id,
  "webhook-timestamp": String(Math.floor(m.at.getTime() / 1000)),
  "webhook-signature": new Webhook(secret).sign(m.id, m.at, m.body),
});

/** A failed attempt that never connected. */
const unsent = (error: string): Attempt => ({ ok: false, httpStatus: null, latencyMs: 0, error });

/**
 * The POST, or a failed attempt without connecting when the URL breaks the rules as they stand now
 * (an endpoint made while WEBHOOK_ALLOW_LOCAL was true keeps its loopback URL after the flag is
 * off), or when there is no secret to sign with: its sealed copy did not open (null), as after
 * WEBHOOK_SECRET_KEY changed.
 */
export async function postSigned(
  outbound: Outbound,
  url: string,
  secret: string | null,
  m: SignedMessage,
  allowLocal: boolean,
): Promise<Attempt> {
  const refused = endpointUrlProblem(url, allowLocal);
  if (refused) return unsent(`url refused: ${refused}`);
  if (secret === null)
    return unsent("the signing secret does not open with this WEBHOOK_SECRET_KEY");
  const startedMs = Date.now();
  try {
    const res = await outbound(url, {
      method: "POST",
      headers: signedHeaders(secret, m),
      body: m.body,
      redirect: "manual",
      signal: AbortSignal.timeout(DELIVERY_TIMEOUT_MS),
    });
    // The answer's body is not read: only its status counts.
    await res.body?.cancel();
    const ok = res.status >= 200 && res.status < 300;
    return {
      ok,
      httpStatus: res.status,
      latencyMs: Date.now() - startedMs,
      error: ok ? null : `answered HTTP ${res.status}`,
    };
  } catch (err) {
    const timedOut = err instanceof Error && err.name === "TimeoutError";
    const why = timedOut
      ? `no answer within ${DELIVERY_TIMEOUT_MS / 1000} s`
      : `could not connect: ${err instanceof Error ? err.message : String(err)}`;
    return {
      ok: false,
      httpStatus: null,
      latencyMs: Date.now() - startedMs,
      error: why.slice(0, ERROR_MAX),
    };
  }
}
