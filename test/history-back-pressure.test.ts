// GET /transactions without paging streams the whole history (src/http/envelope.ts streamJson): the
// next chunk is read from D1 only once the reader has taken the one before, so a slow client holds
// the Worker to a chunk or two of memory however long the history is (the heap
// measured in BENCHMARKS.md#memory-of-the-history-stream). Counted, not timed: the D1 reads made
// while the reader holds back. A reader that slow keeps its one-at-a-time turn (the history gate)
// as long as it goes on reading.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { HISTORY_CHUNK } from "../src/db/ledger";
import { HISTORY_LEASE_MS } from "../src/throttle/history-gate";
import { countingD1 } from "./d1-counter";
import { API, appendHistory, call, makeAccount, testApp } from "./helpers";

/** Reads the stream may make ahead of its reader: the one chunk its queue holds. */
const READ_AHEAD = 1;
/**
 * Read in chunks of 500, 1,000, 2,000 and the 1,493 left (each read asks for twice the one before:
 * db/client.ts keysetChunks), the last short, so no empty read ends it.
 */
const CHUNKS = 4;
const ENTRIES = 500 + 1_000 + 2_000 + 1_493;

/** A whole history of CHUNKS chunks and its answer, read through a D1 binding that counts calls. */
async function openHistory() {
  const { admin, user, wallet } = await makeAccount();
  await appendHistory(user.id, wallet, ENTRIES);
  const counter = countingD1();
  const res = await testApp().request(
    `${API}/transactions?security_code=1&user_id=${user.id}`,
    { headers: { Authorization: admin.bearer } },
    { ...env, DB: counter.db },
  );
  expect(res.status).toBe(200);
  // From here on the stream's only D1 calls are its chunk reads (the first came with the checks).
  const atAnswer = counter.cost.roundTrips;
  return { reader: res.body!.getReader(), chunkReads: () => counter.cost.roundTrips - atAnswer };
}

/**
 * Gives a stream that reads ahead of its reader every chance to: round trips of the test's own to
 * the same local D1, which answers in order, so a read loop running on its own would have made
 * reads meanwhile.
 */
async function letItRunAhead() {
  for (let i = 0; i < 5; i++) await env.DB.prepare("SELECT 1").first();
}

describe("GET /transactions: a whole history is read from D1 only as fast as its reader takes it", () => {
  it("while the reader holds the first chunk, at most one more chunk has been read, of four", async () => {
    const { reader, chunkReads } = await openHistory();
    const opening = new TextDecoder().decode((await reader.read()).value);
    expect(opening).toBe(
      '{"status_code":200,"status":true,"message":"Txns Retrieved Successful","data":[',
    );
    await reader.read(); // the first chunk: read from D1 with the checks, before the answer began
    await letItRunAhead();
    expect(chunkReads()).toBeLessThanOrEqual(READ_AHEAD);
    await reader.cancel();
  });

  it("each chunk taken lets one more be read, and the whole answer is every entry in order", async () => {
    const { reader, chunkReads } = await openHistory();
    const decoder = new TextDecoder();
    let text = decoder.decode((await reader.read()).value, { stream: true });
    let taken = 0;
    for (let r = await reader.read(); !r.done; r = await reader.read()) {
      text += decoder.decode(r.value, { stream: true });
      taken++;
      await letItRunAhead();
      // `taken` chunks and the closing bracket at most; the first chunk came with the checks.
      expect(chunkReads()).toBeLessThanOrEqual(taken - 1 + READ_AHEAD);
    }
    expect(chunkReads()).toBe(CHUNKS - 1);
    const ids = (JSON.parse(text) as { data: { ID: number }[] }).data.map((row) => row.ID);
    expect(ids).toHaveLength(ENTRIES);
    expect(ids).toStrictEqual([...ids].sort((a, b) => b - a));
  });

  it("a reader that drops the answer after the first chunk stops the reads", async () => {
    const { reader, chunkReads } = await openHistory();
    await reader.read();
    await reader.read();
    await reader.cancel();
    const afterCancel = chunkReads();
    await letItRunAhead();
    expect(chunkReads()).toBe(afterCancel);
  });
});

describe("GET /transactions: a slow reader keeps its turn at the history gate", () => {
  for (const order of ["asc", "desc"] as const)
    it(`a whole history read ${order} in chunks holds each entry once, in order, to the last`, async () => {
      const { admin, user, wallet } = await makeAccount();
      const entries = 2 * HISTORY_CHUNK + 3;
      await appendHistory(user.id, wallet, entries);
      const res = await call("GET", "/transactions", {
        auth: admin.bearer,
        query: { security_code: 1, user_id: user.id, order },
      });
      expect(res.status).toBe(200);
      const ids = (res.body.data as { ID: number }[]).map((e) => e.ID);
      // Dated a second apart, in id order: each chunk goes on from the row after the last one.
      const sorted = [...new Set(ids)].sort((a, b) => (order === "asc" ? a - b : b - a));
      expect(ids).toEqual(sorted);
      expect(ids).toHaveLength(entries);
    });

  it("a whole history still being read past the gate's lease keeps a second one of the caller at 429, and the turn ends with it", async () => {
    const { user, wallet } = await makeAccount();
    // Chunks of 500, 1,000 and 2,000, the last full: the stream is still under way (one more read,
    // an empty one, ends it) once the reader has taken the second.
    const entries = 500 + 1_000 + 2_000;
    await appendHistory(user.id, wallet, entries);
    let nowMs = Date.UTC(2031, 0, 1);
    const app = testApp({ nowMs: () => nowMs });
    const whole = () =>
      app.request(
        `${API}/transactions?security_code=1&user_id=${user.id}`,
        { headers: { Authorization: user.bearer } },
        env,
      );
    const res = await whole();
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let text = "";
    const take = async () => {
      const r = await reader.read();
      if (!r.done) text += decoder.decode(r.value, { stream: true });
      return r.done;
    };
    await take(); // the opening
    nowMs += HISTORY_LEASE_MS / 2;
    await take(); // the first chunk; the next one is read now, and the lease renewed with it
    await take();
    nowMs += HISTORY_LEASE_MS / 2 + 1; // past the first lease
    const second = await whole();
    expect(second.status).toBe(429);
    await second.text();
    while (!(await take()));
    expect(JSON.parse(text).data).toHaveLength(entries);
    const after = await call("GET", "/transactions", {
      app,
      auth: user.bearer,
      query: { security_code: 1, user_id: user.id },
    });
    expect(after.status).toBe(200);
    expect(after.body.data).toHaveLength(entries);
  });
});
