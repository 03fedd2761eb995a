// API keys: an administrator's credentials for servers (docs/security.md#api-keys). The secret is
// made here, shown once by the caller and kept only as its hash.
import { generateApiKey, hashApiKey } from "../auth/api-keys";
import { type Principal, type Scope, scopeAllows } from "../auth/principal";
import { insertApiKey, listApiKeys, revokeApiKey } from "../db/api-keys";
import type { Db } from "../db/client";
import { forgetKey } from "../db/isolate-cache";
import { Refusal } from "./refusal";

/**
 * A new key for the user named (the caller's own by default). A key may mint keys only within its
 * own scope: a write key cannot make a read-write one.
 */
export async function issueApiKey(
  db: Db,
  caller: Principal,
  spec: { username?: string; name: string; scope: Scope },
  nowMs: number,
) {
  if (!scopeAllows(caller.scope, spec.scope)) throw new Refusal({ code: "scope_exceeded" });
  const username = spec.username ?? caller.username;
  const secret = generateApiKey();
  const created = await insertApiKey(db, username, {
    name: spec.name,
    scope: spec.scope,
    keyHash: await hashApiKey(secret),
    createdAtMs: nowMs,
  });
  if (!created) throw new Refusal({ code: "user_not_found", userId: username });
  return { ...created, secret };
}

export const listKeys = listApiKeys;

/** Revokes a key (`id` null: none; `ref` as sent); this isolate stops accepting it at once, others within KEY_TTL_MS. */
export async function revokeKey(
  db: Db,
  d1: D1Database,
  { id, ref }: { id: number | null; ref: string },
  nowMs: number,
) {
  const revoked = id === null ? null : await revokeApiKey(db, id, nowMs);
  if (!revoked) throw new Refusal({ code: "api_key_not_found", ref });
  forgetKey(d1, revoked.id);
  return revoked;
}
