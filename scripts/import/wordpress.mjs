// From a WordPress site's tables (as sql-dump.mjs reads them from a mysqldump) to this service's
// ledger: what to carry over, what the site's data says that the ledger cannot hold as it is, and the
// SQL that writes it. Pure JavaScript without Node APIs, so the Worker tests run the very code the
// CLI (scripts/import-wordpress.mjs) runs; the CLI adds the file, the spill to disk and wrangler.
//
// Memory: users, user meta, terms and wallet definitions are kept whole (they are small next to the
// transactions); transaction posts, their meta and their term links go to a `buckets` store keyed by
// post id ranges (on disk for the CLI, MemoryBuckets in tests), then are read back one bucket at a
// time in id order. What stays in memory per transaction is a 64-bit fingerprint of its
// (user, request_id), to report duplicates, and a few numbers per (user, wallet).
import {
  asciiLower,
  decimalToMinor,
  exactText,
  MAX_MINOR,
  MAX_STORAGE_DECIMALS,
  mysqlUtc,
  postTitle,
  readSiteAmount,
  SLUG_MAX,
  slugify,
  storageDecimals,
} from "./ledger-format.mjs";
import { DumpParser } from "./sql-dump.mjs";

export const DEFAULT_OPTIONS = {
  prefix: "wp_",
  namespace: "wallet",
  balances: "ledger",
  force: false,
};

// Column orders of a stock WordPress schema, for INSERTs written without column lists and no
// CREATE TABLE in the dump.
const DEFAULT_COLUMNS = {
  users: [
    "ID",
    "user_login",
    "user_pass",
    "user_nicename",
    "user_email",
    "user_url",
    "user_registered",
    "user_activation_key",
    "user_status",
    "display_name",
  ],
  usermeta: ["umeta_id", "user_id", "meta_key", "meta_value"],
  posts: [
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
  ],
  postmeta: ["meta_id", "post_id", "meta_key", "meta_value"],
  terms: ["term_id", "name", "slug", "term_group"],
  term_taxonomy: ["term_taxonomy_id", "term_id", "taxonomy", "description", "parent", "count"],
  term_relationships: ["object_id", "term_taxonomy_id", "term_order"],
};

// The post fields kept for transaction-type posts, in this order in the buckets.
const POST_FIELDS = [
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
  "post_mime_type",
  "comment_count",
];

// What the service's records always answer for these post fields (contract section 7).
const FIXED_FIELDS = {
  post_excerpt: "",
  post_status: "publish",
  comment_status: "open",
  ping_status: "closed",
  post_password: "",
  to_ping: "",
  pinged: "",
  post_content_filtered: "",
  post_parent: "0",
  menu_order: "0",
  post_mime_type: "",
  comment_count: "0",
};

// Post meta of a transaction that the import reads.
const TXN_META = new Set([
  "amount",
  "currency",
  "txn_type",
  "note",
  "request_id",
  "txn_request_id",
  "alt_transfer_id",
]);

const ZERO_DATE = "0000-00-00 00:00:00";
const WALLET_ID = /^[a-z][a-z0-9_]{0,31}$/;
export const IMPORT_KEY_PREFIX = "wp-import:";
const MAX_LISTED = 200; // examples kept per list in the report; counts are always complete

// ---------------------------------------------------------------------------------------------
// Small pure helpers

const NAMED_ENTITIES = {
  amp: "&",
  lt: "<",
  gt: ">",
  quot: '"',
  apos: "'",
  nbsp: "\u00a0",
  euro: "€",
  pound: "£",
  yen: "¥",
  cent: "¢",
  curren: "¤",
  dollar: "$",
  copy: "©",
  reg: "®",
  trade: "™",
  deg: "°",
  times: "×",
  divide: "÷",
  laquo: "«",
  raquo: "»",
  middot: "·",
  bull: "•",
  hellip: "…",
  ndash: "–",
  mdash: "—",
  lsquo: "‘",
  rsquo: "’",
  ldquo: "“",
  rdquo: "”",
  sect: "§",
  para: "¶",
  micro: "µ",
  fnof: "ƒ",
};

/** HTML entities to characters: `&#8358;` → ₦, `&#x20B9;` → ₹, `&euro;` → €; unknown ones stay. */
export function decodeEntities(text) {
  return String(text).replace(
    /&(#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});/g,
    (whole, body) => {
      if (body[0] === "#") {
        const code =
          body[1] === "x" || body[1] === "X"
            ? parseInt(body.slice(2), 16)
            : parseInt(body.slice(1), 10);
        return code > 0 && code <= 0x10ffff && !(code >= 0xd800 && code <= 0xdfff)
          ? String.fromCodePoint(code)
          : whole;
      }
      return NAMED_ENTITIES[body] ?? NAMED_ENTITIES[body.toLowerCase()] ?? whole;
    },
  );
}

/** Role names granted in a PHP-serialized capabilities array: a:1:{s:13:"administrator";b:1;}. */
export function parseRoles(serialized) {
  const roles = [];
  const re = /s:\d+:"((?:[^"\\]|\\.)*)";(?:b:1|i:1|s:1:"1")/g;
  for (let m; (m = re.exec(String(serialized ?? ""))); ) roles.push(m[1]);
  return roles;
}

/** Which WordPress password hash this is (the same rules as src/auth/wordpress-hashes.ts). */
export function passwordHashKind(hash) {
  // The work factors sign-in accepts (src/auth/wordpress-hashes.ts): bcrypt cost 4-12, phpass 2^7-2^16.
  if (/^[0-9a-f]{32}$/i.test(hash)) return "md5";
  if (/^\$wp\$2[aby]\$(?:0[4-9]|1[0-2])\$[./A-Za-z0-9]{53}$/.test(hash)) return "wp-bcrypt";
  if (/^\$P\$[5-9A-E][./A-Za-z0-9]{30}$/.test(hash)) return "phpass";
  if (/^\$2[aby]\$(?:0[4-9]|1[0-2])\$[./A-Za-z0-9]{53}$/.test(hash)) return "bcrypt";
  if (/^pbkdf2_sha256\$/.test(hash)) return "pbkdf2";
  return "unknown";
}

/** Epoch seconds of a MySQL DATETIME read as UTC; null for the zero date or anything else. */
export function utcSeconds(text) {
  const m = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})$/.exec(String(text ?? ""));
  if (!m || text === ZERO_DATE || m[1] === "0000") return null;
  const ms = Date.UTC(+m[1], +m[2] - 1, +m[3], +m[4], +m[5], +m[6]);
  return Number.isFinite(ms) ? ms / 1000 : null;
}

/** An SQL literal: text quoted (NUL bytes through a hex blob), numbers as they are, null as NULL. */
export function sqlLiteral(value) {
  if (value === null || value === undefined) return "NULL";
  if (typeof value === "number") {
    if (!Number.isSafeInteger(value)) throw new Error(`not an exact integer: ${value}`);
    return String(value);
  }
  const text = String(value);
  if (text.includes("\0")) {
    const hex = [...new TextEncoder().encode(text)]
      .map((b) => b.toString(16).padStart(2, "0"))
      .join("");
    return `CAST(X'${hex}' AS TEXT)`;
  }
  return `'${text.replaceAll("'", "''")}'`;
}

const pairKey = (userId, walletId) => `${userId}\t${walletId}`;

/** A growable set of 64-bit fingerprints (two 32-bit lanes, open addressing): 8 bytes a slot. */
class FingerprintSet {
  constructor() {
    this.size = 0;
    this.alloc(1 << 16);
  }
  alloc(capacity) {
    this.capacity = capacity;
    this.hi = new Uint32Array(capacity);
    this.lo = new Uint32Array(capacity);
  }
  static hash(text) {
    let h1 = 0xdeadbeef;
    let h2 = 0x41c6ce57;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      h1 = Math.imul(h1 ^ c, 2654435761);
      h2 = Math.imul(h2 ^ c, 1597334677);
    }
    h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
    h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
    return [h1 >>> 0 || 1, h2 >>> 0];
  }
  /** Adds; false when it was there already. */
  add(text) {
    if ((this.size + 1) * 2 > this.capacity) this.grow();
    const [h, l] = FingerprintSet.hash(text);
    return this.insert(h, l);
  }
  insert(h, l) {
    let i = (h ^ l) & (this.capacity - 1);
    while (this.hi[i] !== 0) {
      if (this.hi[i] === h && this.lo[i] === l) return false;
      i = (i + 1) & (this.capacity - 1);
    }
    this.hi[i] = h;
    this.lo[i] = l;
    this.size++;
    return true;
  }
  grow() {
    const [hi, lo] = [this.hi, this.lo];
    this.alloc(this.capacity * 2);
    this.size = 0;
    for (let i = 0; i < hi.length; i++) if (hi[i] !== 0) this.insert(hi[i], lo[i]);
  }
}

/** Counts by reason with a few examples each. */
class Tally {
  constructor() {
    this.counts = {};
    this.examples = [];
  }
  add(reason, example, n = 1) {
    this.counts[reason] = (this.counts[reason] ?? 0) + n;
    if (this.examples.length < MAX_LISTED) this.examples.push({ reason, ...example });
  }
  get total() {
    return Object.values(this.counts).reduce((a, b) => a + b, 0);
  }
  toJSON() {
    return { total: this.total, byReason: this.counts, examples: this.examples };
  }
}

// ---------------------------------------------------------------------------------------------
// Buckets: transaction posts, their meta and term links, grouped by post id range.

/** The in-memory bucket store (tests, small dumps); the CLI's SpillBuckets has the same interface. */
export class MemoryBuckets {
  constructor(width = 1024) {
    this.width = width;
    this.map = new Map();
  }
  add(postId, record) {
    const b = Math.floor(postId / this.width);
    let list = this.map.get(b);
    if (!list) this.map.set(b, (list = []));
    list.push([postId, ...record]);
  }
  finish() {}
  indexes() {
    return [...this.map.keys()].sort((a, b) => a - b);
  }
  bucketOf(postId) {
    return Math.floor(postId / this.width);
  }
  read(b) {
    return this.map.get(b) ?? [];
  }
}

/** Groups one bucket's records by post: Map id → { post, meta, ttids }, ids ascending. */
function groupBucket(records) {
  const posts = new Map();
  const at = (id) => {
    let p = posts.get(id);
    if (!p) posts.set(id, (p = { id, post: null, meta: {}, ttids: [] }));
    return p;
  };
  for (const rec of records) {
    const [id, kind] = rec;
    const p = at(id);
    if (kind === "p") p.post = Object.fromEntries(POST_FIELDS.map((f, i) => [f, rec[2][i]]));
    // get_post_meta(…, true) answers the first row of a key, as mysqldump writes them in meta_id order.
    else if (kind === "m") {
      if (!(rec[2] in p.meta)) p.meta[rec[2]] = rec[3];
    } else if (kind === "r") p.ttids.push(rec[2]);
  }
  return [...posts.values()].filter((p) => p.post !== null).sort((a, b) => a.id - b.id);
}

// ---------------------------------------------------------------------------------------------
// Collecting: the rows of the dump, table by table.

export class WordPressCollector {
  constructor(options, buckets) {
    const { prefix, namespace } = { ...DEFAULT_OPTIONS, ...options };
    this.buckets = buckets;
    this.prefix = prefix;
    this.namespace = namespace;
    this.postType = `${namespace}transaction`;
    this.walletKeyPrefix = `${namespace}_wallet_`;
    this.capabilitiesKey = `${prefix}capabilities`;
    this.tableKinds = new Map(Object.keys(DEFAULT_COLUMNS).map((kind) => [prefix + kind, kind]));
    this.users = new Map();
    this.userMeta = new Map();
    this.walletMeta = new Map();
    this.taxonomies = new Map();
    this.terms = new Map();
    this.rowsPerTable = {};
    this.otherPostTypes = {};
    this.transactionPosts = 0;
    this.indexers = new WeakMap();
  }

  wantTable = (table) => this.tableKinds.has(table);

  /** name → index of the row's columns (cached per column list). */
  indexer(kind, columns) {
    const list = columns ?? DEFAULT_COLUMNS[kind];
    let idx = this.indexers.get(list);
    if (!idx) {
      idx = Object.fromEntries(list.map((c, i) => [c, i]));
      for (const name of DEFAULT_COLUMNS[kind])
        if (!(name in idx)) throw new Error(`table ${this.prefix}${kind} has no column ${name}`);
      this.indexers.set(list, idx);
    }
    return idx;
  }

  onRow = (table, values, columns) => {
    const kind = this.tableKinds.get(table);
    if (!kind) return;
    this.rowsPerTable[table] = (this.rowsPerTable[table] ?? 0) + 1;
    const ix = this.indexer(kind, columns);
    const v = (name) => values[ix[name]];
    switch (kind) {
      case "users": {
        const id = Number(v("ID"));
        this.users.set(id, {
          id,
          login: v("user_login") ?? "",
          pass: v("user_pass") ?? "",
          email: v("user_email") ?? "",
          registered: v("user_registered"),
        });
        break;
      }
      case "usermeta": {
        const key = v("meta_key") ?? "";
        const balance = /^user_(withdrawable|nonwithdrawable)_bal_(.+)$/.exec(key);
        if (key !== "first_name" && key !== "last_name" && key !== this.capabilitiesKey && !balance)
          return;
        const userId = Number(v("user_id"));
        let meta = this.userMeta.get(userId);
        if (!meta) this.userMeta.set(userId, (meta = { balances: {} }));
        const value = v("meta_value") ?? "";
        if (balance) {
          const wallet = balance[2].toLowerCase();
          const pair = (meta.balances[wallet] ??= {});
          pair[balance[1]] ??= value;
        } else if (!(key in meta)) meta[key] = value;
        break;
      }
      case "posts": {
        const type = v("post_type");
        if (type !== this.postType) {
          this.otherPostTypes[type] = (this.otherPostTypes[type] ?? 0) + 1;
          return;
        }
        this.transactionPosts++;
        this.buckets.add(Number(v("ID")), ["p", POST_FIELDS.map((f) => v(f))]);
        break;
      }
      case "postmeta": {
        const key = v("meta_key");
        if (TXN_META.has(key)) this.buckets.add(Number(v("post_id")), ["m", key, v("meta_value")]);
        else if (typeof key === "string" && key.startsWith(this.walletKeyPrefix)) {
          const postId = Number(v("post_id"));
          let meta = this.walletMeta.get(postId);
          if (!meta) this.walletMeta.set(postId, (meta = {}));
          meta[key.slice(this.walletKeyPrefix.length)] ??= v("meta_value");
        }
        break;
      }
      case "terms":
        this.terms.set(Number(v("term_id")), v("name") ?? "");
        break;
      case "term_taxonomy":
        this.taxonomies.set(Number(v("term_taxonomy_id")), {
          termId: Number(v("term_id")),
          taxonomy: v("taxonomy"),
        });
        break;
      case "term_relationships":
        this.buckets.add(Number(v("object_id")), ["r", Number(v("term_taxonomy_id"))]);
        break;
    }
  };
}

// ---------------------------------------------------------------------------------------------
// The target database: what is there already decides what is new, present or in conflict.

/** Read-only queries whose rows targetState() takes; the CLI runs them through wrangler. */
export const TARGET_QUERIES = {
  users: "SELECT id, username, email FROM users",
  wallets: "SELECT id, name, symbol, symbol_position, decimals, extra_decimals, type FROM wallets",
  // foreign: entries the service wrote (not `imported`).
  pairs: `SELECT b.user_id, b.wallet_id, b.balance_minor, b.entry_count,
    (SELECT max(t.id) FROM transactions t WHERE t.user_id = b.user_id AND t.wallet_id = b.wallet_id) AS last_id,
    (SELECT count(*) FROM transactions t WHERE t.user_id = b.user_id AND t.wallet_id = b.wallet_id AND NOT t.imported) AS foreign_n
    FROM balances b`,
  foreign:
    "SELECT count(*) AS n, min(id) AS min_id, max(id) AS max_id FROM transactions WHERE NOT imported",
};

/** The ids of the service's own entries, read when some lie among the site's (to leave out exactly those). */
export const FOREIGN_IDS_QUERY = "SELECT id FROM transactions WHERE NOT imported";

/** Fails on a database without the columns the import writes: its migrations are not all applied. */
export const SCHEMA_CHECK_QUERY =
  "SELECT t.guid, t.local_date, t.modified_local_date, t.modified_gmt_date, t.imported, w.extra_decimals FROM transactions t, wallets w LIMIT 0";

/** The rows of TARGET_QUERIES (by name) as the planner's view of the database. */
export function targetState(rows) {
  const foreign = rows.foreign?.[0] ?? { n: 0 };
  return {
    users: new Map((rows.users ?? []).map((u) => [Number(u.id), u])),
    usernames: new Map(
      (rows.users ?? []).map((u) => [String(u.username).toLowerCase(), Number(u.id)]),
    ),
    emails: new Map((rows.users ?? []).map((u) => [String(u.email).toLowerCase(), Number(u.id)])),
    wallets: new Map((rows.wallets ?? []).map((w) => [w.id, w])),
    pairs: new Map(
      (rows.pairs ?? []).map((p) => [
        pairKey(Number(p.user_id), p.wallet_id),
        {
          balance: Number(p.balance_minor),
          n: Number(p.entry_count),
          lastId: Number(p.last_id),
          foreign: Number(p.foreign_n),
        },
      ]),
    ),
    foreign: {
      n: Number(foreign.n ?? 0),
      minId: foreign.min_id ?? null,
      maxId: foreign.max_id ?? null,
    },
    foreignIds: rows.foreignIds ? new Set(rows.foreignIds.map((r) => Number(r.id))) : null,
  };
}

export const emptyTarget = () => targetState({});

// ---------------------------------------------------------------------------------------------
// SQL

// `imported` is 1 on everything the import writes: the ledger lets those entries be zero or go below
// zero, as the site's did (src/db/schema.ts).
const TXN_COLUMNS =
  "id, user_id, wallet_id, txn_type, amount_minor, amount_text, balance_before_minor, balance_after_minor, request_id, request_key, " +
  "transfer_id, reverses_id, note, title, slug_base, slug, created_at_s, guid, local_date, modified_local_date, modified_gmt_date, imported";

export function userInsert(u) {
  const values = [
    u.id,
    u.username,
    u.email,
    u.passwordHash,
    u.firstName,
    u.lastName,
    u.role,
    u.registeredAtMs,
  ]
    .map(sqlLiteral)
    .join(", ");
  return `INSERT INTO users (id, username, email, password_hash, first_name, last_name, role, registered_at_ms) VALUES (${values}) ON CONFLICT DO NOTHING;`;
}

export function walletInsert(w) {
  const values = [
    w.id,
    w.name,
    w.symbol,
    w.symbolPosition,
    w.decimals,
    w.extraDecimals,
    w.type,
    w.note,
    w.createdAtMs,
  ]
    .map(sqlLiteral)
    .join(", ");
  return `INSERT INTO wallets (id, name, symbol, symbol_position, decimals, extra_decimals, type, note, created_at_ms) VALUES (${values}) ON CONFLICT DO NOTHING;`;
}

// The statements avoid CASE … END (and BEGIN): SQL splitters that look for compound statements, such
// as wrangler's, take them for a trigger body.

/** request_key, unless that user already has it (then the entry is kept, unkeyed). */
function requestKeyExpr(userId, key) {
  if (key === null) return "NULL";
  const k = sqlLiteral(key);
  return `(SELECT ${k} WHERE NOT EXISTS (SELECT 1 FROM transactions WHERE user_id = ${userId} AND request_key = ${k}))`;
}

/**
 * `slug` when no entry has it, else the first free `slug-N` (N = 2, 3, …), as the service's own
 * entries get theirs (src/db/ledger.ts uniqueSlug) and as wp_unique_post_slug would have.
 */
function uniqueSlugExpr(slug) {
  const s = sqlLiteral(slug);
  const candidate = (n) =>
    `rtrim(substr(${s}, 1, ${SLUG_MAX - 1} - length(${n})), '-') || '-' || ${n}`;
  return (
    `(WITH RECURSIVE probe(n) AS (SELECT 2 WHERE EXISTS (SELECT 1 FROM transactions WHERE slug = ${s} AND slug <> '') ` +
    `UNION ALL SELECT n + 1 FROM probe WHERE EXISTS (SELECT 1 FROM transactions WHERE slug = ${candidate("n")} AND slug <> '')) ` +
    `SELECT coalesce(${candidate("max(n)")}, ${s}) FROM probe)`
  );
}

/** The post's guid, unless another entry already holds it (then NULL: read back from SITE_URL). */
function guidExpr(guid) {
  if (guid === null || guid === "") return sqlLiteral(guid);
  const g = sqlLiteral(guid);
  return `(SELECT ${g} WHERE NOT EXISTS (SELECT 1 FROM transactions WHERE guid = ${g} AND guid <> ''))`;
}

/**
 * One imported entry with its WordPress id. Written only if that id is free, so a second run adds
 * nothing; its balance_before is a literal, so the chain guard refuses it unless it continues its
 * (user, wallet) chain exactly.
 */
export function transactionInsert(e, before, after) {
  const values = [
    sqlLiteral(e.id),
    sqlLiteral(e.userId),
    sqlLiteral(e.walletId),
    sqlLiteral(e.txnType),
    sqlLiteral(e.amountMinor),
    sqlLiteral(e.amountText),
    sqlLiteral(before),
    sqlLiteral(after),
    sqlLiteral(e.requestId),
    requestKeyExpr(e.userId, e.requestKey),
    sqlLiteral(e.transferId),
    "NULL",
    sqlLiteral(e.note),
    sqlLiteral(e.title),
    sqlLiteral(e.slugBase),
    e.slug === "" ? "''" : uniqueSlugExpr(e.slug),
    sqlLiteral(e.createdAtS),
    guidExpr(e.guid),
    sqlLiteral(e.localDate),
    sqlLiteral(e.modifiedLocalDate),
    sqlLiteral(e.modifiedGmtDate),
    "1",
  ];
  return `INSERT INTO transactions (${TXN_COLUMNS}) SELECT ${values.join(", ")} WHERE NOT EXISTS (SELECT 1 FROM transactions WHERE id = ${e.id});`;
}

/**
 * A balance adjustment the import adds (the next id), keyed by its own request_id so a second run adds
 * nothing. Its slug takes the next free suffix as the service's own entries do.
 */
export function adjustmentInsert(a, before, after) {
  const key = sqlLiteral(asciiLower(a.requestId));
  const values = [
    "NULL",
    sqlLiteral(a.userId),
    sqlLiteral(a.walletId),
    sqlLiteral(a.txnType),
    sqlLiteral(a.amountMinor),
    sqlLiteral(a.amountText),
    sqlLiteral(before),
    sqlLiteral(after),
    sqlLiteral(a.requestId),
    key,
    "NULL",
    "NULL",
    sqlLiteral(a.note),
    sqlLiteral(a.title),
    sqlLiteral(a.slugBase),
    uniqueSlugExpr(a.slugBase),
    sqlLiteral(a.createdAtS),
    "NULL",
    "NULL",
    "NULL",
    "NULL",
    "1",
  ];
  return `INSERT INTO transactions (${TXN_COLUMNS}) SELECT ${values.join(", ")} WHERE NOT EXISTS (SELECT 1 FROM transactions WHERE user_id = ${a.userId} AND request_key = ${key});`;
}

// ---------------------------------------------------------------------------------------------
// Mapping

function mapWallet(postId, post, meta, kindNames) {
  const issue = (reason) => ({ skip: reason });
  const id = String(meta.id ?? "")
    .trim()
    .toLowerCase();
  if (!id) return issue("wallet post without a wallet id");
  if (!WALLET_ID.test(id) || id === "formatted")
    return issue(`wallet id ${JSON.stringify(id)} is not a valid wallet id`);
  const decimalsText = String(meta.decimal ?? "").trim();
  const decimals = decimalsText === "" ? 2 : Number(decimalsText);
  if (!Number.isInteger(decimals) || decimals < 0 || decimals > 8)
    return issue(`wallet ${id}: decimals ${JSON.stringify(decimalsText)} not in 0–8`);
  const created = utcSeconds(post?.post_date_gmt) ?? utcSeconds(post?.post_date) ?? 0;
  return {
    wallet: {
      postId,
      id,
      name: String(meta.name ?? "").trim() || String(post?.post_title ?? id),
      symbol: decodeEntities(String(meta.symbol ?? "")),
      symbolPosition:
        String(meta.symbol_position ?? "")
          .trim()
          .toLowerCase() === "right"
          ? "right"
          : "left",
      decimals,
      type: String(meta.type ?? "").trim() || "fiat",
      note: String(meta.note ?? ""),
      createdAtMs: created * 1000,
      terms: kindNames,
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Planning and writing

/**
 * Plans the import and hands every SQL statement to `emit(sql, kind)` in the order they must run
 * (users, wallets, then entries in id order, then balance adjustments). Returns the report.
 * `target` is targetState(...) of the database written to (emptyTarget() for a fresh one).
 */
export function planImport({
  collector,
  buckets,
  options = {},
  target = emptyTarget(),
  nowMs = Date.now(),
  emit = () => {},
  progress = () => {},
}) {
  const opts = { ...DEFAULT_OPTIONS, ...options };
  const NS = opts.namespace.toUpperCase();
  const report = newReport(opts, collector);
  const { conflicts } = report;
  let moreWarnings = 0;
  const warn = (text) =>
    report.warnings.length < MAX_LISTED ? report.warnings.push(text) : moreWarnings++;

  // Term names of the plugin's taxonomy, by term_taxonomy_id.
  const taxonomy = `${opts.namespace}transaction_type`;
  const termOf = new Map();
  for (const [ttid, t] of collector.taxonomies)
    if (t.taxonomy === taxonomy)
      termOf.set(ttid, String(collector.terms.get(t.termId) ?? "").toUpperCase());
  if (termOf.size === 0) warn(`no terms of taxonomy ${taxonomy}: is --namespace right?`);
  const kindOf = (ttids) => {
    const names = ttids.map((t) => termOf.get(t)).filter((n) => n !== undefined);
    const has = (n) => names.includes(n);
    if (has("WALLETS") || has(`${NS} WALLETS`)) return { kind: "wallet", names };
    if (has("API-KEYS")) return { kind: "api-key", names };
    if (has("CREDIT") || has("DEBIT")) return { kind: "transaction", names };
    return { kind: "other", names };
  };

  // --- Users
  const users = new Map(); // WordPress id → service user (imported or already present)
  const userSkips = new Map(); // WordPress id → reason
  const seenNames = new Map();
  const seenEmails = new Map();
  for (const u of [...collector.users.values()].sort((a, b) => a.id - b.id)) {
    const meta = collector.userMeta.get(u.id) ?? { balances: {} };
    const roles =
      meta[collector.capabilitiesKey] === undefined
        ? null
        : parseRoles(meta[collector.capabilitiesKey]);
    const role = roles?.includes("administrator") ? "administrator" : "subscriber";
    const roleKey = roles === null ? "(none)" : roles.length === 0 ? "(no role)" : roles.join("+");
    report.users.roles[roleKey] = (report.users.roles[roleKey] ?? 0) + 1;
    let email = String(u.email).trim();
    if (email === "") {
      email = `wp-user-${u.id}@users.invalid`;
      warn(`user ${u.id} (${u.login}) has no e-mail: imported as ${email}`);
    }
    const user = {
      id: u.id,
      username: String(u.login),
      email,
      passwordHash: String(u.pass),
      firstName: String(meta.first_name ?? ""),
      lastName: String(meta.last_name ?? ""),
      role,
      registeredAtMs: (utcSeconds(u.registered) ?? 0) * 1000,
    };
    const skip = (reason) => {
      userSkips.set(u.id, reason);
      report.users.skipped.add(reason, { id: u.id, username: user.username });
    };
    const [lname, lemail] = [user.username.toLowerCase(), email.toLowerCase()];
    if (user.username.trim() === "") {
      skip("empty username");
      continue;
    }
    if (seenNames.has(lname)) {
      skip(`username taken by user ${seenNames.get(lname)} in the dump`);
      continue;
    }
    if (seenEmails.has(lemail)) {
      skip(`e-mail taken by user ${seenEmails.get(lemail)} in the dump`);
      continue;
    }
    seenNames.set(lname, u.id);
    seenEmails.set(lemail, u.id);
    const there = target.users.get(u.id);
    const byName = target.usernames.get(lname);
    const byEmail = target.emails.get(lemail);
    if (there) {
      const [sameName, sameEmail] = [
        String(there.username).toLowerCase() === lname,
        String(there.email).toLowerCase() === lemail,
      ];
      // The same user from an earlier run (a changed e-mail or username on the site since is not
      // carried over: the database's is kept).
      if (sameName || sameEmail) {
        if (!(sameName && sameEmail))
          warn(
            `user ${u.id}: the database has ${there.username} <${there.email}>, the site ${user.username} <${email}>; kept the database's`,
          );
        users.set(u.id, { ...user, username: there.username });
        report.users.alreadyPresent++;
        continue;
      }
      conflicts.push({
        kind: "user",
        id: u.id,
        problem: `user id ${u.id} (${user.username}) is taken by ${there.username} <${there.email}>`,
      });
      skip("conflicts with an existing user");
      continue;
    }
    if (byName !== undefined || byEmail !== undefined) {
      const other = byName ?? byEmail;
      conflicts.push({
        kind: "user",
        id: u.id,
        problem: `user ${u.id} (${user.username} <${email}>): username or e-mail belongs to existing user ${other}`,
      });
      skip("conflicts with an existing user");
      continue;
    }
    const hashKind = passwordHashKind(user.passwordHash);
    report.users.passwordHashes[hashKind] = (report.users.passwordHashes[hashKind] ?? 0) + 1;
    if (hashKind === "unknown")
      warn(
        `user ${u.id} (${user.username}): password hash of an unknown kind or work factor; this user must reset the password`,
      );
    users.set(u.id, user);
    report.users.imported++;
    emit(userInsert(user), "user");
  }
  report.users.inDump = collector.users.size;

  // --- Wallets (their posts are read from the buckets where they are). A new wallet is written after
  // the first pass over the transactions, which says how many places it must store.
  const wallets = new Map(); // wallet id → definition used by the entries
  const walletSkips = new Map(); // wallet id → reason
  const walletPostIds = new Set();
  const byBucket = new Map();
  for (const id of collector.walletMeta.keys()) {
    const b = buckets.bucketOf(id);
    if (!byBucket.has(b)) byBucket.set(b, []);
    byBucket.get(b).push(id);
  }
  const walletCandidates = [];
  for (const [b, ids] of [...byBucket].sort((x, y) => x[0] - y[0])) {
    const posts = new Map(groupBucket(buckets.read(b)).map((p) => [p.id, p]));
    for (const id of ids.sort((x, y) => x - y))
      walletCandidates.push({ id, group: posts.get(id) ?? null });
  }
  for (const { id, group } of walletCandidates) {
    const { kind, names } = kindOf(group?.ttids ?? []);
    if (!group || kind !== "wallet") {
      report.ignored.add(`${opts.namespace}_wallet_* meta on a post that is not a wallet`, { id });
      continue;
    }
    walletPostIds.add(id);
    if (group.post.post_status !== "publish") {
      report.ignored.add(`wallet post with status ${group.post.post_status}`, { id });
      continue;
    }
    const mapped = mapWallet(id, group.post, collector.walletMeta.get(id), names);
    if (mapped.skip) {
      report.wallets.skipped.add(mapped.skip, { id });
      const walletId = String(collector.walletMeta.get(id).id ?? "")
        .trim()
        .toLowerCase();
      if (walletId) walletSkips.set(walletId, mapped.skip);
      continue;
    }
    const w = mapped.wallet;
    if (wallets.has(w.id)) {
      report.wallets.skipped.add(
        `a second definition of wallet ${w.id} (the first, post ${wallets.get(w.id).postId}, is kept)`,
        { id },
      );
      continue;
    }
    const there = target.wallets.get(w.id);
    if (there) {
      // The database's units stand (they count every stored amount); the first pass checks the
      // site's amounts fit them.
      w.present = true;
      w.extraDecimals = Number(there.extra_decimals ?? 0);
      const same =
        Number(there.decimals) === w.decimals &&
        there.name === w.name &&
        there.symbol === w.symbol &&
        there.symbol_position === w.symbolPosition &&
        there.type === w.type;
      if (same) {
        wallets.set(w.id, w);
        report.wallets.alreadyPresent++;
        continue;
      }
      if (Number(there.decimals) === w.decimals) {
        conflicts.push({
          kind: "wallet",
          id: w.id,
          problem: `wallet ${w.id} exists with another name, symbol or type (decimals agree); --force keeps the existing definition`,
        });
        wallets.set(w.id, {
          ...w,
          name: there.name,
          symbol: there.symbol,
          symbolPosition: there.symbol_position,
          type: there.type,
        });
        report.wallets.alreadyPresent++;
        continue;
      }
      conflicts.push({
        kind: "wallet",
        id: w.id,
        problem: `wallet ${w.id} exists with ${there.decimals} decimals, the site's has ${w.decimals}; its entries cannot be imported`,
      });
      walletSkips.set(w.id, "conflicts with an existing wallet");
      report.wallets.skipped.add("conflicts with an existing wallet", { id });
      continue;
    }
    wallets.set(w.id, w);
  }
  report.wallets.inDump = walletCandidates.length;

  // --- Transactions, first pass: check each; per (user, wallet) the chain's sum and extremes, per wallet
  // the places its amounts need
  const fieldDiffs = report.transactions.fieldsReadingDifferently;
  /** The entry of a transaction post, or why it is skipped or ignored; `full` adds what only writing needs. */
  const mapEntry = (group, full = true) => {
    const { id, post, meta } = group;
    const { names } = kindOf(group.ttids);
    const fail = (reason) => ({ skip: reason });
    if (post.post_status !== "publish")
      return { ignore: `transaction post with status ${post.post_status}` };
    const termType =
      names.includes("CREDIT") && names.includes("DEBIT")
        ? null
        : names.includes("CREDIT")
          ? "CREDIT"
          : "DEBIT";
    const metaType = String(meta.txn_type ?? "")
      .trim()
      .toUpperCase();
    const txnType = metaType === "CREDIT" || metaType === "DEBIT" ? metaType : termType;
    if (txnType === null) return fail("both CREDIT and DEBIT terms and no txn_type meta");
    const userId = Number(post.post_author);
    const user = users.get(userId);
    if (!user)
      return fail(
        userSkips.has(userId)
          ? `its user ${userId} is not imported (${userSkips.get(userId)})`
          : `its user ${userId} is not in the dump`,
      );
    const walletId = String(meta.currency ?? "")
      .trim()
      .toLowerCase();
    if (!walletId) return fail("no currency (wallet id) meta");
    const wallet = wallets.get(walletId);
    if (!wallet)
      return fail(
        walletSkips.has(walletId)
          ? `wallet ${walletId} is not imported (${walletSkips.get(walletId)})`
          : `wallet ${walletId} is not defined on the site`,
      );
    let amountText = meta.amount;
    if (amountText === undefined || amountText === null) {
      const fromContent = /^Amount:(.*)$/s.exec(String(post.post_content ?? ""));
      if (!fromContent) return fail("no amount meta");
      amountText = fromContent[1];
    }
    amountText = String(amountText);
    // Kept exactly as the site recorded it: more places than the wallet shows (the wallet then stores
    // more), or zero. Only what no wallet can hold is refused.
    const amount = readSiteAmount(amountText.trim().replace(/^-/, ""));
    if (amount.issue)
      return fail(`amount ${JSON.stringify(amountText)} is not a valid amount (${amount.issue})`);
    if (amount.places > MAX_STORAGE_DECIMALS)
      return fail(
        `amount ${amountText} has ${amount.places} decimal places; a wallet stores at most ${MAX_STORAGE_DECIMALS}`,
      );
    const displayUnits = BigInt(
      amount.integer + amount.fraction.slice(0, wallet.decimals).padEnd(wallet.decimals, "0"),
    );
    if (displayUnits > BigInt(MAX_MINOR))
      return fail(`amount ${JSON.stringify(amountText)} is not a valid amount (too-large)`);
    const createdGmt = utcSeconds(post.post_date_gmt);
    const createdAtS = createdGmt ?? utcSeconds(post.post_date);
    if (createdAtS === null) return fail(`no valid date (post_date ${post.post_date})`);
    let requestId = meta.request_id == null ? null : String(meta.request_id);
    if (requestId === null && meta.txn_request_id != null)
      requestId = String(meta.txn_request_id).replace(/^[0-9]+_/, "");
    const alt =
      meta.alt_transfer_id == null || String(meta.alt_transfer_id).trim() === ""
        ? null
        : Number(meta.alt_transfer_id);
    const title = String(post.post_title ?? "");
    const slug = String(post.post_name ?? "");
    const base = full ? slugify(title) : slug;
    const localDate = String(post.post_date);
    const gmtText = createdGmt === null ? mysqlUtc(createdAtS) : String(post.post_date_gmt);
    return {
      entry: {
        id,
        userId,
        walletId,
        txnType,
        // In units of 10^-MAX_STORAGE_DECIMALS until the wallet's places are known (unitFactor below).
        amountUnits: BigInt(amount.integer + amount.fraction.padEnd(MAX_STORAGE_DECIMALS, "0")),
        places: amount.places,
        amountText,
        requestId: requestId ?? "",
        requestKey: requestId === null || requestId === "" ? null : asciiLower(requestId),
        transferId:
          alt === null || !Number.isFinite(alt)
            ? null
            : `wp:${Math.min(id, alt)}-${Math.max(id, alt)}`,
        alt,
        note: String(meta.note ?? ""),
        title,
        slug,
        slugBase: slug === base || slug.startsWith(`${base}-`) ? base : slug,
        createdAtS,
        guid: String(post.guid ?? ""),
        localDate,
        modifiedLocalDate: post.post_modified === localDate ? null : (post.post_modified ?? null),
        modifiedGmtDate:
          post.post_modified_gmt === gmtText ? null : (post.post_modified_gmt ?? null),
        gmtZero: createdGmt === null,
        username: user.username,
      },
    };
  };

  const noteFieldDiffs = (e, post) => {
    const diff = (field) => (fieldDiffs[field] = (fieldDiffs[field] ?? 0) + 1);
    for (const [field, value] of Object.entries(FIXED_FIELDS))
      if (String(post[field] ?? "") !== value) diff(field);
    if (String(post.post_content ?? "") !== `Amount:${e.amountText}`) diff("post_content");
    if (e.gmtZero) diff("post_date_gmt");
    if (opts.namespace !== "wallet") diff("post_type");
  };

  const pairs = new Map(); // pair key → chain statistics, in units of 10^-MAX_STORAGE_DECIMALS (BigInt)
  const walletStats = new Map(); // wallet id → { places: the most any amount needs }
  const keys = new FingerprintSet();
  const transferHalves = new Map(); // transfer id → count seen (bounded by pairs left open)
  const t = report.transactions;
  let passLabel = "checking transactions";
  const forEachPost = (visit) => {
    const indexes = buckets.indexes();
    indexes.forEach((b, i) => {
      progress(passLabel, i, indexes.length);
      for (const group of groupBucket(buckets.read(b))) visit(group);
    });
    progress(passLabel, indexes.length, indexes.length);
  };

  forEachPost((group) => {
    if (walletPostIds.has(group.id)) return;
    const { kind } = kindOf(group.ttids);
    if (kind === "api-key") {
      const author = Number(group.post.post_author);
      const entry = {
        id: group.id,
        userId: author,
        username: collector.users.get(author)?.login ?? null,
        title: group.post.post_title,
        status: group.post.post_status,
      };
      report.apiKeys.total++;
      if (report.apiKeys.list.length < MAX_LISTED) report.apiKeys.list.push(entry);
      return;
    }
    if (kind === "wallet") {
      report.ignored.add("wallet post without wallet meta", { id: group.id });
      return;
    }
    if (kind !== "transaction") {
      report.ignored.add(
        `${collector.postType} post without a CREDIT, DEBIT, WALLETS or API-KEYS term`,
        { id: group.id },
      );
      return;
    }
    const mapped = mapEntry(group, false);
    if (mapped.ignore) {
      report.ignored.add(mapped.ignore, { id: group.id });
      return;
    }
    t.live++;
    if (mapped.skip) {
      t.skipped.add(mapped.skip, { id: group.id });
      return;
    }
    const e = mapped.entry;
    noteFieldDiffs(e, group.post);
    if (e.requestKey !== null && !keys.add(`${e.userId}\u0000${e.requestKey}`)) {
      t.duplicateRequestIds.add(
        "request_id used before by the same user: imported without idempotency key",
        { id: e.id, userId: e.userId, requestId: e.requestId },
      );
    }
    if (e.requestKey === null) t.withoutRequestId++;
    if (e.transferId !== null) {
      const seen = (transferHalves.get(e.transferId) ?? 0) + 1;
      if (seen >= 2) {
        transferHalves.delete(e.transferId);
        t.transfers++;
      } else transferHalves.set(e.transferId, seen);
    }
    // What the plugin accepted and a ledger of its own would not: said in the report, kept as it is.
    const decimals = wallets.get(e.walletId).decimals;
    if (e.places > decimals)
      t.subPrecisionAmounts.add(`wallet ${e.walletId} (${decimals} decimals)`, {
        id: e.id,
        userId: e.userId,
        walletId: e.walletId,
        amount: e.amountText,
      });
    if (e.amountUnits === 0n)
      t.zeroAmounts.add(`wallet ${e.walletId}`, {
        id: e.id,
        userId: e.userId,
        walletId: e.walletId,
        amount: e.amountText,
      });
    const ws = walletStats.get(e.walletId) ?? { places: 0 };
    ws.places = Math.max(ws.places, e.places);
    walletStats.set(e.walletId, ws);

    const key = pairKey(e.userId, e.walletId);
    let s = pairs.get(key);
    if (!s) {
      s = {
        userId: e.userId,
        walletId: e.walletId,
        username: e.username,
        count: 0,
        sum: 0n,
        lowest: 0n,
        highest: 0n,
        largestAmount: 0n,
        lowestAt: null,
        firstBelowZero: null,
        firstId: e.id,
        lastId: 0,
      };
      pairs.set(key, s);
    }
    s.count++;
    s.sum += e.txnType === "CREDIT" ? e.amountUnits : -e.amountUnits;
    s.lastId = e.id;
    if (e.amountUnits > s.largestAmount) s.largestAmount = e.amountUnits;
    if (s.sum > s.highest) s.highest = s.sum;
    if (s.sum < s.lowest) [s.lowest, s.lowestAt] = [s.sum, e.id];
    if (s.sum < 0n && s.firstBelowZero === null) s.firstBelowZero = e.id;
    t[e.txnType === "CREDIT" ? "credits" : "debits"]++;
  });
  t.openTransferHalves = transferHalves.size;
  if (transferHalves.size > 0)
    warn(
      `${transferHalves.size} transfer halves whose other half is not imported (alt_transfer_id kept as their transfer link)`,
    );

  // --- Each wallet's storage places: as many as its most precise amount needs, never fewer than it
  // displays (12.345 on a 2-decimal wallet: 3). A wallet the database has keeps its own; if the
  // site's amounts need more, its entries cannot be imported (stored amounts never change units).
  const unitsConflicts = new Set();
  for (const w of wallets.values()) {
    const needed = Math.max(w.decimals, walletStats.get(w.id)?.places ?? 0);
    if (w.present && needed > storageDecimals(w)) {
      conflicts.push({
        kind: "wallet",
        id: w.id,
        problem: `wallet ${w.id} stores ${storageDecimals(w)} decimal places in the database; the site's amounts need ${needed}: its entries cannot be imported`,
      });
      unitsConflicts.add(w.id);
    } else if (!w.present) {
      w.extraDecimals = needed - w.decimals;
      report.wallets.imported++;
      emit(walletInsert(w), "wallet");
    }
    report.wallets.storage.push({
      walletId: w.id,
      decimals: w.decimals,
      storageDecimals: storageDecimals(w),
      placesNeeded: needed,
      present: Boolean(w.present),
    });
  }
  /** 10^-MAX_STORAGE_DECIMALS units per stored unit of the wallet. */
  const unitFactor = (wallet) => 10n ** BigInt(MAX_STORAGE_DECIMALS - storageDecimals(wallet));

  // --- Decisions per (user, wallet): what fits, balances in the wallet's units, histories below zero
  const pairSkips = new Map(); // pair key → reason (their entries are not written)
  for (const [key, s] of pairs) {
    const wallet = wallets.get(s.walletId);
    if (unitsConflicts.has(s.walletId)) {
      pairSkips.set(
        key,
        `wallet ${s.walletId} stores fewer decimal places in the database than the site's amounts need`,
      );
      continue;
    }
    const factor = unitFactor(wallet);
    const limit = BigInt(MAX_MINOR) * factor;
    if (s.highest > limit || s.lowest < -limit || s.largestAmount > limit) {
      pairSkips.set(
        key,
        `its balance or an amount passes 999,999,999,999,999 units of the ${storageDecimals(wallet)} decimal places wallet ${s.walletId} stores`,
      );
      continue;
    }
    // Exact: every amount of the wallet has at most its storage places.
    [s.sum, s.lowest] = [Number(s.sum / factor), Number(s.lowest / factor)];
    if (s.lowest < 0) {
      // The plugin checked debits against its stored balance, which drifts from the entries. The
      // history is carried over as it is: no entry is added, and the balance stays where it ends.
      const h = report.negativeHistories;
      h.total++;
      if (s.sum < 0) h.endingBelowZero++;
      if (h.list.length < MAX_LISTED * 5) {
        h.list.push({
          userId: s.userId,
          username: s.username,
          walletId: s.walletId,
          firstEntryBelowZero: s.firstBelowZero,
          lowest: exactText(s.lowest, wallet),
          lowestAt: s.lowestAt,
          balance: exactText(s.sum, wallet),
        });
      }
    }
  }

  // The site's balances: user meta pairs, compared with what the entries add up to (both in the
  // wallet's storage units; PHP float noise such as 10.000000000000002 rounds away).
  const closings = new Map(); // pair key → balance adjustment (--balances site)
  for (const [userId, meta] of collector.userMeta) {
    for (const [walletId, parts] of Object.entries(meta.balances)) {
      const user = users.get(userId);
      const wallet = wallets.get(walletId);
      const key = pairKey(userId, walletId);
      if (!user || !wallet || pairSkips.has(key) || unitsConflicts.has(walletId)) {
        report.balances.ignoredMeta.add(
          !user ? "user not imported" : !wallet ? "wallet not imported" : "entries not imported",
          { userId, walletId },
        );
        continue;
      }
      const places = storageDecimals(wallet);
      const w = decimalToMinor(parts.withdrawable ?? "", places, {
        round: true,
        allowNegative: true,
      });
      const nw = decimalToMinor(parts.nonwithdrawable ?? "", places, {
        round: true,
        allowNegative: true,
      });
      if (w.issue || nw.issue) {
        report.balances.ignoredMeta.add(
          `stored balance is not a number: ${JSON.stringify(parts)}`,
          { userId, walletId },
        );
        continue;
      }
      const site = w.minor + nw.minor;
      const ledger = pairs.get(key)?.sum ?? 0;
      report.balances.compared++;
      if (site === ledger) continue;
      const diff = {
        userId,
        username: user.username,
        walletId,
        site: exactText(site, wallet),
        siteStored: {
          withdrawable: parts.withdrawable ?? null,
          nonwithdrawable: parts.nonwithdrawable ?? null,
        },
        transactions: exactText(ledger, wallet),
        difference: exactText(site - ledger, wallet),
        action: "",
      };
      diff.action = `kept the entries: balance ${diff.transactions}`;
      report.balanceDifferences.total++;
      if (opts.balances === "site") {
        const amount = Math.abs(site - ledger);
        const txnType = site > ledger ? "CREDIT" : "DEBIT";
        closings.set(
          key,
          adjustment({
            userId,
            username: user.username,
            wallet,
            txnType,
            amountMinor: amount,
            createdAtS: Math.floor(nowMs / 1000),
            requestId: `${IMPORT_KEY_PREFIX}balance-adjustment:${walletId}`,
            note: `Balance adjustment added by the WordPress import (--balances site): the site's stored balance was ${diff.site}, its transactions add up to ${diff.transactions}.`,
          }),
        );
        diff.action = `${txnType === "CREDIT" ? "credit" : "debit"} of ${exactText(amount, wallet)} added (balance adjustment)`;
      }
      if (report.balanceDifferences.list.length < MAX_LISTED * 5)
        report.balanceDifferences.list.push(diff);
    }
  }

  // --- Second pass: write the entries in id order, each continuing its chain. Against a database that
  // holds some of them already (a second run, or a run that stopped half way), each chain's entries
  // there must be the first ones this plan makes, ending at the same id and balance; then only the
  // rest is written. Anything else is a conflict.
  const planned = new Map(); // pair key → entries this plan has for it
  for (const [key, s] of pairs) planned.set(key, s.count);
  for (const key of closings.keys()) planned.set(key, (planned.get(key) ?? 0) + 1);
  const chains = new Map(); // pair key → { balance, k, conflict, present, written }
  const chainOf = (key) => {
    let c = chains.get(key);
    if (!c)
      chains.set(
        key,
        (c = {
          balance: 0,
          k: 0,
          conflict: null,
          present: { entry: 0, balance: 0 },
          written: { entry: 0, balance: 0 },
        }),
      );
    return c;
  };
  const describe = (key) => `user ${key.split("\t")[0]} wallet ${key.split("\t")[1]}`;
  const pairConflict = (c, key, problem) => {
    if (c.conflict) return;
    c.conflict = problem;
    conflicts.push({ kind: "entries", id: key, problem: `${describe(key)}: ${problem}` });
  };
  let checkIds = false;
  if (target.foreign.n > 0 && pairs.size > 0) {
    let [lo, hi] = [Infinity, -Infinity];
    for (const s of pairs.values()) [lo, hi] = [Math.min(lo, s.firstId), Math.max(hi, s.lastId)];
    if (target.foreign.maxId >= lo && target.foreign.minId <= hi) {
      if (target.foreignIds) checkIds = true;
      else {
        conflicts.push({
          kind: "entries",
          id: "*",
          problem: `the database holds ${target.foreign.n} entries not written by this import with ids ${target.foreign.minId}–${target.foreign.maxId}, among the site's; import into a fresh database`,
        });
      }
    }
  }
  /** One planned entry of a chain (id null: an adjustment taking the next id): write it, count it as present, or find the conflict. */
  const step = (key, id, signed, statement, kind = "entry") => {
    const c = chainOf(key);
    const before = c.balance;
    const after = before + signed;
    c.balance = after;
    c.k++;
    if (pairSkips.has(key) || c.conflict) return;
    if (checkIds && id !== null && target.foreignIds.has(id))
      return pairConflict(c, key, `entry id ${id} is taken by an entry not written by this import`);
    const there = target.pairs.get(key);
    if (!there || there.n === 0 || c.k > there.n) {
      emit(statement(before, after), kind === "entry" ? "transaction" : "adjustment");
      c.written[kind]++;
      return;
    }
    if (there.foreign > 0) {
      // The service has added entries since an earlier import: fine if that import was complete.
      if (there.n - there.foreign === planned.get(key)) c.present[kind]++;
      else
        pairConflict(
          c,
          key,
          `${there.foreign} entries not written by this import, and the site's history is not complete there`,
        );
      return;
    }
    if (c.k < there.n) {
      if (id !== null && id > there.lastId)
        pairConflict(c, key, `the database's entries are not this site's (entry ${id})`);
      else c.present[kind]++;
      return;
    }
    // c.k === there.n: the database's chain must end here, at this entry and balance.
    if ((id === null || id === there.lastId) && after === there.balance) c.present[kind]++;
    else
      pairConflict(
        c,
        key,
        `the database's ${there.n} entries are not the first ${there.n} of this site's (balance ${there.balance}, last id ${there.lastId})`,
      );
  };

  passLabel = "writing entries";
  forEachPost((group) => {
    if (walletPostIds.has(group.id) || kindOf(group.ttids).kind !== "transaction") return;
    const mapped = mapEntry(group);
    if (!mapped.entry) return;
    const e = mapped.entry;
    const key = pairKey(e.userId, e.walletId);
    if (pairSkips.has(key)) return step(key, e.id, 0, null);
    e.amountMinor = Number(e.amountUnits / unitFactor(wallets.get(e.walletId)));
    step(key, e.id, e.txnType === "CREDIT" ? e.amountMinor : -e.amountMinor, (before, after) =>
      transactionInsert(e, before, after),
    );
  });
  const closingOrder = [...closings].sort(
    ([, x], [, y]) => x.userId - y.userId || (x.walletId < y.walletId ? -1 : 1),
  );
  for (const [key, a] of closingOrder) {
    step(
      key,
      null,
      a.txnType === "CREDIT" ? a.amountMinor : -a.amountMinor,
      (before, after) => adjustmentInsert(a, before, after),
      "balance",
    );
  }

  // --- Totals and the expected end state
  for (const [key, c] of chains) {
    const s = pairs.get(key);
    const there = target.pairs.get(key);
    if (!pairSkips.has(key) && !c.conflict && there && there.foreign === 0 && there.n > c.k) {
      pairConflict(c, key, `the database holds ${there.n} entries, more than the site's ${c.k}`);
    }
    if (pairSkips.has(key)) {
      t.skipped.add(pairSkips.get(key), { pair: key, entries: s?.count ?? 0 }, s?.count ?? 0);
      continue;
    }
    if (c.conflict) {
      t.skipped.add(
        "conflicts with the database's entries",
        { pair: key, entries: s?.count ?? 0 },
        s?.count ?? 0,
      );
      continue;
    }
    t.imported += c.written.entry;
    report.adjustments.balance += c.written.balance;
    t.alreadyPresent += c.present.entry;
    report.adjustments.alreadyPresent += c.present.balance;
    report.expectedBalances.push({
      userId: Number(key.split("\t")[0]),
      walletId: key.split("\t")[1],
      balanceMinor: c.balance,
      entries: c.k,
    });
  }
  if (moreWarnings > 0) report.warnings.push(`… and ${moreWarnings} more warnings`);
  report.refused = conflicts.length > 0 || t.skipped.total > 0;
  report.refusalReasons = [
    ...(conflicts.length > 0 ? [`${conflicts.length} conflicts with the database`] : []),
    ...(t.skipped.total > 0 ? [`${t.skipped.total} transactions cannot be carried over`] : []),
  ];
  return JSON.parse(JSON.stringify(report)); // plain data: the tallies become { total, byReason, examples }
}

/** A balance adjustment the import adds (the next id), titled and slugged the way the service writes its own. */
function adjustment({
  userId,
  username,
  wallet,
  txnType,
  amountMinor,
  createdAtS,
  requestId,
  note,
}) {
  const title = postTitle({ username, txnType, amountMinor, wallet, createdAtS });
  return {
    userId,
    walletId: wallet.id,
    txnType,
    amountMinor,
    amountText: exactText(amountMinor, wallet),
    requestId,
    note,
    title,
    slugBase: slugify(title),
    createdAtS,
  };
}

function newReport(opts, collector) {
  return {
    options: {
      prefix: opts.prefix,
      namespace: opts.namespace,
      balances: opts.balances,
      force: opts.force,
    },
    tables: collector.rowsPerTable,
    users: {
      inDump: 0,
      imported: 0,
      alreadyPresent: 0,
      skipped: new Tally(),
      roles: {},
      passwordHashes: {},
    },
    // storage: per wallet, the decimal places it displays and stores (more when the site's amounts have more).
    wallets: { inDump: 0, imported: 0, alreadyPresent: 0, skipped: new Tally(), storage: [] },
    transactions: {
      posts: collector.transactionPosts,
      live: 0,
      imported: 0,
      alreadyPresent: 0,
      credits: 0,
      debits: 0,
      transfers: 0,
      openTransferHalves: 0,
      withoutRequestId: 0,
      skipped: new Tally(),
      // Carried over as they are; listed because a ledger of this service's own would not have them.
      subPrecisionAmounts: new Tally(),
      zeroAmounts: new Tally(),
      duplicateRequestIds: new Tally(),
      fieldsReadingDifferently: {},
    },
    adjustments: { balance: 0, alreadyPresent: 0 },
    negativeHistories: { total: 0, endingBelowZero: 0, list: [] },
    balances: { mode: opts.balances, compared: 0, ignoredMeta: new Tally() },
    balanceDifferences: { total: 0, list: [] },
    apiKeys: { total: 0, list: [] },
    ignored: new Tally(),
    otherPostTypes: collector.otherPostTypes,
    conflicts: [],
    warnings: [],
    expectedBalances: [],
    refused: false,
    refusalReasons: [],
  };
}

// ---------------------------------------------------------------------------------------------
// The whole import of a dump held in memory (tests and small dumps).

export function importFromText(text, { options = {}, target, nowMs, chunkSize } = {}) {
  return importFromChunks([text], { options, target, nowMs, chunkSize });
}

export function importFromChunks(
  chunks,
  { options = {}, target, nowMs, chunkSize = Infinity, bucketWidth = 1024 } = {},
) {
  const buckets = new MemoryBuckets(bucketWidth);
  const { collector, parser } = createReader(options, buckets);
  for (const chunk of chunks) {
    if (chunkSize === Infinity) parser.push(chunk);
    else
      for (let i = 0; i < chunk.length; i += chunkSize) parser.push(chunk.slice(i, i + chunkSize));
  }
  parser.end();
  const statements = [];
  const report = planImport({
    collector,
    buckets,
    options,
    target,
    nowMs,
    emit: (sql) => statements.push(sql),
  });
  return { statements, report };
}

/** The collector and parser wired together, for the CLI's streaming read. */
export function createReader(options, buckets) {
  const collector = new WordPressCollector(options, buckets);
  const parser = new DumpParser({ onRow: collector.onRow, wantTable: collector.wantTable });
  return { collector, parser };
}
