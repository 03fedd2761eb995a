// Who and what exists: users read by a reference, pages of users, every wallet. A user answers
// without its password hash; each dialect words the rest.
import { findUserBy, findUsers, listUsersPage, type UserRow } from "../db/users";
import { findWalletCached, findWallet as findWalletRow, listWalletRows } from "../db/wallets";
import { requireAdmin, requireReader, type ServiceContext } from "./context";
import type { UserRef } from "./movements";

export type User = Omit<UserRow, "passwordHash">;

const withoutSecret = ({ passwordHash: _, ...user }: UserRow): User => user;

/**
 * The user `ref` names (null: a reference that names nobody), for a caller who may read about that
 * user; undefined when there is none. Refused before existence is told: a subscriber asking about
 * anyone else, or nobody, learns nothing.
 */
export async function readUser(ctx: ServiceContext, ref: UserRef | null) {
  requireReader(ctx, undefined);
  const user = ref === null ? undefined : await findUserBy(ctx.db, ref);
  requireReader(ctx, user?.id ?? Number.NaN);
  return user && withoutSecret(user);
}

/** An administrator's page of users, ordered by username (WP_User_Query's default), and the total. */
export async function listUsers(ctx: ServiceContext, page: { offset: number; limit: number }) {
  requireAdmin(ctx, "read");
  const { rows, total } = await listUsersPage(ctx.db, page.offset, page.limit);
  return { rows: rows.map(withoutSecret), total };
}

/**
 * The users `ids` name, by id, with their usernames, for an administrator: a page that names many
 * users (a batch's legs) reads them in one statement per 100 ids, not one each, and none this isolate
 * already knows. An id that names nobody is absent.
 */
export async function usernames(ctx: ServiceContext, ids: number[]) {
  requireAdmin(ctx, "read");
  return findUsers(ctx.db, ids);
}

/**
 * The id of the user `ref` names, or null for nobody: an id is taken without a query (the read that
 * follows finds the user or not), a login costs one. Naming only: the caller's right is the verb's.
 */
export async function userIdOf(ctx: ServiceContext, ref: UserRef | null) {
  if (ref === null) return null;
  if ("id" in ref) return ref.id;
  return (await findUserBy(ctx.db, ref))?.id ?? null;
}

/**
 * The id of the user `ref` names (null: nobody), for a caller who may read about that user, as
 * readUser asks it: before the look-up, and after it alike whether or not the user exists.
 */
export async function readableUserId(ctx: ServiceContext, ref: UserRef | null) {
  requireReader(ctx, undefined);
  const userId = await userIdOf(ctx, ref);
  requireReader(ctx, userId ?? Number.NaN);
  return userId;
}

/** Every wallet with its post_id, which never changes and is never another wallet's (the plugin's). */
export async function walletRows(ctx: ServiceContext) {
  requireAdmin(ctx, "read");
  return listWalletRows(ctx.db);
}

/**
 * A wallet as the database holds it now, for an administrator (undefined: none). Not from the
 * isolate's cache: a wallet deleted through another isolate must not be answered.
 */
export async function readWallet(ctx: ServiceContext, walletId: string) {
  requireAdmin(ctx, "read");
  return findWalletRow(ctx.db, walletId);
}

/** A wallet by id (from this isolate's cache once seen), or undefined: naming only. */
export const findWallet = (ctx: ServiceContext, walletId: string) =>
  findWalletCached(ctx.db, walletId);
