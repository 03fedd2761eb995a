// Writes a large WordPress dump, in mysqldump's format and table order, to measure the importer:
//   npx tsx scripts/import/generate-large-dump.ts [--transactions 1000000] [--users 10000] [--out /tmp/wp-large.sql]
// Each transaction is what the plugin writes: a post, its meta (amount, currency, txn_type, note,
// request_id, txn_request_id, balances, funds_type) and its term links; a share are transfers; a few
// stored balances disagree with their entries. Deterministic: the same arguments give the same file.
// `--client-meta N`: every Nth transaction also has the meta_data keys a client sent (channel,
// order_ref); `--other-posts N`: N product posts with meta of their own (to measure that neither
// the spill nor memory takes it).
import { closeSync, openSync, writeSync } from "node:fs";
import { parseArgs } from "node:util";
import { minorToText } from "../../src/ledger/money";
import { mysqlDate, postTitle, slugify } from "../../src/ledger/post-format";
import { DUMP_FOOTER, DUMP_HEADER, type DumpCell, writeTable } from "./mysqldump-writer";

const { values } = parseArgs({
  options: {
    transactions: { type: "string", default: "1000000" },
    users: { type: "string", default: "10000" },
    out: { type: "string", default: "/tmp/wp-large.sql" },
    prefix: { type: "string", default: "wp_" },
    "client-meta": { type: "string", default: "0" },
    "other-posts": { type: "string", default: "0" },
  },
});
const CLIENT_META = Number(values["client-meta"]);
const OTHER_POSTS = Number(values["other-posts"]);
/** Product posts (ids from here) with meta of their own, beside the transactions. */
const FIRST_OTHER_ID = 1 << 30;
const N = Number(values.transactions);
const USERS = Number(values.users);
const P = values.prefix;

type SiteWallet = {
  post: number;
  id: string;
  name: string;
  symbol: string;
  shown: string;
  decimals: number;
  position: string;
};

const WALLETS: SiteWallet[] = [
  {
    post: 4,
    id: "ngn",
    name: "Naira Wallet",
    symbol: "&#8358;",
    shown: "₦",
    decimals: 2,
    position: "left",
  },
  {
    post: 5,
    id: "usd",
    name: "Dollar Wallet",
    symbol: "$",
    shown: "$",
    decimals: 2,
    position: "left",
  },
  {
    post: 6,
    id: "pts",
    name: "Reward Points",
    symbol: "PTS",
    shown: "PTS",
    decimals: 0,
    position: "right",
  },
];
const FIRST_TXN_ID = 100;
const BASE_S = Date.UTC(2021, 0, 1) / 1000;

/** A deterministic pseudo-random number in [0, 1) for (i, salt). */
function rand(i: number, salt: number) {
  let t = (i * 2654435761 + salt * 374761393) >>> 0;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}

const mysql = (s: number) => mysqlDate(s, "UTC");

type Txn = {
  id: number;
  user: number;
  wallet: SiteWallet;
  minor: number;
  type: "CREDIT" | "DEBIT";
  createdAtS: number;
  transfer: number | null;
  slot: number;
};

/**
 * The transactions in id order, computed the same way on every pass: per (user, wallet) running
 * balances decide debits (never below zero, except for the few users meant to go below zero).
 */
function* transactions(): Generator<Txn> {
  const balances = new Float64Array(USERS * WALLETS.length);
  for (let i = 0; i < N; i++) {
    const id = FIRST_TXN_ID + i + Math.floor(i / 1000); // a free id after every thousand, as deleted posts leave
    const user = 1 + Math.floor(rand(i, 1) * USERS);
    const w = Math.floor(rand(i, 2) * WALLETS.length);
    const wallet = WALLETS[w]!;
    const slot = (user - 1) * WALLETS.length + w;
    const unit = 10 ** wallet.decimals;
    const minor = Math.max(1, Math.floor(rand(i, 3) * 5000 * unit));
    let type: Txn["type"] = "CREDIT";
    const overdraw = user % 997 === 0; // a few histories that go below zero
    if (rand(i, 4) < 0.45 && (balances[slot]! >= minor || overdraw)) type = "DEBIT";
    const createdAtS = BASE_S + Math.floor(i * 60 + rand(i, 5) * 50);
    const transfer = type === "DEBIT" && rand(i, 6) < 0.1 && i + 1 < N ? "out" : null;
    balances[slot]! += type === "CREDIT" ? minor : -minor;
    yield { id, user, wallet, minor, type, createdAtS, transfer: transfer ? id + 1 : null, slot };
    if (transfer) {
      // The receiving half, the next post, to another user.
      i++;
      const to = 1 + ((user + Math.floor(rand(i, 7) * (USERS - 1))) % USERS);
      const slot2 = (to - 1) * WALLETS.length + w;
      balances[slot2]! += minor;
      yield {
        id: id + 1,
        user: to,
        wallet,
        minor,
        type: "CREDIT",
        createdAtS,
        transfer: id,
        slot: slot2,
      };
    }
  }
}

const amountText = (t: Txn) => minorToText(t.minor, t.wallet.decimals);
const username = (u: number) => `user${u}`;
function titleOf(t: Txn) {
  return postTitle({
    username: username(t.user),
    txnType: t.type,
    amountMinor: t.minor,
    wallet: {
      symbol: t.wallet.shown,
      symbolPosition: "left",
      decimals: t.wallet.decimals,
      name: t.wallet.name,
    },
    createdAtS: t.createdAtS,
  });
}

const fd = openSync(values.out, "w");
let pending = "";
const write = (text: string) => {
  pending += text;
  if (pending.length > 1 << 22) {
    writeSync(fd, pending);
    pending = "";
  }
};
write(DUMP_HEADER);
const started = Date.now();

// wp_postmeta: wallets, then every transaction's meta (ids in insertion order, as WordPress writes them)
writeTable(
  write,
  P,
  "postmeta",
  (function* () {
    let metaId = 1;
    for (const w of WALLETS) {
      for (const [k, v] of [
        ["id", w.id],
        ["name", w.name],
        ["symbol", w.symbol],
        ["decimal", String(w.decimals)],
        ["symbol_position", w.position],
        ["type", "fiat"],
        ["note", ""],
      ]) {
        yield [metaId++, w.post, `wallet_wallet_${k}`, v];
      }
    }
    for (const t of transactions()) {
      const amount = amountText(t);
      const rid = `req-${t.id}-${t.user}`;
      yield [metaId++, t.id, "amount", amount];
      yield [metaId++, t.id, "currency", t.wallet.id];
      yield [metaId++, t.id, "txn_type", t.type];
      if (t.id % 7 === 0) yield [metaId++, t.id, "note", `Order #${t.id} — “thanks”\nsecond line`];
      yield [metaId++, t.id, "request_id", rid];
      yield [metaId++, t.id, "txn_request_id", `${t.user}_${rid}`];
      yield [metaId++, t.id, "balance_before", "0"];
      yield [metaId++, t.id, "balance_after", amount];
      yield [metaId++, t.id, "total_balance_before", "0"];
      yield [metaId++, t.id, "total_balance_after", amount];
      yield [metaId++, t.id, "funds_type", "withdrawable"];
      if (t.transfer) yield [metaId++, t.id, "alt_transfer_id", String(t.transfer)];
      if (CLIENT_META > 0 && t.id % CLIENT_META === 0) {
        yield [metaId++, t.id, "channel", t.id % 2 === 0 ? "app" : "web"];
        yield [metaId++, t.id, "order_ref", `ORD-${t.id}`];
      }
    }
    for (let i = 0; i < OTHER_POSTS; i++) {
      const id = FIRST_OTHER_ID + i;
      for (const [k, v] of [
        ["_price", "19.99"],
        ["_sku", `SKU-${i}`],
        ["_stock_status", "instock"],
        ["total_sales", String(i % 100)],
        ["rating", "4.5"],
        ["color", "blue"],
        ["size", "M"],
        ["description_extra", "A product the shop sells, with a few words about it."],
      ])
        yield [metaId++, id, k, v];
    }
  })(),
);
process.stderr.write(`postmeta written (${((Date.now() - started) / 1000).toFixed(0)} s)\n`);

// wp_posts: a page, the wallets, then the transactions
writeTable(
  write,
  P,
  "posts",
  (function* () {
    const post = (
      id: number,
      author: number,
      s: number,
      title: string,
      name: string,
      type: string,
      content = "",
    ): DumpCell[] => [
      id,
      author,
      mysql(s + 3600),
      mysql(s),
      content,
      title,
      "",
      "publish",
      "open",
      "closed",
      "",
      name,
      "",
      "",
      mysql(s + 3600),
      mysql(s),
      "",
      0,
      `https://oldsite.example/?post_type=${type}&p=${id}`,
      0,
      type,
      "",
      0,
    ];
    yield post(2, 1, BASE_S - 86400, "Sample Page", "sample-page", "page", "<p>Hello</p>");
    for (const w of WALLETS)
      yield post(w.post, 1, BASE_S - 3600, w.name, slugify(w.name), "wallettransaction");
    for (const t of transactions()) {
      const title = titleOf(t);
      yield post(
        t.id,
        t.user,
        t.createdAtS,
        title,
        slugify(title),
        "wallettransaction",
        `Amount:${amountText(t)}`,
      );
    }
    for (let i = 0; i < OTHER_POSTS; i++)
      yield post(FIRST_OTHER_ID + i, 1, BASE_S, `Product ${i}`, `product-${i}`, "product");
  })(),
);
process.stderr.write(`posts written (${((Date.now() - started) / 1000).toFixed(0)} s)\n`);

// wp_term_relationships, wp_term_taxonomy, wp_terms
const TERMS: Record<string, number> = {
  CREDIT: 1,
  DEBIT: 2,
  TRANSFERS: 3,
  WALLETS: 4,
  "API-KEYS": 5,
};
writeTable(
  write,
  P,
  "term_relationships",
  (function* () {
    for (const w of WALLETS) yield [w.post, TERMS.WALLETS!, 0];
    for (const t of transactions()) {
      yield [t.id, TERMS[t.type]!, 0];
      if (t.transfer) yield [t.id, TERMS.TRANSFERS!, 0];
    }
  })(),
);
writeTable(
  write,
  P,
  "term_taxonomy",
  Object.values(TERMS).map((id) => [id, id, "wallettransaction_type", "", 0, 0]),
);
writeTable(
  write,
  P,
  "terms",
  Object.entries(TERMS).map(([name, id]) => [id, name, name.toLowerCase(), 0]),
);

// wp_usermeta: names, roles and the stored balances (every 50th user's disagrees)
const final = new Float64Array(USERS * WALLETS.length);
for (const t of transactions()) final[t.slot]! += t.type === "CREDIT" ? t.minor : -t.minor;
writeTable(
  write,
  P,
  "usermeta",
  (function* () {
    let id = 1;
    for (let u = 1; u <= USERS; u++) {
      yield [id++, u, "first_name", `First${u}`];
      yield [id++, u, "last_name", `Last${u}`];
      yield [
        id++,
        u,
        `${P}capabilities`,
        u === 1 ? 'a:1:{s:13:"administrator";b:1;}' : 'a:1:{s:10:"subscriber";b:1;}',
      ];
      for (const [wi, w] of WALLETS.entries()) {
        const minor = final[(u - 1) * WALLETS.length + wi]! + (u % 50 === 0 ? 100 : 0);
        yield [
          id++,
          u,
          `user_withdrawable_bal_${w.id}`,
          w.decimals === 0 ? String(minor) : String(minor / 10 ** w.decimals),
        ];
        yield [id++, u, `user_nonwithdrawable_bal_${w.id}`, ""];
      }
    }
  })(),
);

// wp_users: phpass-looking hashes (not real ones: the import carries them over as they are)
writeTable(
  write,
  P,
  "users",
  (function* () {
    for (let u = 1; u <= USERS; u++) {
      yield [
        u,
        username(u),
        `$P$B${String(u).padStart(8, "0")}abcdefghijklmnopqrstuv`,
        username(u),
        `user${u}@example.com`,
        "",
        mysql(BASE_S - 86400 * 30 + u),
        "",
        0,
        `First${u} Last${u}`,
      ];
    }
  })(),
);
write(DUMP_FOOTER);
writeSync(fd, pending);
closeSync(fd);
process.stderr.write(
  `wrote ${values.out}: ${N} transactions, ${USERS} users, in ${((Date.now() - started) / 1000).toFixed(0)} s\n`,
);
