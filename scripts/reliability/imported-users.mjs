// Users as the WordPress import leaves them: inserted straight into D1 with the site's own password
// hash (scripts/import-wordpress.ts copies user_pass as it is), the way test/wordpress-hashes.test.ts
// and the seeded administrator (scripts/lib/admin.ts) are written. Hashes are made here the way
// WordPress makes them: bcrypt as $2y$ (cost 10, or 12 on PHP 8.4), phpass as $P$B (2^13 MD5 rounds).
import { randomBytes } from "node:crypto";
import { phpass, phpBcrypt } from "../lib/wordpress-hashes.ts";
import { registerPassword, unique } from "./harness.mjs";
import { d1 } from "./ledger.mjs";

export const WORDPRESS_HASHES = {
  "bcrypt-10": (password) => phpBcrypt(password, 10),
  "bcrypt-12": (password) => phpBcrypt(password, 12),
  phpass,
};

const literal = (text) => `'${String(text).replaceAll("'", "''")}'`;

/** Inserts one subscriber per kind named (e.g. ["bcrypt-12", "phpass"]) in one D1 command; returns them in order. */
export async function createImportedUsers(ctx, kinds) {
  const made = kinds.map((kind) => {
    const username = unique(`wp${kind.replace(/[^a-z0-9]/g, "")}`).slice(0, 40);
    const password = `wp-${randomBytes(9).toString("hex")}`;
    registerPassword(password);
    return {
      kind,
      username,
      email: `${username}@oldsite.example`,
      password,
      hash: WORDPRESS_HASHES[kind](password),
    };
  });
  const rows = made.map(
    (u) =>
      `(${literal(u.username)}, ${literal(u.email)}, ${literal(u.hash)}, '', '', 'subscriber', ${Date.now()})`,
  );
  const [inserted] = await d1(
    ctx.stateDir,
    `INSERT INTO users (username, email, password_hash, first_name, last_name, role, registered_at_ms) VALUES ${rows.join(", ")} RETURNING id, username`,
  );
  const ids = new Map(inserted.map((r) => [r.username, r.id]));
  return made.map(({ hash: _, ...u }) => ({ ...u, id: ids.get(u.username) }));
}
