// What a console field takes, or why it comes back empty, said under it and describing it: an
// amount's form on the money forms and a capture's (a thousands separator is refused in the API's
// words, which do not say so), and a refused webhook's URL, drawn again empty on purpose.
import { beforeAll, describe, expect, it } from "vitest";
import { Field, refusedForm } from "../src/console/views";
import { consoleOf, hidden } from "./console-helpers";
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
