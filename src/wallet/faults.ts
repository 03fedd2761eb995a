// Faults from below the service that every dialect meets alike: D1 that cannot take a query now,
// and a write refused because a user or wallet it names was deleted through another isolate.
import { bindingOf } from "../db/client";
import { migrated, schemaBehind } from "../db/health";
import { forgetUser, forgetWallet } from "../db/isolate-cache";
import { unmetered } from "../db/meter";
import { findUsers } from "../db/users";
import { LedgerRefusal } from "../ledger/append";
import type { ServiceContext } from "./context";
import { Refusal } from "./refusal";

/**
 * `databaseUnavailable`: whether D1 refused a query it could not take now (overloaded, reset, cut
 * off): retryable, and a write's outcome is unknown (its request_id keeps a retry from applying it
 * twice). `errorText` and `stackFrames`: what the log may say of a fault, D1's words and the failed
 * statement, never the values it bound.
 */
export { d1Unavailable as databaseUnavailable, errorText, stackFrames } from "../db/client";
export { NOT_MIGRATED } from "../db/health";

/** What a write refused as gone named: one of them no longer exists. */
export type GoneNames = { userIds: number[]; walletIds: string[] };

/**
 * Whether a query failed because D1's schema is older than the code (a migration not applied): a
 * deployment to finish, not a fault. Asks D1's record of migrations only when the error looks so.
 */
export const schemaNotMigrated = async (ctx: Pick<ServiceContext, "db">, err: unknown) =>
  schemaBehind(err) && !(await migrated(ctx.db).catch(() => true));

/** Databases this isolate found fully migrated: a schema only moves forward, so each is asked once. */
const migratedBindings = new WeakSet<D1Database>();

/**
 * Whether D1 has every migration this code needs. Until it has, nothing that reads or writes it is
 * served: a write an older schema still takes (a new user) would go without its event. Asked of
 * the request's own session: a replica that lacks the newest migration (just after a deploy)
 * cannot serve this code's reads either, and says so until it catches up.
 */
export async function schemaApplied(ctx: Pick<ServiceContext, "db" | "d1">) {
  const binding = unmetered(ctx.d1);
  if (migratedBindings.has(binding)) return true;
  if (!(await migrated(ctx.db))) return false;
  migratedBindings.add(binding);
  return true;
}

/**
 * What a write named when the ledger refused it because one of them was deleted (through another
 * isolate, whose deletion this one's cache had not seen; nothing was written); this isolate forgets
 * them, so the next look-up asks D1. Undefined for any other error.
 */
export function forgetGone(ctx: Pick<ServiceContext, "db">, err: unknown): GoneNames | undefined {
  if (!(err instanceof LedgerRefusal && err.reason === "gone" && err.named)) return undefined;
  const d1 = bindingOf(ctx.db);
  for (const id of err.named.userIds) forgetUser(d1, id);
  for (const id of err.named.walletIds) forgetWallet(d1, id);
  return err.named;
}

/**
 * An error as the service words it: a write the ledger refused because what it named is gone is
 * that refusal (the user, found missing by one query, else the wallet, not found), and this
 * isolate forgets what it named (forgetGone); a failed look-up is that error; anything else is
 * itself.
 */
export async function wordGone<E>(ctx: Pick<ServiceContext, "db">, err: E): Promise<E | Refusal> {
  const named = forgetGone(ctx, err);
  if (!named) return err;
  try {
    const users = await findUsers(ctx.db, named.userIds);
    const userId = named.userIds.find((id) => !users.has(id));
    return new Refusal(
      userId !== undefined
        ? { code: "user_not_found", userId }
        : { code: "wallet_not_found", walletId: named.walletIds[0] ?? "" },
    );
  } catch (lookup) {
    return lookup as E;
  }
}
