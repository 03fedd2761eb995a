// `npm run bench:heap` (issue 24, item 4): the worker isolate's JS heap while a slow client reads a
// whole history (GET /transactions without paging, streamed 500 entries per D1 read), for histories
// of 10,000, 100,000 and 200,000 entries of one user. The heap is read from V8 through the DevTools
// inspector (scripts/bench/inspector.ts), apart from the workerd process around it, whose resident
// memory also holds local D1 (SQLite and its own isolate) and the runtime's buffers; that is shown
// beside it for comparison. A stream that keeps reading D1 ahead of a slow reader holds the history
// in the heap; one that waits for its reader holds a chunk or two, whatever the history's length.
//
// Each size runs on a fresh server (`wrangler dev` with its inspector, 127.0.0.1, its own process
// group, stopped by it) over the same local state: the history is appended in SQL between runs
// (scripts/lib/sql.ts), the server stopped meanwhile. Bounded: at most 5 sizes of at most 500,000
// entries, each read given twice its expected time at the rate and a minute more.
//   npm run bench:heap [-- --sizes 10000,100000,200000 --rate 1]   (rate: MB/s the client reads)
// Output: a table on stdout, progress on stderr, bench-results/heap-<timestamp>.json (git-ignored).
import { mkdtempSync, readdirSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { call } from "./bench/fixtures";
import { connectInspector, type HeapUsage, type Inspector } from "./bench/inspector";
import { groupProcesses } from "./bench/process-io";
import {
  progressLog,
  removeAtEnd,
  runBench,
  runMeta,
  stopOnSignals,
  writeResults,
} from "./bench/session";
import { readSlowly } from "./bench/slow-reader";
import { adminAuth, freePort, type Server, startServer } from "./lib/server";
import { appendHistorySql } from "./lib/sql";
import { wrangler } from "./lib/wrangler";

process.chdir(join(dirname(fileURLToPath(import.meta.url)), ".."));

const MAX_SIZES = 5;
const MAX_ENTRIES = 500_000;
/** A record is about 800 bytes of JSON (docs/api.md): for the read's time limit. */
const BYTES_PER_ENTRY_BOUND = 1_000;
const SAMPLE_EVERY_MS = 250;
/** How often a sample collects garbage first: the heap the stream keeps alive, not its garbage. */
const GC_EVERY_MS = 5_000;
/** A key every record has once (src/ledger/transaction-record.ts), to count the records read. */
const RECORD_MARKER = '"post_type":"wallettransaction"';
const MB = 1024 * 1024;

const arg = (name: string) => {
  const at = process.argv.indexOf(`--${name}`);
  return at === -1 ? undefined : process.argv[at + 1];
};
const sizes = (arg("sizes") ?? "10000,100000,200000").split(",").map(Number);
const rateMBps = Number(arg("rate") ?? 1);
if (
  sizes.length === 0 ||
  sizes.length > MAX_SIZES ||
  sizes.some(
    (n, i) => !Number.isSafeInteger(n) || n < 1 || n > MAX_ENTRIES || n <= (sizes[i - 1] ?? 0),
  )
)
  throw new Error(`--sizes: 1 to ${MAX_SIZES} growing counts of at most ${MAX_ENTRIES} entries`);
if (!(rateMBps > 0 && rateMBps <= 1_000)) throw new Error("--rate: MB/s, above 0");

const startedMs = Date.now();
const log = progressLog("heap", startedMs);
const stopping = stopOnSignals(log);

/**
 * Resident memory of the server's workerd processes now, of it the anonymous (allocated) and the
 * file-backed (mapped files: the binary, SQLite's database) pages, and the most they ever held.
 */
function workerdMemory(server: Server) {
  const sum = { rss: 0, anon: 0, file: 0, peak: 0 };
  for (const { pid, comm } of groupProcesses(server.child.pid!)) {
    if (comm !== "workerd") continue;
    try {
      const status = readFileSync(`/proc/${pid}/status`, "utf8");
      const kB = (field: string) =>
        Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? 0) * 1024;
      sum.rss += kB("VmRSS");
      sum.anon += kB("RssAnon");
      sum.file += kB("RssFile");
      sum.peak += kB("VmHWM");
    } catch {
      // exited meanwhile
    }
  }
  return sum;
}

/** Bytes of local D1's SQLite files (database, WAL) under a server's state folder. */
function databaseBytes(stateDir: string) {
  const d1 = join(stateDir, "v3", "d1");
  let bytes = 0;
  for (const entry of readdirSync(d1, { recursive: true, withFileTypes: true }))
    if (entry.isFile() && /\.sqlite(-wal)?$/.test(entry.name))
      bytes += statSync(join(entry.parentPath, entry.name)).size;
  return bytes;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Samples the heap (every GC_EVERY_MS after a full collection) and the process until stopped. */
function sampleWhile(inspector: Inspector, server: Server, wake: () => Promise<unknown>) {
  const peaks = { heapUsed: 0, heapLive: Number.NaN, rss: 0, anon: 0, file: 0, samples: 0 };
  let running = true;
  let failure: unknown;
  const done = (async () => {
    let lastGcMs = Date.now();
    while (running) {
      let heap: HeapUsage;
      if (Date.now() - lastGcMs >= GC_EVERY_MS) {
        heap = await inspector.heapAfterGc(wake);
        lastGcMs = Date.now();
        peaks.heapLive = Math.max(peaks.heapLive || 0, heap.usedSize);
      } else heap = await inspector.heapUsage();
      peaks.heapUsed = Math.max(peaks.heapUsed, heap.usedSize);
      const memory = workerdMemory(server);
      peaks.rss = Math.max(peaks.rss, memory.rss);
      peaks.anon = Math.max(peaks.anon, memory.anon);
      peaks.file = Math.max(peaks.file, memory.file);
      peaks.samples++;
      await sleep(SAMPLE_EVERY_MS);
    }
  })().catch((error) => {
    failure = error; // thrown by the stop, not left unhandled while the read goes on
  });
  return async () => {
    running = false;
    await done;
    if (failure) throw failure;
    return peaks;
  };
}

type Row = {
  entries: number;
  heapBeforeGc: number;
  heapPeak: number;
  heapLivePeak: number;
  heapAfterGc: number;
  rssBefore: number;
  rssPeakSampled: number;
  rssAnonPeakSampled: number;
  rssFilePeakSampled: number;
  rssProcessPeak: number;
  databaseBytes: number;
  bytes: number;
  seconds: number;
  samples: number;
};

/** One fresh server on `stateDir`: the whole history of `userId`, read slowly, heap sampled. */
async function measure(stateDir: string, userId: number, entries: number): Promise<Row> {
  const inspectorPort = await freePort();
  const server = await startServer({ persistTo: stateDir, prepared: true, inspectorPort });
  try {
    const auth = await adminAuth(server.api);
    const inspector = await connectInspector(inspectorPort);
    try {
      const history = `${server.api}/transactions?security_code=1&user_id=${userId}`;
      // The REST index: no D1, no credentials, a few kilobytes.
      const wake = () => fetch(`${server.base}/wp-json/`).then((r) => r.arrayBuffer());
      await call(
        server.api,
        auth,
        "GET",
        `/transactions?security_code=1&user_id=${userId}&per_page=1`,
      );
      await inspector.heapAfterGc(wake);
      const before = await inspector.heapAfterGc(wake);
      const rssBefore = workerdMemory(server).rss;
      const stopSampling = sampleWhile(inspector, server, wake);
      const reading = readSlowly(history, {
        headers: { Authorization: auth },
        bytesPerS: rateMBps * MB,
        timeoutMs: ((2 * entries * BYTES_PER_ENTRY_BOUND) / (rateMBps * MB)) * 1000 + 60_000,
        marker: RECORD_MARKER,
      });
      const [read, peaks] = await Promise.all([
        reading,
        reading.then(stopSampling, async (error) => {
          await stopSampling().catch(() => undefined);
          throw error;
        }),
      ]);
      const after = await inspector.heapAfterGc(wake);
      if (read.status !== 200) throw new Error(`the history answered ${read.status}`);
      if (read.headers["x-wp-total"] !== String(entries) || read.markers !== entries)
        throw new Error(
          `expected ${entries} entries: X-WP-Total ${read.headers["x-wp-total"]}, ${read.markers} records read`,
        );
      if (!read.tail.endsWith("]}")) throw new Error("the answer did not end as a whole JSON body");
      return {
        entries,
        heapBeforeGc: before.usedSize,
        heapPeak: peaks.heapUsed,
        heapLivePeak: peaks.heapLive,
        heapAfterGc: after.usedSize,
        rssBefore,
        rssPeakSampled: peaks.rss,
        rssAnonPeakSampled: peaks.anon,
        rssFilePeakSampled: peaks.file,
        rssProcessPeak: workerdMemory(server).peak,
        databaseBytes: databaseBytes(stateDir),
        bytes: read.bytes,
        seconds: read.seconds,
        samples: peaks.samples,
      };
    } finally {
      inspector.close();
    }
  } finally {
    await server.stop();
  }
}

/** A wallet and a user, made through the API on a first server over `stateDir`. */
async function makeUser(stateDir: string) {
  const server = await startServer({ persistTo: stateDir });
  try {
    const auth = await adminAuth(server.api);
    await call(server.api, auth, "POST", "/wallets", {
      wallet_id: "heap",
      wallet_name: "Heap bench",
      wallet_symbol: "HB",
      wallet_symbol_position: "right",
      wallet_decimal: 2,
    });
    const user = await call(server.api, auth, "POST", "/users", {
      username: "heap_reader",
      user_email: "heap_reader@bench.example.test",
      user_password: "bench-user-pass",
    });
    return user.data.id as number;
  } finally {
    await server.stop();
  }
}

/** Megabytes, or a dash for a figure not taken (no collection in a stream under GC_EVERY_MS). */
const mb = (bytes: number) => (Number.isNaN(bytes) ? "–" : (bytes / MB).toFixed(1));

function table(rows: Row[]) {
  const head = [
    "entries",
    "heap before (GC'd) MB",
    "heap peak MB",
    `heap live peak (GC'd every ${GC_EVERY_MS / 1000} s) MB`,
    "heap after (GC'd) MB",
    "workerd RSS before MB",
    "workerd RSS peak MB",
    "of it anon / file MB (sampled peaks)",
    "database MB",
    "sent MB",
    "seconds",
  ];
  const lines = rows.map((r) => [
    r.entries.toLocaleString("en-US"),
    mb(r.heapBeforeGc),
    mb(r.heapPeak),
    mb(r.heapLivePeak),
    mb(r.heapAfterGc),
    mb(r.rssBefore),
    mb(r.rssProcessPeak),
    `${mb(r.rssAnonPeakSampled)} / ${mb(r.rssFilePeakSampled)}`,
    mb(r.databaseBytes),
    mb(r.bytes),
    r.seconds.toFixed(1),
  ]);
  return [head, head.map(() => "---:"), ...lines].map((l) => `| ${l.join(" | ")} |`).join("\n");
}

await runBench(
  async () => {
    const meta = runMeta({
      sizes,
      rateMBps,
      sampleEveryMs: SAMPLE_EVERY_MS,
      gcEveryMs: GC_EVERY_MS,
    });
    log(
      `commit ${meta.commit}; load average ${meta.loadavgAtStart.map((l) => l.toFixed(2)).join(" ")}`,
    );
    const stateDir = mkdtempSync(join(tmpdir(), "wallet-heap-"));
    removeAtEnd(stateDir);
    const userId = await makeUser(stateDir);
    const rows: Row[] = [];
    let have = 0;
    for (const entries of sizes) {
      if (stopping()) throw new Error("interrupted");
      log(`appending ${entries - have} entries (user ${userId} then has ${entries})`);
      const sql = appendHistorySql(userId, "heap", entries - have, `heap${entries}-`);
      const persist = ["--config", "wrangler.toml", "--persist-to", stateDir];
      wrangler(["d1", "execute", "DB", "--local", ...persist, "--command", sql], { quiet: true });
      have = entries;
      log(`reading ${entries} entries at ${rateMBps} MB/s`);
      const row = await measure(stateDir, userId, entries);
      rows.push(row);
      log(
        `${entries}: heap ${mb(row.heapBeforeGc)} -> peak ${mb(row.heapPeak)} (live ${mb(row.heapLivePeak)}) -> ${mb(row.heapAfterGc)} MB; workerd peak ${mb(row.rssProcessPeak)} MB; ${mb(row.bytes)} MB in ${row.seconds.toFixed(1)} s`,
      );
    }
    const first = rows[0]!;
    const last = rows.at(-1)!;
    const growth = {
      heapPeak: last.heapPeak - first.heapPeak,
      heapLivePeak: last.heapLivePeak - first.heapLivePeak,
      rssProcessPeak: last.rssProcessPeak - first.rssProcessPeak,
    };
    console.log(`\nWhole history read at ${rateMBps} MB/s (${meta.commit}):\n`);
    console.log(table(rows));
    console.log(
      `\nfrom ${first.entries} to ${last.entries} entries: heap peak ${growth.heapPeak >= 0 ? "+" : ""}${mb(growth.heapPeak)} MB, live peak ${growth.heapLivePeak >= 0 ? "+" : ""}${mb(growth.heapLivePeak)} MB (goal: under 16 MB); workerd process peak ${growth.rssProcessPeak >= 0 ? "+" : ""}${mb(growth.rssProcessPeak)} MB`,
    );
    const file = writeResults("heap", meta, startedMs, { rows, growth });
    log(`results: ${file}`);
    return growth.heapPeak < 16 * MB;
  },
  { log, stopping, startedMs },
);
