// The console on a wallet that stores more places than it shows (as the WordPress import makes
// one): every amount it draws is exact, so its rows add up to the last place stored, where the
// API's display strings round (its JSON numbers are exact).
import { beforeAll, describe, expect, it } from "vitest";
import { consoleOf } from "./console-helpers";
import { importedEntry, makeAdmin, makeUser, storingMore, type TestUser } from "./helpers";

const { request, signIn } = consoleOf();

let user: TestUser;
let wallet: string;
let cookie: string;

beforeAll(async () => {
  wallet = await storingMore();
  user = await makeUser();
  const nowS = Math.floor(Date.now() / 1000);
  await importedEntry(user.id, wallet, "CREDIT", 1005, "1.005", 0, nowS - 2);
  await importedEntry(user.id, wallet, "CREDIT", 1006, "1.006", 1005, nowS - 1);
  cookie = await signIn(await makeAdmin());
});

describe("the console on a wallet storing more places than it shows", () => {
  it("shows a user's entries, balances and available exactly", async () => {
    const page = await request(`/users/${user.id}`, { cookie });
    expect(page.status).toBe(200);
    // The entries, newest first: amount and balance after, where the API's display rounds to ₦1.01.
    expect(page.html).toContain('<td class="num">₦1.006</td><td class="num">₦2.011</td>');
    expect(page.html).toContain('<td class="num">₦1.005</td><td class="num">₦1.005</td>');
    expect(page.html).toContain('<th>Naira</th><td class="num">₦2.011</td>');
    // Held and available: nothing held, all of it available.
    expect(page.html).toContain(
      `<td>${wallet}</td><td class="num">₦0.00</td><td class="num">₦2.011</td>`,
    );
  });

  it("sums a statement exactly", async () => {
    // Days around today, wide enough for any site time zone.
    const day = (offsetDays: number) =>
      new Date(Date.now() + offsetDays * 86_400_000).toISOString().slice(0, 10);
    const query = new URLSearchParams({ wallet, from: day(-2), to: day(1) });
    const page = await request(`/users/${user.id}?${query}`, { cookie });
    const totals = page.html.match(
      /<table class="figures" aria-label="Statement totals"[^>]*>.*?<\/table>/s,
    )![0];
    expect(totals.match(/<td class="num">[^<]*<\/td>/g)).toEqual([
      '<td class="num">₦0.00</td>',
      '<td class="num">₦2.011</td>',
      '<td class="num">₦0.00</td>',
      '<td class="num">₦2.011</td>',
      '<td class="num">2</td>',
    ]);
  });

  it("shows the balance exactly in the user list and the overview", async () => {
    const list = await request(`/users?q=${encodeURIComponent(user.username)}`, { cookie });
    expect(list.html).toContain("₦2.011");
    const overview = await request("/", { cookie });
    expect(overview.html).toContain("₦2.011 in the balances of 1 user");
  });
});
