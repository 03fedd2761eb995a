import { accentlessLogin } from "../accents";
import { NOBODY, type UserRef } from "../wallet/movements";
import { phpIsNumeric } from "../wallet/rules";
import { phpInt } from "./php";

// Which user a plugin `user_id` names: one rule for every route of the dialect (docs/compat.md,
// "User references"). The plugin had several: `GET users` tried the text as an id and then as a
// login, and decided "is it you" by comparing the text with the caller's username, so a subscriber
// named `0001` read user 1; balances read any numeric text's absolute integer part
// (get_user_meta's absint) and nobody for other text; the writes took digits as an id.

type PluginUserRef = { id: number } | { login: string; orLogin?: string } | null;

/**
 * A numeric text (PHP's is_numeric, which WordPress's user lookups test first) names the user whose
 * id is its integer part's absolute value (`2`, `0002`, `2.5`, `2e0`, `-2` all name user 2), and
 * never a username, even when no user has that id: what a text names does not depend on which users
 * exist, so a user named `0001` is reached by its id. Any other text is a login text, which names
 * a user as a sign-in's does (db/users.ts findLoginUser): with `@`, the user whose e-mail it is,
 * else the user with that username, or when nobody has it, with it without accents (`orLogin`), as
 * get_user_by('login') reads it and as the dialect's POST users stores it. Empty, zero, or past a
 * safe integer: nobody.
 */
export function pluginUserRef(text: string): PluginUserRef {
  if (text === "") return null;
  if (!phpIsNumeric(text)) return pluginLogin(text);
  const n = phpInt(text);
  return n === null || n === 0 ? null : { id: Math.abs(n) };
}

/**
 * A login text as the dialect reads it: the user with it as typed, or when nobody has it, with it
 * without accents (`orLogin`) unless it is an e-mail, as get_user_by('login') found users that
 * sanitize_user had stored without theirs.
 */
export function pluginLogin(text: string): { login: string; orLogin?: string } {
  const plain = accentlessLogin(text);
  return plain === text ? { login: text } : { login: text, orLogin: plain };
}

/** The user `text` names, by the rule above, for a verb. */
export function pluginUser(text: string): UserRef {
  return { ...(pluginUserRef(text) ?? { id: NOBODY }), as: text };
}
