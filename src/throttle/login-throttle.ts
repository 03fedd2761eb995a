import { DurableObject } from "cloudflare:workers";
import { isKnown, reserveSignIn, type SignInReservation, signInSucceeded } from "./account-policy";
import {
  countedFailures,
  POLICIES,
  type Reservation,
  release,
  reserve,
  reserveAll,
  type ThrottleKind,
  type ThrottleState,
} from "./policy";
import {
  deletePair,
  ensureTables,
  forgetAllAtMs,
  hasTables,
  loadKnown,
  loadPair,
  loadPairs,
  loadThrottle,
  prune,
  saveKnown,
  savePair,
  saveThrottle,
} from "./store";

/** A kind's policy, with `limit` in place of its own for one a setting gives (POLICIES.client). */
const policyFor = (kind: ThrottleKind, limit?: number) =>
  limit === undefined ? POLICIES[kind] : { ...POLICIES[kind], limit };

/**
 * One sign-in throttle key (a login, an account or a client address) per object, named by
 * `idFromName`: every isolate everywhere reaches the same object for a key, and the object runs one
 * call at a time, so a reservation is counted before any other attempt for that key is looked at. A
 * login's object also holds its (login, address) pairs and the addresses it signed in from
 * (store.ts), so one call decides an attempt against the pair, the known addresses and the ceiling
 * together; an account's holds the addresses any of its logins signed in from. Times come from the
 * caller (the Worker's injectable clock). An alarm forgets the object once nothing in it matters, so
 * the keys attackers invent do not pile up in storage.
 */
export class LoginThrottle extends DurableObject<Env> {
  private get sql() {
    ensureTables(this.ctx.storage.sql);
    return this.ctx.storage.sql;
  }

  /**
   * Forgets the object at once when nothing in it matters any more (a success gave back the last
   * count), else sets the alarm for when nothing will: an alarm set in the past runs at once anyway.
   */
  private async scheduleForget() {
    const forgetAt = forgetAllAtMs(this.sql);
    if (forgetAt <= Date.now()) await this.ctx.storage.deleteAll();
    else await this.ctx.storage.setAlarm(forgetAt);
  }

  /**
   * Counts an attempt against this key before its password is checked, or refuses it while locked
   * (`limit`: policyFor).
   */
  async reserve(kind: ThrottleKind, nowMs: number, limit?: number): Promise<Reservation> {
    const result = reserve(loadThrottle(this.sql).state, policyFor(kind, limit), nowMs);
    if (!result.reservation.allowed) return result.reservation;
    saveThrottle(this.sql, kind, result.state);
    await this.scheduleForget();
    return result.reservation;
  }

  /** Gives back a reservation that was not a failure, against the `limit` it was reserved under. */
  async release(kind: ThrottleKind, reservedAtMs: number, limit?: number): Promise<void> {
    // An object that keeps nothing forgot the count already: creating its tables to find that out
    // would leave them behind, with no alarm to delete them.
    if (!hasTables(this.ctx.storage.sql)) return;
    const { state } = loadThrottle(this.sql);
    const next = release(state, policyFor(kind, limit), reservedAtMs);
    if (next === state) return; // unchanged when a success or an unlock came first
    saveThrottle(this.sql, kind, next);
    await this.scheduleForget();
  }

  /**
   * A login's side of an attempt from `address` (its key's SHA-256): pair, known, ceiling. An
   * address `knownElsewhere` (by the account) is spared the ceiling as one this key knows.
   */
  async reserveSignIn(
    address: string,
    nowMs: number,
    knownElsewhere = false,
  ): Promise<SignInReservation> {
    const sql = this.sql;
    prune(sql, nowMs);
    const ceiling = loadThrottle(sql).state;
    const view = {
      pair: loadPair(sql, address),
      ceiling,
      known: knownElsewhere || isKnown(loadKnown(sql), address, nowMs),
    };
    const result = reserveSignIn(view, nowMs);
    if (!result.reservation.allowed) return result.reservation;
    savePair(sql, address, result.pair, POLICIES.pair);
    if (result.ceiling !== ceiling) saveThrottle(sql, "account", result.ceiling);
    await this.scheduleForget();
    return result.reservation;
  }

  /**
   * A mail to this object's address (throttle/mail.ts) asked for from `client` (its key's SHA-256):
   * counted against that client's share of the address (a row of `pairs`) and every client's, both
   * or neither, so a refusal has nothing to give back here.
   */
  async reserveInbox(client: string, nowMs: number): Promise<Reservation> {
    const sql = this.sql;
    prune(sql, nowMs);
    const { states, reservation } = reserveAll(
      [
        { state: loadPair(sql, client), policy: POLICIES.mail },
        { state: loadThrottle(sql).state, policy: POLICIES.inbox },
      ],
      nowMs,
    );
    if (!reservation.allowed) return reservation;
    const [pair, inbox] = states as [ThrottleState, ThrottleState];
    savePair(sql, client, pair, POLICIES.mail);
    saveThrottle(sql, "inbox", inbox);
    await this.scheduleForget();
    return reservation;
  }

  /** Whether `address` signed in here (an account: by either of its logins) in the last 30 days. */
  async knows(address: string, nowMs: number): Promise<boolean> {
    // Read without creating the tables: an object nobody signed in to keeps no storage.
    const sql = this.ctx.storage.sql;
    return hasTables(sql) && isKnown(loadKnown(sql), address, nowMs);
  }

  /** A good password from `address`: see signInSucceeded. */
  async signedIn(
    address: string,
    held: Extract<SignInReservation, { allowed: true }> | null,
    nowMs: number,
  ): Promise<void> {
    const sql = this.sql;
    const ceiling = loadThrottle(sql).state;
    const next = signInSucceeded(ceiling, loadKnown(sql), address, held, nowMs);
    deletePair(sql, address);
    if (next.ceiling !== ceiling) saveThrottle(sql, "account", next.ceiling);
    saveKnown(sql, next.known);
    await this.scheduleForget();
  }

  /**
   * An operator's unlock: forgets every pair's failures, locks and back-off and the ceiling's; the
   * known addresses stay. Says how many failures were still counted and whether any lock was on.
   */
  async unlock(nowMs: number): Promise<{ failures: number; locked: boolean }> {
    const sql = this.sql;
    const pairs = loadPairs(sql);
    const states = [...pairs, loadThrottle(sql).state];
    const failures = pairs.reduce((n, s) => n + countedFailures(s, POLICIES.pair, nowMs).length, 0);
    sql.exec("DELETE FROM pairs");
    sql.exec("DELETE FROM throttle");
    if (loadKnown(sql).length === 0) await this.ctx.storage.deleteAll();
    else await this.scheduleForget();
    return { failures, locked: states.some((s) => s.lockedUntilMs > nowMs) };
  }

  /** Forgets everything: the key names a user no more (a deleted user's login or account). */
  async forget(): Promise<void> {
    await this.ctx.storage.deleteAll();
  }

  override async alarm() {
    prune(this.sql, Date.now());
    await this.scheduleForget();
  }
}
