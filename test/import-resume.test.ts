// An import that stopped half way (a chunk failed, the connection dropped) is finished by running it
// again: the entries already written are recognised and only the rest is written.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { CLEAN, call, ledgerViolations, makeAdmin, tableCounts } from "./helpers";
import { dump, importedAdmin, runImport, sitePost } from "./import-helpers";

/** A later dump of the same site: a new entry, and an e-mail changed since. */
const later =
  dump.replace("'amaka@example.ng'", "'amaka.new@example.ng'") +
  "\nINSERT INTO `wp_posts` VALUES (40,2,'2024-02-01 11:00:00','2024-02-01 10:00:00','Amount:25','TRANSACTION later','','publish','open','closed','','later','','','2024-02-01 11:00:00','2024-02-01 10:00:00','',0,'https://oldsite.example/?p=40',0,'wallettransaction','',0);" +
  "\nINSERT INTO `wp_postmeta` VALUES (9001,40,'amount','25'),(9002,40,'currency','ngn'),(9003,40,'txn_type','DEBIT'),(9004,40,'request_id','later-1');" +
  "\nINSERT INTO `wp_term_relationships` VALUES (40,2,0);\n";

/** A later dump still: the site debited Ada (user 2) in ngn since. */
const stillLater =
  later +
  "\nINSERT INTO `wp_posts` VALUES (41,2,'2024-02-02 11:00:00','2024-02-02 10:00:00','Amount:5','TRANSACTION still later','','publish','open','closed','','still-later','','','2024-02-02 11:00:00','2024-02-02 10:00:00','',0,'https://oldsite.example/?p=41',0,'wallettransaction','',0);" +
  "\nINSERT INTO `wp_postmeta` VALUES (9011,41,'amount','5'),(9012,41,'currency','ngn'),(9013,41,'txn_type','DEBIT'),(9014,41,'request_id','later-2');" +
  "\nINSERT INTO `wp_term_relationships` VALUES (41,2,0);\n";

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

  it("a hold placed while a planned import is written makes the database refuse its entries", async () => {
    const planned = await runImport({}, stillLater, { apply: false });
    expect(planned.report.refused).toBe(false);
    expect(planned.statements).toHaveLength(1);
    const held = await call("POST", "/holds", {
      auth: await importedAdmin(1, "admin"),
      body: { user_id: 2, wallet_id: "ngn", amount: "1", request_id: "hold-during-import" },
    });
    expect(held.status, held.text).toBe(200);
    const before = await tableCounts();
    await expect(
      env.DB.batch(planned.statements.map((sql) => env.DB.prepare(sql))),
    ).rejects.toThrow(/transactions_import_under_hold/);
    expect(await tableCounts()).toEqual(before);
  });

  it("refuses a still later dump on a chain the service has placed a hold on, writing nothing", async () => {
    // The service holds some of Ada's ngn (above); the site's next dump debits her.
    const before = await tableCounts();
    const run = await runImport({}, stillLater);
    expect(run.report.refused).toBe(true);
    expect(run.report.conflicts).toContainEqual(
      expect.objectContaining({
        kind: "entries",
        problem: expect.stringContaining(
          "holds placed by the service, and the site's history is not complete there",
        ),
      }),
    );
    expect(await tableCounts()).toEqual(before);
    // The same dump as the last import (nothing new for the held chain) still runs clean.
    expect((await runImport({}, later)).report.conflicts).toEqual([]);
    // One without the entry `later` added, as if the site trashed it since.
    expect((await runImport({}, dump)).report.conflicts).toContainEqual({
      kind: "entries",
      id: "2\tngn",
      problem:
        "user 2 wallet ngn: the database holds 7 entries imported from the site, more than the site's 6 (one trashed or deleted there since?)",
    });
  });
});

/**
 * `later` as the site has it once johndoe (user 2) was made an administrator and admin (user 1) a
 * subscriber, and oldtimer (user 4) changed its password: to admin's, whose password the test knows.
 */
const usersChanged = later
  .replace(
    "(4,1,'wp_capabilities','a:1:{s:13:\\\"administrator\\\";b:1;}')",
    "(4,1,'wp_capabilities','a:1:{s:10:\\\"subscriber\\\";b:1;}')",
  )
  .replace(
    "(9,2,'wp_capabilities','a:1:{s:10:\\\"subscriber\\\";b:1;}')",
    "(9,2,'wp_capabilities','a:1:{s:13:\\\"administrator\\\";b:1;}')",
  )
  .replace("'c4052b5b13fea2645f6e33a22563e51e'", "'$P$B/egg0xJInsraMkmYxm97KT8uXlbaM0'");

describe("a later dump with users changed on the site since", () => {
  it("carries over a role and a password; a demoted administrator's sessions end", async () => {
    // A session of the administrator's (not used before the import, so no isolate keeps its state).
    const token = await importedAdmin(1, "admin");
    const run = await runImport({}, usersChanged);
    expect(run.report.refused).toBe(false);
    expect(run.report.users.updated.byReason).toEqual({
      "role subscriber → administrator": 1,
      "password (not signed in here since the earlier run)": 1,
      "role administrator → subscriber (a subscriber on the site)": 1,
    });
    // The demoted administrator's sessions end before its role changes.
    expect(run.statements.map((sql) => sql.slice(0, 40))).toEqual([
      "UPDATE users SET role = 'administrator' ",
      "UPDATE users SET password_hash = '$P$B/e",
      "UPDATE sessions SET revoked_at_ms = 1717",
      "UPDATE users SET role = 'subscriber' WHE",
    ]);
    const rows = await env.DB.prepare(
      "SELECT id, role, password_hash FROM users WHERE id IN (1, 2, 4) ORDER BY id",
    ).all();
    expect(rows.results).toEqual([
      { id: 1, role: "subscriber", password_hash: "$P$B/egg0xJInsraMkmYxm97KT8uXlbaM0" },
      expect.objectContaining({ id: 2, role: "administrator" }),
      { id: 4, role: "subscriber", password_hash: "$P$B/egg0xJInsraMkmYxm97KT8uXlbaM0" },
    ]);
    expect((await call("GET", "/wallets", { auth: token })).status).toBe(401);
    const signIn = await call("POST", "/users/login", {
      body: { user_email: "oldtimer", user_password: "admin-pass-1" },
    });
    expect(signIn.status, signIn.text).toBe(200);
    // A password the service now holds (signed in here since) has the last word: nothing to carry.
    expect((await runImport({}, usersChanged)).statements).toEqual([]);
  });
});

/** `later` with post 22's amount (Ada's rmpn credit) changed on the site since: 12000 → 13000. */
const amended = later.replace("(60,22,'amount','12000')", "(60,22,'amount','13000')");

/**
 * `amended`, a transfer of 100 rmpn from Ada (user 2) to Amaka (user 3), posts 37 and 38, and a
 * credit of 1 ngn to Ada, post 39, in the history the service holds money of (a conflict: the
 * transfer half of it an earlier run wrote, post 23, stays, as does its other half).
 */
const amendedWithTransfer = [
  `${amended}\n`,
  sitePost({ id: 39, author: 2, amount: "1", currency: "ngn", type: "CREDIT", requestId: "one-1" }),
  sitePost({
    id: 37,
    author: 2,
    amount: "100",
    currency: "rmpn",
    type: "DEBIT",
    requestId: "tr-9",
    otherHalf: 38,
  }),
  sitePost({
    id: 38,
    author: 3,
    amount: "100",
    currency: "rmpn",
    type: "CREDIT",
    requestId: "tr-9",
    otherHalf: 37,
  }),
].join("");

describe("a later dump over a chain the service has written to", () => {
  it("refuses an amount the site changed since, which the service's entries would hide", async () => {
    // User 1 is a subscriber since the dump above: an administrator of the service's own credits.
    const credited = await call("POST", "/credits", {
      auth: (await makeAdmin()).bearer,
      body: { user_id: 2, wallet_id: "rmpn", amount: "5", request_id: "service-credit-rmpn" },
    });
    expect(credited.status, credited.text).toBe(200);
    const before = await tableCounts();
    const run = await runImport({}, amended);
    expect(run.report.refused).toBe(true);
    expect(run.report.conflicts).toContainEqual({
      kind: "entries",
      id: "2\trmpn",
      problem:
        "user 2 wallet rmpn: the entries imported there add up to 12000, the site's history now to 13000 (an amount changed on the site)",
    });
    expect(await tableCounts()).toEqual(before);
  });

  it("with --force names the transfer half it imports without the other, left out with its chain", async () => {
    const run = await runImport({ force: true }, amendedWithTransfer);
    // What the database holds of the histories left out stays, and is counted as there.
    expect(run.report.transactions).toMatchObject({ imported: 1, alreadyPresent: 14 });
    expect(run.report.transactions.skipped.examples).toEqual([
      { reason: "conflicts with the database's entries", pair: "2\tngn", entries: 1 },
      { reason: "conflicts with the database's entries", pair: "2\trmpn", entries: 1 },
    ]);
    const reason = "transfer half imported without its other half, whose history is left out";
    expect(run.report.transactions.halvesApart).toEqual({
      total: 1,
      byReason: { [reason]: 1 },
      examples: [{ reason, id: 38, userId: 3, otherHalf: 37 }],
    });
    const written = await env.DB.prepare(
      "SELECT id, user_id, transfer_id FROM transactions WHERE id IN (37, 38)",
    ).all();
    expect(written.results).toEqual([{ id: 38, user_id: 3, transfer_id: "wp:37-38" }]);
    expect(await ledgerViolations()).toEqual(CLEAN);
  });

  it("names a site entry whose request id the service has since used for the same user", async () => {
    const keyed = `${later}\n${sitePost({ id: 44, author: 2, amount: "3", currency: "usd", type: "CREDIT", requestId: "Service-Credit-RMPN" })}`;
    const run = await runImport({}, keyed, { apply: false });
    // Post 34's request id repeats post 20's in the dump itself (the fixture's own case).
    expect(run.report.transactions.duplicateRequestIds.examples.slice(1)).toEqual([
      {
        reason:
          "request_id the service has since used for the same user: imported without idempotency key (a retry answers 409 naming the service's entry)",
        id: 44,
        userId: 2,
        requestId: "Service-Credit-RMPN",
      },
    ]);
  });
});

/**
 * The dump as the database now holds it: `later` (the run with --force above carried its roles back),
 * with post 38 that run wrote (its other half, post 37, left out with Ada's rmpn history).
 */
const asImported = `${later}\n${sitePost({ id: 38, author: 3, amount: "100", currency: "rmpn", type: "CREDIT", requestId: "tr-9", otherHalf: 37 })}`;

describe("a later dump over a chain only imports have written to", () => {
  it("refuses an amount the site changed since, where the database's chain ends at the same entry", async () => {
    const same = await runImport({}, asImported, { apply: false });
    expect(same.report.conflicts).toEqual([]);
    expect(same.statements).toEqual([]);
    // Oldtimer's (user 4) ngn: 100, -150, 100 imported; the site's debit, post 28, now 140.
    const changed = asImported.replace("(124,28,'amount','150')", "(124,28,'amount','140')");
    const before = await tableCounts();
    const run = await runImport({}, changed);
    expect(run.report.refused).toBe(true);
    expect(run.report.conflicts).toEqual([
      {
        kind: "entries",
        id: "4\tngn",
        problem:
          "user 4 wallet ngn: the database's 3 entries are not the first 3 of this site's (balance 50.00, last id 29)",
      },
    ]);
    expect(await tableCounts()).toEqual(before);
  });
});
