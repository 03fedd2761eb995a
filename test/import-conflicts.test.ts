// The import refuses to write over data that is not the site's, unless told to (--force), and then
// leaves out exactly what conflicts.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { formatReport } from "../scripts/import/report-text";
import { CLEAN, type Json, ledgerViolations, tableCounts } from "./helpers";
import { dump, runImport, sitePost } from "./import-helpers";

/** A run of `dumpText` refused with `conflict` among its conflicts, having written nothing. */
async function refusedWith(dumpText: string, conflict: Json) {
  const before = await tableCounts();
  const run = await runImport({ force: false }, dumpText);
  expect(run.report.refused).toBe(true);
  expect(run.report.conflicts).toContainEqual(conflict);
  expect(await tableCounts()).toEqual(before);
  return run;
}

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

  it("refuses a history one of whose new ids an entry the service wrote holds", async () => {
    // The service wrote entry 40 (user 1's rmpn); the site has since given id 40 to a new post.
    await env.DB.prepare(
      `INSERT INTO transactions (id, user_id, wallet_id, txn_type, amount_minor, amount_text, balance_before_minor, balance_after_minor,
         request_id, request_key, note, title, slug_base, slug, created_at_s)
       VALUES (40, 1, 'rmpn', 'CREDIT', 1, '1', 0, 1, 'svc-1', 'svc-1', '', 't', 't', 't', 0)`,
    ).run();
    const later = `${dump}\n${sitePost({ id: 40, author: 4, amount: "1", currency: "btc", type: "CREDIT", requestId: "later-1" })}`;
    await refusedWith(later, {
      kind: "entries",
      id: "4\tbtc",
      problem: "user 4 wallet btc: entry id 40 is taken by an entry not written by this import",
    });
  });

  it("refuses a post the site gave another user when it deleted its author, before writing", async () => {
    // WordPress deleted amaka (user 3), "attributing all content to" oldtimer (user 4): her btc
    // credit, post 25, imported here as hers, is his in the later dump.
    const later = dump
      .replace(/,\(3,'amaka',[^)]*\)/, "")
      .replace("(24,3,'2022-09-08", "(24,4,'2022-09-08")
      .replace("(25,3,'2022-10-01", "(25,4,'2022-10-01");
    expect(later.match(/'amaka',/g)).toBeNull();
    const run = await refusedWith(later, {
      kind: "entries",
      id: "4\tbtc",
      problem:
        'user 4 wallet btc: entry id 25 is taken by an entry imported for user 3, whom the site no longer has (WordPress gives a deleted user\'s posts to the user named in "attribute all content to"); leave them with the deleted user on the site, or import into a fresh database',
    });
    expect(run.report.warnings).toContain(
      "user 3 (amaka) is not in the dump (deleted on the site?): kept here, with its 1 imported entries",
    );
    // With --force the rest goes in and that history stays out: the database is whole.
    const forced = await runImport({ force: true }, later);
    expect(forced.report.conflicts).toContainEqual(expect.objectContaining({ id: "4\tbtc" }));
    expect(await ledgerViolations()).toEqual(CLEAN);
  });
});
