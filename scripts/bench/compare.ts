// Two builds of the app side by side (`npm run bench -- --against <ref>`, against.ts): the order of
// the runs and the figures read from them. Pure, so test/node/bench-modes.test.ts checks it.

export type Side = "tree" | "ref";

/**
 * Every scenario on both sides in each of `rounds` rounds, one pair after the other; the side that
 * goes first alternates from round to round (A B, B A, A B…), so a drift of the machine's load
 * during the run weighs on both sides alike.
 */
export function interleavedPlan(scenarios: readonly string[], rounds: number) {
  const plan: { round: number; scenario: string; side: Side }[] = [];
  for (let round = 0; round < rounds; round++) {
    const order: Side[] = round % 2 === 0 ? ["tree", "ref"] : ["ref", "tree"];
    for (const scenario of scenarios)
      for (const side of order) plan.push({ round, scenario, side });
  }
  return plan;
}

export const median = (values: readonly number[]) => {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

/** One measured run of a scenario on one side. */
export type SideRun = {
  round: number;
  scenario: string;
  side: Side;
  reqPerSec: number;
  p50: number;
  p99: number;
  errors: number;
  /** workerd CPU ms per request sent; undefined where /proc could not be read. */
  cpuMs: number | undefined;
  /** The worker's own workerd (the worker and its local D1), ms per request sent. */
  appCpuMs?: number | undefined;
  /** The rest of the server (its Node process; under wrangler dev its proxy workerd too), ms per request sent. */
  plumbingMs?: number | undefined;
  /** Of the plumbing, the Node process alone (it reads every line the worker logs). */
  nodeMs?: number | undefined;
};

type SideFigures = {
  reqPerSec: number;
  p50: number;
  p99: number;
  cpuMs: number;
  appCpuMs: number;
  plumbingMs: number;
  nodeMs: number;
  errors: number;
};

const medianOf = (values: readonly (number | undefined)[]) =>
  median(values.filter((v): v is number => v !== undefined));

/**
 * Per scenario: each side's medians over its rounds, and the working tree's figures ÷ the ref's:
 * req/s (above 1: the tree is faster), workerd CPU per request and the worker's own workerd's
 * (`appCpuRatio`, where both sides have it; below 1: the tree is cheaper), with the range of the
 * rounds' own req/s ratios. A scenario with errors on either side has no
 * ratios: its answers were not the scenario's.
 */
export function sideBySide(runs: readonly SideRun[]) {
  const scenarios = [...new Set(runs.map((r) => r.scenario))];
  return scenarios.map((scenario) => {
    const of = (side: Side) => runs.filter((r) => r.scenario === scenario && r.side === side);
    const figures = (side: Side): SideFigures => {
      const rs = of(side);
      return {
        reqPerSec: median(rs.map((r) => r.reqPerSec)),
        p50: median(rs.map((r) => r.p50)),
        p99: median(rs.map((r) => r.p99)),
        cpuMs: medianOf(rs.map((r) => r.cpuMs)),
        appCpuMs: medianOf(rs.map((r) => r.appCpuMs)),
        plumbingMs: medianOf(rs.map((r) => r.plumbingMs)),
        nodeMs: medianOf(rs.map((r) => r.nodeMs)),
        errors: rs.reduce((n, r) => n + r.errors, 0),
      };
    };
    const tree = figures("tree");
    const ref = figures("ref");
    const clean = tree.errors === 0 && ref.errors === 0;
    const roundRatios = [...new Set(of("tree").map((r) => r.round))].flatMap((round) => {
      const [t, f] = (["tree", "ref"] as const).map((side) =>
        of(side).find((r) => r.round === round),
      );
      return t && f ? [t.reqPerSec / f.reqPerSec] : [];
    });
    return {
      scenario,
      tree,
      ref,
      rounds: roundRatios.length,
      reqPerSecRatio: clean ? tree.reqPerSec / ref.reqPerSec : undefined,
      cpuRatio: clean ? tree.cpuMs / ref.cpuMs : undefined,
      appCpuRatio:
        clean && tree.appCpuMs > 0 && ref.appCpuMs > 0 ? tree.appCpuMs / ref.appCpuMs : undefined,
      roundRatioRange:
        clean && roundRatios.length > 0
          ? { min: Math.min(...roundRatios), max: Math.max(...roundRatios) }
          : undefined,
    };
  });
}

export type SideBySideRow = ReturnType<typeof sideBySide>[number];
