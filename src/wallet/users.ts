// Users: who a movement names, and new subscribers.
import { hashPassword } from "../auth/password";
import type { Db } from "../db/client";
import {
  type Clashes,
  deleteUserIfUnused,
  findClashes,
  findUsers,
  insertUserIfFree,
} from "../db/users";
import { requireAdmin, type ServiceContext } from "./context";
import { Refusal } from "./refusal";

/** The user a movement names, or a `user_not_found` refusal. */
export async function requireUser(db: Db, userId: number) {
  const user = (await findUsers(db, [userId])).get(userId);
  if (!user) throw new Refusal({ code: "user_not_found", userId });
  return user;
}

export type NewSubscriber = {
  username: string;
  email: string;
  password: string;
  firstName: string;
  lastName: string;
};

export type { Clashes };

/**
 * Why a new account could not have this username and e-mail: either names an account already (as
 * its username or its e-mail), or the username is an e-mail address other than its own e-mail.
 */
export const findNewUserClashes = (db: Db, username: string, email: string): Promise<Clashes> =>
  findClashes(db, username, email);

/**
 * Creates a subscriber unless its username or e-mail would name another account (the rule of
 * db/user-texts.ts, checked by the insert itself, so two racing sign-ups cannot both succeed).
 * Answers the new id, or the clashes.
 */
export async function createSubscriber(
  ctx: ServiceContext,
  user: NewSubscriber,
): Promise<{ id: number } | { clashes: Clashes }> {
  requireAdmin(ctx, "write");
  const result = await insertUserIfFree(ctx.db, {
    username: user.username,
    email: user.email,
    passwordHash: await hashPassword(user.password),
    firstName: user.firstName,
    lastName: user.lastName,
    role: "subscriber",
    registeredAtMs: ctx.nowMs(),
  });
  return result.id === undefined ? { clashes: result.clashes } : { id: result.id };
}

/**
 * Deletes a user no entry names, with its API keys and sessions (the ledger is append-only: a user
 * with entries stays, and so does its balance). One guarded batch: a racing entry cannot be left
 * without its user.
 */
export function deleteUser(
  db: Db,
  userId: number,
): Promise<"deleted" | "has-entries" | "not-found"> {
  return deleteUserIfUnused(db, userId);
}
