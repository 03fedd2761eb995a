// Faults from below the service that every dialect meets alike: D1 that cannot take a query now, a
// Durable Object that cannot answer now, and a write refused because a user or wallet it names was
// deleted through another isolate.
import { bindingOf, d1Unavailable, errorText } from "../db/client";
import { migrated, migratedOnce, schemaBehind } from "../db/health";
import { forgetUser, forgetWallet } from "../db/isolate-cache";
import { unmetered } from "../db/meter";
import { findUsers } from "../db/users";
import { LedgerRefusal } from "../ledger/append";
import type { OBJECT_CLASSES } from "../settings";
import type { ServiceContext } from "./context";
import { Refusal } from "./refusal";

/**
 * `errorText` and `stackFrames`: what the log may say of a fault, D1's words and the failed
 * statement, never the values it bound.
 */
export { errorText, stackFrames } from "../db/client";
export { NOT_MIGRATED } from "../db/health";

/** A Durable Object binding the service calls (settings.ts). */
export type ObjectBinding = keyof typeof OBJECT_CLASSES;

/**
 * A call to a Durable Object that could not answer now (out of reach, overloaded, reset), its
 * binding named: retryable, and told apart from D1's failures, whose words can be the same
 * ("Network connection lost"). `cause` is the runtime's error.
 */
export class ObjectUnavailable extends Error {
  constructor(
    readonly binding: ObjectBinding,
    cause: unknown,
  ) {
    super(`Durable Object ${binding} unavailable`, { cause });
  }
}

/**
 * A Durable Object binding whose class has no SQL storage, which LoginThrottle keeps its counts in
 * (HistoryGate keeps its lease in memory): wrangler.toml's [[migrations]] listed it in new_classes,
 * not new_sqlite_classes. Every call to such an object fails alike: a deployment to fix, not a fault.
 */
export class ObjectWithoutSql extends Error {
  constructor(
    readonly binding: ObjectBinding,
    cause: unknown,
  ) {
    super(`Durable Object ${binding} has no SQL storage`, { cause });
  }
}

/** Whether `err` is workerd's refusal of SQL to an object of a class that has none. */
export const sqlNotEnabled = (err: unknown) =>
  String(err).includes("SQL is not enabled for this Durable Object class");

/** The log line of an object that could not answer: its binding, and the runtime's words. */
export const objectUnavailableLine = (requestId: string | undefined, err: ObjectUnavailable) => ({
  request_id: requestId ?? null,
  durable_object_unavailable: err.binding,
  error: errorText(err.cause).error,
});

/**
 * Gives a sign-in's counts back once what they guarded is done (a session opened, a password set):
 * an object that cannot answer then leaves its count as a failure and changes no answer, since the
 * request is done (a retry would open a second session, or find the reset code used). Logged.
 */
export async function giveBackAfter(requestId: string, giveBack: () => Promise<unknown>) {
  try {
    await giveBack();
  } catch (err) {
    if (!(err instanceof ObjectUnavailable)) throw err;
    console.error(JSON.stringify(objectUnavailableLine(requestId, err)));
  }
}

/**
 * Whether D1 refused a query it could not take now (overloaded, reset, cut off): retryable, and a
 * write's outcome is unknown (its request_id keeps a retry from applying it twice).
 */
export const databaseUnavailable = (err: unknown) =>
  !(err instanceof ObjectUnavailable) && d1Unavailable(err);

/** What the service calls on a Durable Object binding (settings.ts judges a binding by them). */
type Namespace = Pick<DurableObjectNamespace, "idFromName" | "get">;

/**
 * A Durable Object binding as the service calls it: a call to one of its objects that fails
 * rethrows as ObjectUnavailable naming `binding`, the one place such a failure is told apart.
 * An error the object's own code threw (`remote`, and not marked retryable or overloaded, as
 * Cloudflare marks them) is left as it is: a fault, not an object out of reach. So is an object of
 * the other class refusing a method it lacks, which the runtime marks `remote` too
 * (http/errors.ts misconfiguredObject names the binding); an object of a class without SQL storage
 * rethrows as ObjectWithoutSql.
 */
export function reachable<N extends Namespace>(binding: ObjectBinding, ns: N) {
  const failed = (err: unknown) => {
    if (sqlNotEnabled(err)) return new ObjectWithoutSql(binding, err);
    const e = err as { remote?: unknown; retryable?: unknown; overloaded?: unknown } | null;
    const own = e?.remote === true && e.retryable !== true && e.overloaded !== true;
    return own ? err : new ObjectUnavailable(binding, err);
  };
  // A stub answers any name as a remote method (`member.apply` would be one too), so each is called
  // through Reflect, on the stub itself; `then` stays the stub's own, so awaiting one is unchanged.
  const object = <S extends object>(stub: S) =>
    new Proxy(stub, {
      get(target, name) {
        const member: unknown = Reflect.get(target, name);
        if (typeof member !== "function" || name === "then") return member;
        return (...args: unknown[]) =>
          Promise.resolve(Reflect.apply(member, target, args)).catch((err: unknown) => {
            throw failed(err);
          });
      },
    });
  return {
    idFromName: (name: string) => ns.idFromName(name),
    get: (id: DurableObjectId) => object(ns.get(id)),
  } as Pick<N, keyof Namespace>;
}

/** What a write refused as gone named: one of them no longer exists. */
export type GoneNames = NonNullable<LedgerRefusal["named"]>;

/**
 * Whether a query failed because D1's schema is older than the code (a migration not applied): a
 * deployment to finish, not a fault. Asks D1's record of migrations only when the error looks so.
 */
export const schemaNotMigrated = async (ctx: Pick<ServiceContext, "db">, err: unknown) =>
  schemaBehind(err) && !(await migrated(ctx.db).catch(() => true));

/**
 * Whether D1 has every migration this code needs. Until it has, nothing that reads or writes it is
 * served: a write an older schema still takes (a new user) would go without its event. Asked of
 * the request's own session: a replica that lacks the newest migration (just after a deploy)
 * cannot serve this code's reads either, and says so until it catches up.
 */
export const schemaApplied = (ctx: Pick<ServiceContext, "db" | "d1">) =>
  migratedOnce(unmetered(ctx.d1), ctx.db);

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
