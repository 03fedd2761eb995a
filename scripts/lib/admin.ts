// Creates an administrator straight in D1 (local state or the remote database), the one way a
// service gets its first administrator: there are no default credentials in a deployed service.
import { timingSafeEqual } from "node:crypto";
import { checkLoginPassword, hashPassword, PASSWORD_LENGTH } from "../../src/auth/password";
import { EMAIL_MAX_LENGTH, isEmailAddress } from "../../src/email-address";
import { chars, withinChars } from "../../src/text";
import { adminInsertSql } from "./admin-insert";
import type { RunSql } from "./wrangler";

export type AdminAccount = { username: string; email: string; password: string };

/**
 * A username POST /users takes (src/http/user-fields.ts): ASCII, so that the case-insensitive
 * uniqueness SQLite's lower() gives means what it says.
 */
const USERNAME = /^[A-Za-z0-9_.@-]{4,60}$/;

/** What is wrong with the parts of an account given (the service's own rules), or undefined. */
export function accountProblem({ username, email, password }: Partial<AdminAccount>) {
  if (username !== undefined && !USERNAME.test(username))
    return "username must be 4 to 60 of ASCII letters, digits and _ . - @";
  if (email !== undefined && (email.length > EMAIL_MAX_LENGTH || !isEmailAddress(email)))
    return "e-mail is not valid";
  if (password !== undefined && chars(password) < PASSWORD_LENGTH.min)
    return `password must have at least ${PASSWORD_LENGTH.min} characters`;
  if (password !== undefined && !withinChars(password, PASSWORD_LENGTH.max))
    return `password must have at most ${PASSWORD_LENGTH.max} characters`;
  return undefined;
}

/**
 * Inserts the administrator by `run` (`wranglerSql` for a local or remote database; a local D1
 * open in this process) unless its username or e-mail would name another account (taken as a
 * username or an e-mail, or a username that is an e-mail address other than its own e-mail), or,
 * with `firstOnly`, any administrator exists; says which happened.
 */
export async function ensureAdmin(
  { username, email, password, firstOnly = false }: AdminAccount & { firstOnly?: boolean },
  run: RunSql,
) {
  const problem = accountProblem({ username, email, password: String(password) });
  if (problem) throw new Error(problem);
  // The service's own hash (src/auth/password.ts), so the administrator signs in like any user.
  const passwordHash = await hashPassword(password);
  const sql = adminInsertSql({ username, email, passwordHash, nowMs: Date.now() }, { firstOnly });
  let rows: Record<string, unknown>[];
  try {
    rows = await run(sql);
  } catch (error) {
    // What the database said, never the statement: it holds the password's hash (it lets anyone
    // try passwords against it offline), and a build log keeps what is printed.
    throw new Error(
      String((error as Error).message).replaceAll(passwordHash, "<the password's hash>"),
    );
  }
  const created = rows[0] as { id: number } | undefined;
  return created ? { created: true as const, id: created.id } : { created: false as const };
}

/**
 * Whether `password` signs in to an account whose stored hash is `passwordHash`: the service's own
 * check (src/auth/password.ts), WordPress's imported hashes included. Node's WebCrypto lacks the
 * Workers runtime's `timingSafeEqual`, which that check calls; node:crypto's does the same.
 */
export async function signsInWith(passwordHash: string, password: string) {
  const subtle: { timingSafeEqual?: (a: Uint8Array, b: Uint8Array) => boolean } = crypto.subtle;
  subtle.timingSafeEqual ??= timingSafeEqual;
  return (await checkLoginPassword(password, passwordHash)).valid;
}

/** How the local database stood when `npm run dev` tried to seed its administrator. */
export type SeedOutcome = {
  created: boolean;
  /** An administrator of the dev e-mail that the dev password signs in to. */
  devAdminExists: boolean;
  /** An administrator of the dev e-mail with a password of its own. */
  devEmailTaken: boolean;
  /** Whether any administrator can sign in (an imported spam user cannot). */
  adminCanSignIn: boolean;
};

/** `npm run dev`'s line about its administrator: made, found, or why none was added. */
export function seedLine({ username, email }: AdminAccount, o: SeedOutcome) {
  if (o.created) return `Local administrator "${username}" created.`;
  if (o.devAdminExists) return `Local administrator "${email}" already exists; left as it is.`;
  // None is seeded even so: its id would be one a later import of the site needs.
  if (!o.adminCanSignIn)
    return (
      "The local database's administrators (an imported site's) cannot sign in, as their network " +
      "marked them as spam: make one with npm run admin:create -- --local --username NAME --email ADDRESS."
    );
  if (o.devEmailTaken)
    return `Local administrator "${email}" already exists with a password of its own; left as it is.`;
  // An imported site's, an earlier run's under other WALLET_ADMIN_* values, or admin:create's.
  return (
    `The local database has administrators already, none of them "${email}": none added ` +
    "(WALLET_ADMIN_* make one only in a database without any; npm run admin:create -- --local makes another)."
  );
}
