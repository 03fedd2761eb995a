// One signed POST of a webhook (docs/events.md#what-a-delivery-looks-like): Standard Webhooks
// headers, signed by the `standardwebhooks` package, a timeout, no redirects (a redirect could lead
// anywhere the URL rules refuse). Its outcome is a value; the caller records it.
import { Webhook } from "standardwebhooks";
import { firstChars } from "../text";
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

/**
 * `text` with the endpoint's URL, as stored and as the URL parser writes it, cut to its origin
 * (scheme://host[:port]). A runtime's fetch error can quote the URL whole (workerd's "Fetch API
 * cannot load: <url>"), and its path and query are often the receiver's secret (Slack's
 * /services/T…/B…/…, a ?token=), while the error goes to the delivery log, the dead letter and
 * the log line that reports it, and the console's notice.
 */
function originOnly(text: string, url: string) {
  // The URL rules parsed it before any fetch was made.
  const { origin, href } = new URL(url);
  // The longer first, lest a shorter form inside it leave the rest of it behind.
  return [url, href]
    .sort((a, b) => b.length - a.length)
    .reduce((masked, form) => masked.replaceAll(form, origin), text);
}

/** A failed attempt that got no answer (latency 0: none was sent). */
const noAnswer = (error: string): Attempt => ({ ok: false, httpStatus: null, latencyMs: 0, error });

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
  if (refused) return noAnswer(`url refused: ${refused}`);
  if (secret === null)
    return noAnswer("the signing secret does not open with this WEBHOOK_SECRET_KEY");
  const startedMs = Date.now();
  try {
    const res = await outbound(url, {
      method: "POST",
      headers: signedHeaders(secret, m),
      body: m.body,
      redirect: "manual",
      signal: AbortSignal.timeout(DELIVERY_TIMEOUT_MS),
    });
    // The answer's body is not read: only its status counts, even should letting it go fail.
    await res.body?.cancel().catch(() => undefined);
    const ok = res.status >= 200 && res.status < 300;
    return {
      ok,
      httpStatus: res.status,
      latencyMs: Date.now() - startedMs,
      error: ok ? null : `answered HTTP ${res.status}`,
    };
  } catch (err) {
    const timedOut = err instanceof Error && err.name === "TimeoutError";
    // Cut to the URL's origin before it is cut to length: a URL cut short would not be found.
    const why = timedOut
      ? `no answer within ${DELIVERY_TIMEOUT_MS / 1000} s`
      : `could not connect: ${originOnly(err instanceof Error ? err.message : String(err), url)}`;
    return { ...noAnswer(firstChars(why, ERROR_MAX)), latencyMs: Date.now() - startedMs };
  }
}
