// The sign-in throttle's rules, as pure functions of a state and the time, so the Durable Object
// (login-throttle.ts) only loads, applies and stores them, and the rules are tested without it.

/**
 * What a row of an object's `throttle` table counts: an account's ceiling, a client address, or the
 * mails sent to one e-mail address (throttle/mail.ts; not a sign-in rule).
 */
export type ThrottleKind = "account" | "address" | "mail";

export type Policy = { limit: number; windowMs: number; lockMs: number; maxLockMs: number };

const MINUTE_MS = 60_000;
const DAY_MS = 24 * 60 * MINUTE_MS;

/**
 * - `pair`, one account from one client address: 10 failures in any 15 minutes lock that pair for
 *   60 s, each further lock doubling up to an hour. Only that address is locked out.
 * - `account`, the ceiling on one account's failures from addresses it never signed in from,
 *   whichever: 50 in any 15 minutes lock the account for those addresses, 60 s doubling up to an
 *   hour. One address can add at most 40 in 15 minutes (mostFromOneAddress), so only guessing
 *   spread over several addresses reaches it.
 * - `address`, one client address over every account: 100 failures in any 15 minutes lock it for
 *   15 minutes.
 */
export const POLICIES: Record<ThrottleKind | "pair", Policy> = {
  pair: { limit: 10, windowMs: 15 * MINUTE_MS, lockMs: MINUTE_MS, maxLockMs: 60 * MINUTE_MS },
  account: { limit: 50, windowMs: 15 * MINUTE_MS, lockMs: MINUTE_MS, maxLockMs: 60 * MINUTE_MS },
  address: {
    limit: 100,
    windowMs: 15 * MINUTE_MS,
    lockMs: 15 * MINUTE_MS,
    maxLockMs: 15 * MINUTE_MS,
  },
  // Mail to one address (verification and password reset together): 5 in any hour, then none
  // until the hour is out. Not a sign-in rule: it only keeps the service from flooding an inbox.
  mail: { limit: 5, windowMs: 60 * MINUTE_MS, lockMs: 60 * MINUTE_MS, maxLockMs: 60 * MINUTE_MS },
};

/** The back-off is forgotten after a day without a failed attempt (or at once by a success or an unlock). */
export const BACKOFF_MEMORY_MS = DAY_MS;

export type ThrottleState = {
  /** When each attempt still counted was reserved, oldest first (at most `limit` of them). */
  failuresMs: number[];
  lockedUntilMs: number;
  /** Locks so far: the next one lasts lockMs × 2^locks (capped). */
  locks: number;
  lastAttemptMs: number;
};

export const EMPTY_STATE: ThrottleState = {
  failuresMs: [],
  lockedUntilMs: 0,
  locks: 0,
  lastAttemptMs: 0,
};

export type Reservation =
  | { allowed: true; reservedAtMs: number; lockedNow: boolean }
  | { allowed: false; retryAfterS: number };

export const lockDurationMs = (policy: Policy, locksBefore: number) =>
  Math.min(policy.lockMs * 2 ** Math.min(locksBefore, 30), policy.maxLockMs);

/**
 * Counts one attempt before its password is checked, so parallel attempts cannot pass the limit:
 * the attempt that reaches it is let through and starts the lock, every later one is refused
 * until the lock ends. A lock that has ended starts a fresh window; its level stays for the back-off.
 */
export function reserve(
  state: ThrottleState,
  policy: Policy,
  nowMs: number,
): { state: ThrottleState; reservation: Reservation } {
  if (state.lockedUntilMs > nowMs)
    return {
      state,
      reservation: { allowed: false, retryAfterS: Math.ceil((state.lockedUntilMs - nowMs) / 1000) },
    };
  const lockEnded = state.lockedUntilMs !== 0;
  const forgotten = nowMs - state.lastAttemptMs >= BACKOFF_MEMORY_MS;
  const failuresMs = lockEnded ? [] : state.failuresMs.filter((t) => nowMs - t < policy.windowMs);
  failuresMs.push(nowMs);
  const locks = forgotten ? 0 : state.locks;
  const lockedNow = failuresMs.length >= policy.limit;
  const next: ThrottleState = {
    failuresMs,
    lockedUntilMs: lockedNow ? nowMs + lockDurationMs(policy, locks) : 0,
    locks: lockedNow ? locks + 1 : locks,
    lastAttemptMs: nowMs,
  };
  return { state: next, reservation: { allowed: true, reservedAtMs: nowMs, lockedNow } };
}

/**
 * Gives a reservation back: the attempt was not a failure (a good password, for an address) or was
 * refused on its other key. A lock that this very reservation started is lifted with it.
 */
export function release(
  state: ThrottleState,
  reservedAtMs: number,
  undoLock: boolean,
): ThrottleState {
  const at = state.failuresMs.lastIndexOf(reservedAtMs);
  if (at === -1) return state; // already out of the window, or forgotten
  const failuresMs = state.failuresMs.filter((_, i) => i !== at);
  if (!undoLock || state.lockedUntilMs === 0) return { ...state, failuresMs };
  return { ...state, failuresMs, lockedUntilMs: 0, locks: Math.max(0, state.locks - 1) };
}

/** When nothing in `state` matters any more and the object may forget it. */
export function forgetAtMs(state: ThrottleState, policy: Policy) {
  const newest = state.failuresMs.at(-1) ?? 0;
  return Math.max(
    state.lockedUntilMs,
    newest + policy.windowMs,
    state.locks > 0 ? state.lastAttemptMs + BACKOFF_MEMORY_MS : 0,
  );
}

/**
 * The most failures one client address can add to one account in any window of `pair.windowMs`:
 * it may fail `limit` times, wait out the lock, fail `limit` times more, and so on, each lock twice
 * the last (10 at 0 s, 60 s, 180 s and 420 s; the fifth round falls at 900 s, outside the window).
 * The address's own limit (100) is higher, so it changes nothing. The ceiling is set above this.
 */
export function mostFromOneAddress(pair = POLICIES.pair, address = POLICIES.address) {
  let failures = 0;
  let atMs = 0;
  for (let locks = 0; atMs < pair.windowMs; locks++) {
    failures += pair.limit;
    atMs += lockDurationMs(pair, locks);
  }
  return Math.min(failures, address.limit);
}

/** An address the account signed in from: it is spared the ceiling (docs/security.md). */
export type KnownAddress = { address: string; lastSuccessMs: number };

/** How many addresses an account remembers, and for how long after its last good sign-in there. */
export const KNOWN_ADDRESSES_MAX = 16;
export const KNOWN_ADDRESS_MS = 30 * DAY_MS;

export const isKnown = (known: KnownAddress[], address: string, nowMs: number) =>
  known.some((k) => k.address === address && nowMs - k.lastSuccessMs < KNOWN_ADDRESS_MS);

/** The list after a good sign-in from `address`: newest first, expired ones dropped, bounded. */
export function rememberAddress(
  known: KnownAddress[],
  address: string,
  nowMs: number,
): KnownAddress[] {
  const kept = known.filter(
    (k) => k.address !== address && nowMs - k.lastSuccessMs < KNOWN_ADDRESS_MS,
  );
  return [{ address, lastSuccessMs: nowMs }, ...kept]
    .sort((a, b) => b.lastSuccessMs - a.lastSuccessMs)
    .slice(0, KNOWN_ADDRESSES_MAX);
}

/** What an account's object knows about one attempt: its pair, its ceiling, the address's standing. */
export type AccountView = { pair: ThrottleState; ceiling: ThrottleState; known: boolean };

/** An account's reservation: `ceilingLockedNow` is null when a known address was spared the ceiling. */
export type SignInReservation =
  | { allowed: true; reservedAtMs: number; ceilingLockedNow: boolean | null }
  | { allowed: false; retryAfterS: number };

/**
 * Counts one attempt against its (account, address) pair and, from an address the account does
 * not know, against the account's ceiling. Either lock refuses it (Retry-After: the later end), and
 * a refused attempt is counted nowhere.
 */
export function reserveSignIn(
  view: AccountView,
  nowMs: number,
): { pair: ThrottleState; ceiling: ThrottleState; reservation: SignInReservation } {
  const pair = reserve(view.pair, POLICIES.pair, nowMs);
  const ceiling = view.known ? null : reserve(view.ceiling, POLICIES.account, nowMs);
  const waits = [pair.reservation, ceiling?.reservation].flatMap((r) =>
    r && !r.allowed ? [r.retryAfterS] : [],
  );
  if (waits.length > 0)
    return {
      pair: view.pair,
      ceiling: view.ceiling,
      reservation: { allowed: false, retryAfterS: Math.max(...waits) },
    };
  const ceilingLockedNow = ceiling?.reservation.allowed ? ceiling.reservation.lockedNow : null;
  return {
    pair: pair.state,
    ceiling: ceiling?.state ?? view.ceiling,
    reservation: { allowed: true, reservedAtMs: nowMs, ceilingLockedNow },
  };
}

/**
 * A good password: the pair starts over (count, lock, back-off), the address becomes known, and
 * the ceiling gets this attempt back (not a reset: strangers' failures elsewhere still count).
 */
export function signInSucceeded(
  ceiling: ThrottleState,
  known: KnownAddress[],
  address: string,
  held: Extract<SignInReservation, { allowed: true }>,
  nowMs: number,
) {
  return {
    ceiling:
      held.ceilingLockedNow === null
        ? ceiling
        : release(ceiling, held.reservedAtMs, held.ceilingLockedNow),
    known: rememberAddress(known, address, nowMs),
  };
}
