// Users: who a movement names, and new subscribers.
import { hashPassword } from "../auth/password";
import type { Db } from "../db/client";
import { deleteUserIfUnused, findTakenFields, findUsers, insertUserIfFree } from "../db/users";
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

export type Taken = { username: boolean; email: boolean };

/** Which of a username and an e-mail another user already has (case-insensitively). */
export const takenFields = (db: Db, username: string, email: string): Promise<Taken> =>
  findTakenFields(db, username, email);

/**
 * Creates a subscriber unless its username or e-mail is taken: one batch, so two racing sign-ups
 * of one name cannot both succeed. Answers the new id, or what was taken.
 */
export async function createSubscriber(
  db: Db,
  user: NewSubscriber,
  nowMs: number,
): Promise<{ id: number } | { taken: Taken }> {
  const result = await insertUserIfFree(db, {
    username: user.username,
    email: user.email,
    passwordHash: await hashPassword(user.password),
    firstName: user.firstName,
    lastName: user.lastName,
    role: "subscriber",
    registeredAtMs: nowMs,
  });
  return result.id === undefined ? { taken: result.taken } : { id: result.id };
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
