// The statements that seed a database (admin:create's administrator, the dev server's administrator
// and demo wallet): SQL text for `wrangler d1 execute`, where nothing can be bound. No Node APIs:
// the Workers tests run them on D1.
import { sql } from "drizzle-orm";
import { SQLiteSyncDialect } from "drizzle-orm/sqlite-core";
import { users, wallets } from "../../src/db/schema";
import { newUserTextsFree } from "../../src/db/user-texts";
import { columnsAndValues, sqlLiteral } from "./sql";

export type AdminRow = { username: string; email: string; passwordHash: string; nowMs: number };

const dialect = new SQLiteSyncDialect();

/**
 * Inserts the administrator, returning its id, unless its username or e-mail would name another
 * account: the service's own rule (src/db/user-texts.ts), in the insert's WHERE as a new user's.
 * `firstOnly`: only into a database without an administrator (the dev server's seed, which an
 * imported site's own administrators make needless).
 */
export function adminInsertSql(a: AdminRow, { firstOnly = false } = {}) {
  const [username, email] = [sqlLiteral(a.username), sqlLiteral(a.email)];
  const row = columnsAndValues(users, {
    username,
    email,
    passwordHash: sqlLiteral(a.passwordHash),
    firstName: "''",
    lastName: "''",
    role: "'administrator'",
    registeredAtMs: sqlLiteral(a.nowMs),
  });
  const free = dialect.sqlToQuery(newUserTextsFree(sql.raw(username), sql.raw(email))).sql;
  const first = firstOnly
    ? " AND NOT EXISTS (SELECT 1 FROM users WHERE role = 'administrator')"
    : "";
  return `INSERT INTO users (${row.columns}) SELECT ${row.values} WHERE ${free}${first} ON CONFLICT DO NOTHING RETURNING id`;
}

/**
 * The dev server's demo wallet `ngn`, so the README's first credit works on a fresh clone; only into
 * a database without wallets, since an imported site's are its own. Returns its id when inserted.
 */
export function demoWalletSql(nowMs: number) {
  const row = columnsAndValues(wallets, {
    id: sqlLiteral("ngn"),
    name: sqlLiteral("Naira Wallet"),
    symbol: sqlLiteral("₦"),
    symbolPosition: sqlLiteral("left"),
    decimals: sqlLiteral(2),
    type: sqlLiteral("fiat"),
    note: sqlLiteral("Demo wallet seeded by npm run dev"),
    createdAtMs: sqlLiteral(nowMs),
  });
  return `INSERT INTO wallets (${row.columns}) SELECT ${row.values} WHERE NOT EXISTS (SELECT 1 FROM wallets) RETURNING id`;
}
