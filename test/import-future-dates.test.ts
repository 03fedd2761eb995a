// A site post dated after the import's run (an edited date, a site clock gone wrong) puts its wallet
// chain's timeline point there, and every later entry of the chain joins it there, the service's
// own too (docs/ledger.md, balances at a point in time): statements and balances at a time leave
// them out until that date. The import keeps the site's dates, and warns of each such chain before
// writing; an entry once written keeps its date, whatever a later dump says.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { formatReport } from "../scripts/import/report-text";
import { CLEAN, call, ledgerViolations } from "./helpers";
import { IMPORT_AT, importedAdmin, runImport } from "./import-helpers";
import { SITE_OPTIONS, type SiteCredit, siteDump } from "./site-dump";

const WALLETS = [
  { id: "ngn", decimals: 2 },
  { id: "usd", decimals: 2 },
];
const FUTURE = "2096-01-01 09:00:00";
/** Posts 100..: member2's ngn and usd credits, one ngn credit dated 2096; member3's, all dated right. */
const credits = (futureDate: string): SiteCredit[] => [
  { user: 2, wallet: "ngn", amount: "5" },
  { user: 2, wallet: "ngn", amount: "3", date: futureDate },
  { user: 2, wallet: "ngn", amount: "1", type: "DEBIT" },
  { user: 2, wallet: "usd", amount: "4" },
  { user: 3, wallet: "ngn", amount: "2" },
];
const dated = siteDump(WALLETS, credits(FUTURE));
/** The same site once post 101's date was corrected. */
const corrected = siteDump(WALLETS, credits("2023-01-02 09:00:00"));

const CONSEQUENCE =
  "until then, the statements and balances at a time of this user's wallet leave out its entries from the first of those on, the service's later ones included (docs/migrating.md, entries dated after the import)";
const WARNING = `user 2 (member2) wallet ngn: 1 entry of the dump (post 101) dated after this import's run, the latest 2096-01-01 09:00:00 UTC: ${CONSEQUENCE}`;
/** The run's warnings of entries dated after it (the site's users also have unknown hashes). */
const datedAfter = (run: { report: { warnings: string[] } }) =>
  run.report.warnings.filter((w) => w.includes("dated after this import's run"));

/** member2's ngn statement so far (from the start to now), as GET /statements answers it. */
async function statementSoFar() {
  const res = await call("GET", "/statements", {
    auth: await importedAdmin(1, "siteadmin"),
    query: { user_id: 2, wallet_id: "ngn" },
  });
  expect(res.status, res.text).toBe(200);
  const { count, closing_balance } = res.body.data;
  return { count, closing: closing_balance };
}

const balance = async () =>
  (
    await env.DB.prepare(
      "SELECT balance_minor FROM balances WHERE user_id = 2 AND wallet_id = 'ngn'",
    ).first<{ balance_minor: number }>()
  )?.balance_minor;

describe("importing an entry dated after the import's run", () => {
  it("warns of each wallet chain holding one, before anything is written", async () => {
    const run = await runImport(SITE_OPTIONS, dated, { apply: false });
    expect(run.report.refused).toBe(false);
    expect(datedAfter(run)).toStrictEqual([WARNING]);
    expect(formatReport(run.report, { dryRun: true })).toContain(`  Warning: ${WARNING}`);
    // Dated at the run itself is not after it.
    const atRun = new Date(IMPORT_AT).toISOString().slice(0, 19).replace("T", " ");
    const now = await runImport(SITE_OPTIONS, siteDump(WALLETS, credits(atRun)), { apply: false });
    expect(datedAfter(now)).toStrictEqual([]);
  });

  it("lists its warnings first, so that no number of others leaves them out", async () => {
    // Every user of this site has a password hash of an unknown kind: 250 warnings before these.
    const crowded = siteDump(WALLETS, credits(FUTURE), 250);
    const run = await runImport(SITE_OPTIONS, crowded, { apply: false });
    expect(run.report.warnings[0]).toBe(WARNING);
    expect(run.report.warnings).toHaveLength(200);
    // The other 51 (and any the site adds) are counted, not listed.
    expect(run.report.warningsNotListed).toBeGreaterThanOrEqual(51);
    expect(formatReport(run.report, { dryRun: true })).toContain(`  Warning: ${WARNING}`);
  });

  it("counts a chain's entries dated after the run and names the latest", async () => {
    const later = siteDump(WALLETS, [
      { user: 3, wallet: "usd", amount: "1", date: "2095-06-01 00:00:00" },
      { user: 3, wallet: "usd", amount: "1", date: "2090-01-01 00:00:00" },
      { user: 3, wallet: "usd", amount: "1" },
    ]);
    const run = await runImport(SITE_OPTIONS, later, { apply: false });
    expect(datedAfter(run)).toStrictEqual([
      `user 3 (member3) wallet usd: 2 entries of the dump (the latest, post 100) dated after this import's run, the latest 2095-06-01 00:00:00 UTC: ${CONSEQUENCE}`,
    ]);
  });

  it("imports it as dated: the balance is whole, statements leave out the chain from it on", async () => {
    const run = await runImport(SITE_OPTIONS, dated);
    expect(datedAfter(run)).toStrictEqual([WARNING]);
    expect(await balance()).toBe(700);
    // The service's own credit after it joins the chain at 2096 as well.
    const credited = await call("POST", "/credits", {
      auth: await importedAdmin(1, "siteadmin"),
      body: { user_id: 2, wallet_id: "ngn", amount: "1", request_id: "after-import" },
    });
    expect(credited.status, credited.text).toBe(200);
    expect(await balance()).toBe(800);
    expect(await statementSoFar()).toStrictEqual({ count: 1, closing: 5 });
    const atNow = await call("GET", "/user-wallet-balance", {
      auth: await importedAdmin(1, "siteadmin"),
      query: { user_id: 2, wallet_id: "ngn", at: new Date(Date.now() - 2000).toISOString() },
    });
    expect(atNow.status, atNow.text).toBe(200);
    expect(atNow.body.data.ngn, atNow.text).toBe(5);
    expect(await ledgerViolations()).toEqual(CLEAN);
  });

  it("a later dump with the date corrected changes nothing written, and still warns", async () => {
    const run = await runImport(SITE_OPTIONS, corrected);
    expect(run.report.refused).toBe(false);
    expect(run.report.transactions).toMatchObject({ imported: 0, alreadyPresent: 5 });
    expect(run.statements).toStrictEqual([]);
    expect(run.report.warnings).toStrictEqual([
      `user 2 (member2) wallet ngn: entries an earlier run imported dated after this import's run, the latest 2096-01-01 09:00:00 UTC: ${CONSEQUENCE}`,
    ]);
    const post101 = await env.DB.prepare(
      "SELECT local_date FROM transactions WHERE id = 101",
    ).first();
    expect(post101).toEqual({ local_date: FUTURE });
    expect(await statementSoFar()).toStrictEqual({ count: 1, closing: 5 });
  });
});
