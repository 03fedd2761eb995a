// Query and form names as PHP registers them (php_register_variable_ex), which is how WordPress
// reads them: leading spaces dropped, and a space or `.` in the name before its first `[` an `_`.
// Read as written, `wallet.id=usd` named no parameter: a filter dropped, a list answered unfiltered,
// and `user.id` after `user_id` not the last user_id a WordPress site credits.
import { describe, expect, it } from "vitest";
import { phpVars } from "../src/http/php-vars";
import { balanceOf, call, credit, makeAccount, makeUser, makeWallet, unique } from "./helpers";

const FORM = { "Content-Type": "application/x-www-form-urlencoded" };

describe("names as PHP registers them", () => {
  it("filters by wallet.id as by wallet_id, never answering unfiltered", async () => {
    const { admin, user, wallet } = await makeAccount();
    const other = await makeWallet(admin);
    for (const w of [wallet, other]) {
      await credit(admin, { user_id: user.id, wallet_id: w, amount: 5 });
      const held = await call("POST", "/holds", {
        auth: admin.bearer,
        body: { user_id: user.id, wallet_id: w, amount: 1, request_id: unique("h") },
      });
      expect(held.status, held.text).toBe(200);
    }
    for (const name of [
      "wallet.id",
      "wallet id",
      " wallet_id",
      "wallet%2Eid",
      "wallet+id",
      "wallet_id%00x", // PHP's names are C text: a NUL ends one
    ]) {
      const res = await call("GET", `/holds?user_id=${user.id}&${name}=${other}`, {
        auth: admin.bearer,
      });
      expect(res.status, `${name}: ${res.text}`).toBe(200);
      expect(
        res.body.data.map((h: { wallet_id: string }) => h.wallet_id),
        name,
      ).toEqual([other]);
    }
  });

  it("reads a form's user.id after user_id as the last user_id, as WordPress credits it", async () => {
    const { admin, user, wallet } = await makeAccount();
    const second = await makeUser();
    const res = await call("POST", "/credits", {
      auth: admin.bearer,
      headers: FORM,
      body: `user_id=${user.id}&wallet_id=${wallet}&amount=2&request_id=${unique("n")}&user.id=${second.id}`,
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.user_id).toBe(second.id);
    expect(await balanceOf(admin, user.id, wallet)).toBe(0);
    expect(await balanceOf(admin, second.id, wallet)).toBe(2);
  });

  it("refuses a subscriber's user.id naming another user as its user_id (403)", async () => {
    const { user } = await makeAccount();
    const other = await makeUser();
    const res = await call("GET", `/holds?user.id=${other.id}`, {
      auth: `Bearer ${user.token}`,
    });
    expect(res.status, res.text).toBe(403);
  });

  it("reads a first [ that no ] closes as an _, and a multipart name the same way", async () => {
    const { admin, user, wallet } = await makeAccount();
    const multipart = new FormData();
    for (const [name, value] of [
      ["user.id", String(user.id)],
      ["wallet.id", wallet],
      ["amount", "3"],
      ["request.id", unique("mp")],
    ] as const)
      multipart.append(name, value);
    const res = await call("POST", "/credits", { auth: admin.bearer, body: multipart });
    expect(res.status, res.text).toBe(200);
    const bracket = await call("POST", "/credits", {
      auth: admin.bearer,
      headers: FORM,
      body: `user_id=0&wallet_id=${wallet}&amount=4&request_id=${unique("b")}&user[id=${user.id}`,
    });
    // `user[id` is `user_id`, the last one here.
    expect(bracket.status, bracket.text).toBe(200);
    expect(await balanceOf(admin, user.id, wallet)).toBe(7);
  });
});

describe("a query or form as PHP registers its pairs, in order", () => {
  const read = (query: string) =>
    phpVars(
      query.split("&").map((pair) => pair.split("=") as [string, string]),
      "query",
    );

  it.each<[string, Record<string, unknown>]>([
    // The last pair of a parameter wins, whatever its shape.
    ["user_id=2&user_id[]=3", { user_id: ["3"] }],
    ["user_id[]=3&user_id=2", { user_id: "2" }],
    ["a[x]=1&a=2&a[y]=3", { a: { y: "3" } }],
    // `[]` appends at the next integer key; an explicit one moves it on.
    ["a[]=1&a[]=2", { a: ["1", "2"] }],
    ["a[5]=1&a[]=2&a[x]=3&a[]=4", { a: { 5: "1", 6: "2", x: "3", 7: "4" } }],
    ["a[0][]=1&a[0][]=2&a[]=3", { a: [["1", "2"], "3"] }],
    // One white-space character after a `[` is skipped: `[ ]` appends too; `[ x]` keeps it.
    [
      "a[ ]=1&a[\t]=2&a[\n]=3&a[  ]=4&a[ x]=5",
      { a: { 0: "1", 1: "2", 2: "3", "  ": "4", " x": "5" } },
    ],
    // Text inside an array is replaced by an array, and an array by text.
    ["a[b]=1&a[b][c]=2", { a: { b: { c: "2" } } }],
    ["a[b][c]=2&a[b]=1", { a: { b: "1" } }],
    // Each `[]` of a name is a new element: two pairs, two operations.
    ["o[][type]=credit&o[][user_id]=2", { o: [{ type: "credit" }, { user_id: "2" }] }],
    // Keys PHP keeps apart from integers stay text: `00` and `0` are two keys.
    ["a[0]=1&a[00]=2", { a: { 0: "1", "00": "2" } }],
    // Names as PHP registers them: no name before the `[` sets nothing; text after the last `]`
    // is ignored; a first `[` left open is an `_`, and so are `.` and a space before it.
    [
      "[a]=1&=2&a[b]c[d]=3&x[y=4&p.q r=5&m[n.o]=6",
      { a: { b: "3" }, x_y: "4", p_q_r: "5", m: { "n.o": "6" } },
    ],
  ])("%s", (query, expected) => {
    expect(read(query)).toStrictEqual(expected);
  });
});
