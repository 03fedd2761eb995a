// `npm run bench`'s command line (scripts/bench/args.ts) and the side-by-side comparison of
// `--against` (scripts/bench/compare.ts): which mode runs, in which order the runs go, and which
// figures are read from them, and how it ends on arguments it refuses. No load runs here.
import { describe, expect, it } from "vitest";
import { DEFAULT_ROUND_TRIPS_MS, parseBenchArgs, USAGE } from "../../scripts/bench/args";
import { interleavedPlan, type SideRun, sideBySide } from "../../scripts/bench/compare";
import {
  type RoundDeliveries,
  ratioTarget,
  roundDelivered,
} from "../../scripts/bench/webhook-figures";
import { offlineEnv } from "../../scripts/lib/wrangler";
import { runScript } from "./run-script";

describe("npm run bench's arguments", () => {
  it("runs the baselines without arguments", () => {
    expect(parseBenchArgs([])).toEqual({ mode: "baselines" });
  });

  it("reads --against with its ref as the next argument or after =", () => {
    expect(parseBenchArgs(["--against", "e815a5c"])).toEqual({ mode: "against", ref: "e815a5c" });
    expect(parseBenchArgs(["--against=main~2"])).toEqual({ mode: "against", ref: "main~2" });
  });

  it("refuses --against without a ref, or with one that could read as an option", () => {
    expect(() => parseBenchArgs(["--against"])).toThrow(/git revision/);
    expect(() => parseBenchArgs(["--against", "--upload-pack=x"])).toThrow(/git revision/);
    expect(() => parseBenchArgs(["--against=-x"])).toThrow(/git revision/);
    expect(() => parseBenchArgs(["--against=a b"])).toThrow(/git revision/);
  });

  it("reads --remote-d1's round trips, and takes 2,5,10 ms when none are given", () => {
    expect(parseBenchArgs(["--remote-d1"])).toEqual({
      mode: "remote-d1",
      roundTripsMs: DEFAULT_ROUND_TRIPS_MS,
    });
    expect(parseBenchArgs(["--remote-d1", "5"])).toEqual({ mode: "remote-d1", roundTripsMs: [5] });
    expect(parseBenchArgs(["--remote-d1=0,2.5, 10,10"])).toEqual({
      mode: "remote-d1",
      roundTripsMs: [0, 2.5, 10],
    });
  });

  it("refuses round trips that are not 0 to 100 ms, or more than four of them", () => {
    for (const list of ["abc", "-1", "5,", "101", "1e3", "1,2,3,4,5"])
      expect(() => parseBenchArgs([`--remote-d1=${list}`])).toThrow(/--remote-d1/);
  });

  it("reads --webhook, which takes no value", () => {
    expect(parseBenchArgs(["--webhook"])).toEqual({ mode: "webhook" });
    expect(() => parseBenchArgs(["--webhook=yes"])).toThrow(/--webhook takes no value/);
    expect(() => parseBenchArgs(["--webhook", "--remote-d1"])).toThrow(/one mode/);
  });

  it("reads --reads, which takes no value", () => {
    expect(parseBenchArgs(["--reads"])).toEqual({ mode: "reads" });
    expect(() => parseBenchArgs(["--reads=all"])).toThrow(/--reads takes no value/);
    expect(() => parseBenchArgs(["--reads", "--webhook"])).toThrow(/one mode/);
  });

  it("refuses two modes at once and unknown arguments, and answers --help", () => {
    expect(() => parseBenchArgs(["--against", "main", "--remote-d1"])).toThrow(/one mode/);
    expect(() => parseBenchArgs(["--fast"])).toThrow(/unknown argument "--fast"/);
    expect(() => parseBenchArgs(["main"])).toThrow(/unknown argument "main"/);
    expect(parseBenchArgs(["--help"])).toEqual({ mode: "help" });
  });

  it("stops on an unknown argument with status 2 by finishing, as every tool ends", () => {
    // runScript fails a script that ends by process.exit(), which can hang (scripts/lib/exit.ts).
    // A setting it would refuse too: the argument is judged first, and nothing after it.
    const refused = runScript("scripts/bench.ts", ["--fast"], {
      env: offlineEnv({ BENCH_DURATION: "abc" }),
    });
    expect([refused.status, refused.stderr.trim()]).toEqual([
      2,
      `unknown argument "--fast"\n${USAGE}`,
    ]);
    const help = runScript("scripts/bench.ts", ["--help"], { env: offlineEnv() });
    expect([help.status, help.stdout.trim()]).toEqual([0, USAGE]);
  });

  it("stops on a setting it refuses with status 1 and the setting's rule alone, no stack", () => {
    const refused = runScript("scripts/bench.ts", ["--against", "HEAD"], {
      env: offlineEnv({ BENCH_ROUNDS: "10" }),
    });
    expect([refused.status, refused.stderr.split("\n")[0]]).toEqual([1, "BENCH_ROUNDS: 1 to 9"]);
    expect(refused.stderr).not.toMatch(/^\s+at /m);
  });

  it("npm run profile:cpu stops on a setting it refuses with status 1 by finishing", () => {
    const env = { ...offlineEnv(), PROFILE_DURATION: "0" };
    const refused = runScript("scripts/profile-cpu.ts", [], { env });
    expect([refused.status, refused.stderr.trim()]).toEqual([
      1,
      "PROFILE_DURATION must be a positive number",
    ]);
  });

  it("npm run profile:cpu stops on a scenario it does not know with status 1, in a line naming them", () => {
    const refused = runScript("scripts/profile-cpu.ts", ["bogus"], { env: offlineEnv() });
    expect(refused.status, refused.stderr).toBe(1);
    expect(refused.stderr.trim()).toMatch(/^unknown scenario bogus: credits, .*balance-1-wallet/);
    expect(refused.stderr).not.toMatch(/^\s+at /m);
  });
});

describe("--against's plan", () => {
  it("runs every scenario on both sides each round, the first side alternating by round", () => {
    const plan = interleavedPlan(["credits", "balance"], 3);
    expect(plan.map((p) => `${p.round}:${p.scenario}:${p.side}`)).toEqual([
      "0:credits:tree",
      "0:credits:ref",
      "0:balance:tree",
      "0:balance:ref",
      "1:credits:ref",
      "1:credits:tree",
      "1:balance:ref",
      "1:balance:tree",
      "2:credits:tree",
      "2:credits:ref",
      "2:balance:tree",
      "2:balance:ref",
    ]);
  });
});

describe("--against's figures", () => {
  const run = (
    round: number,
    side: "tree" | "ref",
    reqPerSec: number,
    cpuMs: number | undefined,
    errors = 0,
  ): SideRun => ({
    round,
    scenario: "credits",
    side,
    reqPerSec,
    p50: reqPerSec / 10,
    p99: reqPerSec / 5,
    errors,
    cpuMs,
  });

  it("compares each side's medians over the rounds: req/s and CPU, tree ÷ ref", () => {
    const [row] = sideBySide([
      run(0, "tree", 110, 1.0),
      run(0, "ref", 100, 1.2),
      run(1, "tree", 90, 1.1),
      run(1, "ref", 100, 1.0),
      run(2, "tree", 130, 0.9),
      run(2, "ref", 50, 1.3),
    ]);
    expect(row!.tree).toMatchObject({ reqPerSec: 110, cpuMs: 1.0, p50: 11, errors: 0 });
    expect(row!.ref).toMatchObject({ reqPerSec: 100, cpuMs: 1.2 });
    expect(row!.reqPerSecRatio).toBeCloseTo(1.1);
    expect(row!.cpuRatio).toBeCloseTo(1.0 / 1.2);
    expect(row!.rounds).toBe(3);
    expect(row!.roundRatioRange).toEqual({ min: 0.9, max: 2.6 });
  });

  it("gives no ratio for a scenario that answered errors on either side", () => {
    const [row] = sideBySide([run(0, "tree", 110, 1.0), run(0, "ref", 100, 1.2, 3)]);
    expect(row!.ref.errors).toBe(3);
    expect(row!.reqPerSecRatio).toBeUndefined();
    expect(row!.cpuRatio).toBeUndefined();
  });

  it("leaves out runs without a CPU reading from the CPU median", () => {
    const [row] = sideBySide([
      run(0, "tree", 100, undefined),
      run(1, "tree", 100, 2),
      run(0, "ref", 100, 1),
    ]);
    expect(row!.tree.cpuMs).toBe(2);
    expect(row!.cpuRatio).toBe(2);
  });

  it("gives the worker's own workerd apart from the plumbing in front of it", () => {
    const [row] = sideBySide([
      { ...run(0, "tree", 100, 1.5), appCpuMs: 0.9, plumbingMs: 0.8, nodeMs: 0.2 },
      { ...run(1, "tree", 100, 1.6), appCpuMs: 1.1, plumbingMs: 0.7, nodeMs: 0.1 },
      { ...run(2, "tree", 100, 1.7), appCpuMs: 1.0, plumbingMs: undefined, nodeMs: undefined },
      { ...run(0, "ref", 100, 1.5), appCpuMs: 1.25, plumbingMs: 0.6, nodeMs: 0.05 },
    ]);
    expect(row!.tree).toMatchObject({ appCpuMs: 1.0, plumbingMs: 0.75 });
    expect(row!.tree.nodeMs).toBeCloseTo(0.15);
    expect(row!.ref).toMatchObject({ appCpuMs: 1.25, plumbingMs: 0.6, nodeMs: 0.05 });
    expect(row!.appCpuRatio).toBeCloseTo(0.8);
  });

  it("gives no app CPU ratio where a side's worker process was not found", () => {
    const [row] = sideBySide([
      { ...run(0, "tree", 100, 1.5), appCpuMs: 0.9 },
      { ...run(0, "ref", 100, 1.5), appCpuMs: undefined },
    ]);
    expect(row!.ref.appCpuMs).toBeNaN();
    expect(row!.appCpuRatio).toBeUndefined();
  });
});

describe("--webhook's figures", () => {
  const round: RoundDeliveries = {
    round: 0,
    answered200: 100,
    sent: 104,
    received: 102,
    distinct: 102,
    verified: 102,
    duringLoad: 60,
    drained: true,
    drainS: 2,
  };

  it("counts a round delivered when each applied credit's event arrived, signed, once by id", () => {
    expect(roundDelivered(round)).toBe(true);
    // A repeated delivery (same webhook-id) is allowed: at least once.
    expect(roundDelivered({ ...round, received: 103, verified: 103 })).toBe(true);
  });

  it("does not count a round that missed events, was not caught up, or failed a signature", () => {
    expect(roundDelivered({ ...round, distinct: 99 })).toBe(false);
    expect(roundDelivered({ ...round, distinct: 105 })).toBe(false);
    expect(roundDelivered({ ...round, drained: false })).toBe(false);
    expect(roundDelivered({ ...round, verified: 101 })).toBe(false);
  });

  it("meets the target at 0.9× and above, and never without a ratio", () => {
    expect(ratioTarget(0.9).met).toBe(true);
    expect(ratioTarget(0.89).met).toBe(false);
    expect(ratioTarget(0.89).value).toBe("0.89×");
    expect(ratioTarget(undefined)).toMatchObject({ met: false, value: "no ratio (errors)" });
  });

  it("reads with ÷ without from sideBySide, the endpoint's side named tree", () => {
    const run = (round: number, side: "tree" | "ref", reqPerSec: number): SideRun => ({
      round,
      scenario: "credits",
      side,
      reqPerSec,
      p50: 10,
      p99: 20,
      errors: 0,
      cpuMs: 1,
    });
    const [row] = sideBySide([
      run(0, "tree", 90),
      run(0, "ref", 100),
      run(1, "ref", 100),
      run(1, "tree", 95),
    ]);
    expect(ratioTarget(row!.reqPerSecRatio)).toMatchObject({ met: true, value: "0.93×" });
  });
});
