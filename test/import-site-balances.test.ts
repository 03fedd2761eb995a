// --balances site: the plugin's stored balances win, through one marked adjustment entry per wallet.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { CLEAN, call, type Json, ledgerViolations, signedToken, tableCounts } from "./helpers";
import { dump, IMPORT_AT, runImport, sitePost, trashPost } from "./import-helpers";

// The site's administrator, imported as user 1, signs the requests: its session is written once the
// first import has made the user.
let admin: Promise<string> | undefined;
const adminAuth = () =>
  (admin ??= signedToken({ id: 1, username: "admin", role: "administrator" }).then(
    ({ token }) => `Bearer ${token}`,
  ));

const balances = async (userId: number, wallets: string) =>
  (
    await call("GET", "/user-wallet-balance", {
      auth: await adminAuth(),
      query: { user_id: userId, wallet_id: wallets },
    })
  ).body.data as Json;

describe("--balances site", () => {
  it("after a ledger import, adds one adjustment per differing wallet so balances equal the site's", async () => {
    const ledger = await runImport();
    expect(ledger.report.adjustments).toEqual({ balance: 0, alreadyPresent: 0 });
    expect(await balances(2, "rmpn")).toEqual({ rmpn: 12000 });
    expect(await balances(4, "ngn")).toEqual({ ngn: 50 });

    const site = await runImport({ balances: "site" });
    expect(site.report.refused).toBe(false);
    expect(site.report.adjustments).toEqual({ balance: 2, alreadyPresent: 0 });
    expect(site.report.transactions).toMatchObject({ imported: 0, alreadyPresent: 13 });
    expect(
      site.report.balanceDifferences.list.map((d: Json) => [d.userId, d.walletId, d.action]),
    ).toEqual([
      [2, "rmpn", "debit of 500 as a balance adjustment"],
      [4, "ngn", "credit of 100.00 as a balance adjustment"],
    ]);
    expect(site.statements).toHaveLength(2);

    // The site's figures: 11000 + 500 and 150 + 0; the others agreed already.
    expect(await balances(2, "ngn,rmpn")).toEqual({ ngn: 1269.5, rmpn: 11500 });
    expect(await balances(3, "ngn,btc")).toEqual({ ngn: 50, btc: 0.00012345 });
    expect(await balances(4, "ngn,usd")).toEqual({ ngn: 150, usd: 10 });
    expect(await ledgerViolations()).toEqual(CLEAN);

    const adjustments = await env.DB.prepare(
      "SELECT id, user_id, wallet_id, txn_type, amount_text, request_id, created_at_s, note FROM transactions WHERE request_id LIKE 'wp-import:balance%' ORDER BY id",
    ).all<Json>();
    expect(
      adjustments.results.map((r) => [
        r.id,
        r.user_id,
        r.wallet_id,
        r.txn_type,
        r.amount_text,
        r.request_id,
        r.created_at_s,
      ]),
    ).toEqual([
      [37, 2, "rmpn", "DEBIT", "500", "wp-import:balance-adjustment:rmpn", IMPORT_AT / 1000],
      [38, 4, "ngn", "CREDIT", "100.00", "wp-import:balance-adjustment:ngn", IMPORT_AT / 1000],
    ]);
    expect(adjustments.results[0]!.note).toBe(
      "Balance adjustment added by the WordPress import (--balances site): the site's stored balance was 11500, its transactions add up to 12000.",
    );
    const listed = await call("GET", "/transactions", {
      auth: await adminAuth(),
      query: { user_id: 2, security_code: 0, wallet_id: "rmpn" },
    });
    expect(listed.body.data[0]).toMatchObject({
      ID: 37,
      txn_type: "DEBIT",
      amount: "500",
      amount_formatted_disp: "500 RMPNCOIN",
    });
  });

  it("then runs again without writing anything", async () => {
    const before = await tableCounts();
    const again = await runImport({ balances: "site" });
    expect(again.statements).toEqual([]);
    expect(again.report.conflicts).toEqual([]);
    expect(await tableCounts()).toEqual(before);
  });

  it("refuses a run with --balances ledger after it, naming the adjustments", async () => {
    const before = await tableCounts();
    const ledger = await runImport({ balances: "ledger" });
    expect(ledger.report.refused).toBe(true);
    const hint =
      "; it is the balance adjustment of an earlier run with --balances site, which a run with --balances ledger does not plan: import with --balances site";
    expect(ledger.report.conflicts).toEqual([
      {
        kind: "entries",
        id: "2\trmpn",
        problem: `user 2 wallet rmpn: the database holds 2 entries imported from the site, more than the site's 1${hint}`,
      },
      {
        kind: "entries",
        id: "4\tngn",
        problem: `user 4 wallet ngn: the database holds 4 entries imported from the site, more than the site's 3${hint}`,
      },
    ]);
    expect(ledger.statements).toEqual([]);
    expect(await tableCounts()).toEqual(before);
    // One entry more than the adjustment: not that alone, so the option is not named, and the
    // entries the site no longer has are, as wherever the database holds more than the site.
    const run = await runImport({ balances: "ledger" }, trashPost(dump, 29));
    expect(run.report.conflicts).toContainEqual({
      kind: "entries",
      id: "4\tngn",
      problem:
        "user 4 wallet ngn: the database holds 4 entries imported from the site, more than the site's 2 (trashed or deleted there since?)",
    });
  });

  it("refuses a later dump whose new post has an adjustment's id, naming the adjustment", async () => {
    // WordPress gave its next post the id the adjustment took here: 37.
    const later = `${dump}\n${sitePost({ id: 37, author: 3, amount: "7", currency: "ngn", type: "CREDIT", requestId: "later-1" })}`;
    const before = await tableCounts();
    const run = await runImport({ balances: "site" }, later);
    expect(run.report.refused).toBe(true);
    expect(run.report.conflicts).toEqual([
      {
        kind: "entries",
        id: "3\tngn",
        problem:
          "user 3 wallet ngn: entry id 37 is taken by the balance adjustment of user 2 in rmpn an earlier import wrote (--balances site); import into a fresh database",
      },
    ]);
    expect(await tableCounts()).toEqual(before);
    // The same post in the adjustment's own history, matching it: the adjustment, not the site's.
    const same = `${dump}\n${sitePost({ id: 37, author: 2, amount: "500", currency: "rmpn", type: "DEBIT", requestId: "later-1" })}`;
    for (const balances of ["site", "ledger"] as const)
      expect((await runImport({ balances }, same)).report.conflicts).toContainEqual({
        kind: "entries",
        id: "2\trmpn",
        problem:
          "user 2 wallet rmpn: entry id 37 is taken by the balance adjustment of user 2 in rmpn an earlier import wrote (--balances site); import into a fresh database",
      });
    expect(await tableCounts()).toEqual(before);
  });

  it("with --force writes nothing of a history one of whose ids an adjustment holds", async () => {
    // Amaka's new usd history: post 16 (a free id) and post 37 (the adjustment's).
    const later = [
      `${dump}\n`,
      sitePost({
        id: 16,
        author: 3,
        amount: "1",
        currency: "usd",
        type: "CREDIT",
        requestId: "early-1",
      }),
      sitePost({
        id: 37,
        author: 3,
        amount: "2",
        currency: "usd",
        type: "CREDIT",
        requestId: "later-2",
      }),
    ].join("");
    const before = await tableCounts();
    const run = await runImport({ balances: "site", force: true }, later);
    expect(run.report.conflicts).toContainEqual({
      kind: "entries",
      id: "3\tusd",
      problem:
        "user 3 wallet usd: entry id 37 is taken by the balance adjustment of user 2 in rmpn an earlier import wrote (--balances site); import into a fresh database",
    });
    expect(run.statements).toEqual([]);
    expect(await tableCounts()).toEqual(before);
  });

  it("refuses an amount changed on the site that only the adjustment would show", async () => {
    // Post 22 (Ada's rmpn credit) 12000 → 12500: her stored 11500 now needs -1000, not -500.
    const changed = dump.replace("(60,22,'amount','12000')", "(60,22,'amount','12500')");
    const run = await runImport({ balances: "site" }, changed);
    expect(run.report.conflicts).toContainEqual({
      kind: "entries",
      id: "2\trmpn",
      problem:
        "user 2 wallet rmpn: the balance adjustment an earlier import wrote there is -500, the site's entries now need -1000 (an amount or a stored balance changed on the site since)",
    });
  });

  it("names the figures of a wallet with decimals in its units, and a stored balance changed", async () => {
    // oldtimer's stored ngn 150 → 175.25 since the adjustment of 100.00 was written: no amount changed.
    const changed = dump.replace(
      "(33,4,'user_withdrawable_bal_ngn','150')",
      "(33,4,'user_withdrawable_bal_ngn','175.25')",
    );
    const run = await runImport({ balances: "site" }, changed);
    expect(run.report.conflicts).toContainEqual({
      kind: "entries",
      id: "4\tngn",
      problem:
        "user 4 wallet ngn: the balance adjustment an earlier import wrote there is 100.00, the site's entries now need 125.25 (an amount or a stored balance changed on the site since)",
    });
  });

  it("refuses an entry the site trashed that only the adjustment's place would show", async () => {
    // Post 21 (johndoe's ngn debit of 200.50) trashed: its stored 1269.50 now needs an adjustment
    // where the database holds that entry.
    const run = await runImport({ balances: "site" }, trashPost(dump, 21));
    expect(run.report.conflicts).toContainEqual({
      kind: "entries",
      id: "2\tngn",
      problem:
        "user 2 wallet ngn: the database holds an entry where this plan's balance adjustment goes (one trashed or deleted on the site since?)",
    });
  });
});
