// What depends on time, at its edges: several entries in one second (a balance at it, a statement
// ending in it, after/before around it), clock changes and odd offsets in the site's zone, and the
// calendar's ends (before 1970, 9999-12-31, leap days) (docs/api.md, docs/ledger.md).
import { parse } from "csv-parse/sync";
import { describe, expect, it } from "vitest";
import { appAt, call, type Json, makeAccount, makeUser, unique } from "./helpers";

const S = Date.UTC(2026, 10, 2, 9, 0, 0) / 1000;
const NOW = (S + 3600) * 1000;
const iso = (s: number) => new Date(s * 1000).toISOString().replace(".000Z", "Z");

async function credit(
  admin: { bearer: string },
  q: { user_id: number; wallet_id: string; amount: string },
  atMs: number,
  kind = "credits",
) {
  const res = await call("POST", `/${kind}`, {
    auth: admin.bearer,
    body: { request_id: unique("t"), ...q },
    app: appAt(atMs),
  });
  expect(res.status, res.text).toBe(200);
  return res.body.data.transaction_id as number;
}

/** GETs of the account's user and wallet, by its administrator, on a clock at `nowMs`. */
const reader =
  ({ admin, user, wallet }: Awaited<ReturnType<typeof makeAccount>>, nowMs: number) =>
  (path: string, query: Record<string, string | number>) =>
    call("GET", path, {
      auth: admin.bearer,
      query: { user_id: user.id, wallet_id: wallet, ...query },
      app: appAt(nowMs),
    });

describe("several entries in one second", () => {
  it("are counted alike by a balance at it, a statement at it and after/before around it", async () => {
    const { admin, user, wallet } = await makeAccount();
    const q = (amount: string) => ({ user_id: user.id, wallet_id: wallet, amount });
    await credit(admin, q("1"), (S - 1) * 1000 + 999);
    // Five in second S: two in order, three at once (group commit), one debit; clocks within it vary.
    const ids: number[] = [];
    ids.push(await credit(admin, q("2"), S * 1000 + 900));
    ids.push(await credit(admin, q("4"), S * 1000 + 100));
    ids.push(
      ...(await Promise.all(
        ["8", "16", "32"].map((a, i) => credit(admin, q(a), S * 1000 + 10 * i)),
      )),
    );
    ids.push(await credit(admin, q("3"), S * 1000 + 500, "debits"));
    await credit(admin, q("64"), (S + 1) * 1000);
    ids.sort((a, b) => a - b);

    const at = async (s: string) =>
      (
        await call("GET", "/user-wallet-balance", {
          auth: admin.bearer,
          query: { user_id: user.id, wallet_id: wallet, at: s },
          app: appAt(NOW),
        })
      ).body.data[wallet];
    expect(await at(iso(S - 1))).toBe(1);
    expect(await at(iso(S))).toBe(1 + 2 + 4 + 8 + 16 + 32 - 3);
    expect(await at(`${new Date(S * 1000).toISOString().slice(0, 19)}.999999`)).toBe(60);
    expect(await at("2026-11-02T09:00:00+14:00")).toBe(0);
    expect(await at("2026-11-02T23:00:00+14:00")).toBe(60);
    expect(await at("2026-11-01T21:00:00-12:00")).toBe(60);
    expect(await at("2026-11-01T20:59:59-12:00")).toBe(1);
    expect(await at("2026-11-02t09:00:00z")).toBe(60);
    expect(await at("2026-11-02 09:00:00")).toBe(60);
    expect(await at(iso(S + 1))).toBe(124);

    const st = await call("GET", "/statements", {
      auth: admin.bearer,
      query: { user_id: user.id, wallet_id: wallet, from: iso(S), to: iso(S) },
      app: appAt(NOW),
    });
    expect(st.body.data).toMatchObject({
      opening_balance: 1,
      closing_balance: 60,
      total_in: 62,
      total_out: 3,
      count: 6,
    });
    expect(st.body.data.entries.map((e: Json) => e.ID)).toEqual(ids);
    const csv = await call("GET", "/statements", {
      auth: admin.bearer,
      query: { user_id: user.id, wallet_id: wallet, from: iso(S), to: iso(S), format: "csv" },
      app: appAt(NOW),
    });
    const rows: string[][] = parse(csv.text, { record_delimiter: "\r\n" }).slice(1);
    expect(rows.map((r) => Number(r[0]))).toEqual(ids);
    expect(rows.at(-1)![5]).toBe("60.00");

    const list = async (query: Record<string, string | number>) =>
      (
        await call("GET", "/transactions", {
          auth: admin.bearer,
          query: { user_id: user.id, security_code: 0, wallet_id: wallet, ...query },
          app: appAt(NOW),
        })
      ).body.data.map((e: Json) => e.ID);
    expect(await list({ after: iso(S - 1), before: iso(S + 1), order: "asc" })).toEqual(ids);
    expect(await list({ after: iso(S - 1), before: iso(S + 1) })).toEqual([...ids].reverse());
    expect(await list({ after: iso(S), order: "asc" })).toHaveLength(1);
    expect(await list({ before: iso(S), order: "asc" })).toHaveLength(1);
    expect(await list({ before: `${iso(S).slice(0, -1)}.001Z`, order: "asc" })).toHaveLength(7);
    const paged: number[] = [];
    for (let page = 1; page <= 3; page++)
      paged.push(
        ...(await list({
          after: iso(S - 1),
          before: iso(S + 1),
          order: "asc",
          per_page: 2,
          page,
        })),
      );
    expect(paged).toEqual(ids);
  });
});

describe("dates in the site's time zone on clock-change days", () => {
  it("show each entry's wall clock in post_date, the same in the record, the CSV and the plugin's list", async () => {
    const { admin, wallet } = await makeAccount();
    const cases: [string, string, string, string][] = [
      // zone, instant, post_date, date_time
      [
        "Europe/London",
        "2026-10-25T00:30:00Z",
        "2026-10-25 01:30:00",
        "Sun, Oct 25, 2026<br>1:30 AM",
      ],
      [
        "Europe/London",
        "2026-10-25T01:30:00Z",
        "2026-10-25 01:30:00",
        "Sun, Oct 25, 2026<br>1:30 AM",
      ],
      [
        "Europe/London",
        "2026-03-29T01:00:00Z",
        "2026-03-29 02:00:00",
        "Sun, Mar 29, 2026<br>2:00 AM",
      ],
      [
        "America/New_York",
        "2026-11-01T05:30:00Z",
        "2026-11-01 01:30:00",
        "Sun, Nov 1, 2026<br>1:30 AM",
      ],
      [
        "America/New_York",
        "2026-11-01T06:30:00Z",
        "2026-11-01 01:30:00",
        "Sun, Nov 1, 2026<br>1:30 AM",
      ],
      [
        "America/New_York",
        "2026-03-08T07:00:00Z",
        "2026-03-08 03:00:00",
        "Sun, Mar 8, 2026<br>3:00 AM",
      ],
      [
        "Asia/Kathmandu",
        "2026-11-01T18:14:59Z",
        "2026-11-01 23:59:59",
        "Sun, Nov 1, 2026<br>11:59 PM",
      ],
      [
        "Asia/Kathmandu",
        "2026-11-01T18:15:00Z",
        "2026-11-02 00:00:00",
        "Mon, Nov 2, 2026<br>12:00 AM",
      ],
      [
        "Australia/Lord_Howe",
        "2026-10-03T15:30:00Z",
        "2026-10-04 02:30:00",
        "Sun, Oct 4, 2026<br>2:30 AM",
      ],
    ];
    for (const [zone, instant, postDate, dateTime] of cases) {
      const ms = Date.parse(instant);
      const user = await makeUser();
      const id = await credit(admin, { user_id: user.id, wallet_id: wallet, amount: "1" }, ms);
      const vars = { SITE_TIMEZONE: zone };
      const one = await call("GET", `/transactions/${id}`, {
        auth: admin.bearer,
        query: { security_code: 0 },
        app: appAt(NOW),
        vars,
      });
      expect(one.status, one.text).toBe(200);
      expect(
        [one.body.data.post_date, one.body.data.post_date_gmt, one.body.data.date_time],
        `${zone} ${instant}`,
      ).toEqual([postDate, instant.replace("T", " ").slice(0, 19), dateTime]);
      const csv = await call("GET", "/statements", {
        auth: admin.bearer,
        query: { user_id: user.id, wallet_id: wallet, from: instant, to: instant, format: "csv" },
        app: appAt(Math.max(NOW, ms + 5000)),
        vars,
      });
      const rows: string[][] = parse(csv.text, { record_delimiter: "\r\n" }).slice(1);
      expect(
        rows.map((r) => [Number(r[0]), r[1]]),
        `${zone} ${instant} csv`,
      ).toEqual([[id, postDate]]);
      // The plugin's list reads the same post_date, its wall time written as if it were UTC.
      const plugin = await call("GET", "/wp-json/rimplenet/v1/transactions", {
        auth: admin.bearer,
        query: { meta_key: "user_id", meta_value: String(user.id) },
        app: appAt(NOW),
        vars: { ...vars, COMPAT_NAMESPACE: "rimplenet" },
      });
      expect(plugin.status, plugin.text).toBe(200);
      expect(plugin.body.data.map((e: Json) => e.timestamp)).toEqual([
        Date.parse(`${postDate.replace(" ", "T")}Z`) / 1000,
      ]);
    }
  });
});

describe("the calendar's edges", () => {
  it("date balances, statements and lists before 1970, on leap days and at 9999-12-31", async () => {
    const { admin, user, wallet } = await makeAccount();
    const q = (amount: string) => ({ user_id: user.id, wallet_id: wallet, amount });
    const pre = Date.parse("1969-12-31T23:59:59Z");
    await credit(admin, q("1"), pre);
    await credit(admin, q("2"), 0);
    await credit(admin, q("4"), Date.parse("2028-02-29T12:00:00Z"));
    await credit(admin, q("8"), Date.parse("9999-12-31T23:59:59Z"));
    const now = Date.parse("+010000-01-01T00:00:05Z");
    const ask = reader({ admin, user, wallet }, now);
    const at = async (s: string) => {
      const r = await ask("/user-wallet-balance", { at: s });
      return r.status === 200 ? r.body.data[wallet] : r.body.error;
    };
    expect(await at("1969-12-31T23:59:58Z")).toBe(0);
    expect(await at("1969-12-31T23:59:59Z")).toBe(1);
    expect(await at("1969-12-31T23:59:59.999Z")).toBe(1);
    expect(await at("1970-01-01")).toBe(3);
    expect(await at("2028-02-29")).toBe(3);
    expect(await at("2028-02-29T12:00:00+00:00")).toBe(7);
    expect(await at("2028-02-29T23:59:59-12:00")).toBe(7);
    expect(await at("2027-02-29")).toEqual({ at: "at requires an ISO 8601 date" });
    expect(await at("2100-02-29")).toEqual({ at: "at requires an ISO 8601 date" });
    expect(await at("2000-02-29")).toBe(3);
    expect(await at("9999-12-31T23:59:58Z")).toBe(7);
    expect(await at("9999-12-31T23:59:59Z")).toBe(15);
    expect(await at("+010000-01-01T00:00:04Z")).toBe(15);
    expect(await at("+010000-01-01T00:00:05Z")).toEqual({ at: "at must not be in the future" });
    expect(await at("+010000-01-01T14:00:04+14:00")).toBe(15);
    const st = async (query: Record<string, string>) => (await ask("/statements", query)).body;
    expect((await st({ to: "1969-12-31" })).error).toEqual({
      to: "to must not be before 1970-01-01T00:00:00Z",
    });
    expect((await st({ from: "1969-12-31", to: "1969-12-31" })).data).toMatchObject({
      from: "1969-12-31T00:00:00Z",
      to: "1969-12-31T23:59:59Z",
      opening_balance: 0,
      closing_balance: 1,
      count: 1,
    });
    expect((await st({})).data).toMatchObject({
      from: "1970-01-01T00:00:00Z",
      to: "+010000-01-01T00:00:04Z",
      opening_balance: 1,
      closing_balance: 15,
      count: 3,
    });
    expect((await st({ from: "9999-12-31", to: "9999-12-31" })).data).toMatchObject({
      to: "9999-12-31T23:59:59Z",
      opening_balance: 7,
      closing_balance: 15,
      count: 1,
    });
    expect((await st({ from: "2028-02-29T12:00:00+14:00", to: "2028-02-29" })).data).toMatchObject({
      from: "2028-02-28T22:00:00Z",
      count: 1,
      total_in: 4,
    });
    const csv = await call("GET", "/statements", {
      auth: admin.bearer,
      query: { user_id: user.id, wallet_id: wallet, from: "9999-12-31", format: "csv" },
      app: appAt(now),
      vars: { SITE_TIMEZONE: "+14:00" },
    });
    expect(csv.status, csv.text).toBe(200);
    expect(csv.headers.get("content-disposition")).toContain(
      `statement-${user.id}-${wallet}-9999-12-31-to-+010000-01-01.csv`,
    );
    const rows: string[][] = parse(csv.text, { record_delimiter: "\r\n" }).slice(1);
    expect(rows.map((r) => [r[1], r[2]])).toEqual([
      ["10000-01-01 13:59:59", "9999-12-31 23:59:59"],
    ]);
    const list = await call("GET", "/transactions", {
      auth: admin.bearer,
      query: { user_id: user.id, security_code: 0, before: "1970-01-01", order: "asc" },
      app: appAt(now),
      vars: { SITE_TIMEZONE: "-12:00" },
    });
    expect(list.body.data.map((e: Json) => [e.post_date, e.post_date_gmt, e.date_time])).toEqual([
      ["1969-12-31 11:59:59", "1969-12-31 23:59:59", "Wed, Dec 31, 1969<br>11:59 AM"],
    ]);
  });

  it("read a year from 0000 to 0099 as itself, however its time is written", async () => {
    const { admin, user, wallet } = await makeAccount();
    await credit(
      admin,
      { user_id: user.id, wallet_id: wallet, amount: "5" },
      Date.parse("2049-11-02T09:00:00Z"),
    );
    const now = Date.parse("2049-11-02T10:00:00Z");
    const ask = reader({ admin, user, wallet }, now);
    // Each names 0049-11-02T09:30:00Z (or 0099-…), long before the credit of 2049: no balance
    // yet, a statement ending then, and no entry before it. Date.parse's fallback, which takes
    // a time written with a space for `T`, reads a year below 100 as 19xx or 20xx (0049 as 2049).
    const spellings = [
      "0049-11-02T09:30:00Z",
      "0049-11-02 09:30:00",
      "0049-11-02 09:30",
      "0049-11-02 09:30:00.5Z",
      "0049-11-02t09:30:00z",
      "0049-11-02T10:30:00+0100",
      "0049-11-02 10:30:00+01:00",
      "0026-11-02 09:30:00",
      "0099-11-02 09:30:00",
      "0000-11-02 09:30:00",
    ];
    const read = await Promise.all(
      spellings.map(async (text) => {
        const at = await ask("/user-wallet-balance", { at: text });
        const st = await ask("/statements", { to: text, from: "0000-01-01" });
        const before = await ask("/transactions", { security_code: 0, before: text, per_page: 10 });
        return [
          text,
          at.body.data?.[wallet] ?? at.body.error,
          st.body.data?.to ?? st.body.error,
          before.body.data?.length,
        ];
      }),
    );
    expect(read).toEqual(
      spellings.map((text) => [text, 0, `${text.slice(0, 4)}-11-02T09:30:00Z`, 0]),
    );
  });
});
