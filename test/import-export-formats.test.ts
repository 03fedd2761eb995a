// The same site exported by each tool an owner may have instead of the prescribed mysqldump command
// (test/fixtures/make-export-formats.ts writes them from the fixture dumps, as a test here checks):
// phpMyAdmin, UpdraftPlus, Adminer, mariadb-dump under `wp db export`, mysqldump 8 with its
// defaults. Each must be read into the very statements the mysqldump fixture gives, and into D1 as
// the same users, balances and entries.
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { DamagedDumpError } from "../scripts/import/collect";
import { DumpOptionError } from "../scripts/import/plan/context";
import { importFromText } from "../scripts/import/wordpress";
import { exportFormats } from "./fixtures/export-formats";
import adminer from "./fixtures/exports/adminer.sql?raw";
import adminerUpsert from "./fixtures/exports/adminer-insert-update.sql?raw";
import mariadbDump from "./fixtures/exports/mariadb-dump-11.sql?raw";
import mysqldump8 from "./fixtures/exports/mysqldump-8.sql?raw";
import phpMyAdmin from "./fixtures/exports/phpmyadmin.sql?raw";
import updraftPlus from "./fixtures/exports/updraftplus.sql?raw";
import updraftPlusRealSite from "./fixtures/exports/updraftplus-real-site.sql?raw";
import { CLEAN, ledgerViolations } from "./helpers";
import { dump, IMPORT_AT, realSite, runImport } from "./import-helpers";

const EXPORTS = {
  phpMyAdmin,
  updraftPlus,
  adminer,
  "mariadb-dump 11 (wp db export)": mariadbDump,
  "mysqldump 8 defaults": mysqldump8,
};

/** The other forms of INSERT those tools offer, and the statements they write around them. */
const VARIANTS = {
  "phpMyAdmin, INSERT IGNORE": phpMyAdmin.replaceAll("INSERT INTO", "INSERT IGNORE INTO"),
  "phpMyAdmin, REPLACE": phpMyAdmin.replaceAll("INSERT INTO", "REPLACE INTO"),
  "phpMyAdmin, without column names": phpMyAdmin.replace(
    /(INSERT INTO `\w+`) \([^)]*\) VALUES/g,
    "$1 VALUES",
  ),
  "mariadb-dump 10.6.18, its sandbox line": mariadbDump.replace("/*M!999999", "/*!999999"),
  "Adminer, INSERT+UPDATE": adminerUpsert,
  "Adminer, TRUNCATE+INSERT": adminer.replace(
    /INSERT INTO `(\w+)`/g,
    "TRUNCATE `$1`;\nINSERT INTO `$1`",
  ),
};

const plan = (text: string, options = {}) => importFromText(text, { options, nowMs: IMPORT_AT });

/** What D1 holds of the site once imported: users, wallets, balances and every entry. */
async function ledger() {
  const all = async (sql: string) => (await env.DB.prepare(sql).all()).results;
  return {
    users: await all("SELECT * FROM users ORDER BY id"),
    wallets: await all("SELECT * FROM wallets ORDER BY id"),
    balances: await all(
      "SELECT user_id, wallet_id, balance_minor, entry_count FROM balances ORDER BY user_id, wallet_id",
    ),
    entries: await all("SELECT * FROM transactions ORDER BY id"),
  };
}

describe("a site exported by another tool than the prescribed mysqldump", () => {
  const source = plan(dump);

  it.each(Object.entries({ ...EXPORTS, ...VARIANTS }))(
    "%s: reads the same rows into the same statements",
    (_, text) => {
      const run = plan(text);
      expect(run.report).toEqual(source.report);
      expect(run.statements).toEqual(source.statements);
    },
  );

  it("the exports are what test/fixtures/make-export-formats.ts writes from the fixture dumps", () => {
    expect(exportFormats(dump, realSite.dump)).toEqual({
      "phpmyadmin.sql": phpMyAdmin,
      "updraftplus.sql": updraftPlus,
      "updraftplus-real-site.sql": updraftPlusRealSite,
      "adminer.sql": adminer,
      "adminer-insert-update.sql": adminerUpsert,
      "mariadb-dump-11.sql": mariadbDump,
      "mysqldump-8.sql": mysqldump8,
    });
  });

  it("each variant is another text than the export it was made from", () => {
    for (const variant of Object.values(VARIANTS))
      expect(Object.values(EXPORTS)).not.toContain(variant);
  });

  it("UpdraftPlus, a site of its own table prefix: the same statements as its mysqldump", () => {
    const run = plan(updraftPlusRealSite, realSite.options);
    const expected = plan(realSite.dump, realSite.options);
    expect(run.report).toEqual(expected.report);
    expect(run.statements).toEqual(expected.statements);
  });

  it("UpdraftPlus: refuses the default prefix when its header names another, whatever else the file holds", () => {
    // A host's database often keeps an old install's tables next to the live site's.
    const withStale = updraftPlusRealSite + updraftPlus;
    expect(() => plan(withStale)).toThrow(
      new DumpOptionError(
        "the dump's header says it is a backup of the site of table prefix wpx7_, and this import reads prefix wp_ (the default): run with --prefix wpx7_, or with --prefix wp_ to read the other tables it holds",
      ),
    );
    expect(plan(withStale, realSite.options).statements).toEqual(
      plan(realSite.dump, realSite.options).statements,
    );
    // Named on purpose: another install's tables the backup holds too.
    expect(plan(withStale, { prefix: "wp_" }).statements).toEqual(source.statements);
  });

  // phpMyAdmin's "Function to use when dumping data: UPDATE" writes each row as an UPDATE of the row
  // it was, and "Dump table: structure" no row at all: neither holds anything to import.
  // A statement ends at `);` and a line end: a value's own line ends are written \r\n.
  const inserts = /INSERT INTO `(\w+)` \(([^)]*)\) VALUES\r\n[\s\S]*?\);\r\n/g;
  const asUpdates = phpMyAdmin.replace(inserts, (_, table: string, columns: string) => {
    const names = columns.split(", ");
    return `UPDATE \`${table}\` SET ${names.map((c) => `${c} = ''`).join(",")} WHERE \`${table}\`.${names[0]} = 1;\r\n`;
  });
  const structureOnly = phpMyAdmin.replace(inserts, "");

  it.each([
    [
      "its rows as UPDATE statements",
      asUpdates,
      "the dump writes the rows of wp_users, wp_posts and the other tables of prefix wp_ as UPDATE statements, which change rows a database holds already: export again with INSERT statements (phpMyAdmin: Function to use when dumping data, INSERT)",
    ],
    [
      "its tables without their rows",
      structureOnly,
      "the dump holds the tables of prefix wp_ but none of their rows: export their data too (phpMyAdmin: Dump table, structure and data)",
    ],
  ])("phpMyAdmin: refuses an export of %s, saying how to export", (_, text, message) => {
    expect(asUpdates).toContain("UPDATE `wp_users` SET `ID` = ''");
    expect(() => plan(text)).toThrow(new DumpOptionError(message));
  });

  it("phpMyAdmin: refuses a server's export of two databases of the same prefix, naming them", () => {
    // Export → SQL from the server's page: each database after its CREATE DATABASE and USE.
    const database = (name: string) =>
      `CREATE DATABASE IF NOT EXISTS \`${name}\` DEFAULT CHARACTER SET utf8mb4;\r\nUSE \`${name}\`;\r\n${phpMyAdmin}`;
    expect(() => plan(database("staging_wp") + database("oldsite_wp"))).toThrow(
      new DamagedDumpError(
        "the dump holds tables of prefix wp_ in database staging_wp and again in oldsite_wp: export the site's database alone",
        "",
      ),
    );
    expect(() => plan(phpMyAdmin + database("oldsite_wp"))).toThrow(
      new DamagedDumpError(
        "the dump holds tables of prefix wp_ in database (the one it begins in) and again in oldsite_wp: export the site's database alone",
        "",
      ),
    );
    // One database named by USE, as mysqldump --databases writes it, reads as the site.
    expect(plan(database("oldsite_wp")).statements).toEqual(source.statements);
  });

  // phpMyAdmin's and Adminer's export page offers CSV, JSON, XML and more next to SQL.
  it.each([
    ["CSV", '"1","admin","$P$B/egg0xJInsraMkmYxm97KT8uXlbaM0","admin","admin@oldsite.example"\r\n'],
    [
      "JSON",
      '/**\n Export to JSON plugin for PHPMyAdmin\n */\n\n// oldsite_wp.wp_users\n[{"type":"header","version":"5.2.1"},\n{"type":"table","name":"wp_users","data":\n[\n{"ID":"1","user_login":"admin"}\n]\n}\n]\n',
    ],
    [
      "XML",
      '<?xml version="1.0" encoding="utf-8"?>\n<pma_xml_export version="1.0">\n  <database name="oldsite_wp">\n    <table name="wp_users">\n      <column name="ID">1</column>\n    </table>\n  </database>\n</pma_xml_export>\n',
    ],
  ])("refuses an export in %s, saying to export as SQL", (_, text) => {
    expect(() => plan(text)).toThrow(
      /^the file holds no statement of an SQL dump: export the database again with the format SQL \(near: /,
    );
    // The message says what to do: no "mend the row named above" after it, as it names no row.
    expect(() => plan(text)).toThrow(expect.objectContaining({ remedy: "" }));
  });

  it("UpdraftPlus: refuses a backup cut short before the term tables, which it writes last", () => {
    // UpdraftPlus writes the users' tables first: cut at a statement's end, a backup still holds
    // them and the posts, and without the terms no post reads as a transaction.
    const cut = updraftPlus.slice(0, updraftPlus.indexOf("# Table: `wp_term_relationships`"));
    expect(() => plan(cut)).toThrow(
      new DamagedDumpError(
        "the dump holds 20 posts of type wallettransaction but no rows of wp_term_relationships, wp_term_taxonomy, wp_terms, which say what each post is: it holds some of the site's tables only, or was cut short; export the database again (with --force, its users are imported alone)",
        "",
      ),
    );
    expect(plan(cut, { force: true }).report.warnings[0]).toMatch(/^the dump holds 20 posts/);
  });

  it.each([
    [
      "wp_usermeta",
      "the dump holds 5 rows of wp_users but no rows of wp_usermeta, which hold each user's role, names and stored balances: it holds some of the site's tables only, or was cut short; export the database again (with --force, its users are imported without them)",
    ],
    [
      "wp_postmeta",
      "the dump holds the stored balances of 3 users but no rows of wp_posts, which hold the site's wallets and transactions: it holds some of the site's tables only, or was cut short; export the database again (with --force, its users are imported alone)",
    ],
    [
      "wp_posts",
      "the dump holds 183 rows of wp_postmeta and the stored balances of 3 users but no rows of wp_posts, which hold the site's wallets and transactions: it holds some of the site's tables only, or was cut short; export the database again (with --force, its users are imported alone)",
    ],
  ])(
    "UpdraftPlus: refuses a backup cut short before %s, whose users it would import alone",
    (table, refusal) => {
      // Cut at a statement's end after the users' tables, a backup read to its end imported its users
      // (without their roles, cut before wp_usermeta) and not one wallet or entry, as a success.
      const cut = updraftPlus.slice(0, updraftPlus.indexOf(`# Table: \`${table}\``));
      expect(() => plan(cut)).toThrow(new DamagedDumpError(refusal, ""));
      const forced = plan(cut, { force: true }).report;
      expect(forced.warnings).toContain(refusal);
      expect(forced.users.imported).toBe(5);
    },
  );

  // A dump cut at a statement's end parses to its end: only the line its tool writes last tells it
  // from a whole one. Cut here after its last INSERT, it holds every row and lacks its end.
  const afterLastInsert = (text: string) =>
    text.slice(0, text.indexOf(";", text.lastIndexOf("INSERT INTO")) + 1);
  it.each([
    [
      "mysqldump (prescribed)",
      dump,
      "the dump begins as mysqldump's (-- MySQL dump 10.13  Distrib 8.0.36, for Linux (x86_64)) and lacks the line mysqldump ends it with (-- Dump completed): it was cut short; export it again (with --force, what it holds is imported)",
    ],
    [
      "mysqldump 8 defaults",
      mysqldump8,
      "the dump begins as mysqldump's (-- MySQL dump 10.13  Distrib 8.4.0, for Linux (x86_64)) and lacks the line mysqldump ends it with (-- Dump completed): it was cut short; export it again (with --force, what it holds is imported)",
    ],
    [
      "mariadb-dump 11 (wp db export)",
      mariadbDump,
      "the dump begins as mariadb-dump's (-- MariaDB dump 10.19-11.4.2-MariaDB, for debian-linux-gnu (x86_64)) and lacks the line mariadb-dump ends it with (-- Dump completed): it was cut short; export it again (with --force, what it holds is imported)",
    ],
    [
      "phpMyAdmin",
      phpMyAdmin,
      "the dump opens a transaction (START TRANSACTION, as phpMyAdmin writes) and lacks the COMMIT that ends it: it was cut short; export it again (with --force, what it holds is imported)",
    ],
    [
      "Adminer",
      adminer,
      "the dump begins as Adminer's (-- Adminer 4.8.1 MySQL 10.6.16-MariaDB-cll-lve dump) and lacks the line Adminer ends it with (the time of the export: -- YYYY-MM-DD hh:mm:ss): it was cut short; export it again (with --force, what it holds is imported)",
    ],
  ])(
    "%s: refuses a dump cut at a statement's end, naming the last line it lacks",
    (_, text, message) => {
      const cut = afterLastInsert(text);
      expect(cut.length).toBeLessThan(text.length);
      // Its message says what to do: no remedy after "Nothing was written."
      expect(() => plan(cut)).toThrow(new DamagedDumpError(message, ""));
      const forced = plan(cut, { force: true });
      expect(forced.report.warnings).toContain(message);
      expect(forced.statements).toEqual(source.statements);
    },
  );

  it("refuses no dump of a tool that writes no last line: UpdraftPlus's, mysqldump --skip-comments", () => {
    const skipComments = mysqldump8.replace(/^--.*\n/gm, "");
    expect(skipComments).not.toContain("-- Dump completed");
    for (const text of [updraftPlus, skipComments]) {
      const run = plan(afterLastInsert(text));
      expect(run.report.refused).toBe(false);
      expect(run.statements).toEqual(source.statements);
    }
  });

  // `mysqldump db table` per table (or a dump in parts), joined with `cat` into one file: each part
  // begins and ends with its own lines, and a part cut short at a statement's end is followed by
  // the next part's first line, not by its own last one.
  describe("several dumps joined in one file", () => {
    const head = dump.slice(0, dump.indexOf("--\n-- Table structure"));
    const foot = dump.slice(dump.lastIndexOf("UNLOCK TABLES;") + "UNLOCK TABLES;".length);
    const tables = dump.slice(head.length, dump.length - foot.length).split(/(?=--\n-- Table s)/);
    const parts = tables.map((table) => head + table + foot);
    const firstLine = "-- MySQL dump 10.13  Distrib 8.0.36, for Linux (x86_64)";

    it("a dump per table, joined: reads as the dump of them all", () => {
      expect(parts.map((p) => /`(\w+)`/.exec(p.slice(head.length))?.[1])).toEqual([
        "wp_postmeta",
        "wp_posts",
        "wp_term_relationships",
        "wp_term_taxonomy",
        "wp_terms",
        "wp_usermeta",
        "wp_users",
      ]);
      const run = plan(parts.join(""));
      expect(run.report).toEqual(source.report);
      expect(run.statements).toEqual(source.statements);
    });

    it("refuses a file whose earlier dump was cut short, naming which and where", () => {
      // wp_posts's dump, cut after its first INSERT: posts 34 and on are not in the file.
      const posts = parts[1]!;
      const cutPosts = posts.slice(0, posts.indexOf(";\n", posts.indexOf("INSERT INTO")) + 2);
      const joined = [parts[0], cutPosts, ...parts.slice(2)].join("");
      const message = `the file holds 7 dumps one after another, and dump 2 of 7 (${firstLine}) lacks the line mysqldump ends it with (-- Dump completed) before dump 3 begins (its last table: wp_posts): it was cut short; export it again (with --force, what it holds is imported)`;
      expect(() => plan(joined)).toThrow(new DamagedDumpError(message, ""));
      expect(plan(joined, { force: true }).report.warnings).toContain(message);
    });

    it("names every dump cut short, the last one too", () => {
      const cut = (part: string) => part.slice(0, part.length - foot.length);
      const joined = [cut(parts[0]!), ...parts.slice(1, 6), cut(parts[6]!)].join("");
      expect(() => plan(joined)).toThrow(
        new DamagedDumpError(
          `the file holds 7 dumps one after another, and dump 1 of 7 (${firstLine}) lacks the line mysqldump ends it with (-- Dump completed) before dump 2 begins (its last table: wp_postmeta); dump 7 of 7 (${firstLine}) lacks the line mysqldump ends it with (-- Dump completed) at the file's end (its last table: wp_users): they were cut short; export them again (with --force, what they hold is imported)`,
          "",
        ),
      );
    });

    it("phpMyAdmin exports joined: refuses one whose COMMIT is missing before the next begins", () => {
      // The first cut before its first row, the second whole.
      const joined = phpMyAdmin.slice(0, phpMyAdmin.indexOf("INSERT INTO")) + phpMyAdmin;
      expect(() => plan(joined)).toThrow(
        new DamagedDumpError(
          "the file opens 2 transactions one after another (START TRANSACTION, as phpMyAdmin writes), and transaction 1 of 2 lacks the COMMIT that ends it before transaction 2 begins (its last table: wp_postmeta): it was cut short; export it again (with --force, what it holds is imported)",
          "",
        ),
      );
    });
  });

  it("older UpdraftPlus, which wrote NULL as '': imports as the NULL would, but for a carried meta value", () => {
    // The plugin writes no NULL itself (its amount and request_id are always text); a client's
    // meta_data value null is one, and a meta row another plugin left. Where the import reads
    // another value for a missing one (amount: post_content; request_id: txn_request_id), '' is
    // read as NULL; a meta value carried as meta_data is "" (a meta_value search answers both alike).
    const post = (value: string) =>
      [
        "INSERT INTO `wp_posts` VALUES (960,3,'2024-01-01 11:00:00','2024-01-01 10:00:00','Amount:7','TRANSACTION 960','','publish','open','closed','','transaction-960','','','2024-01-01 11:00:00','2024-01-01 10:00:00','',0,'https://oldsite.example/?p=960',0,'wallettransaction','',0);",
        `INSERT INTO \`wp_postmeta\` VALUES (9600,960,'amount',${value}),(9601,960,'currency','ngn'),(9602,960,'txn_type','CREDIT'),(9603,960,'request_id',${value}),(9604,960,'txn_request_id','3_null-1'),(9605,960,'coupon',${value});`,
        "INSERT INTO `wp_term_relationships` VALUES (960,1,0);",
        "",
      ].join("\n");
    const withNull = plan(dump + post("NULL"));
    const withEmpty = plan(dump + post("''"));
    expect(withEmpty.report).toEqual(withNull.report);
    expect(withNull.report.refused).toBe(false);
    const entry = (run: typeof withNull) =>
      run.statements.find((sql) => sql.includes("SELECT 960,"));
    expect(entry(withNull)).toMatch(/'CREDIT', 700, '7'.*'null-1'.*\{"coupon":null\}/s);
    expect(withEmpty.statements).toEqual(
      withNull.statements.map((sql) => sql.replace('{"coupon":null}', '{"coupon":""}')),
    );
  });

  describe("in D1", () => {
    let imported: Awaited<ReturnType<typeof ledger>>;
    beforeAll(async () => {
      const run = await runImport({}, phpMyAdmin);
      expect(run.report.refused).toBe(false);
      imported = await ledger();
    });

    it("phpMyAdmin's export imports the site's users, balances and entries", async () => {
      expect(imported.entries.length).toBe(source.report.transactions.imported);
      expect(await ledgerViolations()).toEqual(CLEAN);
      const expected = source.report.expectedBalances.map((b) => [
        b.userId,
        b.walletId,
        b.balanceMinor,
        b.entries,
      ]);
      expect(
        imported.balances.map((b) => [b.user_id, b.wallet_id, b.balance_minor, b.entry_count]),
      ).toEqual(expect.arrayContaining(expected));
    });

    it.each([["mysqldump (prescribed)", dump], ...Object.entries(EXPORTS)])(
      "%s over it: finds every row already there and writes nothing",
      async (_, text) => {
        const run = await runImport({}, text);
        expect(run.report.refused).toBe(false);
        expect(run.report.conflicts).toEqual([]);
        expect(run.statements).toEqual([]);
        expect(await ledger()).toEqual(imported);
      },
    );
  });
});
