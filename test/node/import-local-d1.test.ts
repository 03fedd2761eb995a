// The import's local D1 (Miniflare in the CLI's own process) after a long planning pass: the runtime
// closes a connection idle for about 15 s, and a process whose event loop was busy for longer does
// not see the close before its next request. A 1,000,000-transaction import failed at its first
// chunk so (`fetch failed`, EPIPE), every time it was run again.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, expect, it } from "vitest";
import { LocalD1 } from "../../scripts/import/d1";

const root = mkdtempSync(path.join(tmpdir(), "wallet-local-d1-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

it("answers after the event loop was blocked past the runtime's idle timeout", async () => {
  const d1 = await LocalD1.open({ persistTo: root });
  try {
    expect(await d1.queries(["SELECT 1 AS x"])).toEqual([[{ x: 1 }]]);
    // Planning as the CLI plans: the thread busy (here blocked, without burning a core) for 20 s.
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20_000);
    expect(await d1.queries(["SELECT 2 AS x"])).toEqual([[{ x: 2 }]]);
  } finally {
    await d1.close();
  }
}, 60_000);
