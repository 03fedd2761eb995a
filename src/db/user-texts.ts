// The texts that name an account (its username and its e-mail) and the rule that keeps them
// unambiguous (docs/security.md#usernames-and-e-mails). A sign-in or a plugin user reference may
// hold either, so a new account's username must not be another account's e-mail, its e-mail must
// not be another account's username, and a username that is an e-mail address must be the
// account's own e-mail. Written as SQL for the one statement that inserts the account (D1 has no
// interactive transactions: a check read apart from the insert could be raced), and free of
// Workers types so the tools (scripts/lib/admin.ts) write the same guard into their statement.
import { type SQL, type SQLWrapper, sql } from "drizzle-orm";
import { users } from "./schema";

/** A text as a bound parameter, or as SQL (a literal the tools inline). */
type TextValue = string | SQL;

/** Equal but for case, as the lower() unique indexes fold (SQLite's lower() folds A-Z only). */
export const sameText = (column: SQLWrapper, value: string | SQLWrapper) =>
  sql`lower(${column}) = lower(${value})`;

const somebodyHas = (column: typeof users.username | typeof users.email, value: TextValue) =>
  sql`EXISTS (SELECT 1 FROM ${users} WHERE ${sameText(column, value)})`;

/**
 * Each reason a new account with this username and e-mail is refused, as an SQL truth value:
 * `username`, the username names an account already (as its username or its e-mail); `email`, the
 * e-mail does (as its e-mail or its username: an imported WordPress username can be an e-mail
 * text); `usernameNotOwnEmail`, the username contains `@` but is not the account's own e-mail.
 */
export const newUserClashes = (username: TextValue, email: TextValue) => ({
  username: sql`(${somebodyHas(users.username, username)} OR ${somebodyHas(users.email, username)})`,
  email: sql`(${somebodyHas(users.email, email)} OR ${somebodyHas(users.username, email)})`,
  usernameNotOwnEmail: sql`(instr(${username}, '@') > 0 AND lower(${username}) <> lower(${email}))`,
});

/** True when a new account may have this username and e-mail: the WHERE of its INSERT … SELECT. */
export function newUserTextsFree(username: TextValue, email: TextValue): SQL {
  const c = newUserClashes(username, email);
  return sql`NOT (${c.username} OR ${c.email} OR ${c.usernameNotOwnEmail})`;
}
