// The latency model behind `npm run bench -- --remote-d1` (bench/remote-d1/model.ts): which
// statements count as writes, and how the one writer orders them. Times are the model's own
// arithmetic, handed in; nothing here waits or measures.
import { describe, expect, it } from "vitest";
import { RemoteD1Model, SingleWriter, writes } from "../../bench/remote-d1/model";

describe("which statements write", () => {
  it("counts selects (as drizzle and the app write them) as reads", () => {
    expect(writes('select "id", "name" from "wallets" where "wallets"."id" = ?')).toBe(false);
    expect(writes("  SELECT 1")).toBe(false);
    expect(writes("-- a comment\n/* another */ select 1")).toBe(false);
    expect(writes("WITH t AS (SELECT 1) SELECT * FROM t")).toBe(false);
    expect(writes("values (1)")).toBe(false);
  });

  it("counts inserts, updates, deletes and everything else as writes", () => {
    expect(writes("insert into transactions (a) select ? where not exists (select 1)")).toBe(true);
    expect(writes("UPDATE balances SET x = 1")).toBe(true);
    expect(writes("delete from sessions where id = ?")).toBe(true);
    expect(writes("WITH t AS (SELECT 1) INSERT INTO x SELECT * FROM t")).toBe(true);
    expect(writes("CREATE TABLE x (a)")).toBe(true);
  });
});

describe("the one writer", () => {
  it("serves writes one after another in arrival order, each for its hold", () => {
    const writer = new SingleWriter();
    expect(writer.reserve(0, 5)).toEqual({ startMs: 0, endMs: 5 });
    expect(writer.reserve(0, 5)).toEqual({ startMs: 5, endMs: 10 });
    expect(writer.reserve(1, 5)).toEqual({ startMs: 10, endMs: 15 });
    expect(writer.reserve(12, 5)).toEqual({ startMs: 15, endMs: 20 });
  });

  it("starts a write at once when the writer is idle", () => {
    const writer = new SingleWriter();
    writer.reserve(0, 5);
    expect(writer.reserve(30, 5)).toEqual({ startMs: 30, endMs: 35 });
  });
});

describe("the remote D1 model", () => {
  it("makes a read wait its round trip only, whatever the writer is doing", () => {
    const model = new RemoteD1Model(5);
    model.delayMs(0, 2);
    model.delayMs(0, 2);
    expect(model.delayMs(0, 0)).toBe(5);
    expect(model.stats).toMatchObject({ reads: 1, writes: 2, writeStatements: 4 });
  });

  it("makes a write wait for the writer, then its round trip, and counts the queue", () => {
    const model = new RemoteD1Model(5);
    expect([0, 0, 0].map(() => model.delayMs(0, 2))).toEqual([5, 10, 15]);
    expect(model.stats).toEqual({
      reads: 0,
      writes: 3,
      writeStatements: 6,
      writerQueueMs: 0 + 5 + 10,
      writerBusyMs: 15,
    });
  });

  it("adds no wait at a round trip of 0 and refuses a negative one", () => {
    const model = new RemoteD1Model(0);
    expect(model.delayMs(0, 1)).toBe(0);
    expect(model.delayMs(0, 1)).toBe(0);
    expect(() => new RemoteD1Model(-1)).toThrow(/0 ms or more/);
  });
});
