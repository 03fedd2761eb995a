// A login's own rules, pure as policy.ts's: its (login, address) pairs, the addresses it signed in
// from, and its ceiling, decided together in one call to its object.
import { DAY_MS, POLICIES, release, reserveAll, type ThrottleState } from "./policy";

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

/** What a key's object knows about one attempt: its pair, its ceiling, the address's standing. */
type AccountView = { pair: ThrottleState; ceiling: ThrottleState; known: boolean };

/** A key's reservation: `ceilingCounted` is false when a known address was spared the ceiling. */
export type SignInReservation =
  | { allowed: true; reservedAtMs: number; ceilingCounted: boolean }
  | { allowed: false; retryAfterS: number };

/**
 * Counts one attempt against its (key, address) pair and, from an address the key does not know,
 * against the key's ceiling. Either lock refuses it (Retry-After: the later end), and a refused
 * attempt is counted nowhere.
 */
export function reserveSignIn(
  view: AccountView,
  nowMs: number,
): { pair: ThrottleState; ceiling: ThrottleState; reservation: SignInReservation } {
  const keys = [{ state: view.pair, policy: POLICIES.pair }];
  if (!view.known) keys.push({ state: view.ceiling, policy: POLICIES.account });
  const { states, reservation } = reserveAll(keys, nowMs);
  return {
    pair: states[0] ?? view.pair,
    ceiling: states[1] ?? view.ceiling,
    reservation: reservation.allowed
      ? { ...reservation, ceilingCounted: !view.known }
      : reservation,
  };
}

/**
 * A good password: the pair starts over (count, lock, back-off), the address becomes known, and
 * the ceiling gets this attempt back (not a reset: strangers' failures elsewhere still count). A key
 * the attempt reserved nothing on (the user's other login) has nothing to give back.
 */
export function signInSucceeded(
  ceiling: ThrottleState,
  known: KnownAddress[],
  address: string,
  held: Extract<SignInReservation, { allowed: true }> | null,
  nowMs: number,
) {
  return {
    ceiling: held?.ceilingCounted ? release(ceiling, POLICIES.account, held.reservedAtMs) : ceiling,
    known: rememberAddress(known, address, nowMs),
  };
}
