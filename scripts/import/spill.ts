// The CLI's bucket store: transaction posts, their meta and term links appended to one file per
// range of post ids under a temporary folder, so reading a dump of any size keeps memory bounded.
// The same interface as MemoryBuckets in collect.ts.
import { appendFileSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";
import type { BucketEntry, BucketRecord, Buckets } from "./collect";

export class SpillBuckets implements Buckets {
  private readonly width: number;
  private readonly flushBytes: number;
  private readonly maxBuffered: number;
  private readonly buffers = new Map<number, { lines: string[]; bytes: number }>();
  private buffered = 0;
  private readonly written = new Set<number>();
  bytesOnDisk = 0;

  constructor(
    private readonly dir: string,
    { width = 8_192, flushBytes = 256 << 10, maxBuffered = 16 << 20 } = {},
  ) {
    this.width = width;
    this.flushBytes = flushBytes;
    this.maxBuffered = maxBuffered;
    mkdirSync(dir, { recursive: true });
  }
  bucketOf(postId: number) {
    return Math.floor(postId / this.width);
  }
  private file(b: number) {
    return path.join(this.dir, `bucket-${String(b).padStart(8, "0")}.jsonl`);
  }
  add(postId: number, record: BucketEntry) {
    const b = this.bucketOf(postId);
    const line = `${JSON.stringify([postId, ...record])}\n`;
    let buf = this.buffers.get(b);
    if (!buf) this.buffers.set(b, (buf = { lines: [], bytes: 0 }));
    buf.lines.push(line);
    buf.bytes += line.length;
    this.buffered += line.length;
    if (buf.bytes >= this.flushBytes) this.flush(b);
    if (this.buffered >= this.maxBuffered) this.finish();
  }
  private flush(b: number) {
    const buf = this.buffers.get(b);
    if (!buf || buf.lines.length === 0) return;
    const text = buf.lines.join("");
    appendFileSync(this.file(b), text);
    this.bytesOnDisk += Buffer.byteLength(text);
    this.written.add(b);
    this.buffered -= buf.bytes;
    this.buffers.delete(b);
  }
  finish() {
    for (const b of [...this.buffers.keys()]) this.flush(b);
  }
  indexes() {
    return [...this.written].sort((a, b) => a - b);
  }
  read(b: number): BucketRecord[] {
    if (!this.written.has(b)) return [];
    const text = readFileSync(this.file(b), "utf8");
    // One JSON.parse of the whole bucket is several times faster than one per line. A raw newline
    // never occurs inside a JSON line (JSON.stringify escapes it), so the lines join into an array.
    return JSON.parse(`[${text.slice(0, -1).replaceAll("\n", ",")}]`);
  }
  remove() {
    rmSync(this.dir, { recursive: true, force: true });
  }
}
