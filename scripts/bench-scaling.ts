// `npm run bench:scaling`: the measurement behind docs/scaling.md. Credits through the app over D1
// (group commit), through the sharding prototype (bench/do-writer/: the same app, its credits in a
// SQLite-backed Durable Object per user) and the one-INSERT D1 baseline, side by side in one run:
// spread over many users, then all on one hot user; balance reads through both beside the
// one-SELECT baseline; and a probe of one credit's latency and disk writes when the user's object
// is new, in memory, or evicted after idling (200 users, 8 at a time). Three throwaway
// servers on 127.0.0.1, each the deploy bundle under Miniflare alone as the benches serve it
// (scripts/lib/server.ts), stopped with their state on success, error or Ctrl-C. After the load,
// every ledger is checked: the credits applied lie between those answered 200 and those sent, each
// request_id once, and each balance equals the sum of its entries (D1 read with `wrangler d1
// execute`, the objects through the prototype's GET /bench/audit).
//
// Settings (environment): BENCH_DURATION (8 s), BENCH_WARMUP (3 s), BENCH_CONNECTIONS (32),
// BENCH_DEVTOOLS (1: `wrangler dev`, its inspector on), BENCH_USERS (1000, the spread),
// BENCH_PREWARM (1: each user credited once before the load, so it meets existing objects; 0: the
// load's credits create them). Output: a table on stdout, progress on stderr, and
// bench-results/scaling-<timestamp>.json.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type autocannon from "autocannon";
import { hashPassword } from "../src/auth/password";
import { users } from "../src/db/schema";
import { changedFiles, fingerprint } from "./bench/fingerprint";
import { call } from "./bench/fixtures";
import { groupIo } from "./bench/process-io";
import { formatTable, type TableRow } from "./bench/report";
import {
  answeredAndSent,
  baselineDrift,
  loadSettings,
  progressLog,
  runBench,
  runMeta,
  runPlan,
  servedBy,
  setting,
  stopOnSignals,
  writeResults,
} from "./bench/session";
import { adminAuth, type Server, startServer } from "./lib/server";
import { columnsAndValues, sqlLiteral } from "./lib/sql";
import { wrangler } from "./lib/wrangler";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
process.chdir(ROOT);

const LOAD = loadSettings();
const { durationS: DURATION, warmupS: WARMUP, connections: CONNECTIONS } = LOAD;
const USERS = setting("BENCH_USERS", 1000);
/** 1 (default): every user is credited once before the load, so the load meets existing objects. */
const PREWARM = process.env.BENCH_PREWARM !== "0";
const WALLET = "scale_a";
/** The seeded users' ids: the spread is FIRST_ID … FIRST_ID + USERS − 1, the hot user the next. */
const FIRST_ID = 100_001;
const HOT_ID = FIRST_ID + USERS;
/** Users of the latency probe (after the hot user): a first credit, a warm one, one after idling. */
const PROBE_USERS = 200;
const PROBE_ID = HOT_ID + 1;
const SEEDED = USERS + 1 + PROBE_USERS;

const started = Date.now();
const log = progressLog("bench:scaling", started);
const stopping = stopOnSignals(log);

/** The same users in every app database, written in one file before the servers start. */
async function seedFile(runId: string) {
  const hash = await hashPassword("bench-scaling-user"); // never signed in with; one hash for all
  const rows = Array.from({ length: SEEDED }, (_, i) => {
    const username = `scale${i}_${runId}`;
    const row = columnsAndValues(users, {
      id: String(FIRST_ID + i),
      username: sqlLiteral(username),
      email: sqlLiteral(`${username}@bench.example.test`),
      passwordHash: sqlLiteral(hash),
      role: "'subscriber'",
      registeredAtMs: sqlLiteral(Date.now()),
    });
    return `INSERT INTO users (${row.columns}) VALUES (${row.values});`;
  });
  const dir = mkdtempSync(join(tmpdir(), "wallet-scaling-seed-"));
  writeFileSync(join(dir, "users.sql"), `${rows.join("\n")}\n`);
  return { path: join(dir, "users.sql"), remove: () => rmSync(dir, { recursive: true }) };
}

/** What a server's ledger holds for the bench's users: applied credits, and what is out of line. */
type LedgerState = { applied: number; entries: number; repeatedKeys: number; unbalanced: number };

function d1Ledger(server: Server, config: string): LedgerState {
  const sql = `SELECT
    (SELECT coalesce(sum(balance_minor), 0) FROM balances WHERE user_id >= ${FIRST_ID}) AS applied,
    (SELECT count(*) FROM transactions WHERE user_id >= ${FIRST_ID}) AS entries,
    (SELECT count(*) - count(DISTINCT user_id || ':' || request_key) FROM transactions
      WHERE user_id >= ${FIRST_ID}) AS repeatedKeys,
    (SELECT count(*) FROM balances b WHERE user_id >= ${FIRST_ID} AND balance_minor !=
      (SELECT sum(CASE txn_type WHEN 'CREDIT' THEN amount_minor ELSE -amount_minor END)
        FROM transactions t WHERE t.user_id = b.user_id AND t.wallet_id = b.wallet_id)) AS unbalanced`;
  const at = ["--config", config, "--persist-to", server.stateDir];
  const out = wrangler(["d1", "execute", "DB", "--local", ...at, "--json", "--command", sql], {
    quiet: true,
  });
  const [{ results }] = JSON.parse(out) as [{ results: LedgerState[] }];
  return { ...results[0]!, applied: results[0]!.applied / 100 };
}

type Audit = { wallets: { balanceMinor: number; sumMinor: number; entries: number }[] };

async function shardLedger(server: Server): Promise<LedgerState> {
  const state: LedgerState = { applied: 0, entries: 0, repeatedKeys: 0, unbalanced: 0 };
  const ids = Array.from({ length: SEEDED }, (_, i) => FIRST_ID + i);
  for (let i = 0; i < ids.length; i += 8) {
    const audits = await Promise.all(
      ids.slice(i, i + 8).map(async (id) => {
        const res = await fetch(`${server.base}/bench/audit?user_id=${id}`);
        if (res.status !== 200) throw new Error(`audit of ${id} answered ${res.status}`);
        return (await res.json()) as Audit;
      }),
    );
    for (const w of audits.flatMap((a) => a.wallets)) {
      state.applied += w.balanceMinor / 100;
      state.entries += w.entries;
      if (w.balanceMinor !== w.sumMinor) state.unbalanced++;
    }
  }
  return state; // a repeated request_id cannot be stored: UNIQUE(request_key) in each object
}

async function main() {
  const runId = Date.now().toString(36);
  const sourcesAtStart = fingerprint();
  const meta = runMeta({
    durationS: DURATION,
    warmupS: WARMUP,
    connections: CONNECTIONS,
    users: USERS,
    prewarm: PREWARM,
    devtools: LOAD.devtools,
  });

  log(`seeding ${SEEDED} users; starting the app, the prototype and the baseline`);
  const seed = await seedFile(runId);
  const APP = "wrangler.toml";
  const SHARDED = "bench/do-writer/wrangler.toml";
  let servers: { d1: Server; shard: Server; baseline: Server };
  try {
    servers = {
      d1: await startServer({ config: APP, seedFile: seed.path, wranglerDev: LOAD.devtools }),
      shard: await startServer({
        config: SHARDED,
        seedFile: seed.path,
        wranglerDev: LOAD.devtools,
      }),
      baseline: await startServer({
        config: "bench/baseline/wrangler.toml",
        seedAdmin: false,
        wranglerDev: LOAD.devtools,
      }),
    };
  } finally {
    seed.remove();
  }
  const { d1, shard, baseline } = servers;
  const auths = { d1: await adminAuth(d1.api), shard: await adminAuth(shard.api) };
  for (const [name, server] of [["d1", d1] as const, ["shard", shard] as const])
    await call(server.api, auths[name], "POST", "/wallets", {
      wallet_id: WALLET,
      wallet_name: "Scaling wallet",
      wallet_symbol: "₦",
      wallet_symbol_position: "left",
      wallet_decimal: 2,
    });
  // A user's first credit creates its object (a new SQLite database); the load should measure the
  // steady state of users who have one, as in production. The same credits go to D1, for fairness.
  const prewarmed = PREWARM ? USERS + 1 : 0;
  const both = [
    ["d1", d1],
    ["shard", shard],
  ] as const;
  /** One credit for each of `count` users from `first`, 8 at a time; ms and disk writes per credit. */
  const creditEach = async (name: "d1" | "shard", first: number, count: number, tag: string) => {
    const server = servers[name];
    const io = groupIo(server.child.pid!);
    const t0 = performance.now();
    for (let i = 0; i < count; i += 8)
      await Promise.all(
        Array.from({ length: Math.min(8, count - i) }, (_, j) =>
          call(server.api, auths[name], "POST", "/credits", {
            user_id: first + i + j,
            wallet_id: WALLET,
            amount: 1,
            request_id: `${tag}-${runId}`,
          }),
        ),
      );
    const ms = (performance.now() - t0) / count;
    return { ms, kib: (groupIo(server.child.pid!).writeBytes - io.writeBytes) / 1024 / count };
  };
  // The probe: a user's first credit creates its object; a second, right after, finds it in memory.
  const probes: Record<string, Record<string, { ms: number; kib: number }>> = {};
  for (const tag of ["first", "warm"]) {
    log(`probe: ${tag} credit of ${PROBE_USERS} users, 8 at a time, on both servers`);
    probes[tag] = {};
    for (const [name] of both)
      probes[tag][name] = await creditEach(name, PROBE_ID, PROBE_USERS, tag);
  }
  // A user's first credit creates its object (a new SQLite database); the load should measure the
  // steady state of users who have one, as in production. The same credits go to D1, for fairness.
  if (PREWARM) {
    log(`prewarming: one credit for each of the ${prewarmed} users, on both servers`);
    for (const [name] of both) await creditEach(name, FIRST_ID, prewarmed, "prewarm");
  }
  const seeded = await fetch(`${baseline.base}/insert`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ request_id: "seed", amount: 1 }),
  });
  const seedId = ((await seeded.json()) as { data: { id: number } }).data.id;

  const json = { "Content-Type": "application/json" };
  let seq = 0;
  const credits = (server: Server, auth: string, pick: () => number): autocannon.Request => ({
    method: "POST",
    path: `${new URL(server.api).pathname}/credits`,
    headers: { Authorization: auth, ...json },
    setupRequest: (req) => ({
      ...req,
      body: JSON.stringify({
        user_id: pick(),
        wallet_id: WALLET,
        amount: 1,
        request_id: `scale-${runId}-${++seq}`,
      }),
    }),
  });
  const spread = () => FIRST_ID + (seq % USERS);
  const hot = () => HOT_ID;
  const balance = (server: Server, auth: string): autocannon.Request => ({
    method: "GET",
    path: `${new URL(server.api).pathname}/user-wallet-balance?user_id=${HOT_ID}&wallet_id=${WALLET}&formatted=yes`,
    headers: { Authorization: auth },
  });
  let insertSeq = 0;
  const scenarios: Record<string, { server: Server; request: autocannon.Request; vs?: string }> = {
    insert: {
      server: baseline,
      request: {
        method: "POST",
        path: "/insert",
        headers: json,
        setupRequest: (req) => ({
          ...req,
          body: JSON.stringify({ request_id: `ins-${runId}-${++insertSeq}`, amount: 1 }),
        }),
      },
    },
    select: { server: baseline, request: { method: "GET", path: `/select?id=${seedId}` } },
    [`credits-d1-${USERS}-users`]: {
      server: d1,
      vs: "insert",
      request: credits(d1, auths.d1, spread),
    },
    [`credits-do-${USERS}-users`]: {
      server: shard,
      vs: "insert",
      request: credits(shard, auths.shard, spread),
    },
    "credits-do-1-hot-user": {
      server: shard,
      vs: "insert",
      request: credits(shard, auths.shard, hot),
    },
    "credits-d1-1-hot-user": { server: d1, vs: "insert", request: credits(d1, auths.d1, hot) },
    "balance-d1": { server: d1, vs: "select", request: balance(d1, auths.d1) },
    "balance-do": { server: shard, vs: "select", request: balance(shard, auths.shard) },
  };
  // Each group between two runs of its baseline; the D1 and DO orders alternate.
  const plan = [
    "insert",
    `credits-d1-${USERS}-users`,
    `credits-do-${USERS}-users`,
    "credits-do-1-hot-user",
    "credits-d1-1-hot-user",
    "insert",
    "select",
    "balance-d1",
    "balance-do",
    "select",
  ];

  const runs = await runPlan(
    plan,
    scenarios,
    (s) => (s.server === d1 ? "d1" : s.server === shard ? "do" : "baseline"),
    LOAD,
    { log, stopping },
  );

  // The probe's users have been idle through the whole load: their objects were evicted.
  log(`probe: credit of the ${PROBE_USERS} probe users after idling through the load`);
  probes.idle = {};
  for (const [name] of both)
    probes.idle[name] = await creditEach(name, PROBE_ID, PROBE_USERS, "idle");

  log("checking both ledgers");
  await new Promise((r) => setTimeout(r, 1000));
  const answered = (server: "d1" | "do") => {
    const load = answeredAndSent(
      runs.filter((r) => r.kind === server && r.name.startsWith("credits-")),
    );
    const before = prewarmed + 3 * PROBE_USERS; // the prewarm and the probe, every one answered 200
    return { answered200: load.answered200 + before, sent: load.sent + before, prewarmed };
  };
  const checks = {
    d1: { ...answered("d1"), ...d1Ledger(d1, APP) },
    do: { ...answered("do"), ...(await shardLedger(shard)) },
  };
  const ledgerOk = Object.values(checks).every(
    (c) =>
      c.applied >= c.answered200 &&
      c.applied <= c.sent &&
      c.entries === c.applied &&
      c.repeatedKeys === 0 &&
      c.unbalanced === 0,
  );

  const mean = (name: string) => {
    const rs = runs.filter((r) => r.name === name);
    return rs.reduce((a, r) => a + r.reqPerSec, 0) / rs.length;
  };
  const rows: TableRow[] = runs.map((r) => {
    const vs = scenarios[r.name]!.vs;
    const row = {
      scenario: r.kind === "baseline" ? `baseline ${r.name}` : r.name,
      reqPerSec: r.reqPerSec,
      p50: r.latencyMs.p50,
      p99: r.latencyMs.p99,
      errors: r.errors,
      cpuMs: r.cpuMsPerRequest?.workerd,
    };
    return vs ? { ...row, vs, ratio: r.reqPerSec / mean(vs) } : row;
  });
  const rate = (name: string) => runs.find((r) => r.name === name)!.reqPerSec;
  const doOverD1 = {
    spread: rate(`credits-do-${USERS}-users`) / rate(`credits-d1-${USERS}-users`),
    hot: rate("credits-do-1-hot-user") / rate("credits-d1-1-hot-user"),
    balance: rate("balance-do") / rate("balance-d1"),
  };
  const drift = baselineDrift(runs, ["insert", "select"]);
  const totalErrors = runs.reduce((n, r) => n + r.errors + r.warmup.errors, 0);
  const sourcesChanged = changedFiles(sourcesAtStart, fingerprint());

  const out = [
    `Bench (scaling): ${DURATION}s per scenario after ${WARMUP}s warm-up, ${CONNECTIONS} connections, ${servedBy(LOAD.devtools)}, on 127.0.0.1, ${meta.cpus} CPUs shared with the load generator; spread over ${USERS} users, hot = 1 user; ${PREWARM ? "every user credited once before the load (existing objects)" : "no prewarm (the load's first credits create the objects)"}.`,
    "",
    formatTable(rows),
    "",
    `DO ÷ D1 (req/s): credits over ${USERS} users ${doOverD1.spread.toFixed(2)}×, credits on 1 hot user ${doOverD1.hot.toFixed(2)}×, balance read ${doOverD1.balance.toFixed(2)}×.`,
    `Probe, ${PROBE_USERS} users, 8 credits at a time, ms and KiB written per credit (D1 | DO): ${Object.entries(
      probes,
    )
      .map(
        ([tag, p]) =>
          `${tag} ${p.d1!.ms.toFixed(1)} ms ${p.d1!.kib.toFixed(1)} KiB | ${p.shard!.ms.toFixed(1)} ms ${p.shard!.kib.toFixed(1)} KiB`,
      )
      .join("; ")}.`,
    `Disk writes per request sent, by the server's process group (/proc/<pid>/io): ${runs
      .filter((r) => r.kind !== "baseline")
      .map(
        (r) =>
          `${r.name} ${(r.io.writeBytes / 1024).toFixed(1)} KiB in ${r.io.writeCalls.toFixed(1)} write calls`,
      )
      .join("; ")}.`,
    `Baseline drift between its two bracketing runs: ${drift.map((d) => `${d.name} ${d.pct.toFixed(0)}%`).join(", ")}.`,
    `Load average (1 min) before the first scenario ${runs[0]!.loadavg1Before.toFixed(2)}, at the end ${loadavg()[0]!.toFixed(2)}.`,
    ...Object.entries(checks).map(
      ([name, c]) =>
        `Ledger check (${name}): ${c.applied} credits applied, ${c.entries} entries, ${c.answered200} answered 200, ${c.sent} sent (${c.prewarmed} of them to prewarm, ${3 * PROBE_USERS} to probe); repeated request_ids ${c.repeatedKeys}, balances unlike their entries ${c.unbalanced}.`,
    ),
    `Ledger check: ${ledgerOk ? "ok" : "MISMATCH"}.`,
  ];
  if (totalErrors > 0)
    out.push(`\n${totalErrors} unexpected answers in total (see the JSON file).`);
  if (sourcesChanged.length > 0)
    out.push(
      `\nINVALID RUN: ${sourcesChanged.length} source files changed while it ran, e.g. ${sourcesChanged.slice(0, 5).join(", ")}.`,
    );
  const file = writeResults("scaling", meta, started, {
    valid: sourcesChanged.length === 0,
    sourcesChanged,
    drift,
    doOverD1,
    probes,
    checks,
    table: rows,
    runs,
  });
  out.push(`\nResults: ${file}`);
  process.stdout.write(`${out.join("\n")}\n`);
  return totalErrors === 0 && ledgerOk && sourcesChanged.length === 0;
}

await runBench(main, { log, stopping, startedMs: started });
