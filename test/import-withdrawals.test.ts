// Withdrawals as Rimplenet 1.1.31 left them: withdraw_user_wallet_bal (includes/class-withdrawals.php)
// debits the stored balance and writes a published DEBIT, then sets it `pending` with the WITHDRAWAL
// term; an administrator approves it (published) or rejects and refunds it (it stays pending, and a
// CREDIT `wdr_refund_<id>` of its own pays it back), or deletes it with no refund (marked approved,
// then trashed). Every such post is in the stored balance, and all but the trashed in the plugin's
// transaction lists (WP_Query post_status 'any'); each is imported as the entry it is, and the ones
// still awaiting approval are listed for the operator to settle.
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
// an administrator later set to draft in wp-admin, which moves no balance either; member3 then asks
// for 30, which the administrator deletes with no refund (post 106).
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
  {
    user: 3,
    wallet: "ngn",
    amount: "30",
    type: "DEBIT",
    requestId: "wdr-4",
    status: "trash",
    terms: WITHDRAWAL,
    // What the plugin's Delete With No Refund and wp_trash_post left.
    meta: [
      ["approval_action", "approved"],
      ["approval_user", "1"],
      ["_wp_trash_meta_status", "pending"],
      ["_wp_trash_meta_time", "1672570800"],
    ],
  },
];
// What update_user_meta left: 1000 - 400 - 250 + 250 - 100, and member3's 80 - 30.
const STORED = { 2: { ngn: "500" }, 3: { ngn: "50" } };
const site = (posts = POSTS) => siteDump(WALLETS, posts, 2, {}, STORED);

const DELETED =
  "withdrawal deleted with no refund on the site (trash, marked approved): its amount stays debited, as in the site's stored balance; the plugin's lists hid it";

const TRASHED =
  "transaction post trashed on the site with no decision of the plugin's on it: left out, as the plugin's lists left it out; trashing takes no amount back, so the site's stored balance still counts it (its balance difference names it; --balances site follows the site)";

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
    expect(r.transactions).toMatchObject({ live: 7, imported: 7, credits: 3, debits: 4 });
    expect(r.ignored.total).toBe(0);
    expect(r.balanceDifferences.total).toBe(0);
    expect(r.transactions.notPublished.byReason).toEqual({
      "withdrawal awaiting approval (pending)": 1,
      "withdrawal rejected and refunded on the site (pending; its refund is an entry of its own)": 1,
      "CREDIT with status draft": 1,
      [DELETED]: 1,
    });
    expect(r.transactions.fieldsReadingDifferently.post_status).toBe(4);
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
    expect([await balance(2), await balance(3)]).toEqual([500, 50]);
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
    // The withdrawal deleted with no refund is listed here, where the plugin's lists hid it: the
    // history explains the balance.
    const member3 = await call("GET", "/transactions", {
      auth,
      query: { user_id: 3, security_code: 0, order: "asc" },
    });
    expect(member3.body.data.map((t: Json) => [t.ID, t.txn_type, t.amount])).toEqual([
      [105, "CREDIT", "80"],
      [106, "DEBIT", "30"],
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
    expect(again.report.transactions).toMatchObject({ imported: 0, alreadyPresent: 7 });
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
    expect(refunded.report.transactions).toMatchObject({ imported: 1, alreadyPresent: 7 });
    expect(refunded.report.awaitingWithdrawals.total).toBe(0);
    // Delete With No Refund marks it approved and trashes it (withdrawal-request-txns.php:97-107):
    // its debit stands, the entry here is the one the site has, and nothing changes.
    const deleted = await runImport(
      SITE_OPTIONS,
      decided([["approval_action", "approved"]], "trash"),
      { apply: false },
    );
    expect([deleted.report.conflicts, deleted.statements]).toEqual([[], []]);
    expect(deleted.report.transactions.notPublished.byReason[DELETED]).toBe(2);
    expect(deleted.report.awaitingWithdrawals.total).toBe(0);
    // Trashed in wp-admin with no decision on it: left out, so its entry here is one the site no
    // longer has, as for any post trashed since.
    const trashed = await runImport(SITE_OPTIONS, decided([], "trash"), { apply: false });
    expect(trashed.report.refused).toBe(true);
    expect(trashed.report.conflicts.map((c: Json) => c.problem)).toEqual([
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

  it("takes a refunded withdrawal trashed since as its debit, and leaves out one trashed undecided", async () => {
    // Trashed in wp-admin, whose trash takes no amount back: the refunded one (102) beside its
    // refund, and the one awaiting approval (101), on which the site recorded no decision.
    const trashed = POSTS.map((p, i) => (i === 1 || i === 2 ? { ...p, status: "trash" } : p));
    const run = importFromText(site(trashed), {
      options: SITE_OPTIONS,
      target: emptyTarget(),
      nowMs: IMPORT_AT,
    });
    const r = run.report;
    expect(r.refused).toBe(false);
    expect(r.transactions.notPublished.byReason).toMatchObject({
      "withdrawal rejected and refunded, then trashed on the site (its refund is an entry of its own; the plugin's lists hid it)": 1,
    });
    expect(r.ignored.byReason).toEqual({ [TRASHED]: 1 });
    expect(r.ignored.examples).toEqual([
      { reason: TRASHED, id: 101, userId: 2, walletId: "ngn", txnType: "DEBIT", amount: "400" },
    ]);
    expect(r.awaitingWithdrawals.total).toBe(0);
    // Its amount is the whole difference, and the difference names it.
    expect(
      r.balanceDifferences.list.map((d: Json) => [d.userId, d.site, d.transactions, d.trashed]),
    ).toEqual([[2, "500.00", "900.00", { posts: 1, ids: [101] }]]);
    expect(formatReport(r)).toContain(
      "    user 2 (member2) ngn: site 500.00, transactions 900.00, difference -400.00 → kept the entries: balance 900.00; the site trashed post 101 there, whose amount its stored balance still counts",
    );
  });
});

describe("posts the approval page never decided", () => {
  it("leaves out a trashed post marked approved that is no withdrawal, and an auto-draft", () => {
    // Only a withdrawal (a DEBIT with the WITHDRAWAL term) is one the approval page decided: a
    // trashed debit or credit marked approved without it is an administrator's trash, and an
    // auto-draft is no post the plugin's lists showed.
    const posts: SiteCredit[] = [
      { user: 2, wallet: "ngn", amount: "1000", requestId: "fund-1" },
      {
        user: 2,
        wallet: "ngn",
        amount: "100",
        type: "DEBIT",
        requestId: "debit-1",
        status: "trash",
        meta: [["approval_action", "approved"]],
      },
      {
        user: 2,
        wallet: "ngn",
        amount: "40",
        requestId: "fund-2",
        status: "trash",
        terms: WITHDRAWAL,
        meta: [["approval_action", "approved"]],
      },
      { user: 2, wallet: "ngn", amount: "50", requestId: "fund-3", status: "auto-draft" },
    ];
    const r = importFromText(siteDump(WALLETS, posts, 2, {}, { 2: { ngn: "900" } }), {
      options: SITE_OPTIONS,
      target: emptyTarget(),
      nowMs: IMPORT_AT,
    }).report;
    expect(r.transactions).toMatchObject({ live: 1, imported: 1, credits: 1, debits: 0 });
    expect(r.ignored.byReason).toEqual({
      [TRASHED]: 2,
      "transaction post with status auto-draft": 1,
    });
    expect(r.ignored.examples.map((e: Json) => e.id)).toEqual([101, 102, 103]);
    expect(r.balanceDifferences.list.map((d: Json) => [d.site, d.transactions, d.trashed])).toEqual(
      [["900.00", "1000.00", { posts: 2, ids: [101, 102] }]],
    );
  });
});
