// Sites whose data the plugin accepted but the service never writes: a transfer whose halves are in
// two wallets, or whose other half is zero; chains with no stored balance; a request_id in the
// import's own keys; usernames equal but for spaces at their ends. Each is carried over exactly and
// reads, reverses and settles by the service's rules. And the printed report counts what it leaves
// out of its lists.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { formatReport } from "../scripts/import/report-text";
import { emptyTarget } from "../scripts/import/target";
import { importFromText } from "../scripts/import/wordpress";
import { compatCall, GUARDED } from "./compat-helpers";
import { CLEAN, call, type Json, ledgerViolations, tableCounts, unique } from "./helpers";
import { IMPORT_AT, importedAdmin, runImport } from "./import-helpers";
import { SITE_OPTIONS, siteDump } from "./site-dump";

const ALICE = 2;
const BOB = 3;
const CAROL = 4;

// Posts 100…: alice and bob hold ngn; alice's transfer 102/103 pays bob in pts, 104/105 pays him
// zero; bob's 106 names the import's own adjustment key; carol's pts have no stored balance.
const dump = siteDump(
  [
    { id: "ngn", decimals: 2 },
    { id: "pts", decimals: 0 },
  ],
  [
    { user: ALICE, wallet: "ngn", amount: "500" },
    { user: BOB, wallet: "ngn", amount: "500" },
    { user: ALICE, wallet: "ngn", amount: "100", type: "DEBIT", alt: 103, requestId: "t1" },
    { user: BOB, wallet: "pts", amount: "100", alt: 102, requestId: "t1" },
    { user: ALICE, wallet: "ngn", amount: "10", type: "DEBIT", alt: 105, requestId: "t2" },
    { user: BOB, wallet: "ngn", amount: "0", alt: 104, requestId: "t2" },
    { user: BOB, wallet: "ngn", amount: "7", requestId: "WP-Import:balance-adjustment:ngn" },
    { user: CAROL, wallet: "pts", amount: "30" },
  ],
  3,
  {},
  { [ALICE]: { ngn: "390" }, [BOB]: { ngn: "500", pts: "100" } },
);

const balances = async (auth: string, userId: number, wallets: string) =>
  (
    await call("GET", "/user-wallet-balance", {
      auth,
      query: { user_id: userId, wallet_id: wallets },
    })
  ).body.data as Json;

describe("importing what the plugin accepted and the service never writes", () => {
  it("settles every chain to the site's figure, a missing stored balance as 0, its adjustment keyed apart", async () => {
    const run = await runImport({ ...SITE_OPTIONS, balances: "site" }, dump);
    expect(run.report.conflicts).toEqual([]);
    expect(run.report.refused).toBe(false);
    expect(
      run.report.balanceDifferences.list.map((d: Json) => [d.userId, d.walletId, d.site, d.action]),
    ).toEqual([
      [BOB, "ngn", "500.00", "debit of 7.00 as a balance adjustment"],
      [CAROL, "pts", "0", "debit of 30 as a balance adjustment"],
    ]);
    expect(run.report.balances.compared).toBe(4);
    expect(run.report.transactions.reservedRequestIds.examples).toEqual([
      {
        reason: "request_id in the import's own wp-import: keys: imported without idempotency key",
        id: 106,
        userId: BOB,
        requestId: "WP-Import:balance-adjustment:ngn",
      },
    ]);
    const text = formatReport(run.report);
    expect(text).toContain("user 4 (member4) pts: site 0 (none stored), transactions 30");
    expect(text).toContain("request_ids in the import's own keys");

    const admin = await importedAdmin(1, "siteadmin");
    expect(await balances(admin, ALICE, "ngn,pts")).toEqual({ ngn: 390, pts: 0 });
    expect(await balances(admin, BOB, "ngn,pts")).toEqual({ ngn: 500, pts: 100 });
    expect(await balances(admin, CAROL, "pts")).toEqual({ pts: 0 });
    const keys = await env.DB.prepare(
      "SELECT id, request_key FROM transactions WHERE user_id = ? AND wallet_id = 'ngn' ORDER BY id",
    )
      .bind(BOB)
      .all<Json>();
    expect(keys.results.at(-2)).toEqual({ id: 106, request_key: null });
    expect(keys.results.at(-1)!.request_key).toBe("wp-import:balance-adjustment:ngn");
    expect(await ledgerViolations()).toEqual(CLEAN);

    // A second run finds it all there and writes nothing.
    const again = await runImport({ ...SITE_OPTIONS, balances: "site" }, dump);
    expect(again.report.refused).toBe(false);
    expect(again.statements).toEqual([]);
  });

  it("reverses a transfer between two wallets half by half, each in its own wallet and units", async () => {
    const admin = await importedAdmin(1, "siteadmin");
    const reversal = await call("POST", "/transactions/102/reverse", {
      auth: admin,
      body: { request_id: unique("rev") },
    });
    expect(reversal.status, reversal.text).toBe(200);
    expect(reversal.body.data.reversed_transaction_ids).toEqual([102, 103]);
    expect(await balances(admin, ALICE, "ngn,pts")).toEqual({ ngn: 490, pts: 0 });
    expect(await balances(admin, BOB, "ngn,pts")).toEqual({ ngn: 500, pts: 0 });
    const written = await env.DB.prepare(
      "SELECT user_id, wallet_id, txn_type, amount_minor, reverses_id FROM transactions WHERE id IN (?, ?) ORDER BY id",
    )
      .bind(...(reversal.body.data.transaction_ids as number[]))
      .all<Json>();
    expect(written.results).toEqual([
      {
        user_id: ALICE,
        wallet_id: "ngn",
        txn_type: "CREDIT",
        amount_minor: 10_000,
        reverses_id: 102,
      },
      { user_id: BOB, wallet_id: "pts", txn_type: "DEBIT", amount_minor: 100, reverses_id: 103 },
    ]);
    expect(await ledgerViolations()).toEqual(CLEAN);
  });

  it("shows an imported transfer half's title as the site stored it, in the plugin dialect's lists", async () => {
    const admin = await importedAdmin(1, "siteadmin");
    const res = await compatCall("GET", "/wp-json/rimplenet/v1/credits?credit_id=103", {
      vars: GUARDED,
      headers: { Authorization: admin },
    });
    expect(res.body.data).toMatchObject({ id: 103, description: "CREDIT 100", request_id: "" });
  });

  it("refuses to reverse a transfer whose other half is zero, from either half, writing nothing", async () => {
    const admin = await importedAdmin(1, "siteadmin");
    const before = await tableCounts();
    for (const id of [104, 105]) {
      const reversal = await call("POST", `/transactions/${id}/reverse`, {
        auth: admin,
        body: { request_id: unique("rev") },
      });
      expect(reversal.status, reversal.text).toBe(400);
      expect(reversal.body.error).toEqual({ id: "a transaction of zero cannot be reversed" });
    }
    expect(await tableCounts()).toEqual(before);
  });

  it("reads a stored balance named __proto__ as a wallet no site has, never as every user's balance", () => {
    const planned = (stored: Record<number, Record<string, string>>) =>
      importFromText(
        siteDump(
          [
            { id: "ngn", decimals: 2 },
            { id: "pts", decimals: 0 },
          ],
          [
            { user: ALICE, wallet: "ngn", amount: "500" },
            { user: BOB, wallet: "pts", amount: "100" },
          ],
          3,
          {},
          stored,
        ),
        { options: { ...SITE_OPTIONS, balances: "site" }, target: emptyTarget(), nowMs: IMPORT_AT },
      ).report.balanceDifferences.list.map((d: Json) => [d.userId, d.walletId, d.action]);
    const clean = planned({ [ALICE]: { ngn: "500" }, [BOB]: { pts: "90" } });
    expect(clean).toEqual([[BOB, "pts", "debit of 10 as a balance adjustment"]]);
    expect(
      planned({ [ALICE]: { ngn: "500", ["__proto__"]: "1000000" }, [BOB]: { pts: "90" } }),
    ).toEqual(clean);
    expect(({} as Json).withdrawable).toBeUndefined();
  });

  it("keeps the entries where the site's balance passes the largest a wallet holds", () => {
    // Each of the plugin's two stored parts is within the limit; their sum is not.
    const past = `${siteDump(
      [{ id: "ngn", decimals: 2 }],
      [{ user: 3, wallet: "ngn", amount: "1" }],
      3,
      {},
      { 3: { ngn: "9999999999999.99" } },
    )}INSERT INTO \`wp_usermeta\` VALUES (9999,3,'user_nonwithdrawable_bal_ngn','9999999999999.99');\n`;
    const run = importFromText(past, {
      options: { ...SITE_OPTIONS, balances: "site" },
      target: emptyTarget(),
      nowMs: IMPORT_AT,
    });
    expect(run.report.refused).toBe(false);
    expect(run.report.balanceDifferences.list.map((d: Json) => d.action)).toEqual([
      "kept the entries: balance 1.00 (the site's balance, or the adjustment to it, passes 9999999999999.99, the largest wallet ngn holds)",
    ]);
    expect(run.report.adjustments.balance).toBe(0);
    const part = importFromText(
      siteDump(
        [{ id: "ngn", decimals: 2 }],
        [{ user: 3, wallet: "ngn", amount: "1" }],
        3,
        {},
        { 3: { ngn: "10000000000000" } },
      ),
      { options: { ...SITE_OPTIONS, balances: "site" }, target: emptyTarget(), nowMs: IMPORT_AT },
    );
    expect(part.report.balances.ignoredMeta.byReason).toEqual({
      'stored balance passes 9999999999999.99, the largest wallet ngn holds: entries kept: {"withdrawable":"10000000000000"}': 1,
    });
  });

  it("lists each transfer half whose other half is not imported, by id", () => {
    // Posts 100…: 101 names a half the dump lacks; 102's other half, 103, is by a user it lacks.
    const run = importFromText(
      siteDump(
        [{ id: "ngn", decimals: 2 }],
        [
          { user: ALICE, wallet: "ngn", amount: "500" },
          { user: ALICE, wallet: "ngn", amount: "100", type: "DEBIT", alt: 999, requestId: "t1" },
          { user: ALICE, wallet: "ngn", amount: "50", type: "DEBIT", alt: 103, requestId: "t2" },
          { user: 9, wallet: "ngn", amount: "50", alt: 102, requestId: "t2" },
        ],
        3,
      ),
      { options: { ...SITE_OPTIONS, force: true }, target: emptyTarget(), nowMs: IMPORT_AT },
    );
    const reason =
      "transfer half whose other half is not imported (not in the dump, skipped or ignored): alt_transfer_id kept as its transfer link";
    expect(run.report.transactions.openHalves).toEqual({
      total: 2,
      byReason: { [reason]: 2 },
      examples: [
        { reason, id: 101, userId: ALICE },
        { reason, id: 102, userId: ALICE },
      ],
    });
    expect(formatReport(run.report)).toContain(
      'Transfer halves without their other half (2):\n    2 × transfer half whose other half is not imported (not in the dump, skipped or ignored): alt_transfer_id kept as its transfer link\n    e.g. {"id":101,"userId":2} {"id":102,"userId":2}',
    );
  });

  it("refuses, before writing, a row whose statement D1 could not run", () => {
    const named = (firstName: string) =>
      `${siteDump([{ id: "ngn", decimals: 2 }], [{ user: 3, wallet: "ngn", amount: "1" }], 3)}INSERT INTO \`wp_usermeta\` VALUES (9999,3,'first_name','${firstName}');\n`;
    const plan = (text: string) =>
      importFromText(text, { options: SITE_OPTIONS, target: emptyTarget(), nowMs: IMPORT_AT });
    expect(plan(named("a".repeat(90_000))).report.refused).toBe(false);
    expect(() => plan(named("a".repeat(120_000)))).toThrow(
      /^user 3 \(member3\) of the dump needs a statement of 120,\d{3} bytes, and D1 runs at most 100,000: shorten/,
    );
  });

  it("names the amounts that lowered a wallet's range when a history passes it", () => {
    const dust = siteDump(
      [{ id: "ngn", decimals: 2 }],
      [
        { user: 2, wallet: "ngn", amount: "5000" },
        { user: 3, wallet: "ngn", amount: "0.000000000001" },
      ],
      3,
    );
    const run = importFromText(dust, {
      options: SITE_OPTIONS,
      target: emptyTarget(),
      nowMs: IMPORT_AT,
    });
    expect(run.report.refused).toBe(true);
    expect(Object.keys(run.report.transactions.skipped.byReason)).toEqual([
      "its balance or an amount passes 999,999,999,999,999 units of the 12 decimal places wallet ngn stores (more than the 2 it shows, for the amounts listed with more places: correcting those on the site, or --places, gives it back its range)",
    ]);
    expect(run.report.transactions.subPrecisionAmounts.examples).toEqual([
      expect.objectContaining({ userId: 3, walletId: "ngn", amount: "0.000000000001" }),
    ]);
  });

  it("writes the dump's control and bidirectional characters in the report as escapes", () => {
    const hostile = siteDump(
      [{ id: "ngn", decimals: 2 }],
      [{ user: 3, wallet: "ngn", amount: "1" }],
      3,
      { 3: "m\u001b[2J\u202ex" },
      { 3: { ngn: "2" } },
    );
    const run = importFromText(hostile, {
      options: SITE_OPTIONS,
      target: emptyTarget(),
      nowMs: IMPORT_AT,
    });
    const text = formatReport(run.report, { dryRun: true });
    expect(text).toContain("user 3 (m\\u001b[2J\\u202ex) ngn");
    expect(text.includes("\u001b") || text.includes("\u202e")).toBe(false);
  });

  it("refuses a site whose usernames are equal but for spaces at their ends, writing nothing", () => {
    const twins = siteDump(
      [{ id: "ngn", decimals: 2 }],
      [{ user: 3, wallet: "ngn", amount: "1" }],
      3,
      {
        3: "member2 ",
      },
    );
    const run = importFromText(twins, {
      options: SITE_OPTIONS,
      target: emptyTarget(),
      nowMs: IMPORT_AT,
    });
    expect(run.report.refused).toBe(true);
    expect(run.report.users.skipped.examples).toEqual([
      { reason: "username taken by user 2 in the dump", id: 3, username: "member2 " },
    ]);
  });
});

describe("the import report as text", () => {
  const report = importFromText(siteDump([{ id: "ngn", decimals: 2 }], [], 2), {
    options: SITE_OPTIONS,
    target: emptyTarget(),
    nowMs: IMPORT_AT,
  }).report;
  const many = (count: number) => Array.from({ length: count }, (_, i) => `warning ${i + 1}`);

  it("says how many warnings and conflicts it leaves out, and where they are", () => {
    const text = formatReport({
      ...report,
      warnings: many(25),
      conflicts: many(23).map((problem, i) => ({ kind: "user", id: i, problem })),
    });
    expect(text).toContain("Warning: warning 20\n");
    expect(text).not.toContain("warning 21");
    expect(text).toContain(
      "… 5 more warnings; the JSON report (--report FILE) lists the first 200",
    );
    expect(text).toContain("… 3 more in the JSON report (--report FILE)");
  });

  it("counts the warnings past the JSON report's list", () => {
    const text = formatReport({
      ...report,
      warnings: many(200),
      warningsNotListed: 57,
    });
    expect(text).toContain(
      "… 237 more warnings; the JSON report (--report FILE) lists the first 200",
    );
  });

  it("says nothing more when it shows every warning", () => {
    expect(formatReport({ ...report, warnings: many(20) })).not.toContain("more warnings");
  });
});

describe("reading a transaction's type and wallet as the plugin did", () => {
  it("reads a post holding both CREDIT and DEBIT terms by its txn_type meta", () => {
    // The type the plugin wrote in txn_type decides; the terms alone leave it open.
    const both = siteDump(
      [{ id: "ngn", decimals: 2 }],
      [
        { user: ALICE, wallet: "ngn", amount: "500", terms: ["DEBIT"] },
        { user: ALICE, wallet: "ngn", amount: "200", type: "DEBIT", terms: ["CREDIT"] },
      ],
      1,
      {},
      { [ALICE]: { ngn: "300" } },
    );
    const { report } = importFromText(both, { options: SITE_OPTIONS });
    expect(report.transactions.skipped.total).toBe(0);
    expect(report.transactions).toMatchObject({ imported: 2, credits: 1, debits: 1 });
    expect(report.balanceDifferences.total).toBe(0);
  });

  it("reads a transaction's currency in any letter case as its wallet's id", () => {
    // A client sent the wallet id as it liked; the plugin compared it in lower case.
    const upper = siteDump(
      [{ id: "ngn", decimals: 2 }],
      [
        { user: ALICE, wallet: "NGN", amount: "500" },
        { user: ALICE, wallet: " Ngn", amount: "20", type: "DEBIT" },
      ],
      1,
      {},
      { [ALICE]: { ngn: "480" } },
    );
    const { report, statements } = importFromText(upper, { options: SITE_OPTIONS });
    expect(report.transactions.skipped.total).toBe(0);
    expect(report.transactions.imported).toBe(2);
    expect(report.balanceDifferences.total).toBe(0);
    expect(statements.filter((sql) => sql.includes("'NGN'") || sql.includes("' Ngn'"))).toEqual([]);
  });
});
