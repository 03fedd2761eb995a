import { decodeKeyCredential, hashApiKey } from "../auth/api-keys";
import type { Principal } from "../auth/principal";
import { findKeyOwner, touchApiKey } from "../db/api-keys";
import { bindingOf, learnBookmark } from "../db/client";
import { checkedCredential, endedHere, KEY_TTL_MS } from "../db/isolate-cache";
import { asciiLower } from "../ledger/request-key";
import type { ServiceContext } from "./context";

// last_used_at is a hint, not an audit log: refresh it at most once a minute per key.
export const TOUCH_INTERVAL_MS = 60_000;
/**
 * How far last_used_at may be behind a key's latest use, in seconds: a use within the interval is
 * not written, and one answered from the isolate's cache is not seen at all.
 */
export const LAST_USE_BEHIND_S = (TOUCH_INTERVAL_MS + KEY_TTL_MS) / 1000;

/**
 * The principal an API key credential (`base64(username:key)`) names, or null. Verified keys are
 * cached per isolate for KEY_TTL_MS on the request's clock (`ctx.nowMs`; for a write, only what
 * the primary said: isolate-cache.ts fresh); the last-used bookkeeping write runs after the answer
 * (`ctx.afterAnswer`).
 */
export async function keyPrincipal(ctx: ServiceContext, token: string): Promise<Principal | null> {
  const { db } = ctx;
  const nowMs = ctx.nowMs();
  const credential = decodeKeyCredential(token);
  if (!credential) return null;
  const keyHash = hashApiKey(credential.key);
  const d1 = bindingOf(db);
  const checked = await checkedCredential(
    db,
    "keys",
    keyHash,
    { ttlMs: KEY_TTL_MS, nowMs },
    (at) => findKeyOwner(at, keyHash),
    (owner, read) =>
      endedHere(d1, owner.userId, owner)
        ? undefined
        : {
            keyId: owner.keyId,
            ...read,
            owner: {
              userId: owner.userId,
              username: owner.username,
              role: owner.role,
              scope: owner.scope,
            },
          },
  );
  if (!checked) return null;
  const { cached, row: owner } = checked;
  // A key works only with its own username, A-Z folded as the service folds usernames (never
  // Unicode's case folding: the Kelvin sign is not a K); say nothing about which part was wrong.
  // Refused, it was not used: last_used_at stays as it was.
  if (asciiLower(cached.owner.username) !== asciiLower(credential.username)) return null;
  if (owner && (owner.lastUsedAtMs === null || nowMs - owner.lastUsedAtMs > TOUCH_INTERVAL_MS))
    await ctx.afterAnswer(touchApiKey(db, owner.keyId, nowMs));
  learnBookmark(db, cached.learnt);
  return { ...cached.owner };
}
