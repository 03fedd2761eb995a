// The console over hostile input: whatever query a link carries and whatever a form posts (with the
// operator's session and CSRF token, so the screens' own code reads it) is answered below 500, in
// the console's HTML or a redirect, and the ledger stays sound. fast-check, fixed seeds.
import { env } from "cloudflare:workers";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { consoleRoutes } from "../src/console";
import { MOVES } from "../src/console/user";
import { consoleOf, hidden } from "./console-helpers";
import {
  CLEAN,
  call,
  credit,
  ledgerViolations,
  makeAdmin,
  makeUser,
  makeWallet,
  type TestUser,
  testApp,
  unique,
} from "./helpers";
import { hostileString, queryText, rawQuery } from "./reliability/hostile-input";

// A webhook test or resend is answered here, not sent out.
const { request, signIn } = consoleOf(
  testApp({ outbound: async () => new Response(null, { status: 204 }) }),
);

let operator: TestUser;
let cookie: string;
let csrf: string;
/**
 * Each page, by its route, with the query parameters it reads; each form, by its route, with the
 * fields it reads and fields it is always sent with (a confirmation's), and whether it needs a
 * session of its own (one it ends).
 */
let gets: Record<string, [string, string[]]>;
let posts: Record<string, [string, string[], Record<string, string>?, "own session"?]>;

/** A session of the operator's own, with its CSRF token. */
async function ownSession() {
  const own = await signIn(operator);
  return { cookie: own, csrf: hidden((await request("/", { cookie: own })).html, "_csrf") };
}

beforeAll(async () => {
  const admin = await makeAdmin();
  operator = admin;
  const alice = await makeUser();
  const wallet = await makeWallet(admin);
  const txn = (await credit(admin, { user_id: alice.id, wallet_id: wallet, amount: "100.00" })).body
    .data.transaction_id as number;
  const hold = await call("POST", "/holds", {
    auth: admin.bearer,
    body: { user_id: alice.id, wallet_id: wallet, amount: "5", request_id: unique("h") },
  });
  const batch = await call("POST", "/batches", {
    auth: admin.bearer,
    body: {
      request_id: unique("b"),
      operations: [{ type: "credit", user_id: alice.id, wallet_id: wallet, amount: "1" }],
    },
  });
  const webhook = () =>
    call("POST", "/webhooks", {
      auth: admin.bearer,
      body: { url: "http://127.0.0.1:9/hostile", events: "transaction.created" },
    });
  // One to test and resend, and one to delete.
  const [hook, doomed] = [await webhook(), await webhook()];
  const key = await call("POST", "/api-keys", {
    auth: admin.bearer,
    body: { name: "k", scope: "read" },
  });
  ({ cookie, csrf } = await ownSession());
  const user = `/users/${alice.id}`;
  const statement = ["wallet", "from", "to"];
  gets = {
    "/": ["/", []],
    "/users": ["/users", ["q", "page"]],
    "/users/:id": [user, ["page", ...statement]],
    "/users/:id/statement.csv": [`${user}/statement.csv`, statement],
    "/users/:id/reverse/:txn": [`${user}/reverse/${txn}`, []],
    ...Object.fromEntries(
      MOVES.map((action) => [`/users/:id/${action}`, [`${user}/${action}`, ["ask"]]]),
    ),
    "/batches/:id": [`/batches/${batch.body.data.batch_id}`, []],
    "/wallets": ["/wallets", []],
    "/api-keys": ["/api-keys", []],
    "/webhooks": ["/webhooks", []],
    "/outbox": ["/outbox", []],
    "/sign-in": ["/sign-in", []],
  };
  const money = ["wallet_id", "amount", "request_id", "note"];
  const webhooks = `/webhooks/${hook.body.data.id}`;
  posts = {
    // Money moves only from its confirmation; Cancel gives the form back.
    ...Object.fromEntries(
      MOVES.flatMap((action) => {
        const path = `${user}/${action}`;
        const fields = action === "transfer" ? [...money, "to_user_id"] : money;
        return [
          [`/users/:id/${action}`, [path, [...fields, "step"]]],
          [`/users/:id/${action} confirm`, [path, fields, { step: "confirm" }]],
          [`/users/:id/${action} cancel`, [path, fields, { step: "cancel" }]],
        ];
      }),
    ),
    "/users/:id/reverse/:txn": [`${user}/reverse/${txn}`, ["request_id", "note"]],
    "/users/:id/holds/:hold/capture": [
      `${user}/holds/${hold.body.data.id}/capture`,
      ["amount", "note"],
    ],
    "/users/:id/holds/:hold/void": [`${user}/holds/${hold.body.data.id}/void`, ["note"]],
    "/users/:id/sessions/revoke": [`${user}/sessions/revoke`, []],
    "/users": ["/users", ["username", "user_email", "user_password"]],
    "/wallets": [
      "/wallets",
      ["wallet_id", "wallet_name", "wallet_symbol", "wallet_symbol_position", "wallet_decimal"],
    ],
    "/api-keys": ["/api-keys", ["username", "name", "scope"]],
    "/api-keys/:id/revoke": [`/api-keys/${key.body.data.id}/revoke`, []],
    "/webhooks": ["/webhooks", ["url", "events", "description"]],
    "/webhooks/:id/test": [`${webhooks}/test`, []],
    "/webhooks/:id/resend": [`${webhooks}/resend`, ["event_id"]],
    "/webhooks/:id/delete": [`/webhooks/${doomed.body.data.id}/delete`, []],
    "/batches/:id/reverse": [`/batches/${batch.body.data.batch_id}/reverse`, ["note"]],
    "/sign-in": ["/sign-in", ["email", "password"]],
    // Sent with a session of its own, which it may end.
    "/sign-out": ["/sign-out", [], {}, "own session"],
  };
});

/** Text shaped like a day, at the calendar's edges and past them (year 0000 or 9999, month 99). */
const dayLike = fc
  .tuple(
    fc.constantFrom("0000", "2026", "9999"),
    fc.constantFrom("00", "01", "02", "12", "13", "99"),
    fc.constantFrom("00", "01", "28", "29", "30", "31", "32", "99"),
  )
  .map((parts) => parts.join("-"));

const value = fc.oneof(hostileString(2_000), dayLike, dayLike);

/** A query of the parameters a page reads, each there or not, and others, with hostile values. */
const queryFor = (names: string[]) =>
  fc
    .tuple(
      fc.record(Object.fromEntries(names.map((name) => [name, value])), { requiredKeys: [] }),
      fc.array(fc.tuple(fc.constantFrom("ok", "error", "x"), value), { maxLength: 2 }),
      rawQuery,
    )
    .map(([read, other, raw]) => queryText([...Object.entries(read), ...other], raw));

/** The console's files, the same whatever is sent: no query or form of theirs to sweep. */
const FILES = new Set(["/console.css", "/console.js", "/icon.svg"]);

describe("the console over hostile input", () => {
  it("sweeps every page and form the console serves, and none that is gone", () => {
    const served = (method: string) =>
      consoleRoutes()
        .routes.filter((r) => r.method === method && !FILES.has(r.path))
        .map((r) => r.path);
    const swept = (record: object) => [
      ...new Set(Object.keys(record).map((name) => name.split(" ")[0]!)),
    ];
    expect(swept(gets).sort()).toEqual([...new Set(served("GET"))].sort());
    expect(swept(posts).sort()).toEqual([...new Set(served("POST"))].sort());
  });

  it("answers every page below 500 whatever its query", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.nat().chain((at) => {
          const pages = Object.values(gets);
          const [path, names] = pages[at % pages.length]!;
          return fc.tuple(fc.constant(path), queryFor(names));
        }),
        async ([path, q]) => {
          const res = await request(q ? `${path}?${q}` : path, { cookie });
          expect(res.status, `${path}?${q}`).toBeLessThan(500);
        },
      ),
      { seed: 20261129, numRuns: 300 },
    );
  });

  it("answers every form below 500 whatever it holds, and the ledger stays sound", async () => {
    const form = fc.nat().chain((at) => {
      const forms = Object.values(posts);
      const [path, names, fixed, own] = forms[at % forms.length]!;
      const fields = fc.array(
        fc.tuple(fc.constantFrom(...names, "_csrf", "extra"), hostileString(2_000)),
        { maxLength: 5 },
      );
      // Raw text after the form: a percent-escape that is no UTF-8, a lone name, a stray '='.
      const tail = fc.constantFrom("", "&note=%ff", "&amount", "&=", "&%zz=1");
      return fc.tuple(fc.constant(path), fc.constant(fixed ?? {}), fields, tail, fc.constant(own));
    });
    await fc.assert(
      fc.asyncProperty(form, async ([path, fixed, fields, tail, own]) => {
        const session = own ? await ownSession() : { cookie, csrf };
        const body = new URLSearchParams([
          ["_csrf", session.csrf],
          ...Object.entries(fixed),
          ...fields.map(([k, v]) => [k, v]),
        ]);
        let text: string;
        try {
          text = body.toString();
        } catch {
          return; // a lone surrogate cannot be percent-encoded
        }
        const res = await request(path, {
          method: "POST",
          cookie: session.cookie,
          headers: { "Content-Type": "application/x-www-form-urlencoded" },
          body: `${text}${tail}`,
        });
        expect(res.status, `${path} ${text.slice(0, 200)}${tail}`).toBeLessThan(500);
      }),
      { seed: 20261129, numRuns: 150 },
    );
    expect(await ledgerViolations()).toEqual(CLEAN);
  });
});

/**
 * Text a WordPress import writes as the site held it: a username, a wallet's name and symbol with a
 * right-to-left override (U+202E), a zero-width space (U+200B), a first-strong isolate (U+2068).
 * wallet/v1 refuses such a wallet, so it is written here as the importer writes one.
 */
describe("the console over text a WordPress import stored", () => {
  const HIDDEN = /[\u202e\u200b\u2068]/;
  let bob: TestUser;
  let wallet: string;
  let txn: number;
  let admin: TestUser;

  beforeAll(async () => {
    admin = await makeAdmin();
    bob = await makeUser("subscriber", unique("bob\u202egnp.exe\u200b"));
    wallet = unique("rtl").toLowerCase().slice(0, 20);
    await env.DB.prepare(
      `INSERT INTO wallets (id, name, symbol, symbol_position, decimals, type, created_at_ms)
       VALUES (?, 'Dollar\u202e', '\u202e$', 'left', 2, 'fiat', 0)`,
    )
      .bind(wallet)
      .run();
    const res = await credit(admin, {
      user_id: bob.id,
      wallet_id: wallet,
      amount: "12.50",
      note: "paid\u2068 in full",
    });
    txn = res.body.data.transaction_id as number;
  });

  it("shows its control, bidirectional and invisible characters as their codes, so none reorders or hides the page", async () => {
    const mine = await signIn(admin);
    const pages = [
      `/users/${bob.id}`,
      `/users?q=${encodeURIComponent(bob.username)}`,
      "/",
      "/wallets",
      `/users/${bob.id}/reverse/${txn}`,
    ];
    for (const path of pages) {
      const page = await request(path, { cookie: mine });
      expect(page.status, path).toBe(200);
      // But a field's value: what the operator typed (the search), kept as typed.
      expect(page.html.replace(/ value="[^"]*"/g, "").match(HIDDEN), path).toBeNull();
    }
    const search = await request(pages[1]!, { cookie: mine });
    expect(search.html).toContain(`<input name="q" type="search" value="${bob.username}"`);
    const user = (await request(`/users/${bob.id}`, { cookie: mine })).html;
    // Drawn as sent, the override would show the title as "bob…(7 resu)" and $12.50 as "05.21$".
    expect(user).toContain(
      `<h1>${bob.username.replace("\u202e", "\\u202e").replace("\u200b", "\\u200b")} (user ${bob.id})</h1>`,
    );
    expect(user).toContain('<td class="num">\\u202e$12.50</td>');
    expect(user).toContain("paid\\u2068 in full");
    // The stored text itself is unchanged: only its drawing.
    const stored = await env.DB.prepare("SELECT username FROM users WHERE id = ?")
      .bind(bob.id)
      .first<{ username: string }>();
    expect(stored!.username).toBe(bob.username);
  });
});
