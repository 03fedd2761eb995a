// What `npm run dev` adds to its local database: an administrator and the demo wallet `ngn` into an
// empty one, so the README's first credit works; nothing into one that has its own (an imported
// site's), where a seeded user would take an id a later import needs.
import { env } from "cloudflare:workers";
import { expect, it } from "vitest";
import { adminInsertSql, demoWalletSql } from "../scripts/lib/admin-insert";

const rows = async (statement: string) => (await env.DB.prepare(statement).all()).results;
const seedAdmin = (email: string) =>
  adminInsertSql({ username: email, email, passwordHash: "x", nowMs: 0 }, { firstOnly: true });

it("adds the administrator only while the database has none", async () => {
  expect(await rows(seedAdmin("admin@example.com"))).toEqual([{ id: 1 }]);
  expect(await rows(seedAdmin("admin@example.com"))).toEqual([]);
  expect(await rows(seedAdmin("other@example.com"))).toEqual([]);
  expect(await rows("SELECT id, role FROM users")).toEqual([{ id: 1, role: "administrator" }]);
});

it("adds the demo wallet only while the database has no wallet", async () => {
  expect(await rows(demoWalletSql(0))).toEqual([{ id: "ngn" }]);
  expect(await rows(demoWalletSql(0))).toEqual([]);
  await env.DB.prepare("DELETE FROM wallets").run();
  await env.DB.prepare(
    "INSERT INTO wallets (id, name, symbol, symbol_position, decimals, type, created_at_ms) VALUES ('usd', 'US Dollar', '$', 'left', 2, 'fiat', 0)",
  ).run();
  expect(await rows(demoWalletSql(0))).toEqual([]);
  expect(await rows("SELECT id FROM wallets")).toEqual([{ id: "usd" }]);
});
