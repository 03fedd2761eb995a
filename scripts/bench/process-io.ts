// A server's whole process group (its Node process and the workerd it starts) as Linux's /proc
// shows it: its live processes, and the disk writes they made (/proc/<pid>/io), what a scenario
// cost in storage beside what it cost in time (CPU time: cost.ts).
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

export type GroupIo = { writeBytes: number; writeCalls: number };

/** The sum of write_bytes and syscw over the live processes of process group `pgid`; zeros elsewhere. */
export function groupIo(pgid: number): GroupIo {
  const total: GroupIo = { writeBytes: 0, writeCalls: 0 };
  let processes: ReturnType<typeof groupProcesses> = [];
  try {
    processes = groupProcesses(pgid);
  } catch {
    return total; // no /proc
  }
  for (const { pid } of processes) {
    try {
      const io = readFileSync(`/proc/${pid}/io`, "utf8");
      total.writeBytes += Number(/^write_bytes: (\d+)/m.exec(io)?.[1] ?? 0);
      total.writeCalls += Number(/^syscw: (\d+)/m.exec(io)?.[1] ?? 0);
    } catch {
      // gone, or not ours to read
    }
  }
  return total;
}
