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
const finished = path.join(marks, "finished");
afterAll(() => rmSync(marks, { recursive: true, force: true }));

/**
 * Preloaded into the server's node processes: the bench worker writes its exit status to a file
 * once its event loop runs dry, which process.exit() skips (Node emits no 'beforeExit' for it).
 */
const FINISHED = `data:text/javascript,${encodeURIComponent(
  `import { writeFileSync } from "node:fs";
if (process.argv[1]?.endsWith("bench-worker.ts"))
  process.once("beforeExit", () => writeFileSync(${JSON.stringify(finished)}, String(process.exitCode ?? 0)));`,
)}`;

it("stops on SIGTERM by ending its event loop, never by process.exit()", {
  timeout: 180_000,
}, async () => {
  const options = process.env.NODE_OPTIONS;
  process.env.NODE_OPTIONS = `${options ?? ""} --import=${FINISHED}`.trim();
  let server: Server;
  try {
    server = await startServer({ wranglerDev: false });
  } finally {
    if (options === undefined) delete process.env.NODE_OPTIONS;
    else process.env.NODE_OPTIONS = options;
  }
  try {
    expect((await fetch(`${server.base}/health`)).status).toBe(200);
  } finally {
    await server.stop(); // SIGTERM to its process group; SIGKILL after 10 s
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
