import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { ON } from "./compat-helpers";
import { consoleOf } from "./console-helpers";
import { countingD1, recordingD1 } from "./d1-counter";
import {
  appendHistory,
  appendHolds,
  call,
  creditBatch,
  makeAdmin,
  makeUser,
  makeWallet,
  sharedApp,
  unique,
} from "./helpers";

// A site may have one very large user (an omnibus or treasury account) with millions of entries in
// one wallet. A request that asks for a bounded answer about that user (a balance, a page, one
// entry, a statement of a short range, a movement to or from it) must not read that user's history:
// D1 runs one query at a time, each within 30 s. Two such users, one with SMALL entries and holds,
// one with ten times as many, answer each request; what reads more for the larger one is listed.
const SMALL = 500;
const LARGE = 5000;
// appendHistory dates its n-th entry 1700000000 + n (2023-11-14T22:13:20Z + n s).
const HISTORY_S = 1_700_000_000;
const iso = (s: number) => new Date(s * 1000).toISOString();
/** The date of the last of `entries` appended to a history. */
const end = (entries: number) => HISTORY_S + entries;

/** What a read is for: a page's total, what holds reserve, or rows of the answer. */
const kindOf = (sql: string) =>
  /\bcount\(/i.test(sql)
    ? "total"
    : /sum\(("holds"\.)?"amount_minor"\)/.test(sql)
      ? "held"
      : "rows";

describe("D1 rows read for one very large user", () => {
  it("a bounded answer about a user reads alike after 500 and after 5,000 of its entries and holds", async () => {
    // Before either user exists: a range that ends here holds none of the entries the test writes
    // as it goes, which would otherwise differ between the two users' turns.
    const startS = Math.floor(Date.now() / 1000);
    const admin = await makeAdmin();
    const wallet = await makeWallet(admin);
    const other = await makeUser();
    const run = (sql: string) => env.DB.prepare(sql).run();
    const whale = async (entries: number) => {
      const user = await makeUser();
      await appendHistory(user.id, wallet, entries);
      // Its holds: half still held (a cent each), half voided.
      await appendHolds(user.id, wallet, entries);
      const tag = unique("x").toLowerCase();
      // Then a fifth as many batches of one credit each, dated after that history.
      const batched = entries / 5;
      await run(
        `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${batched})
         INSERT INTO batches (request_id, request_key, balanced, entry_count, created_at_s)
         SELECT '${tag}b' || i, '${tag}b' || i, 0, 1, ${end(entries)} + i FROM n`,
      );
      await run(
        `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${batched})
         INSERT INTO transactions (user_id, wallet_id, txn_type, amount_minor, amount_text, balance_before_minor,
           balance_after_minor, request_id, request_key, note, title, slug_base, slug, created_at_s, batch_id)
         SELECT ${user.id}, '${wallet}', 'CREDIT', 1, '0.01', ${entries} + i - 1, ${entries} + i,
           '${tag}b' || i, '${tag}b' || i, '', 't', '${tag}b' || i, '${tag}b' || i, ${end(entries)} + i,
           (SELECT id FROM batches WHERE request_key = '${tag}b' || i) FROM n`,
      );
      const money = await call("POST", "/credits", {
        auth: admin.bearer,
        body: { user_id: user.id, wallet_id: wallet, amount: "1000", request_id: unique("c") },
      });
      expect(money.status, money.text).toBe(200);
      const txn = money.body.data.transaction_id as number;
      const batch = await creditBatch(admin, user.id, wallet);
      return { user, entries, txn, batch };
    };
    const small = await whale(SMALL);
    const large = await whale(LARGE);
    type Whale = typeof small;

    const seen = new Map<string, unknown[]>();
    const counter = countingD1(recordingD1(seen));
    const app = sharedApp();
    const { request, signIn } = consoleOf(app);
    const cookie = await signIn(admin);
    const api =
      (method: string, path: (w: Whale) => string, body?: (w: Whale) => unknown) =>
      async (w: Whale) =>
        (
          await call(method, path(w), {
            auth: admin.bearer,
            body: body?.(w),
            d1: counter.db,
            vars: { MAIL_TRANSPORT: "outbox" },
          })
        ).status;
    const page = (path: (w: Whale) => string) => async (w: Whale) =>
      (await request(path(w), { cookie, vars: { DB: counter.db } })).status;
    const compat = (path: (w: Whale) => string) => async (w: Whale) =>
      (
        await app.request(
          `/wp-json/rimplenet/v1${path(w)}`,
          { headers: { Authorization: admin.bearer } },
          { ...env, ...ON, DB: counter.db },
        )
      ).status;
    const to = (w: Whale) => ({
      user_id: w.user.id,
      wallet_id: wallet,
      amount: "0.01",
      request_id: unique("r"),
    });
    // A hold of its own for each capture and void, an entry for each reversal.
    const placed = async (w: Whale) =>
      (
        await call("POST", "/holds", {
          auth: admin.bearer,
          body: to(w),
        })
      ).body.data.hold_id as number;
    const fresh = async (w: Whale) =>
      (
        await call("POST", "/credits", {
          auth: admin.bearer,
          body: to(w),
        })
      ).body.data.transaction_id as number;
    const u = (w: Whale) => w.user.id;
    const recent = iso(startS - 3600);
    // The day before the test: a statement of it reads its opening balance, and no entry.
    const yesterday = iso(startS - 86_400).slice(0, 10);
    const probes: Record<string, (w: Whale) => Promise<number>> = {
      "POST /credits": api("POST", () => "/credits", to),
      "POST /debits": api("POST", () => "/debits", to),
      "POST /transfers from": api(
        "POST",
        () => "/transfers",
        (w) => ({
          from_user_id: u(w),
          to_user_id: other.id,
          wallet_id: wallet,
          amount: "0.01",
          request_id: unique("t"),
        }),
      ),
      "POST /transfers to": api(
        "POST",
        () => "/transfers",
        (w) => ({
          from_user_id: other.id,
          to_user_id: u(w),
          wallet_id: wallet,
          amount: "0.01",
          request_id: unique("t"),
        }),
      ),
      "POST /holds": api("POST", () => "/holds", to),
      "POST /holds/{id}/capture": async (w) => {
        const id = await placed(w);
        return api(
          "POST",
          () => `/holds/${id}/capture`,
          () => ({}),
        )(w);
      },
      "POST /holds/{id}/void": async (w) => {
        const id = await placed(w);
        return api(
          "POST",
          () => `/holds/${id}/void`,
          () => ({}),
        )(w);
      },
      "POST /transactions/{id}/reverse": async (w) => {
        const id = await fresh(w);
        return api(
          "POST",
          () => `/transactions/${id}/reverse`,
          () => ({ request_id: unique("v") }),
        )(w);
      },
      "POST /batches": api(
        "POST",
        () => "/batches",
        (w) => ({
          request_id: unique("b"),
          operations: [{ type: "credit", user_id: u(w), wallet_id: wallet, amount: "1" }],
        }),
      ),
      "POST /batches/{id}/reverse": async (w) => {
        const id = await creditBatch(admin, u(w), wallet);
        return api(
          "POST",
          () => `/batches/${id}/reverse`,
          () => ({}),
        )(w);
      },
      "GET /balances": api("GET", (w) => `/balances?user_id=${u(w)}`),
      "GET /user-wallet-balance": api(
        "GET",
        (w) => `/user-wallet-balance?user_id=${u(w)}&wallet_id=${wallet}`,
      ),
      "GET /user-wallet-balance?at=": api(
        "GET",
        (w) =>
          `/user-wallet-balance?user_id=${u(w)}&wallet_id=${wallet}&at=${iso(end(w.entries) - 10)}`,
      ),
      "GET /wallets/{id}/summary": api("GET", (w) => `/wallets/${wallet}/summary?user_id=${u(w)}`),
      "GET /transactions page": api(
        "GET",
        (w) => `/transactions?user_id=${u(w)}&security_code=1&per_page=20&page=1`,
      ),
      "GET /transactions page 2": api(
        "GET",
        (w) => `/transactions?user_id=${u(w)}&security_code=1&per_page=20&page=2`,
      ),
      "GET /transactions wallet": api(
        "GET",
        (w) => `/transactions?user_id=${u(w)}&security_code=1&per_page=20&wallet_id=${wallet}`,
      ),
      "GET /transactions asc": api(
        "GET",
        (w) => `/transactions?user_id=${u(w)}&security_code=1&per_page=20&order=asc`,
      ),
      "GET /transactions txn_type": api(
        "GET",
        (w) => `/transactions?user_id=${u(w)}&security_code=1&per_page=20&txn_type=DEBIT`,
      ),
      "GET /transactions after": api(
        "GET",
        (w) => `/transactions?user_id=${u(w)}&security_code=1&per_page=20&after=${recent}`,
      ),
      "GET /transactions before": api(
        "GET",
        (w) =>
          `/transactions?user_id=${u(w)}&security_code=1&per_page=20&before=${iso(HISTORY_S + 10)}`,
      ),
      "GET /transactions/{id}": api("GET", (w) => `/transactions/${w.txn}`),
      "GET /statements recent": api(
        "GET",
        (w) =>
          `/statements?user_id=${u(w)}&wallet_id=${wallet}&per_page=20&from=${recent}&to=${iso(startS - 1)}`,
      ),
      "GET /statements short": api(
        "GET",
        (w) =>
          `/statements?user_id=${u(w)}&wallet_id=${wallet}&per_page=20&from=${iso(end(w.entries) - 10)}&to=${iso(end(w.entries))}`,
      ),
      "GET /holds": api("GET", (w) => `/holds?user_id=${u(w)}&per_page=20`),
      "GET /holds held": api("GET", (w) => `/holds?user_id=${u(w)}&per_page=20&status=held`),
      "GET /batches": api("GET", (w) => `/batches?user_id=${u(w)}&per_page=20`),
      "GET /batches/{id}": api("GET", (w) => `/batches/${w.batch}`),
      "compat GET /user-wallet-balance": compat(
        (w) => `/user-wallet-balance?user_id=${u(w)}&wallet_id=${wallet}`,
      ),
      "compat GET /wallet-summary": compat(
        (w) => `/wallet-summary?user_id=${u(w)}&wallet_id=${wallet}`,
      ),
      "compat GET /users/{id}": compat((w) => `/users?user_id=${u(w)}`),
      "console /users/{id}": page((w) => `/users/${u(w)}`),
      "console /users/{id}?page=2": page((w) => `/users/${u(w)}?page=2`),
      "console /users/{id} statement": page(
        (w) => `/users/${u(w)}?wallet=${wallet}&from=${yesterday}&to=${yesterday}`,
      ),
      "console /users/{id}/statement.csv": page(
        (w) => `/users/${u(w)}/statement.csv?wallet=${wallet}&from=${yesterday}&to=${yesterday}`,
      ),
      "console /users/{id}/reverse/{txn}": page((w) => `/users/${u(w)}/reverse/${w.txn}`),
      "console /batches/{id}": page((w) => `/batches/${w.batch}`),
    };
    // Rows read per request, and per read statement (run again alone, for its own rows read).
    const rowsFor = async (w: Whale) => {
      const requests: Record<string, number> = {};
      const reads: Record<string, number> = {};
      for (const [name, probe] of Object.entries(probes)) {
        await probe(w);
        seen.clear();
        const { value: status, cost } = await counter.measure(() => probe(w));
        expect(status, name).toBeLessThan(400);
        requests[name] = cost.rowsRead;
        for (const [sql, params] of seen) {
          if (!/^\s*select\b/i.test(sql)) continue;
          const { meta } = await env.DB.prepare(sql)
            .bind(...params)
            .all();
          reads[`${name}: ${kindOf(sql)}`] = Math.max(
            reads[`${name}: ${kindOf(sql)}`] ?? 0,
            meta.rows_read,
          );
        }
      }
      return { requests, reads };
    };
    // What read more for the larger user: ten times the data, at least twice the rows and 20 more.
    const grown = (from: Record<string, number>, to: Record<string, number>) =>
      Object.keys(from)
        .filter((k) => to[k]! > 2 * from[k]! + 20)
        .sort();
    // The smaller user's reads without the planner's statistics, the larger's with them, as a D1
    // database has them after the `PRAGMA optimize` D1's documentation recommends: a plan chosen
    // by them must read no more.
    const a = await rowsFor(small);
    await run("PRAGMA optimize");
    const b = await rowsFor(large);
    console.info(`d1-one-user | ${JSON.stringify({ a, b })}`);
    expect({ requests: grown(a.requests, b.requests), reads: grown(a.reads, b.reads) }).toEqual({
      // Each, and only these, read the reads below.
      requests: [
        "GET /balances",
        "GET /batches",
        "GET /holds",
        "GET /holds held",
        "GET /transactions txn_type",
        "GET /wallets/{id}/summary",
        "POST /batches/{id}/reverse",
        "POST /debits",
        "POST /holds",
        "POST /holds/{id}/capture",
        "POST /transactions/{id}/reverse",
        "POST /transfers from",
        "compat GET /wallet-summary",
        "console /users/{id}",
        "console /users/{id} statement",
        "console /users/{id}?page=2",
      ],
      reads: [
        // What the user's counting holds reserve, summed (the holds_active index, only holds still
        // held and not expired: a hold stops counting when its time runs out, with no write, so no
        // running figure can stand for the sum). The money written out of the balance judges the
        // available balance with the same sum, in its INSERT (a request, above, not a read here).
        "GET /balances: held",
        // A page's X-WP-Total: every batch, every hold, every held hold of the user's.
        "GET /batches: total",
        "GET /holds held: total",
        "GET /holds: total",
        // A type filter is on no index: its page walks the user's entries, newest first, until it
        // has its 20 of that type, and its total reads every entry of the user's.
        "GET /transactions txn_type: rows",
        "GET /transactions txn_type: total",
        "GET /wallets/{id}/summary: held",
        "compat GET /wallet-summary: held",
        // The user's page: its balances with what holds reserve, and its holds' total.
        "console /users/{id} statement: held",
        "console /users/{id} statement: total",
        "console /users/{id}: held",
        "console /users/{id}: total",
        "console /users/{id}?page=2: held",
        "console /users/{id}?page=2: total",
      ],
    });
  }, 60_000);

  it("a page of one wallet reads alike however many entries the user holds in its other wallets", async () => {
    const admin = await makeAdmin();
    const [large, small] = [await makeWallet(admin), await makeWallet(admin)];
    // Twins in the small wallet, dated alike (appendHistory: 1700000000 + n, the oldest of the large
    // wallet's dates too): one holds nothing else, the other 5,000 entries in the large wallet.
    const alone = await makeUser();
    await appendHistory(alone.id, small, 5);
    const beside = await makeUser();
    await appendHistory(beside.id, large, 5000);
    await appendHistory(beside.id, small, 5);
    // With the planner's statistics, as a D1 database has them after `PRAGMA optimize`.
    await env.DB.prepare("PRAGMA optimize").run();
    const counter = countingD1();
    const pages: Record<string, string> = {
      newest: "",
      oldest: "&order=asc",
      "page 2": "&per_page=2&page=2",
      credits: "&txn_type=CREDIT",
      after: `&after=${iso(HISTORY_S + 2)}`,
      before: `&before=${iso(HISTORY_S + 4)}`,
    };
    const rowsRead = async (user: number) => {
      const rows: Record<string, number> = {};
      for (const [name, query] of Object.entries(pages)) {
        const path = `/transactions?user_id=${user}&security_code=1&wallet_id=${small}${query}`;
        await call("GET", path, { auth: admin.bearer });
        const { value: res, cost } = await counter.measure(() =>
          call("GET", path, { auth: admin.bearer, d1: counter.db }),
        );
        expect(res.status, `${name}: ${res.text}`).toBe(200);
        rows[name] = cost.rowsRead;
      }
      return rows;
    };
    // Alike within a few rows: the statistics tell the twins' indexes apart by their sizes.
    const [own, among] = [await rowsRead(alone.id), await rowsRead(beside.id)];
    const more = Object.keys(pages).filter((name) => among[name]! > own[name]! + 3);
    expect(more, JSON.stringify({ own, among })).toEqual([]);
  }, 60_000);
});
