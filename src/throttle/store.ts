// The rows a LoginThrottle object keeps in its own SQLite database, read and written with
// synchronous `sql.exec` (no await between a read and its write, so one call's rules apply to the
// state no other call has touched meanwhile). Every object may hold:
// - `throttle`: one row, the object's own count (its ThrottleKind: a client address's, a login's
//   ceiling, an e-mail address's mails, or a client's mails);
// - `pairs`: a login's count per client address, or an e-mail address's mails per client address
//   (POLICIES.mail), one row per client address (by its key's SHA-256);
// - `known`: the addresses a login or an account signed in from, at most KNOWN_ADDRESSES_MAX.
import { KNOWN_ADDRESS_MS, type KnownAddress } from "./account-policy";
import {
  EMPTY_STATE,
  forgetAtMs,
  POLICIES,
  type Policy,
  type ThrottleKind,
  type ThrottleState,
} from "./policy";

type StateRow = {
  failures_ms: string;
  locked_until_ms: number;
  locks: number;
  last_attempt_ms: number;
};

const STATE_COLUMNS = `failures_ms TEXT NOT NULL, locked_until_ms INTEGER NOT NULL,
  locks INTEGER NOT NULL, last_attempt_ms INTEGER NOT NULL`;

/** deleteAll() drops the tables too: each call creates them again if needed. */
export function ensureTables(sql: SqlStorage) {
  sql.exec(`CREATE TABLE IF NOT EXISTS throttle (id INTEGER PRIMARY KEY CHECK (id = 1),
    kind TEXT NOT NULL, ${STATE_COLUMNS})`);
  sql.exec(`CREATE TABLE IF NOT EXISTS pairs (address TEXT PRIMARY KEY, ${STATE_COLUMNS},
    forget_at_ms INTEGER NOT NULL)`);
  sql.exec("CREATE INDEX IF NOT EXISTS pairs_forget ON pairs (forget_at_ms)");
  sql.exec(`CREATE TABLE IF NOT EXISTS known (address TEXT PRIMARY KEY,
    last_success_ms INTEGER NOT NULL)`);
}

/** Whether the tables exist: read without creating them, so an object that keeps nothing stays so. */
export const hasTables = (sql: SqlStorage) =>
  sql.exec("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'throttle'").toArray()
    .length > 0;

const toState = (row: StateRow | undefined): ThrottleState =>
  row
    ? {
        failuresMs: JSON.parse(row.failures_ms) as number[],
        lockedUntilMs: row.locked_until_ms,
        locks: row.locks,
        lastAttemptMs: row.last_attempt_ms,
      }
    : EMPTY_STATE;

const stateValues = (s: ThrottleState) =>
  [JSON.stringify(s.failuresMs), s.lockedUntilMs, s.locks, s.lastAttemptMs] as const;

export function loadThrottle(sql: SqlStorage): { kind: ThrottleKind | null; state: ThrottleState } {
  const row = sql
    .exec<StateRow & { kind: string }>("SELECT * FROM throttle WHERE id = 1")
    .toArray()[0];
  return { kind: (row?.kind as ThrottleKind | undefined) ?? null, state: toState(row) };
}

export function saveThrottle(sql: SqlStorage, kind: ThrottleKind, state: ThrottleState) {
  sql.exec(
    `INSERT OR REPLACE INTO throttle (id, kind, failures_ms, locked_until_ms, locks, last_attempt_ms)
     VALUES (1, ?, ?, ?, ?, ?)`,
    kind,
    ...stateValues(state),
  );
}

export const loadPair = (sql: SqlStorage, address: string) =>
  toState(sql.exec<StateRow>("SELECT * FROM pairs WHERE address = ?", address).toArray()[0]);

export function savePair(sql: SqlStorage, address: string, state: ThrottleState, policy: Policy) {
  sql.exec(
    `INSERT OR REPLACE INTO pairs (address, failures_ms, locked_until_ms, locks, last_attempt_ms,
     forget_at_ms) VALUES (?, ?, ?, ?, ?, ?)`,
    address,
    ...stateValues(state),
    forgetAtMs(state, policy),
  );
}

export const deletePair = (sql: SqlStorage, address: string) =>
  sql.exec("DELETE FROM pairs WHERE address = ?", address);

export const loadPairs = (sql: SqlStorage) =>
  sql.exec<StateRow>("SELECT * FROM pairs").toArray().map(toState);

export const loadKnown = (sql: SqlStorage): KnownAddress[] =>
  sql
    .exec<{ address: string; last_success_ms: number }>("SELECT * FROM known")
    .toArray()
    .map((r) => ({ address: r.address, lastSuccessMs: r.last_success_ms }));

export function saveKnown(sql: SqlStorage, known: KnownAddress[]) {
  sql.exec("DELETE FROM known");
  for (const k of known)
    sql.exec(
      "INSERT INTO known (address, last_success_ms) VALUES (?, ?)",
      k.address,
      k.lastSuccessMs,
    );
}

/** Drops the pairs and known addresses that no longer matter, so invented addresses do not pile up. */
export function prune(sql: SqlStorage, nowMs: number) {
  sql.exec("DELETE FROM pairs WHERE forget_at_ms <= ?", nowMs);
  sql.exec("DELETE FROM known WHERE last_success_ms <= ?", nowMs - KNOWN_ADDRESS_MS);
}

/** When nothing the object holds matters any more, so that it may be deleted whole. */
export function forgetAllAtMs(sql: SqlStorage) {
  const { kind, state } = loadThrottle(sql);
  const [latest] = sql
    .exec<{ pairs: number | null; known: number | null }>(
      "SELECT (SELECT max(forget_at_ms) FROM pairs) AS pairs, (SELECT max(last_success_ms) FROM known) AS known",
    )
    .toArray();
  return Math.max(
    kind === null ? 0 : forgetAtMs(state, POLICIES[kind]),
    latest?.pairs ?? 0,
    latest?.known === null || latest?.known === undefined ? 0 : latest.known + KNOWN_ADDRESS_MS,
  );
}
