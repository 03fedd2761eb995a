// A server's whole process group (its Node process and the workerd it starts) as Linux's /proc
// shows it: its live processes, and the disk writes they made (/proc/<pid>/io), what a scenario
// cost in storage beside what it cost in time (CPU time: cost.ts).
import { readFileSync } from "node:fs";
import { groupProcesses } from "../lib/process-group";

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
