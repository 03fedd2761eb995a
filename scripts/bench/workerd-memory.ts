// The memory of a `wrangler dev` server's workerd processes, from Linux's /proc: the runtime that
// runs the worker and local D1 (SQLite, and D1's own isolate), and the proxy wrangler puts in front
// of it (it listens on the server's port and passes every answer through). Also the runtime's own
// inspector, which lists every isolate in it (wrangler's inspector shows only the worker's).
import { readdirSync, readFileSync, readlinkSync, statSync } from "node:fs";
import { join } from "node:path";
import { groupProcesses } from "../lib/process-group";
import type { Server } from "../lib/server";

const workerds = (server: Server) =>
  groupProcesses(server.child.pid!)
    .filter(({ comm }) => comm === "workerd")
    .map(({ pid }) => {
      const args = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
      const proxy = args.includes(`--socket-addr=entry=127.0.0.1:${server.port}`);
      return { pid, role: proxy ? ("proxy" as const) : ("runtime" as const), args };
    });

/**
 * Resident bytes of each workerd process now, of it the anonymous (allocated) and the file-backed
 * (mapped files: the binary, SQLite's database) pages, and the most it ever held (VmHWM).
 */
export function workerdMemory(server: Server) {
  const sum = {
    runtime: { rss: 0, anon: 0, file: 0, peak: 0 },
    proxy: { rss: 0, anon: 0, file: 0, peak: 0 },
  };
  for (const { pid, role } of workerds(server)) {
    try {
      const status = readFileSync(`/proc/${pid}/status`, "utf8");
      const kB = (field: string) =>
        Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? 0) * 1024;
      sum[role].rss += kB("VmRSS");
      sum[role].anon += kB("RssAnon");
      sum[role].file += kB("RssFile");
      sum[role].peak += kB("VmHWM");
    } catch {
      // exited meanwhile
    }
  }
  return sum;
}

/** TCP ports (IPv4) process `pid` listens on. */
function listeningPorts(pid: string) {
  const inodes = new Set<string>();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const socket = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (socket) inodes.add(socket[1]!);
    } catch {
      // closed meanwhile
    }
  }
  const ports: number[] = [];
  for (const line of readFileSync(`/proc/${pid}/net/tcp`, "utf8").split("\n").slice(1)) {
    const f = line.trim().split(/\s+/);
    if (f[3] === "0A" && inodes.has(f[9] ?? ""))
      ports.push(Number.parseInt(f[1]!.split(":")[1]!, 16));
  }
  return ports;
}

/**
 * The port of the runtime's own inspector (`--inspector-addr`, on a port of its choosing) that lists
 * `target` (local D1's isolate is `d1:db`), or null.
 */
export async function runtimeInspectorPort(server: Server, target: string) {
  for (const { pid, role, args } of workerds(server)) {
    if (role !== "runtime" || !args.some((a) => a.startsWith("--inspector-addr"))) continue;
    for (const port of listeningPorts(pid)) {
      try {
        const res = await fetch(`http://127.0.0.1:${port}/json`, {
          signal: AbortSignal.timeout(2_000),
        });
        const list = (await res.json()) as { id: string }[];
        if (Array.isArray(list) && list.some((t) => t.id === target)) return port;
      } catch {
        // not an inspector
      }
    }
  }
  return null;
}

/** Bytes of local D1's SQLite files (database, WAL) under a server's state folder. */
export function databaseBytes(stateDir: string) {
  let bytes = 0;
  const d1 = join(stateDir, "v3", "d1");
  for (const entry of readdirSync(d1, { recursive: true, withFileTypes: true }))
    if (entry.isFile() && /\.sqlite(-wal)?$/.test(entry.name))
      bytes += statSync(join(entry.parentPath, entry.name)).size;
  return bytes;
}
