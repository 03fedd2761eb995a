// Withdrawals as Rimplenet 1.1.31 left them: withdraw_user_wallet_bal (includes/class-withdrawals.php)
// debits the stored balance and writes a published DEBIT, then sets it `pending` with the WITHDRAWAL
// term; an administrator approves it (published) or rejects and refunds it (it stays pending, and a
// CREDIT `wdr_refund_<id>` of its own pays it back). Every such post is in the stored balance and in
// the plugin's transaction lists (WP_Query post_status 'any'), so each is imported as the entry it
// is, and the ones still awaiting approval are listed for the operator to settle.
import { describe, expect, it } from "vitest";
import { formatReport } from "../scripts/import/report-text";
import { emptyTarget } from "../scripts/import/target";
import { importFromText } from "../scripts/import/wordpress";
import { compatCall, GUARDED } from "./compat-helpers";
import { CLEAN, call, type Json, ledgerViolations, tableCounts } from "./helpers";
import { IMPORT_AT, importedAdmin, runImport } from "./import-helpers";
import { SITE_OPTIONS, type SiteCredit, siteDump } from "./site-dump";

const WALLETS = [{ id: "ngn", decimals: 2 }];
const WITHDRAWAL = ["WITHDRAWAL"];
// Posts 100…: member2 funded with 1,000, then asks for three withdrawals: 400 still awaiting
// approval, 250 rejected and refunded (post 103 the refund), 100 approved. member3's credit is one
// an administrator later set to draft in wp-admin, which moves no balance either.
const POSTS: SiteCredit[] = [
  { user: 2, wallet: "ngn", amount: "1000", requestId: "fund-1" },
  {
    user: 2,
    wallet: "ngn",
    amount: "400",
    type: "DEBIT",
    requestId: "wdr-1",
    status: "pending",
    terms: WITHDRAWAL,
    meta: [
      ["note", "Withdrawal Transaction"],
      ["withdrawal_destination", "First Bank - 0123456789 ~ Member Two"],
    ],
  },
  {
    user: 2,
    wallet: "ngn",
    amount: "250",
    type: "DEBIT",
    requestId: "wdr-2",
    status: "pending",
    terms: WITHDRAWAL,
    meta: [
      ["note", "Withdrawal Transaction"],
      ["txn_status", "rejected_and_refunded"],
      ["refund_time", "1672567200"],
      ["funds_refund_id", "103"],
      ["approval_action", "rejected_and_refunded"],
    ],
  },
  {
    user: 2,
    wallet: "ngn",
    amount: "250",
    requestId: "wdr_refund_102",
    meta: [
      ["note", "Reversal of Withdrawal "],
      ["funds_wdr_refunded_id", "102"],
    ],
  },
  {
    user: 2,
    wallet: "ngn",
    amount: "100",
    type: "DEBIT",
    requestId: "wdr-3",
    terms: WITHDRAWAL,
    meta: [
      ["approval_action", "approved"],
      ["approval_user", "1"],
    ],
  },
  { user: 3, wallet: "ngn", amount: "80", requestId: "fund-2", status: "draft" },
];
// What update_user_meta left: 1000 - 400 - 250 + 250 - 100, and member3's 80.
const STORED = { 2: { ngn: "500" }, 3: { ngn: "80" } };
const site = (posts = POSTS) => siteDump(WALLETS, posts, 2, {}, STORED);

const balance = async (userId: number) => {
  const res = await call("GET", "/user-wallet-balance", {
    auth: await importedAdmin(1, "siteadmin"),
    query: { user_id: userId, wallet_id: "ngn" },
  });
  expect(res.status, res.text).toBe(200);
  return res.body.data.ngn;
};

describe("importing a site with withdrawals", () => {
  it("imports every post the stored balance counts, and lists the withdrawals awaiting approval", async () => {
    const before = await tableCounts();
    const run = await runImport(SITE_OPTIONS, site());
    const r = run.report;
    expect(r.refused).toBe(false);
    expect(r.transactions).toMatchObject({ live: 6, imported: 6, credits: 3, debits: 3 });
    expect(r.ignored.total).toBe(0);
    expect(r.balanceDifferences.total).toBe(0);
    expect(r.transactions.notPublished.byReason).toEqual({
      "withdrawal awaiting approval (pending)": 1,
      "withdrawal rejected and refunded on the site (pending; its refund is an entry of its own)": 1,
      "CREDIT with status draft": 1,
    });
    expect(r.transactions.fieldsReadingDifferently.post_status).toBe(3);
    expect(r.awaitingWithdrawals).toEqual({
      total: 1,
      list: [
        {
          id: 101,
          userId: 2,
          username: "member2",
          walletId: "ngn",
          amount: "400",
          requestedAt: "2023-01-01 09:00:00",
        },
      ],
    });
    const text = formatReport(r);
    expect(text).toContain(
      "  Withdrawals awaiting approval on the site (1): each is imported as the DEBIT the site made when it was asked for (its stored balance counts it). Pay each out as the site would have on approval; to decline one, reverse it: POST /transactions/<id>/reverse with request_id wdr_refund_<id> credits it back, as the plugin's refund did (docs/migrating.md)",
    );
    expect(text).toContain(
      "    post 101 of user 2 (member2): ngn 400, asked for 2023-01-01 09:00:00 UTC",
    );
    expect(await tableCounts()).not.toEqual(before);
    expect(await ledgerViolations()).toEqual(CLEAN);
    expect([await balance(2), await balance(3)]).toEqual([500, 80]);
  });

  it("lists them as the plugin's transaction lists did, pending ones included", async () => {
    const auth = await importedAdmin(1, "siteadmin");
    const res = await call("GET", "/transactions", {
      auth,
      query: { user_id: 2, security_code: 0, order: "asc" },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.map((t: Json) => [t.ID, t.txn_type, t.amount, t.post_status])).toEqual([
      [100, "CREDIT", "1000", "publish"],
      [101, "DEBIT", "400", "publish"],
      [102, "DEBIT", "250", "publish"],
      [103, "CREDIT", "250", "publish"],
      [104, "DEBIT", "100", "publish"],
    ]);
    // The plugin's meta search (fetchTransactions, post_status 'any') found the pending post.
    const found = await compatCall(
      "GET",
      "/wp-json/rimplenet/v1/transactions?meta_key=request_id&meta_value=wdr-1",
      { vars: GUARDED, headers: { Authorization: auth } },
    );
    expect(found.status, found.text).toBe(200);
    expect(found.body.data.map((t: Json) => [t.ID, t.transaction_type, t.amount])).toEqual([
      [101, "DEBIT", 400],
    ]);
  });

  it("runs a second time without writing anything, and lists the same withdrawal", async () => {
    const before = await tableCounts();
    const again = await runImport(SITE_OPTIONS, site());
    expect(again.report.refused).toBe(false);
    expect(again.statements).toEqual([]);
    expect(again.report.transactions).toMatchObject({ imported: 0, alreadyPresent: 6 });
    expect(again.report.awaitingWithdrawals.total).toBe(1);
    expect(await tableCounts()).toEqual(before);
  });

  it("takes the site's later decision: an approval changes nothing, a refund adds its CREDIT", async () => {
    const decided = (meta: [string, string][], status: string, more: SiteCredit[] = []) =>
      site([
        ...POSTS.map((p, i) =>
          i === 1 ? { ...p, status, meta: [...(p.meta ?? []), ...meta] } : p,
        ),
        ...more,
      ]);
    // wp_publish_post sets the status alone (includes/layouts/withdrawal-request-txns.php:66).
    const approved = await runImport(
      SITE_OPTIONS,
      decided([["approval_action", "approved"]], "publish"),
      { apply: false },
    );
    expect([approved.report.conflicts, approved.statements]).toEqual([[], []]);
    expect(approved.report.awaitingWithdrawals.total).toBe(0);
    // cancel_withdrawal_and_refund (includes/class-withdrawals.php:207-240): a CREDIT of its own.
    const refunded = await runImport(
      SITE_OPTIONS,
      decided([["txn_status", "rejected_and_refunded"]], "pending", [
        { user: 2, wallet: "ngn", amount: "400", requestId: "wdr_refund_101" },
      ]),
      { apply: false },
    );
    expect(refunded.report.conflicts).toEqual([]);
    expect(refunded.report.transactions).toMatchObject({ imported: 1, alreadyPresent: 6 });
    expect(refunded.report.awaitingWithdrawals.total).toBe(0);
    // Delete With No Refund trashes it (withdrawal-request-txns.php:97-107): its entry is here, the
    // site has none now, as for any post trashed since.
    const deleted = await runImport(SITE_OPTIONS, decided([], "trash"), { apply: false });
    expect(deleted.report.refused).toBe(true);
    expect(deleted.report.conflicts.map((c: Json) => c.problem)).toEqual([
      "user 2 wallet ngn: the database holds 5 entries imported from the site, more than the site's 4 (one trashed or deleted there since?)",
    ]);
  });

  it("declines one as the report says: the reversal credits it back", async () => {
    const res = await call("POST", "/transactions/101/reverse", {
      auth: await importedAdmin(1, "siteadmin"),
      body: { request_id: "wdr_refund_101", note: "Reversal of Withdrawal" },
    });
    expect(res.status, res.text).toBe(200);
    expect(await balance(2)).toBe(900);
    expect(await ledgerViolations()).toEqual(CLEAN);
  });

  it("leaves a withdrawal deleted with no refund out, saying why the balance differs", async () => {
    // The administrator's "Delete With No Refund" (includes/layouts/withdrawal-request-txns.php)
    // trashes the pending post: the stored balance keeps it debited, the plugin's lists hide it.
    const deleted = POSTS.map((p, i) =>
      i === 1
        ? { ...p, status: "trash", meta: [["approval_action", "approved"]] as [string, string][] }
        : p,
    );
    const run = importFromText(site(deleted), {
      options: SITE_OPTIONS,
      target: emptyTarget(),
      nowMs: IMPORT_AT,
    });
    expect(run.report.ignored.byReason).toEqual({
      "withdrawal trashed on the site (as its Delete With No Refund does): the site's stored balance keeps it debited, and the balance differs by its amount (--balances site follows the site)": 1,
    });
    expect(run.report.awaitingWithdrawals.total).toBe(0);
    expect(
      run.report.balanceDifferences.list.map((d: Json) => [d.userId, d.site, d.transactions]),
    ).toEqual([[2, "500.00", "900.00"]]);
  });
});
