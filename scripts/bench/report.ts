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
};

export type AppSummary = Record<string, Required<Omit<TableRow, "scenario" | "cpuMs">>>;

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
  const header = ["scenario", "req/s", "p50 ms", "p99 ms", "errors", "CPU ms", "ratio to baseline"];
  const body = rows.map((r) => [
    r.scenario,
    num(r.reqPerSec, 1),
    num(r.p50),
    num(r.p99),
    String(r.errors),
    num(r.cpuMs, 2),
    r.ratio === undefined ? "-" : `${r.ratio.toFixed(2)}× ${r.vs}`,
  ]);
  return markdownTable(header, body, [0, 6]);
}

type Spread = { median: number; min: number; max: number };
export type CostRow = {
  scenario: string;
  requests: number;
  statements: Spread;
  rowsRead: Spread;
  rowsWritten: Spread;
  /** workerd CPU ms per request in the timed run, when the scenario had one. */
  cpuMs?: number;
};

/** The median, and the range when the requests differed. */
const spread = ({ median, min, max }: Spread) =>
  min === max ? num(median, 0) : `${num(median, median % 1 ? 1 : 0)} (${min}–${max})`;

/** The cost table: medians per request of the D1 fields of the log lines, and workerd's CPU. */
export function formatCostTable(rows: CostRow[]) {
  const header = ["scenario", "statements", "rows read", "rows written", "CPU ms", "requests"];
  const body = rows.map((r) => [
    r.scenario,
    spread(r.statements),
    spread(r.rowsRead),
    spread(r.rowsWritten),
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
    "credit: 2 statements (one batch), at most 12 rows written",
    ["credits"],
    (r) => r.statements.median === 2 && r.rowsWritten.median <= 12,
  );
  check(
    "duplicate credit (409): no row written",
    ["credits-duplicate-409"],
    (r) => r.rowsWritten.max === 0,
  );
  check(
    "invalid credit (400): no statement",
    ["credits-invalid-400"],
    (r) => r.statements.max === 0,
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
 * The targets: credits >= 0.8x the insert baseline; balance reads >= 0.8x the select baseline;
 * the duplicate-credit error path no slower than the happy path (req/s and p50 both at least as good).
 */
export function evaluateTargets(app: AppSummary) {
  const targets: { target: string; scenario: string; value: string; met: boolean }[] = [];
  const ratioTarget = (name: string, scenario: string) => {
    const s = app[scenario];
    if (!s) return;
    targets.push({
      target: name,
      scenario,
      value: `${s.ratio.toFixed(3)}×`,
      met: s.ratio >= 0.8 && s.errors === 0,
    });
  };
  ratioTarget("credits >= 0.8x insert baseline", "credits");
  ratioTarget("balance read (1 wallet) >= 0.8x select baseline", "balance-1-wallet");
  ratioTarget("balance read (5 wallets) >= 0.8x select baseline", "balance-5-wallets");
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
