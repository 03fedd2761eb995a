// Creates an administrator straight in D1 (local state or the remote database), the one way a
// service gets its first administrator: there are no default credentials in a deployed service.
import { pbkdf2Sync, randomBytes } from "node:crypto";
import { wrangler } from "./wrangler.mjs";

// The same format src/auth/password.ts verifies.
export function hashPassword(password) {
  const salt = randomBytes(16);
  const hash = pbkdf2Sync(password, salt, 100_000, 32, "sha256");
  return `pbkdf2_sha256$100000$${salt.toString("base64")}$${hash.toString("base64")}`;
}

const literal = (text) => `'${String(text).replaceAll("'", "''")}'`;

/** Inserts the administrator unless that username or e-mail exists; says which happened. */
export function ensureAdmin({ target, username, email, password, wranglerArgs = [] }) {
  if (!/^\S{4,60}$/.test(username))
    throw new Error("username must be 4 to 60 characters without spaces");
  if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email)) throw new Error("e-mail is not valid");
  if (String(password).length < 6) throw new Error("password must have at least 6 characters");
  const sql =
    `INSERT INTO users (username, email, password_hash, first_name, last_name, role, registered_at_ms) ` +
    `VALUES (${literal(username)}, ${literal(email)}, ${literal(hashPassword(password))}, '', '', 'administrator', ${Date.now()}) ` +
    `ON CONFLICT DO NOTHING RETURNING id`;
  const out = wrangler(
    ["d1", "execute", "DB", target, ...wranglerArgs, "--json", "--command", sql],
    { quiet: true },
  );
  const [result] = JSON.parse(out);
  return result.results.length > 0
    ? { created: true, id: result.results[0].id }
    : { created: false };
}
