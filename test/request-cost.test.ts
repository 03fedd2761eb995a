// The request log's D1 cost (src/db/meter.ts, docs/operations.md): statements sent, rows read and
// rows written, from real D1's meta, on the line each request writes.
import { afterEach, describe, expect, it, vi } from "vitest";
import { countingD1 } from "./d1-counter";
import {
  appendHistory,
  call,
  credit,
  makeAdmin,
  makeUser,
  makeWallet,
  type TestUser,
  unique,
} from "./helpers";

type Cost = { d1_statements: number; d1_rows_read: number; d1_rows_written: number };
type LogLine = Cost & { route: string | null; status: number };

/** The log lines written while `fn` runs, parsed. */
async function logged(fn: () => Promise<unknown>): Promise<LogLine[]> {
  const lines: string[] = [];
  const spy = vi.spyOn(console, "log").mockImplementation((line: string) => void lines.push(line));
  try {
    await fn();
  } finally {
    spy.mockRestore();
  }
  return lines.map((l) => JSON.parse(l));
}

const cost = ({ d1_statements, d1_rows_read, d1_rows_written }: LogLine): Cost => ({
  d1_statements,
  d1_rows_read,
  d1_rows_written,
});

const balanceRead = (admin: TestUser, userId: number, wallet: string) =>
  call("GET", "/user-wallet-balance", {
    auth: admin.bearer,
    query: { user_id: userId, wallet_id: wallet },
  });

afterEach(() => vi.restoreAllMocks());

describe("the request log line carries the request's D1 cost", () => {
  it("a credit logs the statements it sent and the rows it read and wrote", async () => {
    const admin = await makeAdmin();
    const user = await makeUser();
    const wallet = await makeWallet(admin);
    await credit(admin, { user_id: user.id, wallet_id: wallet, amount: 1 }); // warms the isolate's caches
    const [line] = await logged(() =>
      credit(admin, { user_id: user.id, wallet_id: wallet, amount: 2 }),
    );
    expect(line).toMatchObject({ route: "/wp-json/wallet/v1/credits", status: 200 });
    // One batch: the entry's INSERT and the read of its request_id's entry.
    expect(line!.d1_statements).toBe(2);
    // The entry and its balance row at least (D1 counts index and trigger writes too).
    expect(line!.d1_rows_written).toBeGreaterThanOrEqual(2);
    expect(line!.d1_rows_read).toBeGreaterThan(0);
  });

  it("a balance read logs its statements, the rows it read and no writes", async () => {
    const admin = await makeAdmin();
    const user = await makeUser();
    const wallet = await makeWallet(admin);
    await credit(admin, { user_id: user.id, wallet_id: wallet, amount: 1 });
    await balanceRead(admin, user.id, wallet);
    const [line] = await logged(() => balanceRead(admin, user.id, wallet));
    expect(line).toMatchObject({ route: "/wp-json/wallet/v1/user-wallet-balance", status: 200 });
    // The wallet and the user are known to the isolate by now: only the balance row is read.
    expect(cost(line!)).toStrictEqual({ d1_statements: 1, d1_rows_read: 1, d1_rows_written: 0 });
  });

  it("a balance read's rows read do not grow with the history: 3 entries and 300 read alike", async () => {
    const admin = await makeAdmin();
    const [short, long] = [await makeUser(), await makeUser()];
    const wallet = await makeWallet(admin);
    for (let i = 0; i < 3; i++) {
      await credit(admin, { user_id: short.id, wallet_id: wallet, amount: 1 });
      await credit(admin, { user_id: long.id, wallet_id: wallet, amount: 1 });
    }
    await appendHistory(long.id, wallet, 297);
    await balanceRead(admin, short.id, wallet);
    const [after3] = await logged(() => balanceRead(admin, short.id, wallet));
    const [after300] = await logged(() => balanceRead(admin, long.id, wallet));
    expect((await balanceRead(admin, long.id, wallet)).body.data[wallet]).toBe(5.97);
    expect(after3!.status).toBe(200);
    expect(cost(after300!)).toStrictEqual(cost(after3!));
  });

  it("a first page of transactions reads alike after 3 entries and 300, and its total is exact", async () => {
    const admin = await makeAdmin();
    const [short, long] = [await makeUser(), await makeUser()];
    const [wallet, other] = [await makeWallet(admin), await makeWallet(admin)];
    for (const user of [short, long]) {
      for (let i = 0; i < 3; i++)
        await credit(admin, { user_id: user.id, wallet_id: wallet, amount: 1 });
      await credit(admin, { user_id: user.id, wallet_id: other, amount: 1 });
    }
    await appendHistory(long.id, wallet, 297);
    const page = (user: TestUser, query: Record<string, string | number> = {}) =>
      call("GET", "/transactions", {
        auth: admin.bearer,
        query: { user_id: user.id, security_code: 1, page: 1, per_page: 2, ...query },
      });
    await page(short);
    const filters: Record<string, string>[] = [{}, { wallet_id: wallet }];
    for (const query of filters) {
      const [after3] = await logged(() => page(short, query));
      const [after300] = await logged(() => page(long, query));
      expect(after3!.status).toBe(200);
      // The page walks its date-ordered index and the total reads the balances' counts: the
      // longer history may even read a row less (where its first page ends differs), never more.
      expect(after300!.d1_statements).toBe(after3!.d1_statements);
      expect(after300!.d1_rows_written).toBe(0);
      expect(after300!.d1_rows_read, JSON.stringify(query)).toBeLessThanOrEqual(
        after3!.d1_rows_read,
      );
    }
    expect((await page(long)).headers.get("X-WP-Total")).toBe("301");
    expect((await page(long, { wallet_id: wallet })).headers.get("X-WP-Total")).toBe("300");
    expect((await page(long, { wallet_id: other })).headers.get("X-WP-Total")).toBe("1");
    expect((await page(long, { txn_type: "DEBIT" })).headers.get("X-WP-Total")).toBe("0");
  });

  it("credits written together in one group commit each log their own statements and rows", async () => {
    const admin = await makeAdmin();
    const wallet = await makeWallet(admin);
    const users = await Promise.all([1, 2, 3, 4].map(() => makeUser()));
    const counter = countingD1();
    const creditOf = (user: TestUser) =>
      call("POST", "/credits", {
        auth: admin.bearer,
        d1: counter.db,
        body: { user_id: user.id, wallet_id: wallet, amount: 1, request_id: unique("g") },
      });
    for (const user of users) await creditOf(user); // warms this binding's caches
    const { value: lines, cost: total } = await counter.measure(() =>
      logged(() => Promise.all(Array.from({ length: 24 }, (_, i) => creditOf(users[i % 4]!)))),
    );
    expect(lines.map((l) => l.status)).toEqual(lines.map(() => 200));
    // They were grouped: fewer round trips than credits, and no statement went unlogged.
    expect(total.roundTrips).toBeLessThan(24);
    expect(lines.reduce((n, l) => n + l.d1_statements, 0)).toBe(total.statements);
    // Each carries its own movement's two statements, not the batch that wrote it.
    for (const line of lines) {
      expect(line.d1_statements).toBe(2);
      expect(line.d1_rows_written).toBeGreaterThanOrEqual(2);
    }
  });

  it("a request that does not touch D1 logs zeros", async () => {
    const [line] = await logged(() => call("GET", `/wp-json/${unique("nope")}`));
    expect(cost(line!)).toStrictEqual({ d1_statements: 0, d1_rows_read: 0, d1_rows_written: 0 });
  });
});
