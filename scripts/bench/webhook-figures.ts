// `npm run bench -- --webhook` (webhook.ts): what its rounds say. Pure, so test/node/bench-modes.test.ts
// checks it; no load runs here.

/** The target: credits/s with one subscribed endpoint at least this share of credits/s without. */
const WEBHOOK_RATIO_TARGET = 0.9;

/** One round with the endpoint: its credits, and what the receiver got for them. */
export type RoundDeliveries = {
  round: number;
  /** Credits of the round (warm-up included) answered 200, and sent (each sent one is applied). */
  answered200: number;
  sent: number;
  /** Requests the receiver got for the round, distinct webhook-ids among them, and how many verified. */
  received: number;
  distinct: number;
  verified: number;
  /** Received by the end of the round's load (the 1 s after it included), before the drain. */
  duringLoad: number;
  /** Whether the endpoint caught up (no event of its type after its cursor) within the bound. */
  drained: boolean;
  drainS: number;
};

/**
 * Whether the round's events all arrived, once each by id, signed: every credit applied wrote one
 * transaction.created, and the applied credits lie between those answered 200 and those sent.
 */
export const roundDelivered = (r: RoundDeliveries) =>
  r.drained && r.distinct >= r.answered200 && r.distinct <= r.sent && r.verified === r.received;

/** The target's line: met only with a ratio measured (no errors on either side). */
export function ratioTarget(ratio: number | undefined) {
  return {
    target: `credits/s with one subscribed endpoint ≥ ${WEBHOOK_RATIO_TARGET}× without`,
    value: ratio === undefined ? "no ratio (errors)" : `${ratio.toFixed(2)}×`,
    met: ratio !== undefined && ratio >= WEBHOOK_RATIO_TARGET,
  };
}
