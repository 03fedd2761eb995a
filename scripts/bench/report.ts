// The bench's table and its targets.

const num = (n: number | undefined, digits = 0) =>
  n !== undefined && Number.isFinite(n) ? n.toFixed(digits) : "-";

export type TableRow = {
  scenario: string;
  reqPerSec: number;
  p50: number;
  p99: number;
  errors: number;
  ratio?: number;
  vs?: string;
  /** workerd CPU ms per request (user + system), over the run and the second after it. */
  cpuMs?: number;
  /** The rest of the server's process group (its Node process), the same way. */
  nodeCpuMs?: number;
};

export type AppSummary = Record<
  string,
  Required<Omit<TableRow, "scenario" | "cpuMs" | "nodeCpuMs">>
>;

/** A markdown table; the columns in `left` are aligned left, the others (figures) right. */
function markdownTable(header: string[], body: string[][], left: number[]) {
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((row) => row[i]!.length)));
  const line = (cells: string[]) =>
    `| ${cells.map((c, i) => (left.includes(i) ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join(" | ")} |`;
  const rule = `|${widths.map((w, i) => (left.includes(i) ? `${"-".repeat(w + 1)}-` : `${"-".repeat(w + 1)}:`)).join("|")}|`;
  return [line(header), rule, ...body.map(line)].join("\n");
}

/** Returns a markdown table. */
export function formatTable(rows: TableRow[]) {
  const header = [
    "scenario",
    "req/s",
    "p50 ms",
    "p99 ms",
    "errors",
    "CPU ms",
    "Node CPU ms",
    "ratio to baseline",
  ];
  const body = rows.map((r) => [
    r.scenario,
    num(r.reqPerSec, 1),
    num(r.p50),
    num(r.p99),
    String(r.errors),
    num(r.cpuMs, 2),
    num(r.nodeCpuMs, 2),
    r.ratio === undefined ? "-" : `${r.ratio.toFixed(2)}× ${r.vs}`,
  ]);
  return markdownTable(header, body, [0, 7]);
}

type Spread = { median: number; min: number; max: number };
export type CostRow = {
  scenario: string;
  requests: number;
  statements: Spread;
  rowsRead: Spread;
  rowsWritten: Spread;
  /** D1 round trips per request, the mean (a batch is one, charged to the request that sent it). */
  roundTrips: number;
  /** workerd CPU ms per request in the timed run, when the scenario had one. */
  cpuMs?: number;
};

/** The median, and the range when the requests differed. */
const spread = ({ median, min, max }: Spread) =>
  min === max ? num(median, 0) : `${num(median, median % 1 ? 1 : 0)} (${min}–${max})`;

/** The cost table: medians per request of the D1 fields of the log lines, and workerd's CPU. */
export function formatCostTable(rows: CostRow[]) {
  const header = [
    "scenario",
    "statements",
    "rows read",
    "rows written",
    "round trips (mean)",
    "CPU ms",
    "requests",
  ];
  const body = rows.map((r) => [
    r.scenario,
    spread(r.statements),
    spread(r.rowsRead),
    spread(r.rowsWritten),
    num(r.roundTrips, 2),
    num(r.cpuMs, 2),
    String(r.requests),
  ]);
  return markdownTable(header, body, [0]);
}

/** The cost targets (BENCHMARKS.md, "Cost per request"), met by the medians. */
export function evaluateCostTargets(rows: CostRow[]) {
  const by = Object.fromEntries(rows.map((r) => [r.scenario, r]));
  const targets: { target: string; value: string; met: boolean }[] = [];
  const check = (target: string, names: string[], met: (...r: CostRow[]) => boolean) => {
    const found = names.map((n) => by[n]);
    if (found.some((r) => !r?.requests)) return;
    const rs = found as CostRow[];
    const value = rs
      .map(
        (r) =>
          `${r.scenario} ${spread(r.statements)}/${spread(r.rowsRead)}/${spread(r.rowsWritten)}`,
      )
      .join(", ");
    targets.push({ target, value: `${value} (statements/read/written)`, met: met(...rs) });
  };
  check(
    "credit: 2 statements (one batch), at most 8 rows written and 20 read (medians)",
    ["credits"],
    (r) => r.statements.median === 2 && r.rowsWritten.median <= 8 && r.rowsRead.median <= 20,
  );
  check(
    "credit whose title differs (titles as a site's): at most 8 rows written and 20 read (medians)",
    ["credits-titles-apart"],
    (r) => r.statements.median === 2 && r.rowsWritten.median <= 8 && r.rowsRead.median <= 20,
  );
  check(
    "a page of 20 entries: at most 2 statements",
    ["transactions-page-20"],
    (r) => r.statements.median <= 2,
  );
  // Where D1's single writer is the bound (production), throughput follows write round trips: the
  // one-insert baseline makes one per request, so 1.5× it needs at most 1/1.5 per credit.
  const credits = by.credits;
  if (credits?.requests)
    targets.push({
      target: "credits under load: at most 0.67 D1 round trips per credit (1.5 credits per write)",
      value: `credits ${credits.roundTrips.toFixed(2)} round trips per credit (${(1 / credits.roundTrips).toFixed(1)} credits per round trip)`,
      met: credits.roundTrips <= 1 / 1.5,
    });
  check(
    "duplicate credit (409): no row written",
    ["credits-duplicate-409"],
    (r) => r.rowsWritten.max === 0,
  );
  check(
    // The median: a request now and then re-reads the caller's sign-in session, which an isolate
    // re-checks every few seconds (src/db/isolate-cache.ts SESSION_TTL_MS), whatever the route.
    "invalid credit (400): no statement (median)",
    ["credits-invalid-400"],
    (r) => r.statements.median === 0,
  );
  check(
    "balance read: 1 statement once the isolate knows the wallets and the user, no row written",
    ["balance-1-wallet", "balance-5-wallets"],
    (...rs) => rs.every((r) => r.statements.median === 1 && r.rowsWritten.max === 0),
  );
  check(
    "balance read: rows read independent of history (10 and 100,000 entries)",
    ["balance-history-10", "balance-history-100k"],
    (a, b) => a.rowsRead.median === b.rowsRead.median,
  );
  check(
    "transactions first page: rows read independent of history (10 and 100,000 entries)",
    ["transactions-page-history-10", "transactions-page-history-100k"],
    (a, b) => a.rowsRead.median === b.rowsRead.median,
  );
  return targets;
}

/**
 * The bench's targets: credits at least 1.5× the one-insert baseline with a p99 no worse
 * than its p99; balance reads, a transaction and an unknown one at least 0.90× one select, a page
 * of 20 at least 0.70×; and no error path slower than its happy path.
 * `baselineP99` is each baseline's p99, the mean of its two bracketing runs.
 */
export function evaluateTargets(app: AppSummary, baselineP99: Record<string, number>) {
  const targets: { target: string; scenario: string; value: string; met: boolean }[] = [];
  const ratioTarget = (scenario: string, least: number) => {
    const s = app[scenario];
    if (!s) return;
    targets.push({
      target: `${scenario} >= ${least}x ${s.vs} baseline`,
      scenario,
      value: `${s.ratio.toFixed(3)}×`,
      met: s.ratio >= least && s.errors === 0,
    });
  };
  ratioTarget("credits", 1.5);
  const credits = app.credits;
  const insertP99 = baselineP99.insert;
  if (credits && insertP99 !== undefined)
    targets.push({
      target: "credits p99 no worse than the insert baseline's",
      scenario: "credits",
      value: `${credits.p99} vs ${insertP99.toFixed(0)} ms`,
      met: credits.p99 <= insertP99,
    });
  for (const read of [
    "balance-1-wallet",
    "balance-5-wallets",
    "transaction-read",
    "transaction-unknown-404",
  ])
    ratioTarget(read, 0.9);
  ratioTarget("transactions-page-20", 0.7);
  const errorPath = (name: string, scenario: string, happyScenario: string) => {
    const [error, happy] = [app[scenario], app[happyScenario]];
    if (!error || !happy) return;
    targets.push({
      target: `error path (${name}) no slower than the happy path (${happyScenario})`,
      scenario,
      value: `${(error.reqPerSec / happy.reqPerSec).toFixed(3)}× the req/s, p50 ${error.p50} vs ${happy.p50} ms`,
      met: error.reqPerSec >= happy.reqPerSec && error.p50 <= happy.p50 && error.errors === 0,
    });
  };
  errorPath("duplicate credit, 409", "credits-duplicate-409", "credits");
  errorPath("invalid credit, 400", "credits-invalid-400", "credits");
  errorPath("unknown transaction, 404", "transaction-unknown-404", "transaction-read");
  return targets;
}
