// The site's own post meta on a CREDIT or DEBIT post (a client's `meta_data`, which the plugin wrote
// key by key as post meta) carried over as the entry's meta_data: found by the plugin dialect's meta
// query as an entry the dialect wrote with that meta_data is, whatever the keys and values hold,
// whichever table the dump writes first, and written once.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { type BucketRecord, createReader, MemoryBuckets } from "../scripts/import/collect";
import { RowTooLongError } from "../scripts/import/plan/context";
import { formatReport } from "../scripts/import/report-text";
import { emptyTarget } from "../scripts/import/target";
import { importFromText } from "../scripts/import/wordpress";
import { compatCall, GUARDED } from "./compat-helpers";
import { CLEAN, type Json, ledgerViolations } from "./helpers";
import { IMPORT_AT, importedAdmin, runImport } from "./import-helpers";
import { SITE_OPTIONS, type SiteCredit, type SiteExtras, siteDump } from "./site-dump";

const [ALICE, BOB] = [2, 3];
const NS = "/wp-json/rimplenet/v1";
const WALLETS = [{ id: "ngn", decimals: 2 }];
const BIG = "x".repeat(5_000);
const HOSTILE: [string, string | null][] = [
  ["__proto__", "polluted"],
  ["constructor", "not a function"],
  ["toString", "neither"],
  ["ctl\u0001key", "a\u0000b\u001b[2J\u202e"],
  ['quote"key', 'v"al\\'],
  ["_edit_lock", "1700000000:1"],
  ["channel", "first"],
  ["channel", "second"],
  ["nothing", null],
  ["big", BIG],
  ["rimplenet_wallet_note", "a key shaped as the plugin's wallet meta"],
];

// Posts 100…: alice's credit a client sent with meta_data, bob's with another channel, alice's
// without any, then the hostile one. Post 500 is a shop's product with meta of its own.
const CREDITS: SiteCredit[] = [
  {
    user: ALICE,
    wallet: "ngn",
    amount: "50",
    meta: [
      ["channel", "app"],
      ["order_ref", "ORD-100"],
    ],
  },
  { user: BOB, wallet: "ngn", amount: "20", meta: [["channel", "web"]] },
  { user: ALICE, wallet: "ngn", amount: "5", type: "DEBIT" },
  { user: ALICE, wallet: "ngn", amount: "1", meta: HOSTILE },
];
const EXTRAS: SiteExtras = {
  otherPosts: [
    {
      id: 500,
      type: "product",
      meta: [
        ["_price", "19.99"],
        ["channel", "app"],
        ["color", "blue"],
      ],
    },
  ],
};
const site = (extras: SiteExtras = EXTRAS, credits = CREDITS) =>
  siteDump(WALLETS, credits, 2, {}, {}, extras);

const storedMeta = async (id: number) =>
  (await env.DB.prepare("SELECT meta_data FROM transactions WHERE id = ?")
    .bind(id)
    .first<{ meta_data: string | null }>())!.meta_data;

const search = async (key: string, value: string) => {
  const res = await compatCall(
    "GET",
    `${NS}/transactions?meta_key=${encodeURIComponent(key)}&meta_value=${encodeURIComponent(value)}&orderby=ID&order=ASC`,
    { vars: GUARDED, headers: { Authorization: await importedAdmin(1, "siteadmin") } },
  );
  expect(res.status, res.text).toBe(200);
  return res.body.message === "Transactions Retrieved" ? (res.body.data as Json[]) : [];
};

/** The records the reader keeps for a post, with the dump's tables in either order. */
function spilled(postsFirst: boolean, postId: number) {
  const buckets = new MemoryBuckets();
  const { parser } = createReader(SITE_OPTIONS, buckets);
  parser.push(site({ ...EXTRAS, postsFirst }));
  parser.end();
  return buckets.read(buckets.bucketOf(postId)).filter((r: BucketRecord) => r[0] === postId);
}

describe("import:wordpress carries a transaction's own post meta as meta_data", () => {
  it("keeps the meta of transaction posts only, whichever table the dump writes first", () => {
    for (const postsFirst of [false, true]) {
      expect(spilled(postsFirst, 500)).toEqual([]);
      expect(spilled(postsFirst, 100)).toContainEqual([100, "x", "order_ref", "ORD-100"]);
      // __proto__ and _edit_lock begin with `_`: WordPress's protected meta, not carried.
      expect(spilled(postsFirst, 103).filter((r) => r[1] === "x")).toHaveLength(HOSTILE.length - 2);
    }
  });

  it("imports it as the dialect keeps a client's meta_data, found by the meta query", async () => {
    const run = await runImport(SITE_OPTIONS, site());
    expect(run.report.refused, JSON.stringify(run.report.refusalReasons)).toBe(false);
    expect(run.report.transactions.imported).toBe(4);
    const m = run.report.transactions.metaData;
    // alice's 2 keys, bob's 1, and the hostile post's 11 rows less __proto__, _edit_lock and
    // channel's second
    expect([m.entries, m.keys]).toEqual([3, 11]);
    expect(m.repeatedKeys.byReason).toEqual({
      "a meta key in several rows: the first kept, as get_post_meta(…, true) reads it": 1,
    });
    expect(m.pastClientLimit.examples).toEqual([
      expect.objectContaining({ id: 103, userId: ALICE }),
    ]);
    const text = formatReport(run.report);
    expect(text).toContain("Post meta carried as meta_data: 11 keys on 3 entries");
    expect(text).toContain("meta_data longer than a client may send (1):");

    expect(await storedMeta(100)).toBe('{"channel":"app","order_ref":"ORD-100"}');
    expect(await storedMeta(101)).toBe('{"channel":"web"}');
    expect(await storedMeta(102)).toBeNull();

    // The same meta_data sent to the dialect is stored as the same text.
    const sent = await compatCall("POST", `${NS}/credits`, {
      vars: GUARDED,
      headers: {
        "Content-Type": "application/json",
        Authorization: await importedAdmin(1, "siteadmin"),
      },
      body: JSON.stringify({
        user_id: ALICE,
        wallet_id: "ngn",
        request_id: "after_import",
        amount: "3",
        meta_data: { channel: "app", order_ref: "ORD-100" },
      }),
    });
    expect(sent.status, sent.text).toBe(200);
    const written = sent.body.data.transaction_id as number;
    expect(await storedMeta(written)).toBe(await storedMeta(100));

    const found = await search("channel", "APP");
    expect(found.map((r) => r.ID)).toEqual([100, written]);
    expect(Object.keys(found[0]!)).toEqual(Object.keys(found[1]!));
    expect((await search("order_ref", "ord-100")).map((r) => r.ID)).toEqual([100, written]);
    expect((await search("channel", "web")).map((r) => r.ID)).toEqual([101]);
    expect(await search("channel", "desktop")).toEqual([]);
    expect(await search("color", "blue")).toEqual([]); // the product's
    expect(await ledgerViolations()).toEqual(CLEAN);
  });

  it("keeps hostile keys and values as data: the first row of a key, text as stored", async () => {
    const stored = JSON.parse((await storedMeta(103))!);
    expect(Object.getPrototypeOf(stored)).toBe(Object.prototype);
    expect(Object.keys(stored)).toEqual([
      "constructor",
      "toString",
      "ctl\u0001key",
      'quote"key',
      "channel",
      "nothing",
      "big",
      "rimplenet_wallet_note",
    ]);
    expect(stored).toMatchObject({
      constructor: "not a function",
      toString: "neither",
      "ctl\u0001key": "a\u0000b\u001b[2J\u202e",
      'quote"key': 'v"al\\',
      channel: "first",
      nothing: null,
      big: BIG,
    });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect((await search("toString", "neither")).map((r) => r.ID)).toEqual([103]);
    expect((await search("channel", "first")).map((r) => r.ID)).toEqual([103]);
    expect(await search("channel", "second")).toEqual([]);
    expect(await search("_edit_lock", "1700")).toEqual([]);
    expect((await search("big", "xxx")).map((r) => r.ID)).toEqual([103]);
  });

  it("writes nothing more in a second run", async () => {
    const again = await runImport(SITE_OPTIONS, site());
    expect(again.statements).toEqual([]);
    expect(again.report.transactions.alreadyPresent).toBe(4);
    expect(again.report.transactions.metaData.entries).toBe(3);
    const again2 = await runImport(SITE_OPTIONS, site({ ...EXTRAS, postsFirst: true }));
    expect(again2.statements).toEqual([]);
    expect(await storedMeta(100)).toBe('{"channel":"app","order_ref":"ORD-100"}');
  });
});

describe("import:wordpress refuses meta it cannot carry whole", () => {
  const plan = (text: string, force = false) =>
    importFromText(text, {
      options: { ...SITE_OPTIONS, force },
      target: emptyTarget(),
      nowMs: IMPORT_AT,
    });

  it("refuses, before any statement, a post whose meta makes a statement D1 cannot run", () => {
    const huge: SiteCredit = {
      user: ALICE,
      wallet: "ngn",
      amount: "1",
      meta: [["blob", "y".repeat(100_001)]],
    };
    expect(() => plan(site(EXTRAS, [huge]))).toThrow(RowTooLongError);
    expect(() => plan(site(EXTRAS, [huge]))).toThrow(
      /^transaction post 100 of the dump needs a statement of/,
    );
  });

  it("refuses a dump that holds site meta before the plugin's own and before the posts table", () => {
    const early: SiteCredit[] = [
      { user: ALICE, wallet: "ngn", amount: "1", metaFirst: [["channel", "app"]] },
      { user: BOB, wallet: "ngn", amount: "2", meta: [["channel", "web"]] },
    ];
    const refused = plan(site(EXTRAS, early));
    expect(refused.report.refused).toBe(true);
    expect(refused.report.transactions.metaData.notRead.examples).toEqual([
      expect.objectContaining({ id: 100, userId: ALICE }),
    ]);
    expect(refused.report.refusalReasons).toEqual([
      "the post meta of 1 transaction that the dump holds before its post (export wp_posts before wp_postmeta: mysqldump DB wp_posts wp_postmeta …)",
    ]);
    expect(formatReport(refused.report, { dryRun: true })).toContain("REFUSED: the post meta of 1");

    const forced = plan(site(EXTRAS, early), true);
    expect(forced.report.transactions.imported).toBe(2);
    expect(forced.statements.join("\n")).not.toContain('{"channel":"app"}');

    // The posts table first: every row is read.
    const ordered = plan(site({ ...EXTRAS, postsFirst: true }, early));
    expect(ordered.report.refused).toBe(false);
    expect(ordered.statements.join("\n")).toContain(`'{"channel":"app"}'`);
  });
});
