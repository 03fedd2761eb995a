// The console's paged lists (users, a user's entries): a page number an address carries, whatever
// it is, draws the list with a pager that never names a page past the last, and whose links carry
// the page's declared parameters (src/console/query.ts) and nothing else an address brought.
import { beforeAll, describe, expect, it } from "vitest";
import { PER_PAGE } from "../src/console/page";
import { consoleOf } from "./console-helpers";
import { appendHistory, makeAdmin, makeUser, makeWallet, unique } from "./helpers";

const { request, signIn } = consoleOf();

let cookie: string;
let prefix: string;
let alice: { id: number };
let wallet: string;
/** Two pages of each list: users found by one search, and one user's entries. */
let lists: string[];

beforeAll(async () => {
  const admin = await makeAdmin();
  prefix = unique("pg");
  for (let i = 0; i <= PER_PAGE; i++) await makeUser("subscriber", `${prefix}${i}`);
  alice = await makeUser();
  wallet = await makeWallet(admin);
  await appendHistory(alice.id, wallet, PER_PAGE + 1);
  cookie = await signIn(admin);
  lists = [`/users?q=${prefix}`, `/users/${alice.id}?`];
});

const pager = (html: string) => html.match(/<nav class="pager".*?<\/nav>/)?.[0] ?? "";
/** A user's entries are low on a long page: their links land on them. */
const landing = (list: string) => (list.startsWith("/users/") ? "#entries" : "");

describe("the console's pager", () => {
  it("draws page 2 of 2 with a link back to page 1", async () => {
    for (const list of lists) {
      const page = await request(`${list}&page=2`, { cookie });
      expect(page.status, list).toBe(200);
      expect(pager(page.html), list).toContain("Page 2 of 2");
      expect(pager(page.html), list).toContain(`page=1${landing(list)}">Previous<`);
    }
  });

  it.each(["3", "7", "9007199254740991"])(
    "says page %s is past the last and links to the last, never 'Page 3 of 2'",
    async (number) => {
      for (const list of lists) {
        const page = await request(`${list}&page=${number}`, { cookie });
        expect(page.status, list).toBe(200);
        expect(page.html, list).not.toContain(" of 2");
        expect(page.html, list).toContain(`There is no page ${number}: the last is`);
        expect(page.html, list).toContain(`page=2${landing(list)}">page 2</a>`);
      }
    },
  );

  it.each(["0", "-1", "abc", "2.5", "1e400", "99999999999999999999", ""])(
    "reads page %s as the first",
    async (number) => {
      for (const list of lists) {
        const page = await request(`${list}&page=${encodeURIComponent(number)}`, { cookie });
        expect(page.status, list).toBe(200);
        expect(pager(page.html), list).toContain("Page 1 of 2");
      }
    },
  );

  it("counts the users a search finds in words, and says when it finds none", async () => {
    const one = await makeUser("subscriber", unique("one"));
    const found = await request(`/users?q=${one.username}`, { cookie });
    expect(found.html).toContain('<p class="muted">1 user</p>');
    const none = await request(`/users?q=${unique("none")}<b>`, { cookie });
    expect(none.html).toMatch(/<p class="muted">No user matches “none[0-9a-z]+&lt;b&gt;”\.<\/p>/);
  });

  it("finds a user by a username or e-mail pasted with white space around it", async () => {
    const one = await makeUser("subscriber", unique("paste"));
    for (const q of [` ${one.username}`, `${one.email} `, `\t${one.email}\u00a0`]) {
      const found = await request(`/users?q=${encodeURIComponent(q)}`, { cookie });
      expect(found.html, JSON.stringify(q)).toContain('<p class="muted">1 user</p>');
      // The field keeps the search as typed.
      expect(found.html).toContain(`value="${q}"`);
    }
  });

  it("keeps a search's first 100 characters, never half of one", async () => {
    const q = `${"a".repeat(99)}😀b`;
    const found = await request(`/users?q=${encodeURIComponent(q)}`, { cookie });
    expect(found.html).toContain(`value="${"a".repeat(99)}😀"`);
  });

  const previous = (html: string) =>
    /<a href="([^"]+)">Previous<\/a>/.exec(html)?.[1]?.replaceAll("&amp;", "&") ?? "no link";

  it("links the users list's pages with its search and page only", async () => {
    const page = await request(`/users?q=${prefix}&page=2&utm_source=mail&page=9`, { cookie });
    expect(previous(page.html)).toBe(`/wallet-admin/users?q=${prefix}&page=1`);
  });

  it("links a user's entries with the statement's wallet and days and the page only", async () => {
    const days = `wallet=${wallet}&from=2026-11-05&to=2026-11-12`;
    const page = await request(`/users/${alice.id}?${days}&page=2&utm_source=mail`, { cookie });
    expect(previous(page.html)).toBe(`/wallet-admin/users/${alice.id}?${days}&page=1#entries`);
  });
});
