// PHP's list syntax in the Rimplenet dialect: WordPress reads `user_id[]=2` (or `user_id[0]=2`) in
// a form body or a query string as `user_id` holding a list, and the plugin's sanitize_text_field
// made that list "" (the real plugin, 1.1.31). Dropped, such a name would be a missing field: a
// credit's `user_id[]=2` "cannot be zero" where the plugin says "Field Cannot be empty", and a
// transfer's `request_id[]=…` no key at all, so a retry would move the money again, where
// docs/compat.md promises a list is refused.
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { compatCall, GUARDED } from "./compat-helpers";
import {
  call,
  credit,
  makeAdmin,
  makeUser,
  makeWallet,
  type TestUser,
  tableCounts,
} from "./helpers";

const NS = "/wp-json/rimplenet/v1";
let admin: TestUser;
let alice: TestUser;
let bob: TestUser;
let wallet: string;

const form = (path: string, body: string, auth: string) =>
  compatCall("POST", `${NS}${path}`, {
    vars: GUARDED,
    headers: { "Content-Type": "application/x-www-form-urlencoded", Authorization: auth },
    body,
  });

/** The meta_data an entry stored, parsed. */
async function storedMeta(id: number) {
  const row = await env.DB.prepare("SELECT meta_data FROM transactions WHERE id = ?")
    .bind(id)
    .first<{ meta_data: string }>();
  return JSON.parse(row!.meta_data);
}

beforeAll(async () => {
  admin = await makeAdmin();
  [alice, bob] = [await makeUser(), await makeUser()];
  wallet = await makeWallet(admin);
  await credit(admin, { user_id: alice.id, wallet_id: wallet, amount: "100.00" });
});

describe("PHP list syntax in a form or query", () => {
  it("reads a credit's user_id[] as the plugin did: an empty field, never a missing one", async () => {
    const before = await tableCounts();
    for (const [path, body] of [
      ["/credits", `user_id[]=${alice.id}&wallet_id=${wallet}&request_id=l1&amount=1`],
      ["/credits", `user_id[0]=${alice.id}&wallet_id=${wallet}&request_id=l2&amount=1`],
      [`/credits?user_id[]=${alice.id}`, `wallet_id=${wallet}&request_id=l3&amount=1`],
    ] as const) {
      const res = await form(path, body, admin.bearer);
      expect(res.status, `${path} ${body}: ${res.text}`).toBe(400);
      expect(res.body).toEqual({
        status_code: 400,
        status: false,
        message: "invalid input",
        error: { user_id: "Field Cannot be empty" },
      });
    }
    expect(await tableCounts()).toEqual(before);
  });

  it("refuses a transfer's request_id[] as it refuses a JSON list, and moves nothing", async () => {
    const before = await tableCounts();
    const body = `transfer_from_user=${alice.id}&transfer_to_user=${bob.id}&wallet_id=${wallet}&amount_to_transfer=1&request_id[]=retry_1`;
    for (let attempt = 0; attempt < 2; attempt++) {
      const res = await form("/transfers", body, admin.bearer);
      expect(res.status, res.text).toBe(400);
      expect(res.body.message).toBe("invalid input");
      expect(Object.keys(res.body.error)).toEqual(["request_id"]);
    }
    expect(await tableCounts()).toEqual(before);
  });

  it("keeps meta_data[key]=value as the object PHP made of it, searchable by its key", async () => {
    const channel = `c${Date.now()}`;
    const res = await form(
      "/credits",
      `user_id=${alice.id}&wallet_id=${wallet}&request_id=l5&amount=1&meta_data[channel]=${channel}`,
      admin.bearer,
    );
    expect(res.status, res.text).toBe(200);
    const found = await compatCall(
      "GET",
      `${NS}/transactions?meta_key=channel&meta_value=${channel}`,
      { vars: GUARDED, headers: { Authorization: admin.bearer } },
    );
    expect(found.status, found.text).toBe(200);
    expect(found.body.data.map((t: { ID: number }) => t.ID)).toEqual([
      res.body.data.transaction_id,
    ]);
  });

  it("keeps every meta_data key PHP keeps: [] after an index, and a nested name's keys", async () => {
    const names = [
      "meta_data[5]=a",
      "meta_data[]=b",
      "meta_data[order][id]=17",
      "meta_data[order][tags][]=x",
    ];
    const res = await form(
      "/credits",
      `user_id=${alice.id}&wallet_id=${wallet}&request_id=l6&amount=1&${names.join("&")}`,
      admin.bearer,
    );
    expect(res.status, res.text).toBe(200);
    // PHP: [5 => "a", 6 => "b", "order" => ["id" => "17", "tags" => ["x"]]].
    expect(await storedMeta(res.body.data.transaction_id)).toStrictEqual({
      5: "a",
      6: "b",
      order: { id: "17", tags: ["x"] },
    });
  });

  it("lets a form's user_id[0] hide the query's user_id, as $_POST hides $_GET", async () => {
    // WordPress reads the body's array (refused), never the query's user: a credit to alice here
    // moved money WordPress would not have.
    const before = await tableCounts();
    const wallet1 = await call("POST", `/credits?user_id=${alice.id}`, {
      auth: admin.bearer,
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: `user_id[0]=${bob.id}&wallet_id=${wallet}&request_id=q1&amount=1`,
    });
    expect(wallet1.status, wallet1.text).toBe(400);
    expect(wallet1.body.error).toEqual({ user_id: "user_id requires an integer" });
    const plugin = await form(
      `/credits?user_id=${alice.id}`,
      `user_id[0]=${bob.id}&wallet_id=${wallet}&request_id=q2&amount=1`,
      admin.bearer,
    );
    expect(plugin.status, plugin.text).toBe(400);
    expect(plugin.body.error).toEqual({ user_id: "Field Cannot be empty" });
    expect(await tableCounts()).toEqual(before);
  });

  it("takes a PHP array from the body alone when the query names it too", async () => {
    const res = await form(
      "/credits?meta_data[from_query]=1",
      `user_id=${alice.id}&wallet_id=${wallet}&request_id=q3&amount=1&meta_data[channel]=app`,
      admin.bearer,
    );
    expect(res.status, res.text).toBe(200);
    expect(await storedMeta(res.body.data.transaction_id)).toStrictEqual({ channel: "app" });
  });

  it("takes a parameter's last pair in a form or query, whatever its shape, as $_POST and $_GET do", async () => {
    // `user_id=alice&user_id[]=bob`: PHP makes user_id the array ["bob"], which WordPress refuses;
    // read with the plain name winning, alice was credited. Reversed, the plain name is last: alice.
    const before = await tableCounts();
    const last = `user_id=${alice.id}&user_id[]=${bob.id}`;
    const rest = `wallet_id=${wallet}&amount=1`;
    const sent: [query: string, body: string][] = [
      ["", `${last}&${rest}&request_id=p1`],
      [`?${last}`, `${rest}&request_id=p2`],
    ];
    for (const [query, body] of sent) {
      const plugin = await form(`/credits${query}`, body, admin.bearer);
      expect(plugin.status, `${query} ${body}: ${plugin.text}`).toBe(400);
      expect(plugin.body.error).toEqual({ user_id: "Field Cannot be empty" });
      const own = await call("POST", `/credits${query}`, {
        auth: admin.bearer,
        headers: { "Content-Type": "application/x-www-form-urlencoded" },
        body,
      });
      expect(own.status, `${query} ${body}: ${own.text}`).toBe(400);
      expect(own.body.error).toEqual({ user_id: "user_id requires an integer" });
    }
    expect(await tableCounts()).toEqual(before);
    const plain = `user_id[]=${bob.id}&user_id=${alice.id}&${rest}`;
    const plugin = await form("/credits", `${plain}&request_id=p3`, admin.bearer);
    expect(plugin.status, plugin.text).toBe(200);
    expect(plugin.body.data.user_id).toBe(alice.id);
    const own = await call("POST", `/credits?${plain}&request_id=p4`, { auth: admin.bearer });
    expect(own.status, own.text).toBe(200);
    expect(own.body.data.user_id).toBe(alice.id);
  });

  it("appends each repeated name[] to the list, as PHP does", async () => {
    const res = await form(
      "/credits",
      `user_id=${alice.id}&wallet_id=${wallet}&request_id=p5&amount=1&meta_data[]=a&meta_data[]=b`,
      admin.bearer,
    );
    expect(res.status, res.text).toBe(200);
    expect(await storedMeta(res.body.data.transaction_id)).toStrictEqual(["a", "b"]);
  });
});

describe("a query or form past what PHP registers", () => {
  // PHP's registrar skips one white-space character after a `[`: `meta_data[ ]` appends, as
  // `meta_data[]` does. Read as the key " ", the plugin's stored list became {" ": "b"}.
  it("appends each meta_data[ ] as PHP does, white space inside the brackets and all", async () => {
    const res = await form(
      "/credits",
      `user_id=${alice.id}&wallet_id=${wallet}&amount=1&request_id=w1&meta_data[ ]=a&meta_data[%09]=b`,
      admin.bearer,
    );
    expect(res.status, res.text).toBe(200);
    expect(await storedMeta(res.body.data.transaction_id)).toStrictEqual(["a", "b"]);
  });

  // PHP registers the first 1000 pairs of a query (max_input_vars) and 1001 of a form (an empty
  // one between two `&` counted there), and drops the rest: read whole, the user_id after them was
  // credited where WordPress credits the first. Refused instead, whichever user either names.
  it("refuses a credit whose form or query holds more than 1000 pairs, and moves nothing", async () => {
    const before = await tableCounts();
    const credit = (id: string) =>
      `user_id=${alice.id}&wallet_id=${wallet}&amount=1&request_id=${id}`;
    const pads = `${"&".repeat(4)}${Array(996).fill("x=1").join("&")}`;
    const sent: [path: string, body: string, part: string][] = [
      ["/credits", `${credit("m1")}&${pads}&user_id=${bob.id}`, "body"],
      [
        `/credits?user_id=${alice.id}&${Array(999).fill("x=1").join("&")}&user_id=${bob.id}`,
        `wallet_id=${wallet}&amount=1&request_id=m2`,
        "query",
      ],
    ];
    for (const [path, body, part] of sent) {
      const res = await form(path, body, admin.bearer);
      expect(res.status, `${part}: ${res.text}`).toBe(400);
      expect(res.body.error).toEqual({ [part]: `${part} holds more than 1000 parameters` });
      const own = await call("POST", path, {
        auth: admin.bearer,
        headers: { "Content-Type": "application/x-www-form-urlencoded" },
        body: body.replace(/request_id=m/, "request_id=n"),
      });
      expect(own.status, `${part}: ${own.text}`).toBe(400);
      expect(own.body.error).toEqual({ [part]: `${part} holds more than 1000 parameters` });
    }
    expect(await tableCounts()).toEqual(before);
    // 1000 pairs, empty ones included, are read whole.
    const fits = `${credit("m3")}&${Array(995).fill("x=1").join("&")}&user_id=${bob.id}`;
    const res = await form("/credits", fits, admin.bearer);
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.user_id).toBe(bob.id);
  });

  // PHP builds a name's brackets up to 64 deep (and drops the whole parameter past that): read to
  // 31 and the rest ignored, a deeper meta_data was stored cut short. Refused, as a JSON body
  // nested past 32 levels is.
  it("refuses a name with more than 31 pairs of brackets, and moves nothing", async () => {
    const before = await tableCounts();
    const deep = (n: number) => `meta_data${"[a]".repeat(n)}=x`;
    const body = `user_id=${alice.id}&wallet_id=${wallet}&amount=1&request_id=d1&${deep(32)}`;
    const res = await form("/credits", body, admin.bearer);
    expect(res.status, res.text).toBe(400);
    expect(res.body.error).toEqual({
      body: "a body parameter's name has more than 31 pairs of brackets",
    });
    expect(await tableCounts()).toEqual(before);
    const ok = await form("/credits", body.replace(deep(32), deep(31)), admin.bearer);
    expect(ok.status, ok.text).toBe(200);
  });
});
