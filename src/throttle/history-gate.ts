import { DurableObject } from "cloudflare:workers";

/**
 * How long a whole-history stream holds its principal's gate when nothing releases it (the isolate
 * that sent it died mid-stream). A stream releases the gate as it ends, so this bounds only a lost
 * release; the longest stream measured locally, 200,000 entries, took 5.8 s (docs/api.md).
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

  /** Takes the gate for `lease`, unless another lease holds it and has not run out. */
  acquire(lease: string, nowMs: number): boolean {
    if (this.holder !== null && this.holder.untilMs > nowMs) return false;
    this.holder = { lease, untilMs: nowMs + HISTORY_LEASE_MS };
    return true;
  }

  /** Gives the gate back; a lease that ran out and was replaced releases nothing. */
  release(lease: string): void {
    if (this.holder?.lease === lease) this.holder = null;
  }
}

export type HistoryGateNamespace = Env["HISTORY_GATE"];

/**
 * Takes `userId`'s gate: the function that gives it back (call it once the stream ends, however it
 * ends), or null when another of that principal's streams holds it.
 */
export async function openHistoryGate(ns: HistoryGateNamespace, userId: number, nowMs: number) {
  const gate = ns.get(ns.idFromName(`history:${userId}`));
  const lease = crypto.randomUUID();
  if (!(await gate.acquire(lease, nowMs))) return null;
  return () => gate.release(lease);
}
