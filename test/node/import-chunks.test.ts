// The import's chunk files: a chunk ends at its statement count or its bytes, whichever comes first,
// so a local chunk (read whole into one string) stays within what Node holds however long the
// statements are.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, expect, it } from "vitest";
import { ChunkWriter } from "../../scripts/import/chunks";

const root = mkdtempSync(path.join(tmpdir(), "wallet-chunks-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const lines = (file: string) => readFileSync(file, "utf8").split("\n").filter(Boolean);

it("ends a chunk at its statements or its bytes, and never leaves one empty", () => {
  const writer = new ChunkWriter(path.join(root, "a"), 3, { maxBytes: 100 });
  const short = "SELECT 1;"; // 10 bytes a line
  const long = `SELECT '${"x".repeat(150)}';`; // past maxBytes alone: a chunk of its own
  for (const sql of [short, short, short, short, long, short, short])
    writer.add(sql, "transaction");
  writer.finish();
  expect(writer.files.map((f) => f.statements)).toEqual([3, 1, 1, 2]);
  expect(writer.files.map((f) => lines(f.file).length)).toEqual([3, 1, 1, 2]);
  expect(writer.count).toBe(7);
});

it("writes nothing in a dry run, and counts all the same", () => {
  const writer = new ChunkWriter(path.join(root, "b"), 3, { dryRun: true });
  for (let i = 0; i < 5; i++) writer.add("SELECT 1;", "user");
  expect(writer.files).toEqual([]);
  expect([writer.count, writer.bytes, writer.byKind]).toEqual([5, 50, { user: 5 }]);
});
