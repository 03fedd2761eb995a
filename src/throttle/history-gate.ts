import { DurableObject } from "cloudflare:workers";

/**
 * How long a whole-history stream holds its principal's gate when nothing releases or renews it
 * (the isolate that sent it died mid-stream). A stream releases the gate as it ends and renews it
 * while its reader takes chunks, so this bounds only a lost release or a reader that stopped: a
 * client reading 1 MB/s takes 147 s over 200,000 entries (BENCHMARKS.md).
 */
export const HISTORY_LEASE_MS = 60_000;

/**
 * One per principal (the caller's user id), by `idFromName`: every isolate reaches the same object,
 * which runs one call at a time, so at most one multi-read history stream of a principal is in
 * flight anywhere (docs/api.md#get-transactions). The lease lives in the object's memory: an
 * object evicted while a lease is held forgets it, which can only let one more stream start early.
 * Times come from the caller (the Worker's injectable clock), as in the sign-in throttle.
 */
export class HistoryGate extends DurableObject<Env> {
  private holder: { lease: string; untilMs: number } | null = null;

  /**
   * Takes the gate for `lease`, unless another lease holds it and has not run out; the holder's own
   * lease is renewed.
   */
  acquire(lease: string, nowMs: number): boolean {
    const holder = this.holder;
    if (holder !== null && holder.lease !== lease && holder.untilMs > nowMs) return false;
    this.holder = { lease, untilMs: nowMs + HISTORY_LEASE_MS };
    return true;
  }

  /** Gives the gate back; a lease that ran out and was replaced releases nothing. */
  release(lease: string): void {
    if (this.holder?.lease === lease) this.holder = null;
  }
}

/** The binding as the service calls it (wallet/faults.ts `reachable`). */
export type HistoryGateNamespace = Pick<Env["HISTORY_GATE"], "idFromName" | "get">;

/**
 * Takes `userId`'s gate, or null when another of that principal's streams holds it. `release` gives
 * it back (call it once the stream ends, however it ends); `holding` hands on a stream's chunks and
 * renews the lease as they are taken, once half of it has passed, so a slow reader keeps its turn.
 */
export async function openHistoryGate(
  ns: HistoryGateNamespace,
  userId: number,
  nowMs: () => number,
) {
  const gate = ns.get(ns.idFromName(`history:${userId}`));
  const lease = crypto.randomUUID();
  let renewedMs = nowMs();
  if (!(await gate.acquire(lease, renewedMs))) return null;
  return {
    release: () => gate.release(lease),
    async *holding<T>(chunks: AsyncIterable<T>) {
      for await (const chunk of chunks) {
        if (nowMs() - renewedMs >= HISTORY_LEASE_MS / 2) {
          renewedMs = nowMs();
          // Refused only if the lease ran out and another stream took the turn: this one goes on.
          await gate.acquire(lease, renewedMs);
        }
        yield chunk;
      }
    },
  };
}
