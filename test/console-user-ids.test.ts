// A transfer names its recipient by user id: the Users list shows each user's id, its search finds
// a user by the id typed (first, as well as every user whose username or e-mail holds those digits),
// and the Transfer form's To user field says where ids are found.
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { PER_PAGE } from "../src/console/page";
import { consoleOf, form, hidden } from "./console-helpers";
import { makeAdmin, makeUser, makeWallet, type TestUser, unique } from "./helpers";

const { request, signIn, follow } = consoleOf();

let admin: TestUser;
let cookie: string;
/** A user whose username and e-mail hold no digit: only its id can find it by digits. */
let target: TestUser;
/** A user made before the target, whose username holds the target's id: it sorts before it by id. */
let holder: TestUser;

/** Letters only, none repeated from one call to the next. */
const letters = () =>
  Array.from(crypto.getRandomValues(new Uint8Array(12)), (b) =>
    String.fromCharCode(97 + (b % 26)),
  ).join("");

beforeAll(async () => {
  admin = await makeAdmin();
  cookie = await signIn(admin);
  holder = await makeUser("subscriber", `idholder${letters()}`);
  target = await makeUser("subscriber", `idtarget${letters()}`);
  holder.username = `${holder.username}${target.id}`;
  await env.DB.prepare("UPDATE users SET username = ? WHERE id = ?")
    .bind(holder.username, holder.id)
    .run();
});

/** The users list's rows as drawn: each row's id cell and the user its username links to. */
const rows = (html: string) =>
  [...html.matchAll(/<tr><td>([^<]*)<\/td><td><a href="\/wallet-admin\/users\/([0-9]+)">/g)].map(
    ([, shown, linked]) => ({ shown, linked: Number(linked) }),
  );

/** The users linked on a page of the list, in their order (whatever the row holds before). */
const linked = (html: string) =>
  [...html.matchAll(/<td><a href="\/wallet-admin\/users\/([0-9]+)">/g)].map(([, id]) => Number(id));

/** The users whose username or e-mail holds `text`, as the search has always found them, by id. */
async function textMatches(text: string) {
  const { results } = await env.DB.prepare(
    "SELECT id FROM users WHERE username LIKE ?1 OR email LIKE ?1 ORDER BY id",
  )
    .bind(`%${text}%`)
    .all<{ id: number }>();
  return results.map((r) => r.id);
}

describe("the Users list and a user's id", () => {
  it("shows each user's id in its first column, beside the username", async () => {
    const page = await request(`/users?q=${target.username}`, { cookie });
    expect(page.html).toContain("<th>ID</th><th>Username</th>");
    expect(rows(page.html)).toEqual([{ shown: String(target.id), linked: target.id }]);
  });

  it("finds the user an id names first, then every user whose username or e-mail holds its digits", async () => {
    const id = String(target.id);
    const others = (await textMatches(id)).filter((n) => n !== target.id);
    expect(others).toContain(holder.id);
    const page = await request(`/users?q=${id}`, { cookie });
    expect(page.status).toBe(200);
    expect(page.html).toContain(`<p class="muted">${others.length + 1} users</p>`);
    expect(linked(page.html)[0]).toBe(target.id);
    expect(linked(page.html).slice(1)).toEqual(others.slice(0, PER_PAGE - 1));
    // The text's matches follow by id, on the pages after the first as well.
    const at = others.indexOf(holder.id) + 1;
    const holderPage = Math.floor(at / PER_PAGE) + 1;
    const later = await request(`/users?q=${id}&page=${holderPage}`, { cookie });
    expect(linked(later.html)).toContain(holder.id);
  });

  it("reads the id as a transfer's recipient is read: leading zeros, white space around", async () => {
    for (const q of [`00${target.id}`, ` ${target.id}\t`]) {
      const page = await request(`/users?q=${encodeURIComponent(q)}`, { cookie });
      expect(linked(page.html)[0], JSON.stringify(q)).toBe(target.id);
    }
  });
});

describe("the pages of a search by digits", () => {
  /** Digits no user's id is, held by every user made below (with the target's id). */
  let digits: string;

  beforeAll(async () => {
    digits = `${target.id}000000000`;
    for (let i = 0; i < 2 * PER_PAGE; i++)
      await makeUser("subscriber", `idpage${letters()}${digits}`);
  });

  /** The users a search lists, page after page, in their order, and the count it says. */
  async function listed(q: string) {
    const all: number[] = [];
    for (let page = 1; ; page++) {
      const html = (await request(`/users?q=${q}&page=${page}`, { cookie })).html;
      all.push(...linked(html));
      if (!html.includes(">Next<"))
        return { all, said: html.match(/<p class="muted">([^<]*)/)?.[1] };
    }
  }

  it("lists the user of the id first and every other match once, by id, page after page", async () => {
    const others = (await textMatches(String(target.id))).filter((n) => n !== target.id);
    expect(others.length).toBeGreaterThan(2 * PER_PAGE);
    expect(await listed(String(target.id))).toEqual({
      all: [target.id, ...others],
      said: `${others.length + 1} users`,
    });
  });

  it("lists the matches alone, page after page, when the digits are no user's id", async () => {
    const matches = await textMatches(digits);
    expect(matches).toHaveLength(2 * PER_PAGE);
    expect(await listed(digits)).toEqual({ all: matches, said: `${matches.length} users` });
  });
});

describe("the Transfer form's recipient", () => {
  it("keeps its hint when refused, after the words, described by the notice and the hint", async () => {
    const page = await request(`/users/${holder.id}`, { cookie });
    const sent = await request(`/users/${holder.id}/transfer`, {
      method: "POST",
      cookie,
      body: form({
        _csrf: hidden(page.html, "_csrf"),
        wallet_id: await makeWallet(admin),
        amount: "1",
        to_user_id: "bob",
        request_id: unique("r"),
      }),
    });
    const back = await follow(sent, cookie);
    expect(back.html).toContain(
      `value="bob" aria-invalid="true" aria-describedby="notice to-user-hint"/></label><p class="field-error" aria-hidden="true">To user requires an integer</p><p class="hint" id="to-user-hint">`,
    );
  });

  it("says where a user's id is found, and is described by it", async () => {
    const page = await request(`/users/${holder.id}`, { cookie });
    const transfer = page.html.slice(
      page.html.indexOf(`action="/wallet-admin/users/${holder.id}/transfer"`),
    );
    expect(transfer).toMatch(
      /<label><span>To user<\/span><input name="to_user_id" [^>]*aria-describedby="to-user-hint"\/><\/label><p class="hint" id="to-user-hint">A user&#39;s id, as the Users list shows it\.<\/p>/,
    );
  });
});
