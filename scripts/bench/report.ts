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
};

export type AppSummary = Record<string, Required<Omit<TableRow, "scenario">>>;

/** Returns a markdown table. */
export function formatTable(rows: TableRow[]) {
  const header = ["scenario", "req/s", "p50 ms", "p99 ms", "errors", "ratio to baseline"];
  const body = rows.map((r) => [
    r.scenario,
    num(r.reqPerSec, 1),
    num(r.p50),
    num(r.p99),
    String(r.errors),
    r.ratio === undefined ? "-" : `${r.ratio.toFixed(2)}× ${r.vs}`,
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((row) => row[i]!.length)));
  const line = (cells: string[]) =>
    `| ${cells.map((c, i) => (i === 0 || i === 5 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join(" | ")} |`;
  const rule = `|${widths.map((w, i) => (i === 0 || i === 5 ? `${"-".repeat(w + 1)}-` : `${"-".repeat(w + 1)}:`)).join("|")}|`;
  return [line(header), rule, ...body.map(line)].join("\n");
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
