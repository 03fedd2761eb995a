// `npm run bench -- --against <git ref>`: the working tree beside another commit, both as the bench
// starts the app (scripts/lib/server.ts: its deploy bundle under Miniflare on 127.0.0.1, its own
// migrated D1 state, a seeded administrator, the bench's fixtures made through each one's API). The
// app's scenarios run on both, the side that goes first alternating round by round (compare.ts),
// and each scenario reports each side's medians and the working tree's ratios to the ref: req/s,
// and the CPU per request of the workerd that runs the worker and its local D1, apart from the
// plumbing beside it (the server's Node process; under wrangler dev also its proxy workerd).
import { loadavg } from "node:os";
import { adminAuth, type Server, startServer } from "../lib/server";
import { bundleSize, kib } from "./bundle";
import { interleavedPlan, type SideBySideRow, sideBySide } from "./compare";
import { fingerprint } from "./fingerprint";
import { balanceSum, makeFixtures, WALLETS } from "./fixtures";
import { checkoutRef } from "./ref-worktree";
import { appScenarioMaker } from "./scenarios";
import {
  answeredAndSent,
  type BenchRun,
  finishReport,
  loadSettings,
  roundSettings,
  runMeta,
  runSides,
  servedBy,
  sideRunOf,
} from "./session";

/** The scenarios compared by default (BENCH_SCENARIOS=a,b,… picks others of scenarios.ts). */
const AGAINST_SCENARIOS = [
  "credits",
  "credits-duplicate-409",
  "credits-invalid-400",
  "balance-1-wallet",
  "balance-5-wallets",
  "transaction-read",
  "transactions-page-20",
];

const fixed = (n: number | undefined, digits: number) =>
  n === undefined || !Number.isFinite(n) ? "-" : n.toFixed(digits);

/** The side-by-side table, each side named as the mode calls it. */
export function formatRows(rows: SideBySideRow[], name = { tree: "tree", ref: "ref" }) {
  const { tree, ref } = name;
  const header = [
    "scenario",
    `${tree} req/s`,
    `${ref} req/s`,
    "req/s ratio (rounds)",
    `app CPU ms ${tree}/${ref}`,
    "app CPU ratio",
    `plumbing ms ${tree}/${ref}`,
    `of it Node ms ${tree}/${ref}`,
    `${tree} p50/p99 ms`,
    `${ref} p50/p99 ms`,
    `errors ${tree}/${ref}`,
  ];
  const body = rows.map((r) => [
    r.scenario,
    fixed(r.tree.reqPerSec, 1),
    fixed(r.ref.reqPerSec, 1),
    r.reqPerSecRatio === undefined
      ? "- (errors)"
      : `${r.reqPerSecRatio.toFixed(2)}× (${fixed(r.roundRatioRange?.min, 2)}–${fixed(r.roundRatioRange?.max, 2)})`,
    `${fixed(r.tree.appCpuMs, 2)}/${fixed(r.ref.appCpuMs, 2)}`,
    r.appCpuRatio === undefined ? "-" : `${r.appCpuRatio.toFixed(2)}×`,
    `${fixed(r.tree.plumbingMs, 2)}/${fixed(r.ref.plumbingMs, 2)}`,
    `${fixed(r.tree.nodeMs, 2)}/${fixed(r.ref.nodeMs, 2)}`,
    `${fixed(r.tree.p50, 0)}/${fixed(r.tree.p99, 0)}`,
    `${fixed(r.ref.p50, 0)}/${fixed(r.ref.p99, 0)}`,
    `${r.tree.errors}/${r.ref.errors}`,
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((row) => row[i]!.length)));
  const line = (cells: string[]) =>
    `| ${cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join(" | ")} |`;
  const rule = `|${widths.map((w, i) => `${"-".repeat(w + 1)}${i === 0 ? "-" : ":"}`).join("|")}|`;
  return [line(header), rule, ...body.map(line)].join("\n");
}

export async function benchAgainst({
  ref,
  root,
  log,
  stopping,
  startedMs,
}: BenchRun & {
  ref: string;
  root: string;
}) {
  const load = loadSettings();
  // 8 connections, as the first side-by-side runs measured: fewer than the baselines' 32, so a
  // credit's cost shows more of its CPU and less of group commit's batching under a queue.
  const { durationS, warmupS, rounds, connections } = roundSettings({
    connections: 8,
    maxRounds: 9,
  });
  const names = process.env.BENCH_SCENARIOS?.split(",") ?? AGAINST_SCENARIOS;
  const runId = Date.now().toString(36);
  const sourcesAtStart = fingerprint();

  const checkout = await checkoutRef(ref, { root, log });
  const meta = runMeta({
    mode: "against",
    against: { ref, commit: checkout.commit, subject: checkout.subject, install: checkout.install },
    durationS,
    warmupS,
    rounds,
    connections,
    devtools: load.devtools,
    host: "127.0.0.1",
  });
  log(`${ref}: node_modules ${checkout.install} in ${checkout.installSeconds.toFixed(0)}s`);

  log("bundling both (wrangler deploy --dry-run)");
  const refConfig = `${checkout.dir}/wrangler.toml`;
  const bundles = {
    tree: bundleSize({ config: "wrangler.toml", main: "src/index.ts" }),
    ref: bundleSize({ config: refConfig, main: "src/index.ts" }),
  };

  log(`starting both (${servedBy(load.devtools)}, 127.0.0.1)`);
  const servers: Record<"tree" | "ref", Server> = {
    tree: await startServer({ config: "wrangler.toml", wranglerDev: load.devtools }),
    ref: await startServer({ config: refConfig, wranglerDev: load.devtools }),
  };
  log(`working tree ${servers.tree.base}, ${ref} ${servers.ref.base}`);

  const appScenarios = appScenarioMaker(runId);
  const sides = {} as Record<
    "tree" | "ref",
    { auth: string; fx: Awaited<ReturnType<typeof makeFixtures>> }
  >;
  for (const side of ["tree", "ref"] as const) {
    const { api } = servers[side];
    const auth = await adminAuth(api);
    log(`${side}: creating users, wallets and history through the API`);
    sides[side] = { auth, fx: await makeFixtures({ api, auth, runId }) };
  }
  const scenarios = {
    tree: appScenarios(servers.tree, sides.tree.auth, sides.tree.fx),
    ref: appScenarios(servers.ref, sides.ref.auth, sides.ref.fx),
  };
  const unknown = names.filter((n) => !(n in scenarios.tree));
  if (unknown.length) throw new Error(`BENCH_SCENARIOS: no scenario ${unknown.join(", ")}`);

  const plan = interleavedPlan(names, rounds);
  const runs = await runSides(
    plan,
    (step) => ({
      scenario: scenarios[step.side][step.scenario]!,
      label: `${step.side} ${step.scenario}`,
    }),
    { connections, warmupS, durationS },
    { log, stopping },
  );

  // Each side's credits landed once each (as the baseline mode checks).
  await new Promise((r) => setTimeout(r, 1000));
  const ledger: Record<
    string,
    { answered200: number; sent: number; applied: number; ok: boolean }
  > = {};
  for (const side of ["tree", "ref"] as const) {
    const { answered200, sent } = answeredAndSent(runs.filter((r) => r.side === side));
    const { auth, fx } = sides[side];
    const applied =
      (await balanceSum({ api: servers[side].api, auth, users: fx.users, wallet: WALLETS[0] })) -
      fx.duplicate.amount;
    ledger[side] = { answered200, sent, applied, ok: applied >= answered200 && applied <= sent };
  }

  const sideRuns = runs.map(sideRunOf);
  const rows = sideBySide(sideRuns);
  const loads = runs.map((r) => r.loadavg1Before);

  const out: string[] = [];
  out.push(
    `Bench --against ${ref}: the working tree (${meta.commit ?? "?"}) beside ${checkout.commit.slice(0, 12)} "${checkout.subject}".`,
  );
  out.push(
    `${rounds} rounds, each scenario ${durationS}s after ${warmupS}s warm-up per side, ${connections} connections, ${servedBy(load.devtools)}, 127.0.0.1, ${meta.cpus} CPUs shared with the load generator; the side that runs first alternates by round.`,
  );
  out.push(
    "Each side's medians over the rounds; ratios are working tree ÷ ref: req/s above 1 and CPU below 1 favour the working tree. CPU ms per request sent, user + system (/proc): app, the workerd that runs the worker and its local D1; plumbing, the rest of the server, which a deployed Worker does not have (its Node process, which reads every line the worker logs, the tree's request log line among them; under wrangler dev also its proxy workerd); of it Node, the Node process alone.",
  );
  out.push("");
  out.push(formatRows(rows));
  out.push("");
  out.push(
    `Load average (1 min) before the runs: ${Math.min(...loads).toFixed(2)} to ${Math.max(...loads).toFixed(2)}; at the end ${loadavg()[0]!.toFixed(2)} (this bench alone adds about 2).`,
  );
  out.push(
    `Bundle (main .js, raw / gzip): tree ${kib(bundles.tree.rawBytes)} / ${kib(bundles.tree.gzipBytes)}, ref ${kib(bundles.ref.rawBytes)} / ${kib(bundles.ref.gzipBytes)}.`,
  );
  for (const [side, l] of Object.entries(ledger))
    out.push(
      `Ledger check (${side}): ${l.ok ? "ok" : "MISMATCH"} (${l.answered200} credits answered 200, ${l.sent} sent, ${l.applied} applied).`,
    );
  const errors = sideRuns.reduce((n, r) => n + r.errors, 0);
  if (errors > 0)
    out.push(`\n${errors} unexpected answers (status codes per run are in the JSON file).`);
  const valid = finishReport(out, {
    prefix: "against",
    meta,
    startedMs,
    sourcesAtStart,
    results: { bundles, ledger, table: rows, runs },
  });
  return errors === 0 && Object.values(ledger).every((l) => l.ok) && valid;
}
