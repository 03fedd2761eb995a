// Users: who a movement names, and new subscribers.
import { hashPassword } from "../auth/password";
import type { Db } from "../db/client";
import { type Clashes, findUsers, insertUserIfFree } from "../db/users";
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

// What the dialects ask of users beyond the verbs below: the checks before a new account, and
// deleting a user no entry names (the ledger is append-only: a user with entries stays).
export {
  deleteUserIfUnused as deleteUser,
  findClashes as findNewUserClashes,
} from "../db/users";
export type { Clashes };

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
