// Users as the WordPress import leaves them: inserted straight into D1 with the site's own password
// hash (scripts/import-wordpress.ts copies user_pass as it is), the way test/wordpress-hashes.test.ts
// and the seeded administrator (scripts/lib/admin.ts) are written. Hashes are made here the way
// WordPress makes them: bcrypt as $2y$ (cost 10, or 12 on PHP 8.4), phpass as $P$B (2^13 MD5 rounds).
import { randomBytes } from "node:crypto";
import { columnsAndValues, sqlLiteral } from "../../scripts/lib/sql";
import { phpass, phpBcrypt } from "../../scripts/lib/wordpress-hashes";
import { users } from "../../src/db/schema";
import type { Ctx } from "./api";
import { registerPassword, unique } from "./harness";
import { d1 } from "./ledger";

export const WORDPRESS_HASHES = {
  "bcrypt-10": (password: string) => phpBcrypt(password, 10),
  "bcrypt-12": (password: string) => phpBcrypt(password, 12),
  phpass: (password: string) => phpass(password),
};
export type HashKind = keyof typeof WORDPRESS_HASHES;

/** Inserts one subscriber per kind named (e.g. ["bcrypt-12", "phpass"]) in one D1 command; returns them in order. */
export async function createImportedUsers(ctx: Ctx, kinds: HashKind[]) {
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
  const rows = made.map((u) =>
    columnsAndValues(users, {
      username: sqlLiteral(u.username),
      email: sqlLiteral(u.email),
      passwordHash: sqlLiteral(u.hash),
      firstName: "''",
      lastName: "''",
      role: "'subscriber'",
      registeredAtMs: sqlLiteral(Date.now()),
    }),
  );
  const inserted = await d1(
    ctx,
    `INSERT INTO users (${rows[0]!.columns}) VALUES ${rows.map((r) => `(${r.values})`).join(", ")} RETURNING id, username`,
  );
  const ids = new Map(inserted.map((r) => [r.username, Number(r.id)]));
  return made.map(({ hash: _, ...u }) => ({ ...u, id: ids.get(u.username) }));
}
