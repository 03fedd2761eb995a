// `npm run bench:heap`: the worker isolate's JS heap while a slow client reads a
// whole history (GET /transactions without paging, streamed by D1 reads of 500 entries, then of
// twice as many each up to 2,000: db/client.ts keysetChunks), for histories
// of 10,000, 100,000 and 200,000 entries of one user. The heaps are read from V8 through DevTools
// inspectors (scripts/bench/inspector.ts): the worker's, and local D1's isolate's. Beside them, the
// resident memory of the two workerd processes `wrangler dev` runs (scripts/bench/workerd-memory.ts):
// the runtime (the worker, local D1 and its SQLite) and the proxy in front of it. A stream that
// keeps reading D1 ahead of a slow reader holds the history in the worker's heap; one that waits
// for its reader holds a chunk or two, whatever the history's length. Also the runtime's CPU time
// over the stream per entry sent (/proc, scripts/bench/cost.ts): the worker with local D1 and its
// SQLite, and the sampling's collections, so more than the worker's own (a Worker's CPU limit).
//
// Each size runs on a fresh server (`wrangler dev` with its inspector, 127.0.0.1, its own process
// group, stopped by it) over the same local state: the history is appended in SQL between runs
// (scripts/lib/sql.ts), the server stopped meanwhile. Bounded: at most 5 sizes of at most 500,000
// entries, each read given twice its expected time at the rate and a minute more.
//   npm run bench:heap [-- --sizes 10000,100000,200000 --rate 1]   (rate: MB/s the client reads)
// Output: two tables on stdout, progress on stderr, bench-results/heap-<timestamp>.json (git-ignored).
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { groupCpuSeconds } from "./bench/cost";
import { call } from "./bench/fixtures";
import { connectInspector, type HeapUsage, type Inspector } from "./bench/inspector";
import {
  progressLog,
  removeAtEnd,
  runBench,
  runMeta,
  stopOnSignals,
  writeResults,
} from "./bench/session";
import { readSlowly } from "./bench/slow-reader";
import { databaseBytes, runtimeInspectorPort, workerdMemory } from "./bench/workerd-memory";
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
/** Local D1's isolate as the runtime's inspector names it (miniflare's D1 Durable Object). */
const D1_ISOLATE = "d1:db";

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

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** An isolate's heap over a stream: the most in use, and the most still alive after a collection. */
type HeapPeaks = { used: number; live: number };

/**
 * Samples the isolates' heaps (every GC_EVERY_MS after a full collection: what the stream keeps
 * alive, not its garbage) and the workerd processes' memory until stopped.
 */
function sampleWhile(isolates: Inspector[], server: Server, wake: () => Promise<unknown>) {
  const heaps: HeapPeaks[] = isolates.map(() => ({ used: 0, live: Number.NaN }));
  const rss = { runtime: 0, runtimeAnon: 0, runtimeFile: 0, proxy: 0 };
  let running = true;
  let failure: unknown;
  const done = (async () => {
    let lastGcMs = Date.now();
    while (running) {
      const collect = Date.now() - lastGcMs >= GC_EVERY_MS;
      for (const [i, isolate] of isolates.entries()) {
        const heap = collect ? await isolate.heapAfterGc(wake) : await isolate.heapUsage();
        heaps[i]!.used = Math.max(heaps[i]!.used, heap.usedSize);
        if (collect) heaps[i]!.live = Math.max(heaps[i]!.live || 0, heap.usedSize);
      }
      if (collect) lastGcMs = Date.now();
      const memory = workerdMemory(server);
      rss.runtime = Math.max(rss.runtime, memory.runtime.rss);
      rss.runtimeAnon = Math.max(rss.runtimeAnon, memory.runtime.anon);
      rss.runtimeFile = Math.max(rss.runtimeFile, memory.runtime.file);
      rss.proxy = Math.max(rss.proxy, memory.proxy.rss);
      await sleep(SAMPLE_EVERY_MS);
    }
  })().catch((error) => {
    failure = error; // thrown by the stop, not left unhandled while the read goes on
  });
  return async () => {
    running = false;
    await done;
    if (failure) throw failure;
    return { heaps, rss };
  };
}

type Heap = { beforeGc: number; peak: number; livePeak: number; afterGc: number };

type Row = {
  entries: number;
  /** The worker's isolate. */
  worker: Heap;
  /** Local D1's isolate (miniflare's D1 object, `d1:db`), when the runtime's inspector showed it. */
  d1: Heap | null;
  runtime: { rssBefore: number; processPeak: number; anonPeak: number; filePeak: number };
  proxy: { rssBefore: number; processPeak: number };
  /** CPU seconds of the runtime (the worker and local D1) over the stream (cost.ts `app`). */
  cpuSeconds: number;
  databaseBytes: number;
  bytes: number;
  seconds: number;
};

/** One fresh server on `stateDir`: the whole history of `userId`, read slowly, heaps sampled. */
async function measure(stateDir: string, userId: number, entries: number): Promise<Row> {
  const inspectorPort = await freePort();
  const server = await startServer({ persistTo: stateDir, inspectorPort });
  const isolates: Inspector[] = [];
  try {
    const auth = await adminAuth(server.api);
    isolates.push(await connectInspector(inspectorPort));
    const runtimePort = await runtimeInspectorPort(server, D1_ISOLATE);
    if (runtimePort === null)
      log(`the runtime's inspector shows no ${D1_ISOLATE}: D1's heap left out`);
    else isolates.push(await connectInspector(runtimePort, D1_ISOLATE));
    const query = `/transactions?security_code=1&user_id=${userId}`;
    // A page of one: it runs both isolates (the worker and D1), so their pending collections run.
    const wake = () => call(server.api, auth, "GET", `${query}&per_page=1`);
    await wake();
    for (const isolate of isolates) await isolate.heapAfterGc(wake);
    const before: HeapUsage[] = [];
    for (const isolate of isolates) before.push(await isolate.heapAfterGc(wake));
    const memoryBefore = workerdMemory(server);
    const cpuBefore = groupCpuSeconds(server.child.pid!, stateDir);
    const stopSampling = sampleWhile(isolates, server, wake);
    const reading = readSlowly(`${server.api}${query}`, {
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
    const cpuAfter = groupCpuSeconds(server.child.pid!, stateDir);
    const after: HeapUsage[] = [];
    for (const isolate of isolates) after.push(await isolate.heapAfterGc(wake));
    if (read.status !== 200) throw new Error(`the history answered ${read.status}`);
    if (read.headers["x-wp-total"] !== String(entries) || read.markers !== entries)
      throw new Error(
        `expected ${entries} entries: X-WP-Total ${read.headers["x-wp-total"]}, ${read.markers} records read`,
      );
    if (!read.tail.endsWith("]}")) throw new Error("the answer did not end as a whole JSON body");
    const heap = (i: number): Heap => ({
      beforeGc: before[i]!.usedSize,
      peak: peaks.heaps[i]!.used,
      livePeak: peaks.heaps[i]!.live,
      afterGc: after[i]!.usedSize,
    });
    const memoryAfter = workerdMemory(server);
    return {
      entries,
      worker: heap(0),
      d1: isolates.length > 1 ? heap(1) : null,
      runtime: {
        rssBefore: memoryBefore.runtime.rss,
        processPeak: memoryAfter.runtime.peak,
        anonPeak: peaks.rss.runtimeAnon,
        filePeak: peaks.rss.runtimeFile,
      },
      proxy: { rssBefore: memoryBefore.proxy.rss, processPeak: memoryAfter.proxy.peak },
      cpuSeconds: (cpuAfter.app ?? Number.NaN) - (cpuBefore.app ?? Number.NaN),
      databaseBytes: databaseBytes(stateDir),
      bytes: read.bytes,
      seconds: read.seconds,
    };
  } finally {
    for (const isolate of isolates) isolate.close();
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

const markdown = (head: string[], lines: string[][]) =>
  [head, head.map(() => "---:"), ...lines].map((l) => `| ${l.join(" | ")} |`).join("\n");

const heapCells = (h: Heap | null) =>
  h ? [mb(h.beforeGc), mb(h.peak), mb(h.livePeak), mb(h.afterGc)] : ["–", "–", "–", "–"];

function tables(rows: Row[]) {
  const heap = markdown(
    [
      "entries",
      "worker heap before (GC'd)",
      "peak",
      `live peak (GC'd every ${GC_EVERY_MS / 1000} s)`,
      "after (GC'd)",
      "D1 heap before (GC'd)",
      "peak",
      "live peak",
      "after (GC'd)",
    ],
    rows.map((r) => [
      r.entries.toLocaleString("en-US"),
      ...heapCells(r.worker),
      ...heapCells(r.d1),
    ]),
  );
  const process = markdown(
    [
      "entries",
      "runtime RSS before",
      "runtime peak (VmHWM)",
      "of it anon / file (sampled)",
      "proxy RSS before",
      "proxy peak (VmHWM)",
      "database",
      "sent",
      "seconds",
      "runtime CPU s",
      "µs per entry",
    ],
    rows.map((r) => [
      r.entries.toLocaleString("en-US"),
      mb(r.runtime.rssBefore),
      mb(r.runtime.processPeak),
      `${mb(r.runtime.anonPeak)} / ${mb(r.runtime.filePeak)}`,
      mb(r.proxy.rssBefore),
      mb(r.proxy.processPeak),
      mb(r.databaseBytes),
      mb(r.bytes),
      r.seconds.toFixed(1),
      r.cpuSeconds.toFixed(2),
      ((r.cpuSeconds * 1e6) / r.entries).toFixed(1),
    ]),
  );
  return `JS heaps of the isolates, MB:\n\n${heap}\n\nworkerd processes, MB:\n\n${process}`;
}

const signed = (bytes: number) => `${bytes >= 0 ? "+" : ""}${mb(bytes)} MB`;

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
        `${entries}: worker heap ${heapCells(row.worker).join(" / ")} MB, D1 heap ${heapCells(row.d1).join(" / ")} MB; runtime peak ${mb(row.runtime.processPeak)} MB, proxy peak ${mb(row.proxy.processPeak)} MB; ${mb(row.bytes)} MB in ${row.seconds.toFixed(1)} s, runtime CPU ${row.cpuSeconds.toFixed(2)} s`,
      );
    }
    const first = rows[0]!;
    const last = rows.at(-1)!;
    const growth = {
      workerHeapPeak: last.worker.peak - first.worker.peak,
      workerHeapLivePeak: last.worker.livePeak - first.worker.livePeak,
      d1HeapPeak: (last.d1?.peak ?? Number.NaN) - (first.d1?.peak ?? Number.NaN),
      runtimePeak: last.runtime.processPeak - first.runtime.processPeak,
      proxyPeak: last.proxy.processPeak - first.proxy.processPeak,
    };
    console.log(`\nWhole history read at ${rateMBps} MB/s (${meta.commit}):\n`);
    console.log(tables(rows));
    console.log(
      `\nfrom ${first.entries} to ${last.entries} entries: worker heap peak ${signed(growth.workerHeapPeak)}, live peak ${signed(growth.workerHeapLivePeak)} (goal: under 16 MB); D1 heap peak ${signed(growth.d1HeapPeak)}; runtime process peak ${signed(growth.runtimePeak)}, proxy process peak ${signed(growth.proxyPeak)}`,
    );
    const file = writeResults("heap", meta, startedMs, { rows, growth });
    log(`results: ${file}`);
    return growth.workerHeapPeak < 16 * MB;
  },
  { log, stopping, startedMs },
);
