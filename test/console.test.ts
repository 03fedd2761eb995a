// The operator console (/wallet-admin/, src/console/): sessions, CSRF, administrators only, and
// money moved through the API exactly once per form, refusals shown and nothing moved.

import { env } from "cloudflare:workers";
import { createHmac } from "node:crypto";
import { Hono } from "hono";
import { getSignedCookie } from "hono/cookie";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { unseal } from "../src/auth/sealed";
import { CONSOLE_AUDIENCE } from "../src/auth/tokens";
import { refusalText } from "../src/console/api";
import { back, noticeOf, PER_PAGE, SECRET_PURPOSE } from "../src/console/page";
import { consoleKey } from "../src/console/session";
import { askedPurpose } from "../src/console/user-money";
import { ApiError } from "../src/http/errors";
import {
  consoleOf,
  form,
  hidden,
  hiddenFields,
  NOTICE,
  noticeCookie,
  noticeLeft,
} from "./console-helpers";
import { losingReads, wrappedD1 } from "./d1-counter";
import {
  appendTurnover,
  balanceOf,
  CLEAN,
  call,
  credit,
  debit,
  importedEntry,
  ledgerViolations,
  MAX_AMOUNT,
  makeAdmin,
  makeUser,
  makeWallet,
  PASSWORD,
  signedToken,
  type TestUser,
  tableCounts,
  testApp,
  unique,
} from "./helpers";

const app = testApp();
const { request, follow } = consoleOf(app);

async function signIn(user: TestUser) {
  const res = await request("/sign-in", {
    method: "POST",
    body: form({ email: user.email, password: PASSWORD }),
  });
  expect(res.status, res.html).toBe(303);
  const cookie = res.headers.get("set-cookie")!;
  expect(cookie).toMatch(/HttpOnly/);
  expect(cookie).toMatch(/SameSite=Strict/);
  expect(cookie).toMatch(/Path=\/wallet-admin/);
  return cookie.split(";")[0]!;
}

let admin: TestUser;
let alice: TestUser;
let bob: TestUser;
let wallet: string;
let cookie: string;

beforeAll(async () => {
  admin = await makeAdmin();
  [alice, bob] = [await makeUser(), await makeUser()];
  wallet = await makeWallet(admin);
  await credit(admin, { user_id: alice.id, wallet_id: wallet, amount: "50.00" });
  cookie = await signIn(admin);
});

describe("signing in", () => {
  it("sends a visitor to the sign-in page, labelled Email and Password, under a strict CSP", async () => {
    const home = await request("/");
    expect(home.status).toBe(303);
    expect(home.headers.get("location")).toBe("/wallet-admin/sign-in");
    const page = await request("/sign-in");
    expect(page.html).toContain("Email");
    expect(page.html).toContain('type="password"');
    expect(page.html).toContain(">Sign in</button>");
    const csp = page.headers.get("content-security-policy")!;
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(page.html).not.toMatch(/<script>|\son\w+="|style="/);
  });

  it("refuses wrong credentials in words, and a subscriber politely, without a session", async () => {
    const wrong = await request("/sign-in", {
      method: "POST",
      body: form({ email: admin.email, password: "nope" }),
    });
    expect(wrong.status).toBe(400);
    expect(wrong.html).toContain("Those credentials were not accepted.");
    expect(wrong.headers.get("set-cookie")).toBeNull();
    const sub = await request("/sign-in", {
      method: "POST",
      body: form({ email: alice.email, password: PASSWORD }),
    });
    expect(sub.status).toBe(403);
    expect(sub.html).toContain("this console is for administrators");
    expect(sub.headers.get("set-cookie")).toBeNull();
  });

  it("sets the cookie Secure on https, and signing out forgets it", async () => {
    const res = await app.request(
      "https://wallet.example/wallet-admin/sign-in",
      {
        method: "POST",
        body: form({ email: admin.email, password: PASSWORD }),
        redirect: "manual",
      },
      env,
    );
    expect(res.headers.get("set-cookie")).toMatch(/Secure/);
    const mine = await signIn(admin);
    const overview = await request("/", { cookie: mine });
    const out = await request("/sign-out", {
      method: "POST",
      cookie: mine,
      body: form({ _csrf: hidden(overview.html, "_csrf") }),
    });
    expect(out.status).toBe(303);
    expect(out.headers.get("set-cookie")).toMatch(/wallet_admin=;.*Max-Age=0/);
    // A form the ended session still shows, sent from another tab, does nothing and says so.
    const before = await tableCounts();
    const late = await request(`/users/${alice.id}/credit`, {
      method: "POST",
      cookie: mine,
      body: form({ _csrf: hidden(overview.html, "_csrf"), amount: "1.00", wallet_id: wallet }),
    });
    expect(late.headers.get("location")).toBe("/wallet-admin/sign-in");
    expect(noticeLeft(late)).toMatch(/^error:You were signed out, so the form was not sent/);
    expect(await tableCounts()).toEqual(before);
  });

  it("names its cookies __Host- on https: one that a page elsewhere on the site sets for this host shadows none", async () => {
    const at = (path: string, init: RequestInit = {}) =>
      app.request(
        `https://wallet.example/wallet-admin${path}`,
        { ...init, redirect: "manual" },
        env,
      );
    const signedIn = await at("/sign-in", {
      method: "POST",
      body: form({ email: admin.email, password: PASSWORD }),
    });
    // A name a browser takes only from this very host over https, for the whole host: no sibling
    // subdomain can set a cookie of that name (another port of the host could: cookies know none).
    const set = signedIn.headers.get("set-cookie")!;
    expect(set).toMatch(
      /^__Host-wallet_admin=[^;]+; Max-Age=3600; Path=\/; HttpOnly; Secure; SameSite=Strict$/,
    );
    const session = set.split(";")[0]!;
    // What such a page can set: the plain name on a longer path, which a browser sends first. Read
    // as the session, garbage signed the operator out on every page, again after each sign-in, and
    // another administrator's console token put the operator in that account.
    const intruder = await makeAdmin();
    const { token } = await signedToken(intruder, { audience: CONSOLE_AUDIENCE });
    for (const tossed of ["wallet_admin=tossed", `wallet_admin=${token}`]) {
      const page = await at("/users", { headers: { Cookie: `${tossed}; ${session}` } });
      expect(page.status, tossed).toBe(200);
      expect(await page.text()).toContain(`<span class="muted">${admin.username} </span>`);
    }
    // Sign-out deletes that cookie, and its notice rides under the prefix too.
    const csrf = hidden(
      await (await at("/users", { headers: { Cookie: session } })).text(),
      "_csrf",
    );
    const out = await at("/sign-out", {
      method: "POST",
      headers: { Cookie: session },
      body: form({ _csrf: csrf }),
    });
    expect(out.status).toBe(303);
    const cookies = out.headers.getSetCookie();
    expect(cookies).toContain(
      "__Host-wallet_admin=; Max-Age=0; Path=/; HttpOnly; Secure; SameSite=Strict",
    );
    expect(cookies.find((c) => c.startsWith(`__Host-${NOTICE}=`))).toMatch(
      /; Max-Age=60; Path=\/; HttpOnly; Secure; SameSite=Strict$/,
    );
  });

  it("is linked from / and from the discovery index", async () => {
    for (const path of ["http://localhost/", "http://localhost/wp-json/"]) {
      const res = await app.request(path, {}, env);
      expect((await res.json<{ console: string }>()).console).toBe(`${env.SITE_URL}/wallet-admin/`);
    }
  });

  it("turns away a subscriber's console token", async () => {
    const { token } = await signedToken(alice, { audience: CONSOLE_AUDIENCE });
    const page = await request("/", { cookie: `wallet_admin=${token}` });
    expect(page.status).toBe(403);
    expect(page.html).toContain("this console is for administrators");
  });
});

describe("screens", () => {
  it("draws the overview, users, a user, wallets and API keys", async () => {
    // The list runs by id, PER_PAGE users a page: alice is on the first on a database of this file's
    // own, further on where the test files of a worker share one (vitest.config.ts).
    const earlier = await env.DB.prepare("SELECT count(*) AS n FROM users WHERE id < ?")
      .bind(alice.id)
      .first<{ n: number }>();
    const alicePage = Math.floor(earlier!.n / PER_PAGE) + 1;
    for (const [path, text] of [
      ["/", "Latest transactions"],
      [alicePage === 1 ? "/users" : `/users?page=${alicePage}`, alice.username],
      [`/users?q=${encodeURIComponent(alice.username)}`, alice.email],
      [`/users/${alice.id}`, "Statement"],
      ["/wallets", wallet],
      ["/api-keys", "New API key"],
    ] as const) {
      const page = await request(path, { cookie });
      expect(page.status, `${path}: ${page.html.slice(0, 200)}`).toBe(200);
      expect(page.html, path).toContain(text);
      // Standards mode, not quirks mode (whose tables do not inherit the page's font).
      expect(page.html, path).toMatch(/^<!doctype html><html lang="en">/);
    }
    expect((await request("/users/2000000000", { cookie })).status).toBe(404);
    expect((await request("/sign-in")).html).toMatch(/^<!doctype html>/);
  });

  it("starts every screen with a link past its navigation to its main content", async () => {
    for (const path of ["/", "/users", `/users/${alice.id}`, "/wallets", "/api-keys", "/outbox"]) {
      const page = await request(path, { cookie });
      const body = page.html.slice(page.html.indexOf("<body>") + "<body>".length);
      expect(body, path).toMatch(/^<a class="skip" href="#main">Skip to main content<\/a><header>/);
      expect(body, path).toContain('<main id="main"><h1>');
    }
    // The money forms' headings (h3) sit under one of their own, not under the chart's before them.
    const user = (await request(`/users/${alice.id}`, { cookie })).html;
    const headings = [...user.matchAll(/<h([23])>([^<]*)<\/h\1>/g)].map(
      ([, n, text]) => `h${n} ${text}`,
    );
    const credit = headings.indexOf("h3 Credit");
    expect(headings.slice(credit - 1, credit + 3)).toEqual([
      "h2 Move money",
      "h3 Credit",
      "h3 Debit",
      "h3 Transfer",
    ]);
  });

  it("says a list has nothing yet where it drew a table of a header row alone", async () => {
    const dan = await makeUser();
    const page = (await request(`/users/${dan.id}`, { cookie })).html;
    expect(page).toContain(
      '<section id="entries"><h2>Entries</h2><p class="muted">No entries yet.</p></section>',
    );
    expect(page).toContain('<h2>Holds</h2><p class="muted">No holds.');
    // No table of the page is a header row alone.
    expect(page).not.toContain("<tbody></tbody>");
  });

  it("chooses no wallet for a money form among several; the statement is of a wallet the user has", async () => {
    const zed = await makeWallet(admin, { id: `zz${unique("w").toLowerCase().slice(0, 20)}` });
    const carol = await makeUser();
    await credit(admin, { user_id: carol.id, wallet_id: zed, amount: "3" });
    const page = await request(`/users/${carol.id}`, { cookie });
    for (const action of ["credit", "debit", "transfer"]) {
      const start = page.html.indexOf(`action="/wallet-admin/users/${carol.id}/${action}"`);
      const select = page.html.slice(start).match(/<select name="wallet_id"[^>]*>(.*?)<\/select>/)!;
      expect(select[1], action).toMatch(/^<option value="">Choose a wallet<\/option>/);
      expect(select[1], action).not.toContain("selected");
    }
    expect(page.html).toContain(`<option value="${zed}" selected="">`);
    expect(page.html).toContain("Days in the site&#39;s time zone, UTC.");
  });

  it("answers a fault with a page naming its request id, never the API's JSON", async () => {
    const failing = (text: string) => {
      const session = {
        prepare: () => {
          throw new Error(text);
        },
        batch: () => Promise.reject(new Error(text)),
        getBookmark: () => null,
      };
      return { ...session, withSession: () => session } as unknown as D1Database;
    };
    vi.spyOn(console, "error").mockImplementation(() => {});
    for (const [text, status, words] of [
      ["D1_ERROR: Network connection lost. secret-detail", 503, "Service temporarily unavailable"],
      ["D1_ERROR: no such column: secret_detail", 500, "Internal error"],
    ] as const) {
      const page = await request("/", { cookie, vars: { DB: failing(text) } });
      expect(page.status, page.html.slice(0, 300)).toBe(status);
      expect(page.headers.get("content-type")).toMatch(/^text\/html/);
      expect(page.headers.get("content-security-policy")).toBeTruthy();
      expect(page.html).toContain(`The service could not finish this: ${words}.`);
      expect(page.html).toMatch(/Request id <code>[0-9a-f-]{36}<\/code>/);
      expect(page.html).not.toContain("secret");
    }
    vi.restoreAllMocks();
  });

  it("answers a page whose one read the database dropped with the fault page, not a zero balance", async () => {
    // The read of the user's available balances (balances less holds), one batch of its own.
    let lost = 0;
    const d1 = wrappedD1(async (statements, send) => {
      const sql = statements.map((s) => (s as unknown as { statement: string }).statement);
      if (!sql.some((text) => /"holds"/.test(text) && /"balances"/.test(text))) return send();
      lost++;
      throw new Error("D1_ERROR: Network connection lost.");
    });
    vi.spyOn(console, "error").mockImplementation(() => {});
    const page = await request(`/users/${alice.id}`, { cookie, vars: { DB: d1 } });
    vi.restoreAllMocks();
    expect(lost).toBeGreaterThan(0);
    expect(page.status).toBe(503);
    expect(page.html).toContain(
      "The service could not finish this: Service temporarily unavailable.",
    );
  });

  it('counts in a wallet\'s "balances of N users" only the users holding some of it', async () => {
    // A user whose balance went back to zero holds nothing: counted, the overview said two users
    // held the ₦5.00 one user holds.
    const name = unique("Counted");
    const counted = await makeWallet(admin, { name });
    const [holder, emptied] = [await makeUser(), await makeUser()];
    for (const user of [holder, emptied])
      await credit(admin, { user_id: user.id, wallet_id: counted, amount: "5.00" });
    await debit(admin, { user_id: emptied.id, wallet_id: counted, amount: "5.00" });
    const page = await request("/", { cookie });
    expect(page.html).toContain(`<h2>${name}</h2><p>₦5.00 in the balances of 1 user</p>`);
  });

  it("adds up the overview's money exactly past 2^53 units", async () => {
    const big = await makeWallet(admin, { name: "Big Wallet", symbol: "B", decimals: 0 });
    const max = "999999999999999";
    for (const amount of [...Array<string>(9).fill(max), "999999999999998"]) {
      const holder = await makeUser();
      expect((await credit(admin, { user_id: holder.id, wallet_id: big, amount })).status).toBe(
        200,
      );
    }
    // 10 × 999,999,999,999,999 − 1: odd and above 2^53, so no JSON number can carry it.
    const total = "B9,999,999,999,999,989";
    const page = await request("/", { cookie });
    expect(page.html).toContain(`${total} in the balances of 10 users`);
    expect(page.html).toContain(`<td class="num">${total}</td>`);
  });

  it("adds up the overview's money past 2^63 units, where SQLite's sum() of integers overflows", async () => {
    const huge = await makeWallet(admin, { name: "Huge Wallet", symbol: "H", decimals: 0 });
    const holders = 9_224;
    const tag = unique("h");
    // 9,224 users each holding the largest balance, and one with 9,224 pairs of largest moves today.
    await env.DB.batch([
      env.DB.prepare(
        `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?1)
         INSERT INTO users (username, email, password_hash, role, registered_at_ms)
         SELECT ?2 || i, ?2 || i || '@example.test', 'x', 'subscriber', 0 FROM n`,
      ).bind(holders, tag),
      env.DB.prepare(
        `INSERT INTO transactions (user_id, wallet_id, txn_type, amount_minor, amount_text,
           balance_before_minor, balance_after_minor, request_id, request_key, note, title, slug_base,
           slug, created_at_s)
         SELECT id, ?1, 'CREDIT', ${MAX_AMOUNT}, '${MAX_AMOUNT}', 0, ${MAX_AMOUNT}, username, username,
           '', 't', username, username, 1700000000 FROM users WHERE username LIKE ?2 || '%'`,
      ).bind(huge, tag),
    ]);
    const mover = await makeUser();
    const movedS = Math.floor(Date.now() / 1000) - 60;
    await appendTurnover(mover.id, huge, holders, movedS);
    // 9,224 × 999,999,999,999,999 = 9,223,999,999,999,990,776 > 2^63 − 1
    const total = "H9,223,999,999,999,990,776";
    const page = await request("/", { cookie });
    expect(page.status, page.html.slice(0, 300)).toBe(200);
    // The mover's balance of 0 is none of it.
    expect(page.html).toContain(`${total} in the balances of ${holders} users`);
    // The moves' day in the figures, and the chart's days: the last 30 UTC days, today's the last.
    const dayOf = (s: number) => new Date(s * 1000).toISOString().slice(0, 10);
    const todayS = Math.floor(Date.now() / 1000);
    const [today, first] = [dayOf(todayS), dayOf(todayS - 29 * 86_400)];
    const row = `<td><time datetime="${dayOf(movedS)}"><span>${dayOf(movedS)}</span></time></td>`;
    expect(page.html).toContain(`${row}<td class="num">${total}</td><td class="num">${total}</td>`);
    const chart = page.html.slice(page.html.indexOf("Huge Wallet: money in and out"));
    expect(chart).toMatch(
      new RegExp(`>${first}</text><text [^>]*text-anchor="end">${today}</text>`),
    );
  });

  it("reads a value its query cannot use as the page's default, never a refusal", async () => {
    const first = await request(`/users?q=${encodeURIComponent(alice.username)}`, { cookie });
    for (const page of ["abc", "0", "-1", "2.5", ""]) {
      const list = await request(`/users?q=${encodeURIComponent(alice.username)}&page=${page}`, {
        cookie,
      });
      expect(list.status, page).toBe(200);
      expect(list.html, page).toContain(alice.email);
      expect((await request(`/users/${alice.id}?page=${page}`, { cookie })).status, page).toBe(200);
    }
    expect(first.html).toContain(alice.email);
    // A search longer than a D1 LIKE pattern holds (50 bytes) finds what its start finds.
    const long = await makeUser("subscriber", `${unique("long")}${"a".repeat(50)}`);
    for (const q of [`${long.username}${"x".repeat(60)}`, `${long.username}${"%_é".repeat(40)}`]) {
      const found = await request(`/users?q=${encodeURIComponent(q)}`, { cookie });
      expect(found.status, q).toBe(200);
      expect(found.html, q).toContain(long.email);
    }
  });

  it("answers an address that names no screen with an HTML page, under the CSP", async () => {
    const page = await request("/no-such-screen", { cookie });
    expect(page.status).toBe(404);
    expect(page.headers.get("content-type")).toMatch(/^text\/html/);
    expect(page.html).toContain("No console page is at this address");
    expect(page.headers.get("content-security-policy")).toContain("default-src 'none'");
    const visitor = await request("/no-such-screen");
    expect(visitor.status, "a signed-out visitor is sent to sign in").toBe(303);
  });

  it.each(["abc", "1e3", "-1", "0x1f", "1234567890123456", "12345678901234567890"])(
    "answers a path id %s, which names no record, with the HTML not-found page on every screen",
    async (bad) => {
      const csrf = hidden((await request("/", { cookie })).html, "_csrf");
      const before = await tableCounts();
      const pages = [
        ["GET", `/users/${bad}`],
        ["GET", `/users/${bad}/statement.csv?wallet=${wallet}&from=2026-01-01&to=2026-01-02`],
        ["GET", `/users/${alice.id}/reverse/${bad}`],
        ["GET", `/users/${bad}/reverse/1`],
        ["GET", `/batches/${bad}`],
        ["POST", `/users/${bad}/credit`],
        ["POST", `/users/${bad}/transfer`],
        ["POST", `/users/${bad}/sessions/revoke`],
        ["POST", `/users/${alice.id}/reverse/${bad}`],
        ["POST", `/users/${alice.id}/holds/${bad}/capture`],
        ["POST", `/users/${bad}/holds/1/void`],
        ["POST", `/batches/${bad}/reverse`],
        ["POST", `/webhooks/${bad}/test`],
        ["POST", `/webhooks/${bad}/resend`],
        ["POST", `/webhooks/${bad}/delete`],
        ["POST", `/api-keys/${bad}/revoke`],
      ] as const;
      for (const [method, path] of pages) {
        const body =
          method === "POST"
            ? form({ _csrf: csrf, wallet_id: wallet, amount: "1", to_user_id: bob.id, event_id: 1 })
            : undefined;
        const page = await request(path, { method, cookie, body });
        expect(page.status, `${method} ${path}`).toBe(404);
        expect(page.headers.get("content-type"), `${method} ${path}`).toMatch(/^text\/html/);
        expect(page.html, `${method} ${path}`).toContain("No console page is at this address");
      }
      expect(await tableCounts()).toEqual(before);
    },
  );

  it("has an icon, linked from every page and answered for /favicon.ico", async () => {
    const page = await request("/", { cookie });
    expect(page.html).toContain(
      '<link rel="icon" type="image/svg+xml" href="/wallet-admin/icon.svg"',
    );
    const icon = await request("/icon.svg");
    expect(icon.status).toBe(200);
    expect(icon.headers.get("content-type")).toBe("image/svg+xml");
    expect(icon.html).toMatch(/^<svg /);
    const favicon = await app.request("/favicon.ico", {}, env);
    expect(favicon.status).toBe(200);
    expect(favicon.headers.get("content-type")).toBe("image/svg+xml");
  });
});

describe("notices", () => {
  /** The notice cookie `back` sets for `text`, on a bare app with the test's JWT_SECRET. */
  const leave = async (
    text: string,
    secret = env.JWT_SECRET,
    refused?: { form: string; fields: Record<string, string> },
    origin = "http://localhost",
  ) => {
    const app = new Hono();
    app.get("/", (c) => back(c as never, "/wallet-admin/users", { kind: "error", text, refused }));
    return app.request(`${origin}/`, {}, { ...env, JWT_SECRET: secret });
  };

  it("ride in a signed cookie of the console's own for a minute, at most 300 characters", async () => {
    const res = await leave("€".repeat(999), env.JWT_SECRET, undefined, "https://wallet.example");
    expect(res.status).toBe(303);
    expect(noticeLeft(res)).toBe(`error:${"€".repeat(299)}…`);
    const set = noticeCookie(res)!;
    expect(set.length).toBeLessThan(4096); // a browser's cookie
    expect(set).toMatch(
      /^__Host-wallet_admin_notice=[^;]+; Max-Age=60; Path=\/; HttpOnly; Secure; SameSite=Strict$/,
    );
  });

  it("carry a refused form's fields while the cookie holds them: without a long note, else none", async () => {
    const fields = { amount: "1.00", request_id: "console-k" };
    const fits = (text: string, note: string, amount = "1.00") =>
      leave(text, env.JWT_SECRET, { form: "credit", fields: { ...fields, note, amount } });
    const stored = (res: Response) => decodeURIComponent(noticeCookie(res)!.split(";")[0]!);
    expect(stored(await fits("short", "€".repeat(200)))).toContain("€".repeat(200));
    const long = await fits("€".repeat(299), "€".repeat(200));
    expect(stored(long)).toContain('"amount":"1.00"');
    expect(stored(long)).not.toContain('"note"');
    expect(noticeCookie(long)!.length).toBeLessThan(4096);
    const huge = await fits("😀".repeat(299), "x", "9".repeat(2_000));
    expect(stored(huge)).toContain("😀".repeat(299));
    expect(stored(huge)).not.toContain('"fields"');
    expect(noticeCookie(huge)!.length).toBeLessThan(4096);
  });

  it("are shown once, and only when this service signed them: no address or other cookie puts words on a page", async () => {
    const shows = async (extra: string, path = "/users") =>
      (await request(path, { cookie: `${cookie}; ${extra}` })).html.includes("Refused here");
    const signed = noticeCookie(await leave("Refused here"))!.split(";")[0]!;
    const page = await request("/users", { cookie: `${cookie}; ${signed}` });
    expect(page.html).toContain("Refused here");
    expect(page.headers.get("set-cookie")).toMatch(
      /^wallet_admin_notice=; Max-Age=0; Path=\/wallet-admin/,
    );
    expect(await shows("", "/users?ok=Refused+here&error=Refused+here")).toBe(false);
    expect(await shows(`${NOTICE}=${encodeURIComponent("error:Refused here")}`)).toBe(false);
    const forged = noticeCookie(await leave("Refused here", "another-secret-of-32-characters!!"))!;
    expect(await shows(forged.split(";")[0]!)).toBe(false);
  });

  it("are shown only on the page they were left for: another tab's page neither shows nor spends one", async () => {
    const signed = noticeCookie(await leave("Refused here"))!.split(";")[0]!;
    const elsewhere = await request("/wallets", { cookie: `${cookie}; ${signed}` });
    expect(elsewhere.html).not.toContain("Refused here");
    expect(elsewhere.headers.get("set-cookie")).toBeNull();
    expect((await request("/users", { cookie: `${cookie}; ${signed}` })).html).toContain(
      "Refused here",
    );
  });
});

describe("moving money", () => {
  const userPage = () => request(`/users/${alice.id}`, { cookie });
  /** A money form of `page` sent to `path`: its CSRF token and key, the test's wallet, `fields`. */
  const sendForm = (
    page: { html: string },
    path: string,
    fields: Record<string, string | number>,
  ) =>
    request(path, {
      method: "POST",
      cookie,
      body: form({
        _csrf: hidden(page.html, "_csrf"),
        request_id: hidden(page.html, "request_id"),
        wallet_id: wallet,
        ...fields,
      }),
    });
  /** The newest entry of a user's: the one a form just wrote. */
  const newestEntryOf = async (userId: number) =>
    (await env.DB.prepare("SELECT max(id) AS id FROM transactions WHERE user_id = ?")
      .bind(userId)
      .first<{ id: number }>())!.id;
  const transferPath = () => `/users/${alice.id}/transfer`;
  /** Alice's transfer form sent: the confirmation page it redirects to (nothing moved yet). */
  const askTransfer = async (fields: Record<string, string | number>, page?: { html: string }) => {
    const asked = await sendForm(page ?? (await userPage()), transferPath(), fields);
    expect(asked.status, asked.html.slice(0, 300)).toBe(303);
    const shown = await follow(asked, cookie);
    expect(shown.status, shown.html.slice(0, 300)).toBe(200);
    return shown;
  };
  /** A transfer's confirmation page answered with its button `step` (Confirm or Cancel). */
  const answer = (asked: { html: string }, step: "confirm" | "cancel") =>
    request(transferPath(), {
      method: "POST",
      cookie,
      body: form({ ...hiddenFields(asked.html, transferPath()), step }),
    });
  /** Alice's transfer of `amount` to Bob through her page's form; Bob's half, his newest entry. */
  const transferToBob = async (amount: string) => {
    const res = await answer(await askTransfer({ amount, to_user_id: bob.id }), "confirm");
    expect(noticeLeft(res)).toContain("Transfer Action Completed");
    return newestEntryOf(bob.id);
  };

  it("asks before a transfer, naming both users as the ledger read the id typed, the wallet and the amount it writes", async () => {
    // Moved at once, a mistyped id sent the money to a stranger, named only afterwards.
    const before = await tableCounts();
    const page = await userPage();
    const asked = await askTransfer(
      { amount: "007.5", to_user_id: ` 0${bob.id}`, note: "rent" },
      page,
    );
    expect(await tableCounts()).toEqual(before);
    expect(asked.html).toContain(`<h1>Transfer ₦7.50 to ${bob.username}?</h1>`);
    for (const [label, value] of [
      ["From", `${alice.username} (user ${alice.id})`],
      ["To", `${bob.username} (user ${bob.id})`],
      ["Wallet", `Naira Wallet (${wallet})`],
      ["Amount", "₦7.50"],
      ["Note", "rent"],
    ])
      expect(asked.html, label).toContain(`<th>${label}</th><td>${value}</td>`);
    // Its button names the recipient again: the one click that moves the money says to whom.
    expect(asked.html).toContain(
      `<button type="submit" name="step" value="confirm">Transfer ₦7.50 to <span class="name">${bob.username}</span></button>`,
    );
    expect(asked.html).toContain(`name="step" value="cancel"`);
    // Nothing has focus as it opens (nothing was refused or done): its first Tab is not the button.
    expect(asked.html).not.toContain("autofocus");
    // The confirmation carries the form's own key: a double click on either page moves money once.
    expect(hiddenFields(asked.html, transferPath()).request_id).toBe(
      hidden(page.html, "request_id"),
    );
  });

  it.each([
    ["credit", "to", "Transaction Completed: ₦7.50 credited"],
    ["debit", "from", "Transaction Completed: ₦7.50 debited"],
  ] as const)(
    "asks before a %s, naming the user, the wallet and the amount it writes, and moves it once",
    async (action, way, done) => {
      // Moved on the first click, an amount mistyped (75 for 7.5) was written before anyone read it.
      await sendForm(await userPage(), `/users/${alice.id}/credit`, {
        amount: "20",
        step: "confirm",
      });
      const path = `/users/${alice.id}/${action}`;
      const label = `${action[0]!.toUpperCase()}${action.slice(1)}`;
      const before = await tableCounts();
      const page = await userPage();
      const asked = await sendForm(page, path, { amount: "007.5", note: "rent" });
      expect(asked.status).toBe(303);
      const location = asked.headers.get("location") ?? "";
      expect(location).toMatch(new RegExp(`^/wallet-admin${path}\\?ask=`));
      const reload = () => request(location.replace("/wallet-admin", ""), { cookie });
      const shown = await reload();
      expect(await tableCounts()).toEqual(before);
      expect(shown.html).toContain(`<h1>${label} ₦7.50 ${way} ${alice.username}?</h1>`);
      for (const [name, value] of [
        ["User", `${alice.username} (user ${alice.id})`],
        ["Wallet", `Naira Wallet (${wallet})`],
        ["Amount", "₦7.50"],
        ["Note", "rent"],
      ])
        expect(shown.html, name).toContain(`<th>${name}</th><td>${value}</td>`);
      expect(shown.html).toContain(
        `<button type="submit" name="step" value="confirm">${label} ₦7.50 ${way} <span class="name">${alice.username}</span></button>`,
      );
      const fields = hiddenFields(shown.html, path);
      expect(fields.request_id).toBe(hidden(page.html, "request_id"));
      // Its own ask only: the other money forms' addresses show none waiting.
      const other = action === "credit" ? "debit" : "credit";
      const elsewhere = await request(
        location.replace("/wallet-admin", "").replace(action, other),
        {
          cookie,
        },
      );
      expect(elsewhere.html).toContain(`No ${other} is waiting to be confirmed here`);
      // Cancelled: nothing moved, the form back as typed with its key.
      const cancelled = await request(path, {
        method: "POST",
        cookie,
        body: form({ ...fields, step: "cancel" }),
      });
      expect(noticeLeft(cancelled)).toBe(`ok:${label} cancelled: nothing moved.`);
      const kept = (await follow(cancelled, cookie)).html;
      const again = kept.slice(kept.indexOf(`${path}"`));
      expect(again.slice(0, again.indexOf("</form>"))).toContain('value="007.5"');
      expect(await tableCounts()).toEqual(before);
      // Confirmed twice (a double click): moved once, and the confirmation is gone.
      const confirm = () =>
        request(path, { method: "POST", cookie, body: form({ ...fields, step: "confirm" }) });
      expect(noticeLeft(await confirm())).toContain(done);
      expect(noticeLeft(await confirm())).toMatch(/^ok:Already done/);
      expect(noticeLeft(await reload())).toMatch(/^ok:Already done/);
      const cancelledLate = await request(path, {
        method: "POST",
        cookie,
        body: form({ ...fields, step: "cancel" }),
      });
      expect(noticeLeft(cancelledLate)).toMatch(
        new RegExp(`^error:Not cancelled: this ${action} was confirmed before`),
      );
      expect((await tableCounts()).transactions).toBe(before.transactions! + 1);
    },
  );

  it("answers the transfer form with a 303 to its confirmation: a reload or Back fetches it, posting nothing", async () => {
    // The confirmation as the form's post's own answer: a reload of it, or Back to it once
    // confirmed, had the browser ask to send the form again.
    const before = await tableCounts();
    const asked = await sendForm(await userPage(), transferPath(), {
      amount: "1.25",
      to_user_id: bob.id,
    });
    expect(asked.status, asked.html.slice(0, 300)).toBe(303);
    const location = asked.headers.get("location") ?? "";
    expect(location).toMatch(new RegExp(`^/wallet-admin${transferPath()}\\?ask=`));
    const reload = () => request(location.replace("/wallet-admin", ""), { cookie });
    for (const shown of [await reload(), await reload()]) {
      expect(shown.status).toBe(200);
      expect(shown.html).toContain(`<h1>Transfer ₦1.25 to ${bob.username}?</h1>`);
    }
    expect(await tableCounts()).toEqual(before);
    const moved = await answer(await reload(), "confirm");
    expect(moved.status).toBe(303);
    expect(moved.headers.get("location")).toBe(`/wallet-admin/users/${alice.id}`);
    // Back to the confirmation once confirmed: told it moved, never asked again.
    const back = await reload();
    expect(back.status).toBe(303);
    expect(noticeLeft(back)).toMatch(/^ok:Already done/);
    // The address alone, or with its ask for another operator's session, confirms nothing.
    const other = await signIn(admin);
    for (const shown of [
      await request(transferPath(), { cookie }),
      await request(location.replace("/wallet-admin", ""), { cookie: other }),
    ]) {
      expect(shown.status).toBe(200);
      expect(shown.html).not.toContain(bob.username);
      expect(shown.html).toContain("No transfer is waiting to be confirmed here");
    }
  });

  it("keeps a transfer's confirmation address short whatever zeros lead the recipient's id", async () => {
    const asked = await sendForm(await userPage(), transferPath(), {
      amount: "1.25",
      to_user_id: `${"0".repeat(5000)}${bob.id}`,
      note: "n".repeat(200),
    });
    expect(asked.status).toBe(303);
    const location = asked.headers.get("location")!;
    // The sealed fields hold the recipient's id as read, not as typed: an address a browser and
    // Cloudflare take (16 KB at most), whatever the form held.
    expect(location.length).toBeLessThan(2000);
    const shown = await request(location.replace("/wallet-admin", ""), { cookie });
    expect(shown.html).toContain(`<h1>Transfer ₦1.25 to ${bob.username}?</h1>`);
  });

  it("shows a transfer's confirmation only for its own ask, user and session: any other ask says none waits", async () => {
    const asked = await sendForm(await userPage(), transferPath(), {
      amount: "2.75",
      to_user_id: bob.id,
      note: "secret-note-xyz",
    });
    expect(asked.status).toBe(303);
    const location = asked.headers.get("location")!;
    // A path on this console, never another origin.
    expect(location.startsWith(`/wallet-admin/users/${alice.id}/transfer?ask=`)).toBe(true);
    const ask = new URL(location, "http://x").searchParams.get("ask")!;
    // Nothing of the form readable from the address: the note, the amount, the recipient.
    const opened = ask
      .split(":")
      .slice(1)
      .map((part) => atob(part))
      .join("");
    for (const text of ["secret-note-xyz", "2.75", "to_user_id", "wallet_id"])
      expect(`${location}${opened}`, text).not.toContain(text);
    const waiting = "No transfer is waiting to be confirmed here";
    const shows = async (path: string, who = cookie) => {
      const res = await request(path, { cookie: who });
      expect(res.status, `${path.slice(0, 80)} ${res.html.slice(0, 200)}`).toBeLessThan(500);
      return res;
    };
    const own = `/users/${alice.id}/transfer`;
    const q = encodeURIComponent;
    const [v, iv, data] = ask.split(":") as [string, string, string];
    // A character inside the text: every bit of it counts (a last one may carry bits base64 drops).
    const mid = data.length >> 1;
    const flipped = `${v}:${iv}:${data.slice(0, mid)}${data[mid] === "A" ? "B" : "A"}${data.slice(mid + 1)}`;
    for (const bad of [
      "",
      "v1",
      "v1::",
      `v2:${ask.slice(3)}`,
      flipped,
      ask.slice(0, -4),
      `${v}:${iv}:${data.slice(0, 8)}`,
      `${v}:${data}:${iv}`,
      `${v}:AAAA:${data}`,
      `${v}:${iv}:@@@@`,
      "v1:!!!:???",
      "%E0%A4%A",
      "A".repeat(20_000),
      `${v}:${iv}:${"A".repeat(20_000)}`,
    ]) {
      const res = await shows(`${own}?ask=${bad.startsWith("%") ? bad : q(bad)}`);
      expect(res.status, bad.slice(0, 40)).toBe(200);
      expect(res.html, bad.slice(0, 40)).toContain(waiting);
      expect(res.html, bad.slice(0, 40)).not.toContain("secret-note-xyz");
    }
    // Another user's page: the ask is Alice's form, not Bob's.
    const onBob = await shows(`/users/${bob.id}/transfer?ask=${q(ask)}`);
    expect(onBob.html).toContain(waiting);
    // Another session of the same operator, and another operator's.
    const other = await makeAdmin();
    for (const who of [await signIn(admin), await signIn(other)]) {
      const res = await shows(`${own}?ask=${q(ask)}`, who);
      expect(res.html).toContain(waiting);
      expect(res.html).not.toContain("secret-note-xyz");
    }
    // Repeated: the first counts, as for any console parameter; none fails.
    for (const path of [`${own}?ask=${q(ask)}&ask=junk`, `${own}?ask=junk&ask=${q(ask)}`])
      expect((await shows(path)).status).toBe(200);
    // Its own session, user and ask: the confirmation.
    expect((await shows(`${own}?ask=${q(ask)}`)).html).toContain("secret-note-xyz");
    // Signed out, the address opens nothing, and signed in again it is another session's.
    const mine = await signIn(admin);
    const minePage = await request(`/users/${alice.id}`, { cookie: mine });
    const mineAsked = await request(transferPath(), {
      method: "POST",
      cookie: mine,
      body: form({
        _csrf: hidden(minePage.html, "_csrf"),
        request_id: hidden(minePage.html, "request_id"),
        wallet_id: wallet,
        amount: "1.00",
        to_user_id: bob.id,
      }),
    });
    const mineLocation = mineAsked.headers.get("location")!.replace("/wallet-admin", "");
    expect((await shows(mineLocation, mine)).html).toContain(`Transfer ₦1.00 to ${bob.username}?`);
    await request("/sign-out", {
      method: "POST",
      cookie: mine,
      body: form({ _csrf: hidden(minePage.html, "_csrf") }),
    });
    const out = await shows(mineLocation, mine);
    expect(out.status).toBe(303);
    expect(out.headers.get("location")).toBe("/wallet-admin/sign-in");
  });

  it("moves a transfer once from a confirmation open in two tabs, confirmed in both, or confirmed after its Cancel", async () => {
    const before = await balanceOf(admin, bob.id, wallet);
    const asked = await sendForm(await userPage(), transferPath(), {
      amount: "0.30",
      to_user_id: bob.id,
    });
    const path = asked.headers.get("location")!.replace("/wallet-admin", "");
    const [tab1, tab2] = [await request(path, { cookie }), await request(path, { cookie })];
    const [one, two] = await Promise.all([answer(tab1, "confirm"), answer(tab2, "confirm")]);
    expect([noticeLeft(one), noticeLeft(two)].sort()).toEqual([
      expect.stringMatching(/^ok:Already done/),
      expect.stringMatching(/^ok:Transfer Action Completed/),
    ]);
    expect(await balanceOf(admin, bob.id, wallet)).toBeCloseTo(before + 0.3, 6);
    // Cancelled, then Back to its confirmation and confirmed: it moves once, the operator's choice.
    const second = await sendForm(await userPage(), transferPath(), {
      amount: "0.40",
      to_user_id: bob.id,
    });
    const path2 = second.headers.get("location")!.replace("/wallet-admin", "");
    const shown = await request(path2, { cookie });
    expect(noticeLeft(await answer(shown, "cancel"))).toBe("ok:Transfer cancelled: nothing moved.");
    const again = await request(path2, { cookie });
    expect(again.status).toBe(200);
    expect(noticeLeft(await answer(again, "confirm"))).toMatch(/^ok:Transfer Action Completed/);
    expect(noticeLeft(await answer(shown, "confirm"))).toMatch(/^ok:Already done/);
    expect(await balanceOf(admin, bob.id, wallet)).toBeCloseTo(before + 0.7, 6);
  });

  it("logs no field of a transfer form in clear, from its post to its confirmation", async () => {
    const lines: string[] = [];
    const spies = (["log", "error", "warn", "info"] as const).map((m) =>
      vi.spyOn(console, m).mockImplementation((...args: unknown[]) => {
        lines.push(args.map(String).join(" "));
      }),
    );
    try {
      const asked = await sendForm(await userPage(), transferPath(), {
        amount: "4.44",
        to_user_id: bob.id,
        note: "note-in-clear-q9",
      });
      const shown = await follow(asked, cookie);
      expect(shown.html).toContain("note-in-clear-q9");
      await answer(shown, "cancel");
    } finally {
      for (const spy of spies) spy.mockRestore();
    }
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) {
      expect(line).not.toContain("note-in-clear-q9");
      expect(line).not.toContain("4.44");
      expect(line).not.toContain("ask=");
    }
  });

  it("moves a confirmed transfer once however often its confirmation is sent, and names whom it reached", async () => {
    const before = await balanceOf(admin, bob.id, wallet);
    const asked = await askTransfer({ amount: "0.10", to_user_id: ` 0${bob.id}` });
    // Without its CSRF token the confirmation does nothing.
    const counts = await tableCounts();
    const { _csrf, ...unsigned } = hiddenFields(asked.html, transferPath());
    const forged = await request(transferPath(), {
      method: "POST",
      cookie,
      body: form({ ...unsigned, step: "confirm" }),
    });
    expect(forged.status).toBe(403);
    expect(await tableCounts()).toEqual(counts);
    const [first, again] = [await answer(asked, "confirm"), await answer(asked, "confirm")];
    expect(noticeLeft(first)).toBe(
      `ok:Transfer Action Completed: ₦0.10 (${wallet}) to ${bob.username} (user ${bob.id}).`,
    );
    expect(noticeLeft(again)).toMatch(/^ok:Already done/);
    expect(await balanceOf(admin, bob.id, wallet)).toBeCloseTo(before + 0.1, 6);
  });

  it("never says a confirmed transfer moved nothing: its confirmation sent again, or cancelled, after it moved", async () => {
    // Back to a confirmation already confirmed, Cancel said "nothing moved" of money that had.
    const asked = await askTransfer({ amount: "0.20", to_user_id: bob.id });
    const moved = await answer(asked, "confirm");
    expect(noticeLeft(moved)).toContain("Transfer Action Completed");
    const counts = await tableCounts();
    const cancelled = await answer(asked, "cancel");
    expect(noticeLeft(cancelled)).toBe(
      "error:Not cancelled: this transfer was confirmed before, and the money moved once. Reverse it to undo it.",
    );
    // The form's post sent again (a reload of its confirmation): no page says nothing has moved.
    const { step: _, ...sent } = hiddenFields(asked.html, transferPath());
    const again = await request(transferPath(), { method: "POST", cookie, body: form(sent) });
    expect(noticeLeft(again)).toMatch(/^ok:Already done/);
    expect(await tableCounts()).toEqual(counts);
  });

  it("cancels a transfer at its confirmation: nothing moves, and the form comes back as typed", async () => {
    const before = await tableCounts();
    const asked = await askTransfer({ amount: "3.00", to_user_id: bob.id, note: "oops" });
    const cancelled = await answer(asked, "cancel");
    expect(cancelled.status).toBe(303);
    expect(noticeLeft(cancelled)).toBe("ok:Transfer cancelled: nothing moved.");
    expect(await tableCounts()).toEqual(before);
    const shown = await follow(cancelled, cookie);
    const start = shown.html.indexOf(`action="/wallet-admin${transferPath()}"`);
    const kept = shown.html.slice(start, shown.html.indexOf("</form>", start));
    expect(kept).toContain(
      `name="to_user_id" inputmode="numeric" required="" autocomplete="off" placeholder="user id" value="${bob.id}"`,
    );
    expect(kept).toContain('value="oops"');
  });

  it("refuses at the transfer's confirmation what the ledger refuses before moving anything", async () => {
    const before = await tableCounts();
    for (const [fields, why] of [
      [{ amount: "1.00", to_user_id: alice.id }, "to_user_id must differ from from_user_id"],
      [{ amount: "1.001", to_user_id: bob.id }, "more decimal places than wallet"],
      [{ amount: "1.00", to_user_id: "bob" }, "to_user_id requires an integer"],
      // A mistyped id that reaches nobody: named as typed.
      [{ amount: "1.00", to_user_id: "9007199254740991" }, "No user 9007199254740991."],
    ] as const) {
      const res = await sendForm(await userPage(), transferPath(), fields);
      expect(res.status, why).toBe(303);
      expect(noticeLeft(res), why).toMatch(/^error:Transfer refused\. /);
      expect(noticeLeft(res), why).toContain(why);
    }
    expect(await tableCounts()).toEqual(before);
  });

  it("says what a credit or a debit moved as the ledger wrote it: the wallet's figure, which way, which entry", async () => {
    // As typed, "007" and "5.1" read `Transaction Completed: 007 ngn.` after a credit and a debit alike.
    const credited = await sendForm(await userPage(), `/users/${alice.id}/credit`, {
      amount: "007",
      step: "confirm",
    });
    expect(noticeLeft(credited)).toBe(
      `ok:Transaction Completed: ₦7.00 credited (${wallet}, transaction ${await newestEntryOf(alice.id)}).`,
    );
    const debited = await sendForm(await userPage(), `/users/${alice.id}/debit`, {
      amount: "5.1",
      step: "confirm",
    });
    expect(noticeLeft(debited)).toBe(
      `ok:Transaction Completed: ₦5.10 debited (${wallet}, transaction ${await newestEntryOf(alice.id)}).`,
    );
  });

  it("names a wallet as the API does: a pasted id's stray space trimmed, a no-break space not", async () => {
    const trimmed = await sendForm(await userPage(), `/users/${alice.id}/credit`, {
      wallet_id: ` ${wallet.toUpperCase()}\n`,
      amount: "1",
      step: "confirm",
    });
    expect(noticeLeft(trimmed)).toMatch(/^ok:Transaction Completed: ₦1\.00 credited/);
    const before = await tableCounts();
    for (const space of ["\u00a0", "\u2003"]) {
      const res = await sendForm(await userPage(), `/users/${alice.id}/credit`, {
        wallet_id: `${wallet}${space}`,
        amount: "1",
      });
      expect(noticeLeft(res), JSON.stringify(space)).toMatch(/^error:/);
    }
    expect(await tableCounts()).toEqual(before);
  });

  it("names an unknown user to transfer to in its own words, and writes nothing", async () => {
    const before = await tableCounts();
    const res = await sendForm(await userPage(), `/users/${alice.id}/transfer`, {
      amount: "1.00",
      to_user_id: 999999999,
    });
    expect(noticeLeft(res)).toContain("Transfer refused. No user 999999999.");
    expect(await tableCounts()).toEqual(before);
  });

  // The console's words are its own, but which faults it names, and in which order, are the API's:
  // a form naming an unknown wallet or recipient and a refused amount said only one of them.
  it.each([
    ["credit", { wallet_id: "nosuchwalletzz", amount: "0" }],
    ["debit", { wallet_id: "nosuchwalletzz", amount: "abc" }],
    ["transfer", { to: "nobody", wallet_id: "nosuchwalletzz", amount: "1" }],
    ["transfer", { to: "nobody", amount: "1.001" }],
    ["transfer", { to: "self", wallet_id: "nosuchwalletzz", amount: "1" }],
    ["transfer", { to: "self", amount: "1.001" }],
  ] as const)("names a %s form's faults as the API does: %o", async (action, sent) => {
    const { to, ...fields } = { to: undefined, ...sent };
    const recipient = to === "self" ? alice.id : 999_999_997;
    const ends: Record<string, number> = action === "transfer" ? { to_user_id: recipient } : {};
    const api = await call("POST", `/${action}s`, {
      auth: admin.bearer,
      body: {
        ...(action === "transfer" ? { from_user_id: alice.id, ...ends } : { user_id: alice.id }),
        wallet_id: wallet,
        request_id: unique("r"),
        ...fields,
      },
    });
    expect(api.status).toBe(400);
    const before = await tableCounts();
    const res = await sendForm(await userPage(), `/users/${alice.id}/${action}`, {
      ...ends,
      ...fields,
    });
    const label = action[0]!.toUpperCase() + action.slice(1);
    expect(noticeLeft(res)).toBe(
      `error:${label} refused. invalid input: ${Object.values(api.body.error).join("; ")}`,
    );
    expect(await tableCounts()).toEqual(before);
  });

  it("refuses a form without its CSRF token, and writes nothing", async () => {
    const before = await tableCounts();
    const res = await request(`/users/${alice.id}/credit`, {
      method: "POST",
      cookie,
      body: form({ wallet_id: wallet, amount: "1.00", request_id: "console-x" }),
    });
    expect(res.status).toBe(403);
    expect(await tableCounts()).toEqual(before);
  });

  it("credits once however often the same form is sent", async () => {
    const before = await balanceOf(admin, alice.id, wallet);
    const page = await userPage();
    const fields = {
      _csrf: hidden(page.html, "_csrf"),
      request_id: hidden(page.html, "request_id"),
      wallet_id: wallet,
      amount: "12.50",
      note: "console credit",
      step: "confirm",
    };
    const first = await request(`/users/${alice.id}/credit`, {
      method: "POST",
      cookie,
      body: form(fields),
    });
    const again = await request(`/users/${alice.id}/credit`, {
      method: "POST",
      cookie,
      body: form(fields),
    });
    expect(first.status).toBe(303);
    expect(noticeLeft(first)).toContain("ok:Transaction Completed");
    expect(noticeLeft(again)).toContain("Already done");
    expect(await balanceOf(admin, alice.id, wallet)).toBeCloseTo(before + 12.5, 6);
    const after = await follow(first, cookie);
    expect(after.html).toContain("console credit");
  });

  it("keeps a form's key when the database dropped its answer: sent again, the money moved once", async () => {
    const page = await userPage();
    const key = hidden(page.html, "request_id");
    // The credit's batch commits, then its connection is lost: the outcome is unknown to the page.
    let lost = false;
    const losing = wrappedD1(async (statements, send) => {
      const first = String((statements[0] as unknown as { statement: string }).statement);
      if (lost || !/^\s*(insert|update)/i.test(first)) return send();
      lost = true;
      await send();
      throw new Error("D1_ERROR: Network connection lost.");
    });
    const before = await balanceOf(admin, alice.id, wallet);
    vi.spyOn(console, "error").mockImplementation(() => {});
    const busy = await request(`/users/${alice.id}/credit`, {
      method: "POST",
      cookie,
      vars: { DB: losing },
      body: form({
        _csrf: hidden(page.html, "_csrf"),
        request_id: key,
        wallet_id: wallet,
        amount: "5.00",
        step: "confirm",
      }),
    });
    vi.restoreAllMocks();
    expect(lost).toBe(true);
    expect(busy.status, busy.html.slice(0, 300)).toBe(303);
    expect(noticeLeft(busy)).toMatch(/^error:Credit refused\. Service temporarily unavailable/);
    const shown = await follow(busy, cookie);
    const credit = shown.html.slice(shown.html.indexOf(`/users/${alice.id}/credit"`));
    expect(hidden(credit.slice(0, credit.indexOf("</form>")), "request_id")).toBe(key);
    const again = await sendForm(shown, `/users/${alice.id}/credit`, {
      amount: "5.00",
      step: "confirm",
    });
    expect(noticeLeft(again)).toMatch(/^ok:Already done/);
    expect(await balanceOf(admin, alice.id, wallet)).toBeCloseTo(before + 5, 6);
  });

  it("keeps a form's key when the database is busy while it looks for what the form did", async () => {
    const page = await userPage();
    const key = hidden(page.html, "request_id");
    const send = (vars?: Record<string, unknown>) =>
      request(`/users/${alice.id}/credit`, {
        method: "POST",
        cookie,
        vars,
        body: form({
          _csrf: hidden(page.html, "_csrf"),
          request_id: key,
          wallet_id: wallet,
          amount: "6.00",
          step: "confirm",
        }),
      });
    expect(noticeLeft(await send())).toMatch(/^ok:Transaction Completed/);
    const before = await balanceOf(admin, alice.id, wallet);
    // Sent again: its key is taken, and the look-up of the entry holding it is lost.
    const { d1, lost } = losingReads(/"transactions"\."id" = \?/);
    vi.spyOn(console, "error").mockImplementation(() => {});
    const busy = await send({ DB: d1 });
    vi.restoreAllMocks();
    expect(lost()).toBeGreaterThan(0);
    expect(noticeLeft(busy)).toMatch(/^error:Credit refused\. Service temporarily unavailable/);
    const shown = await follow(busy, cookie);
    const credit = shown.html.slice(shown.html.indexOf(`/users/${alice.id}/credit"`));
    expect(hidden(credit.slice(0, credit.indexOf("</form>")), "request_id")).toBe(key);
    expect(noticeLeft(await send())).toMatch(/^ok:Already done/);
    expect(await balanceOf(admin, alice.id, wallet)).toBe(before);
  });

  it("says a key another movement holds is refused, not that the form was sent before", async () => {
    const page = await userPage();
    const key = hidden(page.html, "request_id");
    const post = (action: string, amount: string) =>
      sendForm(page, `/users/${alice.id}/${action}`, { request_id: key, amount, step: "confirm" });
    expect(noticeLeft(await post("credit", "3.00"))).toMatch(/^ok:Transaction Completed/);
    const before = await tableCounts();
    // The credit's own form again: it moved once.
    expect(noticeLeft(await post("credit", "3.00"))).toMatch(/^ok:Already done/);
    // Its key in a debit, or with another amount: nothing moved, and the page says so.
    expect(noticeLeft(await post("debit", "3.00"))).toMatch(
      /^error:Debit refused\. Transaction already exists/,
    );
    expect(noticeLeft(await post("credit", "4.00"))).toMatch(
      /^error:Credit refused\. Transaction already exists/,
    );
    expect(await tableCounts()).toEqual(before);
  });

  it("tells a form sent again with its wallet id cased or padded otherwise as done", async () => {
    // The wallet look-up folds ASCII case and trims, so these name one wallet: the same movement.
    const page = await userPage();
    const post = (walletId: string) =>
      sendForm(page, `/users/${alice.id}/credit`, {
        amount: "1.25",
        wallet_id: walletId,
        step: "confirm",
      });
    expect(noticeLeft(await post(` ${wallet.toUpperCase()} `))).toMatch(
      /^ok:Transaction Completed/,
    );
    const before = await tableCounts();
    for (const typed of [wallet, `${wallet} `, wallet.toUpperCase()])
      expect(noticeLeft(await post(typed))).toMatch(/^ok:Already done/);
    expect(await tableCounts()).toEqual(before);
  });

  it("says a transfer form's key sent again to another recipient is refused, not done", async () => {
    // Sent once to Bob (say its answer was lost), then again with the recipient changed: Carol got
    // nothing, so the console must not tell the operator that this transfer was done.
    const carol = await makeUser();
    const page = await userPage();
    const post = (to: number, amount = "2.00") =>
      sendForm(page, `/users/${alice.id}/transfer`, { amount, to_user_id: to, step: "confirm" });
    expect(noticeLeft(await post(bob.id))).toMatch(/^ok:Transfer Action Completed/);
    const before = await tableCounts();
    expect(noticeLeft(await post(bob.id))).toMatch(/^ok:Already done/);
    expect(noticeLeft(await post(carol.id))).toMatch(
      /^error:Transfer refused\. Transaction already exists/,
    );
    expect(await tableCounts()).toEqual(before);
    expect(await balanceOf(admin, carol.id, wallet)).toBe(0);
  });

  it("says a key a hold already holds is refused, not that the form was sent before", async () => {
    const page = await userPage();
    const key = hidden(page.html, "request_id");
    const hold = await call("POST", "/holds", {
      auth: admin.bearer,
      body: { user_id: alice.id, wallet_id: wallet, amount: "1", request_id: key },
    });
    expect(hold.status).toBe(200);
    const before = await tableCounts();
    const res = await sendForm(page, `/users/${alice.id}/debit`, {
      request_id: key,
      amount: "1",
      step: "confirm",
    });
    expect(noticeLeft(res)).toMatch(/^error:Debit refused\. Transaction already exists/);
    expect(await tableCounts()).toEqual(before);
    // The form comes back with a key of its own: the hold's would be refused again and again.
    const shown = await follow(res, cookie);
    const debit = shown.html.slice(shown.html.indexOf(`/users/${alice.id}/debit"`));
    expect(debit.slice(0, debit.indexOf("</form>"))).toContain('value="1"');
    expect(hidden(debit, "request_id")).not.toBe(key);
  });

  it("names the field a refusal finds empty, a field of spaces too", async () => {
    const page = await userPage();
    const before = await tableCounts();
    const res = await sendForm(page, `/users/${alice.id}/credit`, { amount: "   " });
    expect(noticeLeft(res)).toMatch(
      /^error:Credit refused\. invalid input: amount: Field Cannot be empty/,
    );
    expect(await tableCounts()).toEqual(before);
  });

  it("shows a refused debit in words and moves nothing", async () => {
    const page = await userPage();
    const before = await tableCounts();
    const res = await sendForm(page, `/users/${alice.id}/debit`, {
      amount: "1000.00",
      note: "refund <b>17</b>",
      step: "confirm",
    });
    const shown = await follow(res, cookie);
    expect(shown.html).toContain("Debit refused. Insufficient Balance");
    expect(shown.html).toContain('role="alert"');
    expect(await tableCounts()).toEqual(before);
    // The debit form is drawn again as it was typed, with its key (nothing took it: a retry of an
    // unknown outcome must move money once); the others are drawn empty.
    const debit = shown.html.slice(shown.html.indexOf(`/users/${alice.id}/debit"`));
    const debitForm = debit.slice(0, debit.indexOf("</form>"));
    expect(debitForm).toContain(`<option value="${wallet}" selected="">`);
    expect(debitForm).toContain('value="1000.00"');
    expect(debitForm).toContain('value="refund &lt;b&gt;17&lt;/b&gt;"');
    expect(hidden(debitForm, "request_id")).toBe(hidden(page.html, "request_id"));
    const credit = shown.html.slice(shown.html.indexOf(`/users/${alice.id}/credit"`));
    expect(credit.slice(0, credit.indexOf("</form>"))).not.toContain('value="1000.00"');
    // Shown once: the next page draws it empty.
    const again = await request(`/users/${alice.id}`, { cookie });
    expect(again.html).not.toContain('value="1000.00"');
  });

  it("draws a refused form's note again as typed, isolates and marks included, so sent again it writes that note", async () => {
    // A phone number pasted from a chat app arrives wrapped in isolates; an Arabic name with a mark.
    const note = "refund \u2068+234 803 000 0000\u2069 to \u0639\u0644\u064a\u200f";
    const page = await userPage();
    const refused = await follow(
      await sendForm(page, `/users/${alice.id}/debit`, {
        amount: "1000.00",
        note,
        step: "confirm",
      }),
      cookie,
    );
    const debit = refused.html.slice(refused.html.indexOf(`/users/${alice.id}/debit"`));
    const kept = debit.slice(0, debit.indexOf("</form>")).match(/name="note"[^>]* value="([^"]*)"/);
    expect(kept?.[1]).toBe(note);
    // Sent again as drawn, with an amount that lands: the entry holds the note typed, not "\u2068".
    const res = await sendForm(refused, `/users/${alice.id}/debit`, {
      amount: "0.01",
      note: kept![1]!,
      step: "confirm",
    });
    expect(noticeLeft(res)).toContain("Transaction Completed");
    const stored = await env.DB.prepare("SELECT note FROM transactions WHERE id = ?")
      .bind(await newestEntryOf(alice.id))
      .first<{ note: string }>();
    expect(stored!.note).toBe(note);
  });

  it("shows a refusal for a user that is gone on the page it lands on, not on the next", async () => {
    const page = await userPage();
    const res = await sendForm(page, "/users/2000000000/credit", { amount: "1.00" });
    const shown = await follow(res, cookie);
    expect(shown.status).toBe(404);
    expect(shown.html).toContain("There is no user 2000000000");
    expect(shown.html).toContain("Credit refused.");
    expect(shown.headers.getSetCookie().join()).toMatch(/wallet_admin_notice=;.*Max-Age=0/);
  });

  it("marks each half of a transfer as one among the entries, where a credit or a debit is not", async () => {
    // A transfer's halves read as a plain DEBIT and CREDIT: without a note, money another user
    // sent looked like the operator's own credit, until a Reverse said both halves would go.
    const txn = await transferToBob("0.25");
    const sent = txn - 1;
    const row = (html: string, id: number) =>
      html.match(new RegExp(`<tr><td>${id}</td>(?:(?!</tr>).)*</tr>`))![0];
    expect(row((await request(`/users/${bob.id}`, { cookie })).html, txn)).toContain(
      "<td>CREDIT (transfer)",
    );
    expect(row((await userPage()).html, sent)).toContain("<td>DEBIT (transfer)");
    await sendForm(await userPage(), `/users/${alice.id}/credit`, {
      amount: "0.25",
      step: "confirm",
    });
    const credited = await newestEntryOf(alice.id);
    expect(row((await userPage()).html, credited)).toMatch(/<td>CREDIT<\/td>/);
  });

  it("transfers, and reverses a transaction once after a confirmation", async () => {
    const before = await balanceOf(admin, bob.id, wallet);
    const txn = await transferToBob("2.50");
    expect(await balanceOf(admin, bob.id, wallet)).toBeCloseTo(before + 2.5, 6);
    // The entry's Reverse leads to that very entry's confirmation.
    expect((await request(`/users/${bob.id}`, { cookie })).html).toContain(
      `href="/wallet-admin/users/${bob.id}/reverse/${txn}" aria-label="Reverse transaction ${txn}"`,
    );
    const confirm = await request(`/users/${bob.id}/reverse/${txn}`, { cookie });
    expect(confirm.html).toContain(`Reverse transaction ${txn}`);
    // What is reversed, before it is: the entry's type and amount, and that the sender's half goes too.
    expect(confirm.html).toMatch(/<th>Type<\/th><td>CREDIT \(transfer\)<\/td>/);
    expect(confirm.html).toMatch(/<th>Amount<\/th><td>[^<]*2\.50<\/td>/);
    expect(confirm.html).toContain("for both halves of this transfer");
    expect(confirm.html).not.toContain("autofocus");
    const fields = {
      _csrf: hidden(confirm.html, "_csrf"),
      request_id: hidden(confirm.html, "request_id"),
    };
    const done = await request(`/users/${bob.id}/reverse/${txn}`, {
      method: "POST",
      cookie,
      body: form(fields),
    });
    expect(noticeLeft(done)).toContain(`Transaction ${txn} reversed.`);
    const twice = await request(`/users/${bob.id}/reverse/${txn}`, {
      method: "POST",
      cookie,
      body: form({ ...fields, request_id: `${fields.request_id}-2` }),
    });
    expect(noticeLeft(twice)).toContain("Reversal refused. Transaction already reversed");
    expect(await balanceOf(admin, bob.id, wallet)).toBe(before);
    expect(await ledgerViolations()).toEqual(CLEAN);
    // Bob's page offers no Reverse for the reversal itself nor for the entry it reversed (marked
    // so), and no confirmation for an entry that is not Bob's or is not there.
    const reversal = await newestEntryOf(bob.id);
    const bobPage = await request(`/users/${bob.id}`, { cookie });
    expect(bobPage.html).toContain(`reversal of ${txn}`);
    expect(bobPage.html).not.toContain(`aria-label="Reverse transaction ${txn}"`);
    expect(bobPage.html).toMatch(
      new RegExp(`<td>${txn}</td>(?:(?!</tr>).)*<td[^>]*>reversed</td>`),
    );
    expect(bobPage.html).not.toContain(`aria-label="Reverse transaction ${reversal}"`);
    // Their confirmation pages (a stale tab, a typed address) say why, with no form.
    for (const [id, why] of [
      [txn, `Transaction ${txn} was already reversed.`],
      [reversal, `Transaction ${reversal} cannot be reversed: a reversal cannot be reversed.`],
    ] as const) {
      const stale = await request(`/users/${bob.id}/reverse/${id}`, { cookie });
      expect(stale.status).toBe(200);
      expect(stale.html).toContain(why);
      expect(stale.html).not.toContain('<form class="stack card" method="post"');
    }
    for (const path of [`/users/${alice.id}/reverse/${txn}`, `/users/${bob.id}/reverse/999999999`])
      expect((await request(path, { cookie })).status, path).toBe(404);
  });

  it("says a reversal's confirmation sent twice at once was done, and reverses once", async () => {
    const before = await balanceOf(admin, bob.id, wallet);
    const txn = await transferToBob("1.25");
    const confirm = await request(`/users/${bob.id}/reverse/${txn}`, { cookie });
    const fields = {
      _csrf: hidden(confirm.html, "_csrf"),
      request_id: hidden(confirm.html, "request_id"),
    };
    const send = (id: number) =>
      request(`/users/${bob.id}/reverse/${id}`, { method: "POST", cookie, body: form(fields) });
    // The second finds its key taken by the first's reversal: that is done, not refused.
    const notices = (await Promise.all([send(txn), send(txn)])).map(noticeLeft).sort();
    expect(notices).toEqual([
      `ok:Already done: this form was sent before, and transaction ${txn} was reversed once.`,
      `ok:Transaction ${txn} reversed.`,
    ]);
    expect(await balanceOf(admin, bob.id, wallet)).toBe(before);
    // Its key sent to reverse another transaction reversed nothing of it: refused in words.
    const other = await transferToBob("1.00");
    const before2 = await tableCounts();
    expect(noticeLeft(await send(other))).toContain("Reversal refused. Transaction already exists");
    expect(await tableCounts()).toEqual(before2);
    expect(await ledgerViolations()).toEqual(CLEAN);
  });

  it("says a reversal sent twice was done when it undid a site's transfer to the user itself from its CREDIT half", async () => {
    // The WordPress import keeps such a transfer (CREDIT, then DEBIT, linked); reversed from its
    // CREDIT half, the DEBIT half is undone first, so the form's key holds that half's reversal.
    const w = await makeWallet(admin);
    const link = unique("self");
    const atS = Math.floor(Date.now() / 1000) - 60;
    await importedEntry(bob.id, w, "CREDIT", 5_000, "50", 0, atS, { transferId: link });
    await importedEntry(bob.id, w, "DEBIT", 5_000, "50", 5_000, atS, { transferId: link });
    const { results } = await env.DB.prepare(
      "SELECT id FROM transactions WHERE transfer_id = ? ORDER BY id",
    )
      .bind(link)
      .all<{ id: number }>();
    const creditHalf = results[0]!.id;
    const confirm = await request(`/users/${bob.id}/reverse/${creditHalf}`, { cookie });
    const fields = {
      _csrf: hidden(confirm.html, "_csrf"),
      request_id: hidden(confirm.html, "request_id"),
    };
    const send = () =>
      request(`/users/${bob.id}/reverse/${creditHalf}`, {
        method: "POST",
        cookie,
        body: form(fields),
      });
    expect(noticeLeft(await send())).toBe(`ok:Transaction ${creditHalf} reversed.`);
    const before = await tableCounts();
    expect(noticeLeft(await send())).toBe(
      `ok:Already done: this form was sent before, and transaction ${creditHalf} was reversed once.`,
    );
    expect(await tableCounts()).toEqual(before);
    expect(await balanceOf(admin, bob.id, w)).toBe(0);
    expect(await ledgerViolations()).toEqual(CLEAN);
  });

  it("reverses from a user's page only that user's transaction: another's is not found", async () => {
    const txn = await transferToBob("1.00");
    const confirm = await request(`/users/${bob.id}/reverse/${txn}`, { cookie });
    const before = await tableCounts();
    const crafted = await request(`/users/${alice.id}/reverse/${txn}`, {
      method: "POST",
      cookie,
      body: form({
        _csrf: hidden(confirm.html, "_csrf"),
        request_id: hidden(confirm.html, "request_id"),
      }),
    });
    expect(noticeLeft(crafted)).toContain("Reversal refused. Transaction not found");
    expect(await tableCounts()).toEqual(before);
  });
});

describe("accounts, wallets and keys", () => {
  it("creates a user and a wallet, and shows an API key's secret once, then revokes it", async () => {
    const users = await request("/users", { cookie });
    const csrf = hidden(users.html, "_csrf");
    const created = await request("/users", {
      method: "POST",
      cookie,
      body: form({
        _csrf: csrf,
        username: "consoleuser1",
        user_email: "consoleuser1@example.test",
        user_password: "secret-123",
      }),
    });
    expect(noticeLeft(created)).toContain("User created.");
    const dup = await request("/users", {
      method: "POST",
      cookie,
      body: form({
        _csrf: csrf,
        username: "consoleuser1",
        user_email: "consoleuser1@example.test",
        user_password: "secret-123",
      }),
    });
    expect(noticeLeft(dup)).toMatch(/^error:/);

    const w = await request("/wallets", {
      method: "POST",
      cookie,
      body: form({
        _csrf: csrf,
        wallet_id: "cnsl",
        wallet_name: "Console Coin",
        wallet_symbol: "C",
        wallet_symbol_position: "right",
        wallet_decimal: 0,
      }),
    });
    expect(noticeLeft(w)).toContain("Wallet cnsl created.");

    const name = unique("ops");
    const made = await request("/api-keys", {
      method: "POST",
      cookie,
      body: form({ _csrf: csrf, name, scope: "read" }),
    });
    // Redirected, so a reload or Back posts nothing again: the secret waits, sealed, in a cookie.
    expect(made.status).toBe(303);
    expect(noticeLeft(made)).toBe(`ok:Key created for ${admin.username}.`);
    // A webhooks page another tab opens meanwhile leaves the secret (and notice) for the keys page.
    const left = made.headers
      .getSetCookie()
      .map((c) => c.split(";")[0])
      .join("; ");
    const webhooks = await request("/webhooks", { cookie: `${cookie}; ${left}` });
    expect(webhooks.status).toBe(200);
    expect(webhooks.html).not.toContain("copy it now");
    expect(webhooks.headers.get("set-cookie")).toBeNull();
    const key = await follow(made, cookie);
    expect(key.html).toContain("copy it now, it is not shown again");
    // Its last use is written at most once a minute, and a cached key's use not seen at all.
    expect(key.html).toContain(
      '<p class="muted">Last used may be up to 90 seconds behind the latest use of a key.</p>',
    );
    expect(key.html).toMatch(/data-copy="new-key"/);
    const sealed = made.headers
      .getSetCookie()
      .find((c) => c.startsWith("wallet_admin_secret_api-keys="))!;
    expect(sealed).toMatch(/HttpOnly/);
    expect(key.headers.getSetCookie().join()).toMatch(/wallet_admin_secret_api-keys=;.*Max-Age=0/);
    // The browser asks before a revocation (console.js); other tests' keys may be listed too.
    const id = key.html.match(
      new RegExp(
        `api-keys/(\\d+)/revoke" data-confirm="Revoke key \\d+ \\(${name}\\)\\? Every client using it is refused within 30 seconds,`,
      ),
    )![1];
    const revoked = await request(`/api-keys/${id}/revoke`, {
      method: "POST",
      cookie,
      body: form({ _csrf: csrf }),
    });
    expect(noticeLeft(revoked)).toContain(`Key ${id} revoked.`);
    const secret = key.html.match(/id="new-key" class="secret">([^<]+)</)![1]!;
    expect(decodeURIComponent(sealed)).not.toContain(secret);
    const list = await request("/api-keys", { cookie });
    expect(list.html).not.toContain(secret);
  });

  it("shows a new key's secret only to the session that made it", async () => {
    const mine = await signIn(admin);
    const csrf = hidden((await request("/api-keys", { cookie: mine })).html, "_csrf");
    const made = await request("/api-keys", {
      method: "POST",
      cookie: mine,
      body: form({ _csrf: csrf, name: unique("left"), scope: "read" }),
    });
    expect(made.status).toBe(303);
    const left = made.headers
      .getSetCookie()
      .filter((c) => c.startsWith("wallet_admin_secret_"))
      .map((c) => c.split(";")[0]);
    expect(left).toHaveLength(1);
    // Signed out before the page showed it; another operator signs in on the same browser.
    await request("/sign-out", { method: "POST", cookie: mine, body: form({ _csrf: csrf }) });
    const next = await signIn(await makeAdmin());
    const page = await request("/api-keys", { cookie: `${next}; ${left[0]}` });
    expect(page.status).toBe(200);
    expect(page.html).not.toContain("copy it now");
    expect(page.html).not.toMatch(/id="new-key"/);
  });

  it("words every form's refusal as the money forms do: what was refused, then why", async () => {
    const csrf = hidden((await request("/users", { cookie })).html, "_csrf");
    const post = async (path: string, fields: Record<string, string | number> = {}) =>
      noticeLeft(
        await request(path, { method: "POST", cookie, body: form({ _csrf: csrf, ...fields }) }),
      );
    const none = 999_999_999;
    expect(
      await post("/users", {
        username: admin.username,
        user_email: "prefixed@example.test",
        user_password: "secret-123",
      }),
    ).toBe("error:New user refused. Validation error: username already taken");
    expect(
      await post("/wallets", {
        wallet_id: wallet,
        wallet_name: "Again",
        wallet_symbol: "A",
        wallet_symbol_position: "left",
        wallet_decimal: 2,
      }),
    ).toBe(`error:New wallet refused. Wallet Already Exists: ${wallet} already exists`);
    expect(await post("/api-keys", { name: "k", scope: "read", username: "nobody-here" })).toBe(
      "error:New API key refused. No user nobody-here.",
    );
    expect(await post(`/api-keys/${none}/revoke`)).toBe(
      `error:Revocation refused. API key not found: No API key ${none}`,
    );
    expect(
      await post("/webhooks", { url: "ftp://hooks.example.com/x", events: "user.created" }),
    ).toBe("error:New webhook refused. invalid input: url must start with https://");
    const gone = `Webhook not found: No webhook ${none}`;
    expect(await post(`/webhooks/${none}/test`)).toBe(`error:Test refused. ${gone}`);
    expect(await post(`/webhooks/${none}/resend`, { event_id: 1 })).toBe(
      `error:Resend refused. ${gone}`,
    );
    expect(await post(`/webhooks/${none}/delete`)).toBe(`error:Deletion refused. ${gone}`);
  });

  it("says why a deleted wallet's id cannot come back with other decimals, and creates nothing", async () => {
    const csrf = hidden((await request("/wallets", { cookie })).html, "_csrf");
    await env.DB.batch([
      env.DB.prepare(
        "INSERT INTO wallets (id, name, symbol, symbol_position, decimals, type, created_at_ms) VALUES ('cgone', 'Gone', 'G', 'left', 2, 'fiat', 0)",
      ),
      env.DB.prepare("DELETE FROM wallets WHERE id = 'cgone'"),
    ]);
    const fields = {
      _csrf: csrf,
      wallet_id: "cgone",
      wallet_name: "Back",
      wallet_symbol: "B",
      wallet_symbol_position: "left",
    };
    const refused = await request("/wallets", {
      method: "POST",
      cookie,
      body: form({ ...fields, wallet_decimal: 4 }),
    });
    expect(noticeLeft(refused)).toContain(
      "wallet cgone was deleted with 2 decimals: a wallet re-created under its id must have the same",
    );
    expect(await env.DB.prepare("SELECT id FROM wallets WHERE id = 'cgone'").first()).toBeNull();
    const created = await request("/wallets", {
      method: "POST",
      cookie,
      body: form({ ...fields, wallet_decimal: 2 }),
    });
    expect(noticeLeft(created)).toContain("Wallet cgone created.");
  });
});

describe("a batch", () => {
  it("is shown from an entry of it, with its legs, and reversed once by its button", async () => {
    const carol = await makeUser();
    // The second leg in a wallet of other units, its symbol on the right.
    const coins = await makeWallet(admin, { symbol: "COIN", position: "right", decimals: 3 });
    const posted = await call("POST", "/batches", {
      auth: admin.bearer,
      body: {
        request_id: unique("console-batch"),
        operations: [
          { type: "credit", user_id: carol.id, wallet_id: wallet, amount: "3.00", note: "leg one" },
          {
            type: "credit",
            user_id: alice.id,
            wallet_id: coins,
            amount: "1234.5",
            note: "leg two",
          },
        ],
      },
    });
    const id = posted.body.data.batch_id as number;
    const userPage = await request(`/users/${carol.id}`, { cookie });
    expect(userPage.html).toContain(`/wallet-admin/batches/${id}`);
    // Reversing one leg alone is offered, and says what it does to the batch.
    const [carolLeg, aliceLeg] = posted.body.data.transaction_ids as number[];
    const one = await request(`/users/${carol.id}/reverse/${carolLeg}`, { cookie });
    expect(one.status).toBe(200);
    expect(one.html).toContain(
      `<a href="/wallet-admin/batches/${id}">Batch ${id}</a>: reversing this entry alone means the batch can no longer be reversed as a whole.`,
    );
    const page = await request(`/batches/${id}`, { cookie });
    expect(page.status).toBe(200);
    // Each leg's wallet (two wallets may draw their amounts alike) and its amount in its units.
    for (const leg of [
      `<td>CREDIT</td><td>${wallet}</td><td class="num">₦3.00</td><td>leg one</td>`,
      `<td>CREDIT</td><td>${coins}</td><td class="num">1,234.500 COIN</td><td>leg two</td>`,
    ])
      expect(page.html).toContain(leg);
    // Each leg's user by username and id, as a user's page and a transfer's confirmation name one.
    for (const u of [carol, alice])
      expect(page.html).toContain(`/users/${u.id}">${u.username} (user ${u.id})</a>`);
    expect(page.html).toContain(`Reverse batch ${id}`);
    // The browser asks first (console.js), as a hold's capture and void and a key's revoke do.
    expect(page.html).toContain(
      `action="/wallet-admin/batches/${id}/reverse" data-confirm="Reverse batch ${id}? The opposite of all 2 of its legs is written, and a reversal cannot be undone."`,
    );
    // Every leg or none, in no order it promises: undoOrder may undo an older leg first.
    expect(page.html).toContain("This writes the opposite of every leg, or none of them.");
    // Posted without balanced: true, so not checked; never "not balanced", which a batch whose
    // credits and debits are equal, sent so, would be called as well.
    expect(page.html).toContain("UTC, not checked for balance. Status: <strong>completed</strong>");
    // The legs sit in a card, as every table of the console does: on the page's grey, the table's
    // scroll shadows drew white bands at its edges.
    expect(page.html).toMatch(/<section><div class="scroll"><table><caption>Legs</);
    const done = await request(`/batches/${id}/reverse`, {
      method: "POST",
      cookie,
      body: form({ _csrf: hidden(page.html, "_csrf") }),
    });
    expect(noticeLeft(done)).toContain(`Batch ${id} reversed.`);
    expect(await balanceOf(admin, carol.id, wallet)).toBe(0);
    // The overview's latest entries say what each is, as a user's page does: the reversal's legs,
    // each linked to its user's page, their batch linked, each amount in its own wallet's units.
    const overview = await request("/", { cookie });
    const reversalOf = (u: TestUser, leg: number, amount: string) =>
      `<a class="name" href="/wallet-admin/users/${u.id}">${u.username}</a></td><td>DEBIT (reversal of ${leg}) <a href="/wallet-admin/batches/${id + 1}">batch ${id + 1}</a></td><td class="num">${amount}</td>`;
    expect(overview.html).toContain(reversalOf(carol, carolLeg!, "₦3.00"));
    expect(overview.html).toContain(reversalOf(alice, aliceLeg!, "1,234.500 COIN"));
    const after = await request(`/batches/${id}`, { cookie });
    // Its status named as such: "balanced: reversed" read as a label and its value.
    expect(after.html).toContain(
      `balance. Status: <strong>reversed</strong> by <a href="/wallet-admin/batches/${id + 1}">`,
    );
    expect(after.html).not.toContain(`Reverse batch ${id}`);
    const twice = await request(`/batches/${id}/reverse`, {
      method: "POST",
      cookie,
      body: form({ _csrf: hidden(page.html, "_csrf") }),
    });
    expect(noticeLeft(twice)).toContain("Reversal refused. Transaction already reversed");
    expect(await ledgerViolations()).toEqual(CLEAN);
  });

  it("refuses a reversal's note the API refuses, in its words, and moves nothing", async () => {
    const carol = await makeUser();
    const posted = await call("POST", "/batches", {
      auth: admin.bearer,
      body: {
        request_id: unique("console-batch"),
        operations: [{ type: "credit", user_id: carol.id, wallet_id: wallet, amount: "4.00" }],
      },
    });
    const id = posted.body.data.batch_id as number;
    const page = await request(`/batches/${id}`, { cookie });
    // One character past the longest note POST /batches/{id}/reverse takes.
    const note = "n".repeat(1001);
    const api = await call("POST", `/batches/${id}/reverse`, {
      auth: admin.bearer,
      body: { note },
    });
    expect(api.body.error).toEqual({ note: "note must be at most 1000 characters" });
    const refused = await request(`/batches/${id}/reverse`, {
      method: "POST",
      cookie,
      body: form({ _csrf: hidden(page.html, "_csrf"), note }),
    });
    expect(noticeLeft(refused)).toBe(
      "error:Reversal refused. invalid input: note must be at most 1000 characters",
    );
    expect(await balanceOf(admin, carol.id, wallet)).toBe(4);
    expect((await request(`/batches/${id}`, { cookie })).html).toContain(`Reverse batch ${id}`);
  });

  it("with a leg reversed on its own, marks the leg and offers no Reverse batch", async () => {
    const posted = await call("POST", "/batches", {
      auth: admin.bearer,
      body: {
        request_id: unique("console-batch"),
        operations: [
          { type: "credit", user_id: alice.id, wallet_id: wallet, amount: "2.00" },
          { type: "credit", user_id: bob.id, wallet_id: wallet, amount: "1.00" },
        ],
      },
    });
    const { batch_id: id, transaction_ids: legs } = posted.body.data;
    const reversed = await call("POST", `/transactions/${legs[1]}/reverse`, {
      auth: admin.bearer,
      body: { request_id: unique("rev") },
    });
    expect(reversed.status, reversed.text).toBe(200);
    const page = await request(`/batches/${id}`, { cookie });
    expect(page.html).toContain("CREDIT (reversed on its own)");
    expect(page.html).toContain(`Reversed on their own: transaction ${legs[1]}.`);
    expect(page.html).not.toContain(`Reverse batch ${id}`);
  });
});

describe("a batch that does not exist", () => {
  it("is a page saying so, as a user that does not exist is, with what a form sent to it did", async () => {
    const id = 987_654_321_987;
    const page = await request(`/batches/${id}`, { cookie });
    expect(page.status).toBe(404);
    expect(page.html).toContain("<title>No such batch · Wallet console</title>");
    expect(page.html).toContain(`<p>There is no batch ${id}. `);
    // Its reversal, refused, comes back to it: the page says what was refused and why.
    const csrf = hidden((await request("/", { cookie })).html, "_csrf");
    const reversed = await request(`/batches/${id}/reverse`, {
      method: "POST",
      cookie,
      body: form({ _csrf: csrf }),
    });
    expect(reversed.status).toBe(303);
    const after = await follow(reversed, cookie);
    expect(after.status).toBe(404);
    expect(after.html).toMatch(
      new RegExp(
        `<p id="notice" class="notice error" role="alert" tabindex="-1" autofocus="">Reversal refused\\. [^<]*${id}`,
      ),
    );
    expect(after.html).toContain(`<p>There is no batch ${id}. `);
  });
});

describe("a refusal in the console's words", () => {
  const text = (message: string, error: unknown) => refusalText(new ApiError(400, message, error));

  it("says the message once, names a bare id and an empty field by their field, and a detail once", () => {
    expect(text("Insufficient Balance", { amount: "Insufficient Balance" })).toBe(
      "Insufficient Balance",
    );
    expect(
      text("Insufficient Balance", { amount: "Insufficient Balance", transaction_id: "42" }),
    ).toBe("Insufficient Balance: transaction_id 42");
    expect(
      text("Too many failed sign-in attempts", [
        "Too many failed sign-in attempts: try again in 21 seconds",
      ]),
    ).toBe("Too many failed sign-in attempts: try again in 21 seconds");
    expect(text("invalid input", { note: "Field Cannot be empty" })).toBe(
      "invalid input: note: Field Cannot be empty",
    );
    expect(text("Hold already resolved", { id: "Hold 5 is captured", status: "captured" })).toBe(
      "Hold already resolved: Hold 5 is captured",
    );
    expect(text("invalid input", { from: "bad day", to: "bad day" })).toBe(
      "invalid input: bad day; bad day",
    );
  });
});

describe("what an earlier deploy sealed", () => {
  // Sealed once with the code of the time (AES-GCM under HKDF-SHA-256 of JWT_SECRET, for each
  // purpose) and kept as written: a change to a purpose or to how it is sealed would turn every
  // confirmation address and every new secret's cookie in flight at a deploy into nothing.
  const key = "a JWT secret an earlier deploy sealed with";
  const session = "5ea1ed0c0de5ea1ed0c0de5ea1ed0c0de5ea1ed0c0de5ea1ed0c0de5ea1ed0c0";
  const sealed = {
    "confirmation address": [
      askedPurpose("transfer"),
      "v1:57o5JNERkJmhTd1A:Ys+ZV2g7QEVp3mmxdilRPr3dLlwTq6RLaf5vRTxcVEeiau6P54Wp0QFk78g236YFSzXr22gjmLOrp15EoP1K+gIUW7IiTgWxMizJAj3n1CSYDAbWQsC9Az6K4DET1hqK7SywcwKFD/Y+xhyXrlOwBR7jPWCOPdr1IGUWMay/ZlACtb/OA0cR2DVtnHRx6oQnJr/7B2w3Kce6OuWJpQl7E2Ndii9nyUvCFxM+8b0sD+Sz/ElX26oC+cCzORebEHmzh1nLqhur+sfDouEqsSPL2w66rQU=",
      {
        session,
        userId: 42,
        fields: {
          to_user_id: "43",
          wallet_id: "usd",
          amount: "2.75",
          note: "rent",
          request_id: "sealed-before",
        },
      },
    ],
    "new secret's cookie": [
      SECRET_PURPOSE,
      "v1:vvZVk0zqU5SO/jOk:DUBd3CThz3YB7QZ5hPlZAmiT8WCLDx7ZgVjpBNz1UwrxccURVcP7HbZz8cUjSRT1Wze3FzvmDwp+Rkh2sJLZRjcGwDUplCDLMl8Rnls26cwtFbuXEk/c9UcfB0d6U8v6H16QqA5TRSS/tLuHZ3BFojZSmx6MEimNQuxc03aqiB6LdM4u+WpH7NRZFQ==",
      { session, shown: { key: "wk_YW4gZWFybGllciBkZXBsb3k" } },
    ],
  } as const;

  it.each(Object.entries(sealed))(
    "opens a %s an earlier deploy sealed, under its own purpose only",
    async (_, [purpose, stored, held]) => {
      expect(JSON.parse((await unseal(stored, key, purpose)) ?? "null")).toEqual(held);
      expect(await unseal(stored, `${key}!`, purpose)).toBeNull();
      // Each purpose has a key of its own: what one seals the other cannot open.
      const other =
        purpose === askedPurpose("transfer") ? SECRET_PURPOSE : askedPurpose("transfer");
      expect(await unseal(stored, key, other)).toBeNull();
    },
  );
});

describe("what an earlier deploy signed", () => {
  // Signed once with the code of the time (HMAC-SHA-256 under a key of the console's own for each
  // purpose, derived from JWT_SECRET: consoleKey) and kept as written: a change to a purpose or to
  // how its key is derived would drop every notice in flight at a deploy and refuse (403) every
  // form a page drew before it.
  const key = "a JWT secret an earlier deploy signed with";
  const bare = { env: { JWT_SECRET: key } } as never;
  const notice =
    "wallet_admin_notice=%5B%22error%22%2C%22%2Fwallet-admin%2Fusers%22%2C%22Refused%20before%22%2Cnull%5D.jPMA4E2bu9BXuyFM%2BHGGAYTFU36ORmQEfy7hBYWNK%2FI%3D";
  /** consoleKey's keys for `key`, as derived then. */
  const keys = {
    csrf: "ab9717e9b1c6b693fd23beb1204bdcc11ad944058dbad555db759a0a5828115f",
    notice: "5066a30877f77949f58a7988e14ffe55ce9fc3a7c28abe3c5563539caef64b07",
  };

  it("shows a notice an earlier deploy signed, under the notice key only", async () => {
    const app = new Hono();
    app.get("/", (c) =>
      back(c as never, "/wallet-admin/users", { kind: "error", text: "Refused before" }),
    );
    app.get("/wallet-admin/users", async (c) =>
      c.json({
        shown: (await noticeOf(c as never)) ?? null,
        asCsrf: await getSignedCookie(c, consoleKey(c as never, "csrf"), "wallet_admin_notice"),
      }),
    );
    const at = (path: string, secret = key) =>
      app.request(
        `http://localhost${path}`,
        { headers: { cookie: notice } },
        { ...env, JWT_SECRET: secret },
      );
    // Signing is deterministic: today's code writes the very cookie kept.
    expect(noticeCookie(await at("/"))!.split(";")[0]).toBe(notice);
    expect(await (await at("/wallet-admin/users")).json()).toEqual({
      shown: { kind: "error", text: "Refused before" },
      asCsrf: false,
    });
    expect(await (await at("/wallet-admin/users", `${key}!`)).json()).toEqual({
      shown: null,
      asCsrf: false,
    });
  });

  it("takes a form's CSRF token an earlier deploy drew, under the csrf key only", async () => {
    // The key is kept, not the token: a session's token is new at every sign-in. A page draws
    // HMAC-SHA-256 of its session's token under the csrf key (session.ts), so a form drawn before a
    // deploy still posts after it.
    const vars = { JWT_SECRET: key };
    const res = await request("/sign-in", {
      method: "POST",
      body: form({ email: admin.email, password: PASSWORD }),
      vars,
    });
    expect(res.status, res.html).toBe(303);
    const session = res.headers.get("set-cookie")!.split(";")[0]!;
    const drawn = hidden((await request("/users", { cookie: session, vars })).html, "_csrf");
    const under = (signing: string) =>
      createHmac("sha256", signing)
        .update(session.slice(session.indexOf("=") + 1))
        .digest("hex");
    expect(drawn).toBe(under(keys.csrf));
    expect(drawn).not.toBe(under(keys.notice));
    expect(consoleKey(bare, "csrf")).toBe(keys.csrf);
    expect(consoleKey(bare, "notice")).toBe(keys.notice);
  });
});
