// The benches' server (scripts/lib/bench-worker.ts: the deploy bundle under Miniflare alone, which
// `npm run serve` runs too) stops on SIGTERM by disposing of Miniflare and letting its event loop
// end: process.exit(), its own or the one Miniflare's signal handlers call, can hang for good under
// load (scripts/lib/exit.ts).
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, expect, it } from "vitest";
import { adminAuth, type Server, startServer } from "../../scripts/lib/server";

const marks = mkdtempSync(path.join(tmpdir(), "wallet-bench-worker-test-"));
afterAll(() => rmSync(marks, { recursive: true, force: true }));

/**
 * A server whose bench worker writes its exit status to `finished` once its event loop runs dry,
 * which process.exit() skips (Node emits no 'beforeExit' for it): a preload in its node process.
 */
async function markedServer(finished: string) {
  const preload = `data:text/javascript,${encodeURIComponent(
    `import { writeFileSync } from "node:fs";
if (process.argv[1]?.endsWith("bench-worker.ts"))
  process.once("beforeExit", () => writeFileSync(${JSON.stringify(finished)}, String(process.exitCode ?? 0)));`,
  )}`;
  const options = process.env.NODE_OPTIONS;
  process.env.NODE_OPTIONS = `${options ?? ""} --import=${preload}`.trim();
  try {
    return await startServer({ wranglerDev: false });
  } finally {
    if (options === undefined) delete process.env.NODE_OPTIONS;
    else process.env.NODE_OPTIONS = options;
  }
}

/** The processes below `pid`, children first (Linux: /proc/<pid>/task/<pid>/children). */
const descendants = (pid: number): number[] =>
  readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8")
    .split(" ")
    .filter((id) => id.trim() !== "")
    .flatMap((id) => [Number(id), ...descendants(Number(id))]);

it("stops on SIGTERM by ending its event loop, never by process.exit()", {
  timeout: 180_000,
}, async () => {
  const finished = path.join(marks, "finished");
  const server = await markedServer(finished);
  try {
    expect((await fetch(`${server.base}/health`)).status).toBe(200);
  } finally {
    await server.stop(); // SIGTERM to its process group; SIGKILL after 10 s
  }
  expect(existsSync(finished), "the bench worker's event loop ran dry").toBe(true);
  expect(readFileSync(finished, "utf8")).toBe("0");
});

it("stops so when the worker's process gets no CPU for a while (a loaded machine)", {
  timeout: 180_000,
}, async () => {
  const finished = path.join(marks, "finished-late");
  const server = await markedServer(finished);
  // The node process that runs bench-worker.ts, the deepest of the server's (a launcher that runs
  // it in a child of its own must leave it to stop as it does).
  const worker = [server.child.pid!, ...descendants(server.child.pid!)]
    .filter((pid) => readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("bench-worker.ts"))
    .at(-1)!;
  // Stopped, it takes the SIGTERM only once it runs on, half a second later.
  process.kill(worker, "SIGSTOP");
  const resumed = setTimeout(() => process.kill(worker, "SIGCONT"), 500);
  try {
    await server.stop();
  } finally {
    clearTimeout(resumed);
    try {
      process.kill(worker, "SIGCONT");
    } catch {
      // gone
    }
  }
  expect(existsSync(finished), "the bench worker's event loop ran dry").toBe(true);
  expect(readFileSync(finished, "utf8")).toBe("0");
});

it("starts again over a kept state with what the first server wrote", {
  timeout: 180_000,
}, async () => {
  const first = await startServer({ wranglerDev: false });
  const wallets = async (server: Server) => {
    const res = await fetch(`${server.api}/wallets`, {
      headers: { Authorization: await adminAuth(server.api) },
    });
    return ((await res.json()) as { data: { wallet_id: string }[] }).data.map((w) => w.wallet_id);
  };
  let again: Server | undefined;
  try {
    const made = await fetch(`${first.api}/wallets`, {
      method: "POST",
      headers: { Authorization: await adminAuth(first.api), "Content-Type": "application/json" },
      body: JSON.stringify({ wallet_id: "kept", wallet_name: "Kept", wallet_symbol: "K" }),
    });
    expect(made.status, await made.text()).toBe(200);
    await first.stop({ keepState: true });
    // A bench's second pass, over the state its first server left.
    again = await startServer({ persistTo: first.stateDir, wranglerDev: false });
    expect(await wallets(again)).toContain("kept");
  } finally {
    await first.stop();
    await again?.stop();
    rmSync(first.stateDir, { recursive: true, force: true });
  }
});
