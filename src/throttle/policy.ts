// The sign-in throttle's rules, as pure functions of a state and the time, so the Durable Object
// (login-throttle.ts) only loads, applies and stores them, and the rules are tested without it. A
// login's pairs, known addresses and ceiling together: account-policy.ts.
import { REFUSAL_FLOOR_MS } from "../auth/pace";
import { MAIL_LIMIT_PER_CLIENT_DEFAULT } from "../settings";

/**
 * What a row of an object's `throttle` table counts: a login's ceiling, a client address, or
 * mails (throttle/mail.ts; not sign-in rules): those to one e-mail address every client together
 * asked for (`inbox`; each client's share of them is a row of its `pairs`, policy `mail`), and those
 * one client address asked for to any address (`client`).
 */
export type ThrottleKind = "account" | "address" | "inbox" | "client";

export type Policy = {
  limit: number;
  windowMs: number;
  lockMs: number;
  maxLockMs: number;
  /** False where a count is never given back, so no refusal waits for one (`refusal`). */
  givenBack?: false;
};

const MINUTE_MS = 60_000;
export const DAY_MS = 24 * 60 * MINUTE_MS;

/**
 * How long a request may hold a count it gives back (a sign-in refused by its login or with the
 * right password, a reset code that sets the password, a mail refused by its address): one or two
 * calls to other objects, or one password check and a D1 write. No longer than the floor a failed
 * sign-in is answered at, so a client's attempt after its own failure finds that count settled.
 */
export const HELD_MS = REFUSAL_FLOOR_MS;

/** A count over `ms` whose lock lasts as long, never doubling: none until the window is out. */
const flatLock = (ms: number) => ({ windowMs: ms, lockMs: ms, maxLockMs: ms });

/**
 * Each count starts over when its lock ends (`reserve`).
 * - `pair`, one login from one client address: 10 failures within 15 minutes lock that pair for
 *   60 s, each further lock doubling up to an hour. Only that address is locked out.
 * - `account`, the ceiling on one login's failures from addresses it never signed in from,
 *   whichever: 50 within 15 minutes lock the login for those addresses but the ones its account
 *   knows (sign-in.ts), 60 s doubling up to an hour. One address can add at most 40 in 15
 *   minutes (test/throttle-policy.test.ts), so only guessing spread over several addresses
 *   reaches it.
 * - `address`, one client address over every account: 100 failures within 15 minutes lock it for
 *   15 minutes.
 */
export const POLICIES: Record<ThrottleKind | "pair" | "mail", Policy> = {
  pair: { limit: 10, windowMs: 15 * MINUTE_MS, lockMs: MINUTE_MS, maxLockMs: 60 * MINUTE_MS },
  account: { limit: 50, windowMs: 15 * MINUTE_MS, lockMs: MINUTE_MS, maxLockMs: 60 * MINUTE_MS },
  address: { limit: 100, ...flatLock(15 * MINUTE_MS) },
  // Mail to one address (verification and password reset together), not sign-in rules: they keep
  // the service from flooding an inbox. One client address may ask for 5 in any hour, then none
  // until the hour is out; so a stranger spends only its own share, never the account holder's.
  // Neither is ever given back: reserveInbox counts both or neither, and nothing returns them.
  mail: { limit: 5, ...flatLock(60 * MINUTE_MS), givenBack: false },
  // Every client together may ask for 30 in any hour: silencing an address for the rest of the hour
  // takes six client addresses (IPv4, or IPv6 /64s) asking five times each.
  inbox: { limit: 30, ...flatLock(60 * MINUTE_MS), givenBack: false },
  // One client address may ask for MAIL_LIMIT_PER_CLIENT mails an hour to any addresses (each call
  // passes the setting as the limit), then none until the hour is out: each mail asked for writes a
  // token row, whether or not an account has the address.
  client: { limit: MAIL_LIMIT_PER_CLIENT_DEFAULT, ...flatLock(60 * MINUTE_MS) },
};

/**
 * A key's back-off is forgotten after a day with no attempt let through on it, a good one too (a
 * pair's also at once by a good password from its address; every key's by an operator's unlock).
 */
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
  | { allowed: true; reservedAtMs: number }
  | { allowed: false; retryAfterS: number };

export const lockDurationMs = (policy: Policy, locksBefore: number) =>
  Math.min(policy.lockMs * 2 ** Math.min(locksBefore, 30), policy.maxLockMs);

/**
 * A lock stands while the count that started it is at the limit. No reservation is counted while
 * it stands, so the count falls below only when one is given back (refused on another key, a good
 * password) or the limit was raised since (a setting's): the lock is then lifted with its back-off
 * step, as if it had never started, and the key gets exactly its limit.
 */
function standing(state: ThrottleState, policy: Policy): ThrottleState {
  if (state.lockedUntilMs === 0 || state.failuresMs.length >= policy.limit) return state;
  return { ...state, lockedUntilMs: 0, locks: Math.max(0, state.locks - 1) };
}

/**
 * A refusal by the `counted` reservations until `untilMs`. Those younger than HELD_MS may still be
 * given back by the requests holding them, which would lift it: when it stands on them alone, it
 * says to come back once they are settled (a second), not at the lock's or the window's end, up to
 * an hour away. Settled counts keep their whole wait.
 */
function refusal(counted: number[], policy: Policy, untilMs: number, nowMs: number): Reservation {
  const settled = counted.filter((t) => nowMs - t >= HELD_MS).length;
  const endMs =
    policy.givenBack !== false && settled < policy.limit
      ? Math.min(untilMs, Math.max(...counted) + HELD_MS)
      : untilMs;
  return { allowed: false, retryAfterS: Math.ceil((endMs - nowMs) / 1000) };
}

/**
 * The failures a state still counts at `nowMs`, oldest first (a new array): while its lock stands,
 * those it stands on; once a lock has ended, none (the next attempt starts a fresh window); else
 * those within the window.
 */
export function countedFailures(state: ThrottleState, policy: Policy, nowMs: number) {
  if (state.lockedUntilMs > nowMs) return [...state.failuresMs];
  if (state.lockedUntilMs !== 0) return [];
  return state.failuresMs.filter((t) => nowMs - t < policy.windowMs);
}

/**
 * Counts one attempt before its password is checked, so parallel attempts cannot pass the limit:
 * the attempt that reaches it is let through and starts the lock, every later one is refused
 * until the lock ends. A lock that has ended starts a fresh window; its level stays for the back-off.
 */
export function reserve(
  before: ThrottleState,
  policy: Policy,
  nowMs: number,
): { state: ThrottleState; reservation: Reservation } {
  const state = standing(before, policy);
  if (state.lockedUntilMs > nowMs)
    return {
      state,
      reservation: refusal(state.failuresMs, policy, state.lockedUntilMs, nowMs),
    };
  const forgotten = nowMs - state.lastAttemptMs >= BACKOFF_MEMORY_MS;
  const failuresMs = countedFailures(state, policy, nowMs);
  // At the limit with no lock: it was lowered since (a setting's). Refused until enough fall out.
  const over = failuresMs.length - policy.limit;
  if (over >= 0)
    return {
      state,
      reservation: refusal(failuresMs, policy, failuresMs[over]! + policy.windowMs, nowMs),
    };
  failuresMs.push(nowMs);
  const locks = forgotten ? 0 : state.locks;
  const lockedNow = failuresMs.length >= policy.limit;
  const next: ThrottleState = {
    failuresMs,
    lockedUntilMs: lockedNow ? nowMs + lockDurationMs(policy, locks) : 0,
    locks: lockedNow ? locks + 1 : locks,
    lastAttemptMs: nowMs,
  };
  return { state: next, reservation: { allowed: true, reservedAtMs: nowMs } };
}

/**
 * Counts one attempt against every key's state, or against none: refused while any of them is
 * locked, until the latest of their ends.
 */
export function reserveAll(
  keys: { state: ThrottleState; policy: Policy }[],
  nowMs: number,
): { states: ThrottleState[]; reservation: Reservation } {
  const results = keys.map(({ state, policy }) => reserve(state, policy, nowMs));
  const waits = results.flatMap(({ reservation: r }) => (r.allowed ? [] : [r.retryAfterS]));
  if (waits.length > 0)
    return {
      states: keys.map((k) => k.state),
      reservation: { allowed: false, retryAfterS: Math.max(...waits) },
    };
  return {
    states: results.map((r) => r.state),
    reservation: { allowed: true, reservedAtMs: nowMs },
  };
}

/**
 * Gives a reservation back: the attempt was not a failure (a good password, for an address) or was
 * refused on its other key. A lock it leaves below the limit is lifted (`standing`), whichever
 * reservation started it.
 */
export function release(state: ThrottleState, policy: Policy, reservedAtMs: number): ThrottleState {
  const at = state.failuresMs.lastIndexOf(reservedAtMs);
  if (at === -1) return state; // already out of the window, or forgotten
  return standing({ ...state, failuresMs: state.failuresMs.filter((_, i) => i !== at) }, policy);
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
