import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createApp } from "../src/app";
import { wrappedD1 } from "./d1-counter";
import {
  API,
  appAt,
  call,
  type Json,
  makeAdmin,
  makeUser,
  makeWallet,
  type TestUser,
  testApp,
  unique,
  type WalletSpec,
} from "./helpers";

// 2022-09-05T14:15:07Z, the contract's example instant.
const NOW = Date.UTC(2022, 8, 5, 14, 15, 7);
const HOUR = 3600_000;
const FIELDS = [
  "ID",
  "post_author",
  "post_date",
  "post_date_gmt",
  "post_content",
  "post_title",
  "post_excerpt",
  "post_status",
  "comment_status",
  "ping_status",
  "post_password",
  "post_name",
  "to_ping",
  "pinged",
  "post_modified",
  "post_modified_gmt",
  "post_content_filtered",
  "post_parent",
  "guid",
  "menu_order",
  "post_type",
  "post_mime_type",
  "comment_count",
  "filter",
  "date_time",
  "wallet_symbol",
  "wallet_decimal",
  "amount",
  "txn_type",
  "amount_formatted_disp",
  "note",
];

/** GET /transactions with an env override; no security code configured unless the override sets one. */
async function list(
  auth: TestUser,
  query: Record<string, string | number>,
  overrides: Partial<typeof env> = {},
) {
  const url = new URL(`${API}/transactions`, "http://localhost");
  for (const [k, v] of Object.entries({ security_code: 1, ...query }))
    url.searchParams.set(k, String(v));
  const res = await createApp({ nowMs: () => NOW }).request(
    url.pathname + url.search,
    { headers: { Authorization: auth.bearer } },
    {
      ...env,
      TRANSACTIONS_SECURITY_CODE: undefined,
      ...overrides,
    },
  );
  return { status: res.status, headers: res.headers, body: (await res.json()) as Json };
}

/** A credit made at `atMs`; answers the transaction id. */
async function creditAt(atMs: number, admin: TestUser, body: Json) {
  const res = await call("POST", "/credits", {
    app: appAt(atMs),
    auth: admin.bearer,
    body: { request_id: unique("req"), ...body },
  });
  expect(res.status, res.text).toBe(200);
  return res.body.data.transaction_id as number;
}

async function setup(spec: WalletSpec = {}) {
  const admin = await makeAdmin();
  const user = await makeUser("subscriber", unique("johndoe"));
  const wallet = await makeWallet(admin, spec);
  return { admin, user, wallet };
}

const slugFor = (username: string) =>
  `transaction-by-${username}-type-credit-wallet-info-%e2%82%a61500-00-naira-wallet-on-monday-5th-of-september-2022-021507-pm`;
const invalidKeys = (body: Json) =>
  body.status === false && body.message === "invalid input" ? Object.keys(body.error) : body;
const ids = (body: Json) => (body.data as Json[]).map((r) => r.ID);

describe("GET /transactions records", () => {
  it("answers a credit as the plugin's post, field by field, in the contract's key order", async () => {
    const { admin, user, wallet } = await setup({ name: "Naira Wallet", symbol: "₦", decimals: 2 });
    const id = await creditAt(NOW, admin, {
      user_id: user.id,
      wallet_id: wallet,
      amount: 1500,
      note: "salary",
    });
    const res = await list(admin, { user_id: user.id });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/json; charset=UTF-8");
    expect(Object.keys(res.body)).toEqual(["status_code", "status", "message", "data"]);
    expect(res.body).toMatchObject({
      status_code: 200,
      status: true,
      message: "Txns Retrieved Successful",
    });
    const [record] = res.body.data;
    expect(Object.keys(record)).toEqual(FIELDS);
    const slug = slugFor(user.username);
    expect(record).toStrictEqual({
      ID: id,
      post_author: String(user.id),
      post_date: "2022-09-05 14:15:07",
      post_date_gmt: "2022-09-05 14:15:07",
      post_content: "Amount:1500",
      post_title: `TRANSACTION by ${user.username}, Type: CREDIT, Wallet Info: ₦1,500.00 Naira Wallet  on Monday 5th of September 2022 @ 02:15:07 PM`,
      post_excerpt: "",
      post_status: "publish",
      comment_status: "open",
      ping_status: "closed",
      post_password: "",
      post_name: slug,
      to_ping: "",
      pinged: "",
      post_modified: "2022-09-05 14:15:07",
      post_modified_gmt: "2022-09-05 14:15:07",
      post_content_filtered: "",
      post_parent: 0,
      guid: `https://wallet.example.test/wallettransaction/${slug}/`,
      menu_order: 0,
      post_type: "wallettransaction",
      post_mime_type: "",
      comment_count: "0",
      filter: "raw",
      date_time: "Mon, Sep 5, 2022<br>2:15 PM",
      wallet_symbol: "₦",
      wallet_decimal: 2,
      amount: "1500",
      txn_type: "CREDIT",
      amount_formatted_disp: "₦1,500.00",
      note: "salary",
    });
  });

  it("writes local dates in the site timezone and keeps the title and *_gmt in UTC", async () => {
    const { admin, user, wallet } = await setup();
    await creditAt(NOW, admin, { user_id: user.id, wallet_id: wallet, amount: 1500 });
    const cases = [
      ["Africa/Lagos", "2022-09-05 15:15:07", "Mon, Sep 5, 2022<br>3:15 PM"],
      ["America/New_York", "2022-09-05 10:15:07", "Mon, Sep 5, 2022<br>10:15 AM"],
      ["Pacific/Kiritimati", "2022-09-06 04:15:07", "Tue, Sep 6, 2022<br>4:15 AM"],
    ];
    for (const [SITE_TIMEZONE, local, display] of cases) {
      const [record] = (await list(admin, { user_id: user.id }, { SITE_TIMEZONE })).body.data;
      expect(record, SITE_TIMEZONE).toMatchObject({
        post_date: local,
        post_date_gmt: "2022-09-05 14:15:07",
        post_modified: local,
        post_modified_gmt: "2022-09-05 14:15:07",
        date_time: display,
      });
      expect(record.post_title).toMatch(/ {2}on Monday 5th of September 2022 @ 02:15:07 PM$/);
    }
  });

  it("builds guid from the configured site url without doubling the slash", async () => {
    const { admin, user, wallet } = await setup();
    await creditAt(NOW, admin, { user_id: user.id, wallet_id: wallet, amount: 1500 });
    const [record] = (
      await list(admin, { user_id: user.id }, { SITE_URL: "https://shop.example.test/" })
    ).body.data;
    expect(record.guid).toBe(
      `https://shop.example.test/wallettransaction/${slugFor(user.username)}/`,
    );
  });

  it("suffixes -2 and -3 to identical titles in the same second", async () => {
    const { admin, user, wallet } = await setup();
    for (let i = 0; i < 3; i++)
      await creditAt(NOW, admin, { user_id: user.id, wallet_id: wallet, amount: 1500 });
    const slug = slugFor(user.username);
    const res = await list(admin, { user_id: user.id, order: "asc" });
    expect(res.body.data.map((r: Json) => r.post_name)).toEqual([slug, `${slug}-2`, `${slug}-3`]);
    expect(res.body.data.map((r: Json) => r.guid)).toEqual(
      [slug, `${slug}-2`, `${slug}-3`].map(
        (s) => `https://wallet.example.test/wallettransaction/${s}/`,
      ),
    );
  });

  it("keeps long slugs, suffixed ones included, within 200 characters", async () => {
    const { admin, user, wallet } = await setup({ name: "é".repeat(99) });
    for (let i = 0; i < 2; i++)
      await creditAt(NOW, admin, { user_id: user.id, wallet_id: wallet, amount: 1500 });
    const [first, second] = (await list(admin, { user_id: user.id, order: "asc" })).body.data.map(
      (r: Json) => r.post_name as string,
    );
    expect(first).toMatch(
      new RegExp(
        `^transaction-by-${user.username}-type-credit-wallet-info-%e2%82%a61500-00-(%c3%a9)+$`,
      ),
    );
    expect(first!.length).toBeLessThanOrEqual(200);
    expect(second).toBe(`${first}-2`);
  });

  it("keeps the amount as sent and formats it with the wallet's decimals", async () => {
    const { admin, user, wallet } = await setup();
    await creditAt(NOW, admin, { user_id: user.id, wallet_id: wallet, amount: "100.50" });
    await creditAt(NOW + 1000, admin, { user_id: user.id, wallet_id: wallet, amount: 100.5 });
    const [text, number] = (await list(admin, { user_id: user.id, order: "asc" })).body.data;
    expect(text).toMatchObject({
      amount: "100.50",
      post_content: "Amount:100.50",
      amount_formatted_disp: "₦100.50",
      note: "",
    });
    expect(number).toMatchObject({
      amount: "100.5",
      post_content: "Amount:100.5",
      amount_formatted_disp: "₦100.50",
    });
    expect(number.post_title).toContain("Wallet Info: ₦100.50 Naira Wallet  on");
  });

  it("formats a right-positioned symbol after the number but keeps it first in the title", async () => {
    const { admin, user, wallet } = await setup({
      name: "Reward Coin",
      symbol: "RMPNCOIN",
      position: "right",
      decimals: 0,
    });
    await creditAt(NOW, admin, { user_id: user.id, wallet_id: wallet, amount: 12000 });
    const [record] = (await list(admin, { user_id: user.id })).body.data;
    expect(record).toMatchObject({
      wallet_symbol: "RMPNCOIN",
      wallet_decimal: 0,
      amount: "12000",
      amount_formatted_disp: "12,000 RMPNCOIN",
    });
    expect(record.post_title).toBe(
      `TRANSACTION by ${user.username}, Type: CREDIT, Wallet Info: RMPNCOIN12,000 Reward Coin  on Monday 5th of September 2022 @ 02:15:07 PM`,
    );
  });
});

describe("GET /transactions paging, order and filters", () => {
  /** Five credits one second apart, oldest first; answers their ids. */
  async function five() {
    const ctx = await setup();
    const made: number[] = [];
    for (let i = 0; i < 5; i++)
      made.push(
        await creditAt(NOW + i * 1000, ctx.admin, {
          user_id: ctx.user.id,
          wallet_id: ctx.wallet,
          amount: i + 1,
        }),
      );
    return { ...ctx, made };
  }

  it("pages with per_page and page (alias pageno) and sends X-WP-Total and X-WP-TotalPages", async () => {
    const { admin, user, made } = await five();
    const pages = [];
    const queries: Record<string, number>[] = [
      { page: 1 },
      { page: 2 },
      { pageno: 2 },
      { page: 3 },
    ];
    for (const query of queries) {
      const res = await list(admin, { user_id: user.id, per_page: 2, order: "asc", ...query });
      expect(res.status).toBe(200);
      expect([res.headers.get("X-WP-Total"), res.headers.get("X-WP-TotalPages")]).toEqual([
        "5",
        "3",
      ]);
      pages.push(ids(res.body));
    }
    expect(pages).toEqual([made.slice(0, 2), made.slice(2, 4), made.slice(2, 4), made.slice(4)]);
  });

  it("walks a history growing between pages: asc neither repeats nor skips, desc repeats", async () => {
    const { admin, user, wallet, made } = await five();
    const walk = async (order: string) => {
      const seen: number[] = [];
      let late = 0;
      for (let page = 1; ; page++) {
        const res = await list(admin, { user_id: user.id, per_page: 2, page, order });
        if (res.body.data.length === 0) return { seen, late };
        seen.push(...ids(res.body));
        if (page === 1)
          late = await creditAt(NOW + 10_000, admin, {
            user_id: user.id,
            wallet_id: wallet,
            amount: 9,
          });
      }
    };
    const asc = await walk("asc");
    expect(asc.seen).toEqual([...made, asc.late]);
    const desc = await walk("desc");
    // The entry written after page 1 moved every later page down by one, and is not in the walk.
    expect(desc.seen).toEqual([asc.late, made[4], made[4], made[3], made[2], made[1], made[0]]);
    expect(desc.seen).not.toContain(desc.late);
  });

  it("walks asc a history a concurrent write lands in behind the last page: dated at its start, committed later", async () => {
    // A write is dated when its request builds the entry, and commits after its round trip (or its
    // wait in a shared batch): one started first may commit after one started later, on a clock
    // that only goes forward, no import and no step of it.
    const { admin, user, wallet, made } = await five();
    let clock = NOW + 4_950;
    let release = () => {};
    let sent = () => {};
    const reached = new Promise<void>((r) => {
      sent = r;
    });
    const held = new Promise<void>((r) => {
      release = r;
    });
    const slow = wrappedD1(async (_statements, send) => {
      sent();
      await held;
      return send();
    });
    const first = call("POST", "/credits", {
      app: testApp({ nowMs: () => clock }),
      auth: admin.bearer,
      body: { request_id: unique("slow"), user_id: user.id, wallet_id: wallet, amount: 7 },
      d1: slow,
    });
    await reached;
    clock = NOW + 5_010;
    const later = await call("POST", "/credits", {
      app: testApp({ nowMs: () => clock }),
      auth: admin.bearer,
      body: { request_id: unique("fast"), user_id: user.id, wallet_id: wallet, amount: 8 },
    });
    expect(later.status, later.text).toBe(200);
    const page1 = ids(
      (await list(admin, { user_id: user.id, per_page: 6, page: 1, order: "asc" })).body,
    );
    release();
    const slowId = ((await first).body.data as Json).transaction_id as number;
    const page2 = ids(
      (await list(admin, { user_id: user.id, per_page: 6, page: 2, order: "asc" })).body,
    );
    const laterId = later.body.data.transaction_id as number;
    expect(page1).toEqual([...made, laterId]);
    // Dated before the last entry of page 1, it lands inside it: page 2 repeats that entry, and the
    // walk misses the late one.
    expect(page2).toEqual([laterId]);
    // Read again from some seconds before the newest entry seen, it is there (docs/api.md).
    const again = await list(admin, {
      user_id: user.id,
      per_page: 100,
      page: 1,
      order: "asc",
      after: new Date(NOW).toISOString(),
    });
    expect(ids(again.body).filter((id) => !page1.includes(id as number))).toEqual([slowId]);
  });

  it("defaults to page 1 of 100 records", async () => {
    const { admin, user, made } = await five();
    const res = await list(admin, { user_id: user.id, order: "asc" });
    expect(ids(res.body)).toEqual(made);
    expect(res.headers.get("X-WP-TotalPages")).toBe("1");
  });

  it("answers 200 with [] for a page past the end", async () => {
    const { admin, user } = await five();
    const res = await list(admin, { user_id: user.id, per_page: 2, page: 4 });
    expect(res.status).toBe(200);
    expect(res.body).toStrictEqual({
      status_code: 200,
      status: true,
      message: "Txns Retrieved Successful",
      data: [],
    });
    expect(res.headers.get("X-WP-Total")).toBe("5");
  });

  it("answers 400 keyed per_page or page for values out of range", async () => {
    const { admin, user } = await setup();
    for (const query of [{ per_page: 0 }, { per_page: 101 }, { per_page: "ten" }]) {
      const res = await list(admin, { user_id: user.id, ...query });
      expect(res.status).toBe(400);
      expect(invalidKeys(res.body)).toEqual(["per_page"]);
    }
    expect(invalidKeys((await list(admin, { user_id: user.id, page: 0 })).body)).toEqual(["page"]);
  });

  it("orders by date then ID, newest first by default", async () => {
    const { admin, user, wallet } = await setup();
    const at = [NOW + 2000, NOW, NOW + 1000, NOW + 1000];
    const made = [];
    for (const ms of at)
      made.push(await creditAt(ms, admin, { user_id: user.id, wallet_id: wallet, amount: 1 }));
    const asc = [made[1], made[2], made[3], made[0]];
    expect(ids((await list(admin, { user_id: user.id, order: "asc" })).body)).toEqual(asc);
    expect(ids((await list(admin, { user_id: user.id, order: "desc" })).body)).toEqual(
      [...asc].reverse(),
    );
    expect(ids((await list(admin, { user_id: user.id })).body)).toEqual([...asc].reverse());
  });

  it("filters by wallet_id and txn_type and counts only what matches", async () => {
    const { admin, user, wallet } = await setup();
    const other = await makeWallet(admin);
    const mine = await creditAt(NOW, admin, { user_id: user.id, wallet_id: wallet, amount: 1 });
    await creditAt(NOW, admin, { user_id: user.id, wallet_id: other, amount: 2 });
    const res = await list(admin, { user_id: user.id, wallet_id: wallet.toUpperCase() });
    expect(ids(res.body)).toEqual([mine]);
    expect(res.headers.get("X-WP-Total")).toBe("1");
    expect(ids((await list(admin, { user_id: user.id, txn_type: "CREDIT" })).body)).toHaveLength(2);
    expect((await list(admin, { user_id: user.id, txn_type: "DEBIT" })).body.data).toEqual([]);
    // The choices are read in any letter case.
    expect(ids((await list(admin, { user_id: user.id, txn_type: "credit" })).body)).toHaveLength(2);
    const ascending = ids((await list(admin, { user_id: user.id, order: "ASC" })).body);
    expect(ascending).toEqual([...ascending].sort((a, b) => a - b));
    expect(ascending).toHaveLength(2);
  });

  it("filters by after and before in ISO 8601", async () => {
    const { admin, user, wallet } = await setup();
    const made = [];
    for (let i = 0; i < 3; i++)
      made.push(
        await creditAt(NOW + i * HOUR, admin, { user_id: user.id, wallet_id: wallet, amount: 1 }),
      );
    // 14:15:07, 15:15:07 and 16:15:07 UTC
    expect(
      ids(
        (
          await list(admin, {
            user_id: user.id,
            after: "2022-09-05T15:00:00Z",
            before: "2022-09-05T16:00:00Z",
          })
        ).body,
      ),
    ).toEqual([made[1]]);
    expect(
      ids(
        (await list(admin, { user_id: user.id, after: "2022-09-05T16:00:00+01:00", order: "asc" }))
          .body,
      ),
    ).toEqual([made[1], made[2]]);
    expect(
      ids((await list(admin, { user_id: user.id, before: "2022-09-05T14:30:00Z" })).body),
    ).toEqual([made[0]]);
    // Entries are dated in whole seconds: one dated 14:15:07 is before 14:15:07.5, not after it,
    // and neither before nor after 14:15:07 itself.
    const around = async (query: Record<string, string>) =>
      ids((await list(admin, { user_id: user.id, order: "asc", ...query })).body);
    expect(await around({ before: "2022-09-05T14:15:07.500Z" })).toEqual([made[0]]);
    expect(await around({ before: "2022-09-05T14:15:07Z" })).toEqual([]);
    expect(await around({ after: "2022-09-05T14:15:07.500Z" })).toEqual([made[1], made[2]]);
    expect(await around({ after: "2022-09-05T14:15:06.999Z" })).toEqual(made);
    // Past the millisecond too: 14:15:07.0001 is after 14:15:07, and 14:15:07.9999 before 14:15:08.
    expect(await around({ before: "2022-09-05T14:15:07.0001Z" })).toEqual([made[0]]);
    expect(await around({ before: "2022-09-05T14:15:07.000000001Z" })).toEqual([made[0]]);
    expect(await around({ before: "2022-09-05T14:15:07.0000Z" })).toEqual([]);
    expect(await around({ after: "2022-09-05T14:15:06.9999Z" })).toEqual(made);
  });

  it("answers 400 keyed by the parameter for an unknown wallet, txn_type, date or order", async () => {
    const { admin, user } = await setup();
    const cases: [Record<string, string>, string][] = [
      [{ wallet_id: "nosuchwallet" }, "wallet_id"],
      [{ txn_type: "REFUND" }, "txn_type"],
      // A letter that upper-cases to an ASCII one (dotless ı to I) is no CREDIT: A-Z fold alone.
      [{ txn_type: "cred\u0131t" }, "txn_type"],
      [{ after: "yesterday" }, "after"],
      [{ after: "2022-02-31" }, "after"],
      [{ before: "05/09/2022" }, "before"],
      [{ order: "sideways" }, "order"],
      // PHP's list syntax names the parameter with a list, refused as a JSON list is: a filter sent
      // so must never answer unfiltered.
      [{ "wallet_id[]": "ngn" }, "wallet_id"],
      [{ "txn_type[]": "DEBIT" }, "txn_type"],
      [{ "after[0]": "2030-01-01" }, "after"],
      [{ "page[]": "1" }, "page"],
    ];
    for (const [query, key] of cases) {
      const res = await list(admin, { user_id: user.id, ...query });
      expect(res.status, key).toBe(400);
      expect(invalidKeys(res.body), key).toEqual([key]);
    }
  });
});

describe("GET /transactions access and validation", () => {
  it("answers 400 when security_code is absent, empty or not an integer", async () => {
    const { admin, user } = await setup();
    const missing = {
      status_code: 400,
      status: false,
      message: "invalid input",
      error: { security_code: "Field Cannot be empty" },
    };
    const absent = await createApp().request(
      `${API}/transactions?user_id=${user.id}`,
      { headers: { Authorization: admin.bearer } },
      { ...env, TRANSACTIONS_SECURITY_CODE: undefined },
    );
    expect(absent.status).toBe(400);
    expect(await absent.json()).toStrictEqual(missing);
    expect((await list(admin, { user_id: user.id, security_code: "" })).body).toStrictEqual(
      missing,
    );
    for (const security_code of ["abc", "12.5", "1e3"]) {
      const res = await list(admin, { user_id: user.id, security_code });
      expect(res.status, security_code).toBe(400);
      expect(invalidKeys(res.body)).toEqual(["security_code"]);
    }
  });

  // Contract section 7: with no code configured, any integer passes, however many its digits.
  it("takes an integer of any length as security_code, matched as written", async () => {
    const { admin, user } = await setup();
    const long = `-${"9".repeat(40)}`;
    for (const security_code of ["9".repeat(19), long]) {
      const res = await list(admin, { user_id: user.id, security_code });
      expect(res.status, security_code).toBe(200);
    }
    const set = { TRANSACTIONS_SECURITY_CODE: long };
    expect((await list(admin, { user_id: user.id, security_code: long }, set)).status).toBe(200);
    const other = `-${"9".repeat(39)}8`;
    expect((await list(admin, { user_id: user.id, security_code: other }, set)).status).toBe(401);
  });

  it("checks the configured security code: wrong gives 401, right gives 200", async () => {
    const { admin, user } = await setup();
    const wrong = await list(
      admin,
      { user_id: user.id, security_code: 1111 },
      { TRANSACTIONS_SECURITY_CODE: "4242" },
    );
    expect(wrong.status).toBe(401);
    expect(wrong.body).toMatchObject({
      status_code: 401,
      status: false,
      message: "Security verification failed",
    });
    expect(wrong.body).not.toHaveProperty("data");
    const right = await list(
      admin,
      { user_id: user.id, security_code: 4242 },
      { TRANSACTIONS_SECURITY_CODE: "4242" },
    );
    expect(right.status).toBe(200);
  });

  it("answers 400 keyed user_id when an administrator omits it or sends a bad one", async () => {
    const { admin } = await setup();
    for (const query of [{}, { user_id: "abc" }, { user_id: "0" }, { user_id: "-4" }] as Record<
      string,
      string
    >[]) {
      const res = await list(admin, query);
      expect(res.status).toBe(400);
      expect(invalidKeys(res.body)).toEqual(["user_id"]);
    }
  });

  it("lets a subscriber list its own transactions with or without user_id", async () => {
    const { admin, user, wallet } = await setup();
    const id = await creditAt(NOW, admin, { user_id: user.id, wallet_id: wallet, amount: 3 });
    expect(ids((await list(user, {})).body)).toEqual([id]);
    expect(ids((await list(user, { user_id: user.id })).body)).toEqual([id]);
  });

  it("answers 404 for an unknown user", async () => {
    const { admin } = await setup();
    const res = await list(admin, { user_id: 987654321 });
    expect(res.status).toBe(404);
    expect(res.body).toStrictEqual({
      status_code: 404,
      status: false,
      message: "Invalid User credentials",
      error: ["Unable to reach 987654321"],
    });
  });

  it("answers an unknown wallet's 400 before an unknown user's 404 (validation before existence)", async () => {
    const { admin } = await setup();
    const res = await list(admin, { user_id: 987654321, wallet_id: "nosuchwallet" });
    expect(res.status).toBe(400);
    expect(invalidKeys(res.body)).toEqual(["wallet_id"]);
  });

  it("answers 200 with [] for a user without history", async () => {
    const { admin, user } = await setup();
    const res = await list(admin, { user_id: user.id });
    expect(res.status).toBe(200);
    expect(res.body).toStrictEqual({
      status_code: 200,
      status: true,
      message: "Txns Retrieved Successful",
      data: [],
    });
    expect([res.headers.get("X-WP-Total"), res.headers.get("X-WP-TotalPages")]).toEqual(["0", "0"]);
  });
});
