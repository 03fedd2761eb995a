// The ledger's guards live in the database (drizzle/0000-0006), not only in the routes: these tests
// write SQL straight at D1, as an operator's console or a faulty script might, and check that every
// statement that would break an invariant fails and leaves every row as it was.
import { env } from "cloudflare:workers";
import { beforeEach, describe, expect, it } from "vitest";
import { createDb } from "../src/db/client";
import { deleteUserIfUnused } from "../src/db/users";
import {
  CLEAN,
  call,
  credit,
  ledgerViolations,
  makeAdmin,
  makeUser,
  makeWallet,
  unique,
} from "./helpers";

let userId: number;
let walletId: string;
let firstId: number;
let secondId: number;

beforeEach(async () => {
  const admin = await makeAdmin();
  userId = (await makeUser()).id;
  walletId = await makeWallet(admin, { decimals: 2 });
  firstId = (await credit(admin, { user_id: userId, wallet_id: walletId, amount: 5 })).body.data
    .transaction_id;
  secondId = (await credit(admin, { user_id: userId, wallet_id: walletId, amount: 7 })).body.data
    .transaction_id;
  const reversal = await call("POST", `/transactions/${firstId}/reverse`, {
    auth: admin.bearer,
    body: { request_id: unique("rev") },
  });
  expect(reversal.status).toBe(200);
});

/** Every row of the user's ledger and balances, to prove a refused statement changed nothing. */
async function snapshot() {
  const entries = await env.DB.prepare(`SELECT * FROM transactions WHERE user_id = ? ORDER BY id`)
    .bind(userId)
    .all();
  const balances = await env.DB.prepare(`SELECT * FROM balances WHERE user_id = ?`)
    .bind(userId)
    .all();
  return { entries: entries.results, balances: balances.results };
}

const COLUMNS = `user_id, wallet_id, txn_type, amount_minor, amount_text, balance_before_minor, balance_after_minor,
  request_id, request_key, reverses_id, title, slug_base, slug, created_at_s, imported, hold_id, batch_id`;

/**
 * An entry continuing the chain correctly (balance_before = the balance now) unless `values`
 * overrides a column with an SQL expression; `verb` may be INSERT OR REPLACE.
 */
function insertEntry(values: Record<string, string> = {}, verb = "INSERT") {
  const head = `(SELECT balance_minor FROM balances WHERE user_id = ${userId} AND wallet_id = '${walletId}')`;
  const row: Record<string, string> = {
    id: "NULL",
    user_id: String(userId),
    wallet_id: `'${walletId}'`,
    txn_type: "'CREDIT'",
    amount_minor: "1",
    amount_text: "'0.01'",
    balance_before_minor: head,
    balance_after_minor: `${head} + 1`,
    request_id: `'${unique("sql")}'`,
    request_key: "NULL",
    reverses_id: "NULL",
    title: "'t'",
    slug_base: "'t'",
    slug: `'${unique("t")}'`,
    created_at_s: "1",
    imported: "0",
    hold_id: "NULL",
    batch_id: "NULL",
    ...values,
  };
  return env.DB.prepare(
    `${verb} INTO transactions (id, ${COLUMNS}) SELECT ${Object.values(row).join(", ")}`,
  ).run();
}

async function expectRefused(statement: () => Promise<unknown>, reason: RegExp) {
  const before = await snapshot();
  await expect(statement()).rejects.toThrow(reason);
  expect(await snapshot()).toEqual(before);
  expect(await ledgerViolations()).toEqual(CLEAN);
}

/** A wallet written by hand, with its display decimals and extra storage places. */
const wallet = (id: string, decimals: number, extra: number) =>
  env.DB.prepare(
    `INSERT INTO wallets (id, name, symbol, symbol_position, decimals, extra_decimals, type, created_at_ms) VALUES (?, 'W', 'W', 'left', ?, ?, 'fiat', 0)`,
  )
    .bind(id, decimals, extra)
    .run();

/** A hold of 1.00 written by hand, as the service places one unless `requestKey` says otherwise. */
async function insertHold(requestId = unique("hold"), requestKey = requestId) {
  const row = await env.DB.prepare(
    `INSERT INTO holds (user_id, wallet_id, amount_minor, amount_text, request_id, request_key, status, created_at_s, expires_at_s)
     VALUES (?, ?, 100, '1.00', ?, ?, 'held', 1, 999999999999) RETURNING id`,
  )
    .bind(userId, walletId, requestId, requestKey)
    .first<{ id: number }>();
  return row!.id;
}

describe("ledger guards in the database", () => {
  it("accepts a correct entry written by hand (the guards below refuse only what is wrong)", async () => {
    await insertEntry();
    expect(await ledgerViolations()).toEqual(CLEAN);
  });

  it("refuses to update or delete an entry", async () => {
    await expectRefused(
      () => env.DB.prepare(`UPDATE transactions SET note = 'x' WHERE id = ?`).bind(secondId).run(),
      /ledger_append_only/,
    );
    await expectRefused(
      () => env.DB.prepare(`DELETE FROM transactions WHERE id = ?`).bind(secondId).run(),
      /ledger_append_only/,
    );
  });

  it("refuses INSERT OR REPLACE over an existing entry, by id, by request_id or by reversal", async () => {
    await expectRefused(
      () =>
        env.DB.prepare(
          `INSERT OR REPLACE INTO transactions SELECT * FROM transactions WHERE id = ?`,
        )
          .bind(secondId)
          .run(),
      /ledger_append_only/,
    );
    await expectRefused(
      () => insertEntry({ id: String(secondId) }, "INSERT OR REPLACE"),
      /ledger_append_only/,
    );
    const key = `(SELECT request_key FROM transactions WHERE id = ${secondId})`;
    await expectRefused(
      () => insertEntry({ request_id: key, request_key: key }, "INSERT OR REPLACE"),
      /ledger_append_only/,
    );
    await expectRefused(
      () => insertEntry({ reverses_id: String(firstId) }, "INSERT OR REPLACE"),
      /transactions_reverses/,
    );
  });

  it("refuses an entry that does not start from the balance as it stands", async () => {
    await expectRefused(
      () => insertEntry({ balance_before_minor: "0", balance_after_minor: "1" }),
      /ledger_chain_broken/,
    );
  });

  it("refuses an entry whose arithmetic is wrong, that overdraws, or that passes the balance limit", async () => {
    const head = `(SELECT balance_minor FROM balances WHERE user_id = ${userId} AND wallet_id = '${walletId}')`;
    await expectRefused(
      () => insertEntry({ balance_after_minor: `${head} + 2` }),
      /transactions_balance_arithmetic/,
    );
    await expectRefused(
      () =>
        insertEntry({
          txn_type: "'DEBIT'",
          amount_minor: `${head} + 1`,
          balance_after_minor: "-1",
        }),
      /transactions_no_overdraft/,
    );
    await expectRefused(
      () =>
        insertEntry({
          amount_minor: "999999999999999",
          balance_after_minor: `${head} + 999999999999999`,
        }),
      /transactions_balance_limit/,
    );
  });

  it("refuses a zero amount, unless the entry was imported from WordPress (the site recorded it)", async () => {
    const head = `(SELECT balance_minor FROM balances WHERE user_id = ${userId} AND wallet_id = '${walletId}')`;
    await expectRefused(
      () => insertEntry({ amount_minor: "0", balance_after_minor: head }),
      /transactions_amount_positive/,
    );
    await expectRefused(
      () => insertEntry({ amount_minor: "-1", balance_after_minor: `${head} - 1`, imported: "1" }),
      /transactions_amount_positive/,
    );
    await insertEntry({
      amount_minor: "0",
      amount_text: "'0'",
      balance_after_minor: head,
      imported: "1",
    });
    expect(await ledgerViolations()).toEqual(CLEAN);
  });

  it("lets an imported entry take a balance below zero; then refuses any debit that lowers it, and takes credits", async () => {
    const head = `(SELECT balance_minor FROM balances WHERE user_id = ${userId} AND wallet_id = '${walletId}')`;
    // The balance is 7.00: an imported debit of 10.00 leaves it at -3.00, as the site's history did.
    await insertEntry({
      txn_type: "'DEBIT'",
      amount_minor: "1000",
      balance_after_minor: `${head} - 1000`,
      imported: "1",
    });
    const balance = async () =>
      (await env.DB.prepare(
        `SELECT balance_minor FROM balances WHERE user_id = ? AND wallet_id = ?`,
      )
        .bind(userId, walletId)
        .first())!.balance_minor;
    expect(await balance()).toBe(-300);
    // A service debit of any size lowers a balance below zero: refused, whatever it leaves.
    await expectRefused(
      () =>
        insertEntry({ txn_type: "'DEBIT'", amount_minor: "1", balance_after_minor: `${head} - 1` }),
      /transactions_no_overdraft/,
    );
    // A service credit raises it, still below zero or past it.
    await insertEntry({ amount_minor: "100", balance_after_minor: `${head} + 100` });
    expect(await balance()).toBe(-200);
    await insertEntry({ amount_minor: "500", balance_after_minor: `${head} + 500` });
    expect(await balance()).toBe(300);
    expect(await ledgerViolations()).toEqual(CLEAN);
  });

  it("bounds a balance below zero as above it, imported or not (the service's own as an overdraft)", async () => {
    const head = `(SELECT balance_minor FROM balances WHERE user_id = ${userId} AND wallet_id = '${walletId}')`;
    await expectRefused(
      () =>
        insertEntry({
          txn_type: "'DEBIT'",
          amount_minor: `${head} + 1000000000000000`,
          balance_after_minor: "-1000000000000000",
          imported: "1",
        }),
      /transactions_balance_limit/,
    );
    // The service's own entry past it lowers a balance below zero: refused as the overdraft it is.
    await expectRefused(
      () =>
        insertEntry({
          txn_type: "'DEBIT'",
          amount_minor: `${head} + 1000000000000000`,
          balance_after_minor: "-1000000000000000",
        }),
      /transactions_no_overdraft/,
    );
  });

  it("refuses a wallet whose storage places are out of range, and any change of a wallet's units", async () => {
    await expect(wallet(unique("w").toLowerCase(), 2, -1)).rejects.toThrow(
      /wallets_extra_decimals/,
    );
    await expect(wallet(unique("w").toLowerCase(), 8, 8)).rejects.toThrow(/wallets_extra_decimals/);
    const fine = unique("w").toLowerCase();
    await wallet(fine, 8, 7);
    for (const change of [
      "decimals = 2",
      "extra_decimals = 0",
      "extra_decimals = extra_decimals",
    ]) {
      const update = env.DB.prepare(`UPDATE wallets SET ${change} WHERE id = ?`).bind(fine).run();
      if (change.endsWith("extra_decimals"))
        await update; // setting the same value changes nothing
      else await expect(update).rejects.toThrow(/wallets_units_fixed/);
    }
    await expect(
      env.DB.prepare(`UPDATE wallets SET decimals = 0 WHERE id = ?`).bind(walletId).run(),
    ).rejects.toThrow(/wallets_units_fixed/);
  });

  it("keeps a deleted wallet id's units: re-created only with them, and the record never changes", async () => {
    const remove = (id: string) =>
      env.DB.prepare("DELETE FROM wallets WHERE id = ?").bind(id).run();
    const id = unique("w").toLowerCase();
    await wallet(id, 2, 1);
    await remove(id);
    for (const [decimals, extra] of [
      [4, 1],
      [2, 0],
      [3, 0],
    ] as const)
      await expect(wallet(id, decimals, extra)).rejects.toThrow(/wallets_units_fixed/);
    await wallet(id, 2, 1);
    // A live id is a plain conflict, whatever its units.
    await expect(wallet(id, 4, 0)).rejects.toThrow(/UNIQUE constraint failed: wallets.id/);
    await remove(id);
    await wallet(id, 2, 1); // deleted twice: the same units are kept
    const kept = () =>
      env.DB.prepare("SELECT decimals, extra_decimals FROM deleted_wallets WHERE id = ?")
        .bind(id)
        .all();
    expect((await kept()).results).toStrictEqual([{ decimals: 2, extra_decimals: 1 }]);
    for (const change of [
      "UPDATE deleted_wallets SET decimals = 4 WHERE id = ?",
      "DELETE FROM deleted_wallets WHERE id = ?",
    ])
      await expect(env.DB.prepare(change).bind(id).run()).rejects.toThrow(/deleted_wallets_fixed/);
    expect((await kept()).results).toStrictEqual([{ decimals: 2, extra_decimals: 1 }]);
  });

  it("keeps a deleted user's id: never given again, and the record never changes", async () => {
    const gone = await makeUser();
    const startedMs = Date.now();
    expect(await deleteUserIfUnused(createDb(env.DB), gone.id)).toBe("deleted");
    const kept = () =>
      env.DB.prepare("SELECT id, deleted_at_ms FROM deleted_users WHERE id = ?")
        .bind(gone.id)
        .all<{ id: number; deleted_at_ms: number }>();
    const [row] = (await kept()).results;
    expect(row?.id).toBe(gone.id);
    expect(row!.deleted_at_ms).toBeGreaterThanOrEqual(startedMs - 1000);
    await expect(
      env.DB.prepare(
        "INSERT INTO users (id, username, email, password_hash, role, registered_at_ms) VALUES (?, ?, ?, 'x', 'subscriber', 0)",
      )
        .bind(gone.id, gone.username, gone.email)
        .run(),
    ).rejects.toThrow(/users_id_deleted/);
    // The service's own users are given ids above every id used, never a deleted one.
    expect((await makeUser()).id).toBeGreaterThan(gone.id);
    for (const change of [
      "UPDATE deleted_users SET deleted_at_ms = 0 WHERE id = ?",
      "DELETE FROM deleted_users WHERE id = ?",
    ])
      await expect(env.DB.prepare(change).bind(gone.id).run()).rejects.toThrow(
        /deleted_users_fixed/,
      );
    expect((await kept()).results).toStrictEqual([row]);
  });

  it("refuses a balance that is not the head of its entries", async () => {
    const balance = `user_id = ${userId} AND wallet_id = '${walletId}'`;
    await expectRefused(
      () =>
        env.DB.prepare(
          `UPDATE balances SET balance_minor = balance_minor + 1 WHERE ${balance}`,
        ).run(),
      /balance_off_ledger/,
    );
    await expectRefused(
      () => env.DB.prepare(`DELETE FROM balances WHERE ${balance}`).run(),
      /balance_off_ledger/,
    );
    await expectRefused(
      () =>
        env.DB.prepare(
          `INSERT OR REPLACE INTO balances SELECT user_id, wallet_id, balance_minor + 100, entry_count FROM balances WHERE ${balance}`,
        ).run(),
      /balance_off_ledger/,
    );
  });

  it("refuses a hold whose request_key is not its request_id folded", async () => {
    await expect(insertHold("ABC", "ABC")).rejects.toThrow(/holds_placed_once/);
    await insertHold("ABC", "abc");
  });

  it("refuses a DEBIT naming a hold captured for another amount", async () => {
    const id = await insertHold();
    await env.DB.prepare(
      "UPDATE holds SET status = 'captured', captured_minor = 20, resolved_at_s = 2 WHERE id = ?",
    )
      .bind(id)
      .run();
    const head = `(SELECT balance_minor FROM balances WHERE user_id = ${userId} AND wallet_id = '${walletId}')`;
    const capture = (amount: number) =>
      insertEntry({
        txn_type: "'DEBIT'",
        amount_minor: String(amount),
        balance_after_minor: `${head} - ${amount}`,
        hold_id: String(id),
      });
    await expectRefused(() => capture(50), /transactions_hold_captured/);
    await capture(20);
    expect(await ledgerViolations()).toEqual(CLEAN);
  });

  it("refuses an entry beyond its batch's entry count", async () => {
    const key = unique("batch");
    const batch = await env.DB.prepare(
      "INSERT INTO batches (request_id, request_key, balanced, entry_count, created_at_s) VALUES (?, ?, 0, 1, 1) RETURNING id",
    )
      .bind(key, key)
      .first<{ id: number }>();
    await insertEntry({ batch_id: String(batch!.id) });
    await expectRefused(
      () => insertEntry({ batch_id: String(batch!.id) }),
      /transactions_batch_known/,
    );
  });
});
