// A whole history (GET /transactions unpaged) and a CSV statement are read from D1 a chunk at a
// time (db/client.ts keysetChunks), and Workers Paid allows one invocation 1,000 D1 queries: the
// chunks grow from the first (500 rows, so the first bytes come soon) to a cap, so that over a
// million entries fit in D1_CALL_BUDGET reads, and a whole read that would need more is refused
// before its first byte, not cut off after its 200.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { D1_CALL_BUDGET, keysetRowsWithin } from "../src/db/client";
import { HISTORY_CHUNK } from "../src/db/ledger";
import { WHOLE_READ_MAX } from "../src/wallet/transactions";
import wranglerToml from "../wrangler.toml?raw";
import { countingD1, wrappedD1 } from "./d1-counter";
import { API, appendHistory, call, makeAccount, testApp } from "./helpers";

const ENTRIES = 5_000;

/**
 * CPU a whole read spent an entry, in µs: the runtime (the worker with local D1) over a stream of
 * 200,000 entries (npm run bench:heap, BENCHMARKS.md#memory-of-the-history-stream). More than the
 * Worker's own share; Cloudflare's CPUs differ, hence the margin asked for below.
 */
const MEASURED_CPU_US_PER_ENTRY = 29.7;

/** An answer's body as the pieces its stream gave, one per chunk read (envelope.ts pulledBody). */
async function pieces(res: Response) {
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  const out: string[] = [];
  for (let r = await reader.read(); !r.done; r = await reader.read())
    out.push(decoder.decode(r.value, { stream: true }));
  return out;
}

/** `request` through a D1 binding that counts round trips: its answer and the round trips it made. */
async function counted(path: string, auth: string) {
  const counter = countingD1();
  const res = await testApp().request(
    `${API}${path}`,
    { headers: { Authorization: auth } },
    { ...env, DB: counter.db },
  );
  expect(res.status).toBe(200);
  const body = await pieces(res);
  return { body, roundTrips: counter.cost.roundTrips };
}

describe("a whole read grows its chunks", () => {
  it("a history of 5,000 entries is read as 500, 1,000, 2,000 and the 1,500 left, in order", async () => {
    const { admin, user, wallet } = await makeAccount();
    await appendHistory(user.id, wallet, ENTRIES);
    const { body, roundTrips } = await counted(
      `/transactions?security_code=1&user_id=${user.id}`,
      admin.bearer,
    );
    // The opening and the closing are pieces of their own; each piece between is one chunk.
    const chunks = body.slice(1, -1).map((piece) => piece.split('"post_type":').length - 1);
    expect(chunks).toEqual([500, 1_000, 2_000, 1_500]);
    const ids = (JSON.parse(body.join("")) as { data: { ID: number }[] }).data.map((e) => e.ID);
    expect(ids).toHaveLength(ENTRIES);
    expect(new Set(ids).size).toBe(ENTRIES);
    expect(ids).toStrictEqual([...ids].sort((a, b) => b - a));
    // Four reads where chunks of 500 made eleven (ten, and an empty one after the last full).
    expect(roundTrips).toBeLessThan(ENTRIES / HISTORY_CHUNK + 1);
  });

  it("a CSV statement of 5,000 entries grows its chunks alike, its rows in the chain's order", async () => {
    const { admin, user, wallet } = await makeAccount();
    await appendHistory(user.id, wallet, ENTRIES);
    const { body, roundTrips } = await counted(
      `/statements?user_id=${user.id}&wallet_id=${wallet}&format=csv`,
      admin.bearer,
    );
    const lines = (piece: string) => piece.split("\r\n").filter((l) => l !== "");
    // The header line is a piece of its own; then one piece per chunk.
    expect(body.slice(1).map((piece) => lines(piece).length)).toEqual([500, 1_000, 2_000, 1_500]);
    const balances = body
      .slice(1)
      .flatMap(lines)
      .map((line) => line.split(",")[5]);
    // appendHistory credits 0.01 each: the balance after the n-th is n cents.
    expect(balances).toEqual(Array.from({ length: ENTRIES }, (_, i) => ((i + 1) / 100).toFixed(2)));
    expect(roundTrips).toBeLessThan(ENTRIES / HISTORY_CHUNK + 1);
  });

  it("the ceiling, 1,597,499 entries, is what the budget of reads holds, well under 1,000 queries", () => {
    expect(D1_CALL_BUDGET).toBeLessThanOrEqual(800);
    expect(WHOLE_READ_MAX).toBe(keysetRowsWithin(HISTORY_CHUNK, D1_CALL_BUDGET));
    expect(WHOLE_READ_MAX).toBe(1_597_499);
  });

  it("the ceiling's stream fits twice over in the CPU time wrangler.toml gives a request", () => {
    // Past its CPU time (30 s unless [limits] cpu_ms says more, 5 minutes at most) a stream is cut
    // off after its 200, as past its D1 queries.
    const cpuMs = Number(/^\[limits\]\ncpu_ms = (\d+)$/m.exec(wranglerToml)?.[1]);
    expect(cpuMs).toBeLessThanOrEqual(300_000);
    expect(cpuMs).toBeGreaterThanOrEqual((2 * WHOLE_READ_MAX * MEASURED_CPU_US_PER_ENTRY) / 1000);
  });
});

/** env.DB whose whole-read totals (a history's count, a statement's) say `n`. */
function countingAs(n: number) {
  return wrappedD1(async (statements, send) => {
    const results = await send();
    statements.forEach((s, i) => {
      const sql = (s as unknown as { statement: string }).statement;
      const row = results[i]?.results[0] as Record<string, unknown> | undefined;
      if (!row) return;
      if (/^select count\(\*\), max\(/i.test(sql)) row[Object.keys(row)[0]!] = n;
      else if (/count\(\*\) as "n"/i.test(sql)) row.n = n;
    });
    return results;
  });
}

describe("a whole read past the ceiling", () => {
  it("is refused before its first byte, naming per_page: a history", async () => {
    const { admin, user, wallet } = await makeAccount();
    await appendHistory(user.id, wallet, 3);
    const query = { security_code: 1, user_id: user.id };
    const over = await call("GET", "/transactions", {
      auth: admin.bearer,
      query,
      d1: countingAs(WHOLE_READ_MAX + 1),
    });
    expect(over.status).toBe(400);
    expect(over.body).toEqual({
      status_code: 400,
      status: false,
      message: "invalid input",
      error: {
        per_page: `a whole history sends at most ${WHOLE_READ_MAX.toLocaleString("en-US")} entries: page with per_page (1-100) and page`,
      },
    });
    const at = await call("GET", "/transactions", {
      auth: admin.bearer,
      query,
      d1: countingAs(WHOLE_READ_MAX),
    });
    expect(at.status).toBe(200);
  });

  it("is refused before its first byte, naming format: a CSV statement", async () => {
    const { admin, user, wallet } = await makeAccount();
    await appendHistory(user.id, wallet, 3);
    const over = await call("GET", "/statements", {
      auth: admin.bearer,
      query: { user_id: user.id, wallet_id: wallet, format: "csv" },
      d1: countingAs(WHOLE_READ_MAX + 1),
    });
    expect(over.status).toBe(400);
    expect(over.body.error).toEqual({
      format: `a CSV statement sends at most ${WHOLE_READ_MAX.toLocaleString("en-US")} entries: narrow from and to, or page the JSON with per_page and page`,
    });
  });
});
