// Users: new subscribers, deleting a user no entry names, and the logins that name a user.
import { accentlessLogin } from "../accents";
import { hashPassword } from "../auth/password";
import { type Db, errorText } from "../db/client";
import {
  type Clashes,
  deleteUserIfUnused,
  findLoginUsers,
  findUserBy,
  insertUserIfFree,
} from "../db/users";
import { accountKey, expectThrottle, forgetAccount, loginKey } from "../throttle/sign-in";
import { requireAdmin, type ServiceContext } from "./context";
import { ObjectUnavailable } from "./faults";

type NewSubscriber = {
  username: string;
  email: string;
  password: string;
  firstName: string;
  lastName: string;
};

// What the dialects ask of users beyond the verbs below: the checks before a new account.
export { findClashes as findNewUserClashes } from "../db/users";
export type { Clashes };

/**
 * Deletes a user no entry names (the ledger is append-only: a user with entries stays), and what
 * the sign-in throttle learned of its logins, which a later user of the same username or e-mail
 * must not inherit. Answers the outcome: deleted, not-found, has-entries or last-administrator.
 * A throttle key not forgotten after the deletion committed changes no outcome: it is logged for
 * an operator (docs/operations.md#a-deleted-users-sign-in-keys-kept).
 */
export async function deleteUser(ctx: ServiceContext, id: number) {
  requireAdmin(ctx, "write");
  const user = await findUserBy(ctx.db, { id });
  const logins = user ? await loginsOf(ctx.db, user) : [];
  const { throttle } = ctx.signInLimits();
  if (user) await expectThrottle(throttle, id, ctx.nowMs());
  const outcome = await deleteUserIfUnused(ctx.db, id);
  if (outcome !== "deleted") return outcome;
  const { kept, fault } = await forgetAccount(throttle, { id, logins });
  if (kept.length === 0) return outcome;
  // Named by kind, never by text: a login can be an e-mail address (user.deleted holds both).
  const kind = (key: string) =>
    key === accountKey(id) ? "account" : key === loginKey(user?.email ?? "") ? "email" : "username";
  const notForgotten = { user_id: id, keys: kept.map(kind) };
  const line = { request_id: ctx.requestId, throttle_not_forgotten: notForgotten };
  // The runtime's words, as the object failed (the binding is the throttle's).
  const words = fault instanceof ObjectUnavailable ? fault.cause : fault;
  console.error(JSON.stringify({ ...line, fault: errorText(words).error }));
  return outcome;
}

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
 * The logins that name `user`: its e-mail, and its username unless that is another user's e-mail
 * (a WordPress import may hold one), which names that user. A username an import kept with its
 * accents also names it without them while nobody has that spelling: the plugin's dialect reads a
 * login so (compat/identity.ts pluginLogin), and the throttle counts its sign-ins by it.
 */
export async function loginsOf(db: Db, user: { id: number; username: string; email: string }) {
  const plain = accentlessLogin(user.username);
  const accented = plain !== user.username;
  const [email, username, accentless] = await findLoginUsers(db, [
    user.email,
    user.username,
    ...(accented ? [plain] : []),
  ]);
  return [
    ...(email?.id === user.id ? [user.email] : []),
    ...(username?.id === user.id ? [user.username] : []),
    ...(accented && accentless === undefined ? [plain] : []),
  ];
}
