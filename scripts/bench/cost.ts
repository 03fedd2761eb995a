// What a request costs beside its speed: the worker's CPU time (read from /proc for the server's
// process group) and its D1 statements and rows (from the request log line each request writes,
// src/db/meter.ts).
import { execFileSync } from "node:child_process";
import { readdirSync, readlinkSync } from "node:fs";
import { groupProcesses } from "../lib/process-group";

const TICKS_PER_S = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim());

/** Whether process `pid` has a file open under `dir` (false when /proc will not say). */
function holdsFilesUnder(pid: string, dir: string) {
  try {
    return readdirSync(`/proc/${pid}/fd`).some((fd) => {
      try {
        return readlinkSync(`/proc/${pid}/fd/${fd}`).startsWith(`${dir}/`);
      } catch {
        return false; // closed meanwhile
      }
    });
  } catch {
    return false;
  }
}

/**
 * CPU seconds (user + system, all threads) used so far by the processes of group `pgid`: the
 * workerd processes, the whole group (its Node process included) and, given the server's state
 * folder, `app`: the workerd that runs the worker and its local D1, the one holding files under
 * `stateDir` open (absent when none does). Under `wrangler dev` (BENCH_DEVTOOLS=1) the group has
 * another workerd, wrangler's proxy in front of the worker, which a deployed Worker does not have.
 */
export function groupCpuSeconds(pgid: number, stateDir?: string) {
  const cpu: { workerd: number; all: number; app?: number } = { workerd: 0, all: 0 };
  for (const { pid, comm, fields } of groupProcesses(pgid)) {
    const seconds = (Number(fields[11]) + Number(fields[12])) / TICKS_PER_S; // utime, stime
    cpu.all += seconds;
    if (comm !== "workerd") continue;
    cpu.workerd += seconds;
    if (stateDir !== undefined && holdsFilesUnder(pid, stateDir))
      cpu.app = (cpu.app ?? 0) + seconds;
  }
  return cpu;
}

/**
 * CPU milliseconds per request between two readings of `groupCpuSeconds`: `app` is the worker with
 * its local D1 (undefined unless both readings found it), `group` everything the server runs.
 */
export const cpuMsPerRequest = (
  before: ReturnType<typeof groupCpuSeconds>,
  after: ReturnType<typeof groupCpuSeconds>,
  requests: number,
) => ({
  workerd: ((after.workerd - before.workerd) * 1000) / requests,
  app:
    before.app === undefined || after.app === undefined
      ? undefined
      : ((after.app - before.app) * 1000) / requests,
  group: ((after.all - before.all) * 1000) / requests,
});

/** The D1 fields of a request log line (src/app.ts). */
export type RequestCost = {
  route: string | null;
  status: number;
  d1_statements: number;
  d1_rows_read: number;
  d1_rows_written: number;
  d1_round_trips: number;
};

/** Reads the request log lines out of a server's stdout, chunk by chunk. */
export function requestLogReader(into: RequestCost[]) {
  let pending = "";
  return (chunk: Buffer | string) => {
    const lines = (pending + chunk).split("\n");
    pending = lines.pop() ?? "";
    for (const line of lines) {
      const at = line.indexOf('{"request_id"');
      if (at === -1) continue;
      try {
        const { route, status, d1_statements, d1_rows_read, d1_rows_written, d1_round_trips } =
          JSON.parse(line.slice(at)) as RequestCost;
        into.push({
          route,
          status,
          d1_statements,
          d1_rows_read,
          d1_rows_written,
          d1_round_trips,
        });
      } catch {
        // a line cut by the runtime: not counted
      }
    }
  };
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

/** Medians of the D1 fields over a scenario's log lines, with their ranges. */
export function d1Medians(lines: RequestCost[]) {
  const field = (name: "d1_statements" | "d1_rows_read" | "d1_rows_written" | "d1_round_trips") => {
    const values = lines.map((l) => l[name]);
    return { median: median(values), min: Math.min(...values), max: Math.max(...values) };
  };
  return {
    requests: lines.length,
    statements: field("d1_statements"),
    rowsRead: field("d1_rows_read"),
    rowsWritten: field("d1_rows_written"),
    /** The mean: under group commit one credit in a batch makes the round trip for all of it. */
    roundTrips: lines.reduce((n, l) => n + l.d1_round_trips, 0) / lines.length,
  };
}
