// An import that stopped half way (a chunk failed, the connection dropped) is finished by running it
// again: the entries already written are recognised and only the rest is written.
import { describe, expect, it } from "vitest";
import { CLEAN, ledgerViolations, tableCounts } from "./helpers";
import { dump, runImport } from "./import-helpers";

describe("a second run after a partial import", () => {
  it("writes only what is missing and ends where a full import ends", async () => {
    const partial = await runImport({}, undefined, { limit: 15 }); // 5 users, 4 wallets, 6 entries
    expect(partial.statements.length).toBe(22);
    expect((await tableCounts())!.transactions).toBe(6);

    const rest = await runImport();
    expect(rest.report.refused).toBe(false);
    expect(rest.report.users).toMatchObject({ imported: 0, alreadyPresent: 5 });
    expect(rest.report.transactions).toMatchObject({ imported: 7, alreadyPresent: 6 });
    expect(rest.report.adjustments).toEqual({ balance: 0, alreadyPresent: 0 });
    expect(rest.statements).toHaveLength(7);
    expect(await tableCounts()).toMatchObject({
      users: 5,
      wallets: 4,
      transactions: 13,
      balances: 6,
      money: 126950 + 12000 + 5000 + 12345 + 5000 + 1000,
    });
    expect(await ledgerViolations()).toEqual(CLEAN);
    expect((await runImport()).statements).toEqual([]);
  });

  it("takes a later dump of the site: only the new entries are written, a changed e-mail is kept as it was", async () => {
    const later =
      dump.replace("'amaka@example.ng'", "'amaka.new@example.ng'") +
      "\nINSERT INTO `wp_posts` VALUES (40,2,'2024-02-01 11:00:00','2024-02-01 10:00:00','Amount:25','TRANSACTION later','','publish','open','closed','','later','','','2024-02-01 11:00:00','2024-02-01 10:00:00','',0,'https://oldsite.example/?p=40',0,'wallettransaction','',0);" +
      "\nINSERT INTO `wp_postmeta` VALUES (9001,40,'amount','25'),(9002,40,'currency','ngn'),(9003,40,'txn_type','DEBIT'),(9004,40,'request_id','later-1');" +
      "\nINSERT INTO `wp_term_relationships` VALUES (40,2,0);\n";
    const run = await runImport({}, later);
    expect(run.report.refused).toBe(false);
    expect(run.report.warnings).toEqual([
      "user 3: the database has amaka <amaka@example.ng>, the site amaka <amaka.new@example.ng>; kept the database's",
    ]);
    expect(run.report.transactions).toMatchObject({ imported: 1, alreadyPresent: 13 });
    expect(run.statements).toHaveLength(1);
    expect(await tableCounts()).toMatchObject({ transactions: 14 });
    expect(await ledgerViolations()).toEqual(CLEAN);
  });
});
