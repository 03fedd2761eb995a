// Disk writes of a server's whole process group (wrangler and the workerd it starts), from Linux's
// /proc/<pid>/io: what a scenario cost in storage, beside what it cost in time. Zeros elsewhere.
import { readdirSync, readFileSync } from "node:fs";

export type GroupIo = { writeBytes: number; writeCalls: number };

/** The sum of write_bytes and syscw over the live processes of process group `pgid`. */
export function groupIo(pgid: number): GroupIo {
  const total: GroupIo = { writeBytes: 0, writeCalls: 0 };
  let pids: string[] = [];
  try {
    pids = readdirSync("/proc").filter((name) => /^\d+$/.test(name));
  } catch {
    return total; // no /proc
  }
  for (const pid of pids) {
    try {
      // the process group is the 5th field, after "(comm)", which may itself hold spaces
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      if (Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[2]) !== pgid) continue;
      const io = readFileSync(`/proc/${pid}/io`, "utf8");
      total.writeBytes += Number(/^write_bytes: (\d+)/m.exec(io)?.[1] ?? 0);
      total.writeCalls += Number(/^syscw: (\d+)/m.exec(io)?.[1] ?? 0);
    } catch {
      // gone, or not ours to read
    }
  }
  return total;
}
