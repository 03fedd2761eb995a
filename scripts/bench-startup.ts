// The Worker's start-up: the CPU its bundle costs before the first request, from
// `wrangler check startup` (a CPU profile of workerd loading the bundle, run locally), and the
// bundle's size as `wrangler deploy --dry-run` writes it, raw and gzipped. Prints the figures; the
// profile is local: Cloudflare's CPUs differ, so the ratio to the 100 ms goal is what it tells.
//   npm run bench:startup [-- --runs 7]
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { gzipSync } from "node:zlib";
import { wrangler } from "./lib/wrangler";

type Profile = {
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number } }[];
  samples: number[];
  timeDeltas: number[];
};

const runs = Number(process.argv[process.argv.indexOf("--runs") + 1]) || 5;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** Milliseconds of CPU per function name (`(program)` is V8 parsing and compiling), idle left out. */
function cpuByFunction(profile: Profile) {
  const nodes = new Map(profile.nodes.map((n) => [n.id, n.callFrame]));
  const ms = new Map<string, number>();
  profile.samples.forEach((id, i) => {
    const frame = nodes.get(id)!;
    if (frame.functionName === "(idle)") return;
    const name = frame.functionName || "(top level of the bundle)";
    ms.set(name, (ms.get(name) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000);
  });
  return ms;
}

const dir = mkdtempSync(path.join(tmpdir(), "startup-"));
try {
  const totals: number[] = [];
  const byFunction = new Map<string, number[]>();
  for (let run = 0; run < runs; run++) {
    const outfile = path.join(dir, `run-${run}.cpuprofile`);
    wrangler(["check", "startup", "--outfile", outfile], { quiet: true });
    const ms = cpuByFunction(JSON.parse(readFileSync(outfile, "utf8")) as Profile);
    totals.push([...ms.values()].reduce((a, b) => a + b, 0));
    for (const [name, t] of ms) byFunction.set(name, [...(byFunction.get(name) ?? []), t]);
  }
  wrangler(["deploy", "--dry-run", "--outdir", path.join(dir, "dist")], { quiet: true });
  const bundle = path.join(dir, "dist", "index.js");
  const raw = statSync(bundle).size;
  const gzipped = gzipSync(readFileSync(bundle), { level: 9 }).length;
  const others = readdirSync(path.join(dir, "dist")).filter((f) => f !== "index.js");

  console.log(`start-up CPU (wrangler check startup, ${runs} runs, sampled, idle left out):`);
  console.log(
    `  median ${median(totals).toFixed(1)} ms, min ${Math.min(...totals).toFixed(1)}, max ${Math.max(...totals).toFixed(1)} (goal: under 100 ms)`,
  );
  console.log("  where it goes (median ms over the runs, the largest first):");
  const rows = [...byFunction]
    .map(([name, ts]) => [name, median([...ts, ...Array(runs - ts.length).fill(0)])] as const)
    .sort((a, b) => b[1] - a[1])
    .slice(0, 8);
  for (const [name, t] of rows) console.log(`    ${t.toFixed(1).padStart(6)}  ${name}`);
  console.log(
    `bundle: ${(raw / 1024).toFixed(1)} KiB, ${(gzipped / 1024).toFixed(1)} KiB gzipped (-9)${others.length ? `; also ${others.join(", ")}` : ""}`,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
