// `import:wordpress` given a dump file that is compressed, or not, whatever its name says, or whose
// gzip stream is cut short or damaged: read by what it holds, or refused with what to do, never a
// bare zlib message.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { gzipSync } from "node:zlib";
import { afterAll, describe, expect, it } from "vitest";
import { offlineEnv } from "../../scripts/lib/wrangler";
import { runScriptAsync, startScript } from "./run-script";

const root = mkdtempSync(path.join(tmpdir(), "wallet-import-file-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const text = readFileSync(path.resolve(import.meta.dirname, "../fixtures/wordpress-dump.sql"));
const gzipped = gzipSync(text);
const exported = (name: string) =>
  readFileSync(path.resolve(import.meta.dirname, "../fixtures/exports", name));

const fileOf = (name: string, bytes: Buffer) => {
  const file = path.join(root, name);
  writeFileSync(file, bytes);
  return file;
};

const dryRun = (file: string) =>
  runScriptAsync("scripts/import-wordpress.ts", [file, "--dry-run"], { env: offlineEnv() });

describe.concurrent("import:wordpress reads a dump file by what it holds", () => {
  it.each([
    ["a gzip file named .sql", fileOf("gzipped.sql", gzipped)],
    ["a plain file named .sql.gz", fileOf("plain.sql.gz", text)],
    // The same site as those tools write it (test/fixtures/make-export-formats.ts).
    [
      "an UpdraftPlus database backup",
      fileOf(
        "backup_2024-03-01-1000_Old_Site_0123456789ab-db.gz",
        gzipSync(exported("updraftplus.sql")),
      ),
    ],
    [
      "phpMyAdmin's gzipped export",
      fileOf("oldsite_wp.sql.gz", gzipSync(exported("phpmyadmin.sql"))),
    ],
  ])("reads %s as the dump it is", async (_, file) => {
    const result = await dryRun(file);
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toContain("Transactions: 13 live");
  });

  it.each([
    ["cut short", fileOf("cut.sql.gz", gzipped.subarray(0, 3000)), "unexpected end of file"],
    [
      "damaged",
      fileOf("damaged.sql.gz", Buffer.concat([gzipped.subarray(0, 10), Buffer.alloc(2000, 7)])),
      "invalid",
    ],
  ])("refuses a gzip stream %s, saying so and that nothing was written", async (_, file, why) => {
    const result = await dryRun(file);
    expect(result.status).toBe(1);
    // The progress lines before it, then the refusal.
    const lines = result.stderr.trim().split("\n").slice(-2);
    expect(result.stderr).not.toMatch(/^\s+at /m);
    expect(lines[0]).toMatch(
      new RegExp(
        `^${file.replaceAll(".", "\\.")} is a damaged gzip file \\(.*${why}.*\\): copy or export it again$`,
      ),
    );
    expect(lines[1]).toBe("Nothing was written.");
  });

  // phpMyAdmin's "zipped" export, and Adminer's or phpMyAdmin's bzip2 one: the file's first bytes say
  // what it is (the rest is the compressed dump).
  it.each([
    [
      "a zip archive",
      fileOf("oldsite_wp.sql.zip", Buffer.concat([Buffer.from("PK\x03\x04\x14\x00"), gzipped])),
      "is a zip archive: unzip it and import the .sql file it holds",
    ],
    [
      "a bzip2 file",
      fileOf("oldsite_wp.sql.bz2", Buffer.concat([Buffer.from("BZh91AY&SY"), gzipped])),
      "is bzip2-compressed: decompress it (bunzip2) or export it again without compression or gzipped",
    ],
  ])("refuses %s, saying what to do with it", async (_, file, what) => {
    const result = await dryRun(file);
    expect(result.status).toBe(1);
    const lines = result.stderr.trim().split("\n").slice(-2);
    expect(lines).toEqual([`${file} ${what}`, "Nothing was written."]);
  });

  it("reads an UpdraftPlus backup with the prefix its header names, and refuses the default", async () => {
    const file = fileOf("backup-wpx7-db.gz", gzipSync(exported("updraftplus-real-site.sql")));
    const refused = await dryRun(file);
    expect(refused.status).toBe(1);
    expect(refused.stderr.trim().split("\n").slice(-2)).toEqual([
      "the dump's header says it is a backup of the site of table prefix wpx7_, and this import reads prefix wp_ (the default): run with --prefix wpx7_, or with --prefix wp_ to read the other tables it holds",
      "Nothing was written.",
    ]);
    const read = await runScriptAsync(
      "scripts/import-wordpress.ts",
      [file, "--dry-run", "--prefix", "wpx7_", "--namespace", "rimplenet"],
      { env: offlineEnv() },
    );
    expect(read.status, read.stderr).toBe(0);
    expect(read.stdout).toContain("26 would import");
  });

  it("leaves a --report saying why a dump was refused, never an earlier run's", async () => {
    const report = path.join(root, "report.json");
    const good = await runScriptAsync(
      "scripts/import-wordpress.ts",
      [fileOf("good.sql", text), "--dry-run", "--report", report],
      { env: offlineEnv() },
    );
    expect(good.status, good.stderr).toBe(0);
    expect(JSON.parse(readFileSync(report, "utf8")).refused).toBe(false);

    const cut = fileOf("cut-again.sql.gz", gzipped.subarray(0, 3000));
    const refused = await runScriptAsync(
      "scripts/import-wordpress.ts",
      [cut, "--dry-run", "--report", report],
      {
        env: offlineEnv(),
      },
    );
    expect(refused.status).toBe(1);
    expect(JSON.parse(readFileSync(report, "utf8"))).toEqual({
      refused: true,
      refusalReasons: [
        `${cut} is a damaged gzip file (unexpected end of file): copy or export it again`,
      ],
    });
  });
});

describe.concurrent("import:wordpress refusing a dump says what to do about it", () => {
  const dump = text.toString("utf8");
  const footer = "\n-- Dump completed on 2024-03-01 10:00:00\n";
  const rels = /INSERT INTO `wp_term_relationships` VALUES [^\n]*\n/;
  it.each([
    [
      "cut short at a statement's end",
      fileOf("cut-at-statement.sql", Buffer.from(dump.replace(footer, "\n"))),
      "lacks the line mysqldump ends it with (-- Dump completed): it was cut short; export it again",
      "Nothing was written.",
    ],
    [
      "without its term links",
      fileOf("no-term-links.sql", Buffer.from(dump.replace(rels, ""))),
      "but no rows of wp_term_relationships, which say what each post is: it holds some of the site's tables only, or was cut short; export the database again",
      "Nothing was written.",
    ],
    [
      "cut short inside a statement",
      fileOf("cut-in-statement.sql", Buffer.from(dump.slice(0, dump.indexOf("(2,'johndoe'")))),
      "the dump ends inside a statement",
      "Nothing was written. Export the site again.",
    ],
    [
      "holding a user id twice",
      fileOf("user-twice.sql", Buffer.from(dump.replace("(3,'amaka'", "(2,'amaka'"))),
      "of wp_users: ID 2 appears a second time (a damaged dump)",
      "Nothing was written. Export the site again, or mend the row named above.",
    ],
  ])("%s", async (_, file, refusal, advice) => {
    const result = await dryRun(file);
    expect(result.status).toBe(1);
    const [message, last] = result.stderr.trim().split("\n").slice(-2);
    expect(message).toContain(refusal);
    expect(last).toBe(advice);
  });
});

describe.concurrent("import:wordpress reads a dump as UTF-8 text", () => {
  // A site's tables in latin1, or a mysqldump run with --default-character-set=latin1: "José" is
  // the bytes 4a 6f 73 e9, no UTF-8. Read as U+FFFD, two logins (or request_ids) that differ in such
  // a byte would collapse into one and a name would change: refused, nothing written.
  const latin1 = Buffer.from(
    text.toString("latin1").replace("(3,'amaka','", "(3,'jos\u00e9','"),
    "latin1",
  );
  const at = latin1.indexOf(Buffer.from("jos\u00e9", "latin1")) + 3;

  /** A comment line of `size` bytes, to move what follows it in the file. */
  const padding = (size: number) => Buffer.from(`-- ${"x".repeat(size - 4)}\n`);
  // The file is read 1 MiB at a time: the byte as the last of a read, and as the first of the next.
  const lastOfRead = Buffer.concat([padding((1 << 20) - 1 - at), latin1]);
  const firstOfRead = Buffer.concat([padding((1 << 20) - at), latin1]);

  it.each([
    ["a plain", fileOf("latin1.sql", latin1), at],
    ["a gzip", fileOf("latin1.sql.gz", gzipSync(latin1)), at],
    ["a read's last byte in a", fileOf("latin1-last.sql", lastOfRead), (1 << 20) - 1],
    ["the next read's first byte in a", fileOf("latin1-first.sql", firstOfRead), 1 << 20],
    // "₦" cut short by the dump's end.
    [
      "its last, cut short, in a",
      fileOf("cut-char.sql", Buffer.concat([text, Buffer.from([0xe2, 0x82])])),
      text.length,
    ],
  ])("refuses %s dump holding a byte that is not UTF-8, naming where", async (_, file, at) => {
    const result = await dryRun(file);
    expect(result.status).toBe(1);
    const lines = result.stderr.trim().split("\n").slice(-2);
    expect(lines).toEqual([
      `${file} is not UTF-8 text (byte ${at.toLocaleString("en-US")} is not): export the site again as UTF-8 (mysqldump --default-character-set=utf8mb4; phpMyAdmin: Character set of the file, utf-8), or decrypt an encrypted backup (UpdraftPlus's .crypt) first`,
      "Nothing was written.",
    ]);
  });

  it.each([
    [
      "utf16le.sql",
      Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text.toString(), "utf16le")]),
    ],
    [
      "utf16le.sql.gz",
      gzipSync(Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text.toString(), "utf16le")])),
    ],
  ])(
    "says %s is UTF-16, as PowerShell's > writes it, and how to export it as UTF-8",
    async (name, bytes) => {
      const file = fileOf(name, bytes);
      const result = await dryRun(file);
      expect(result.status).toBe(1);
      expect(result.stderr.trim().split("\n").slice(-2)).toEqual([
        `${file} is UTF-16 text, as Windows PowerShell's > writes a command's output: export it with mysqldump --result-file=wordpress.sql (or from cmd.exe), or save it again as UTF-8`,
        "Nothing was written.",
      ]);
    },
  );

  it("reads a character whose bytes fall on either side of a read's 1 MiB", async () => {
    // The fixture's "Ọkọnkwọ" and "₦" are UTF-8 too; here "₦" (e2 82 a6) starts at the 1 MiB edge.
    const head = padding((1 << 20) - 4);
    const file = fileOf("edge.sql", Buffer.concat([head, Buffer.from("-- \u20a6\n"), text]));
    const result = await dryRun(file);
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toContain("Transactions: 13 live");
  });

  // A whole database's mysqldump (or `wp db export`) without --hex-blob writes the bytes of a BINARY
  // or BLOB column as they are, after `_binary`: Wordfence keeps IP addresses so (::ffff:192.168.0.1
  // is ff ff c0 a8 00 01 after ten zero bytes), and its tables are no UTF-8 text. The import reads
  // none of them.
  const binary = Buffer.concat([
    Buffer.from(
      "CREATE TABLE `wp_wfblockediplog` (\n  `IP` binary(16) NOT NULL,\n  `blockCount` int unsigned NOT NULL\n);\nINSERT INTO `wp_wfblockediplog` VALUES (_binary '\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0",
    ),
    Buffer.from([0xff, 0xff, 0xc0, 0xa8]),
    Buffer.from("\\0"),
    Buffer.from([0x01]),
    Buffer.from("',3),(_binary '"),
    // A lead byte before an escaped quote, and a character cut short before the closing quote.
    Buffer.from([0xe2, 0x5c, 0x27, 0xf0, 0x9f]),
    Buffer.from("',1);\n"),
  ]);
  /** `dump` with the Wordfence table's rows (after `pad`) before its first table. */
  const withBinary = (dump: Buffer, pad = Buffer.alloc(0)) => {
    const first = dump.indexOf("--\n-- Table structure");
    return Buffer.concat([dump.subarray(0, first), pad, binary, dump.subarray(first)]);
  };
  const head = text.indexOf("--\n-- Table structure");
  // The lead byte e2 as the last byte of the first 1 MiB read, the escaped quote after it the next's.
  const straddling = withBinary(text, padding((1 << 20) - 1 - head - binary.indexOf(0xe2)));

  it.each([
    ["a plain", fileOf("binary.sql", withBinary(text))],
    ["a gzip", fileOf("binary.sql.gz", gzipSync(withBinary(text)))],
    ["a 1 MiB read's edge inside a value of", fileOf("binary-edge.sql", straddling)],
  ])("reads %s dump whose other tables hold binary bytes that are not UTF-8", async (_, file) => {
    const result = await dryRun(file);
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toContain("Transactions: 13 live");
    expect(result.stdout).toContain("Rows read: wp_postmeta 183");
  });

  it("refuses a byte that is not UTF-8 in a table it reads, after another table's binary ones", async () => {
    const file = fileOf("binary-latin1.sql", withBinary(latin1));
    const result = await dryRun(file);
    expect(result.status).toBe(1);
    expect(result.stderr.trim().split("\n").slice(-2)).toEqual([
      `${file} is not UTF-8 text (byte ${(at + binary.length).toLocaleString("en-US")} is not): export the site again as UTF-8 (mysqldump --default-character-set=utf8mb4; phpMyAdmin: Character set of the file, utf-8), or decrypt an encrypted backup (UpdraftPlus's .crypt) first`,
      "Nothing was written.",
    ]);
  });
});

describe("import:wordpress stopped while it runs", () => {
  it("ends at Ctrl-C by the signal itself, never process.exit(), its spill folder removed", async () => {
    // The fixture, then 1.1 GB of comment lines in 1,000 gzip members: seconds of reading.
    const padding = gzipSync(Buffer.from("-- padding\n".repeat(100_000)));
    const slow = fileOf("slow.sql.gz", Buffer.concat([gzipped, ...Array(1000).fill(padding)]));
    const spill = mkdtempSync(path.join(root, "spill-"));
    const child = startScript(
      "scripts/import-wordpress.ts",
      [slow, "--dry-run", "--tmp-dir", spill],
      { env: offlineEnv() },
    );
    let output = "";
    child.stdout?.on("data", (chunk: Buffer) => (output += chunk));
    child.stderr?.on("data", (chunk: Buffer) => (output += chunk));
    const ended = new Promise((resolve) =>
      child.on("exit", (code, signal) => resolve({ code, signal })),
    );
    // Reading has begun once the run's spill folder is there.
    const deadline = Date.now() + 30_000;
    while (readdirSync(spill).length === 0 && child.exitCode === null && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 50));
    expect(readdirSync(spill), output).toHaveLength(1);
    await new Promise((r) => setTimeout(r, 200));
    child.kill("SIGINT");
    expect(await ended, output).toEqual({ code: null, signal: "SIGINT" });
    expect(readdirSync(spill)).toEqual([]);
  }, 60_000);
});
