// The importer's arithmetic on a site's figures: a stored balance rounded at the wallet's places,
// and no `--balances site` adjustment the ledger could not hold.
import { describe, expect, it } from "vitest";
import { siteDecimalToMinor } from "../scripts/import/site-amounts";
import { importFromText } from "../scripts/import/wordpress";
import { SITE_OPTIONS, siteDump } from "./site-dump";

describe("a site's stored balance read at the wallet's places", () => {
  it("rounds a 5 in the first cut digit away from zero", () => {
    expect(siteDecimalToMinor("0.125", 2, { round: true })).toEqual({ minor: 13 });
    expect(siteDecimalToMinor("-0.125", 2, { round: true, allowNegative: true })).toEqual({
      minor: -13,
    });
  });
});

describe("--balances site", () => {
  it("adds no adjustment the ledger could not hold, though the site's balance itself fits", () => {
    // A credit of 1, then a debit of 6,000,000,000,000: the entries end near -6e14 minor units. The
    // site stored 5,000,000,000,000: within the limit, but 1.1e15 away from the entries.
    const post = (id: number, title: string) =>
      `(${id},1,'2024-01-01 10:00:00','2024-01-01 10:00:00','','${title}','','publish','open','closed','','p${id}','','','2024-01-01 10:00:00','2024-01-01 10:00:00','',0,'g${id}',0,'wallettransaction','',0)`;
    const site = [
      "INSERT INTO `wp_users` VALUES (1,'solo','c4052b5b13fea2645f6e33a22563e51e','solo','solo@example.com','','2020-01-01 00:00:00','',0,'Solo');",
      "INSERT INTO `wp_usermeta` VALUES (1,1,'user_withdrawable_bal_ngn','5000000000000');",
      `INSERT INTO \`wp_posts\` VALUES ${post(1, "in")},${post(2, "out")},${post(50, "Naira")};`,
      "INSERT INTO `wp_postmeta` VALUES (1,50,'wallet_wallet_id','ngn'),(2,1,'amount','1'),(3,1,'currency','ngn'),(4,2,'amount','6000000000000'),(5,2,'currency','ngn');",
      "INSERT INTO `wp_term_relationships` VALUES (1,1,0),(2,2,0),(50,4,0);",
      "INSERT INTO `wp_term_taxonomy` VALUES (1,1,'wallettransaction_type','',0,0),(2,2,'wallettransaction_type','',0,0),(4,4,'wallettransaction_type','',0,0);",
      "INSERT INTO `wp_terms` VALUES (1,'CREDIT','credit',0),(2,'DEBIT','debit',0),(4,'WALLETS','wallets',0);",
    ].join("\n");
    const { report, statements } = importFromText(site, { options: { balances: "site" } });
    expect(report.balanceDifferences.total).toBe(1);
    expect(report.balanceDifferences.list[0]?.action).toMatch(/^kept the entries: .* passes /);
    expect(statements.filter((sql) => sql.includes("balance-adjustment"))).toEqual([]);
  });
});

describe("a stored balance under a wallet id in capitals", () => {
  // Plugin versions that built the key from the wallet id as a client sent it wrote
  // user_withdrawable_bal_NGN; its balance read (RimplenetWalletTrait get_withdrawable_wallet_bal)
  // asks get_user_meta for 'user_withdrawable_bal_' . strtolower($wallet_id), a key PHP matches
  // exactly, so the site showed the lower-case key's figure, whatever the other held.
  const site = siteDump(
    [{ id: "ngn", decimals: 2 }],
    [{ user: 2, wallet: "ngn", amount: "115.005" }],
    1,
    {},
    { 2: { NGN: "1", ngn: "115.005" } },
  );

  it("is not the site's balance: the lower-case key's figure is", () => {
    const { report, statements } = importFromText(site, {
      options: { ...SITE_OPTIONS, balances: "site" },
    });
    expect(report.balances.compared).toBe(1);
    expect(report.balanceDifferences.total).toBe(0);
    expect(statements.filter((sql) => sql.includes("balance-adjustment"))).toEqual([]);
    expect(report.balances.ignoredMeta.examples).toEqual([
      {
        reason: "stored under a key the plugin never read, its wallet id not in lower case",
        userId: 2,
        walletId: "ngn",
        key: "user_withdrawable_bal_NGN",
      },
    ]);
  });

  it("alone, is no stored balance: the plugin showed 0", () => {
    const alone = site.replace(/,\(\d+,2,'user_withdrawable_bal_ngn','115\.005'\)/, "");
    expect(alone).not.toContain("'user_withdrawable_bal_ngn'");
    const { report } = importFromText(alone, { options: SITE_OPTIONS });
    expect(report.balanceDifferences.list.map((d) => [d.site, d.transactions])).toEqual([
      ["0.00", "115.005"],
    ]);
  });
});

describe("amounts at the edges of what a wallet holds", () => {
  // The largest amount a 2-decimal wallet holds, and an amount of the most places a wallet stores:
  // both are records the plugin accepted, carried over as they are.
  const site = siteDump(
    [
      { id: "ngn", decimals: 2 },
      { id: "dust", decimals: 2 },
    ],
    [
      { user: 2, wallet: "ngn", amount: "9999999999999.99" },
      { user: 3, wallet: "dust", amount: "0.000000000000001" },
    ],
    2,
    {},
    { 2: { ngn: "9999999999999.99" }, 3: { dust: "0.000000000000001" } },
  );

  it("imports each, the balances the site's", () => {
    const { report } = importFromText(site, { options: SITE_OPTIONS });
    expect(report.transactions.skipped.total).toBe(0);
    expect(report.transactions).toMatchObject({ imported: 2, credits: 2 });
    expect(report.balanceDifferences.total).toBe(0);
    expect(report.wallets.storage.map((w) => [w.walletId, w.storageDecimals])).toEqual([
      ["ngn", 2],
      ["dust", 15],
    ]);
  });
});

describe("a history whose balance passes the range below zero", () => {
  // Two debits of 6,000,000,000,000 each fit a 2-decimal wallet; the balance they end at does not.
  const site = siteDump(
    [{ id: "ngn", decimals: 2 }],
    [
      { user: 2, wallet: "ngn", amount: "6000000000000", type: "DEBIT" },
      { user: 2, wallet: "ngn", amount: "6000000000000", type: "DEBIT" },
    ],
    1,
  );

  it("is refused, as one passing it above zero", () => {
    const { report } = importFromText(site, { options: SITE_OPTIONS });
    expect(report.refused).toBe(true);
    expect(report.transactions.imported).toBe(0);
    expect(report.transactions.skipped.byReason).toEqual({
      "its balance or an amount passes 999,999,999,999,999 units of the 2 decimal places wallet ngn stores": 2,
    });
  });
});

describe("a stored balance in two rows of its key", () => {
  // get_user_meta($user_id, $key, true) answers the first row: that is the balance the site showed.
  const site = `${siteDump(
    [{ id: "ngn", decimals: 2 }],
    [{ user: 2, wallet: "ngn", amount: "115" }],
    1,
    {},
    { 2: { ngn: "115" } },
  )}
INSERT INTO \`wp_usermeta\` VALUES (99,2,'user_withdrawable_bal_ngn','7');
`;

  it("is the first row's figure", () => {
    const { report } = importFromText(site, { options: { ...SITE_OPTIONS, balances: "site" } });
    expect(report.balances.compared).toBe(1);
    expect(report.balanceDifferences.total).toBe(0);
  });
});
