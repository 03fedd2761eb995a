// Reading: the rows of a WordPress dump, table by table, into what the planner needs. Users, user
// meta, terms and wallet definitions are kept whole (they are small next to the transactions);
// transaction posts, their meta and their term links go to a `Buckets` store keyed by post id ranges
// (on disk for the CLI, MemoryBuckets in tests), to be read back one bucket at a time in id order.
// No Node APIs (the Worker tests run this).
import { DumpParser, type DumpValue, identifier, keyedByDump, MEND_THE_ROW } from "./sql-dump";

export type ImportOptions = {
  prefix?: string;
  /**
   * The prefix of the users and usermeta tables, where it is not `prefix`'s: a site of a multisite
   * network (prefix wp_2_) keeps its users in the network's (wp_).
   */
  usersPrefix?: string;
  namespace?: string;
  balances?: "ledger" | "site";
  force?: boolean;
  /**
   * Wallet id → the decimal places it stores, chosen by the operator instead of from the data: a
   * history holding an amount that needs more is left out rather than every other history losing
   * range (docs/migrating.md).
   */
  places?: ReadonlyMap<string, number>;
};

export const DEFAULT_OPTIONS: Required<Omit<ImportOptions, "usersPrefix">> = {
  prefix: "wp_",
  namespace: "wallet",
  balances: "ledger",
  force: false,
  places: new Map(),
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
} as const;
type TableKind = keyof typeof DEFAULT_COLUMNS;
/** A multisite network's wp_users: the stock columns, then the network's own two. */
const NETWORK_USERS_COLUMNS = [...DEFAULT_COLUMNS.users, "spam", "deleted"];

/**
 * WordPress's number columns (bigint, int) of those tables: a hex literal there is refused, since
 * MySQL stores 0x32 in one as 50, where the reader reads the text "2" (sql-dump.ts).
 */
const NUMBER_COLUMNS = new Set([
  "ID",
  "user_status",
  "umeta_id",
  "user_id",
  "post_author",
  "post_parent",
  "menu_order",
  "comment_count",
  "meta_id",
  "post_id",
  "term_id",
  "term_group",
  "term_taxonomy_id",
  "parent",
  "count",
  "object_id",
  "term_order",
]);

// The post fields kept for transaction-type posts, in this order in the buckets: all but the id
// (the bucket's key) and the post type (always the transaction type).
type PostField = Exclude<(typeof DEFAULT_COLUMNS.posts)[number], "ID" | "post_type">;
const POST_FIELDS = DEFAULT_COLUMNS.posts.filter(
  (name): name is PostField => name !== "ID" && name !== "post_type",
);
export type Post = Record<PostField, DumpValue>;

// Post meta of a transaction that the import reads.
const TXN_META = new Set([
  "amount",
  "currency",
  "txn_type",
  "note",
  "request_id",
  "txn_request_id",
  "alt_transfer_id",
  // Whether a pending withdrawal was rejected and refunded (plan/entry.ts): written by
  // includes/class-withdrawals.php:235 and includes/layouts/withdrawal-request-txns.php:83.
  "txn_status",
  "approval_action",
]);

// Every post meta the plugin (Rimplenet 1.1.31) writes itself on transaction posts. Any other key on
// a CREDIT or DEBIT post but WordPress's private `_…` ones (`_edit_lock`, `_wp_old_slug`) is the
// site's own data (a client's `meta_data`, which includes/utils/base-utils.php `addMetaData` wrote
// key by key, or another plugin's): the import carries it as the entry's meta_data, as the dialect
// keeps a client's (src/compat/entries.ts). Sources, under wp-content/plugins/rimplenet/:
const PLUGIN_TXN_META = new Set([
  ...TXN_META,
  // includes/rimplenet-core-trait.php:202-224, class-wallets.php:641-661 (record_Txn; BUY/SELL)
  "amount_usd",
  "amount_coin",
  "amount_btc",
  // includes/credits/create-credits.php:98-112, includes/debits/create-debits.php:85-99,
  // rimplenet-core-trait.php:302-313 and 519-634, class-wallets.php:372-380, 462-471, 537-547
  "balance_before",
  "balance_after",
  "total_balance_before",
  "total_balance_after",
  "total_site_holding_balance_before",
  "total_site_holding_balance_after",
  "funds_type",
  "user_id",
  "external_txn_id",
  // includes/transfers/create-transfers.php:110-152, class-wallets.php:231-329
  "transfer_address_from",
  "transfer_address_to",
  "transfer_wallet_symbol",
  // class-wallets.php:174; includes/class-withdrawals.php:82-96 and
  // includes/layouts/rimplenet-withdrawal-form.php:152-166 (its $wdr_dest_data)
  "withdrawal_address_to",
  "withdrawal_bank_name",
  "withdrawal_account_number",
  "withdrawal_account_name",
  "withdrawal_destination",
  "withdrawal_crypto_address",
  // includes/layouts/withdrawal-request-txns.php:68-102, admin/wallets/layouts/
  // admin-settings-wallets.php:102-104 (and approval_time_by_user_<id>, below; approval_action
  // is read, above)
  "approval_user",
  // includes/class-withdrawals.php:235-238 (txn_status is read, above)
  "refund_time",
  "funds_refund_id",
  "funds_wdr_refunded_id",
  // includes/class-investments.php:63-65, layouts/rimplenet-investment-form.php:122-126,
  // class-package-plans-and-rules.php:114-115
  "invesment_returned",
  "time_invesment_returned",
  "invesment_returned_txn_id",
  "linked_package",
  "time_for_invested_amount_to_be_returned",
  "package_investment_rule_executed",
  "timed_package_investment_rule_executed",
]);

/** A meta key the plugin writes itself on transaction posts. */
const pluginMetaKey = (key: string) =>
  PLUGIN_TXN_META.has(key) || /^approval_time_by_user_[0-9]+$/.test(key);

/**
 * Post ids as a bitmap in pages of 4,096 ids (512 bytes each): the transaction posts of a dump are
 * dense in the id range, so a million take about 128 KB where a Set would take tens of MB.
 */
class PostIdSet {
  private readonly pages = new Map<number, Uint32Array>();
  add(id: number) {
    const page = Math.floor(id / 4096);
    let bits = this.pages.get(page);
    if (!bits) this.pages.set(page, (bits = new Uint32Array(128)));
    const bit = id % 4096;
    bits[bit >>> 5]! |= 1 << (bit & 31);
  }
  has(id: number) {
    const bits = this.pages.get(Math.floor(id / 4096));
    const bit = id % 4096;
    return bits !== undefined && (bits[bit >>> 5]! & (1 << (bit & 31))) !== 0;
  }
}

/**
 * A dump no WordPress database could have written (an id that is not one, a key twice), or one cut
 * short; `remedy` is what the operator does, said after "Nothing was written." ("" where the
 * message says it).
 */
export class DamagedDumpError extends Error {
  constructor(
    message: string,
    readonly remedy = MEND_THE_ROW,
  ) {
    super(message);
  }
}

// ---------------------------------------------------------------------------------------------
// Buckets: transaction posts, their meta and term links, grouped by post id range.

/**
 * A post's fields ("p"), one of its meta rows the import reads ("m") or carries as meta_data ("x"),
 * or one of its term links ("r").
 */
export type BucketEntry =
  | ["p", DumpValue[]]
  | ["m", string, DumpValue]
  | ["x", string, DumpValue]
  | ["r", number];
export type BucketRecord = [number, ...BucketEntry];

export interface Buckets {
  add(postId: number, record: BucketEntry): void;
  finish(): void;
  indexes(): number[];
  bucketOf(postId: number): number;
  read(bucket: number): BucketRecord[];
}

/** The in-memory bucket store (tests, small dumps); the CLI's SpillBuckets has the same interface. */
export class MemoryBuckets implements Buckets {
  private readonly map = new Map<number, BucketRecord[]>();
  constructor(private readonly width = 1024) {}
  add(postId: number, record: BucketEntry) {
    const b = Math.floor(postId / this.width);
    let list = this.map.get(b);
    if (!list) this.map.set(b, (list = []));
    list.push([postId, ...record]);
  }
  finish() {}
  indexes() {
    return [...this.map.keys()].sort((a, b) => a - b);
  }
  bucketOf(postId: number) {
    return Math.floor(postId / this.width);
  }
  read(b: number) {
    return this.map.get(b) ?? [];
  }
}

/**
 * A post with its meta (the first row of each key), the site's own meta it carries (`extra`, first
 * row of each key; `extraRepeats` the later rows of a key, not kept) and its term_taxonomy ids.
 */
export type PostGroup = {
  id: number;
  post: Post;
  meta: Record<string, DumpValue>;
  extra: Record<string, DumpValue> | null;
  extraRepeats: number;
  ttids: number[];
};

/** Groups one bucket's records by post, ids ascending (meta and links without a post are dropped). */
export function groupBucket(records: BucketRecord[]): PostGroup[] {
  const posts = new Map<number, Omit<PostGroup, "post"> & { post: Post | null }>();
  const at = (id: number) => {
    let p = posts.get(id);
    if (!p)
      posts.set(
        id,
        (p = { id, post: null, meta: keyedByDump(), extra: null, extraRepeats: 0, ttids: [] }),
      );
    return p;
  };
  for (const [id, ...entry] of records) {
    const p = at(id);
    if (entry[0] === "p") {
      if (p.post !== null)
        throw new DamagedDumpError(`the posts table holds ID ${id} twice (a damaged dump)`);
      const values = entry[1];
      p.post = Object.fromEntries(POST_FIELDS.map((f, i) => [f, values[i] ?? null])) as Post;
    }
    // get_post_meta(…, true) answers the first row of a key, as mysqldump writes them in meta_id order.
    else if (entry[0] === "m") {
      if (!(entry[1] in p.meta)) p.meta[entry[1]] = entry[2];
    } else if (entry[0] === "x") {
      p.extra ??= keyedByDump();
      if (entry[1] in p.extra) p.extraRepeats++;
      else p.extra[entry[1]] = entry[2];
    } else p.ttids.push(entry[1]);
  }
  return [...posts.values()]
    .filter((p): p is PostGroup => p.post !== null)
    .sort((a, b) => a.id - b.id);
}

// ---------------------------------------------------------------------------------------------
// Collecting: the rows of the dump, table by table.

export type SiteUser = {
  id: number;
  login: string;
  pass: string;
  email: string;
  registered: DumpValue;
  /** Marked as spam on its multisite network (wp_users.spam): WordPress refuses its sign-in. */
  spam: boolean;
};
/** A user's stored balance of one wallet, in the plugin's two user meta. */
export type StoredBalance = { withdrawable?: string; nonwithdrawable?: string };
/** The user meta the import reads: names and capabilities (`fields`), and stored balances by wallet. */
export type UserMeta = {
  fields: Record<string, string>;
  balances: Record<string, StoredBalance>;
  /** Balance keys whose wallet id is not in lower case, which the plugin's balance never read. */
  unreadBalanceKeys: string[];
};

/**
 * The dump tools that end every dump with a line of their own: the line each begins with, the one
 * it ends with, and that one as a refusal names it. phpMyAdmin's COMMIT is a statement instead
 * (`transactions`); UpdraftPlus's end has changed between versions, and is not read.
 */
const DUMP_TOOLS = [
  {
    name: "mysqldump",
    first: /^-- MySQL dump /,
    last: /^-- Dump completed\b/,
    lastText: "-- Dump completed",
  },
  {
    name: "mariadb-dump",
    first: /^-- MariaDB dump /,
    last: /^-- Dump completed\b/,
    lastText: "-- Dump completed",
  },
  {
    name: "Adminer",
    first: /^-- Adminer \S+ .* dump$/,
    last: /^-- [0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2}/,
    lastText: "the time of the export: -- YYYY-MM-DD hh:mm:ss",
  },
];
type DumpTool = (typeof DUMP_TOOLS)[number];

/** A part of the file, numbered from 1 in the order begun, and the last table it writes. */
export type Part<T> = T & { number: number; lastTable: string | null };

/**
 * The parts of one kind a file holds (dumps by their first lines, or transactions): how many began,
 * the one begun and not ended yet, and those a later one began after without their end.
 */
export class Parts<T> {
  begun = 0;
  open: Part<T> | null = null;
  readonly cut: Part<T>[] = [];
  begin(part: T) {
    if (this.open) this.cut.push(this.open);
    this.open = { ...part, number: ++this.begun, lastTable: null };
  }
  end() {
    this.open = null;
  }
  /** A table the part open writes (its CREATE TABLE or an INSERT), to say where it was cut. */
  wrote(table: string) {
    if (this.open) this.open.lastTable = table;
  }
}

export class WordPressCollector {
  readonly prefix: string;
  /** Whether the operator named the prefix (--prefix), rather than taking the default. */
  readonly prefixGiven: boolean;
  /** The prefix of the users and usermeta tables: `prefix` but on a multisite network's site. */
  readonly usersPrefix: string;
  readonly postType: string;
  /** The plugin's taxonomy of transaction terms (CREDIT, DEBIT, WALLETS, API-KEYS). */
  readonly taxonomy: string;
  readonly walletKeyPrefix: string;
  readonly capabilitiesKey: string;
  private readonly tableKinds: Map<string, TableKind>;
  readonly users = new Map<number, SiteUser>();
  readonly userMeta = new Map<number, UserMeta>();
  readonly walletMeta = new Map<number, Record<string, DumpValue>>();
  readonly taxonomies = new Map<number, { termId: number; taxonomy: DumpValue }>();
  readonly terms = new Map<number, string>();
  /** Term ids the dump holds more than once (the first row kept). */
  readonly repeatedTerms = new Set<number>();
  readonly rowsPerTable = keyedByDump<number>();
  readonly otherPostTypes = keyedByDump<number>();
  transactionPosts = 0;
  /**
   * Posts whose site meta (not the plugin's) is kept: the transaction posts read already, and posts
   * holding a meta key the plugin writes. A whole-database mysqldump writes wp_postmeta before
   * wp_posts, so a meta row's post type is not known yet; the plugin writes a transaction's own meta
   * first (record_Txn's wp_insert_post `meta_input`: amount, currency, txn_type; addMetaData last),
   * so only posts with the plugin's meta spill theirs, and a product's or a page's never do.
   */
  private readonly metaPosts = new PostIdSet();
  /** Posts with site meta not kept, read before the post was known as one whose meta is kept. */
  private readonly metaNotKept = new PostIdSet();
  /**
   * Transaction posts that have site meta rows before any of the plugin's, in a dump with
   * wp_postmeta first: those rows were not kept (the plan refuses such an entry; plan/check.ts).
   */
  readonly metaReadBeforePost = new PostIdSet();
  private readonly indexers = new WeakMap<readonly string[], Record<string, number>>();

  constructor(
    options: ImportOptions,
    private readonly buckets: Buckets,
  ) {
    const { prefix, namespace } = { ...DEFAULT_OPTIONS, ...options };
    this.prefix = prefix;
    this.prefixGiven = options.prefix !== undefined;
    this.usersPrefix = options.usersPrefix ?? prefix;
    this.postType = `${namespace}transaction`;
    this.taxonomy = `${namespace}transaction_type`;
    this.walletKeyPrefix = `${namespace}_wallet_`;
    this.capabilitiesKey = `${prefix}capabilities`;
    this.tableKinds = new Map(
      (Object.keys(DEFAULT_COLUMNS) as TableKind[]).map((kind) => [this.tableOf(kind), kind]),
    );
  }

  /** The dump's table of this kind: wp_posts, and on a network's site wp_2_posts but wp_users. */
  tableOf(kind: TableKind) {
    return (kind === "users" || kind === "usermeta" ? this.usersPrefix : this.prefix) + kind;
  }

  /** The posts tables of other sites of a network (wp_2_posts beside wp_posts) the dump writes. */
  readonly sitePostsTables = new Set<string>();

  /**
   * Tables named `…users` the dump inserts into (some dozens), to name a wrong --prefix: a plugin's
   * (`wp_pmpro_memberships_users`) as well as WordPress's own.
   */
  readonly otherUsersTables = new Set<string>();

  wantTable = (table: string) => {
    this.dumps.wrote(table);
    this.transactions.wrote(table);
    if (this.tableKinds.has(table)) return true;
    if (
      table.startsWith(this.prefix) &&
      /^\d+_posts$/.test(table.slice(this.prefix.length)) &&
      this.sitePostsTables.size < 50
    )
      this.sitePostsTables.add(table);
    if (table.endsWith("users") && this.otherUsersTables.size < 50)
      this.otherUsersTables.add(table);
    return false;
  };

  /**
   * The table prefix an UpdraftPlus backup's header names (`# Table prefix: wpx7_`, its site's
   * $table_prefix), or null: the import refuses the default prefix when it is another one
   * (plan/context.ts), which would read some other install's tables the same database kept.
   */
  declaredPrefix: string | null = null;

  /**
   * The dumps the file holds, by their tool's first line: a file may be several joined one after
   * another (`cat part1.sql part2.sql`, a dump per table). A dump cut at a statement's end reads to
   * its end, and only its last line's absence tells it: one whose last line is not read before the
   * next begins, or before the file ends, was cut short (plan/context.ts refuses it). mysqldump and
   * mariadb-dump write both lines unless --skip-comments.
   */
  readonly dumps = new Parts<{ tool: DumpTool; firstLine: string }>();
  /** phpMyAdmin's START TRANSACTION around its whole export, each ended by its COMMIT. */
  readonly transactions = new Parts<Record<string, never>>();

  onComment = (line: string) => {
    const tool = DUMP_TOOLS.find((t) => t.first.test(line));
    if (tool) this.dumps.begin({ tool, firstLine: line });
    else if (this.dumps.open?.tool.last.test(line)) this.dumps.end();
    // The header only: the comments before the first row.
    if (this.declaredPrefix !== null || Object.keys(this.rowsPerTable).length > 0) return;
    this.declaredPrefix = /^# Table prefix: ([A-Za-z0-9_$]*)$/.exec(line)?.[1] ?? null;
  };

  /**
   * Tables of the prefix the dump creates, and the UPDATE statements it writes into them (phpMyAdmin's
   * "UPDATE" export): what a dump of none of their rows holds instead, to say how to export them.
   */
  readonly createdTables = new Set<string>();
  updateStatements = 0;

  onTable = (table: string) => {
    this.dumps.wrote(table);
    this.transactions.wrote(table);
    if (this.tableKinds.has(table)) this.createdTables.add(table);
  };

  /**
   * The database a server's export (phpMyAdmin's, mysqldump --all-databases) is in at this point, by
   * its USE statements, and the one the prefix's rows came from: two databases' rows would be read
   * as one site's.
   */
  private database: string | null = null;
  private rowsDatabase: string | null | undefined;

  onStatement = (statement: string) => {
    if (/^START\s+TRANSACTION\b/i.test(statement)) this.transactions.begin({});
    else if (/^COMMIT\b/i.test(statement)) this.transactions.end();
    const use = /^USE\s+(`(?:[^`]|``)+`|[A-Za-z0-9_$]+)\s*$/i.exec(statement);
    if (use) this.database = identifier(use[1]!);
    const update =
      /^UPDATE\s+(?:(?:LOW_PRIORITY|IGNORE)\s+)*(`(?:[^`]|``)+`|[A-Za-z0-9_$.]+)/i.exec(statement);
    if (update && this.tableKinds.has(identifier(update[1]!.split(".").pop()!)))
      this.updateStatements++;
  };

  /** name → index of the row's columns (cached per column list). */
  private indexer(kind: TableKind, list: readonly string[]) {
    let idx = this.indexers.get(list);
    if (!idx) {
      idx = Object.fromEntries(list.map((c, i) => [c, i]));
      for (const name of DEFAULT_COLUMNS[kind])
        if (!(name in idx))
          throw new DamagedDumpError(
            `table ${this.tableOf(kind)} has no column ${name}, which WordPress gives it (an altered table)`,
            "Export the site again with its tables as WordPress made them.",
          );
      this.indexers.set(list, idx);
    }
    return idx;
  }

  onRow = (
    table: string,
    values: DumpValue[],
    columns: string[] | null,
    hex: readonly number[],
  ) => {
    const kind = this.tableKinds.get(table);
    if (!kind) return;
    if (this.rowsDatabase === undefined) this.rowsDatabase = this.database;
    else if (this.rowsDatabase !== this.database)
      throw new DamagedDumpError(
        `the dump holds tables of prefix ${this.prefix} in database ${this.rowsDatabase ?? "(the one it begins in)"} and again in ${this.database}: export the site's database alone`,
        "",
      );
    const row = (this.rowsPerTable[table] = (this.rowsPerTable[table] ?? 0) + 1);
    const names =
      columns ??
      (kind === "users" && values.length === NETWORK_USERS_COLUMNS.length
        ? NETWORK_USERS_COLUMNS
        : DEFAULT_COLUMNS[kind]);
    const ix = this.indexer(kind, names);
    const v = (name: string) => values[ix[name]!] ?? null;
    const refuse = (why: string): never => {
      throw new DamagedDumpError(`row ${row} of ${table}: ${why} (a damaged dump)`);
    };
    // A value too many or too few would move every later one into the next column (a hash read as
    // the e-mail, an amount from post_content): MySQL writes a value for each column. A table of
    // assumed columns may have more of its own after them (a multisite's wp_users).
    if (columns !== null && values.length !== columns.length)
      refuse(`${values.length} values for its ${columns.length} columns`);
    const stock = DEFAULT_COLUMNS[kind].length;
    if (columns === null && values.length < stock)
      refuse(`${values.length} values, fewer than the ${stock} columns of WordPress's ${table}`);
    for (const i of hex) {
      const name = names[i];
      if (name !== undefined && NUMBER_COLUMNS.has(name))
        refuse(
          `${name} is a hex literal (0x${hexOf(values[i] ?? "")}), which no dump tool writes for a number column`,
        );
    }
    // Ids as MySQL writes an unsigned BIGINT: digits only, within what this reads exactly.
    const id = (name: string) => {
      const text = v(name);
      if (text === null || !/^[0-9]{1,16}$/.test(text) || !Number.isSafeInteger(Number(text)))
        refuse(`${name} ${JSON.stringify(text)} is not an id WordPress writes`);
      return Number(text);
    };
    switch (kind) {
      case "users": {
        // Every user is imported: one id twice leaves no way to tell which the site meant.
        const userId = id("ID");
        if (this.users.has(userId)) refuse(`ID ${userId} appears a second time`);
        this.users.set(userId, {
          id: userId,
          login: v("user_login") ?? "",
          pass: v("user_pass") ?? "",
          email: v("user_email") ?? "",
          registered: v("user_registered"),
          // As WordPress reads it (is_user_spammy): the number 1.
          spam: Number(v("spam")) === 1,
        });
        break;
      }
      case "usermeta":
        this.onUserMeta(id("user_id"), v("meta_key") ?? "", v("meta_value") ?? "");
        break;
      case "posts": {
        const type = String(v("post_type"));
        if (type !== this.postType) {
          this.otherPostTypes[type] = (this.otherPostTypes[type] ?? 0) + 1;
          return;
        }
        this.transactionPosts++;
        id("post_author");
        const postId = id("ID");
        this.metaPosts.add(postId);
        if (this.metaNotKept.has(postId)) this.metaReadBeforePost.add(postId);
        this.buckets.add(postId, ["p", POST_FIELDS.map((f) => v(f))]);
        break;
      }
      case "postmeta":
        this.onPostMeta(id("post_id"), v("meta_key"), v("meta_value"));
        break;
      // A term or taxonomy row twice (a site that lost its keys' AUTO_INCREMENT writes id 0 again
      // and again) matters only where the plugin's own terms are: the first row is kept, and the
      // plan refuses a repeated term its taxonomy names (plan/context.ts).
      case "terms": {
        const termId = id("term_id");
        if (this.terms.has(termId)) this.repeatedTerms.add(termId);
        else this.terms.set(termId, v("name") ?? "");
        break;
      }
      case "term_taxonomy": {
        const ttid = id("term_taxonomy_id");
        const row = { termId: id("term_id"), taxonomy: v("taxonomy") };
        const kept = this.taxonomies.get(ttid);
        if (!kept) this.taxonomies.set(ttid, row);
        else if (kept.taxonomy === this.taxonomy || row.taxonomy === this.taxonomy)
          refuse(`term_taxonomy_id ${ttid} appears a second time, in the plugin's taxonomy`);
        break;
      }
      case "term_relationships":
        this.buckets.add(id("object_id"), ["r", id("term_taxonomy_id")]);
        break;
    }
  };

  private onUserMeta(userId: number, key: string, value: string) {
    const balance = /^user_(withdrawable|nonwithdrawable)_bal_(.+)$/.exec(key);
    if (key !== "first_name" && key !== "last_name" && key !== this.capabilitiesKey && !balance)
      return;
    let meta = this.userMeta.get(userId);
    if (!meta)
      this.userMeta.set(
        userId,
        (meta = { fields: keyedByDump(), balances: keyedByDump(), unreadBalanceKeys: [] }),
      );
    // The plugin reads 'user_withdrawable_bal_' . strtolower($wallet_id), and PHP matches a meta key
    // exactly: a key some versions wrote from the id as a client sent it (…_bal_NGN) was never its
    // balance.
    if (balance && balance[2] !== balance[2]!.toLowerCase()) meta.unreadBalanceKeys.push(key);
    else if (balance) {
      const pair = (meta.balances[balance[2]!] ??= {});
      pair[balance[1] as keyof StoredBalance] ??= value;
    } else if (!(key in meta.fields)) meta.fields[key] = value;
  }

  private onPostMeta(postId: number, key: DumpValue, value: DumpValue) {
    if (key === null || key === "") return;
    if (pluginMetaKey(key)) {
      this.metaPosts.add(postId);
      if (TXN_META.has(key)) this.buckets.add(postId, ["m", key, value]);
      return;
    }
    if (key.startsWith(this.walletKeyPrefix)) {
      let meta = this.walletMeta.get(postId);
      if (!meta) this.walletMeta.set(postId, (meta = keyedByDump()));
      meta[key.slice(this.walletKeyPrefix.length)] ??= value;
      // On a CREDIT or DEBIT post it is not a wallet's (plan/wallets.ts): carried as below.
    }
    if (key.startsWith("_")) return;
    if (this.metaPosts.has(postId)) this.buckets.add(postId, ["x", key, value]);
    else this.metaNotKept.add(postId);
  }
}

/** The hex digits of a text's UTF-8 bytes, as a refusal names a hex literal. */
function hexOf(text: string) {
  return [...new TextEncoder().encode(text)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** The collector and parser wired together, for the CLI's streaming read. */
export function createReader(options: ImportOptions, buckets: Buckets) {
  const collector = new WordPressCollector(options, buckets);
  const parser = new DumpParser({
    onRow: collector.onRow,
    onComment: collector.onComment,
    onTable: collector.onTable,
    onStatement: collector.onStatement,
    wantTable: collector.wantTable,
  });
  return { collector, parser };
}
