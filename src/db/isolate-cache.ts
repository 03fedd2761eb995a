import { BoundedMap } from "../bounded-map";
import { perObject } from "../per-object";
import type { findKeyOwner } from "./api-keys";
import { bindingOf, type Db, orAtPrimary, readsReplica } from "./client";
import type { Wallet } from "./schema";
import type { findSession } from "./sessions";

// Facts that never change once true, kept per isolate so a warm request needs one D1 round trip:
// a wallet never changes after creation and a username never changes. Deleting one (only possible
// while no entry names it: wallet/wallets.ts, wallet/users.ts) is forgotten at once by the isolate
// that deleted it; another isolate may still know it until evicted, and every write naming it there
// fails on the foreign keys, so no entry can name it; a deleted user's id is never given to another
// user (drizzle/0023), whom such an isolate would call by the deleted one's username
// (docs/compat.md). Verified API keys are kept for KEY_TTL_MS, so a revocation made through another
// isolate takes effect within that bound (at once in the isolate that revoked, even on a read from
// a replica that has not seen it: endedHere), measured on the request's clock (createApp's nowMs)
// as a session's is. Keyed by the D1 binding (db/client.ts's bindingOf, or c.env.DB), never a
// request's session or meter of it, never a module-level database.
export const KEY_TTL_MS = 30_000;
// A sign-in session's state (live or revoked) is kept for SESSION_TTL_MS, so a hot client pays no D1
// read per request while a revocation made through another isolate takes effect within 5 s (at
// once in the isolate that revoked, as for keys). Measured on the request's clock (createApp's
// nowMs).
export const SESSION_TTL_MS = 5_000;
const MAX_ENTRIES = 10_000;

/** A verified key's owner, as its row names it (wallet/key-principal.ts makes it a principal). */
type KeyOwner = Pick<
  NonNullable<Awaited<ReturnType<typeof findKeyOwner>>>,
  "userId" | "username" | "role" | "scope"
>;
/**
 * When a credential's state was read from D1, and whether at the primary or maybe a replica; and
 * the bookmark a read at the primary reached (db/client.ts orAtPrimary), which each request it
 * serves reads at least as new as (else null): a replica behind it may lack the credential's user.
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
  /** How many times this isolate has forgotten keys or sessions (checkedCredential). */
  forgets: 0,
  /**
   * The credentials this isolate ended (key ids, session ids, deleted users' ids), refused whatever
   * a replica that has not seen the ending yet says (endedHere). An ending is final, so an entry
   * never turns wrong; the newest MAX_ENTRIES are kept, far more than a replica's lag lets through.
   */
  ended: {
    keys: new BoundedMap<number, true>(MAX_ENTRIES),
    sessions: new BoundedMap<string, true>(MAX_ENTRIES),
    users: new BoundedMap<number, true>(MAX_ENTRIES),
  },
}));

/** What a credential's cached state is keyed by, in its map. */
type CredentialMaps = { keys: CachedKey; sessions: CachedSession };

/**
 * A credential's state (a key's, a session's) for a request that reads through `db`: the isolate's
 * copy when `fresh` for it, else `read` from D1 (at the primary, when a replica lacks the row:
 * orAtPrimary) and made into the state to keep by `toCached`, which answers undefined for a row
 * that must be refused and not kept. The state is kept unless this isolate forgot keys or sessions
 * while it was read: a read that began before a revocation answered may have found the credential
 * live, and kept it would let every later request act on it for the whole TTL. `row` is the row
 * read, when it was.
 */
export async function checkedCredential<M extends keyof CredentialMaps, R>(
  db: Db,
  map: M,
  key: string,
  { ttlMs, nowMs }: { ttlMs: number; nowMs: number },
  read: (db: Db) => Promise<R | undefined>,
  toCached: (row: R, checked: Checked) => CredentialMaps[M] | undefined,
): Promise<{ cached: CredentialMaps[M]; row?: R } | undefined> {
  const cache = isolateCache(bindingOf(db));
  const states = cache[map] as BoundedMap<string, CredentialMaps[M]>;
  const atPrimary = !readsReplica(db);
  const kept = states.get(key);
  if (fresh(kept, ttlMs, nowMs, atPrimary)) return { cached: kept };
  const forgets = cache.forgets;
  const { row, learnt } = await orAtPrimary(db, read);
  states.delete(key);
  if (row === undefined) return undefined;
  const cached = toCached(row, { checkedAtMs: nowMs, atPrimary, learnt });
  if (cached === undefined) return undefined;
  if (cache.forgets === forgets) states.set(key, cached);
  return { cached, row };
}

/** This isolate stops serving a deleted wallet (other isolates: docs/compat.md, "Deleting"). */
export function forgetWallet(d1: D1Database, id: string) {
  isolateCache(d1).wallets.delete(id);
}

/**
 * This isolate forgets a deleted user: its username, its keys and its sessions; `deletedHere` (it
 * deleted the user) refuses them whatever a replica says (a user's id is never reused:
 * drizzle/0023).
 */
export function forgetUser(d1: D1Database, userId: number, deletedHere = false) {
  const cache = isolateCache(d1);
  cache.forgets++;
  if (deletedHere) cache.ended.users.set(userId, true);
  const { usernames, keys } = cache;
  usernames.delete(userId);
  for (const [hash, cached] of keys) if (cached.owner.userId === userId) keys.delete(hash);
  forgetSessions(d1, userId, []);
}

/** This isolate stops accepting a key it revoked, at once, whatever a replica says. */
export function forgetKey(d1: D1Database, keyId: number) {
  const cache = isolateCache(d1);
  cache.forgets++;
  cache.ended.keys.set(keyId, true);
  const { keys } = cache;
  for (const [hash, cached] of keys) if (cached.keyId === keyId) keys.delete(hash);
}

/**
 * Whether this isolate ended a credential D1 just called live (a replica may not have seen the
 * ending yet): the key, the session, or its user. Asked after each read from D1, never of a cached
 * answer: what the isolate ended is no longer cached as live.
 */
export function endedHere(
  d1: D1Database,
  userId: number,
  credential: { keyId: number } | { sessionId: string },
) {
  const { ended } = isolateCache(d1);
  if (ended.users.has(userId)) return true;
  return "keyId" in credential
    ? ended.keys.has(credential.keyId)
    : ended.sessions.has(credential.sessionId);
}

/**
 * Whether a credential's cached state may answer a request made at `nowMs` that reads the primary
 * (`atPrimary`: every write) or maybe a replica: read at most `ttlMs` before (KEY_TTL_MS,
 * SESSION_TTL_MS) on the request's clock, so tests move it (a clock that ran backwards reads again:
 * trusting it would stretch the bound), and, for a request at the primary, read at the primary too.
 * A replica may not have seen a revocation or a change of role yet: what it vouched for may let a
 * read through for its lag, never a write (docs/scaling.md#read-replicas).
 */
const fresh = <T extends Checked>(
  cached: T | undefined,
  ttlMs: number,
  nowMs: number,
  atPrimary: boolean,
): cached is T =>
  cached !== undefined &&
  nowMs >= cached.checkedAtMs &&
  nowMs - cached.checkedAtMs <= ttlMs &&
  (cached.atPrimary || !atPrimary);

/**
 * This isolate refuses the sessions of `userId` it ended, at once, whatever a replica says: `ended`
 * is one (a sign-out: only it is forgotten) or the ids of all it revoked (every session the isolate
 * holds of the user is forgotten).
 */
export function forgetSessions(d1: D1Database, userId: number, ended: string | readonly string[]) {
  const cache = isolateCache(d1);
  cache.forgets++;
  const { sessions } = cache;
  for (const id of typeof ended === "string" ? [ended] : ended) cache.ended.sessions.set(id, true);
  if (typeof ended === "string") sessions.delete(ended);
  else for (const [id, cached] of sessions) if (cached.userId === userId) sessions.delete(id);
}
