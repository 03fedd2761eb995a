import type { Db } from "../../db/client";
import { findUsers } from "../../db/users";
import { userNotFound } from "../../http/errors";

/** The user a movement names, or the contract's 404 "Invalid User credentials". */
export async function requireUser(db: Db, userId: number) {
  const user = (await findUsers(db, [userId])).get(userId);
  if (!user) throw userNotFound(userId);
  return user;
}
