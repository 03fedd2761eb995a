// The import refuses to write over data that is not the site's, unless told to (--force), and then
// leaves out exactly what conflicts.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { formatReport } from "../scripts/import/report-text";
import { CLEAN, type Json, ledgerViolations, tableCounts } from "./helpers";
import { runImport } from "./import-helpers";

describe("importing over existing data", () => {
  it("refuses, writing nothing, when users or wallets conflict", async () => {
    // An administrator created before the import (as `npm run dev` seeds one) took id 1, under the
    // site's user 1's username but not the site's (its own e-mail and registration time); a wallet
    // ngn exists with other decimals.
    await env.DB.batch([
      env.DB.prepare(
        "INSERT INTO users (id, username, email, password_hash, role, registered_at_ms) VALUES (1, 'admin', 'admin@example.com', 'x', 'administrator', 1764000000000)",
      ),
      env.DB.prepare(
        "INSERT INTO wallets (id, name, symbol, symbol_position, decimals, type, created_at_ms) VALUES ('ngn', 'Naira', '₦', 'left', 0, 'fiat', 0)",
      ),
      env.DB.prepare(
        "INSERT INTO wallets (id, name, symbol, symbol_position, decimals, type, created_at_ms) VALUES ('usd', 'US Dollar', 'US$', 'left', 2, 'fiat', 0)",
      ),
    ]);
    const before = await tableCounts();
    const run = await runImport();
    expect(run.report.refused).toBe(true);
    expect(run.report.conflicts.map((c: Json) => [c.kind, c.id])).toEqual([
      ["user", 1],
      ["wallet", "ngn"],
      ["wallet", "usd"],
    ]);
    expect(run.report.conflicts[0]?.problem).toBe(
      "user id 1 (admin) is taken by admin <admin@example.com>, registered 2025-11-24T16:00:00Z, the site's user 2021-01-02T03:04:05Z",
    );
    expect(run.report.transactions.skipped.byReason).toEqual({
      "wallet ngn is not imported (conflicts with an existing wallet)": 10,
    });
    expect(await tableCounts()).toEqual(before);
    // Its report, printed before it refuses, says what the import would have done, not what it did.
    const text = formatReport(run.report);
    expect(text).toContain("Users: 5 in the dump; 4 would import, 0 already there, 1 skipped");
    expect(text).toContain("Adjustment entries it would add: 0");
    expect(text).not.toMatch(/\d to import|to add:/);
    expect(text).toContain("REFUSED");
  });

  it("with --force imports the rest and leaves out what conflicts", async () => {
    const run = await runImport({ force: true });
    expect(run.report.users).toMatchObject({ imported: 4, alreadyPresent: 0 });
    expect(run.report.wallets).toMatchObject({ imported: 2, alreadyPresent: 1 });
    // ngn's entries are left out (decimals differ); usd keeps the existing definition (decimals agree).
    expect(run.report.transactions).toMatchObject({ imported: 3 });
    const rows = await env.DB.prepare("SELECT id, wallet_id FROM transactions ORDER BY id").all();
    expect(rows.results).toEqual([
      { id: 22, wallet_id: "rmpn" },
      { id: 25, wallet_id: "btc" },
      { id: 26, wallet_id: "usd" },
    ]);
    expect(await env.DB.prepare("SELECT email FROM users WHERE id = 1").first()).toEqual({
      email: "admin@example.com",
    });
    expect(await env.DB.prepare("SELECT symbol FROM wallets WHERE id = 'usd'").first()).toEqual({
      symbol: "US$",
    });
    expect(await ledgerViolations()).toEqual(CLEAN);
  });

  it("refuses entries the service wrote among the site's ids", async () => {
    // A service entry (no guid, not an import adjustment) with id 23, inside the range of the site's ids.
    await env.DB.prepare(
      `INSERT INTO transactions (id, user_id, wallet_id, txn_type, amount_minor, amount_text, balance_before_minor, balance_after_minor,
         request_id, request_key, note, title, slug_base, slug, created_at_s)
       VALUES (23, 2, 'btc', 'CREDIT', 1, '0.00000001', 0, 1, 'svc-1', 'svc-1', '', 't', 't', 't', 0)`,
    ).run();
    const run = await runImport({ force: false });
    expect(run.report.refused).toBe(true);
    expect(run.report.conflicts).toContainEqual(
      expect.objectContaining({ kind: "entries", id: "*" }),
    );
  });
});
