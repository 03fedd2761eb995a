// A wallet id deleted from the database keeps its units (migration 0015): the import plans a site's
// wallet of that id with them, or reports the conflict, and never trips the database's trigger.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { CLEAN, type Json, ledgerViolations, tableCounts } from "./helpers";
import { runImport } from "./import-helpers";
import { SITE_OPTIONS, siteDump } from "./site-dump";

const createAndDelete = (id: string, decimals: number) =>
  env.DB.batch([
    env.DB.prepare(
      "INSERT INTO wallets (id, name, symbol, symbol_position, decimals, type, created_at_ms) VALUES (?, 'Gone', 'G', 'left', ?, 'fiat', 0)",
    ).bind(id, decimals),
    env.DB.prepare("DELETE FROM wallets WHERE id = ?").bind(id),
  ]);

const wallet = (id: string) =>
  env.DB.prepare("SELECT decimals, extra_decimals FROM wallets WHERE id = ?").bind(id).first();

describe("importing a wallet whose id the database deleted", () => {
  it("reports a site whose amounts need more places than the deleted wallet's units", async () => {
    await createAndDelete("xone", 2);
    const dump = siteDump(
      [{ id: "xone", decimals: 2 }],
      [{ user: 2, wallet: "xone", amount: "1.005" }],
    );
    const run = await runImport(SITE_OPTIONS, dump, { apply: false });
    expect(run.report.conflicts).toContainEqual({
      kind: "wallet",
      id: "xone",
      problem:
        "wallet xone stores 2 decimal places in the database (a deleted wallet's id keeps its units); the site's amounts need 3: its entries cannot be imported (--places xone=2 imports the histories that fit)",
    });
    expect(run.statements.some((sql) => /INSERT INTO wallets/.test(sql))).toBe(false);
  });

  it("refuses, writing nothing, when the site's wallet has other decimals than the deleted one", async () => {
    await createAndDelete("ngn", 0); // the site's ngn has 2
    await createAndDelete("usd", 2); // the site's usd has 2 too
    const before = await tableCounts();
    const run = await runImport();
    expect(run.report.refused).toBe(true);
    expect(run.report.conflicts).toStrictEqual([
      {
        kind: "wallet",
        id: "ngn",
        problem:
          "a wallet ngn with 0 decimals was deleted from the database, and its id keeps them; the site's has 2: its entries cannot be imported",
      },
    ]);
    expect(run.report.transactions.skipped.byReason).toEqual({
      "wallet ngn is not imported (conflicts with a deleted wallet's units)": 10,
    });
    expect(await tableCounts()).toEqual(before);
  });

  it("with --force imports the rest, usd under its kept units, and leaves ngn out", async () => {
    const run = await runImport({ force: true });
    expect(run.report.wallets).toMatchObject({ imported: 3, alreadyPresent: 0 });
    expect(await wallet("ngn")).toBeNull();
    expect(await wallet("usd")).toEqual({ decimals: 2, extra_decimals: 0 });
    const ngnEntries = await env.DB.prepare(
      "SELECT count(*) AS n FROM transactions WHERE wallet_id = 'ngn'",
    ).first<Json>();
    expect(ngnEntries!.n).toBe(0);
    expect(await ledgerViolations()).toEqual(CLEAN);
  });
});
