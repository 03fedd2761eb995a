// A refused form is drawn again as it was typed, never its password nor a webhook's URL: signing in,
// a new user, a new wallet, a new API key, a new webhook and a hold's capture amount, as the money forms already are
// (test/console.test.ts). Emptied, an operator retyped them all; a capture emptied captured all.
import { beforeAll, describe, expect, it } from "vitest";
import { Field, inLabels, refusedForm } from "../src/console/views";
import { consoleOf, form, hidden } from "./console-helpers";
import {
  call,
  credit,
  makeAdmin,
  makeUser,
  makeWallet,
  type TestUser,
  testApp,
  unique,
} from "./helpers";

const { request, signIn, shown } = consoleOf(testApp());

let admin: TestUser;
let cookie: string;
let csrf: string;

beforeAll(async () => {
  admin = await makeAdmin();
  cookie = await signIn(admin);
  csrf = hidden((await request("/users", { cookie })).html, "_csrf");
});

/** The page a console form's answer shows, sent with this test's session. */
const sent = (path: string, fields: Record<string, string>) =>
  shown(path, { _csrf: csrf, ...fields }, cookie);

/** The value the field `name` is drawn with, or undefined when it has none. */
const drawnValue = (html: string, name: string) =>
  html.match(new RegExp(`<input name="${name}"[^>]*?value="([^"]*)"`))?.[1];

describe("a refused form drawn again", () => {
  it("keeps the login typed at sign-in, not the password", async () => {
    const res = await request("/sign-in", {
      method: "POST",
      body: form({ email: admin.email, password: "not-the-password" }),
    });
    expect(res.status).toBe(400);
    expect(res.html).toContain("Those credentials were not accepted.");
    expect(drawnValue(res.html, "email")).toBe(admin.email);
    expect(res.html).not.toContain("not-the-password");
  });

  it("keeps a new user's username and e-mail, not the password", async () => {
    const taken = await makeUser();
    const page = await sent("/users", {
      username: taken.username,
      user_email: "kept-user@example.test",
      user_password: "kept-password-1",
    });
    expect(page.html).toContain("username already taken");
    expect(drawnValue(page.html, "username")).toBe(taken.username);
    expect(drawnValue(page.html, "user_email")).toBe("kept-user@example.test");
    expect(page.html).not.toContain("kept-password-1");
  });

  it("keeps a new wallet's fields", async () => {
    const page = await sent("/wallets", {
      wallet_id: "kept",
      wallet_name: "Kept Coin",
      wallet_symbol: "K",
      wallet_symbol_position: "right",
      wallet_decimal: "12",
    });
    expect(page.html).toContain("wallet_decimal must be an integer from 0 to 8");
    expect(drawnValue(page.html, "wallet_id")).toBe("kept");
    expect(drawnValue(page.html, "wallet_name")).toBe("Kept Coin");
    expect(drawnValue(page.html, "wallet_symbol")).toBe("K");
    expect(drawnValue(page.html, "wallet_decimal")).toBe("12");
    expect(page.html).toContain('<option value="right" selected="">right</option>');
  });

  it("keeps a new API key's name, scope and username", async () => {
    const page = await sent("/api-keys", { name: "kept key", scope: "read", username: "nobody-x" });
    expect(page.html).toContain("New API key refused. No user nobody-x.");
    expect(drawnValue(page.html, "name")).toBe("kept key");
    expect(drawnValue(page.html, "username")).toBe("nobody-x");
    expect(page.html).toContain('<option value="read" selected="">read</option>');
  });

  it("keeps a new webhook's events and description, not its URL (often the receiver's secret)", async () => {
    const page = await sent("/webhooks", {
      url: "ftp://hooks.example.com/kept",
      events: "transaction.created, hold.voided",
      description: "kept hook",
    });
    expect(page.html).toContain("url must start with https://");
    expect(drawnValue(page.html, "url")).toBeUndefined();
    expect(page.html).not.toContain("hooks.example.com/kept");
    expect(drawnValue(page.html, "events")).toBe("transaction.created, hold.voided");
    expect(drawnValue(page.html, "description")).toBe("kept hook");
  });

  it("answers a refused key or webhook with a redirect to its list, as every form: a reload posts nothing", async () => {
    // Drawn as the POST's own answer, a reload (or Back) asked to post the form again.
    for (const [path, fields] of [
      ["/api-keys", { name: "reloaded", scope: "read", username: "nobody-y" }],
      ["/webhooks", { url: "ftp://hooks.example.com/x", events: "transaction.created" }],
    ] as const) {
      const res = await request(path, {
        method: "POST",
        cookie,
        body: form({ _csrf: csrf, ...fields }),
      });
      expect(res.status, path).toBe(303);
      expect(res.headers.get("location"), path).toBe(`/wallet-admin${path}`);
    }
  });

  it("keeps a capture's amount on that hold's form only: sent again empty, it captured all", async () => {
    const user = await makeUser();
    const wallet = await makeWallet(admin);
    await credit(admin, { user_id: user.id, wallet_id: wallet, amount: "100" });
    const place = async (amount: string) => {
      const res = await call("POST", "/holds", {
        auth: admin.bearer,
        body: { user_id: user.id, wallet_id: wallet, amount, request_id: unique("h") },
      });
      expect(res.status, res.text).toBe(200);
      return res.body.data.hold_id as number;
    };
    const [first, second] = [await place("40"), await place("10")];
    const page = await sent(`/users/${user.id}/holds/${first}/capture`, { amount: "50" });
    expect(page.html).toContain("Capture refused.");
    const captureForm = (id: number) =>
      page.html.match(new RegExp(`holds/${id}/capture"[\\s\\S]*?</form>`))![0];
    expect(drawnValue(captureForm(first), "amount")).toBe("50");
    expect(drawnValue(captureForm(second), "amount")).toBeUndefined();
  });

  it("is drawn empty once it succeeded", async () => {
    const page = await sent("/api-keys", { name: unique("made"), scope: "read" });
    expect(page.html).toContain("copy it now");
    expect(drawnValue(page.html, "name")).toBeUndefined();
  });
});

/**
 * The fields of `html` marked as the one a refusal is about, each as `action name` (the form's path
 * under the console, the field's name), and whether each points at the notice, which says why.
 */
function marked(html: string) {
  return html
    .split("<form")
    .slice(1)
    .flatMap((f) => {
      const action = f.match(/action="\/wallet-admin([^"]*)"/)?.[1] ?? "";
      return [...f.matchAll(/<(?:input|select)[^>]*aria-invalid="true"[^>]*>/g)].map((m) => {
        const name = m[0].match(/name="([^"]*)"/)?.[1];
        const describedBy = m[0].match(/aria-describedby="([^"]*)"/)?.[1];
        // Described by the notice, and by the field's hint too where it has one (an amount, a recipient).
        const byNotice = describedBy?.split(" ").includes("notice");
        return `${action} ${name} ${byNotice ? "described" : describedBy}`;
      });
    });
}

describe("a refused form's field at fault", () => {
  let user: TestUser;
  let wallet: string;
  let userPage: string;

  beforeAll(async () => {
    user = await makeUser();
    wallet = await makeWallet(admin);
    await credit(admin, { user_id: user.id, wallet_id: wallet, amount: "10" });
    userPage = `/users/${user.id}`;
  });

  /** The page a refused form comes back to: its notice (with the id fields point at), its marks. */
  async function refused(path: string, fields: Record<string, string>, words: string) {
    const page = await sent(path, fields);
    expect(page.html).toContain(`<p id="notice" class="notice error" role="alert"`);
    expect(page.html).toContain(words);
    return marked(page.html);
  }

  it.each([
    // The balance refuses a debit once confirmed: its confirmation's Confirm.
    ["debit", { amount: "1000", step: "confirm" }, "Debit refused. Insufficient Balance", "amount"],
    ["debit", { amount: "1.001" }, "more decimal places than wallet", "amount"],
    ["credit", { amount: "abc" }, "amount requires a valid amount", "amount"],
    ["credit", { amount: "1", wallet_id: "nope" }, "wallet_id not found", "wallet_id"],
    ["transfer", { amount: "1", to_user_id: "999999999" }, "No user 999999999.", "to_user_id"],
    [
      "transfer",
      { amount: "1", to_user_id: "bob" },
      "to_user_id requires an integer",
      "to_user_id",
    ],
  ])("is marked on a refused %s (%o)", async (action, typed, words, at) => {
    const path = `${userPage}/${action}`;
    const found = await refused(
      path,
      { wallet_id: wallet, request_id: unique("r"), ...typed },
      words,
    );
    expect(found).toEqual([`${path} ${at} described`]);
  });

  it("is the recipient on a transfer to the page's own user", async () => {
    const path = `${userPage}/transfer`;
    const found = await refused(
      path,
      { wallet_id: wallet, amount: "1", to_user_id: String(user.id), request_id: unique("r") },
      "to_user_id must differ from from_user_id",
    );
    expect(found).toEqual([`${path} to_user_id described`]);
  });

  it("is none when the refusal names no field of the form (a key a hold holds)", async () => {
    const key = unique("held");
    const hold = await call("POST", "/holds", {
      auth: admin.bearer,
      body: { user_id: user.id, wallet_id: wallet, amount: "1", request_id: key },
    });
    expect(hold.status, hold.text).toBe(200);
    const found = await refused(
      `${userPage}/debit`,
      { wallet_id: wallet, amount: "1", request_id: key, step: "confirm" },
      "Debit refused. Transaction already exists",
    );
    expect(found).toEqual([]);
  });

  it.each([
    [
      "/wallets",
      {
        wallet_id: "kept",
        wallet_name: "K",
        wallet_symbol: "K",
        wallet_symbol_position: "left",
        wallet_decimal: "12",
      },
      "wallet_decimal must be an integer from 0 to 8",
      "wallet_decimal",
    ],
    [
      "/api-keys",
      { name: "k", scope: "read", username: "nobody-z" },
      "No user nobody-z.",
      "username",
    ],
    [
      "/webhooks",
      { url: "ftp://hooks.example.com/x", events: "transaction.created" },
      "url must start with https://",
      "url",
    ],
  ])("is marked on a refused %s form", async (path, typed, words, at) => {
    expect(await refused(path, typed, words)).toEqual([`${path} ${at} described`]);
  });

  it("is a capture's amount on a refused capture of that hold, none on a refusal of no amount", async () => {
    const place = async () => {
      const res = await call("POST", "/holds", {
        auth: admin.bearer,
        body: { user_id: user.id, wallet_id: wallet, amount: "2", request_id: unique("h") },
      });
      expect(res.status, res.text).toBe(200);
      return res.body.data.hold_id as number;
    };
    const [held, voided] = [await place(), await place()];
    const capture = (id: number) => `${userPage}/holds/${id}/capture`;
    for (const amount of ["3", "1.001", "abc"]) {
      const found = await refused(capture(held), { amount }, "Capture refused.");
      expect(found, amount).toEqual([`${capture(held)} amount described`]);
    }
    // Resolved already: the refusal is about the hold, not the amount typed.
    const res = await sent(`${userPage}/holds/${voided}/void`, {});
    expect(res.html).toContain(`Hold ${voided} voided`);
    expect(await refused(capture(voided), { amount: "1" }, "Capture refused.")).toEqual([]);
  });

  it("is the password on a refused sign-in, whether or not the account exists: the page is the same", async () => {
    const page = async (email: string) => {
      const res = await request("/sign-in", {
        method: "POST",
        body: form({ email, password: "not-the-password" }),
      });
      expect(res.status).toBe(400);
      expect(res.html).toContain(`<p id="notice" class="notice error" role="alert"`);
      return res.html.replace(`value="${email}"`, 'value="…"');
    };
    const known = await page(admin.email);
    expect(marked(known)).toEqual(["/sign-in password described"]);
    expect(await page(`nobody-${unique("x")}@example.test`)).toBe(known);
  });

  it("names the fields sent empty at sign-in, not as credentials refused, the same for any login", async () => {
    const page = async (email: string, password: string) => {
      const res = await request("/sign-in", { method: "POST", body: form({ email, password }) });
      expect(res.status).toBe(400);
      expect(res.html).toContain(
        '<p id="notice" class="notice error" role="alert" tabindex="-1" autofocus="">',
      );
      expect(res.html).not.toContain("Those credentials were not accepted.");
      return res.html;
    };
    // Sent empty past the browser's own check (a script, a client without `required`).
    const both = await page("", "");
    expect(both).toContain("Type your email and your password.");
    expect(marked(both)).toEqual(["/sign-in email described", "/sign-in password described"]);
    const noLogin = await page("", "typed-but-not-kept");
    expect(noLogin).toContain("Type your email.");
    expect(marked(noLogin)).toEqual(["/sign-in email described"]);
    expect(noLogin).not.toContain("typed-but-not-kept");
    // The login typed stays in its field; the page says nothing of whether it names an account.
    const known = await page(admin.email, "");
    expect(known).toContain("Type your password.");
    expect(marked(known)).toEqual(["/sign-in password described"]);
    expect(drawnValue(known, "email")).toBe(admin.email);
    const nobody = `nobody-${unique("x")}@example.test`;
    const unknown = await page(nobody, "");
    expect(unknown.replace(`value="${nobody}"`, 'value="…"')).toBe(
      known.replace(`value="${admin.email}"`, 'value="…"'),
    );
  });

  it("is the username on a new user whose username is taken", async () => {
    const taken = await makeUser();
    const found = await refused(
      "/users",
      { username: taken.username, user_email: "marked@example.test", user_password: "pw-1234567" },
      "username already taken",
    );
    expect(found).toEqual(["/users username described"]);
  });
});

describe("a refused form's field as the console draws it", () => {
  const refused = refusedForm(
    {
      kind: "error",
      text: "Refused.",
      refused: { form: "f", fields: { amount: "5", places: "12", pw: "typed" }, at: ["amount"] },
    },
    "f",
  );
  const blank = refusedForm(undefined, "f");

  it("writes its name, its attributes in their order, what was kept, then its marks", () => {
    const attributes = { inputmode: "decimal", required: true, autocomplete: "off" } as const;
    expect(String(Field({ label: "Amount", name: "amount", refused, ...attributes }))).toBe(
      '<label><span>Amount</span><input name="amount" inputmode="decimal" required="" autocomplete="off" value="5" aria-invalid="true" aria-describedby="notice"/></label>',
    );
    expect(String(Field({ label: "Amount", name: "amount", refused: blank, ...attributes }))).toBe(
      '<label><span>Amount</span><input name="amount" inputmode="decimal" required="" autocomplete="off"/></label>',
    );
  });

  it("draws a value given where it is written, and what was kept in its place", () => {
    const field = (form: typeof blank) =>
      String(Field({ label: "Places", name: "places", refused: form, value: "2", required: true }));
    expect(field(blank)).toBe(
      '<label><span>Places</span><input name="places" value="2" required=""/></label>',
    );
    expect(field(refused)).toBe(
      '<label><span>Places</span><input name="places" value="12" required=""/></label>',
    );
  });

  it("never draws a password, even one kept", () => {
    expect(String(Field({ label: "Password", name: "pw", refused, type: "password" }))).toBe(
      '<label><span>Password</span><input name="pw" type="password"/></label>',
    );
  });
});

describe("a refused form's words beside its field", () => {
  /** The words drawn right under field `name` (after its label), or undefined when there are none. */
  const under = (html: string, name: string) =>
    html
      .match(
        new RegExp(
          `<(?:input name="${name}"[^>]*|select name="${name}"[^>]*>(?:<option[^>]*>[^<]*</option>)*</select)></label><p class="field-error"[^>]*>([^<]*)</p>`,
        ),
      )?.[1]
      ?.replaceAll("&#39;", "'");

  it("says under a key's name why it was refused, the other fields kept", async () => {
    const page = await sent("/api-keys", {
      name: "ops\u202egnp.exe",
      scope: "read",
      username: admin.username,
    });
    expect(under(page.html, "name")).toBe(
      "Name must not hold control, bidirectional or invisible characters",
    );
    expect(under(page.html, "scope")).toBeUndefined();
    expect(drawnValue(page.html, "username")).toBe(admin.username);
  });

  it("says under a webhook's description why it was refused", async () => {
    const page = await sent("/webhooks", {
      url: "http://127.0.0.1:9/hook",
      events: "transaction.created",
      description: "pay\u200bments",
    });
    expect(under(page.html, "description")).toBe(
      "Description must not hold control, bidirectional or invisible characters",
    );
    expect(under(page.html, "events")).toBeUndefined();
  });

  it("says under each of a new user's fields its own words", async () => {
    const page = await sent("/users", {
      username: "a b",
      user_email: "not-an-email",
      user_password: "123",
    });
    expect(under(page.html, "username")).toBe(
      "Username must not contain space; Username must be atleast 4 chars",
    );
    expect(under(page.html, "user_email")).toBe("Invalid Email");
    expect(under(page.html, "user_password")).toBe(
      "Please enter at least 6 characters for the Password",
    );
  });

  it("says under a transfer's recipient that no such user exists", async () => {
    const user = await makeUser();
    const wallet = await makeWallet(admin);
    const page = await sent(`/users/${user.id}/transfer`, {
      wallet_id: wallet,
      amount: "1",
      to_user_id: "999999999",
      request_id: unique("r"),
    });
    expect(under(page.html, "to_user_id")).toBe("No user 999999999.");
    expect(under(page.html, "amount")).toBeUndefined();
  });

  // The API's words name its fields (`to_user_id requires an integer`); beside a field, the console
  // names each by the form's label, as the operator reads it. The API's answers keep their words
  // (test/refusal-texts.test.ts).
  it("names a money form's fields by their labels, and the page's user as this user", async () => {
    const user = await makeUser();
    const wallet = await makeWallet(admin);
    const typed = { amount: "x", to_user_id: "bob", wallet_id: "nope", request_id: unique("r") };
    const page = await sent(`/users/${user.id}/transfer`, typed);
    expect(under(page.html, "wallet_id")).toBe("Wallet not found");
    expect(under(page.html, "amount")).toBe("Amount requires a valid amount");
    expect(under(page.html, "to_user_id")).toBe("To user requires an integer");
    const self = await sent(`/users/${user.id}/transfer`, {
      wallet_id: wallet,
      amount: "1.001",
      to_user_id: String(user.id),
      note: "x".repeat(1001),
      request_id: unique("r"),
    });
    expect(under(self.html, "to_user_id")).toBe("To user must differ from this user");
    expect(under(self.html, "amount")).toBe(
      `Amount has more decimal places than wallet ${wallet} allows (2)`,
    );
    expect(under(self.html, "note")).toBe("Note must be at most 1000 characters");
    const zero = await sent(`/users/${user.id}/credit`, {
      ...typed,
      wallet_id: wallet,
      amount: "0",
    });
    expect(under(zero.html, "amount")).toBe("Amount must be greater than zero");
  });

  it("names a new wallet's, key's and webhook's fields by their labels, before any comma or parenthesis", async () => {
    const wallet = await sent("/wallets", {
      wallet_id: "A B",
      wallet_name: "x".repeat(101),
      wallet_symbol: "\u202e",
      wallet_symbol_position: "up",
      wallet_decimal: "12",
    });
    expect(under(wallet.html, "wallet_id")).toBe(
      "Wallet id must start with a letter and hold at most 32 of a-z, 0-9 and _",
    );
    expect(under(wallet.html, "wallet_name")).toBe("Name must be at most 100 characters");
    expect(under(wallet.html, "wallet_symbol")).toBe(
      "Symbol must not hold control, bidirectional or invisible characters",
    );
    expect(under(wallet.html, "wallet_symbol_position")).toBe(
      "Symbol position must be left or right",
    );
    expect(under(wallet.html, "wallet_decimal")).toBe("Decimals must be an integer from 0 to 8");
    const key = await sent("/api-keys", { name: "k", scope: "root" });
    expect(under(key.html, "scope")).toBe("Scope must be read, write or read-write");
    const hook = await sent("/webhooks", { url: "http://127.0.0.1:9/hook", events: "nope" });
    expect(under(hook.html, "events")).toMatch(/^Events must name event types among /);
    const plain = await sent("/webhooks", { url: "http://x.example/hook", events: "user.created" });
    expect(under(plain.html, "url")).toBe("URL must start with https://");
  });

  it("names only a field's first mention in each of the words by its label", () => {
    const labels = { amount: "Amount", to: "To" };
    expect(inLabels("amount has more decimal places than wallet amount allows (2)", labels)).toBe(
      "Amount has more decimal places than wallet amount allows (2)",
    );
    expect(inLabels("amount requires a valid amount; to cannot be zero", labels)).toBe(
      "Amount requires a valid amount; To cannot be zero",
    );
    // A name inside another (`to_user_id` holds `to`, `user_id` no word of its own) is no mention.
    expect(inLabels("to_user_id is too large", { to: "To", user_id: "User" })).toBe(
      "to_user_id is too large",
    );
  });
});

// What a console field takes, or why it comes back empty, said under it and describing it: an
// amount's form on the money forms and a capture's (a thousands separator is refused in the API's
// words, which do not say so), and a refused webhook's URL, drawn again empty on purpose.

/** The element `id` of `html`'s text, or undefined when there is none. */
const textOf = (html: string, id: string) =>
  html.match(new RegExp(`<p class="hint" id="${id}">([^<]*)</p>`))?.[1];

/** What describes field `name` of the form posting to `action` (its path under the console). */
function describedBy(html: string, action: string, name: string) {
  const start = html.indexOf(`action="/wallet-admin${action}"`);
  const body = html.slice(start, html.indexOf("</form>", start));
  return body.match(new RegExp(`<input name="${name}"[^>]*?aria-describedby="([^"]*)"`))?.[1];
}

const AMOUNT_HINT = "In digits and a dot, no commas: 1000.50";

describe("an amount's field", () => {
  let user: TestUser;
  let wallet: string;
  let holdId: number;

  beforeAll(async () => {
    user = await makeUser();
    wallet = await makeWallet(admin);
    await credit(admin, { user_id: user.id, wallet_id: wallet, amount: "100" });
    const res = await call("POST", "/holds", {
      auth: admin.bearer,
      body: { user_id: user.id, wallet_id: wallet, amount: "40", request_id: unique("h") },
    });
    expect(res.status, res.text).toBe(200);
    holdId = res.body.data.hold_id;
  });

  it("says under each money form's Amount that it takes digits and a dot, no commas, and is described by it", async () => {
    const page = await request(`/users/${user.id}`, { cookie });
    for (const action of ["credit", "debit", "transfer"]) {
      const id = `${action}-amount-hint`;
      expect(describedBy(page.html, `/users/${user.id}/${action}`, "amount"), action).toBe(id);
      expect(textOf(page.html, id), action).toBe(AMOUNT_HINT);
    }
    // A capture's field, in a table's row, is described by the words under the table.
    expect(describedBy(page.html, `/users/${user.id}/holds/${holdId}/capture`, "amount")).toBe(
      "capture-hint",
    );
    expect(textOf(page.html, "capture-hint")).toBe(
      "Capture takes the amount typed beside it, all of the hold if none; in digits and a dot, no commas: 1000.50",
    );
  });

  it("still says so under `1,000` refused, in the API's words, beside the notice that describes it", async () => {
    const page = await sent(`/users/${user.id}/credit`, {
      wallet_id: wallet,
      amount: "1,000",
      request_id: unique("r"),
    });
    expect(page.html).toContain("Credit refused. invalid input: amount requires a valid amount");
    const at = `/users/${user.id}/credit`;
    expect(page.html).toContain(
      'name="amount" inputmode="decimal" required="" autocomplete="off" value="1,000" aria-invalid="true"',
    );
    expect(describedBy(page.html, at, "amount")).toBe("notice credit-amount-hint");
    expect(textOf(page.html, "credit-amount-hint")).toBe(AMOUNT_HINT);
    // The API's answer is its own: the console's hint changes none of it.
    const api = await call("POST", "/credits", {
      auth: admin.bearer,
      body: { user_id: user.id, wallet_id: wallet, amount: "1,000", request_id: unique("r") },
    });
    expect(api.status).toBe(400);
    expect(api.body.error).toEqual({ amount: "amount requires a valid amount" });
    // A capture's refused likewise: described by the notice and the words under the table.
    const capture = `/users/${user.id}/holds/${holdId}/capture`;
    const refused = await sent(capture, { amount: "1,000" });
    expect(refused.html).toContain("Capture refused.");
    expect(describedBy(refused.html, capture, "amount")).toBe("notice capture-hint");
  });

  it("is drawn with its hint after its label and any words of its refusal", () => {
    const refused = refusedForm(
      {
        kind: "error",
        text: "Refused.",
        refused: { form: "f", fields: { amount: "1,000" }, at: ["amount"], why: { amount: "no" } },
      },
      "f",
    );
    const hint = { id: "f-hint", text: "In digits" };
    expect(String(Field({ label: "Amount", name: "amount", refused, hint, required: true }))).toBe(
      '<label><span>Amount</span><input name="amount" required="" value="1,000" aria-invalid="true" aria-describedby="notice f-hint"/></label><p class="field-error" aria-hidden="true">no</p><p class="hint" id="f-hint">In digits</p>',
    );
    const blank = refusedForm(undefined, "f");
    expect(String(Field({ label: "Amount", name: "amount", refused: blank, hint }))).toBe(
      '<label><span>Amount</span><input name="amount" aria-describedby="f-hint"/></label><p class="hint" id="f-hint">In digits</p>',
    );
  });
});

describe("a refused webhook's URL", () => {
  const NOT_KEPT =
    "Type the URL again: a refused form comes back without it, as its path or query may hold the receiver&#39;s secret.";

  it("says under the field, drawn again empty, that it was not kept and why", async () => {
    // Its own secret: the list above the form shows other tests' webhooks.
    const secret = unique("hush");
    for (const [url, events] of [
      [`https://hooks.example.com/services/T0/B0/XXXX?token=${secret}`, "no.such.event"],
      ["ftp://hooks.example.com/x", "transaction.created"],
    ]) {
      const page = await sent("/webhooks", { url: url!, events: events! });
      expect(page.html, url).toContain("New webhook refused.");
      expect(page.html, url).not.toContain(secret);
      expect(page.html, url).toMatch(
        /<input name="url" type="url" required="" autocomplete="off"[^>]*aria-describedby="(notice )?url-not-kept"\/>/,
      );
      expect(textOf(page.html, "url-not-kept"), url).toBe(NOT_KEPT);
    }
  });

  it("says nothing of it on the form not sent, nor under another refusal of the page", async () => {
    const page = await request("/webhooks", { cookie });
    expect(page.html).toContain('<input name="url" type="url" required="" autocomplete="off"/>');
    expect(page.html).not.toContain("url-not-kept");
    const other = await sent("/webhooks/999999999/test", {});
    expect(other.html).toContain("Test refused.");
    expect(other.html).toContain('<input name="url" type="url" required="" autocomplete="off"/>');
    expect(other.html).not.toContain("url-not-kept");
  });
});
