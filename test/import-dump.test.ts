// The WordPress importer's pure parts: the streaming mysqldump reader, the mapping helpers, and the
// planner's decisions on dumps made to break its rules. (The end-to-end import is in
// import-wordpress.test.ts.)
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { DamagedDumpError } from "../scripts/import/collect";
import { DumpOptionError } from "../scripts/import/plan/context";
import { readSiteAmount, siteDecimalToMinor } from "../scripts/import/site-amounts";
import {
  createTableColumns,
  DumpParser,
  DumpSyntaxError,
  type DumpValue,
  MAX_ROW_CHARS,
  NotUtf8TextError,
  notUtf8Mark,
  parseDumpText,
} from "../scripts/import/sql-dump";
import { readTargetRows, SchemaMissing, TARGET_QUERIES } from "../scripts/import/target";
import {
  decodeEntities,
  type ImportOptions,
  importFromChunks,
  importFromText,
  parseRoles,
  passwordHashKind,
  sqlLiteral,
  targetState,
  utcSeconds,
} from "../scripts/import/wordpress";
import { UNUSABLE_MARK } from "../src/db/schema";
import { MAX_MINOR } from "../src/ledger/money";
import { dump, IMPORT_AT } from "./import-helpers";

const SMALL = `-- MySQL dump 10.13
/*!40101 SET NAMES utf8mb4 */;
DROP TABLE IF EXISTS \`t\`;
CREATE TABLE \`t\` (
  \`id\` bigint(20) unsigned NOT NULL AUTO_INCREMENT,
  \`txt\` longtext,
  \`num\` decimal(10,2) DEFAULT NULL,
  PRIMARY KEY (\`id\`),
  KEY \`txt\` (\`txt\`(10))
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;
LOCK TABLES \`t\` WRITE;
INSERT INTO \`t\` VALUES (1,'it\\'s \\"quoted\\"\\nnew line\\r\\n\\\\ back\\0nul\\Zsub\\ttab\\bbs \\%\\_','-12.50'),(2,'a''b ;),( -- not a comment',NULL);
INSERT INTO \`t\` VALUES
(3,'₦ Ọkọnkwọ 🙏',1e3),
(4,_utf8mb4'introduced',X'4142'),
(5,'',0);
# a hash comment
UNLOCK TABLES;
INSERT INTO \`other\` (\`b\`, \`a\`) VALUES ('x',1);
`;

const EXPECTED_ROWS = [
  ["1", 'it\'s "quoted"\nnew line\r\n\\ back\0nul\x1asub\ttab\bbs \\%\\_', "-12.50"],
  ["2", "a'b ;),( -- not a comment", null],
  ["3", "₦ Ọkọnkwọ 🙏", "1e3"],
  ["4", "introduced", "AB"],
  ["5", "", "0"],
];

describe("the streaming mysqldump reader", () => {
  it("reads extended INSERTs with MySQL's escapes, NULL, numbers, introducers and hex", () => {
    const tables = parseDumpText(SMALL);
    expect(tables.t).toEqual({ columns: ["id", "txt", "num"], rows: EXPECTED_ROWS });
    expect(tables.other).toEqual({ columns: ["b", "a"], rows: [["x", "1"]] });
  });

  it("skips bytes that are not UTF-8 in a table it does not read, and names one in a table it reads", () => {
    // The CLI reads such a byte as its mark (a lone surrogate): Wordfence's binary columns, as
    // mysqldump writes them without --hex-blob, in a table the import does not read.
    const [ff, c0] = [notUtf8Mark(0xff), notUtf8Mark(0xc0)];
    const other = `INSERT INTO \`wp_wfhits\` VALUES (_binary '${ff}\\'${c0}\\0',${ff}1,b'${c0}'),(X'00','${c0}');\n`;
    const rows: DumpValue[][] = [];
    const parser = () =>
      new DumpParser({ onRow: (_, values) => void rows.push(values), wantTable: (t) => t === "t" });
    const read = parser();
    read.push(`${other}INSERT INTO \`t\` VALUES (1,'ok');\n`, true);
    read.end();
    expect(rows).toEqual([["1", "ok"]]);
    // In a table it reads, as a string's character, after an escape, or in a bare word or literal.
    for (const value of [`'a${ff}'`, `'a\\${ff}'`, `${ff}1`, `b'${ff}'`, `_binary '${c0}'`]) {
      const text = `${other}INSERT INTO \`t\` VALUES (1,${value});\n`;
      // Whole, and fed one character at a time, as the file's reads split it anywhere.
      const where = (feed: (p: DumpParser) => void) => {
        const p = parser();
        try {
          feed(p);
        } catch (err) {
          if (err instanceof NotUtf8TextError) return err.at;
          throw err;
        }
        return null;
      };
      const at = text.lastIndexOf(value.includes(ff) ? ff : c0);
      expect(
        where((p) => p.push(text, true)),
        value,
      ).toBe(at);
      expect(
        where((p) => {
          for (const ch of text) p.push(ch, true);
        }),
        value,
      ).toBe(at);
    }
  });

  it("gives the same rows whatever the chunks it is fed, split anywhere (inside strings and escapes too)", () => {
    const whole = parseDumpText(SMALL);
    for (let size = 1; size <= 17; size++)
      expect(parseDumpText(SMALL, size), `chunks of ${size}`).toEqual(whole);
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: SMALL.length }), { maxLength: 12 }),
        (cuts) => {
          const points = [...new Set([0, ...cuts, SMALL.length])].sort((a, b) => a - b);
          const tables: Record<string, unknown[]> = {};
          const parser = new DumpParser({
            onRow: (table, values) => void (tables[table] ??= []).push(values),
          });
          for (let i = 1; i < points.length; i++)
            parser.push(SMALL.slice(points[i - 1], points[i]));
          parser.end();
          expect(tables).toEqual({ t: whole.t!.rows, other: whole.other!.rows });
        },
      ),
      { numRuns: 200 },
    );
  });

  it("reads the whole fixture dump the same in chunks of 1, 7 and 4096 characters", () => {
    const whole = parseDumpText(dump);
    expect(Object.keys(whole).sort()).toEqual([
      "wp_postmeta",
      "wp_posts",
      "wp_term_relationships",
      "wp_term_taxonomy",
      "wp_terms",
      "wp_usermeta",
      "wp_users",
    ]);
    expect(whole.wp_terms!.columns).toEqual(["term_id", "name", "slug", "term_group"]);
    for (const size of [1, 7, 4096]) expect(parseDumpText(dump, size)).toEqual(whole);
  });

  it("hands only the wanted tables' rows over and counts them all", () => {
    const seen: string[] = [];
    const parser = new DumpParser({
      onRow: (table) => seen.push(table),
      wantTable: (table) => table === "other",
    });
    parser.push(SMALL);
    parser.end();
    expect(seen).toEqual(["other"]);
    expect(parser.rows).toBe(6);
  });

  it("reads the rows of a dump joined after another with its byte order mark (cat a.sql b.sql)", () => {
    const second =
      "\uFEFFINSERT INTO `t` VALUES (3,'c');\n\uFEFF-- MySQL dump 10.13\nINSERT INTO `t` VALUES (4,'d');\n";
    const rows: DumpValue[][] = [];
    const comments: string[] = [];
    const parser = new DumpParser({
      onRow: (_t, v) => rows.push(v),
      onComment: (line) => comments.push(line),
    });
    parser.push(`INSERT INTO \`t\` VALUES (1,'a'),(2,'b');\n${second}`);
    parser.end();
    expect(rows).toEqual([
      ["1", "a"],
      ["2", "b"],
      ["3", "c"],
      ["4", "d"],
    ]);
    expect(comments).toEqual(["-- MySQL dump 10.13"]);
  });

  it("reads no row of a stored routine's body, which mysqldump --routines writes under DELIMITER ;;", () => {
    // mysqldump 5.7/8.0 writes a procedure bare (a trigger inside /*!50003 … */): its body's
    // statements end in ';' and the routine in ';;'. An INSERT of its body is code, not a row.
    const routines = `${SMALL}DELIMITER ;;
CREATE DEFINER=\`root\`@\`localhost\` PROCEDURE \`top_up\`(IN uid BIGINT)
BEGIN
  DECLARE note TEXT DEFAULT 'it''s; fine';
  INSERT INTO \`t\` VALUES (9,'from a routine',1);
  INSERT INTO \`other\` (\`b\`, \`a\`) VALUES (uid, 2);
END ;;
DELIMITER ;
INSERT INTO \`t\` VALUES (6,'after',2);
`;
    const rows = [...EXPECTED_ROWS, ["6", "after", "2"]];
    for (const size of [Infinity, 1, 3, 7]) {
      const tables = parseDumpText(routines, size);
      expect(tables.t?.rows, `chunks of ${size}`).toEqual(rows);
      expect(tables.other?.rows).toEqual([["x", "1"]]);
    }
    // Cut short inside the routine: what follows the DELIMITER line was never read.
    const cut = routines.slice(0, routines.indexOf("END ;;"));
    expect(() => parseDumpText(cut)).toThrow(
      "the dump ends after DELIMITER ;; with no DELIMITER ; (cut short?)",
    );
  });

  it("refuses a dump that stops inside a statement or holds something that is not SQL", () => {
    expect(() => parseDumpText("INSERT INTO `t` VALUES (1,'abc")).toThrow(DumpSyntaxError);
    expect(() => parseDumpText("INSERT INTO `t` VALUES (1,2),")).toThrow(DumpSyntaxError);
    expect(() => parseDumpText("INSERT INTO `t` VALUES oops;")).toThrow(/expected '\('/);
  });

  describe("a row longer than the limit", () => {
    const HEAD =
      "INSERT INTO `wp_usermeta` (`umeta_id`, `user_id`, `meta_key`, `meta_value`) VALUES (1,1,'k','v'),(2,1,'big','";
    const refusal = (limit: number, column = "meta_value", row = 2, table = "wp_usermeta") =>
      `row ${row} of ${table} is longer than ${limit} characters (refused while reading its column ${column}): MySQL's default max_allowed_packet could not have held it`;

    /** Pushes `chunk` until the parser refuses; the number of chunks it took. */
    function pushUntilRefused(parser: DumpParser, chunk: string, most: number) {
      for (let i = 1; i <= most; i++) {
        try {
          parser.push(chunk);
        } catch (err) {
          return { chunks: i, error: err as Error };
        }
      }
      return { chunks: most, error: null };
    }

    it("is refused on the chunk that takes it past, before its value ends, naming table, row and column", () => {
      const rows: unknown[] = [];
      const parser = new DumpParser({ onRow: (_t, v) => rows.push(v), maxRowChars: 1000 });
      parser.push(HEAD);
      // Row 2 holds "2", "1", "big" (5 characters): its value may have 995; the 10th chunk passes.
      const { chunks, error } = pushUntilRefused(parser, "a".repeat(100), 50);
      expect(error).toBeInstanceOf(DumpSyntaxError);
      expect(error?.message).toBe(refusal(1000));
      expect(chunks).toBe(10);
      expect(rows).toEqual([["1", "1", "k", "v"]]);
    });

    it("is read when it holds exactly the limit, escapes counted as the characters they stand for, whatever the chunks", () => {
      // `ab\n''` in the dump is 4 characters once read (a, b, a newline, a quote): 199 of them and
      // 199 x's are the 995 the value may hold beside the row's other 5.
      const text = `${HEAD}${"x".repeat(199)}${"ab\\n''".repeat(199)}');`;
      const value = "ab\n'".repeat(199);
      for (const size of [1, 7, 64, text.length]) {
        const rows: unknown[][] = [];
        const parser = new DumpParser({ onRow: (_t, v) => rows.push(v), maxRowChars: 1000 });
        for (let i = 0; i < text.length; i += size) parser.push(text.slice(i, i + size));
        parser.end();
        expect(rows[1], `chunks of ${size}`).toEqual(["2", "1", "big", "x".repeat(199) + value]);
        const over = new DumpParser({ onRow: () => {}, maxRowChars: 999 });
        expect(() => {
          for (let i = 0; i < text.length; i += size) over.push(text.slice(i, i + size));
        }, `chunks of ${size}`).toThrow(refusal(999));
      }
    });

    it("counts every value of the row: many short ones pass the limit too", () => {
      const parser = new DumpParser({ onRow: () => {}, maxRowChars: 20 });
      expect(() => parser.push("INSERT INTO `t` VALUES (1,'abcdefghij','abcdefghij');")).toThrow(
        "row 1 of t is longer than 20 characters (refused while reading its column value 3)",
      );
    });

    it("of a table the import does not read is refused at the real limit, reading 1 MiB chunks without keeping them", () => {
      const parser = new DumpParser({ onRow: () => {}, wantTable: () => false });
      parser.push("INSERT INTO `wp_options` VALUES (7,'cron','");
      const { chunks, error } = pushUntilRefused(parser, "a".repeat(1 << 20), 80);
      expect(MAX_ROW_CHARS).toBe(64 * 1024 * 1024);
      expect(chunks).toBe(64); // 64 MiB of value and the row's "7" and "cron" pass it
      expect(error?.message).toBe(refusal(MAX_ROW_CHARS, "value 3", 1, "wp_options"));
    });
  });

  // mysqldump --hex-blob, phpMyAdmin (by default) and UpdraftPlus write a binary column's value
  // (BLOB, BINARY, VARBINARY: a site whose columns a charset conversion left binary) as 0x… or
  // X'…': the bytes it stands for, which WordPress read as UTF-8 text.
  it("reads a hex literal as the UTF-8 text of its bytes, and says which values were hex", () => {
    const seen: unknown[] = [];
    const parser = new DumpParser({
      onRow: (_t, values, _c, hex) => seen.push([values, [...hex]]),
    });
    parser.push(
      "INSERT INTO `t` VALUES (1,0x61646d696e,X'e282a6',x'',0x5,0xefbbbf41,'0x41',b'101'),(2,'plain');",
    );
    parser.end();
    expect(seen).toEqual([
      [
        ["1", "admin", "₦", "", "\x05", "\ufeffA", "0x41", "101"],
        [1, 2, 3, 4, 5],
      ],
      [["2", "plain"], []],
    ]);
  });

  it("refuses a hex literal whose bytes are not UTF-8 text, naming its row and column", () => {
    const refused = (sql: string) => () => parseDumpText(sql);
    expect(refused("INSERT INTO `t` (`id`,`login`) VALUES (1,'a'),(2,0x6ae9);")).toThrow(
      new DumpSyntaxError(
        "row 2 of t: its column login is a hex literal (0x6ae9) whose bytes are not UTF-8 text, as a latin1 export's are: export the site's database in UTF-8",
      ),
    );
    expect(refused("INSERT INTO `t` VALUES (1,X'e2');")).toThrow(
      "row 1 of t: its column value 2 is a hex literal (X'e2') whose bytes are not UTF-8 text",
    );
    expect(refused("INSERT INTO `t` VALUES (1,X'616');")).toThrow(
      "row 1 of t: its column value 2 is a hex literal (X'616') of an odd number of digits, which MySQL refuses",
    );
    // A table the import does not read keeps no value: its bytes are nobody's concern.
    const other = new DumpParser({ onRow: () => {}, wantTable: () => false });
    other.push("INSERT INTO `wp_wfblocks` VALUES (1,0xe9e9,X'0a00000a');");
    other.end();
  });

  it("reads column names from CREATE TABLE, skipping keys and constraints", () => {
    expect(
      createTableColumns(
        "CREATE TABLE `x` (\n  `a` int,\n  `b c` text,\n  PRIMARY KEY (`a`),\n  UNIQUE KEY `u` (`b c`),\n  CONSTRAINT `f` FOREIGN KEY (`a`) REFERENCES `y` (`id`)\n)",
      ),
    ).toEqual(["a", "b c"]);
  });
});

describe("mapping helpers", () => {
  it("decodes HTML-entity symbols", () => {
    expect(decodeEntities("&#8358;")).toBe("₦");
    expect(decodeEntities("&#x20BF;")).toBe("₿");
    expect(decodeEntities("&euro;&pound;&yen;&amp;")).toBe("€£¥&amp;");
    // Markup stays escaped as the site stored it: never live HTML in an answer.
    expect(decodeEntities("&lt;script&gt;&#60;b&#x3E;&quot;&#39;")).toBe(
      "&lt;script&gt;&#60;b&#x3E;&quot;&#39;",
    );
    expect(decodeEntities("RMPNCOIN")).toBe("RMPNCOIN");
    expect(decodeEntities("&nosuch; &#0; &#xD800;")).toBe("&nosuch; &#0; &#xD800;");
    expect(decodeEntities("&constructor;&toString;&CONSTRUCTOR;")).toBe(
      "&constructor;&toString;&CONSTRUCTOR;",
    );
  });

  it("reads the roles of a PHP-serialized capabilities array", () => {
    expect(parseRoles('a:1:{s:13:"administrator";b:1;}')).toEqual(["administrator"]);
    expect(parseRoles('a:2:{s:6:"editor";b:1;s:12:"shop_manager";b:0;}')).toEqual(["editor"]);
    expect(parseRoles("a:0:{}")).toEqual([]);
    expect(parseRoles(null)).toEqual([]);
  });

  it("reads roles only as the array's own keys, and none from a value WordPress cannot unserialize", () => {
    // A string value that reads like a role, an inner array's key, a count or length that is off.
    expect(
      parseRoles('a:2:{s:6:"editor";b:1;s:4:"note";s:25:"s:13:"administrator";b:1;";}'),
    ).toEqual(["editor"]);
    expect(parseRoles('a:1:{s:5:"extra";a:1:{s:13:"administrator";b:1;}}')).toEqual([]);
    expect(parseRoles('a:1:{s:12:"administrator";b:1;}')).toEqual([]);
    expect(parseRoles('a:2:{s:13:"administrator";b:1;}')).toEqual([]);
    expect(parseRoles('a:1:{s:13:"administrator";b:1;')).toEqual([]);
    expect(parseRoles('a:1:{s:13:"administrator";b:1;}x')).toEqual([]);
    expect(parseRoles('a:1:{s:8:"éditeur";b:1;}')).toEqual(["éditeur"]);
    expect(parseRoles('a:2:{i:0;b:1;s:6:"author";i:1;}')).toEqual(["author"]);
    expect(parseRoles(`a:1:{s:1:"x";${"a:1:{i:0;".repeat(100_000)}`)).toEqual([]);
    // A boolean, integer or float PHP does not read makes the whole value false: no role.
    for (const scalar of ["b:2;", "b:;", "i:1x;", "i:;", "d:1.5.5;", "d:e3;"])
      expect(parseRoles(`a:2:{s:13:"administrator";b:1;s:4:"note";${scalar}}`), scalar).toEqual([]);
    for (const scalar of [
      "i:-7;",
      "i:+7;",
      "d:0.5;",
      "d:.5;",
      "d:5.;",
      "d:1E+25;",
      "d:-INF;",
      "N;",
    ])
      expect(parseRoles(`a:2:{s:13:"administrator";b:1;s:4:"note";${scalar}}`), scalar).toEqual([
        "administrator",
      ]);
  });

  it("reads roles as maybe_unserialize does: whitespace around trimmed, bytes after read past where it ends in ; or }", () => {
    const admin = 'a:1:{s:13:"administrator";b:1;}';
    // A value typed by hand in phpMyAdmin, as tutorials for adding an administrator have it.
    for (const text of [` ${admin}`, `${admin}\n`, `\t${admin}\r\n`, `${admin}\u0000`, `${admin}}`])
      expect(parseRoles(text), JSON.stringify(text)).toEqual(["administrator"]);
    // Not PHP's whitespace, or an end is_serialized does not take: no role.
    for (const text of [`\u00a0${admin}`, `${admin}\u00a0`, `${admin}x`, `${admin} x`])
      expect(parseRoles(text), JSON.stringify(text)).toEqual([]);
  });

  it("tells the password hash kinds apart", () => {
    expect(passwordHashKind("$P$B1.iUL7/R9IdqMK9rnDKgJgOrzj8S00")).toBe("phpass");
    expect(
      passwordHashKind("$wp$2y$10$CW8LDA9.TG5ley7NGKUjhehVHoyv/Gfx7vBAZ/Oj0okvKlOwjrUk2"),
    ).toBe("wp-bcrypt");
    expect(passwordHashKind("$2y$10$p5z68FdLSnapsNnz5Ik2zuMUjFwcV4ndoqoJDYD6NMKhKk/cDLBy.")).toBe(
      "bcrypt",
    );
    expect(passwordHashKind("c4052b5b13fea2645f6e33a22563e51e")).toBe("md5");
    expect(passwordHashKind(PBKDF2_OWN)).toBe("pbkdf2");
    // This service's format, but no sign-in checks it (src/auth/password.ts): the user resets.
    for (const hash of PBKDF2_UNCHECKABLE) expect(passwordHashKind(hash), hash).toBe("unknown");
    // The site's, from Django: sign-in checks it, and replaces it at the first good one.
    for (const hash of DJANGO_CHECKABLE) expect(passwordHashKind(hash), hash).toBe("django");
    expect(passwordHashKind("$argon2id$v=19$m=65536")).toBe("unknown");
    // Work factors sign-in will not spend (src/auth/wordpress-hashes.ts): the user resets instead.
    expect(passwordHashKind("$2y$13$p5z68FdLSnapsNnz5Ik2zuMUjFwcV4ndoqoJDYD6NMKhKk/cDLBy.")).toBe(
      "unknown",
    );
    expect(
      passwordHashKind("$wp$2y$31$CW8LDA9.TG5ley7NGKUjhehVHoyv/Gfx7vBAZ/Oj0okvKlOwjrUk2"),
    ).toBe("unknown");
    expect(passwordHashKind("$P$F1.iUL7/R9IdqMK9rnDKgJgOrzj8S00")).toBe("unknown");
  });

  it("reads MySQL dates as UTC and refuses the zero date", () => {
    expect(utcSeconds("2022-09-05 14:15:07")).toBe(Date.UTC(2022, 8, 5, 14, 15, 7) / 1000);
    expect(utcSeconds("0000-00-00 00:00:00")).toBeNull();
    expect(utcSeconds("")).toBeNull();
    expect(utcSeconds("0001-01-01 00:00:00")).toBe(-62_135_596_800);
    expect(utcSeconds("9999-12-31 23:59:59")).toBe(Date.UTC(9999, 11, 31, 23, 59, 59) / 1000);
    expect(utcSeconds("2024-02-29 23:59:59")).toBe(Date.UTC(2024, 1, 29, 23, 59, 59) / 1000);
    // No instant: Date would roll each into the next day, month or year.
    for (const text of ["2022-02-30 10:00:00", "2023-02-29 10:00:00", "2022-09-05 25:61:00"])
      expect(utcSeconds(text), text).toBeNull();
    expect(utcSeconds("2022-13-01 00:00:00")).toBeNull();
    expect(utcSeconds("2022-09-05 14:15:60")).toBeNull();
  });

  it("writes SQL literals that keep every character", () => {
    expect(sqlLiteral("it's")).toBe("'it''s'");
    expect(sqlLiteral("a\nb")).toBe("'a\nb'");
    expect(sqlLiteral("a\0b")).toBe("CAST(X'610062' AS TEXT)");
    // Words wrangler's file runner edits wherever they stand, string literals too.
    expect(sqlLiteral("BEGIN TRANSACTION; x")).toBe(
      "CAST(X'424547494e205452414e53414354494f4e3b2078' AS TEXT)",
    );
    expect(sqlLiteral("COMMIT; me")).toBe("'COMMIT; me'");
    expect(sqlLiteral(42)).toBe("42");
    expect(sqlLiteral(null)).toBe("NULL");
    expect(() => sqlLiteral(1.5)).toThrow();
  });

  it("converts amounts to minor units exactly, refusing or rounding extra digits", () => {
    expect(siteDecimalToMinor("1500", 2)).toEqual({ minor: 150000 });
    expect(siteDecimalToMinor("0.00012345", 8)).toEqual({ minor: 12345 });
    expect(siteDecimalToMinor("1.005", 2)).toEqual({ issue: "too-many-decimals" });
    expect(siteDecimalToMinor("1.500", 2)).toEqual({ minor: 150 });
    expect(siteDecimalToMinor("10.000000000000002", 2, { round: true })).toEqual({ minor: 1000 });
    expect(siteDecimalToMinor("0.30000000000000004", 2, { round: true })).toEqual({ minor: 30 });
    expect(siteDecimalToMinor("1.5E-5", 8)).toEqual({ minor: 1500 });
    expect(siteDecimalToMinor("-3", 0)).toEqual({ issue: "negative" });
    expect(siteDecimalToMinor("-3", 0, { allowNegative: true })).toEqual({ minor: -3 });
    expect(siteDecimalToMinor("", 2)).toEqual({ minor: 0 });
    expect(siteDecimalToMinor("12abc", 2)).toEqual({ issue: "not-numeric" });
    expect(siteDecimalToMinor("999999999999999", 0)).toEqual({ minor: MAX_MINOR });
    expect(siteDecimalToMinor("1000000000000000", 0)).toEqual({ issue: "too-large" });
  });

  it("reads the site's amounts exactly, with the places each needs", () => {
    // [text, sign, integer digits, fraction, places]; C's white space may stand around a number,
    // before its sign too, and no other space may.
    const read: [string, boolean, string, string, number][] = [
      ["12.345", false, "12", "345", 3],
      ["100.50", false, "100", "5", 1],
      ["0", false, "0", "", 0],
      ["0.00", false, "0", "", 0],
      ["007", false, "7", "", 0],
      ["1.5E-5", false, "0", "000015", 6],
      [".5", false, "0", "5", 1],
      ["+3", false, "3", "", 0],
      ["\t-3 ", true, "3", "", 0],
    ];
    for (const [text, negative, integer, fraction, places] of read)
      expect(readSiteAmount(text), text).toEqual({ negative, integer, fraction, places });
    for (const bad of ["", "abc", "1.2.3", "--1", "-+1", "1,5", "0x10", "\u00a01", "1\u00a0"])
      expect(readSiteAmount(bad), bad).toEqual({ issue: "not-numeric" });
  });
});

/** The fixture with extra transaction posts (and their meta and term rows) appended. */
function withExtraTransactions(
  rows: {
    id: number | string;
    author: number | string;
    currency: string;
    amount: string;
    type?: string;
  }[],
) {
  const posts = rows
    .map(
      (r) =>
        `(${r.id},${r.author},'2024-01-01 11:00:00','2024-01-01 10:00:00','Amount:${r.amount}','TRANSACTION extra ${r.id}','','publish','open','closed','','extra-${r.id}','','','2024-01-01 11:00:00','2024-01-01 10:00:00','',0,'https://oldsite.example/?p=${r.id}',0,'wallettransaction','',0)`,
    )
    .join(",");
  const meta = rows
    .map(
      (r, i) =>
        `(${9000 + i * 4},${r.id},'amount','${r.amount}'),(${9001 + i * 4},${r.id},'currency','${r.currency}'),(${9002 + i * 4},${r.id},'request_id','x-${r.id}'),(${9003 + i * 4},${r.id},'txn_type','${r.type ?? "CREDIT"}')`,
    )
    .join(",");
  const rels = rows.map((r) => `(${r.id},${r.type === "DEBIT" ? 2 : 1},0)`).join(",");
  return `${dump}\nINSERT INTO \`wp_posts\` VALUES ${posts};\nINSERT INTO \`wp_postmeta\` VALUES ${meta};\nINSERT INTO \`wp_term_relationships\` VALUES ${rels};\n`;
}

/** A hash of this service's own, as it writes them (100,000 iterations, 16-byte salt). */
const PBKDF2_OWN =
  "pbkdf2_sha256$100000$AAAAAAAAAAAAAAAAAAAAAA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=";
const [, , OWN_SALT, OWN_DIGEST] = PBKDF2_OWN.split("$");
/** In this service's format, but past what a sign-in can check. */
const PBKDF2_UNCHECKABLE = [
  // Django's (a site that came from one): more iterations than the runtime's 100,000.
  `pbkdf2_sha256$260000$${OWN_SALT}$${OWN_DIGEST}`,
  `pbkdf2_sha256$100001$${OWN_SALT}$${OWN_DIGEST}`,
  `pbkdf2_sha256$0$${OWN_SALT}$${OWN_DIGEST}`,
  "pbkdf2_sha256$100000$a$b",
  `pbkdf2_sha256$100000$$${OWN_DIGEST}`,
  `pbkdf2_sha256$100000$${OWN_SALT}$${OWN_DIGEST}$extra`,
  `pbkdf2_sha256$100000$${OWN_SALT}`,
  `pbkdf2_sha256$100000$${OWN_SALT}$AAAA`,
];

/**
 * Django's pbkdf2_sha256 hashes of at most 100,000 iterations, which sign-in checks: the salt is
 * text (its UTF-8 bytes are PBKDF2's salt), even when it reads as base64 too (12 and 22 characters,
 * the two lengths Django draws). Digests by Python's hashlib.pbkdf2_hmac, as Django makes
 * them ("lètmein" and "sesame").
 */
const DJANGO_CHECKABLE = [
  "pbkdf2_sha256$36000$seasalt$mEUPPFJkT/xtwDU8rB7Q+puHRZnR07WRjerTkt/3HI0=",
  "pbkdf2_sha256$10000$Zm9vYmFyYmF6$xoUSZp2J4RHTgde6WchWmwZClIUH0G15GLRtnTQE1pQ=",
  "pbkdf2_sha256$100000$abcdefghijklmnopqrstuv$1WyyX3M6P3BntR3SPaufnMSKzYwXThg6WVIvpqNivX0=",
  `pbkdf2_sha256$100000$not base64!$${OWN_DIGEST}`,
];

/** The fixture site's user 1 as an earlier run imported it (its registration time is the site's). */
const admin = {
  id: 1,
  username: "admin",
  email: "admin@oldsite.example",
  role: "administrator",
  password_hash: "$P$B/egg0xJInsraMkmYxm97KT8uXlbaM0",
  registered_at_ms: Date.UTC(2021, 0, 2, 3, 4, 5),
};

/** A history as TARGET_QUERIES.pairs reads it: `n` entries, `foreign` of them the service's. */
const history = (user_id: number, wallet_id: string, n: number, foreign = 0) => ({
  user_id,
  wallet_id,
  balance_minor: 5,
  entry_count: n,
  last_id: 9,
  foreign_n: foreign,
});

describe("planning the import", () => {
  it("plans the same statements whatever the chunking of the dump and the size of the spill buckets", () => {
    const base = importFromText(dump, { nowMs: 0 }).statements;
    expect(base).toHaveLength(22);
    for (const [chunkSize, bucketWidth] of [
      [1, 1],
      [13, 7],
      [4096, 16],
      [Infinity, 1_000_000],
    ] as const) {
      expect(importFromChunks([dump], { nowMs: 0, chunkSize, bucketWidth }).statements).toEqual(
        base,
      );
    }
  });

  it("refuses, naming each, transactions no ledger can hold (a damaged dump); --force leaves them out", () => {
    const text = withExtraTransactions([
      { id: 900, author: 99, currency: "ngn", amount: "5" },
      { id: 901, author: 2, currency: "eur", amount: "5" },
      { id: 902, author: 2, currency: "ngn", amount: "1.005" },
      { id: 903, author: 2, currency: "ngn", amount: "0" },
      { id: 904, author: 2, currency: "ngn", amount: "abc" },
      { id: 905, author: 2, currency: "ngn", amount: "7" },
      { id: 906, author: 2, currency: "ngn", amount: "0.0000000000000001" },
      { id: 907, author: 2, currency: "ngn", amount: "10000000000000" },
    ]);
    const refused = importFromText(text).report;
    expect(refused.refused).toBe(true);
    expect(refused.refusalReasons).toEqual(["5 transactions cannot be carried over"]);
    expect(refused.transactions.skipped.examples).toEqual([
      { reason: "its user 99 is not in the dump", id: 900 },
      { reason: "wallet eur is not defined on the site", id: 901 },
      { reason: 'amount "abc" is not a valid amount (not-numeric)', id: 904 },
      {
        reason: "amount 0.0000000000000001 has 16 decimal places; a wallet stores at most 15",
        id: 906,
      },
      { reason: 'amount "10000000000000" is not a valid amount (too-large)', id: 907 },
    ]);
    // What the plugin accepted is not damage: 1.005 (ngn then stores 3 places) and 0 are carried over.
    expect(refused.transactions.imported).toBe(16);
    expect(refused.transactions.subPrecisionAmounts.examples).toEqual([
      { reason: "wallet ngn (2 decimals)", id: 902, userId: 2, walletId: "ngn", amount: "1.005" },
    ]);
    expect(refused.transactions.zeroAmounts.examples).toEqual([
      { reason: "wallet ngn", id: 903, userId: 2, walletId: "ngn", amount: "0" },
    ]);
    expect(refused.wallets.storage[0]).toEqual({
      walletId: "ngn",
      decimals: 2,
      storageDecimals: 3,
      placesNeeded: 3,
      present: false,
      chosen: false,
    });
    const forced = importFromText(text, { options: { force: true } });
    expect(forced.statements.some((sql) => /SELECT 90[0146],|SELECT 907,/.test(sql))).toBe(false);
    for (const id of [902, 903, 905])
      expect(forced.statements.some((sql) => sql.includes(`SELECT ${id},`))).toBe(true);
  });

  it("refuses a user it would leave out, one without entries too (its e-mail another's but for case); --force leaves it out", () => {
    // A site that let two accounts share an address (WP_IMPORTING, a plugin for it): user 6 has no
    // entry, only an account and a stored balance.
    const text = `${dump}INSERT INTO \`wp_users\` VALUES (6,'johnny','$P$B/egg0xJInsraMkmYxm97KT8uXlbaM0','johnny','JOHN.DOE@example.com','','2023-01-01 00:00:00','',0,'Johnny');
INSERT INTO \`wp_usermeta\` VALUES (9901,6,'user_withdrawable_bal_ngn','500');
`;
    const refused = importFromText(text).report;
    expect(refused.refused).toBe(true);
    expect(refused.refusalReasons).toEqual(["1 user cannot be carried over"]);
    expect(refused.users.skipped.examples).toEqual([
      { reason: "e-mail taken by user 2 in the dump", id: 6, username: "johnny" },
    ]);
    const forced = importFromText(text, { options: { force: true } });
    expect(forced.report.users.imported).toBe(5);
    expect(forced.statements.some((sql) => sql.includes("'johnny'"))).toBe(false);
    // The site's users alone, one by each e-mail, are no refusal.
    expect(importFromText(dump).report.refused).toBe(false);
  });

  it("names the status of a wallet post the site trashed or never published as why its transactions are refused", () => {
    for (const status of ["trash", "draft"]) {
      const text = dump.replace("'Dollar Wallet','','publish'", `'Dollar Wallet','','${status}'`);
      const { report } = importFromText(text);
      expect(report.refused, status).toBe(true);
      expect(report.transactions.skipped.examples).toEqual([
        { reason: `wallet usd is not imported (its wallet post 13 has status ${status})`, id: 26 },
      ]);
    }
  });

  it("keeps the first of two wallet posts of one wallet id, in post id order", () => {
    // Post 15 defines ngn again, with 0 decimals and a name of its own.
    const text = `${dump}
INSERT INTO \`wp_posts\` VALUES (15,1,'2022-01-02 10:00:00','2022-01-02 09:00:00','','Naira Again','','publish','closed','closed','','naira-again','','','2022-01-02 10:00:00','2022-01-02 09:00:00','',0,'https://oldsite.example/?post_type=wallettransaction&p=15',0,'wallettransaction','',0);
INSERT INTO \`wp_postmeta\` VALUES (9901,15,'wallet_wallet_id','NGN'),(9902,15,'wallet_wallet_name','Second Naira'),(9903,15,'wallet_wallet_decimal','0');
INSERT INTO \`wp_term_relationships\` VALUES (15,4,0);
`;
    const { report, statements } = importFromText(text);
    expect(report.wallets.skipped.examples).toEqual([
      { reason: "a second definition of wallet ngn (the first, post 10, is kept)", id: 15 },
    ]);
    expect(statements).toEqual(importFromText(dump).statements);
  });

  it("reads an amount's sign and white space as PHP and the plugin did: +3 is 3, a debit's -3 moves 3, a credit's -3 is refused", () => {
    const text = withExtraTransactions([
      { id: 910, author: 2, currency: "ngn", amount: "+3" },
      { id: 911, author: 2, currency: "ngn", amount: "-3", type: "DEBIT" },
      { id: 912, author: 2, currency: "ngn", amount: "-0.00" },
      { id: 913, author: 2, currency: "ngn", amount: "-3" },
      { id: 914, author: 2, currency: "ngn", amount: "+-3" },
      { id: 915, author: 2, currency: "ngn", amount: " -3 ", type: "DEBIT" },
      { id: 916, author: 2, currency: "ngn", amount: "\u00a03" },
    ]);
    const { report } = importFromText(text);
    expect(report.refused).toBe(true);
    expect(report.transactions.skipped.examples).toEqual([
      {
        reason: 'a CREDIT of "-3": the plugin records a negative credit as a DEBIT',
        id: 913,
      },
      { reason: 'amount "+-3" is not a valid amount (not-numeric)', id: 914 },
      { reason: 'amount "\u00a03" is not a valid amount (not-numeric)', id: 916 },
    ]);
    const { statements } = importFromText(text, { options: { force: true } });
    const entry = (id: number) => statements.find((sql) => sql.includes(`SELECT ${id},`)) ?? "";
    expect(entry(910)).toMatch(/'CREDIT', 300, '\+3'/);
    expect(entry(911)).toMatch(/'DEBIT', 300, '-3'/);
    expect(entry(912)).toMatch(/'CREDIT', 0, '-0\.00'/);
    expect(entry(913)).toBe("");
    expect(entry(915)).toMatch(/'DEBIT', 300, ' -3 '/);
    expect(entry(916)).toBe("");
  });

  it.each([
    ["a negative post ID", { id: "-50", author: 2 }, `ID "-50"`],
    ["an ID in exponent form", { id: "1e2", author: 2 }, `ID "1e2"`],
    ["a fractional ID", { id: "30.7", author: 2 }, `ID "30.7"`],
    [
      "an ID past what a double holds exactly",
      { id: "9007199254740993", author: 2 },
      `ID "9007199254740993"`,
    ],
    ["a hexadecimal post_author", { id: 920, author: "'0x2'" }, `post_author "0x2"`],
  ])("refuses a dump with %s, naming its row and column", (_, row, named) => {
    const text = withExtraTransactions([{ ...row, currency: "ngn", amount: "1" }]);
    expect(() => importFromText(text)).toThrow(DamagedDumpError);
    expect(() => importFromText(text)).toThrow(
      `of wp_posts: ${named} is not an id WordPress writes`,
    );
  });

  it("imports hex literals (a site whose columns are binary) as the text their bytes are", () => {
    const hex = (text: string) =>
      [...new TextEncoder().encode(text)].map((b) => b.toString(16).padStart(2, "0")).join("");
    const edits: [string, string][] = [
      ["(1,'admin','$P$", `(1,0x${hex("admin")},'$P$`],
      ["'admin@oldsite.example'", `X'${hex("admin@oldsite.example")}'`],
      ["(39,20,'amount','1500')", `(39,20,0x${hex("amount")},0x${hex("1500")})`],
      ["(50,21,'amount','200.50')", `(50,21,'amount',X'${hex("200.50")}')`],
      [
        "(25,2,'user_withdrawable_bal_ngn','1000')",
        `(25,2,X'${hex("user_withdrawable_bal_ngn")}',0x${hex("1000")})`,
      ],
    ];
    let asHex = dump;
    for (const [from, to] of edits) {
      expect(asHex).toContain(from);
      asHex = asHex.replace(from, to);
    }
    const plain = importFromText(dump, { nowMs: IMPORT_AT });
    const run = importFromText(asHex, { nowMs: IMPORT_AT });
    expect(run.report).toEqual(plain.report);
    expect(run.statements).toEqual(plain.statements);
  });

  it("refuses a hex literal in a number column, which MySQL would store as another number", () => {
    // INSERT … (0x32) into a BIGINT stores 50, not 2: no dump tool writes one there.
    expect(() => importFromText(dump.replace("(1,'admin','$P$", "(0x31,'admin','$P$"))).toThrow(
      new DamagedDumpError(
        "row 1 of wp_users: ID is a hex literal (0x31), which no dump tool writes for a number column (a damaged dump)",
      ),
    );
    expect(() =>
      importFromText(dump.replace("(39,20,'amount','1500')", "(39,X'3230','amount','1500')")),
    ).toThrow(/^row \d+ of wp_postmeta: post_id is a hex literal \(0x3230\), which no dump tool/);
  });

  it("refuses a dump whose table holds one id twice, rather than keep either row", () => {
    const twoUsers = `${dump}\nINSERT INTO \`wp_users\` VALUES (2,'mallory','x','mallory','m@example.test','','2024-01-01 00:00:00','',0,'mallory');\n`;
    expect(() => importFromText(twoUsers)).toThrow(
      /^row \d+ of wp_users: ID 2 appears a second time/,
    );
    const twoPosts = withExtraTransactions([
      { id: 930, author: 2, currency: "ngn", amount: "100" },
      { id: 930, author: 2, currency: "ngn", amount: "999" },
    ]);
    expect(() => importFromText(twoPosts)).toThrow("the posts table holds ID 930 twice");
    // A term or taxonomy row twice refuses the dump only where the plugin's terms are.
    const more = (sql: string) => `${dump}\n${sql}\n`;
    const blogTerms = more(
      "INSERT INTO `wp_terms` VALUES (0,'news','news',0),(0,'tips','tips',0),(7,'Again','again',0);\n" +
        "INSERT INTO `wp_term_taxonomy` VALUES (0,0,'post_tag','',0,0),(0,0,'post_tag','',0,0),(7,7,'category','',0,1);",
    );
    expect(importFromText(blogTerms).report.refused).toBe(false);
    expect(() =>
      importFromText(more("INSERT INTO `wp_term_taxonomy` VALUES (1,7,'category','',0,1);")),
    ).toThrow(
      /^row \d+ of wp_term_taxonomy: term_taxonomy_id 1 appears a second time, in the plugin's taxonomy/,
    );
    expect(() =>
      importFromText(more("INSERT INTO `wp_terms` VALUES (2,'CREDIT','credit-2',0);")),
    ).toThrow("wp_terms holds term_id 2 twice, and the plugin's wallettransaction_type names it");
  });

  it("reads a meta key of the plugin's in several rows of a post as get_post_meta(…, true): the first", () => {
    // Later rows (higher meta_id) for post 26, oldtimer's credit of 10.00 usd.
    const repeated = `${dump}\nINSERT INTO \`wp_postmeta\` VALUES (9901,26,'amount','99'),(9902,26,'currency','ngn'),(9903,26,'txn_type','DEBIT'),(9904,26,'request_id','usd-2');\n`;
    expect(importFromText(repeated).statements).toEqual(importFromText(dump).statements);
  });

  it("refuses a row with more or fewer values than its table's columns, rather than shift them", () => {
    // An 11th value in a user row would make 'extra' the username and the hash the e-mail.
    const shifted = dump.replace("(1,'admin','$P$", "(1,'extra','admin','$P$");
    expect(() => importFromText(shifted)).toThrow(DamagedDumpError);
    expect(() => importFromText(shifted)).toThrow(
      "row 1 of wp_users: 11 values for its 10 columns (a damaged dump)",
    );
    // A meta row without its value would have read the amount from post_content instead.
    expect(() =>
      importFromText(dump.replace("(39,20,'amount','1500')", "(39,20,'amount')")),
    ).toThrow(/^row \d+ of wp_postmeta: 3 values for its 4 columns/);
    expect(() =>
      importFromText(dump.replace("(39,20,'amount','1500')", "(39,20,'amount','1500','9')")),
    ).toThrow(/^row \d+ of wp_postmeta: 5 values for its 4 columns/);
    // Without CREATE TABLE or a column list, a stock table's columns are assumed: values past
    // them (a multisite's wp_users adds spam and deleted at the end) are no refusal, fewer are.
    const bare = "INSERT INTO `wp_users` VALUES ";
    const user = "(7,'u7','x','u7','u7@example.test','','2024-01-01 00:00:00','',0,'u7'";
    const meta = "INSERT INTO `wp_usermeta` VALUES (1,7,'nickname','u7');";
    expect(importFromText(`${bare}${user},0,0);\n${meta}`).report.users.inDump).toBe(1);
    expect(() => importFromText(`${bare}(7,'u7','x','u7','u7@example.test');`)).toThrow(
      "row 1 of wp_users: 5 values, fewer than the 10 columns of WordPress's wp_users (a damaged dump)",
    );
  });

  // Sign-in trims the login, so "johndoe " and the database's johndoe would be one login; and an
  // e-mail is one address in any letter case (the site's John.Doe@Example.com).
  it.each([
    [
      "whose username the site's is but for spaces at either end",
      "johndoe ",
      "JohnDoe",
      "john@elsewhere.example",
    ],
    ["whose e-mail the site's is, under another username", "johndoe", "jd", "john.doe@example.com"],
  ])("finds a user of the database %s", (_, siteLogin, username, email) => {
    const site = dump.replace("(2,'johndoe',", `(2,'${siteLogin}',`);
    const { report } = importFromText(site, {
      target: targetState({ users: [{ ...admin, id: 9, username, email }] }),
    });
    expect(report.conflicts).toContainEqual({
      kind: "user",
      id: 2,
      problem: `user 2 (${siteLogin} <John.Doe@Example.com>): username or e-mail belongs to existing user 9`,
    });
    expect(report.refused).toBe(true);
  });

  it("refuses a table whose CREATE TABLE lacks a column WordPress gives it, naming it", () => {
    const altered = dump.replace("  `user_activation_key` varchar(255) NOT NULL DEFAULT '',\n", "");
    expect(altered).not.toBe(dump);
    expect(() => importFromText(altered)).toThrow(DamagedDumpError);
    expect(() => importFromText(altered)).toThrow(
      "table wp_users has no column user_activation_key, which WordPress gives it (an altered table)",
    );
  });

  it("keeps the storage places of a wallet the database has: the site's amounts must fit them", () => {
    const text = withExtraTransactions([{ id: 902, author: 2, currency: "ngn", amount: "1.005" }]);
    const ngn = {
      id: "ngn",
      name: "Naira Wallet",
      symbol: "₦",
      symbol_position: "left",
      decimals: 2,
      type: "fiat",
    };
    // Stored at 2 places, as the API creates wallets: 1.005 does not fit; ngn's entries stay out.
    const narrow = importFromText(text, {
      target: targetState({ wallets: [{ ...ngn, extra_decimals: 0 }] }),
    }).report;
    expect(narrow.refused).toBe(true);
    expect(narrow.conflicts).toEqual([
      {
        kind: "wallet",
        id: "ngn",
        problem:
          "wallet ngn stores 2 decimal places in the database; the site's amounts need 3: its entries cannot be imported (--places ngn=2 imports the histories that fit)",
      },
    ]);
    expect(narrow.transactions.skipped.byReason).toEqual({
      "wallet ngn stores fewer decimal places in the database than the site's amounts need": 11,
    });
    // Stored at 4 places (an earlier import's): every amount is counted in those units.
    const wide = importFromText(text, {
      target: targetState({ wallets: [{ ...ngn, extra_decimals: 2 }] }),
    });
    expect(wide.report.refused).toBe(false);
    expect(wide.report.wallets.storage[0]).toEqual({
      walletId: "ngn",
      decimals: 2,
      storageDecimals: 4,
      placesNeeded: 3,
      present: true,
      chosen: false,
    });
    expect(
      wide.statements.some(
        (sql) => sql.startsWith("INSERT INTO wallets (id") && sql.includes("'ngn'"),
      ),
    ).toBe(false);
    expect(wide.statements.find((sql) => sql.includes("SELECT 902,"))).toContain(
      "'CREDIT', 10050, '1.005',",
    );
  });

  it("counts only the administrators that will be here, and demotes one deleted on the site", () => {
    // The site made admin a subscriber, and a new administrator whose e-mail is johndoe's (skipped).
    const demoted = `${dump.replace(
      "(4,1,'wp_capabilities','a:1:{s:13:\\\"administrator\\\";b:1;}')",
      "(4,1,'wp_capabilities','a:1:{s:10:\\\"subscriber\\\";b:1;}')",
    )}INSERT INTO \`wp_users\` VALUES (6,'boss','$P$B/egg0xJInsraMkmYxm97KT8uXlbaM0','boss','john.doe@example.com','','2024-01-01 00:00:00','',0,'Boss');
INSERT INTO \`wp_usermeta\` VALUES (9901,6,'wp_capabilities','a:1:{s:13:\\"administrator\\";b:1;}');
`;
    const skipped = importFromText(demoted, { target: targetState({ users: [admin] }) });
    expect(skipped.report.users.skipped.byReason).toEqual({
      "e-mail taken by user 2 in the dump": 1,
    });
    expect(skipped.report.warnings).toContain(
      "user 1 (admin) is a subscriber on the site but stays an administrator here: the database would have none left (make another with npm run admin:create, then run the import again)",
    );
    expect(skipped.statements.filter((sql) => sql.startsWith("UPDATE"))).toEqual([]);
    // An administrator the site deleted, whose imported entries show it was the site's, is made a
    // subscriber; one with no imported entries is named.
    const gone = {
      ...admin,
      id: 9,
      username: "gone",
      email: "gone@example.com",
      registered_at_ms: 0,
    };
    const own = { ...gone, id: 10, username: "ops", email: "ops@example.com" };
    const { report, statements } = importFromText(dump, {
      target: targetState({
        users: [admin, gone, own],
        pairs: [history(9, "ngn", 1)],
      }),
    });
    expect(report.users.updated.byReason).toEqual({
      "role administrator → subscriber (not in the dump (deleted on the site?))": 1,
    });
    expect(
      statements
        .filter((sql) => sql.startsWith("UPDATE"))
        .map((sql) => sql.replace(/\d{13}/, "NOW")),
    ).toEqual([
      "UPDATE sessions SET revoked_at_ms = NOW WHERE user_id = 9 AND revoked_at_ms IS NULL AND EXISTS (SELECT 1 FROM users WHERE role = 'administrator' AND id <> 9 AND substr(password_hash, 1, 1) <> '!');",
      "UPDATE users SET role = 'subscriber' WHERE id = 9 AND role = 'administrator' AND EXISTS (SELECT 1 FROM users WHERE role = 'administrator' AND id <> 9 AND substr(password_hash, 1, 1) <> '!');",
    ]);
    expect(report.warnings).toContain(
      "administrator 10 (ops) is not in the dump: this service's own stays as it is; one the site deleted keeps its role here (end its sessions in the console, revoke its keys)",
    );
  });

  it("refuses a history an earlier run imported of which the site has no entry left", () => {
    const { report } = importFromText(dump, {
      target: targetState({
        pairs: [history(3, "usd", 2)],
      }),
    });
    expect(report.refused).toBe(true);
    expect(report.conflicts).toContainEqual({
      kind: "entries",
      id: "3\tusd",
      problem:
        "user 3 wallet usd: the database holds 2 entries imported from the site, the site none now (trashed or deleted there since?)",
    });
  });

  it("refuses a dump of no user over a database of some (its users left out), demoting nobody", () => {
    const johndoe = { ...admin, id: 2, username: "johndoe", email: "John.Doe@Example.com" };
    const { report, statements } = importFromText(dump.replace(/^INSERT INTO `wp_users`.*$/m, ""), {
      target: targetState({
        users: [admin, johndoe],
        pairs: [history(2, "ngn", 1)],
      }),
    });
    expect(report.refused).toBe(true);
    expect(report.conflicts).toContainEqual({
      kind: "user",
      id: "*",
      problem: "the dump holds no user, and the database does (is --prefix right?)",
    });
    expect(statements.filter((sql) => sql.startsWith("UPDATE"))).toEqual([]);
  });

  it("refuses a post dated at no instant rather than roll its date on (2022-02-30 into March)", () => {
    const dated = (date: string) =>
      dump.replace(
        "(21,2,'2022-09-06 10:00:00','2022-09-06 09:00:00'",
        `(21,2,'${date}','${date}'`,
      );
    const { report } = importFromText(dated("2022-02-30 10:00:00"));
    expect(report.refused).toBe(true);
    expect(report.transactions.skipped.examples).toEqual([
      { reason: "no valid date (post_date 2022-02-30 10:00:00)", id: 21 },
    ]);
    expect(importFromText(dated("2024-02-29 10:00:00")).report.refused).toBe(false);
  });

  it("refuses a dump that holds nothing of --prefix's tables, naming the prefix it has", () => {
    expect(() => importFromText(dump, { options: { prefix: "wpx7_" } })).toThrow(DumpOptionError);
    expect(() => importFromText(dump, { options: { prefix: "wpx7_" } })).toThrow(
      "the dump holds no rows of wpx7_users, wpx7_posts or another table of prefix wpx7_: it holds wp_users, run with --prefix wp_",
    );
    expect(() => importFromText("")).toThrow(
      "the dump holds no rows of wp_users, wp_posts or another table of prefix wp_: is it a WordPress database's dump?",
    );
    // mysqldump writes tables by name: a plugin's wp_pmpro_memberships_users comes before wp_users.
    const plugin = "INSERT INTO `wp_pmpro_memberships_users` VALUES (1,1,1);\n";
    expect(() => importFromText(plugin + dump, { options: { prefix: "wpx7_" } })).toThrow(
      "it holds wp_users, run with --prefix wp_",
    );
  });

  describe("a site of a multisite network", () => {
    // Site 2 of a network: its posts and terms in wp_2_ tables, its users in the network's wp_users
    // and wp_usermeta, their roles on site 2 under wp_2_capabilities (WordPress's multisite layout).
    const SITE_TABLES = ["posts", "postmeta", "terms", "term_taxonomy", "term_relationships"];
    const site2 = SITE_TABLES.reduce(
      (text, t) => text.replaceAll(`\`wp_${t}\``, `\`wp_2_${t}\``),
      dump,
    )
      .replaceAll("'wp_capabilities'", "'wp_2_capabilities'")
      .concat(
        "INSERT INTO `wp_blogs` VALUES (1,1,'example.test','/'),(2,1,'shop.example.test','/');\n",
      );

    it("reads the network's users with --users-prefix: the same import as the single site's", () => {
      const single = importFromText(dump);
      const { report, statements } = importFromText(site2, {
        options: { prefix: "wp_2_", usersPrefix: "wp_" },
      });
      expect(statements).toEqual(single.statements);
      expect(report.users).toEqual(single.report.users);
      expect(report.transactions).toEqual(single.report.transactions);
      expect(report.options).toMatchObject({ prefix: "wp_2_", usersPrefix: "wp_" });
    });

    it("refuses --prefix wp_2_ alone, naming --users-prefix, before reading any user", () => {
      expect(() => importFromText(site2, { options: { prefix: "wp_2_" } })).toThrow(
        new DumpOptionError(
          "the dump holds no rows of wp_2_users, and holds wp_users: a site of a multisite network keeps its users in the network's tables, run with --prefix wp_2_ --users-prefix wp_",
        ),
      );
    });

    it("refuses the default prefix when the network's site holds no wallet but wp_2_ does", () => {
      const mainSiteEmpty =
        "the dump holds no wallet or transaction of prefix wp_, and holds wp_2_posts: if the plugin ran on site 2 of a multisite network, run with --prefix wp_2_ --users-prefix wp_";
      expect(() => importFromText(site2)).toThrow(
        new DumpOptionError(`${mainSiteEmpty} (or --force to import the users alone)`),
      );
      const { report } = importFromText(site2, { options: { force: true } });
      expect(report.users.imported).toBe(5);
      expect(report.warnings).toContain(mainSiteEmpty);
    });

    // The network's wp_users has two columns more, spam and deleted; user 1 (admin) marked spam.
    const NORMAL = "'$P$B/egg0xJInsraMkmYxm97KT8uXlbaM0'";
    const withSpam = site2
      .replace(
        "  `display_name` varchar(250) NOT NULL DEFAULT '',\n",
        "  `display_name` varchar(250) NOT NULL DEFAULT '',\n  `spam` tinyint(2) NOT NULL DEFAULT 0,\n  `deleted` tinyint(2) NOT NULL DEFAULT 0,\n",
      )
      .replace(/^INSERT INTO `wp_users` VALUES .*$/m, (line) =>
        line
          .replaceAll(/,'([^']*)'\)/g, ",'$1',0,0)")
          .replace("'Ada Admin',0,0)", "'Ada Admin',1,0)"),
      );
    const network = { options: { prefix: "wp_2_", usersPrefix: "wp_" } } as const;

    it("imports a user the network marked as spam unable to sign in, its hash kept behind the mark", () => {
      expect(withSpam).toContain("`spam` tinyint(2)");
      expect(withSpam).toContain("'Ada Admin',1,0)");
      const single = importFromText(dump);
      const { report, statements } = importFromText(withSpam, network);
      const marked = `'${UNUSABLE_MARK}${NORMAL.slice(1)}`;
      expect(statements).toEqual(single.statements.map((sql) => sql.replace(NORMAL, marked)));
      expect(statements.filter((sql) => sql.includes(marked))).toHaveLength(1);
      expect(report.users.signInDisabled).toEqual({
        total: 1,
        byReason: { "marked as spam on the network": 1 },
        examples: [{ reason: "marked as spam on the network", id: 1, username: "admin" }],
      });
      // Counted by the site's own hash, as any user's.
      expect(report.users.passwordHashes).toEqual(single.report.users.passwordHashes);
      // The site's only administrator: the console has none that signs in (named, below).
      expect(report.warnings).toEqual([
        ...single.report.warnings,
        "no administrator here can sign in after this run: user 1 (admin) is marked as spam on the network; make one with npm run admin:create (npm run deploy asks for one)",
      ]);
      // A dump of the network's wp_users without its CREATE TABLE or column lists reads the same.
      const bare = withSpam.replace(/CREATE TABLE `wp_users` \([^;]*;/, "");
      expect(bare).not.toContain("`spam` tinyint(2)");
      expect(importFromText(bare, network).statements).toEqual(statements);
    });

    it("carries the spam mark over to a user an earlier run imported, and lifts it, unless it signed in here", () => {
      const marked = `${UNUSABLE_MARK}${admin.password_hash}`;
      const run = (text: string, password_hash: string) =>
        importFromText(text, {
          ...network,
          target: targetState({ users: [{ ...admin, password_hash }] }),
        });
      const updates = (r: ReturnType<typeof run>) =>
        r.statements.filter((sql) => sql.startsWith("UPDATE users SET password_hash"));
      const disabled = run(withSpam, admin.password_hash);
      expect(updates(disabled)).toEqual([
        `UPDATE users SET password_hash = '${marked}' WHERE id = 1 AND password_hash = ${NORMAL};`,
      ]);
      expect(disabled.report.users.updated.byReason).toEqual({
        "sign-in disabled (marked as spam on the network)": 1,
      });
      const enabled = run(site2, marked);
      expect(updates(enabled)).toEqual([
        `UPDATE users SET password_hash = ${NORMAL} WHERE id = 1 AND password_hash = '${marked}';`,
      ]);
      expect(enabled.report.users.updated.byReason).toEqual({
        "sign-in enabled (no longer marked as spam on the network)": 1,
      });
      expect(updates(run(withSpam, marked))).toEqual([]);
      // Signed in here since (the service's own hash): it keeps signing in, and the report says so.
      const signedIn = run(withSpam, PBKDF2_OWN);
      expect(updates(signedIn)).toEqual([]);
      expect(signedIn.report.warnings).toContain(
        "user 1 (admin) is marked as spam on the network, and has signed in here since the earlier run: it still can",
      );
    });

    it("lifts the spam mark from a user whose site hash no sign-in takes, so it can reset the password", () => {
      const argon = "$argon2id$v=19$m=65536";
      const unknown = site2.replace(NORMAL, `'${argon}'`);
      const { report, statements } = importFromText(unknown, {
        ...network,
        target: targetState({ users: [{ ...admin, password_hash: `${UNUSABLE_MARK}${argon}` }] }),
      });
      expect(statements.filter((sql) => sql.startsWith("UPDATE users SET password_hash"))).toEqual([
        `UPDATE users SET password_hash = '${argon}' WHERE id = 1 AND password_hash = '${UNUSABLE_MARK}${argon}';`,
      ]);
      expect(report.users.updated.byReason).toEqual({
        "sign-in enabled (no longer marked as spam on the network)": 1,
      });
      // An unknown kind over a usable hash still keeps the database's, as before.
      const kept = importFromText(unknown, { ...network, target: targetState({ users: [admin] }) });
      expect(
        kept.statements.filter((sql) => sql.startsWith("UPDATE users SET password_hash")),
      ).toEqual([]);
    });

    it("keeps the last administrator that can sign in one, though one the run marks spam stays too", () => {
      // An earlier run's administrators: user 1, now marked spam, and johndoe, now a subscriber.
      const johndoe = {
        ...admin,
        id: 2,
        username: "johndoe",
        email: "John.Doe@Example.com",
        password_hash: "$wp$2y$10$RrJCtS/i5BfL/zSeDPjAyu7oiJ8GOqlGeTbAUNKKlSV8n/zvMcXO6",
        registered_at_ms: Date.UTC(2022, 1, 3, 4, 5, 6),
      };
      const { report, statements } = importFromText(withSpam, {
        ...network,
        target: targetState({ users: [admin, johndoe] }),
      });
      expect(statements.filter((sql) => sql.includes("role = 'subscriber'"))).toEqual([]);
      expect(report.warnings).toContain(
        "user 2 (johndoe) is a subscriber on the site but stays an administrator here: the database would have none left that can sign in (make another with npm run admin:create, then run the import again)",
      );
      expect(report.warnings.filter((w: string) => w.startsWith("no administrator"))).toEqual([]);
    });

    it("names an import that leaves no administrator here able to sign in, its only one marked spam", () => {
      const noneCanSignIn =
        "no administrator here can sign in after this run: user 1 (admin) is marked as spam on the network; make one with npm run admin:create (npm run deploy asks for one)";
      // A fresh database: the site's only administrator is the spam user.
      const fresh = importFromText(withSpam, network);
      expect(fresh.report.warnings).toContain(noneCanSignIn);
      // An earlier run's administrator the site now marks spam, in a database with no other.
      const marked = importFromText(withSpam, {
        ...network,
        target: targetState({ users: [admin] }),
      });
      expect(marked.report.warnings).toContain(noneCanSignIn);
      // Another administrator here that can sign in: nothing to say.
      const ops = {
        ...admin,
        id: 99,
        username: "ops",
        email: "ops@example.com",
        registered_at_ms: 0,
      };
      const withOps = importFromText(withSpam, {
        ...network,
        target: targetState({ users: [admin, ops] }),
      });
      expect(
        withOps.report.warnings.filter((w: string) => w.startsWith("no administrator")),
      ).toEqual([]);
      // Signed in here since: it still can, so the console has one.
      const signedIn = importFromText(withSpam, {
        ...network,
        target: targetState({ users: [{ ...admin, password_hash: PBKDF2_OWN }] }),
      });
      expect(signedIn.report.warnings).not.toContain(noneCanSignIn);
    });

    it("reads roles from the site's own capabilities key, not the main site's", () => {
      // The administrator on the main site is a subscriber on site 2: site 2's key wins.
      const mainAdmin = site2.replace(
        "'wp_2_capabilities','a:1:{s:13:\\\"administrator\\\";b:1;}'",
        "'wp_capabilities','a:1:{s:13:\\\"administrator\\\";b:1;}'),(9001,1,'wp_2_capabilities','a:1:{s:10:\\\"subscriber\\\";b:1;}'",
      );
      expect(mainAdmin).not.toBe(site2);
      const { report } = importFromText(mainAdmin, {
        options: { prefix: "wp_2_", usersPrefix: "wp_" },
      });
      expect(
        importFromText(site2, { options: { prefix: "wp_2_", usersPrefix: "wp_" } }).report.users
          .roles,
      ).toEqual({ administrator: 1, subscriber: 2, editor: 1, "(none)": 1 });
      expect(report.users.roles).toEqual({ subscriber: 3, editor: 1, "(none)": 1 });
    });
  });

  it("refuses a dump whose plugin terms are of another --namespace, naming it", () => {
    const rimplenet = dump
      .replaceAll("'wallettransaction", "'rimplenettransaction")
      .replaceAll("'wallet_wallet_", "'rimplenet_wallet_")
      .replaceAll("'WALLET WALLETS'", "'RIMPLENET WALLETS'");
    expect(() => importFromText(rimplenet)).toThrow(DumpOptionError);
    expect(() => importFromText(rimplenet)).toThrow(
      "the dump holds no terms of taxonomy wallettransaction_type, and those of rimplenettransaction_type: run with --namespace rimplenet (or --force to import the users alone)",
    );
    // --force imports the users alone, and says why no entry came.
    const forced = importFromText(rimplenet, { options: { force: true } }).report;
    expect(forced.transactions.imported).toBe(0);
    expect(forced.warnings).toContain(
      "no terms of taxonomy wallettransaction_type, and those of rimplenettransaction_type: is --namespace right?",
    );
    expect(
      importFromText(rimplenet, { options: { namespace: "rimplenet" } }).report.transactions
        .imported,
    ).toBe(13);
    // A site without the plugin's terms at all: its users are imported, with a warning.
    const { report } = importFromText(dump.replaceAll("'wallettransaction_type'", "'category'"));
    expect(report.warnings).toContain(
      "no terms of taxonomy wallettransaction_type: is --namespace right?",
    );
  });

  it("refuses another --namespace's posts in a dump without the term tables, naming it", () => {
    // The term tables left out of the export (or an UpdraftPlus backup cut short before them, which
    // writes them last), read with the default namespace on a site of another: no term of any
    // taxonomy names the namespace, its posts' type does. Read as a site without the plugin, it
    // imported the users alone and answered a success.
    const rimplenet = dump
      .replaceAll("'wallettransaction", "'rimplenettransaction")
      .replaceAll("'wallet_wallet_", "'rimplenet_wallet_")
      .split("\n")
      .filter((line) => !line.startsWith("INSERT INTO `wp_term"))
      .join("\n");
    expect(rimplenet).not.toContain("INSERT INTO `wp_term_relationships`");
    expect(() => importFromText(rimplenet)).toThrow(
      "the dump holds no terms of taxonomy wallettransaction_type, and 20 posts of type rimplenettransaction: run with --namespace rimplenet (or --force to import the users alone)",
    );
    // With it, the dump is refused for the tables it lacks.
    expect(() => importFromText(rimplenet, { options: { namespace: "rimplenet" } })).toThrow(
      "the dump holds 20 posts of type rimplenettransaction but no rows of wp_term_relationships, wp_term_taxonomy, wp_terms",
    );
  });

  it("says nothing of a history gone from the site whose entries it skipped for a reason", () => {
    // Amaka's e-mail is johndoe's: she is skipped, and her two ngn entries with her.
    const { report } = importFromText(
      dump.replace("'amaka@example.ng'", "'John.Doe@Example.com'"),
      {
        target: targetState({
          pairs: [history(3, "ngn", 2)],
        }),
      },
    );
    expect(report.transactions.skipped.total).toBeGreaterThan(0);
    expect(report.conflicts.filter((c: { id: unknown }) => c.id === "3\tngn")).toEqual([]);
  });

  it("names a user an earlier run imported that the dump no longer has", () => {
    const { report } = importFromText(dump, {
      target: targetState({
        users: [{ id: 9, username: "gone", email: "gone@example.com", role: "subscriber" }],
        pairs: [history(9, "ngn", 3, 1)],
      }),
    });
    expect(report.warnings).toContain(
      "user 9 (gone) is not in the dump (deleted on the site?): kept here, with its 2 imported entries",
    );
  });

  it("keeps the last administrator, and a password no sign-in would take, when the site changed them", () => {
    const demoted = dump.replace(
      "(4,1,'wp_capabilities','a:1:{s:13:\\\"administrator\\\";b:1;}')",
      "(4,1,'wp_capabilities','a:1:{s:10:\\\"subscriber\\\";b:1;}')",
    );
    const { report, statements } = importFromText(demoted, {
      target: targetState({ users: [admin] }),
    });
    expect(report.warnings).toContain(
      "user 1 (admin) is a subscriber on the site but stays an administrator here: the database would have none left (make another with npm run admin:create, then run the import again)",
    );
    expect(report.users.updated.total).toBe(0);
    expect(statements.filter((sql) => sql.startsWith("UPDATE"))).toEqual([]);
    // With another administrator in the database, the site's word is carried over.
    const other = {
      ...admin,
      id: 99,
      username: "ops",
      email: "ops@example.com",
      registered_at_ms: 0,
    };
    const carried = importFromText(demoted, { target: targetState({ users: [admin, other] }) });
    expect(carried.report.users.updated.byReason).toEqual({
      "role administrator → subscriber (a subscriber on the site)": 1,
    });
    // A new hash no sign-in takes would lock the user out: the imported one is kept.
    const rehashed = dump.replace(
      "'$P$B/egg0xJInsraMkmYxm97KT8uXlbaM0'",
      "'$argon2id$v=19$m=65536'",
    );
    const kept = importFromText(rehashed, { target: targetState({ users: [admin] }) });
    expect(kept.report.warnings).toContain(
      "user 1 (admin): the site's new password hash is of a kind no sign-in takes; kept the database's",
    );
    expect(kept.statements.filter((sql) => sql.startsWith("UPDATE"))).toEqual([]);
  });

  it("warns of a pbkdf2_sha256 user_pass no sign-in can check, as of any hash of an unknown kind", () => {
    for (const hash of PBKDF2_UNCHECKABLE) {
      const django = dump.replace("'$P$B/egg0xJInsraMkmYxm97KT8uXlbaM0'", `'${hash}'`);
      const { report } = importFromText(django);
      expect(report.warnings, hash).toContain(
        "user 1 (admin): password hash of an unknown kind or work factor; this user must reset the password",
      );
      expect(report.users.passwordHashes, hash).toEqual({
        unknown: 1,
        "wp-bcrypt": 1,
        bcrypt: 1,
        md5: 1,
        phpass: 1,
      });
    }
    // A site's hash already marked unusable (no WordPress hash begins so) stays so, and is named.
    const unusable = dump.replace("'$P$B/egg0xJInsraMkmYxm97KT8uXlbaM0'", "'!$P$B/egg'");
    expect(importFromText(unusable).report.warnings).toContain(
      "user 1 (admin): password hash beginning with !, the mark of an unusable password: this user can neither sign in nor reset the password",
    );
    const own = dump.replace("'$P$B/egg0xJInsraMkmYxm97KT8uXlbaM0'", `'${PBKDF2_OWN}'`);
    const { report } = importFromText(own);
    expect(report.warnings.filter((w: string) => w.includes("must reset"))).toEqual([]);
    expect(report.users.passwordHashes.pbkdf2).toBe(1);
    for (const hash of DJANGO_CHECKABLE) {
      const django = dump.replace("'$P$B/egg0xJInsraMkmYxm97KT8uXlbaM0'", `'${hash}'`);
      const { report } = importFromText(django);
      expect(
        report.warnings.filter((w: string) => w.includes("must reset")),
        hash,
      ).toEqual([]);
      expect(report.users.passwordHashes, hash).toEqual({
        django: 1,
        "wp-bcrypt": 1,
        bcrypt: 1,
        md5: 1,
        phpass: 1,
      });
    }
  });

  it("carries over the site's new password over a stored pbkdf2_sha256 hash that is not its own", () => {
    // Django's, checkable or not, is the site's: no sign-in here has replaced it yet.
    for (const hash of [...PBKDF2_UNCHECKABLE, ...DJANGO_CHECKABLE]) {
      const { report, statements } = importFromText(dump, {
        target: targetState({ users: [{ ...admin, password_hash: hash }] }),
      });
      expect(report.users.updated.byReason, hash).toEqual({
        "password (not signed in here since the earlier run)": 1,
      });
      expect(statements.filter((sql) => sql.startsWith("UPDATE"))).toEqual([
        `UPDATE users SET password_hash = '$P$B/egg0xJInsraMkmYxm97KT8uXlbaM0' WHERE id = 1 AND password_hash = ${sqlLiteral(hash)};`,
      ]);
    }
    // The service's own hash (the user signed in or reset here) has the last word.
    const { report, statements } = importFromText(dump, {
      target: targetState({ users: [{ ...admin, password_hash: PBKDF2_OWN }] }),
    });
    expect(report.users.updated.total).toBe(0);
    expect(statements.filter((sql) => sql.startsWith("UPDATE"))).toEqual([]);
  });

  it("reads another table prefix and plugin namespace", () => {
    const renamed = dump
      .replaceAll("`wp_", "`site7_")
      .replaceAll("'wp_capabilities'", "'site7_capabilities'")
      .replaceAll("wallettransaction", "coinstransaction")
      .replaceAll("'wallet_wallet_", "'coins_wallet_")
      .replaceAll("'WALLET WALLETS'", "'COINS WALLETS'");
    const { report, statements } = importFromText(renamed, {
      options: { prefix: "site7_", namespace: "coins" },
    });
    const base = importFromText(dump);
    expect(statements.length).toBe(base.statements.length);
    expect(report.users.roles).toEqual(base.report.users.roles);
    expect(report.transactions).toMatchObject({ live: 13, imported: 13 });
    expect(report.transactions.fieldsReadingDifferently).toEqual({ post_type: 13 });
    expect(() => importFromText(renamed)).toThrow("it holds site7_users, run with --prefix site7_");
    expect(() => importFromText(renamed, { options: { prefix: "site7_" } })).toThrow(
      "run with --namespace coins",
    );
  });

  it("reads the plugin's term names in any letter case, as the site's database compares them", () => {
    // A term renamed in the admin screens (Credit): the plugin's name queries still found it.
    const renamed = dump.replace(
      "(1,'CREDIT','credit',0),(2,'DEBIT','debit',0),(3,'TRANSFERS','transfers',0),(4,'WALLETS','wallets',0)",
      "(1,'Credit','credit',0),(2,'debit','debit',0),(3,'Transfers','transfers',0),(4,'wallets','wallets',0)",
    );
    expect(renamed).not.toBe(dump);
    expect(importFromText(renamed).statements).toEqual(importFromText(dump).statements);
  });

  it("makes administrators of the administrator role only, not of other roles named admin…", () => {
    // Oldtimer (user 4), an editor, with a custom role instead: a subscriber here, as an editor is.
    const custom = dump.replace(
      "(19,4,'wp_capabilities','a:1:{s:6:\\\"editor\\\";b:1;}')",
      "(19,4,'wp_capabilities','a:1:{s:11:\\\"admin_staff\\\";b:1;}')",
    );
    expect(custom).not.toBe(dump);
    const { report, statements } = importFromText(custom);
    expect(report.users.roles).toEqual({
      administrator: 1,
      subscriber: 2,
      admin_staff: 1,
      "(none)": 1,
    });
    expect(statements).toEqual(importFromText(dump).statements);
  });

  it("carries a history below zero over as it is: nothing added, no id needed, not a refusal", () => {
    // A credit of 1 (post 1), then a debit of 5 (post 2): ids with no gap between them.
    const post = (id: number, title: string) =>
      `(${id},1,'2024-01-01 10:00:00','2024-01-01 10:00:00','','${title}','','publish','open','closed','','p${id}','','','2024-01-01 10:00:00','2024-01-01 10:00:00','',0,'g${id}',0,'wallettransaction','',0)`;
    const site = [
      "INSERT INTO `wp_users` VALUES (1,'solo','c4052b5b13fea2645f6e33a22563e51e','solo','solo@example.com','','2020-01-01 00:00:00','',0,'Solo');",
      "INSERT INTO `wp_usermeta` VALUES (1,1,'nickname','solo');",
      `INSERT INTO \`wp_posts\` VALUES ${post(1, "in")},${post(2, "out")},${post(50, "Naira")};`,
      "INSERT INTO `wp_postmeta` VALUES (1,50,'wallet_wallet_id','ngn'),(2,1,'amount','1'),(3,1,'currency','ngn'),(4,2,'amount','5'),(5,2,'currency','ngn');",
      "INSERT INTO `wp_term_relationships` VALUES (1,1,0),(2,2,0),(50,4,0);",
      "INSERT INTO `wp_term_taxonomy` VALUES (1,1,'wallettransaction_type','',0,0),(2,2,'wallettransaction_type','',0,0),(4,4,'wallettransaction_type','',0,0);",
      "INSERT INTO `wp_terms` VALUES (1,'CREDIT','credit',0),(2,'DEBIT','debit',0),(4,'WALLETS','wallets',0);",
    ].join("\n");
    const { report, statements } = importFromText(site);
    expect(report.refused).toBe(false);
    expect(report.negativeHistories).toEqual({
      total: 1,
      endingBelowZero: 1,
      list: [
        {
          userId: 1,
          username: "solo",
          walletId: "ngn",
          firstEntryBelowZero: 2,
          lowest: "-4.00",
          lowestAt: 2,
          balance: "-4.00",
        },
      ],
    });
    expect(report.expectedBalances).toEqual([
      { userId: 1, walletId: "ngn", balanceMinor: -400, entries: 2 },
    ]);
    const entries = statements.filter((sql) => sql.startsWith("INSERT INTO transactions"));
    expect(entries.map((sql) => /SELECT (\d+),/.exec(sql)![1])).toEqual(["1", "2"]);
    expect(entries[1]).toContain("'DEBIT', 500, '5', 100, -400,");
  });

  it("names the entry that takes a history below zero, not one that brings it to zero", () => {
    // A credit of 1 (post 1), a debit of 1 (post 2: zero), then a debit of 5 (post 3: below).
    const post = (id: number, title: string) =>
      `(${id},1,'2024-01-01 10:00:00','2024-01-01 10:00:00','','${title}','','publish','open','closed','','p${id}','','','2024-01-01 10:00:00','2024-01-01 10:00:00','',0,'g${id}',0,'wallettransaction','',0)`;
    const site = [
      "INSERT INTO `wp_users` VALUES (1,'solo','c4052b5b13fea2645f6e33a22563e51e','solo','solo@example.com','','2020-01-01 00:00:00','',0,'Solo');",
      "INSERT INTO `wp_usermeta` VALUES (1,1,'nickname','solo');",
      `INSERT INTO \`wp_posts\` VALUES ${post(1, "in")},${post(2, "out")},${post(3, "out")},${post(50, "Naira")};`,
      "INSERT INTO `wp_postmeta` VALUES (1,50,'wallet_wallet_id','ngn'),(2,1,'amount','1'),(3,1,'currency','ngn'),(4,2,'amount','1'),(5,2,'currency','ngn'),(6,3,'amount','5'),(7,3,'currency','ngn');",
      "INSERT INTO `wp_term_relationships` VALUES (1,1,0),(2,2,0),(3,2,0),(50,4,0);",
      "INSERT INTO `wp_term_taxonomy` VALUES (1,1,'wallettransaction_type','',0,0),(2,2,'wallettransaction_type','',0,0),(4,4,'wallettransaction_type','',0,0);",
      "INSERT INTO `wp_terms` VALUES (1,'CREDIT','credit',0),(2,'DEBIT','debit',0),(4,'WALLETS','wallets',0);",
    ].join("\n");
    expect(importFromText(site).report.negativeHistories.list).toEqual([
      {
        userId: 1,
        username: "solo",
        walletId: "ngn",
        firstEntryBelowZero: 3,
        lowest: "-5.00",
        lowestAt: 3,
        balance: "-5.00",
      },
    ]);
  });
});

describe("reading the target database", () => {
  const QUERY_NAMES = Object.keys(TARGET_QUERIES);
  /** A database whose users 1..n each hold one imported entry; records each call's statements. */
  function database(n: number) {
    const calls: string[][] = [];
    const queries = async (sqls: string[]) => {
      calls.push(sqls);
      if (calls.length > 1) return sqls.map(() => [{ id: 1, user_id: 1 }]);
      const pairs = Array.from({ length: n }, (_, i) => ({
        user_id: i + 1,
        wallet_id: "ngn",
        balance_minor: 1,
        entry_count: 1,
        last_id: i + 1,
        foreign_n: 0,
      }));
      return [[], ...QUERY_NAMES.map((name) => (name === "pairs" ? pairs : []))];
    };
    return { calls, queries };
  }

  it("asks for the entries of the users the dump lacks in statements and calls of bounded size", async () => {
    const db = database(20_000);
    const rows = await readTargetRows(db.queries, new Set([1, 2, 3]));
    const later = db.calls.slice(1);
    expect(later.map((sqls) => sqls.length)).toEqual([8, 8, 4]);
    for (const sqls of later) expect(sqls.join("; ").length).toBeLessThan(100_000);
    const ids = later.flat().flatMap((sql) => sql.slice(sql.indexOf("IN (") + 4, -1).split(","));
    expect([ids.length, ids[0], ids.at(-1)]).toEqual([19_997, "4", "20000"]);
    expect(rows.goneIds).toHaveLength(20); // one row per statement, from the fake
    const none = database(3);
    await readTargetRows(none.queries, new Set([1, 2, 3]));
    expect(none.calls).toHaveLength(1);
  });

  it("names a missing schema only when the first read finds a table or column missing", async () => {
    const failing = async () => {
      throw new Error("no such column: t.guid");
    };
    await expect(readTargetRows(failing, new Set())).rejects.toBeInstanceOf(SchemaMissing);
    const offline = async () => {
      throw new Error("fetch failed: getaddrinfo ENOTFOUND api.cloudflare.com");
    };
    await expect(readTargetRows(offline, new Set())).rejects.not.toBeInstanceOf(SchemaMissing);
    const db = database(5);
    const later = async (sqls: string[]) => {
      if (db.calls.length > 0) throw new Error("network");
      return db.queries(sqls);
    };
    const error = await readTargetRows(later, new Set()).catch((err: unknown) => err);
    expect(error).not.toBeInstanceOf(SchemaMissing);
  });
});

describe("transaction posts that lost their CREDIT or DEBIT term", () => {
  /** The fixture's dump without the wp_term_relationships rows of posts `ids`. */
  const withoutTerms = (text: string, ids: number[]) =>
    text.replace(
      /^(INSERT INTO `wp_term_relationships` VALUES )(.*);$/m,
      (_, head: string, rows: string) =>
        `${head}${rows
          .match(/\(\d+,\d+,\d+\)/g)!
          .filter((row) => !ids.includes(Number(row.slice(1, row.indexOf(",")))))
          .join(",")};`,
    );
  const plan = (text: string, options: ImportOptions = {}) =>
    importFromText(text, { options, nowMs: IMPORT_AT });

  it("refuses a dump whose posts without their term leave the stored balances unlike the imported ones, naming posts and users", () => {
    // Post 22 is user 2's credit of 12000 rmpn, post 35 a credit of 5 ngn: their rows lost, the
    // site's stored balances (11500 rmpn, 1269.50 ngn) count them and the imported entries do not.
    const text = withoutTerms(dump, [22, 35]);
    const reason =
      "2 wallettransaction posts with a CREDIT's or DEBIT's meta but no CREDIT or DEBIT term, in histories whose balance the site stored differs from their imported entries (user 2 (johndoe) ngn: post 35; user 2 (johndoe) rmpn: post 22): the dump lost their rows of wp_term_relationships (export the database again), or the plugin stopped between writing a post and its term (then --balances site --force brings each balance to the site's)";
    for (const balances of ["ledger", "site"] as const) {
      const { report } = plan(text, { balances });
      expect(report.refused).toBe(true);
      expect(report.refusalReasons).toEqual([reason]);
      expect(report.transactions.withoutTerm).toEqual({
        posts: 2,
        differing: {
          histories: 2,
          posts: 2,
          list: [
            { userId: 2, username: "johndoe", walletId: "ngn", posts: 1, ids: [35] },
            { userId: 2, username: "johndoe", walletId: "rmpn", posts: 1, ids: [22] },
          ],
        },
      });
    }
    expect(plan(text).report.ignored.examples).toContainEqual({
      reason:
        "wallettransaction post with a CREDIT's or DEBIT's meta (txn_type) but no CREDIT or DEBIT term",
      id: 35,
      userId: 2,
      walletId: "ngn",
    });
    // --force imports the rest, as planned: the refused run's statements.
    const forced = plan(text, { force: true });
    expect(forced.report.refusalReasons).toEqual([reason]);
    expect(forced.statements).toEqual(plan(text).statements);
    expect(forced.report.transactions.imported).toBe(11);
  });

  it("refuses a dump that lost the term rows of its wallets too, whose stored balances it cannot compare", () => {
    // Only a blog post's category is left of wp_term_relationships: no wallet is one, so no
    // transaction is imported and no balance compared, while the site stored balances other than 0.
    const text = withoutTerms(
      dump,
      [10, 11, 12, 13, 14, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 34, 35, 36],
    );
    expect(text).toContain("INSERT INTO `wp_term_relationships` VALUES (32,7,0);");
    const { report } = plan(text);
    expect(report.transactions.imported).toBe(0);
    expect(report.refused).toBe(true);
    expect(report.transactions.withoutTerm).toMatchObject({
      posts: 13,
      differing: { histories: 6, posts: 13 },
    });
  });

  it("lists, and does not refuse, such a post whose history's stored balance agrees with the imported entries", () => {
    // The plugin stopped between a post and its term, the stored balance not counting it (or its
    // row lost where the site's balance had drifted by as much): one stray post of no consequence.
    const stray =
      "INSERT INTO `wp_posts` VALUES (950,3,'2024-01-01 11:00:00','2024-01-01 10:00:00','Amount:7','TRANSACTION 950','','publish','open','closed','','transaction-950','','','2024-01-01 11:00:00','2024-01-01 10:00:00','',0,'https://oldsite.example/?p=950',0,'wallettransaction','',0);\n" +
      "INSERT INTO `wp_postmeta` VALUES (9500,950,'amount','7'),(9501,950,'currency','ngn'),(9502,950,'txn_type','CREDIT');\n";
    const { report, statements } = plan(dump + stray);
    expect(report.refused).toBe(false);
    expect(report.transactions.withoutTerm).toEqual({
      posts: 1,
      differing: { histories: 0, posts: 0, list: [] },
    });
    expect(statements).toEqual(plan(dump).statements);
    // The same post counted in user 3's stored ngn balance (57, not 50) is refused.
    const counted = (dump + stray).replace(
      "(29,3,'user_withdrawable_bal_ngn','50')",
      "(29,3,'user_withdrawable_bal_ngn','57')",
    );
    expect(counted).not.toBe(dump + stray);
    expect(plan(counted).report.refusalReasons).toEqual([
      expect.stringMatching(/^1 wallettransaction post with .*\(user 3 \(amaka\) ngn: post 950\)/),
    ]);
  });
});
