// Migrations 0006 (SQLite cannot alter a CHECK) and 0018 (nor drop AUTOINCREMENT) rebuild
// `transactions`, 0016 mail_tokens (nor drop a NOT NULL), 0018 the events and the balance timeline too, 0021 api_keys, balances and
// webhook_deliveries (to come after the tables they name), and 0028 holds (AUTOINCREMENT again); 0029
// gives wallets a post_id of their own. The other tests apply every migration
// to an empty database; this one applies them, step by step as deployments did, to a database
// that holds what earlier migrations allowed: service entries and a reversal (a row pointing at
// another), entries an earlier import wrote, and a service entry whose request_id merely looks
// like an import's. The statements are split as wrangler splits them (readD1Migrations);
// test/node/serve.test.ts applies the same files through wrangler itself.
import { applyD1Migrations } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";

const db = env.REBUILT_DB;
const migrated = (before: string) =>
  applyD1Migrations(
    db,
    env.TEST_MIGRATIONS.filter((m) => m.name < before),
  );
const query = async (sql: string) => (await db.prepare(sql).all<Record<string, unknown>>()).results;
const run = (sql: string) => db.prepare(sql).run();
async function refusal(sql: string) {
  try {
    await run(sql);
  } catch (err) {
    return String((err as Error).message);
  }
  return "";
}

const COLUMNS =
  "id, user_id, wallet_id, txn_type, amount_minor, amount_text, balance_before_minor, balance_after_minor, request_id, request_key, reverses_id, title, slug_base, slug, created_at_s, guid, local_date";
const SEED = `
INSERT INTO users (id, username, email, password_hash, role, registered_at_ms) VALUES (1, 'a', 'a@x.test', 'x', 'subscriber', 0), (2, 'b', 'b@x.test', 'x', 'subscriber', 0);
INSERT INTO wallets (id, name, symbol, symbol_position, decimals, type, created_at_ms) VALUES ('ngn', 'Naira', 'N', 'left', 2, 'fiat', 0);
INSERT INTO transactions (${COLUMNS}) VALUES
  (10, 1, 'ngn', 'CREDIT', 500, '5', 0, 500, 'svc-1', 'svc-1', NULL, 't', 't', 't10', 100, NULL, NULL),
  (11, 1, 'ngn', 'DEBIT', 500, '5', 500, 0, 'rev-1', 'rev-1', 10, 't', 't', 't11', 101, NULL, NULL),
  (20, 2, 'ngn', 'CREDIT', 700, '7', 0, 700, 'wp-1', 'wp-1', NULL, 't', 't', 't20', 102, 'https://old.example/?p=20', '2022-01-01 10:00:00'),
  (21, 2, 'ngn', 'CREDIT', 100, '1', 700, 800, 'wp-2', 'wp-2', NULL, 't', 't', 't21', 103, NULL, '2022-01-02 10:00:00'),
  (22, 2, 'ngn', 'DEBIT', 300, '3.00', 800, 500, 'wp-import:balance-adjustment:ngn', 'wp-import:balance-adjustment:ngn', NULL, 't', 't', 't22', 104, NULL, NULL),
  (23, 1, 'ngn', 'CREDIT', 100, '1', 0, 100, 'look-alike', 'look-alike', NULL, 't', 't', 't23', 105, NULL, NULL);
`;

describe("the table rebuilds (0006, 0016, 0018, 0021, 0028) on a database in use", () => {
  it("keeps every row, marks what earlier imports wrote, and every guard holds after it", async () => {
    expect(env.TEST_MIGRATIONS.filter((m) => m.name < "0006")).toHaveLength(6);
    await migrated("0006");
    await db.batch(
      SEED.trim()
        .split(";\n")
        .filter(Boolean)
        .map((sql) => db.prepare(sql)),
    );
    const entriesBefore = await query("SELECT * FROM transactions ORDER BY id");
    const balancesBefore = await query("SELECT * FROM balances ORDER BY user_id, wallet_id");

    // 0006 and every later migration, as a deployment applies them; the last in a step of its own.
    // A mail link outstanding when 0016 rebuilds mail_tokens (user_id NOT NULL dropped) outlives it.
    await migrated("0016");
    await run(
      "INSERT INTO mail_tokens (token_hash, purpose, user_id, email, created_at_ms, expires_at_ms, used_at_ms) VALUES ('h1', 'password-reset', 1, 'a@x.test', 5, 9, NULL)",
    );
    const mailTokensBefore = await query("SELECT * FROM mail_tokens");
    await migrated("0018");
    expect(await query("SELECT * FROM mail_tokens")).toEqual(mailTokensBefore);
    expect(mailTokensBefore).toHaveLength(1);
    // A user made now has an event (0011): the outbox holds a row when 0018 rebuilds it.
    await run(
      "INSERT INTO users (id, username, email, password_hash, role, registered_at_ms) VALUES (3, 'c', 'c@x.test', 'x', 'subscriber', 0)",
    );
    const triggerText =
      "SELECT name, tbl_name, sql FROM sqlite_master WHERE type = 'trigger' ORDER BY name";
    const triggersBefore0018 = await query(triggerText);
    const eventsBefore0018 = await query("SELECT * FROM events ORDER BY id");
    await migrated("0019");
    const entries = await query("SELECT * FROM transactions ORDER BY id");
    const balances = await query("SELECT * FROM balances ORDER BY user_id, wallet_id");
    const fkProblems = await query("PRAGMA foreign_key_check");
    const sequence = await query(
      "SELECT name FROM sqlite_sequence WHERE name IN ('transactions', 'events')",
    );
    const triggers = await query(triggerText);
    const events = await query("SELECT * FROM events ORDER BY id");
    // 0018 rebuilt entries and events without AUTOINCREMENT: every trigger it dropped on the way is
    // back text for text, beside the new one that keeps events from being deleted.
    expect(triggers.filter((t) => t.name !== "events_no_delete")).toEqual(triggersBefore0018);
    expect(events).toEqual(eventsBefore0018);
    expect(events).toHaveLength(1);
    expect(sequence).toEqual([]);
    // Columns added since (imported by 0006, meta_data by 0007, hold_id by 0010, batch_id by 0017)
    // aside, every row is as it was.
    expect(entries.map(({ imported, meta_data, hold_id, batch_id, ...rest }) => rest)).toEqual(
      entriesBefore,
    );
    expect(
      entries.every((e) => e.meta_data === null && e.hold_id === null && e.batch_id === null),
    ).toBe(true);
    // The earlier import's entries: a guid, a site-local date, or the import's own request_id.
    expect(entries.map((e) => [e.id, e.imported])).toEqual([
      [10, 0],
      [11, 0],
      [20, 1],
      [21, 1],
      [22, 1],
      [23, 0],
    ]);
    expect(balances).toEqual(balancesBefore);
    expect(fkProblems).toEqual([]);
    expect(triggers.map((t) => t.name)).toEqual([
      // 0010: the balance timeline.
      "balance_timeline_follows_ledger",
      "balance_timeline_no_delete",
      "balance_timeline_no_update",
      "balances_follow_ledger_insert",
      "balances_follow_ledger_update",
      "balances_no_delete",
      // Batches (0017): rows never change; an entry names a batch with room for it.
      "batches_no_delete",
      "batches_no_update",
      // A deleted wallet id's units (0015), kept for good.
      "deleted_wallets_no_delete",
      "deleted_wallets_no_update",
      // The outbox (0011): each change's event, written by the statement that makes the change.
      "events_batch_written",
      "events_hold_captured",
      "events_hold_placed",
      "events_hold_resolved",
      "events_no_delete",
      "events_no_update",
      "events_transaction_created",
      "events_user_created",
      "events_wallet_created",
      "holds_no_delete",
      "holds_placed_once",
      "holds_resolved_once",
      "holds_within_available",
      "transactions_apply_to_balance",
      "transactions_balance_limit",
      "transactions_batch_known",
      "transactions_chain_guard",
      "transactions_hold_captured",
      "transactions_no_delete",
      "transactions_no_replace",
      "transactions_no_update",
      "transactions_request_key_folded",
      "transactions_request_key_free",
      "transactions_reversed_once",
      "transactions_to_timeline",
      "transactions_within_available",
      "wallets_deleted_keep_units",
      "wallets_extra_decimals",
      "wallets_recreated_units_fixed",
      "wallets_units_fixed",
    ]);

    // 0010 gave every entry already written its point: each chain in id order, at its running
    // latest date, with its balance.
    const points = await query(
      "SELECT entry_id, user_id, wallet_id, at_s, seq, balance_after_minor FROM balance_timeline ORDER BY entry_id",
    );
    const latest = new Map<string, { atS: number; seq: number }>();
    expect(
      entries.map((e) => {
        const chain = `${e.user_id}/${e.wallet_id}`;
        const createdS = Number(e.created_at_s);
        const last = latest.get(chain) ?? { atS: createdS, seq: 0 };
        const point = { atS: Math.max(last.atS, createdS), seq: last.seq + 1 };
        latest.set(chain, point);
        return {
          entry_id: e.id,
          user_id: e.user_id,
          wallet_id: e.wallet_id,
          at_s: point.atS,
          seq: point.seq,
          balance_after_minor: e.balance_after_minor,
        };
      }),
    ).toEqual(points);

    // The guards after the rebuild, on the migrated rows.
    const entry = (name: string, type: string, amount: number, before: number, after: number) =>
      `INSERT INTO transactions (${COLUMNS}, imported) VALUES (NULL, 1, 'ngn', '${type}', ${amount}, 'x', ${before}, ${after}, '${name}', '${name}', NULL, 't', 't', '${name}', 200, NULL, NULL, 0)`;
    expect(await refusal(entry("n1", "DEBIT", 101, 100, -1))).toMatch(/transactions_no_overdraft/);
    expect(await refusal(entry("n2", "CREDIT", 0, 100, 100))).toMatch(
      /transactions_amount_positive/,
    );
    expect(await refusal(entry("n3", "CREDIT", 1, 0, 1))).toMatch(/ledger_chain_broken/);
    expect(await refusal("UPDATE transactions SET note = 'x' WHERE id = 10")).toMatch(
      /ledger_append_only/,
    );
    expect(await refusal("DELETE FROM transactions WHERE id = 11")).toMatch(/ledger_append_only/);
    expect(await refusal("UPDATE balances SET balance_minor = 1 WHERE user_id = 1")).toMatch(
      /balance_off_ledger/,
    );
    expect(await refusal("UPDATE wallets SET decimals = 0 WHERE id = 'ngn'")).toMatch(
      /wallets_units_fixed/,
    );
    expect(await refusal(entry("n4", "CREDIT", 1, 100, 101))).toBe("");
    expect(
      await query(
        "SELECT max(id) AS id, (SELECT balance_minor FROM balances WHERE user_id = 1) AS balance FROM transactions",
      ),
    ).toEqual([{ id: 24, balance: 101 }]);
    // Ids go on from the largest, in both rebuilt tables; events stay.
    expect(await refusal("DELETE FROM events WHERE id = 1")).toMatch(/events_append_only/);
    await run(
      "INSERT INTO users (id, username, email, password_hash, role, registered_at_ms) VALUES (4, 'd', 'd@x.test', 'x', 'subscriber', 0)",
    );
    expect(await query("SELECT id, type, subject FROM events ORDER BY id")).toEqual([
      { id: 1, type: "user.created", subject: "3" },
      { id: 2, type: "transaction.created", subject: "24" },
      { id: 3, type: "user.created", subject: "4" },
    ]);

    // 0019 writes an entry's events with one trigger (and an entry still writes its event), 0020
    // a deletion's.
    await migrated("0021");
    const replaced = ["events_batch_written", "events_hold_captured", "events_transaction_created"];
    const after = await query(triggerText);
    expect(after.map((t) => t.name)).toEqual(
      [
        ...triggers.map((t) => t.name).filter((name) => !replaced.includes(name as string)),
        "events_of_entry",
        "events_user_deleted",
        "events_wallet_deleted",
      ].sort(),
    );
    expect(await refusal(entry("n5", "CREDIT", 1, 101, 102))).toBe("");
    expect(await query("SELECT id, type, subject FROM events WHERE id > 3")).toEqual([
      { id: 4, type: "transaction.created", subject: "25" },
    ]);

    // 0021 rebuilds api_keys, balances and webhook_deliveries after the tables they name: every
    // row, trigger and AUTOINCREMENT counter as it was (a deleted delivery's id stays used).
    await db.batch(
      [
        "INSERT INTO api_keys (id, user_id, name, scope, key_hash, created_at_ms) VALUES (7, 1, 'k', 'read', 'h', 0)",
        "INSERT INTO webhook_endpoints (id, url, event_types, secret_cipher, created_at_ms, cursor_event_id) VALUES (1, 'https://x.example/', 'user.created', 'c', 0, 0)",
        "INSERT INTO webhook_deliveries (id, endpoint_id, event_id, attempt, status, trigger, latency_ms, created_at_ms) VALUES (1, 1, 1, 1, 'delivered', 'queue', 5, 0), (2, 1, 3, 1, 'failed', 'queue', 5, 0)",
        "DELETE FROM webhook_deliveries WHERE id = 2",
      ].map((sql) => db.prepare(sql)),
    );
    const rebuilt = ["api_keys", "balances", "webhook_deliveries"];
    const state = async () => ({
      // Each table as created, but for the quotes a rename puts around its name.
      tables: (
        await query("SELECT name, sql FROM sqlite_master WHERE type = 'table' ORDER BY name")
      ).map(({ name, sql }) => ({ name, sql: String(sql).replaceAll(/[`"]/g, "") })),
      triggers: await query(triggerText),
      // Each table's triggers in the order SQLite runs them, which decides the refusal named.
      firing: await query(
        "SELECT tbl_name, name FROM sqlite_master WHERE type = 'trigger' ORDER BY tbl_name, rowid",
      ),
      rows: await Promise.all(rebuilt.map((t) => query(`SELECT * FROM ${t} ORDER BY 1, 2`))),
      sequence: await query(
        "SELECT name, seq FROM sqlite_sequence WHERE name <> 'd1_migrations' ORDER BY name",
      ),
      indexes: await query(
        "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL ORDER BY name",
      ),
    });
    const before0021 = await state();
    await migrated("0022");
    expect(await state()).toEqual(before0021);
    expect(await parentsLater(db)).toEqual([]);
    expect(await refusal(entry("n6", "CREDIT", 1, 101, 103))).toMatch(/ledger_chain_broken/);
    expect(await refusal("UPDATE balances SET balance_minor = 1 WHERE user_id = 1")).toMatch(
      /balance_off_ledger/,
    );
    expect(await refusal(entry("n6", "CREDIT", 1, 102, 103))).toBe("");
    await run(
      "INSERT INTO webhook_deliveries (endpoint_id, event_id, attempt, status, trigger, latency_ms, created_at_ms) VALUES (1, 5, 1, 'delivered', 'queue', 5, 0)",
    );
    expect(await query("SELECT max(id) AS id FROM webhook_deliveries")).toEqual([{ id: 3 }]);

    // 0023 records the users deleted since 0020 (their user.deleted events) as deleted ids, but for
    // an id given again since (the import could write one): user 4 deleted; user 5 deleted, then
    // written again under its id.
    await migrated("0023");
    const user5 =
      "INSERT INTO users (id, username, email, password_hash, role, registered_at_ms) VALUES (5, 'e', 'e@x.test', 'x', 'subscriber', 0)";
    for (const sql of [
      "DELETE FROM users WHERE id = 4",
      user5,
      "DELETE FROM users WHERE id = 5",
      user5,
    ])
      await run(sql);
    const deletedAt = await query(
      "SELECT CAST(subject AS INTEGER) AS id, created_at_ms AS deleted_at_ms FROM events WHERE type = 'user.deleted' AND subject = '4'",
    );

    // 0026 makes three triggers again (the timeline's two, then events_of_entry): each table's
    // triggers of each kind still fire in the order they did, since SQLite runs them newest first.
    const firing = async () => {
      const order: Record<string, unknown[]> = {};
      for (const { tbl_name, name, sql } of await query(
        "SELECT tbl_name, name, sql FROM sqlite_master WHERE type = 'trigger' ORDER BY rowid",
      )) {
        const kind = `${tbl_name} ${/\b(BEFORE|AFTER) (INSERT|UPDATE|DELETE)\b/.exec(String(sql))?.[0]}`;
        order[kind] = [...(order[kind] ?? []), name];
      }
      return order;
    };
    await migrated("0026");
    const firingBefore0026 = await firing();
    expect(firingBefore0026["transactions AFTER INSERT"]).toHaveLength(3);
    await migrated("0027");
    expect(await firing()).toEqual(firingBefore0026);

    // 0028 rebuilds holds without AUTOINCREMENT, on holds held, captured (with its entry) and voided:
    // every row, index and trigger as it was, each table's triggers in the order SQLite runs them,
    // and no sqlite_sequence row for holds; the next hold takes the id after the largest.
    await migrated("0028");
    const hold = (n: number, amount: number) =>
      `INSERT INTO holds (user_id, wallet_id, amount_minor, amount_text, request_id, request_key, status, created_at_s, expires_at_s) VALUES (2, 'ngn', ${amount}, 'x', 'h-${n}', 'h-${n}', 'held', 200, 9999999999)`;
    await db.batch(
      [
        hold(1, 100),
        hold(2, 50),
        hold(3, 20),
        "UPDATE holds SET status = 'captured', captured_minor = 30, resolved_at_s = 201 WHERE id = 2",
        `INSERT INTO transactions (${COLUMNS}, imported, hold_id) VALUES (NULL, 2, 'ngn', 'DEBIT', 30, '0.30', 500, 470, 'h-2', NULL, NULL, 't', 't', 'cap-2', 201, NULL, NULL, 0, 2)`,
        "UPDATE holds SET status = 'voided', resolved_at_s = 202 WHERE id = 3",
      ].map((sql) => db.prepare(sql)),
    );
    const holdsState = async () => ({
      tables: (
        await query("SELECT name, sql FROM sqlite_master WHERE type = 'table' ORDER BY name")
      ).map(({ name, sql }) => ({ name, sql: String(sql).replaceAll(/[`"]/g, "") })),
      triggers: await query(triggerText),
      firing: await query(
        "SELECT tbl_name, name FROM sqlite_master WHERE type = 'trigger' ORDER BY tbl_name, rowid",
      ),
      indexes: await query(
        "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL ORDER BY name",
      ),
      holds: await query("SELECT * FROM holds ORDER BY id"),
      sequence: await query(
        "SELECT name, seq FROM sqlite_sequence WHERE name <> 'd1_migrations' ORDER BY name",
      ),
    });
    const before0028 = await holdsState();
    expect(before0028.holds.map((h) => [h.id, h.status])).toEqual([
      [1, "held"],
      [2, "captured"],
      [3, "voided"],
    ]);
    expect(before0028.sequence).toContainEqual({ name: "holds", seq: 3 });
    await migrated("0029");
    expect(await holdsState()).toEqual({
      ...before0028,
      tables: before0028.tables.map((t) =>
        t.name === "holds" ? { ...t, sql: t.sql.replace(" AUTOINCREMENT", "") } : t,
      ),
      sequence: before0028.sequence.filter((row) => row.name !== "holds"),
    });
    expect(await query("PRAGMA foreign_key_check")).toEqual([]);
    expect(await parentsLater(db)).toEqual([]);
    // The guards that name holds, after the rebuild.
    expect(await refusal("DELETE FROM holds WHERE id = 3")).toMatch(/holds_resolved_once/);
    expect(
      await refusal("UPDATE holds SET status = 'held', resolved_at_s = NULL WHERE id = 3"),
    ).toMatch(/holds_resolved_once/);
    expect(await refusal(hold(1, 1))).toMatch(/holds_placed_once/);
    expect(await refusal(hold(4, 371))).toMatch(/holds_within_available/);
    const debit = (after: number, holdId: string) =>
      `INSERT INTO transactions (${COLUMNS}, imported, hold_id) VALUES (NULL, 2, 'ngn', 'DEBIT', ${470 - after}, 'x', 470, ${after}, 'd-${after}', 'd-${after}', NULL, 't', 't', 'd-${after}', 203, NULL, NULL, 0, ${holdId})`;
    expect(await refusal(debit(99, "NULL"))).toMatch(/transactions_within_available/);
    expect(await refusal(debit(440, "1"))).toMatch(/transactions_hold_captured/);
    expect(await refusal(debit(440, "NULL").replace("'d-440', 'd-440'", "'h-1', 'h-1'"))).toMatch(
      /transactions_request_key_free/,
    );
    expect(await refusal(hold(4, 370))).toBe("");
    expect(await query("SELECT max(id) AS id FROM holds")).toEqual([{ id: 4 }]);
    expect(
      await query("SELECT type, subject FROM events WHERE type LIKE 'hold.%' ORDER BY id"),
    ).toEqual([
      { type: "hold.placed", subject: "1" },
      { type: "hold.placed", subject: "2" },
      { type: "hold.placed", subject: "3" },
      { type: "hold.captured", subject: "2" },
      { type: "hold.voided", subject: "3" },
      { type: "hold.placed", subject: "4" },
    ]);

    // 0029: each wallet keeps as its post_id the row number it answered as one, a gap a deletion
    // left included; a new wallet takes one above every wallet's, a deleted one's too.
    const wallet = (id: string) =>
      `INSERT INTO wallets (id, name, symbol, symbol_position, decimals, type, created_at_ms) VALUES ('${id}', 'W', 'W', 'left', 2, 'fiat', 0)`;
    await run(wallet("wa"));
    await run(wallet("wb"));
    await run("DELETE FROM wallets WHERE id = 'wa'");
    const rowsBefore0029 = await query("SELECT rowid AS post_id, id FROM wallets ORDER BY id");
    await migrated("0030");
    expect(await query("SELECT post_id, id FROM wallets ORDER BY id")).toEqual(rowsBefore0029);
    await run(wallet("wc"));
    await run("DELETE FROM wallets WHERE id = 'wc'");
    await run(wallet("wd"));
    expect(
      await query("SELECT post_id, id FROM wallets WHERE id IN ('wb', 'wd') ORDER BY id"),
    ).toEqual([
      { post_id: 3, id: "wb" },
      { post_id: 5, id: "wd" },
    ]);
    expect(await refusal("UPDATE wallets SET post_id = 3 WHERE id = 'wd'")).toMatch(/UNIQUE/);

    // 0022: an imported entry is refused in a wallet the service has placed a hold on; an entry of
    // the service's is judged by the holds guard as before.
    await migrated("9999"); // all of them
    expect(await query("SELECT * FROM deleted_users")).toEqual(deletedAt);
    expect(await refusal(user5.replaceAll("5", "4"))).toMatch(/users_id_deleted/);
    await run("DELETE FROM users WHERE id = 5");
    expect(await query("SELECT id FROM deleted_users ORDER BY id")).toEqual([{ id: 4 }, { id: 5 }]);
    await run(
      "INSERT INTO holds (user_id, wallet_id, amount_minor, amount_text, request_id, request_key, status, created_at_s, expires_at_s) VALUES (1, 'ngn', 1, '0.01', 'h', 'h', 'held', 0, 9999999999)",
    );
    const imported = entry("n7", "CREDIT", 1, 103, 104).replace(/, 0\)$/, ", 1)");
    expect(await refusal(imported)).toMatch(/transactions_import_under_hold/);
    expect(await refusal(entry("n7", "CREDIT", 1, 103, 104))).toBe("");
  });

  it("leaves every table after the tables its foreign keys name, so an export loads in order", async () => {
    expect(await parentsLater(env.DB)).toEqual([]);
  });
});

/**
 * Each foreign key whose table comes before the table it names, in the schema's order: the order
 * an export (`wrangler d1 export`) creates tables and writes their rows in.
 */
async function parentsLater(d1: D1Database) {
  const { results } = await d1
    .prepare("SELECT name, sql FROM sqlite_master WHERE type = 'table' ORDER BY rowid")
    .all<{ name: string; sql: string }>();
  const made = new Set<string>();
  const late: { child: string; parent: string }[] = [];
  for (const { name, sql } of results) {
    for (const [, parent] of sql.matchAll(/REFERENCES [`"]?(\w+)/g))
      if (parent !== name && !made.has(parent!)) late.push({ child: name, parent: parent! });
    made.add(name);
  }
  return late;
}
