// Sign-in refusals cost one fixed time, whatever made them: an unknown user (a dummy PBKDF2), a
// wrong password on this service's PBKDF2, or on a hash imported from WordPress (bcrypt cost 10 or
// 12, phpass: 60 to 420 ms of CPU here). Each refusal is answered REFUSAL_FLOOR_MS after the
// password check began, which is above the slowest check. Successes are not padded.
//
// Why a deadline works on Workers: in production Date.now() does not move while JavaScript runs
// (only across I/O and timers), so the check's CPU time cannot be measured and subtracted. But workerd
// schedules a timer relative to what Date.now() returns (`TimeoutManagerImpl::setTimeoutImpl` in
// workerd's io-context.c++: "Always schedule the timeout relative to what Date.now() currently
// returns"). Waiting `sinceMs + floor - Date.now()` therefore ends at `sinceMs + floor` on the
// runtime's clock whether that clock moved during the check (wrangler dev here) or stood still
// (production): a frozen clock makes the wait look longer by exactly the CPU time it hid. `sinceMs`
// is read right after the throttle's reservation returns, the last I/O before the check. A check
// that runs past the floor (a machine slower than the one this was measured on) answers when it ends.
export const REFUSAL_FLOOR_MS = 600;

/** Waits until `sinceMs + floorMs`. Injected through createApp({ pace }), so tests need not sleep. */
export type Pace = (floorMs: number, sinceMs: number) => Promise<void>;

export const padToFloor: Pace = async (floorMs, sinceMs) => {
  const remainingMs = sinceMs + floorMs - Date.now();
  if (remainingMs > 0) await scheduler.wait(remainingMs);
};
