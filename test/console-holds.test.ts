// The console's user page and holds (src/console/user-holds.tsx): held and available beside each
// balance, the user's holds listed, and Capture and Void through the API, each once.
import { beforeAll, describe, expect, it } from "vitest";
import { consoleOf, form } from "./console-helpers";
import { wrappedD1 } from "./d1-counter";
import {
  balanceOf,
  call,
  credit,
  makeAdmin,
  makeUser,
  makeWallet,
  PASSWORD,
  type TestUser,
  tableCounts,
  testApp,
  unique,
} from "./helpers";

const { request, follow } = consoleOf(testApp());

const csrfOf = (html: string) => html.match(/name="_csrf" value="([^"]+)"/)?.[1] ?? "";

let admin: TestUser;
let user: TestUser;
let wallet: string;
let cookie: string;

beforeAll(async () => {
  admin = await makeAdmin();
  user = await makeUser();
  wallet = await makeWallet(admin, { name: "Naira Wallet" });
  await credit(admin, { user_id: user.id, wallet_id: wallet, amount: "100.00" });
  const res = await request("/sign-in", {
    method: "POST",
    body: form({ email: admin.email, password: PASSWORD }),
  });
  cookie = res.headers.get("set-cookie")!.split(";")[0]!;
});

async function hold(amount: string, holder = user) {
  const res = await call("POST", "/holds", {
    auth: admin.bearer,
    body: { user_id: holder.id, wallet_id: wallet, amount, request_id: unique("h"), note: "order" },
  });
  expect(res.status, res.text).toBe(200);
  return res.body.data.hold_id as number;
}

/** Sends a hold's form from the user page, follows the redirect, and answers the page shown. */
async function resolve(
  id: number,
  action: "capture" | "void",
  fields: Record<string, string> = {},
  holder = user,
) {
  const page = await request(`/users/${holder.id}`, { cookie });
  const res = await request(`/users/${holder.id}/holds/${id}/${action}`, {
    method: "POST",
    cookie,
    body: form({ _csrf: csrfOf(page.html), ...fields }),
  });
  expect(res.status).toBe(303);
  return follow(res, cookie);
}

describe("the user page's holds", () => {
  it("shows held and available under the balances, and lists holds with Capture and Void", async () => {
    // A user of its own: the other tests leave holds and captures on theirs.
    const holder = await makeUser();
    await credit(admin, { user_id: holder.id, wallet_id: wallet, amount: "100.00" });
    const id = await hold("30.00", holder);
    const page = await request(`/users/${holder.id}`, { cookie });
    expect(page.status).toBe(200);
    expect(page.html).toContain("<caption>Held and available</caption>");
    expect(page.html).toContain('<th>Naira Wallet</th><td class="num">₦100.00</td>');
    expect(page.html).toContain(
      `<td>${wallet}</td><td class="num">₦30.00</td><td class="num">₦70.00</td>`,
    );
    expect(page.html).toContain(`Capture hold ${id}`);
    expect(page.html).toContain(`Void hold ${id}`);
    // Its expiry to the second: cut to the minute, one falling due within it read as past.
    const expiresAt = (await call("GET", `/holds/${id}`, { auth: admin.bearer })).body.data
      .expires_at as string;
    const [day, time] = expiresAt.slice(0, 19).split("T");
    expect(page.html).toContain(
      `<time datetime="${day}T${time}Z"><span>${day}</span> <span>${time}</span></time>`,
    );
    // The browser asks before a void (console.js), naming the amount it releases.
    expect(page.html).toContain(
      `action="/wallet-admin/users/${holder.id}/holds/${id}/void" data-confirm="Void hold ${id}? Its ₦30.00 goes back to available`,
    );
    await resolve(id, "void", {}, holder);
  });

  it("draws balance, held and available of one moment, while a debit lands between its reads", async () => {
    const holder = await makeUser();
    // A wallet named as no other, so its row of the balances is found by its name.
    const name = unique("Page wallet ");
    const own = await makeWallet(admin, { name });
    await credit(admin, { user_id: holder.id, wallet_id: own, amount: "100.00" });
    const placed = await call("POST", "/holds", {
      auth: admin.bearer,
      body: { user_id: holder.id, wallet_id: own, amount: "60.00", request_id: unique("h") },
    });
    expect(placed.status, placed.text).toBe(200);
    // The page reads in several round trips at once; a debit of 10 lands right before the one that
    // reads what is held.
    let landed = false;
    const d1 = wrappedD1(async (statements, send) => {
      const sql = statements.map((s) => String((s as unknown as { statement: string }).statement));
      if (!landed && sql.some((text) => text.includes("held_minor"))) {
        landed = true;
        const res = await call("POST", "/debits", {
          auth: admin.bearer,
          body: { user_id: holder.id, wallet_id: own, amount: "10.00", request_id: unique("d") },
        });
        expect(res.status, res.text).toBe(200);
      }
      return send();
    });
    const page = await request(`/users/${holder.id}`, { cookie, vars: { DB: d1 } });
    expect(landed).toBe(true);
    const money = "₦([\\d.,]+)";
    const balance = page.html.match(new RegExp(`<th>${name}</th><td class="num">${money}</td>`));
    const figures = page.html.match(
      new RegExp(`<td>${own}</td><td class="num">${money}</td><td class="num">${money}</td>`),
    );
    // The three figures of one moment: read apart, the page could draw a balance of 100.00 beside
    // 60.00 held and 30.00 available.
    expect({ balance: balance?.[1], held: figures?.[1], available: figures?.[2] }).toEqual({
      balance: "90.00",
      held: "60.00",
      available: "30.00",
    });
  });

  it("captures part of a hold once, and shows what it debited", async () => {
    const id = await hold("20.00");
    const balance = await balanceOf(admin, user.id, wallet);
    const shown = await resolve(id, "capture", { amount: "5.00" });
    expect(shown.html).toContain(`Hold ${id} captured: ₦5.00 debited`);
    expect(shown.html).toMatch(/debited \(transaction \d+\); the rest released\./);
    expect(shown.html).not.toContain(`Capture hold ${id}`);
    expect(shown.html).toContain("captured ₦5.00 (transaction");
    expect(await balanceOf(admin, user.id, wallet)).toBe(balance - 5);
    const before = await tableCounts();
    const again = await resolve(id, "capture");
    expect(again.html).toContain(`Capture refused. Hold already resolved: Hold ${id} is captured`);
    expect(await tableCounts()).toEqual(before);
  });

  it("asks before a capture, and says nothing is released when all of it is captured", async () => {
    const id = await hold("20.00");
    const page = await request(`/users/${user.id}`, { cookie });
    expect(page.html).toContain(
      `action="/wallet-admin/users/${user.id}/holds/${id}/capture" data-confirm="Capture all ₦20.00 of hold ${id}? All of it is debited, and a hold is captured once." data-confirm-typed="Capture %s of hold ${id}&#39;s ₦20.00? That much is debited and the rest released, and a hold is captured once."`,
    );
    const shown = await resolve(id, "capture");
    expect(shown.html).toMatch(
      new RegExp(`Hold ${id} captured: ₦20.00 debited \\(transaction \\d+\\)\\.`),
    );
  });

  it("voids a hold: all released, nothing debited", async () => {
    const id = await hold("10.00");
    const before = await balanceOf(admin, user.id, wallet);
    const shown = await resolve(id, "void");
    expect(shown.html).toContain(`Hold ${id} voided: all of it released.`);
    expect(await balanceOf(admin, user.id, wallet)).toBe(before);
  });

  it("captures or voids a hold only from its own user's page: another's is not found", async () => {
    const id = await hold("2.00");
    const other = await makeUser();
    const page = await request(`/users/${other.id}`, { cookie });
    const before = await tableCounts();
    for (const action of ["capture", "void"]) {
      const res = await request(`/users/${other.id}/holds/${id}/${action}`, {
        method: "POST",
        cookie,
        body: form({ _csrf: csrfOf(page.html) }),
      });
      const shown = await follow(res, cookie);
      expect(shown.html).toContain(`refused. Hold not found: No hold ${id}`);
    }
    expect(await tableCounts()).toEqual(before);
    await resolve(id, "void");
  });

  it("pages a user's holds, so a hold still held behind 20 newer ones can be voided", async () => {
    const holder = await makeUser();
    await credit(admin, { user_id: holder.id, wallet_id: wallet, amount: "100.00" });
    const oldest = await hold("1.00", holder);
    for (let i = 0; i < 20; i++) await hold("0.50", holder);
    const first = await request(`/users/${holder.id}`, { cookie });
    // Before: the 20 newest only, no pager; the oldest, still held (its ₦1.00 in Held), was
    // neither shown nor reachable.
    expect(first.html).not.toContain(`Capture hold ${oldest}<`);
    expect(first.html).toContain(
      `href="/wallet-admin/users/${holder.id}?page=1&amp;holds_page=2#holds">Next</a>`,
    );
    const second = await request(`/users/${holder.id}?holds_page=2`, { cookie });
    expect(second.html).toContain(`Capture hold ${oldest}<`);
    expect(second.html).toContain(
      `href="/wallet-admin/users/${holder.id}?page=1&amp;holds_page=1#holds">Previous</a>`,
    );
    expect(second.html).toContain(`Void hold ${oldest}<`);
    const shown = await resolve(oldest, "void", {}, holder);
    expect(shown.html).toContain(`Hold ${oldest} voided: all of it released.`);
    for (const past of ["3", "9007199254740991"]) {
      const page = await request(`/users/${holder.id}?holds_page=${past}`, { cookie });
      expect(page.status).toBe(200);
      expect(page.html).toContain(`There is no page ${past}: the last is`);
    }
  });

  it("refuses a capture form without its CSRF token, and writes nothing", async () => {
    const id = await hold("1.00");
    const before = await tableCounts();
    const res = await request(`/users/${user.id}/holds/${id}/capture`, {
      method: "POST",
      cookie,
      body: form({}),
    });
    expect(res.status).toBe(403);
    expect(await tableCounts()).toEqual(before);
  });
});
