// After a site's history is carried over as it was, its balances below zero and its wallets that store
// more places than they show live on under the service's own rules: no movement lowers a balance
// below zero, credits raise one, new amounts keep the wallet's display decimals, zero is refused, and
// every balance stays the sum of its entries.
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { CONSOLE_AUDIENCE } from "../src/auth/tokens";
import { consoleOf } from "./console-helpers";
import {
  CLEAN,
  call,
  INSUFFICIENT,
  type Json,
  ledgerViolations,
  signedToken,
  tableCounts,
  unique,
} from "./helpers";
import { importedAdmin, realSite, runImport } from "./import-helpers";

let admin: string;
// Imported users (test/fixtures/make-wordpress-dump.ts): kemi owes on ngn, bola's usd holds 4.875,
// chidi's ngn holds 1412.335.
const KEMI = 3;
const BOLA = 5;
const CHIDI = 2;

beforeAll(async () => {
  const run = await runImport(realSite.options, realSite.dump);
  expect(run.report.refused).toBe(false);
  admin = await importedAdmin(1, "siteadmin");
});

const post = (path: string, body: Json) =>
  call("POST", path, { auth: admin, body: { request_id: unique("req"), ...body } });

/** A user's balance in storage units, straight from D1. */
const stored = async (userId: number, walletId: string) =>
  (await env.DB.prepare("SELECT balance_minor FROM balances WHERE user_id = ? AND wallet_id = ?")
    .bind(userId, walletId)
    .first<{ balance_minor: number }>())!.balance_minor;

/** Every row of a user's ledger and balances, to prove a refused request changed nothing. */
async function snapshot(userId: number) {
  const entries = await env.DB.prepare("SELECT * FROM transactions WHERE user_id = ? ORDER BY id")
    .bind(userId)
    .all();
  const balances = await env.DB.prepare(
    "SELECT * FROM balances WHERE user_id = ? ORDER BY wallet_id",
  )
    .bind(userId)
    .all();
  return { entries: entries.results, balances: balances.results, counts: await tableCounts() };
}

describe("a balance below zero, carried over from the site", () => {
  it("refuses a debit, a transfer out and a reversal that would lower it, and changes nothing", async () => {
    expect(await stored(KEMI, "ngn")).toBeLessThan(0);
    const before = await snapshot(KEMI);
    // The largest amount too: from below zero it passes the largest balance's negative, and is
    // still an overdraft, not a balance past the limit.
    for (const amount of ["0.01", "1", "100", "999999999999.99"]) {
      const debit = await post("/debits", { user_id: KEMI, wallet_id: "ngn", amount });
      expect(debit.body, amount).toEqual(INSUFFICIENT);
    }
    const transfer = await post("/transfers", {
      from_user_id: KEMI,
      to_user_id: CHIDI,
      wallet_id: "ngn",
      amount: "1",
    });
    expect(transfer.body).toEqual(INSUFFICIENT);
    // Reversing her first credit would debit her further below zero.
    const reversal = await post("/transactions/102/reverse", {});
    expect(reversal.body).toEqual(INSUFFICIENT);
    expect(await snapshot(KEMI)).toEqual(before);
    expect(await ledgerViolations()).toEqual(CLEAN);
  });

  it("takes credits, transfers in and reversals of her debits, each raising it", async () => {
    const start = await stored(KEMI, "ngn");
    expect(start).toBeLessThan(0);
    expect(
      (await post("/credits", { user_id: KEMI, wallet_id: "ngn", amount: "10.00" })).status,
    ).toBe(200);
    expect(await stored(KEMI, "ngn")).toBe(start + 10_000);
    const transfer = await post("/transfers", {
      from_user_id: CHIDI,
      to_user_id: KEMI,
      wallet_id: "ngn",
      amount: "0.5",
    });
    expect(transfer.status, transfer.text).toBe(200);
    expect(await stored(KEMI, "ngn")).toBe(start + 10_500);
    // Her zero "DEBIT" of -0 cannot be reversed (a zero movement), whatever it is.
    const zero = await post("/transactions/109/reverse", {});
    expect(zero.status).toBe(400);
    expect(zero.body.error).toEqual({ id: "a transaction of zero cannot be reversed" });
    const entries = await env.DB.prepare(
      "SELECT balance_before_minor, balance_after_minor FROM transactions WHERE user_id = ? AND wallet_id = 'ngn' ORDER BY id",
    )
      .bind(KEMI)
      .all<Json>();
    const last = entries.results.at(-1)!;
    expect(last.balance_after_minor).toBeGreaterThan(last.balance_before_minor);
    expect(await ledgerViolations()).toEqual(CLEAN);
  });
});

describe("a wallet that stores more places than it displays", () => {
  it("offers no Reverse in the console for her zero entry, and says why on its page", async () => {
    const { token } = await signedToken(
      { id: 1, username: "siteadmin", role: "administrator" },
      { audience: CONSOLE_AUDIENCE },
    );
    const { request } = consoleOf();
    const cookie = `wallet_admin=${token}`;
    const page = await request(`/users/${KEMI}?page=1`, { cookie });
    expect(page.html).toContain("<td>109</td>");
    expect(page.html).not.toContain('aria-label="Reverse transaction 109"');
    expect(page.html).toContain('aria-label="Reverse transaction 102"');
    const confirm = await request(`/users/${KEMI}/reverse/109`, { cookie });
    expect(confirm.html).toContain(
      "Transaction 109 cannot be reversed: a transaction of zero cannot be reversed.",
    );
    expect(confirm.html).not.toContain('<form class="stack card" method="post"');
  });

  it("takes new amounts with its display decimals only, and never zero", async () => {
    const before = await tableCounts();
    const tooPrecise = await post("/credits", {
      user_id: CHIDI,
      wallet_id: "ngn",
      amount: "1.005",
    });
    expect(tooPrecise.status).toBe(400);
    expect(tooPrecise.body.error).toEqual({
      amount: "amount has more decimal places than wallet ngn allows (2)",
    });
    const zero = await post("/credits", { user_id: CHIDI, wallet_id: "ngn", amount: "0.00" });
    expect(zero.body.error).toEqual({ amount: "amount must be greater than zero" });
    // Its largest amount is counted in its storage units: 999,999,999,999.999 on a 3-place wallet.
    const huge = await post("/credits", {
      user_id: CHIDI,
      wallet_id: "ngn",
      amount: "1000000000000",
    });
    expect(huge.body.error).toEqual({ amount: "amount is too large" });
    expect(await tableCounts()).toEqual(before);
  });

  it("writes and answers new entries exactly, shown with the display decimals", async () => {
    const startMinor = await stored(CHIDI, "ngn");
    const res = await post("/credits", { user_id: CHIDI, wallet_id: "ngn", amount: "1.50" });
    expect(res.status, res.text).toBe(200);
    const id = res.body.data.transaction_id;
    const row = await env.DB.prepare("SELECT amount_minor, imported FROM transactions WHERE id = ?")
      .bind(id)
      .first();
    expect(row).toEqual({ amount_minor: 1500, imported: 0 });
    expect(await stored(CHIDI, "ngn")).toBe(startMinor + 1500);
    const record = (await call("GET", `/transactions/${id}`, { auth: admin })).body.data;
    expect(record).toMatchObject({
      amount: "1.50",
      wallet_decimal: 2,
      amount_formatted_disp: "₦1.50",
    });
    expect(record.post_title).toMatch(
      /^TRANSACTION by chidi, Type: CREDIT, Wallet Info: ₦1\.50 Naira Wallet {2}on /,
    );
  });

  it("lets a debit spend down to the sub-cent remainder, and not past zero", async () => {
    // bola's usd: 4.875 (10 - 35.125 + 30), stored at 4 places.
    const start = await stored(BOLA, "usd");
    expect(start).toBe(48_750);
    const spend = await post("/debits", { user_id: BOLA, wallet_id: "usd", amount: "4.87" });
    expect(spend.status, spend.text).toBe(200);
    const balance = await call("GET", "/user-wallet-balance", {
      auth: admin,
      query: { user_id: BOLA, wallet_id: "usd", formatted: "yes" },
    });
    expect(balance.body.data).toEqual({ usd: 0.005, formatted: { usd: "$0.01" } });
    const before = await snapshot(BOLA);
    expect(
      (await post("/debits", { user_id: BOLA, wallet_id: "usd", amount: "0.01" })).body,
    ).toEqual(INSUFFICIENT);
    expect(await snapshot(BOLA)).toEqual(before);
    expect(await ledgerViolations()).toEqual(CLEAN);
  });
});
