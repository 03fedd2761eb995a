// A process group as Linux's /proc shows it: the processes a server started (its Node process, the
// wrangler and workerd it runs), for the tools that stop them and the benches that measure them.
import { readdirSync, readFileSync } from "node:fs";

/**
 * The live processes of process group `pgid`: each one's name and its /proc/<pid>/stat fields from
 * the state on (`fields[0]` is the state, `fields[2]` the group). Throws without /proc.
 */
export function groupProcesses(pgid: number) {
  const found: { pid: string; comm: string; fields: string[] }[] = [];
  for (const pid of readdirSync("/proc")) {
    if (!/^\d+$/.test(pid)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    } catch {
      continue; // exited meanwhile
    }
    // `pid (comm) state ppid pgrp ...`: comm may hold spaces, so fields are counted after its ")"
    const close = stat.lastIndexOf(")");
    const fields = stat.slice(close + 2).split(" ");
    if (Number(fields[2]) === pgid)
      found.push({ pid, comm: stat.slice(stat.indexOf("(") + 1, close), fields });
  }
  return found;
}
