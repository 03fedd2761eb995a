// A backup as Cloudflare's tools make one: `wrangler d1 export` of a database in use (an imported
// site: users, wallets, balances, entries, events, the balance timeline; a key, a webhook's
// deliveries and a hold), loaded with `wrangler d1 execute --file` into an empty database, must hold every
// row, every guard, and count as fully migrated (docs/operations.md#backups-and-restores).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { LocalD1 } from "../../scripts/import/d1";
import { prepareState } from "../../scripts/lib/server";
import { offlineEnv, runWrangler } from "../../scripts/lib/wrangler";
import { runScript } from "./run-script";

const root = mkdtempSync(path.join(tmpdir(), "wallet-export-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A folder wrangler reads as a project with the service's D1 binding and migrations. */
function project(name: string) {
  const dir = path.join(root, name);
  mkdirSync(dir);
  writeFileSync(
    path.join(dir, "wrangler.toml"),
    `name = "export-test"\ncompatibility_date = "2026-11-17"\n\n[[d1_databases]]\nbinding = "DB"\ndatabase_name = "wallet-ledger"\nmigrations_dir = "${path.resolve("drizzle")}"\n`,
  );
  return dir;
}

function d1(cwd: string, ...args: string[]) {
  const result = runWrangler(["d1", ...args, "--local"], {}, cwd);
  expect(result.status, `${result.stdout}\n${result.stderr}`).toBe(0);
  return result.stdout;
}

/** The tables an imported site and the statements below fill. */
const FILLED = [
  "users",
  "wallets",
  "balances",
  "transactions",
  "balance_timeline",
  "events",
  "api_keys",
  "webhook_endpoints",
  "webhook_deliveries",
  "deleted_users",
  "holds",
  "d1_migrations",
];
/** And every other table of the schema, AUTOINCREMENT's counters among them. */
const TABLES = [
  ...FILLED,
  "batches",
  "sessions",
  "mail_tokens",
  "mail_outbox",
  "deleted_wallets",
  "deleted_wallet_post_ids",
  "sqlite_sequence",
];

/**
 * Every table's rows, and the schema's guards and indexes, in one batch through the local D1 the
 * import writes with (Miniflare in this process: it starts sooner than a wrangler call).
 */
async function contents(dir: string) {
  const d1 = await LocalD1.open({
    config: path.join(dir, "wrangler.toml"),
    persistTo: path.join(dir, ".wrangler/state"),
  });
  try {
    return await d1.queries([
      ...TABLES.map((t) => `SELECT * FROM ${t} ORDER BY 1, 2`),
      "SELECT type, name, sql FROM sqlite_master WHERE type IN ('trigger', 'index') ORDER BY name",
      // Each table's triggers in the order SQLite runs them.
      "SELECT tbl_name, name FROM sqlite_master WHERE type = 'trigger' ORDER BY tbl_name, rowid",
    ]);
  } finally {
    await d1.close();
  }
}

describe("a wrangler d1 export of a database in use", () => {
  it("loads into an empty database with every row and guard, fully migrated", {
    timeout: 300_000,
  }, async () => {
    const live = project("live");
    // The migrated schema, copied as the servers' states are (scripts/lib/server.ts): the import
    // finds no migration left to apply, where applying all of them took a third of this test.
    await prepareState(path.join(live, ".wrangler/state"), { seedAdmin: false });
    const imported = runScript(
      "scripts/import-wordpress.ts",
      [
        "test/fixtures/wordpress-real-site-dump.sql",
        "--local",
        "--persist-to",
        path.join(live, ".wrangler/state"),
        "--prefix",
        "wpx7_",
        "--namespace",
        "rimplenet",
      ],
      { env: offlineEnv() },
    );
    expect(imported.status, `${imported.stdout}\n${imported.stderr}`).toBe(0);
    d1(
      live,
      "execute",
      "DB",
      "--command",
      "INSERT INTO api_keys (user_id, name, scope, key_hash, created_at_ms) SELECT min(id), 'k', 'read', 'h', 0 FROM users; " +
        "INSERT INTO webhook_endpoints (url, event_types, secret_cipher, created_at_ms, cursor_event_id) VALUES ('https://x.example/', 'user.created', 'c', 0, 0); " +
        "INSERT INTO webhook_deliveries (endpoint_id, event_id, attempt, status, trigger, latency_ms, created_at_ms) SELECT max(id), 1, 1, 'delivered', 'queue', 5, 0 FROM webhook_endpoints; " +
        "INSERT INTO holds (user_id, wallet_id, amount_minor, amount_text, request_id, request_key, status, created_at_s, expires_at_s) SELECT user_id, wallet_id, 1, '0.01', 'h', 'h', 'held', 0, 9999999999 FROM balances WHERE balance_minor > 0 LIMIT 1; " +
        "INSERT INTO users (username, email, password_hash, role, registered_at_ms) VALUES ('gone', 'gone@x.example', 'x', 'subscriber', 0); " +
        // A wallet deleted between two others: their post_ids (the Rimplenet dialect's) keep the gap.
        "INSERT INTO wallets (id, name, symbol, symbol_position, decimals, type, created_at_ms) VALUES ('gapa', 'A', '$', 'left', 2, 'fiat', 0), ('gapb', 'B', '$', 'left', 2, 'fiat', 0), ('gapc', 'C', '$', 'left', 2, 'fiat', 0); " +
        "DELETE FROM wallets WHERE id = 'gapb'; " +
        "DELETE FROM users WHERE username = 'gone'",
    );
    d1(live, "export", "DB", "--output", path.join(root, "backup.sql"));

    const restored = project("restored");
    d1(restored, "execute", "DB", "--file", path.join(root, "backup.sql"), "--yes");
    const [before, after] = await Promise.all([contents(live), contents(restored)]);
    expect(before.slice(0, FILLED.length).every((rows) => rows.length > 0)).toBe(true);
    expect(after).toEqual(before);
    // The wallets' post_ids came back as they were, the deleted one's gap kept.
    const postIds = Object.fromEntries(
      (after[TABLES.indexOf("wallets")] as { id: string; post_id: number }[]).map((w) => [
        w.id,
        w.post_id,
      ]),
    );
    expect(postIds.gapc! - postIds.gapa!).toBe(2);
    expect(d1(restored, "migrations", "apply", "DB")).toContain("No migrations to apply");
    // The guards came back with the schema: an entry that breaks its wallet's chain is refused.
    const broken = runWrangler(
      [
        "d1",
        "execute",
        "DB",
        "--local",
        "--command",
        "UPDATE balances SET balance_minor = balance_minor + 1 WHERE rowid = (SELECT min(rowid) FROM balances)",
      ],
      {},
      restored,
    );
    expect(`${broken.stdout}${broken.stderr}`).toContain("balance_off_ledger");
    // And in their order: an entry that continues its chain writes its balance point before its
    // balance, whose guard compares the balance with that point.
    d1(
      restored,
      "execute",
      "DB",
      "--command",
      `INSERT INTO transactions (user_id, wallet_id, txn_type, amount_minor, amount_text,
         balance_before_minor, balance_after_minor, request_id, request_key, note, title, slug_base,
         slug, created_at_s)
       SELECT user_id, wallet_id, 'CREDIT', 1, '1', balance_minor, balance_minor + 1, 'restored',
         'restored', '', 't', 'restored', 'restored', 1800000000
       FROM balances WHERE rowid = (SELECT min(rowid) FROM balances)`,
    );
  });
});
