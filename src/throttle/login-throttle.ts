import { DurableObject } from "cloudflare:workers";
import {
  EMPTY_STATE,
  forgetAtMs,
  POLICIES,
  type Reservation,
  release,
  reserve,
  type ThrottleKind,
  type ThrottleState,
} from "./policy";

type Row = {
  failures_ms: string;
  locked_until_ms: number;
  locks: number;
  last_attempt_ms: number;
  kind: string;
};

/**
 * One sign-in throttle key (an account or a client address) per object, named by `idFromName`:
 * every isolate everywhere reaches the same object for a key, and the object runs one call at a
 * time, so a reservation is counted before any other attempt for that key is looked at. Its state is
 * one row of the object's own SQLite database, read and written with synchronous `sql.exec` (no
 * await between the read and the write). Times come from the caller (the Worker's injectable clock).
 * An alarm forgets the object once nothing in it matters (a lock over, its window passed, the
 * back-off expired), so the keys attackers invent do not pile up in storage.
 */
export class LoginThrottle extends DurableObject<Env> {
  private load(): { kind: ThrottleKind | null; state: ThrottleState } {
    // deleteAll() (success, unlock, alarm) drops the table too: create it again when needed.
    this.ctx.storage.sql.exec(`CREATE TABLE IF NOT EXISTS throttle (
      id INTEGER PRIMARY KEY CHECK (id = 1), kind TEXT NOT NULL, failures_ms TEXT NOT NULL,
      locked_until_ms INTEGER NOT NULL, locks INTEGER NOT NULL, last_attempt_ms INTEGER NOT NULL)`);
    const row = this.ctx.storage.sql.exec<Row>("SELECT * FROM throttle WHERE id = 1").toArray()[0];
    if (!row) return { kind: null, state: EMPTY_STATE };
    const state = {
      failuresMs: JSON.parse(row.failures_ms) as number[],
      lockedUntilMs: row.locked_until_ms,
      locks: row.locks,
      lastAttemptMs: row.last_attempt_ms,
    };
    return { kind: row.kind as ThrottleKind, state };
  }

  private async save(kind: ThrottleKind, state: ThrottleState) {
    this.ctx.storage.sql.exec(
      `INSERT OR REPLACE INTO throttle (id, kind, failures_ms, locked_until_ms, locks, last_attempt_ms) VALUES (1, ?, ?, ?, ?, ?)`,
      kind,
      JSON.stringify(state.failuresMs),
      state.lockedUntilMs,
      state.locks,
      state.lastAttemptMs,
    );
    await this.ctx.storage.setAlarm(forgetAtMs(state, POLICIES[kind]));
  }

  /** Counts an attempt before its password is checked, or refuses it while the key is locked. */
  async reserve(kind: ThrottleKind, nowMs: number): Promise<Reservation> {
    const result = reserve(this.load().state, POLICIES[kind], nowMs);
    if (result.reservation.allowed) await this.save(kind, result.state);
    return result.reservation;
  }

  /** Gives back a reservation that was not a failure; lifts the lock it started when `undoLock`. */
  async release(kind: ThrottleKind, reservedAtMs: number, undoLock: boolean): Promise<void> {
    const { state } = this.load();
    const next = release(state, reservedAtMs, undoLock);
    if (next !== state) await this.save(kind, next); // unchanged when a success or an unlock came first
  }

  /** Forgets the key (a good password, or an operator's unlock); says what there was. */
  async reset(nowMs: number): Promise<{ failures: number; locked: boolean }> {
    const { state } = this.load();
    await this.ctx.storage.deleteAll(); // the alarm with it (compatibility date 2026-02-24 or later)
    return { failures: state.failuresMs.length, locked: state.lockedUntilMs > nowMs };
  }

  override async alarm() {
    const { kind, state } = this.load();
    const forgetAt = kind === null ? 0 : forgetAtMs(state, POLICIES[kind]);
    if (forgetAt <= Date.now()) await this.ctx.storage.deleteAll();
    else await this.ctx.storage.setAlarm(forgetAt);
  }
}
