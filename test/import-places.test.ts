// `--places`: the operator sets the places a wallet stores, so that one amount of many places (a
// `0.000000000001` any site user could send) costs only the histories holding it, not every
// user's range. Run against the database, a second time, and with places a stored wallet lacks.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { DumpOptionError } from "../scripts/import/plan/context";
import { formatReport } from "../scripts/import/report-text";
import { emptyTarget } from "../scripts/import/target";
import { importFromText } from "../scripts/import/wordpress";
import { CLEAN, call, ledgerViolations, tableCounts, unique } from "./helpers";
import { IMPORT_AT, importedAdmin, runImport } from "./import-helpers";
import { SITE_OPTIONS, type SiteCredit, siteDump } from "./site-dump";

const [ALICE, BOB, CAROL] = [2, 3, 4];

// Alice's history passes 999.99, the largest balance at 12 places; Bob's holds the dust; Carol's
// amount has one place more than none but fewer than the wallet's two.
const DUST_WALLETS = [
  { id: "ngn", decimals: 2 },
  { id: "pts", decimals: 0 },
];
const DUST_CREDITS: SiteCredit[] = [
  { user: ALICE, wallet: "ngn", amount: "1000000000000" },
  { user: ALICE, wallet: "ngn", amount: "5000" },
  { user: BOB, wallet: "ngn", amount: "10" },
  { user: BOB, wallet: "ngn", amount: "0.000000000001" },
  { user: CAROL, wallet: "ngn", amount: "0.5" },
  { user: BOB, wallet: "pts", amount: "7" },
];
const dust = siteDump(DUST_WALLETS, DUST_CREDITS, 3);
const TWO_PLACES = { ...SITE_OPTIONS, places: new Map([["ngn", 2]]) };
const DUST_SKIP = "an amount needs more than the 2 decimal places --places gives wallet ngn";

const plan = (options: object) =>
  importFromText(dust, { options, target: emptyTarget(), nowMs: IMPORT_AT });

const balance = async (auth: string, userId: number, wallet: string) =>
  (
    await call("GET", "/user-wallet-balance", {
      auth,
      query: { user_id: userId, wallet_id: wallet },
    })
  ).body.data[wallet];

describe("import:wordpress --places", () => {
  it("without it, lets the dust set the wallet's places and refuse the history that passes its range", () => {
    const run = plan(SITE_OPTIONS);
    expect(run.report.wallets.storage).toContainEqual(
      expect.objectContaining({ walletId: "ngn", storageDecimals: 12, chosen: false }),
    );
    expect(run.report.transactions.skipped.total).toBe(2);
    expect(Object.keys(run.report.transactions.skipped.byReason)[0]).toMatch(
      /^its balance or an amount passes 999,999,999,999,999 units of the 12 decimal places/,
    );
  });

  it("stores the places given and refuses only the histories holding an amount with more", async () => {
    const refused = await runImport(TWO_PLACES, dust);
    expect(refused.report.refused).toBe(true);
    expect(refused.report.transactions.skipped.byReason).toEqual({ [DUST_SKIP]: 2 });
    expect(refused.report.wallets.storage).toContainEqual({
      walletId: "ngn",
      decimals: 2,
      storageDecimals: 2,
      placesNeeded: 12,
      present: false,
      chosen: true,
    });
    const text = formatReport(refused.report, { dryRun: true });
    expect(text).toContain("balances from ledger, --places ngn=2");
    expect(text).toContain(
      "ngn: shows 2 decimals, stores 2 (--places); the site's amounts need 12: the histories holding those are not imported",
    );
    expect(text).toContain(`2 × ${DUST_SKIP}`);
    expect(
      (await env.DB.prepare("SELECT count(*) AS n FROM transactions").first<{ n: number }>())!.n,
    ).toBe(0);

    const forced = await runImport({ ...TWO_PLACES, force: true }, dust);
    expect(forced.report.transactions.imported).toBe(4);
    const wallet = await env.DB.prepare(
      "SELECT decimals, extra_decimals FROM wallets WHERE id = 'ngn'",
    ).first();
    expect(wallet).toEqual({ decimals: 2, extra_decimals: 0 });
    const admin = await importedAdmin(1, "siteadmin");
    expect(await balance(admin, ALICE, "ngn")).toBe(1_000_000_005_000);
    expect(await balance(admin, CAROL, "ngn")).toBe(0.5);
    expect(await balance(admin, BOB, "ngn")).toBe(0);
    expect(await balance(admin, BOB, "pts")).toBe(7);
    expect(await ledgerViolations()).toEqual(CLEAN);

    // The wallet takes the API's amounts as one it created would: Bob's first ngn entry.
    const credit = await call("POST", "/credits", {
      auth: admin,
      body: { user_id: BOB, wallet_id: "ngn", amount: "0.01", request_id: unique("after") },
    });
    expect(credit.status, credit.text).toBe(200);
    expect(await balance(admin, BOB, "ngn")).toBe(0.01);
  });

  it("finds nothing more to write in a second run with the same places", async () => {
    const again = await runImport({ ...TWO_PLACES, force: true }, dust);
    expect(again.report.transactions.skipped.byReason).toEqual({ [DUST_SKIP]: 2 });
    expect(again.report.transactions.alreadyPresent).toBe(4);
    expect(again.statements).toEqual([]);
  });

  it("names the places that import what fits when a later run gives none", async () => {
    const again = await runImport(SITE_OPTIONS, dust, { apply: false });
    expect(again.report.conflicts).toContainEqual({
      kind: "wallet",
      id: "ngn",
      problem:
        "wallet ngn stores 2 decimal places in the database; the site's amounts need 12: its entries cannot be imported (--places ngn=2 imports the histories that fit)",
    });
  });

  it("refuses places a stored wallet does not have, before planning a statement", async () => {
    await expect(
      runImport({ ...SITE_OPTIONS, places: new Map([["ngn", 3]]) }, dust),
    ).rejects.toThrow(
      new DumpOptionError(
        "--places ngn=3: wallet ngn stores 2 decimal places in the database, and a wallet's places never change",
      ),
    );
  });

  it("lists the kept half of a transfer whose other half's history is left out", () => {
    const transfer = siteDump(
      [{ id: "ngn", decimals: 2 }],
      [
        { user: BOB, wallet: "ngn", amount: "10" },
        { user: BOB, wallet: "ngn", amount: "0.000000000001" },
        { user: BOB, wallet: "ngn", amount: "5", type: "DEBIT", alt: 103, requestId: "t1" },
        { user: CAROL, wallet: "ngn", amount: "5", alt: 102, requestId: "t1" },
      ],
      3,
    );
    const run = importFromText(transfer, {
      options: { ...TWO_PLACES, force: true },
      target: emptyTarget(),
      nowMs: IMPORT_AT,
    });
    expect(run.report.transactions.halvesApart.examples).toEqual([
      {
        reason: "transfer half imported without its other half, whose history is left out",
        id: 103,
        userId: CAROL,
        otherHalf: 102,
      },
    ]);
    expect(formatReport(run.report)).toContain("Transfer halves imported alone");
  });

  it("lists a site balance with digits past the places given, rounding only PHP's float noise", () => {
    const stored = siteDump(
      [{ id: "ngn", decimals: 2 }],
      [
        { user: ALICE, wallet: "ngn", amount: "3.50" },
        { user: BOB, wallet: "ngn", amount: "0.000000000001" },
        { user: CAROL, wallet: "ngn", amount: "5" },
        { user: 5, wallet: "ngn", amount: "2" },
      ],
      4,
      {},
      {
        [ALICE]: { ngn: "3.505" },
        [CAROL]: { ngn: "5.000000000001" },
        5: { ngn: "2.0000000000000004" },
      },
    );
    const run = importFromText(stored, {
      options: { ...TWO_PLACES, balances: "site", force: true },
      target: emptyTarget(),
      nowMs: IMPORT_AT,
    });
    const notCompared = run.report.balances.ignoredMeta;
    const reason = "stored balance needs more than the 2 decimal places --places gives wallet ngn";
    expect(notCompared.byReason).toEqual({
      [`${reason}: entries kept: {"withdrawable":"3.505"}`]: 1,
      [`${reason}: entries kept: {"withdrawable":"5.000000000001"}`]: 1,
    });
    expect(run.report.balances.compared).toBe(1); // user 5's, equal once the noise is rounded
    expect(run.report.balanceDifferences.list).toEqual([]);
    expect(run.report.adjustments.balance).toBe(0);
  });

  it("warns of more places than the amounts need, and of a --places for a wallet not imported", () => {
    const run = importFromText(
      siteDump(
        [
          { id: "ngn", decimals: 2 },
          { id: "odd", decimals: 99 },
        ],
        [{ user: ALICE, wallet: "ngn", amount: "1" }],
        3,
      ),
      {
        options: {
          ...SITE_OPTIONS,
          places: new Map([
            ["ngn", 15],
            ["odd", 2],
          ]),
        },
        target: emptyTarget(),
        nowMs: IMPORT_AT,
      },
    );
    expect(run.report.warnings).toEqual(
      expect.arrayContaining([
        "--places ngn=15 stores more places than the site's amounts need (2): the wallet holds at most 0.999999999999999",
        expect.stringMatching(/^--places names wallet odd, which is not imported: /),
      ]),
    );
  });

  it("refuses fewer places than the wallet shows, and a wallet the dump does not define", () => {
    expect(() => plan({ ...SITE_OPTIONS, places: new Map([["ngn", 1]]) })).toThrow(
      "--places ngn=1: wallet ngn shows 2 decimals, so it stores at least 2",
    );
    expect(() => plan({ ...SITE_OPTIONS, places: new Map([["usd", 2]]) })).toThrow(
      "--places names wallet usd, which the dump does not define",
    );
  });
});

describe("a transfer half imported alone, reversed, then joined by its other half", () => {
  const [DAVE, ERIN] = [5, 6];
  const BOTH = {
    ...SITE_OPTIONS,
    places: new Map([
      ["ngn", 2],
      ["usd", 2],
    ]),
    force: true,
  };
  // Dave's usd history holds dust, so his half of the transfer to Erin is left out until the site
  // corrects that amount; Erin's half is imported alone.
  const site = (daveDust: string) =>
    siteDump(
      [...DUST_WALLETS, { id: "usd", decimals: 2 }],
      [
        ...DUST_CREDITS,
        // Posts 106-109, trashed: the ids the service gave its own entries above.
        ...Array.from({ length: 4 }, () => ({
          user: ALICE,
          wallet: "ngn",
          amount: "1",
          status: "trash",
        })),
        { user: DAVE, wallet: "usd", amount: "10" },
        { user: DAVE, wallet: "usd", amount: daveDust },
        { user: DAVE, wallet: "usd", amount: "5", type: "DEBIT", alt: 113, requestId: "t2" },
        { user: ERIN, wallet: "usd", amount: "5", alt: 112, requestId: "t2" },
      ],
      5,
    );
  const entryOf = async (userId: number, type: string) =>
    (await env.DB.prepare(
      "SELECT id FROM transactions WHERE user_id = ? AND wallet_id = 'usd' AND txn_type = ? AND reverses_id IS NULL",
    )
      .bind(userId, type)
      .first<{ id: number }>())!.id;
  const reverse = (auth: string, id: number) =>
    call("POST", `/transactions/${id}/reverse`, { auth, body: { request_id: unique("rev") } });

  it("answers the other half's reversal 409 already reversed, whatever the reversed half's owner holds", async () => {
    const admin = await importedAdmin(1, "siteadmin");
    const first = await runImport(BOTH, site("0.000000000001"));
    expect(first.report.transactions.halvesApart.examples).toContainEqual(
      expect.objectContaining({ userId: ERIN, otherHalf: 112 }),
    );
    const erinHalf = await entryOf(ERIN, "CREDIT");
    expect((await reverse(admin, erinHalf)).status).toBe(200);
    expect(await balance(admin, ERIN, "usd")).toBe(0);

    // Bob's ngn dust is still refused (force imports the rest); Dave's history now fits.
    const second = await runImport(BOTH, site("0.01"));
    expect(second.report.transactions.imported).toBe(3);
    const daveHalf = await entryOf(DAVE, "DEBIT");
    const transfer = await env.DB.prepare(
      "SELECT count(DISTINCT transfer_id) AS ids, count(*) AS n FROM transactions WHERE id IN (?, ?)",
    )
      .bind(daveHalf, erinHalf)
      .first();
    expect(transfer, "the two halves are one transfer").toEqual({ ids: 1, n: 2 });

    const already = {
      status_code: 409,
      status: false,
      message: "Transaction already reversed",
      error: { id: `Transaction ${daveHalf} was already reversed` },
    };
    // Undoing Erin's half again would take her below zero, or below what a hold keeps: neither is
    // why it is refused.
    expect((await reverse(admin, daveHalf)).body).toEqual(already);
    const credit = await call("POST", "/credits", {
      auth: admin,
      body: { user_id: ERIN, wallet_id: "usd", amount: "5", request_id: unique("erin") },
    });
    expect(credit.status, credit.text).toBe(200);
    const hold = await call("POST", "/holds", {
      auth: admin,
      body: { user_id: ERIN, wallet_id: "usd", amount: "1", request_id: unique("hold") },
    });
    expect(hold.status, hold.text).toBe(200);
    const entries = async () => {
      const { transactions, money } = await tableCounts();
      return { transactions, money };
    };
    const before = await entries();
    expect((await reverse(admin, daveHalf)).body).toEqual(already);
    const voided = await call("POST", `/holds/${hold.body.data.hold_id}/void`, { auth: admin });
    expect(voided.status, voided.text).toBe(200);
    expect((await reverse(admin, daveHalf)).body).toEqual(already);
    expect(await entries()).toEqual(before);
    expect([await balance(admin, DAVE, "usd"), await balance(admin, ERIN, "usd")]).toEqual([
      5.01, 5,
    ]);
    expect(await ledgerViolations()).toEqual(CLEAN);
  });
});
