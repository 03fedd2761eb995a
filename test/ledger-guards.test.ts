// The ledger's guards live in the database (drizzle/0000-0005), not only in the routes: these tests
// write SQL straight at D1, as an operator's console or a faulty script might, and check that every
// statement that would break an invariant fails and leaves every row as it was.
import { env } from "cloudflare:workers";
import { beforeEach, describe, expect, it } from "vitest";
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
  request_id, request_key, reverses_id, title, slug_base, slug, created_at_s`;

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
});
