// The console's required fields: each field the service refuses empty has `required` (the browser
// says so before sending, and console.css draws a mark after the field's name from it, for the eye
// only: test/browser/accessibility.test.ts), explained once at the top of its form; no other field
// has either. The server still refuses an empty value: a form is sent by other means than a
// browser, as these tests send it.
import { beforeAll, describe, expect, it } from "vitest";
import { consoleOf, form, hidden, noticeLeft } from "./console-helpers";
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

const { request, signIn } = consoleOf(testApp());

let admin: TestUser;
let user: TestUser;
let cookie: string;

beforeAll(async () => {
  admin = await makeAdmin();
  user = await makeUser();
  const wallet = await makeWallet(admin);
  await credit(admin, { user_id: user.id, wallet_id: wallet, amount: "10" });
  const hold = await call("POST", "/holds", {
    auth: admin.bearer,
    body: { user_id: user.id, wallet_id: wallet, amount: "1", request_id: unique("h") },
  });
  expect(hold.status, hold.text).toBe(200);
  cookie = await signIn(admin);
});

/** The words that say what a required field's mark means. */
const NOTE = /<p class="required-note" aria-hidden="true">[\s\S]*?<\/p>/g;

/**
 * Each form of `html` (by its action, the console's prefix left out, and `(get)` for a search) with
 * its fields (but hidden ones), each as `name` or, required, `name*`; and what is wrong with their
 * marks: a field whose name is not the span right before it, after which console.css draws the
 * mark of a required field, and a form whose note is missing, extra, or there for no field.
 */
function forms(html: string) {
  const found: Record<string, string[]> = {};
  const wrong: string[] = [];
  for (const f of html.split("<form").slice(1)) {
    const body = f.slice(0, f.indexOf("</form>"));
    const action =
      (body.match(/action="\/wallet-admin([^"#]*)/)?.[1] ?? "?").replace(/\/\d+/g, "/N") +
      (/^[^>]*method="get"/.test(body) ? " (get)" : "");
    const labels = [...body.matchAll(/<label>([\s\S]*?)<\/label>/g)].map(([, label]) => label!);
    const fields = [...body.matchAll(/<(?:input|select)\b[^>]*>/g)].flatMap(([control]) => {
      if (/type="hidden"/.test(control)) return [];
      const name = control.match(/name="([^"]*)"/)?.[1] ?? "?";
      const required = /\srequired=""/.test(control);
      const named = labels.some((l) => /^<span>[^<]+<\/span>$/.test(l.split(control)[0]!));
      if (!named && !/aria-label="/.test(control)) wrong.push(`${action} ${name}: no span`);
      return [required ? `${name}*` : name];
    });
    const notes = body.match(NOTE)?.length ?? 0;
    if (notes !== (fields.some((f) => f.endsWith("*")) ? 1 : 0))
      wrong.push(`${action}: ${notes} notes`);
    found[action] = [...(found[action] ?? []), ...fields];
  }
  return { found, wrong };
}

describe("the console's required fields", () => {
  it("are marked where the service refuses them empty, explained once a form, and only there", async () => {
    const txn = (
      await call("GET", `/transactions?user_id=${user.id}&security_code=1`, {
        auth: admin.bearer,
      })
    ).body.data[0].ID as number;
    const pages = {
      "/sign-in": (await request("/sign-in")).html,
      ...Object.fromEntries(
        await Promise.all(
          ["/users", "/wallets", "/api-keys", "/webhooks", `/users/${user.id}`].map(
            async (path) => [path, (await request(path, { cookie })).html] as const,
          ),
        ),
      ),
      reversal: (await request(`/users/${user.id}/reverse/${txn}`, { cookie })).html,
    };
    const all: Record<string, string[]> = {};
    const wrong: string[] = [];
    for (const html of Object.values(pages)) {
      const read = forms(html);
      // Forms of buttons alone (sign out, void, a webhook's test) have no field to mark.
      for (const [action, fields] of Object.entries(read.found))
        if (fields.length > 0) all[action] = fields;
      wrong.push(...read.wrong);
    }
    expect(wrong).toEqual([]);
    // The fields each form's verb refuses empty (the scope a key needs, the days a statement
    // covers, the decimals the console sends as typed), and the optional ones (a note, a key's
    // username, a capture's amount, a symbol's position).
    expect(all).toEqual({
      "/sign-in": ["email*", "password*"],
      "/users": ["username*", "user_email*", "user_password*"],
      "/wallets": [
        "wallet_id*",
        "wallet_name*",
        "wallet_symbol*",
        "wallet_symbol_position",
        "wallet_decimal*",
      ],
      "/api-keys": ["name*", "scope*", "username"],
      "/webhooks": ["url*", "events*", "description"],
      "/users/N/holds/N/capture": ["amount"],
      "/users/N/credit": ["wallet_id*", "amount*", "note"],
      "/users/N/debit": ["wallet_id*", "amount*", "note"],
      "/users/N/transfer": ["wallet_id*", "amount*", "to_user_id*", "note"],
      "/users (get)": ["q"],
      "/users/N (get)": ["wallet", "from*", "to*"],
      "/users/N/reverse/N": ["note"],
    });
  });

  it("are still refused empty by the server, which no browser's check stands in for", async () => {
    const csrf = hidden((await request("/api-keys", { cookie })).html, "_csrf");
    for (const [path, fields, words] of [
      ["/api-keys", { name: "", scope: "read" }, "New API key refused. invalid input: name:"],
      ["/api-keys", { name: "k", scope: "" }, "scope must be read, write or read-write"],
      [
        "/wallets",
        { wallet_id: "emptied", wallet_name: "E", wallet_symbol: "E", wallet_decimal: "" },
        "wallet_decimal must be an integer from 0 to 8",
      ],
      [
        `/users/${user.id}/credit`,
        { wallet_id: "", amount: "1", request_id: unique("r") },
        "Credit refused. invalid input: wallet_id: Field Cannot be empty",
      ],
    ] as const) {
      const res = await request(path, {
        method: "POST",
        cookie,
        body: form({ _csrf: csrf, ...fields }),
      });
      expect(res.status, path).toBe(303);
      expect(noticeLeft(res), path).toContain(words);
    }
    const signIn = await request("/sign-in", {
      method: "POST",
      body: form({ email: "", password: "" }),
    });
    expect(signIn.status).toBe(400);
    expect(signIn.html).toContain("Type your email and your password.");
  });
});
