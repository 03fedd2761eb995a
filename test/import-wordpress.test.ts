// The WordPress import end to end, inside the Workers runtime: the importer's own statements applied
// to D1 (as the CLI has wrangler do), then everything checked through the HTTP API.
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { TRASHED } from "../scripts/import/plan/entry";
import type { ImportRun } from "../scripts/import/wordpress";
import {
  CLEAN,
  call,
  type Json,
  ledgerViolations,
  makeUser,
  signedToken,
  tableCounts,
  unique,
} from "./helpers";
import { runImport, wordpress } from "./import-helpers";

const byDateThenId = (a: Json, b: Json) =>
  a.post_date_gmt.localeCompare(b.post_date_gmt) || a.ID - b.ID;
const recordsOf = (userId: number) =>
  wordpress.transactions.filter((t) => t.post_author === String(userId)).sort(byDateThenId);

let first: ImportRun;
let admin: string;

async function list(userId: number, query: Record<string, string | number> = {}) {
  const res = await call("GET", "/transactions", {
    auth: admin,
    query: { user_id: userId, security_code: 0, order: "asc", ...query },
  });
  expect(res.status, res.text).toBe(200);
  return res.body.data as Json[];
}

async function balances(userId: number, wallets: string) {
  const res = await call("GET", "/user-wallet-balance", {
    auth: admin,
    query: { user_id: userId, wallet_id: wallets },
  });
  expect(res.status, res.text).toBe(200);
  return res.body.data as Json;
}

beforeAll(async () => {
  first = await runImport();
  // The site's administrator, imported as user 1, signs the requests below.
  admin = `Bearer ${(await signedToken({ id: 1, username: "admin", role: "administrator" })).token}`;
});

describe("importing a WordPress site", () => {
  it("reports what it carried over, what it left and why", () => {
    const r = first.report;
    expect(r.refused).toBe(false);
    expect(r.users).toMatchObject({
      inDump: 5,
      imported: 5,
      alreadyPresent: 0,
      passwordHashes: { phpass: 2, "wp-bcrypt": 1, bcrypt: 1, md5: 1 },
    });
    expect(r.users.roles).toEqual({ administrator: 1, subscriber: 2, editor: 1, "(none)": 1 });
    expect(r.wallets).toMatchObject({ inDump: 4, imported: 4 });
    expect(r.transactions).toMatchObject({
      live: 13,
      imported: 13,
      credits: 10,
      debits: 3,
      transfers: 1,
      alreadyPresent: 0,
    });
    expect(r.transactions.skipped.total).toBe(0);
    expect(r.transactions.duplicateRequestIds.examples).toEqual([
      expect.objectContaining({ id: 34, userId: 2, requestId: "ABC-1" }),
    ]);
    expect(r.ignored.byReason).toEqual({
      [TRASHED]: 1,
      "wallettransaction post without a CREDIT, DEBIT, WALLETS or API-KEYS term": 1,
    });
    expect(r.otherPostTypes).toEqual({ page: 1, post: 1, revision: 1 });
    expect(r.apiKeys).toEqual({
      total: 1,
      list: [
        { id: 14, userId: 1, username: "admin", title: "Shop integration key", status: "publish" },
      ],
    });
    expect(JSON.stringify(r)).not.toContain("wk_live_plaintext_secret");
    // Carried over as it is: the report says so, and nothing is added.
    expect(r.negativeHistories).toEqual({
      total: 1,
      endingBelowZero: 0,
      list: [
        {
          userId: 4,
          username: "oldtimer",
          walletId: "ngn",
          firstEntryBelowZero: 28,
          lowest: "-50.00",
          lowestAt: 28,
          balance: "50.00",
        },
      ],
    });
    expect(r.adjustments).toEqual({ balance: 0, alreadyPresent: 0 });
    expect(r.transactions.subPrecisionAmounts.total).toBe(0);
    expect(r.transactions.zeroAmounts.total).toBe(0);
    expect(r.wallets.storage.map((w: Json) => [w.walletId, w.decimals, w.storageDecimals])).toEqual(
      [
        ["ngn", 2, 2],
        ["rmpn", 0, 0],
        ["btc", 8, 8],
        ["usd", 2, 2],
      ],
    );
    expect(
      r.balanceDifferences.list.map((d: Json) => [
        d.userId,
        d.walletId,
        d.site,
        d.transactions,
        d.difference,
      ]),
    ).toEqual([
      [2, "rmpn", "11500", "12000", "-500"],
      [4, "ngn", "150.00", "50.00", "100.00"],
    ]);
    expect(r.balances.ignoredMeta.examples).toEqual([
      { reason: "wallet not imported", userId: 4, walletId: "eur" },
    ]);
  });

  it("runs a second time without writing anything", async () => {
    const before = await tableCounts();
    const again = await runImport();
    expect(again.statements).toEqual([]);
    expect(again.report.refused).toBe(false);
    expect(again.report.users).toMatchObject({ imported: 0, alreadyPresent: 5 });
    expect(again.report.wallets).toMatchObject({ imported: 0, alreadyPresent: 4 });
    expect(again.report.transactions).toMatchObject({ imported: 0, alreadyPresent: 13 });
    expect(again.report.adjustments).toEqual({ balance: 0, alreadyPresent: 0 });
    expect(await tableCounts()).toEqual(before);
  });

  it("answers GET /transactions/{id} with the record the WordPress site returned, field by field", async () => {
    expect(wordpress.transactions).toHaveLength(13);
    for (const record of wordpress.transactions) {
      const res = await call("GET", `/transactions/${record.ID}`, { auth: admin });
      expect(res.status, res.text).toBe(200);
      expect(Object.keys(res.body.data)).toEqual(Object.keys(record));
      expect(res.body.data, `transaction ${record.ID}`).toStrictEqual(record);
    }
  });

  it("lists each user's transactions as the site did, the note with quotes and newlines intact", async () => {
    expect(await list(2)).toStrictEqual(recordsOf(2));
    expect(await list(3)).toStrictEqual(recordsOf(3));
    const note = (await list(2)).find((t) => t.ID === 20)!.note;
    expect(note).toBe('He said "it\'s fine"\nline two\r\nback\\slash; tab\tend');
    expect((await list(2, { wallet_id: "rmpn" })).map((t) => t.ID)).toEqual([22]);
    expect((await list(2, { txn_type: "DEBIT" })).map((t) => t.ID)).toEqual([21, 23]);
  });

  it("keeps balances equal to the sum of the entries; a history below zero is carried over as it is", async () => {
    expect(await ledgerViolations()).toEqual(CLEAN);
    expect(await balances(2, "ngn,rmpn")).toEqual({ ngn: 1269.5, rmpn: 12000 });
    expect(await balances(3, "ngn,btc")).toEqual({ ngn: 50, btc: 0.00012345 });
    expect(await balances(4, "ngn,usd")).toEqual({ ngn: 50, usd: 10 });

    // 100 - 150 + 100: the chain goes through -50.00 as the site's did, and no entry is added.
    expect(await list(4, { wallet_id: "ngn" })).toStrictEqual(
      recordsOf(4).filter((t) => t.wallet_symbol === "₦"),
    );
    const rows = await env.DB.prepare(
      "SELECT id, balance_before_minor, balance_after_minor, imported FROM transactions WHERE user_id = 4 AND wallet_id = 'ngn' ORDER BY id",
    ).all();
    expect(rows.results).toEqual([
      { id: 27, balance_before_minor: 0, balance_after_minor: 10000, imported: 1 },
      { id: 28, balance_before_minor: 10000, balance_after_minor: -5000, imported: 1 },
      { id: 29, balance_before_minor: -5000, balance_after_minor: 5000, imported: 1 },
    ]);
  });

  it("answers 409 for a replayed imported request_id, whatever its case", async () => {
    const replay = async (path: string, body: Json) =>
      call("POST", path, { auth: admin, body: { amount: 1, wallet_id: "ngn", ...body } });
    for (const [userId, requestId, txnId] of [
      [2, "abc-1", "20"],
      [2, "ABC-1", "20"],
      [2, "req-debit-1", "21"],
      [3, "T-1", "24"],
      [4, "neg-2", "28"],
    ] as const) {
      const res = await replay("/credits", { user_id: userId, request_id: requestId });
      expect(res.status, `${userId} ${requestId}`).toBe(409);
      expect(res.body.error).toEqual({ txn_id: txnId, exist: "Transaction already executed" });
    }
    const transfer = await replay("/transfers", {
      from_user_id: 2,
      to_user_id: 3,
      request_id: "t-1",
    });
    expect(transfer.status).toBe(409);
    expect(transfer.body.error.txn_id).toBe("23");
  });

  // Every imported hash kind (bcrypt 10 and 12, phpass) checked at full cost: seconds of CPU.
  it("signs in every imported user with the WordPress password, then holds the service's own hash", {
    timeout: 30_000,
  }, async () => {
    for (const user of wordpress.users) {
      const password = wordpress.passwords[user.login]!;
      const wrong = await call("POST", "/users/login", {
        body: { user_email: user.email, user_password: `${password}x` },
      });
      expect(wrong.status).toBe(400);
      const res = await call("POST", "/users/login", {
        body: { user_email: user.email.toLowerCase(), user_password: password },
      });
      expect(res.status, `${user.login}: ${res.text}`).toBe(200);
      expect(res.body.data).toMatchObject({
        user_id: user.id,
        username: user.login,
        user_email: user.email,
      });
      const { password_hash } = (await env.DB.prepare(
        "SELECT password_hash FROM users WHERE id = ?",
      )
        .bind(user.id)
        .first<{ password_hash: string }>())!;
      expect(password_hash).toMatch(/^pbkdf2_sha256\$/);
      const again = await call("POST", "/users/login", {
        body: { user_email: user.login, user_password: password },
      });
      expect(again.status).toBe(200);
    }
    const names = await env.DB.prepare(
      "SELECT id, first_name, last_name, role FROM users WHERE id <= 5 ORDER BY id",
    ).all();
    expect(names.results).toEqual(
      wordpress.users.map((u) => ({
        id: u.id,
        first_name: u.first,
        last_name: u.last,
        role: u.id === 1 ? "administrator" : "subscriber",
      })),
    );
  });

  it("gives new users and entries ids above the imported ones", async () => {
    const user = await makeUser("subscriber", unique("after"));
    expect(user.id).toBe(6);
    const res = await call("POST", "/credits", {
      auth: admin,
      body: { user_id: 3, wallet_id: "btc", amount: "0.5", request_id: unique("new") },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.transaction_id).toBe(37);
  });

  it("reverses an imported transfer as a whole", async () => {
    const res = await call("POST", "/transactions/24/reverse", {
      auth: admin,
      body: { request_id: unique("rev") },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.reversed_transaction_ids).toEqual([24, 23]);
    expect(await balances(2, "ngn")).toEqual({ ngn: 1319.5 });
    expect(await balances(3, "ngn")).toEqual({ ngn: 0 });
    expect(await ledgerViolations()).toEqual(CLEAN);
  });

  it("runs again after the service has added entries and still writes nothing", async () => {
    const before = await tableCounts();
    const again = await runImport();
    expect(again.report.conflicts).toEqual([]);
    expect(again.statements).toEqual([]);
    expect(await tableCounts()).toEqual(before);
  });
});
