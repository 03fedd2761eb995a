// API keys: an administrator's credentials for servers (docs/api.md#api-keys-administrator). The
// secret is made here, shown once by the caller and kept only as its hash.
import { generateApiKey, hashApiKey } from "../auth/api-keys";
import { type Scope, scopeAllows } from "../auth/principal";
import { insertApiKey, listApiKeys, revokeApiKey } from "../db/api-keys";
import { forgetKey, KEY_TTL_MS } from "../db/isolate-cache";
import { type IdRef, requireAdmin, type ServiceContext } from "./context";
import { Refusal } from "./refusal";

/**
 * A new key for the user named (the caller's own by default, found by id: a login an operator
 * renamed may belong to someone else now). A key may mint keys only within its own scope: a write
 * key cannot make a read-write one.
 */
export async function issueApiKey(
  ctx: ServiceContext,
  spec: { username?: string; name: string; scope: Scope },
) {
  const caller = requireAdmin(ctx, "write");
  if (!scopeAllows(caller.scope, spec.scope)) throw new Refusal({ code: "scope_exceeded" });
  const owner =
    spec.username === undefined ? { userId: caller.userId } : { username: spec.username };
  const secret = generateApiKey();
  const created = await insertApiKey(ctx.db, owner, {
    name: spec.name,
    scope: spec.scope,
    keyHash: hashApiKey(secret),
    createdAtMs: ctx.nowMs(),
  });
  if (!created)
    throw new Refusal({ code: "user_not_found", userId: spec.username ?? caller.userId });
  return { ...created, secret };
}

/** Every key (revoked ones too) with its owner's username, oldest first. */
export function listKeys(ctx: ServiceContext) {
  requireAdmin(ctx, "read");
  return listApiKeys(ctx.db);
}

/** How long a revoked key may still be accepted by another isolate, which remembers it (seconds). */
export const REVOKED_KEY_LINGERS_S = KEY_TTL_MS / 1000;

/** Revokes a key (`id` null: none; `ref` as sent); this isolate stops accepting it at once, others within KEY_TTL_MS. */
export async function revokeKey(ctx: ServiceContext, { id, ref }: IdRef) {
  requireAdmin(ctx, "write");
  const revoked = id === null ? null : await revokeApiKey(ctx.db, id, ctx.nowMs());
  if (!revoked) throw new Refusal({ code: "api_key_not_found", ref });
  forgetKey(ctx.d1, revoked.id);
  return revoked;
}
