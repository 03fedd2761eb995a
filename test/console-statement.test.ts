// The console's Statement section (src/console/statement.tsx): a wallet and a date range, its
// figures from GET /statements, and Download CSV passed on from the API; the charts' amount axis.
import { env } from "cloudflare:workers";
import { parse } from "csv-parse/sync";
import { beforeAll, describe, expect, it } from "vitest";
import { CONSOLE_AUDIENCE } from "../src/auth/tokens";
import { PER_PAGE } from "../src/console/page";
import { Chart } from "../src/console/views";
import { noticeLeft } from "./console-helpers";
import {
  appAt,
  appendHistory,
  call,
  makeAdmin,
  makeUser,
  makeWallet,
  PASSWORD,
  signedToken,
  type TestUser,
  testApp,
  unique,
} from "./helpers";

const BASE = "http://localhost/wallet-admin";
// The console runs on the real clock (its session tokens are checked against it); the entries are
// dated in November 2026 and the ranges asked for name their days.
const app = testApp();

type Page = { status: number; html: string; headers: Headers };

async function request(path: string, cookie?: string): Promise<Page> {
  const headers = new Headers(cookie ? { Cookie: cookie } : {});
  const res = await app.request(`${BASE}${path}`, { headers, redirect: "manual" }, env);
  return { status: res.status, html: await res.text(), headers: res.headers };
}

let admin: TestUser;
let alice: TestUser;
let wallet: string;
let cookie: string;

beforeAll(async () => {
  admin = await makeAdmin();
  alice = await makeUser();
  wallet = await makeWallet(admin);
  for (const [amount, day, kind] of [
    ["100.00", 3, "credits"],
    ["30.00", 10, "debits"],
    ["5.25", 18, "credits"],
  ] as const) {
    const res = await call("POST", `/${kind}`, {
      auth: admin.bearer,
      body: { user_id: alice.id, wallet_id: wallet, amount, request_id: unique("c"), note: "=x" },
      app: appAt(Date.UTC(2026, 10, day, 9, 0, 0)),
    });
    expect(res.status, res.text).toBe(200);
  }
  const res = await app.request(
    `${BASE}/sign-in`,
    {
      method: "POST",
      body: new URLSearchParams({ email: admin.email, password: PASSWORD }),
      redirect: "manual",
    },
    env,
  );
  expect(res.status).toBe(303);
  cookie = res.headers.get("set-cookie")!.split(";")[0]!;
});

describe("the console's Statement section", () => {
  it("shows this month so far by default, in a wallet the user has entries in, with Download CSV in its form", async () => {
    const today = new Date().toISOString().slice(0, 10);
    const first = `${today.slice(0, 8)}01`;
    // Not the site's first wallet by id, one alice never used.
    const unused = await makeWallet(admin, { id: `a00${unique("u").toLowerCase().slice(0, 20)}` });
    const page = await request(`/users/${alice.id}`, cookie);
    expect(page.status).toBe(200);
    const section = page.html.slice(page.html.indexOf('id="statement"'));
    expect(section).toContain(`name="from" value="${first}"`);
    expect(section).toContain(`name="to" value="${today}"`);
    expect(section).toContain(`<option value="${wallet}" selected="">`);
    expect(section).not.toContain(`<option value="${unused}" selected="">`);
    // Download CSV sends the form to the CSV: the days as typed, shown yet or not.
    expect(section).toContain(
      `<button type="submit" class="secondary" formaction="/wallet-admin/users/${alice.id}/statement.csv">Download CSV</button>`,
    );
  });

  it("shows a range's opening, in, out and closing figures and its count", async () => {
    const page = await request(
      `/users/${alice.id}?wallet=${wallet}&from=2026-11-01&to=2026-11-20`,
      cookie,
    );
    const section = page.html.slice(page.html.indexOf('id="statement"'));
    for (const figure of ["₦0.00", "₦105.25", "₦30.00", "₦75.25"])
      expect(section).toContain(figure);
    expect(section).toMatch(/Entries<\/th><td class="num">3</);
  });

  // A wallet is named in any case and with ASCII space around it, as everywhere (docs/api.md): the
  // page once showed another wallet's figures for `NGN`, while its CSV read `ngn`.
  it("reads the wallet asked for as the API does, in any case, on the page and in its CSV", async () => {
    // bob has entries in two wallets; the first by id is the page's fallback.
    const bob = await makeUser();
    const first = await makeWallet(admin, { id: `a00${unique("f").toLowerCase().slice(0, 20)}` });
    for (const [w, amount] of [
      [first, "1.00"],
      [wallet, "2.00"],
    ] as const) {
      const res = await call("POST", "/credits", {
        auth: admin.bearer,
        body: { user_id: bob.id, wallet_id: w, amount, request_id: unique("c") },
        app: appAt(Date.UTC(2026, 10, 4, 9, 0, 0)),
      });
      expect(res.status, res.text).toBe(200);
    }
    const days = "from=2026-11-01&to=2026-11-20";
    const asked = encodeURIComponent(` ${wallet.toUpperCase()} `);
    const page = await request(`/users/${bob.id}?wallet=${asked}&${days}`, cookie);
    const section = page.html.slice(page.html.indexOf('id="statement"'));
    expect(section).toContain(`<option value="${wallet}" selected="">`);
    expect(section).toMatch(/Closing balance \(.*?\)<\/th><td class="num">₦2\.00</);
    const csv = await request(`/users/${bob.id}/statement.csv?wallet=${asked}&${days}`, cookie);
    expect(csv.status).toBe(200);
    expect(csv.headers.get("content-disposition")).toContain(`-${wallet}-2026-11-01-`);
  });

  it("shows the range asked for: opening and closing balances at its days' bounds", async () => {
    const page = await request(
      `/users/${alice.id}?wallet=${wallet}&from=2026-11-05&to=2026-11-12`,
      cookie,
    );
    const section = page.html.slice(page.html.indexOf('id="statement"'));
    // Each day a <time> that never breaks at its hyphens (console.css): a phone wrapped it in three.
    const day = (d: string) => `<time datetime="${d}"><span>${d}</span></time>`;
    expect(section).toContain(
      `Opening balance (${day("2026-11-05")})</th><td class="num">₦100.00</td>`,
    );
    expect(section).toContain(
      `Closing balance (${day("2026-11-12")})</th><td class="num">₦70.00</td>`,
    );
  });

  it("says a closing balance is so far when its day is not over yet", async () => {
    const page = await request(
      `/users/${alice.id}?wallet=${wallet}&from=2026-11-05&to=9998-12-31`,
      cookie,
    );
    const section = page.html.slice(page.html.indexOf('id="statement"'));
    const day = (d: string) => `<time datetime="${d}"><span>${d}</span></time>`;
    expect(section).toContain(`Closing balance (${day("9998-12-31")}, so far)</th>`);
    const today = new Date().toISOString().slice(0, 10);
    const byDefault = await request(`/users/${alice.id}`, cookie);
    expect(byDefault.html).toContain(`Closing balance (${day(today)}, so far)</th>`);
  });

  it("dates each entry as a <time> broken, if at all, between its day and its time of day", async () => {
    const page = await request(`/users/${alice.id}`, cookie);
    const entries = page.html.slice(page.html.indexOf('id="entries"'));
    expect(entries).toContain(
      '<td><time datetime="2026-11-03T09:00Z"><span>2026-11-03</span> <span>09:00</span></time></td>',
    );
    const css = await (await app.request(`${BASE}/console.css`, {}, env)).text();
    expect(css).toContain("time > span { white-space: nowrap; }");
  });

  it("bounds a day by the site's wall clock when a clock change skips or repeats its midnight", async () => {
    // Santiago's clocks went back from 00:00 to 23:00 on 2026-04-05 and forward from 00:00 to
    // 01:00 on 2026-09-06: each entry below belongs to the one day its wall clock shows.
    const bob = await makeUser();
    for (const [amount, at] of [
      ["1.00", "2026-04-05T03:30:00Z"], // 2026-04-04 23:30, the repeated hour
      ["2.00", "2026-09-06T03:30:00Z"], // 2026-09-05 23:30
      ["4.00", "2026-09-06T04:30:00Z"], // 2026-09-06 01:30, the first hour of the day
    ] as const) {
      const res = await call("POST", "/credits", {
        auth: admin.bearer,
        body: { user_id: bob.id, wallet_id: wallet, amount, request_id: unique("dst") },
        app: appAt(Date.parse(at)),
      });
      expect(res.status, res.text).toBe(200);
    }
    const santiago = { ...env, SITE_TIMEZONE: "America/Santiago" };
    const figures = async (day: string) => {
      const path = `${BASE}/users/${bob.id}?wallet=${wallet}&from=${day}&to=${day}`;
      const res = await app.request(path, { headers: { Cookie: cookie } }, santiago);
      const html = await res.text();
      const figure = (name: string) =>
        new RegExp(`${name}.*?</th><td class="num">([^<]+)<`).exec(
          html.slice(html.indexOf('id="statement"')),
        )?.[1];
      return {
        opening: figure("Opening balance"),
        closing: figure("Closing balance"),
        entries: figure("Entries"),
      };
    };
    for (const [day, opening, closing, entries] of [
      ["2026-04-04", "₦0.00", "₦1.00", "1"],
      ["2026-04-05", "₦1.00", "₦1.00", "0"],
      ["2026-09-05", "₦1.00", "₦3.00", "1"],
      ["2026-09-06", "₦3.00", "₦7.00", "1"],
    ] as const)
      expect(await figures(day), day).toEqual({ opening, closing, entries });
  });

  it("states a day the site's zone skipped as an empty range, in figures and as a CSV", async () => {
    // Apia's clocks went from 2011-12-29 23:59:59 (UTC-10) to 2011-12-31 00:00:00 (UTC+14): its
    // 2011-12-30 has no second, so a statement of that day alone holds nothing and moves nothing.
    const carol = await makeUser();
    for (const [amount, at] of [
      ["1.00", "2011-12-30T09:59:59Z"], // 2011-12-29 23:59:59, the last second before the jump
      ["2.00", "2011-12-30T10:00:00Z"], // 2011-12-31 00:00:00, the first after it
    ] as const) {
      const res = await call("POST", "/credits", {
        auth: admin.bearer,
        body: { user_id: carol.id, wallet_id: wallet, amount, request_id: unique("apia") },
        app: appAt(Date.parse(at)),
      });
      expect(res.status, res.text).toBe(200);
    }
    const apia = { ...env, SITE_TIMEZONE: "Pacific/Apia" };
    const range = (from: string, to: string) =>
      `/users/${carol.id}?wallet=${wallet}&from=${from}&to=${to}`;
    const figures = async (from: string, to: string) => {
      const res = await app.request(
        `${BASE}${range(from, to)}`,
        { headers: { Cookie: cookie } },
        apia,
      );
      const html = await res.text();
      const section = html.slice(html.indexOf('id="statement"'));
      const figure = (name: string) =>
        new RegExp(`${name}.*?</th><td class="num">([^<]+)<`).exec(section)?.[1];
      return {
        refused: section.includes("No statement"),
        opening: figure("Opening balance"),
        closing: figure("Closing balance"),
        entries: figure("Entries"),
      };
    };
    for (const [from, to, opening, closing, entries] of [
      ["2011-12-29", "2011-12-29", "₦0.00", "₦1.00", "1"],
      ["2011-12-30", "2011-12-30", "₦1.00", "₦1.00", "0"],
      ["2011-12-30", "2011-12-31", "₦1.00", "₦3.00", "1"],
      ["2011-12-29", "2011-12-30", "₦0.00", "₦1.00", "1"],
    ] as const)
      expect(await figures(from, to), `${from} to ${to}`).toEqual({
        refused: false,
        opening,
        closing,
        entries,
      });
    // Days out of order are still refused.
    expect((await figures("2011-12-31", "2011-12-30")).refused).toBe(true);

    const csv = await app.request(
      `${BASE}/users/${carol.id}/statement.csv?wallet=${wallet}&from=2011-12-30&to=2011-12-30`,
      { headers: { Cookie: cookie }, redirect: "manual" },
      apia,
    );
    expect(csv.status).toBe(200);
    // Named by the day chosen, which the range, empty, cannot say.
    expect(csv.headers.get("Content-Disposition")).toBe(
      `attachment; filename="statement-${carol.id}-${wallet}-2011-12-30-to-2011-12-30.csv"`,
    );
    expect(csv.headers.get("X-Statement-Opening-Balance")).toBe("1.00");
    expect(csv.headers.get("X-Statement-Closing-Balance")).toBe("1.00");
    expect(csv.headers.get("X-WP-Total")).toBe("0");
    expect(await csv.text()).toBe(
      '"ID",post_date,post_date_gmt,txn_type,amount,balance_after,note\r\n',
    );
  });

  it("keeps the chosen wallet and days in the statement's form on the pages before and after", async () => {
    const carol = await makeUser();
    await appendHistory(carol.id, wallet, PER_PAGE + 1);
    const other = await makeWallet(admin);
    const chosen = (html: string) => {
      const section = html.slice(html.indexOf('id="statement"'));
      expect(section).toContain(`<option value="${other}" selected="">`);
      expect(section).toContain('name="from" value="2026-11-05"');
      expect(section).toContain('name="to" value="2026-11-12"');
    };
    const link = (html: string, name: string) =>
      new RegExp(`<a href="/wallet-admin([^"]+)">${name}</a>`)
        .exec(html)?.[1]
        ?.replaceAll("&amp;", "&") ?? `no ${name} link`;
    const first = await request(
      `/users/${carol.id}?wallet=${other}&from=2026-11-05&to=2026-11-12`,
      cookie,
    );
    chosen(first.html);
    const second = await request(link(first.html, "Next"), cookie);
    expect(second.html).toContain("Page 2 of 2");
    chosen(second.html);
    const back = await request(link(second.html, "Previous"), cookie);
    expect(back.html).toContain("Page 1 of 2");
    chosen(back.html);
  });

  it("downloads the CSV the API writes, as an attachment", async () => {
    const res = await request(
      `/users/${alice.id}/statement.csv?wallet=${wallet}&from=2026-11-01&to=2026-11-20`,
      cookie,
    );
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(res.headers.get("content-disposition")).toBe(
      `attachment; filename="statement-${alice.id}-${wallet}-2026-11-01-to-2026-11-20.csv"`,
    );
    const rows: string[][] = parse(res.html, { record_delimiter: "\r\n" });
    expect(rows.slice(1).map((r) => [r[3], r[4], r[5], r[6]])).toEqual([
      ["CREDIT", "100.00", "100.00", "'=x"],
      ["DEBIT", "30.00", "70.00", "'=x"],
      ["CREDIT", "5.25", "75.25", "'=x"],
    ]);
  });

  it("names the CSV by the days chosen in the site's time zone, east and west of UTC", async () => {
    // Named by the UTC dates of the range's instants, a Lagos November 1st began on October 31st
    // and a Santiago November 20th ended on November 21st: days the operator never chose.
    for (const zone of ["Africa/Lagos", "America/Santiago", "Asia/Tokyo"]) {
      const res = await app.request(
        `${BASE}/users/${alice.id}/statement.csv?wallet=${wallet}&from=2026-11-01&to=2026-11-20`,
        { headers: { Cookie: cookie }, redirect: "manual" },
        { ...env, SITE_TIMEZONE: zone },
      );
      expect(res.status, zone).toBe(200);
      expect(res.headers.get("content-disposition"), zone).toBe(
        `attachment; filename="statement-${alice.id}-${wallet}-2026-11-01-to-2026-11-20.csv"`,
      );
      await res.body?.cancel();
    }
  });

  // Shaped like days, but none (a month 99, a 32nd, a 30th or 31st of February), or past what a
  // site's time zone keeps at four digits.
  const NO_DAYS = [
    "yesterday",
    "9999-99-99",
    "9999-12-32",
    "2026-02-30",
    "2026-02-31",
    "0000-00-00",
    "9999-12-31",
  ];
  const noDay = (name: string, day: string) =>
    `No statement: ${name} (${day}) is not a calendar day written YYYY-MM-DD, from 1000-01-01 to 9998-12-31.`;
  const statementOf = (html: string) => html.slice(html.indexOf('id="statement"'));

  it.each(NO_DAYS)("sends a download from %s back to the page saying it is no day", async (day) => {
    const res = await request(
      `/users/${alice.id}/statement.csv?wallet=${wallet}&from=${day}&to=2026-11-20`,
      cookie,
    );
    expect(res.status).toBe(303);
    // Back to the statement asked for, which says it once, beside From: no notice above it. No
    // fragment (#statement), on which a browser would focus nothing: those words have focus.
    expect(noticeLeft(res)).toBe("");
    const query = new URLSearchParams({ wallet, from: day, to: "2026-11-20" });
    const location = res.headers.get("location")!;
    expect(location).toBe(`/wallet-admin/users/${alice.id}?${query}`);
    const page = await request(location.replace("/wallet-admin", ""), cookie);
    expect(page.html.split(noDay("From", day))).toHaveLength(2);
  });

  it.each(NO_DAYS)(
    "shows no statement for %s but says it is no day beside its field, shown as typed",
    async (day) => {
      for (const [name, days] of [
        ["From", `from=${day}&to=2026-11-20`],
        ["To", `from=2026-11-01&to=${day}`],
      ] as const) {
        const page = await request(`/users/${alice.id}?wallet=${wallet}&${days}`, cookie);
        expect(page.status).toBe(200);
        const section = statementOf(page.html);
        // A text field, since a date field shows a day that is none empty; marked and described
        // by the words right after it, which have focus as the page opens, as a refusal's notice.
        expect(section, name).toContain(
          `<input type="text" name="${name.toLowerCase()}" value="${day}" required="" placeholder="YYYY-MM-DD" aria-invalid="true" aria-describedby="statement-problem"/></label><p id="statement-problem" class="notice error" role="alert" tabindex="-1" autofocus="">${noDay(name, day)}</p>`,
        );
        expect(section.match(/aria-invalid/g), name).toHaveLength(1);
        expect(section, name).not.toContain("Opening balance");
        expect(section, name).not.toContain("Statement totals");
      }
    },
  );

  // The service judges the range (GET /statements answers the same words); the page puts them
  // beside From, date fields still: both are days.
  it.each([
    ["ends before it starts", "2026-11-12", "2026-11-05"],
    ["starts in the future", "2999-01-01", "2999-01-31"],
  ])("shows no statement for a range that %s, and says so under From", async (_, from, to) => {
    // The service's words name the fields as GET /statements does (`from`, `to`); here, by label.
    const words = "No statement: From must not be after To (nor in the future).";
    const days = `wallet=${wallet}&from=${from}&to=${to}`;
    const section = statementOf((await request(`/users/${alice.id}?${days}`, cookie)).html);
    expect(section).toContain(
      `<input type="date" name="from" value="${from}" required="" min="1000-01-01" max="9998-12-31" aria-invalid="true" aria-describedby="statement-problem"/></label><p id="statement-problem" class="notice error" role="alert" tabindex="-1" autofocus="">${words}</p>`,
    );
    expect(section).toContain(
      `<input type="date" name="to" value="${to}" required="" min="1000-01-01" max="9998-12-31"/>`,
    );
    expect(section.match(/role="alert"/g)).toHaveLength(1);
    expect(section).not.toContain("Opening balance");
    expect(section).not.toContain("Statement totals");
    const csv = await request(`/users/${alice.id}/statement.csv?${days}`, cookie);
    expect(csv.status).toBe(303);
    expect(noticeLeft(csv)).toBe("");
  });

  // A refusal the page cannot tell beside a field (a wallet since deleted, a user gone) is told
  // above it, on the statement the download comes back to, whatever its query. Its address has no
  // fragment: a browser focuses no notice (autofocus) on an address with one.
  it("tells a download refused for its wallet on the page it comes back to", async () => {
    const days = "from=2026-11-01&to=2026-11-20";
    const res = await request(`/users/${alice.id}/statement.csv?wallet=nope&${days}`, cookie);
    expect(res.status).toBe(303);
    const location = res.headers.get("location")!;
    expect(location).toBe(`/wallet-admin/users/${alice.id}?wallet=nope&${days}`);
    const left = res.headers.getSetCookie().map((c) => c.split(";")[0]);
    const page = await request(location.replace("/wallet-admin", ""), [cookie, ...left].join("; "));
    expect(page.status).toBe(200);
    expect(page.html).toContain(
      '<p id="notice" class="notice error" role="alert" tabindex="-1" autofocus="">Statement refused. invalid input: wallet_id not found</p>',
    );
  });

  it("lets no one without an operator's session download a statement", async () => {
    const res = await request(
      `/users/${alice.id}/statement.csv?wallet=${wallet}&from=2026-11-01&to=2026-11-20`,
    );
    expect(res.status).not.toBe(200);
    expect(res.headers.get("content-type") ?? "").not.toContain("text/csv");
    const subscriber = await makeUser();
    const { token } = await signedToken(subscriber, { audience: CONSOLE_AUDIENCE });
    const refused = await request(
      `/users/${alice.id}/statement.csv?wallet=${wallet}&from=2026-11-01&to=2026-11-20`,
      `wallet_admin=${token}`,
    );
    expect(refused.status).toBe(403);
  });

  it("labels the balance chart's amount axis with its bounds as amounts", async () => {
    const page = await request(`/users/${alice.id}`, cookie);
    const chart = page.html.slice(page.html.indexOf('<svg class="chart"'));
    expect(chart).toContain(`balance (₦)</text>`);
    expect(chart).toMatch(/class="tick"[^>]*>₦0\.00</);
    expect(chart).toMatch(/class="tick"[^>]*>₦100\.00</);
  });

  it("marks a balance of one entry with a dot, where a line of one point draws nothing", async () => {
    const once = await makeUser();
    const res = await call("POST", "/credits", {
      auth: admin.bearer,
      body: { user_id: once.id, wallet_id: wallet, amount: "7.00", request_id: unique("c") },
    });
    expect(res.status, res.text).toBe(200);
    const one = await request(`/users/${once.id}`, cookie);
    const chart = one.html.slice(one.html.indexOf('<svg class="chart"'));
    expect(chart).toMatch(/<circle cx="[\d.]+" cy="[\d.]+" r="4" fill="#1d2330"><\/circle>/);
    expect(chart).not.toContain("<polyline");
    // Two entries or more: a line, no dot.
    const many = await request(`/users/${alice.id}`, cookie);
    const line = many.html.slice(many.html.indexOf('<svg class="chart"'));
    expect(line).toContain("<polyline");
    expect(line).not.toContain("<circle");
  });

  it("draws a chart's text large enough to read on a phone, with room for it beside the axis", async () => {
    const css = await (await app.request(`${BASE}/console.css`, {}, env)).text();
    // A 390 px phone draws the 600-unit chart about 350 px wide: 20 units are 11.7 px.
    expect(css).toContain("@media (max-width: 30rem) { svg.chart text { font-size: 20px; } }");
    const page = await request(`/users/${alice.id}`, cookie);
    const chart = page.html.slice(page.html.indexOf('<svg class="chart"'));
    // The longest amount, ₦100.00, fits left of the axis at 20 units (about 12 a character).
    const axis = Number(/<line x1="([\d.]+)"/.exec(chart)![1]);
    const ticks = [...chart.matchAll(/<text class="tick" x="([\d.]+)"/g)].map((m) => Number(m[1]));
    expect(ticks.length).toBe(2);
    for (const x of ticks) {
      expect(x).toBeLessThan(axis);
      // Past the amount axis's title (turned, it ends near x 27) and the amount itself.
      expect(x).toBeGreaterThanOrEqual(28 + 12 * "₦100.00".length);
    }
  });
});

describe("a user's balance chart", () => {
  /** A new user's entries in `wallet`, each `[kind, amount, instant (ms)]`, and its chart's SVG. */
  async function chartOf(entries: [string, string, number][]) {
    const user = await makeUser();
    for (const [kind, amount, atMs] of entries) {
      const res = await call("POST", `/${kind}`, {
        auth: admin.bearer,
        body: { user_id: user.id, wallet_id: wallet, amount, request_id: unique("c") },
        app: appAt(atMs),
      });
      expect(res.status, res.text).toBe(200);
    }
    const page = await request(`/users/${user.id}`, cookie);
    return page.html.slice(page.html.indexOf('<svg class="chart"'), page.html.indexOf("</svg>"));
  }
  /** What the time axis says at its ends: the texts on the chart's bottom line. */
  const ends = (chart: string) =>
    [...chart.matchAll(/<text x="[\d.]+" y="194"(?: text-anchor="end")?>([^<]*)<\/text>/g)].map(
      (m) => m[1],
    );
  const at = (day: number, h: number, m: number, s = 0) => Date.UTC(2026, 10, day, h, m, s);

  it("marks its time axis with the times of entries made within a day, their days when further apart", async () => {
    expect(
      ends(
        await chartOf([
          ["credits", "5", at(5, 9, 0)],
          ["credits", "5", at(5, 14, 30)],
        ]),
      ),
    ).toEqual(["2026-11-05 09:00", "14:30"]);
    // Within a minute, to the second; across midnight, each with its day.
    expect(
      ends(
        await chartOf([
          ["credits", "5", at(5, 9, 0, 5)],
          ["credits", "5", at(5, 9, 0, 40)],
        ]),
      ),
    ).toEqual(["2026-11-05 09:00:05", "09:00:40"]);
    expect(
      ends(
        await chartOf([
          ["credits", "5", at(5, 23, 10)],
          ["credits", "5", at(6, 1, 20)],
        ]),
      ),
    ).toEqual(["2026-11-05 23:10", "2026-11-06 01:20"]);
    // One second: one label, not the same twice.
    expect(ends(await chartOf([["credits", "5", at(5, 9, 0)]]))).toEqual(["2026-11-05 09:00:00"]);
    const page = await request(`/users/${alice.id}`, cookie);
    const chart = page.html.slice(page.html.indexOf('<svg class="chart"'));
    expect(ends(chart.slice(0, chart.indexOf("</svg>")))).toEqual(["2026-11-03", "2026-11-18"]);
  });

  it("draws a balance that is not zero off the zero line, however large a peak beside it, and zero on it", async () => {
    const chart = await chartOf([
      ["credits", "1000000.00", at(5, 9, 0)],
      ["debits", "999995.00", at(5, 10, 0)],
      ["debits", "5.00", at(5, 11, 0)],
    ]);
    // The first line drawn is the zero line: y1 its height.
    const zero = Number(/<line x1="[\d.]+" y1="([\d.]+)"/.exec(chart)![1]);
    const ys = /<polyline[^>]* points="([^"]+)"/
      .exec(chart)![1]!
      .split(" ")
      .map((p) => Number(p.split(",")[1]));
    expect(ys).toHaveLength(3);
    // ₦5.00 at 6 units or more above the line (about 3 px on a phone), ₦0.00 on it.
    expect(zero - ys[1]!).toBeGreaterThanOrEqual(6);
    expect(ys[2]).toBe(zero);
  });

  it.each([
    ["a small figure below zero beside a peak", [-5, 100_000_000]],
    ["a small figure above zero beside a deep low", [5, -100_000_000]],
    ["figures below zero alone, one far below", [-100_000_000, -5]],
  ])("keeps every figure inside the plot: %s", (_, figures) => {
    // Kept off the zero line, a figure beside a far larger one on the other side of zero was
    // pushed past the plot's edge with its label, over the zero's (an imported balance below zero).
    const svg = String(
      Chart({
        title: "t",
        xSpan: [0, 60],
        yLabel: "balance",
        yFormat: String,
        lines: [{ label: "balance", points: figures.map((y, x) => ({ x, y })) }],
      }),
    );
    const points = /<polyline[^>]* points="([^"]+)"/.exec(svg)![1]!.split(" ");
    const ticks = [...svg.matchAll(/<text class="tick" [^>]*y="([^"]+)"/g)].map((m) => m[1]!);
    const ys = [...points.map((p) => p.split(",")[1]!), ...ticks].map(Number);
    expect(ticks.length).toBeGreaterThan(1);
    // Its figures and their labels: one line of legend: the plot runs from 40 (16 + 24) down to 168 (200 - 32).
    for (const y of ys) {
      expect(y).toBeGreaterThanOrEqual(40);
      expect(y).toBeLessThanOrEqual(168);
    }
  });
});
