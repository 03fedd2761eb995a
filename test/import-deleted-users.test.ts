// A user id deleted from the database is never given again (migration 0023): the import reports a
// site user of that id as a conflict, and --force leaves it out with its entries.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { formatReport } from "../scripts/import/report-text";
import { compatCall, GUARDED } from "./compat-helpers";
import { CLEAN, ledgerViolations, tableCounts } from "./helpers";
import { importedAdmin, runImport } from "./import-helpers";
import { SITE_OPTIONS, siteDump } from "./site-dump";

const WALLETS = [{ id: "ngn", decimals: 2 }];
/** The site: member2 (user 2) has a credit, member3 (user 3) none yet. */
const first = siteDump(WALLETS, [{ user: 2, wallet: "ngn", amount: "5" }]);
/** A later dump: the site has credited member3 since. */
const later = siteDump(WALLETS, [
  { user: 2, wallet: "ngn", amount: "5" },
  { user: 3, wallet: "ngn", amount: "2" },
]);

const userRow = (id: number) =>
  env.DB.prepare("SELECT id, username FROM users WHERE id = ?").bind(id).first();

describe("importing a site user whose id the database deleted", () => {
  it("refuses, writing nothing, a later dump holding a user deleted here since the first run", async () => {
    expect((await runImport(SITE_OPTIONS, first)).report.users.imported).toBe(3);
    // The operator deleted member3 here (no entry names it), through the plugin dialect's route.
    const deleted = await compatCall("DELETE", "/wp-json/rimplenet/v1/users/3", {
      headers: { Authorization: await importedAdmin(1, "siteadmin") },
      vars: GUARDED,
    });
    expect(deleted.status, deleted.text).toBe(200);
    expect(await userRow(3)).toBeNull();

    const before = await tableCounts();
    const run = await runImport(SITE_OPTIONS, later);
    expect(run.report.refused).toBe(true);
    expect(run.report.conflicts).toStrictEqual([
      {
        kind: "user",
        id: 3,
        problem: expect.stringMatching(
          /^user id 3 \(member3\): a user of that id was deleted from the database at \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z, and a deleted user's id is never given again; this user and its entries cannot be imported$/,
        ),
      },
    ]);
    expect(run.report.users.skipped.byReason).toEqual({
      "its id was deleted from the database": 1,
    });
    expect(run.report.transactions.skipped.byReason).toEqual({
      "its user 3 is not imported (its id was deleted from the database)": 1,
    });
    expect(run.statements.some((sql) => /INSERT INTO users/.test(sql))).toBe(false);
    expect(formatReport(run.report)).toContain("REFUSED: 1 conflict with the database");
    expect(await tableCounts()).toEqual(before);
  });

  it("with --force leaves that user and its entries out and imports the rest", async () => {
    const run = await runImport({ ...SITE_OPTIONS, force: true }, later);
    expect(run.report.users).toMatchObject({ imported: 0, alreadyPresent: 2 });
    expect(run.report.transactions).toMatchObject({ imported: 0, alreadyPresent: 1 });
    expect(await userRow(3)).toBeNull();
    const entries = await env.DB.prepare(
      "SELECT count(*) AS n FROM transactions WHERE user_id = 3",
    ).first();
    expect(entries).toEqual({ n: 0 });
    expect(await ledgerViolations()).toEqual(CLEAN);
  });

  it("the database itself refuses a user written under a deleted id", async () => {
    await expect(
      env.DB.prepare(
        "INSERT INTO users (id, username, email, password_hash, role, registered_at_ms) VALUES (3, 'member3', 'member3@site.example', 'x', 'subscriber', 0)",
      ).run(),
    ).rejects.toThrow(/users_id_deleted/);
    expect(await userRow(3)).toBeNull();
  });
});
