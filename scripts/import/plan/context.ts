// What every step of the plan shares: the options, the dump as read, the target database, the
// report being filled in, and the walk over the transaction posts in id order.
import {
  type Buckets,
  DamagedDumpError,
  DEFAULT_OPTIONS,
  groupBucket,
  type ImportOptions,
  type Part,
  type Parts,
  type PostGroup,
  type WordPressCollector,
} from "../collect";
import { MAX_LISTED, newReport, type PlanReport } from "../report";
import { visible } from "../report-text";
import { emptyTarget, type Target } from "../target";

export type StatementKind = "user" | "wallet" | "transaction" | "adjustment";

/** The longest statement D1 runs (its local form refuses a longer one with SQLITE_TOOBIG). */
const D1_STATEMENT_MAX_BYTES = 100_000;

/**
 * A row whose statement D1 cannot run (long values, such as a profile name of tens of KB a user
 * gave): refused while planning, so that nothing is written and the operator can shorten them.
 */
export class RowTooLongError extends Error {}

/**
 * An option the dump or the database cannot take (a `--prefix` of no table, a `--namespace` of no
 * term, a `--places` of no wallet): refused while planning, before any write.
 */
export class DumpOptionError extends Error {}

const utf8 = new TextEncoder();

/** Refuses a statement past D1's limit; UTF-8 takes at most 3 bytes for each UTF-16 unit. */
function checkedLength(sql: string, row: string) {
  if (sql.length * 3 <= D1_STATEMENT_MAX_BYTES) return;
  const bytes = utf8.encode(sql).length;
  if (bytes > D1_STATEMENT_MAX_BYTES)
    throw new RowTooLongError(
      visible(
        `${row} of the dump needs a statement of ${bytes.toLocaleString("en-US")} bytes, and D1 runs at most ${D1_STATEMENT_MAX_BYTES.toLocaleString("en-US")}: shorten its long values on the site and export again`,
      ),
    );
}

export type PlanInput = {
  collector: WordPressCollector;
  buckets: Buckets;
  options?: ImportOptions;
  /** targetState(...) of the database written to (emptyTarget() for a fresh one). */
  target?: Target;
  nowMs?: number;
  /** Takes each statement, in the order they must run; `row` names its row for an operator. */
  emit?: (sql: string, kind: StatementKind, row?: string) => void;
  progress?: (label: string, done: number, total: number) => void;
};

type PostKind = "wallet" | "api-key" | "transaction" | "other";

export type PlanContext = Required<Omit<PlanInput, "options">> & {
  opts: typeof DEFAULT_OPTIONS;
  report: PlanReport;
  warn(text: string): void;
  /** A warning listed before the others, so that no number of others can leave it out. */
  warnFirst(text: string): void;
  /** What a post is, by the names of its terms in the plugin's taxonomy. */
  kindOf(ttids: number[]): { kind: PostKind; names: string[] };
  /** Visits every transaction-type post in id order, one bucket at a time, with progress. */
  forEachPost(label: string, visit: (group: PostGroup) => void): void;
};

export function startPlan({
  collector,
  buckets,
  options = {},
  target = emptyTarget(),
  nowMs = Date.now(),
  emit = () => {},
  progress = () => {},
}: PlanInput): PlanContext {
  const opts = { ...DEFAULT_OPTIONS, ...options };
  const cut = cutShort(collector);
  if (cut !== null && !opts.force) throw new DamagedDumpError(cut, "");
  const networkSite = checkPrefix(collector, opts.force);
  const partial = partialDump(collector);
  if (partial !== null && !opts.force) throw new DamagedDumpError(partial, "");
  const report = newReport(opts, collector);
  const ctx: PlanContext = {
    collector,
    buckets,
    target,
    nowMs,
    emit: (sql, kind, row = `a ${kind}`) => {
      checkedLength(sql, row);
      emit(sql, kind, row);
    },
    progress,
    opts,
    report,
    warn: (text) => {
      if (report.warnings.length < MAX_LISTED) report.warnings.push(text);
      else report.warningsNotListed++;
    },
    warnFirst: (text) => {
      report.warnings.unshift(text);
      if (report.warnings.length <= MAX_LISTED) return;
      report.warnings.pop();
      report.warningsNotListed++;
    },
    kindOf: () => ({ kind: "other", names: [] }),
    forEachPost: (label, visit) => {
      const indexes = buckets.indexes();
      indexes.forEach((b, i) => {
        progress(label, i, indexes.length);
        for (const group of groupBucket(buckets.read(b))) visit(group);
      });
      progress(label, indexes.length, indexes.length);
    },
  };
  if (cut !== null) ctx.warn(cut);
  if (networkSite !== null) ctx.warn(networkSite);
  if (partial !== null) ctx.warn(partial);
  ctx.kindOf = postKinds(ctx);
  return ctx;
}

/** The parts of a file cut short that a refusal names one by one; the rest are counted. */
const CUT_PARTS_NAMED = 5;

/**
 * Why the dump reads as cut short at a statement's end, or null: every dump begun in the file (and
 * every transaction opened) must be ended by its tool's last line (its COMMIT) before the next
 * begins and before the file ends (collect.ts `dumps`, `transactions`).
 */
function cutShort({ dumps, transactions }: WordPressCollector) {
  const cut = <T>(parts: Parts<T>) => [...parts.cut, ...(parts.open ? [parts.open] : [])];
  const cutDumps = cut(dumps);
  const cutTransactions = cut(transactions);
  const n = cutDumps.length + cutTransactions.length;
  if (n === 0) return null;
  const then =
    n === 1
      ? "it was cut short; export it again (with --force, what it holds is imported)"
      : "they were cut short; export them again (with --force, what they hold is imported)";
  // One dump in the file: the message names no number.
  if (dumps.begun === 1 && cutDumps.length === 1 && cutTransactions.length === 0) {
    const { tool, firstLine } = dumps.open!;
    return visible(
      `the dump begins as ${tool.name}'s (${firstLine.slice(0, 120)}) and lacks the line ${tool.name} ends it with (${tool.lastText}): ${then}`,
    );
  }
  if (transactions.begun === 1 && cutTransactions.length === 1 && cutDumps.length === 0)
    return `the dump opens a transaction (START TRANSACTION, as phpMyAdmin writes) and lacks the COMMIT that ends it: ${then}`;
  const where = (kind: string, parts: { begun: number }, part: Part<unknown>) => {
    const next =
      part.number < parts.begun ? `before ${kind} ${part.number + 1} begins` : "at the file's end";
    return part.lastTable === null ? next : `${next} (its last table: ${part.lastTable})`;
  };
  const named = [
    ...cutDumps.map(
      ({ tool, firstLine, ...part }) =>
        `dump ${part.number} of ${dumps.begun} (${firstLine.slice(0, 120)}) lacks the line ${tool.name} ends it with (${tool.lastText}) ${where("dump", dumps, part)}`,
    ),
    ...cutTransactions.map(
      (part) =>
        `transaction ${part.number} of ${transactions.begun} lacks the COMMIT that ends it ${where("transaction", transactions, part)}`,
    ),
  ];
  const files = [
    ...(dumps.begun > 1 ? [`the file holds ${dumps.begun} dumps one after another`] : []),
    ...(transactions.begun > 1
      ? [
          `the file opens ${transactions.begun} transactions one after another (START TRANSACTION, as phpMyAdmin writes)`,
        ]
      : []),
  ];
  const more = n > CUT_PARTS_NAMED ? `; and ${n - CUT_PARTS_NAMED} more` : "";
  const file = files.length > 0 ? `${files.join(", and ")}, and ` : "";
  return visible(`${file}${named.slice(0, CUT_PARTS_NAMED).join("; ")}${more}: ${then}`);
}

/** "1 row", "2 rows". */
const rowsText = (n: number) => `${n} row${n === 1 ? "" : "s"}`;

/**
 * Why the dump holds some of the tables WordPress writes together and not the others, or null: a
 * user without any user meta (WordPress writes each one's with it), post meta without any post,
 * or stored balances without any post, where the site's wallets and transactions are. Such a dump
 * is some of the site's tables only, or one cut short at a statement's end (UpdraftPlus writes
 * wp_users, wp_usermeta, wp_postmeta and wp_posts, then the term tables, and its end is not read):
 * its users would be imported without their roles, or alone, and not one wallet or entry. The term
 * tables are postKinds'.
 */
function partialDump(collector: WordPressCollector) {
  const rows = (kind: "users" | "usermeta" | "posts" | "postmeta") =>
    collector.rowsPerTable[collector.tableOf(kind)] ?? 0;
  const then =
    "it holds some of the site's tables only, or was cut short; export the database again";
  if (rows("users") > 0 && rows("usermeta") === 0)
    return `the dump holds ${rowsText(rows("users"))} of ${collector.tableOf("users")} but no rows of ${collector.tableOf("usermeta")}, which hold each user's role, names and stored balances: ${then} (with --force, its users are imported without them)`;
  if (rows("posts") > 0) return null;
  const balances = [...collector.userMeta.values()].filter(
    (meta) => Object.keys(meta.balances).length > 0,
  ).length;
  const held = [
    ...(rows("postmeta") > 0
      ? [`${rowsText(rows("postmeta"))} of ${collector.tableOf("postmeta")}`]
      : []),
    ...(balances > 0
      ? [`the stored balances of ${balances} user${balances === 1 ? "" : "s"}`]
      : []),
  ];
  if (held.length === 0) return null;
  return `the dump holds ${held.join(" and ")} but no rows of ${collector.tableOf("posts")}, which hold the site's wallets and transactions: ${then} (with --force, its users are imported alone)`;
}

/** Term names of the plugin's taxonomy by term_taxonomy_id, and what they make a post. */
function postKinds({ collector, opts, warn }: PlanContext) {
  const NS = opts.namespace.toUpperCase();
  const { taxonomy } = collector;
  const termOf = new Map<number, string>();
  for (const [ttid, t] of collector.taxonomies)
    if (t.taxonomy === taxonomy) {
      if (collector.repeatedTerms.has(t.termId))
        throw new DamagedDumpError(
          `${collector.prefix}terms holds term_id ${t.termId} twice, and the plugin's ${taxonomy} names it (a damaged dump)`,
        );
      termOf.set(ttid, String(collector.terms.get(t.termId) ?? "").toUpperCase());
    }
  // Every transaction has its term links, and every site its terms: a dump of transaction posts
  // without a row of one of those tables is some of the site's tables only, or one cut short
  // (UpdraftPlus writes the term tables last), and would import the users and not one entry.
  const missing = ["term_relationships", "term_taxonomy", "terms"]
    .map((kind) => collector.prefix + kind)
    .filter((table) => !(table in collector.rowsPerTable));
  if (collector.transactionPosts > 0 && missing.length > 0) {
    const text = `the dump holds ${collector.transactionPosts} posts of type ${collector.postType} but no rows of ${missing.join(", ")}, which say what each post is: it holds some of the site's tables only, or was cut short; export the database again (with --force, its users are imported alone)`;
    if (!opts.force) throw new DamagedDumpError(text, "");
    warn(text);
  }
  if (termOf.size === 0) {
    // Another namespace's terms: this one would import the users and leave every entry out
    // (--force imports the users alone, as for a site without the plugin's terms).
    const termsOf = [...collector.taxonomies.values()]
      .map((t) => /^([A-Za-z0-9_]+)transaction_type$/.exec(String(t.taxonomy))?.[1])
      .find((ns) => ns !== undefined);
    // A dump without the term tables names the namespace by its posts' type alone, when it has
    // none of this one's: read as a site without the plugin, it would import the users and not
    // one entry.
    const postsOf =
      collector.transactionPosts > 0
        ? undefined
        : Object.keys(collector.otherPostTypes)
            .map((type) => /^([A-Za-z0-9_]+)transaction$/.exec(type)?.[1])
            .find((ns) => ns !== undefined);
    const other = termsOf ?? postsOf;
    const also =
      termsOf !== undefined
        ? `, and those of ${termsOf}transaction_type`
        : postsOf !== undefined
          ? `, and ${collector.otherPostTypes[`${postsOf}transaction`]} posts of type ${postsOf}transaction`
          : "";
    if (other !== undefined && !opts.force)
      throw new DumpOptionError(
        `the dump holds no terms of taxonomy ${taxonomy}${also}: run with --namespace ${other} (or --force to import the users alone)`,
      );
    warn(`no terms of taxonomy ${taxonomy}${also}: is --namespace right?`);
  }
  return (ttids: number[]) => {
    const names = ttids.map((t) => termOf.get(t)).filter((n) => n !== undefined);
    const has = (n: string) => names.includes(n);
    const kind: PostKind =
      has("WALLETS") || has(`${NS} WALLETS`)
        ? "wallet"
        : has("API-KEYS")
          ? "api-key"
          : has("CREDIT") || has("DEBIT")
            ? "transaction"
            : "other";
    return { kind, names };
  };
}

/**
 * A site of a multisite network keeps its posts under its own prefix (wp_2_) and its users in the
 * network's tables (wp_users): read alone, either prefix would import users without their money,
 * or money whose every author is missing. Refused, naming the options that read the site whole;
 * users without money only with --force, as for a dump without the plugin's terms.
 */
function checkNetworkSite(collector: WordPressCollector, force: boolean) {
  const { prefix, usersPrefix, rowsPerTable, otherUsersTables } = collector;
  const base = /^(.*_)\d+_$/.exec(prefix)?.[1];
  const users = collector.tableOf("users");
  if (usersPrefix !== prefix && !rowsPerTable[users]) {
    const held = usersTableHeld(otherUsersTables);
    throw new DumpOptionError(
      `the dump holds no rows of ${users}, which --users-prefix ${usersPrefix} names${held === undefined ? "" : `: it holds ${held.table}, run with --users-prefix ${held.prefix}`}`,
    );
  }
  const network = base !== undefined && otherUsersTables.has(`${base}users`);
  if (usersPrefix === prefix && !rowsPerTable[users] && network)
    throw new DumpOptionError(
      `the dump holds no rows of ${users}, and holds ${base}users: a site of a multisite network keeps its users in the network's tables, run with --prefix ${prefix} --users-prefix ${base}`,
    );
  // The network's first site but the main one: wp_2_posts before wp_10_posts.
  const [site] = [...collector.sitePostsTables].sort(
    (a, b) => a.length - b.length || a.localeCompare(b),
  );
  if (site === undefined || collector.transactionPosts > 0 || collector.walletMeta.size > 0)
    return null;
  const number = site.slice(prefix.length, -"_posts".length);
  const text = `the dump holds no wallet or transaction of prefix ${prefix}, and holds ${site}: if the plugin ran on site ${number} of a multisite network, run with --prefix ${prefix}${number}_ --users-prefix ${usersPrefix}`;
  if (!force) throw new DumpOptionError(`${text} (or --force to import the users alone)`);
  return text;
}

/**
 * A dump of no row of the prefix's tables (an empty one, another prefix's) would import nothing; a
 * backup whose header names another prefix than the default is refused unless --prefix names one;
 * a dump of UPDATE statements or of the tables alone is refused saying how to export their rows.
 * A network's site read by half its prefixes is refused too (checkNetworkSite); what --force
 * imports anyway is answered, to be warned of.
 */
function checkPrefix(collector: WordPressCollector, force: boolean) {
  const { prefix, rowsPerTable, otherUsersTables, declaredPrefix } = collector;
  // Named on purpose, another prefix is read: the backup may hold another install's tables too.
  if (declaredPrefix !== null && declaredPrefix !== prefix && !collector.prefixGiven)
    throw new DumpOptionError(
      `the dump's header says it is a backup of the site of table prefix ${declaredPrefix}, and this import reads prefix ${prefix} (the default): run with --prefix ${declaredPrefix}, or with --prefix ${prefix} to read the other tables it holds`,
    );
  const networkSite = checkNetworkSite(collector, force);
  if (Object.keys(rowsPerTable).length > 0) return networkSite;
  if (collector.updateStatements > 0)
    throw new DumpOptionError(
      `the dump writes the rows of ${prefix}users, ${prefix}posts and the other tables of prefix ${prefix} as UPDATE statements, which change rows a database holds already: export again with INSERT statements (phpMyAdmin: Function to use when dumping data, INSERT)`,
    );
  if (collector.createdTables.size > 0)
    throw new DumpOptionError(
      `the dump holds the tables of prefix ${prefix} but none of their rows: export their data too (phpMyAdmin: Dump table, structure and data)`,
    );
  const held = usersTableHeld(otherUsersTables);
  throw new DumpOptionError(
    `the dump holds no rows of ${collector.tableOf("users")}, ${prefix}posts or another table of prefix ${prefix}: ${
      held === undefined
        ? "is it a WordPress database's dump?"
        : `it holds ${held.table}, run with --prefix ${held.prefix}`
    }`,
  );
}

/**
 * The users table a dump holds of another prefix, and that prefix: WordPress's own is the shortest
 * of a prefix (mysqldump writes a plugin's `<prefix>…_users` first).
 */
function usersTableHeld(tables: Set<string>) {
  const [table] = [...tables].sort((a, b) => a.length - b.length);
  return table === undefined ? undefined : { table, prefix: table.slice(0, -"users".length) };
}
