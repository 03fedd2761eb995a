import { BoundedMap } from "../bounded-map";
import { perObject } from "../per-object";
import type { findKeyOwner } from "./api-keys";
import type { Wallet } from "./schema";
import type { findSession } from "./sessions";

// Facts that never change once true, kept per isolate so a warm request needs one D1 round trip:
// a wallet never changes after creation and a username never changes. Deleting one (only possible
// while no entry names it: wallet/wallets.ts, wallet/users.ts) is forgotten at once by the isolate
// that deleted it; another isolate may still know it until evicted, and every write naming it there
// fails on the foreign keys, so no entry can name it; a deleted user's id is never given to another
// user (drizzle/0023), whom such an isolate would call by the deleted one's username
// (docs/compat.md). Verified API keys are kept for KEY_TTL_MS, so a revocation made through another
// isolate takes effect within that bound (at once in the isolate that revoked), measured on the
// request's clock (createApp's nowMs) as a session's is. Keyed by the D1
// binding (db/client.ts's bindingOf, or c.env.DB), never a request's session or meter of it, never
// a module-level database.
export const KEY_TTL_MS = 30_000;
// A sign-in session's state (live or revoked) is kept for SESSION_TTL_MS, so a hot client pays no D1
// read per request while a revocation made through another isolate takes effect within 5 s (at
// once in the isolate that revoked). Measured on the request's clock (createApp's nowMs).
export const SESSION_TTL_MS = 5_000;
const MAX_ENTRIES = 10_000;

/** A verified key's owner, as its row names it (wallet/key-principal.ts makes it a principal). */
type KeyOwner = Pick<
  NonNullable<Awaited<ReturnType<typeof findKeyOwner>>>,
  "userId" | "username" | "role" | "scope"
>;
/**
 * When a credential's state was read from D1, and whether at the primary or maybe a replica; and
 * the bookmark a read at the primary reached when the replica did not have it yet (db/client.ts
 * orAtPrimary), which each request it serves reads at least as new as (else null).
 */
type Checked = { checkedAtMs: number; atPrimary: boolean; learnt: string | null };
type CachedKey = { keyId: number; owner: KeyOwner } & Checked;
type CachedSession = Pick<
  NonNullable<Awaited<ReturnType<typeof findSession>>>,
  "userId" | "role" | "audience"
> & { revoked: boolean } & Checked;

export const isolateCache = perObject((_d1: D1Database) => ({
  wallets: new BoundedMap<string, Wallet>(MAX_ENTRIES),
  usernames: new BoundedMap<number, string>(MAX_ENTRIES),
  keys: new BoundedMap<string, CachedKey>(MAX_ENTRIES),
  sessions: new BoundedMap<string, CachedSession>(MAX_ENTRIES),
  /** How many times this isolate has forgotten keys or sessions (rememberCredential). */
  forgets: 0,
}));

/**
 * Keeps what a request read of a credential (a key, a session) unless this isolate forgot keys or
 * sessions while it was read (`forgetsBefore`: `forgetCount` taken before the read). A read that
 * began before a revocation answered may have found the credential live; kept, it would let every
 * later request of the isolate act on a credential revoked before it was sent, for the whole TTL.
 */
export function rememberCredential<V>(
  d1: D1Database,
  forgetsBefore: number,
  map: BoundedMap<string, V>,
  key: string,
  value: V,
) {
  if (isolateCache(d1).forgets === forgetsBefore) map.set(key, value);
}

/** The mark rememberCredential compares: take it before reading a credential from D1. */
export const forgetCount = (d1: D1Database) => isolateCache(d1).forgets;

/** This isolate stops serving a deleted wallet (other isolates: docs/compat.md, "Deleting"). */
export function forgetWallet(d1: D1Database, id: string) {
  isolateCache(d1).wallets.delete(id);
}

/** This isolate forgets a deleted user: its username, its keys and its sessions. */
export function forgetUser(d1: D1Database, userId: number) {
  const cache = isolateCache(d1);
  cache.forgets++;
  const { usernames, keys } = cache;
  usernames.delete(userId);
  for (const [hash, cached] of keys) if (cached.owner.userId === userId) keys.delete(hash);
  forgetSessions(d1, userId);
}

export function forgetKey(d1: D1Database, keyId: number) {
  const cache = isolateCache(d1);
  cache.forgets++;
  const { keys } = cache;
  for (const [hash, cached] of keys) if (cached.keyId === keyId) keys.delete(hash);
}

/**
 * Whether a credential's cached state may answer a request made at `nowMs` that reads the primary
 * (`atPrimary`: every write) or maybe a replica: read at most `ttlMs` before (KEY_TTL_MS,
 * SESSION_TTL_MS) on the request's clock, so tests move it (a clock that ran backwards reads again:
 * trusting it would stretch the bound), and, for a request at the primary, read at the primary too.
 * A replica may not have seen a revocation or a change of role yet: what it vouched for may let a
 * read through for its lag, never a write (docs/scaling.md#read-replicas).
 */
export const fresh = <T extends Checked>(
  cached: T | undefined,
  ttlMs: number,
  nowMs: number,
  atPrimary: boolean,
): cached is T =>
  cached !== undefined &&
  nowMs >= cached.checkedAtMs &&
  nowMs - cached.checkedAtMs <= ttlMs &&
  (cached.atPrimary || !atPrimary);

/** This isolate stops trusting the sessions it holds of `userId` (or only `sessionId`). */
export function forgetSessions(d1: D1Database, userId: number, sessionId?: string) {
  const cache = isolateCache(d1);
  cache.forgets++;
  const { sessions } = cache;
  if (sessionId !== undefined) sessions.delete(sessionId);
  else for (const [id, cached] of sessions) if (cached.userId === userId) sessions.delete(id);
}
