// Query and form names as PHP registers them (php_register_variable_ex), which is how WordPress
// reads them: leading spaces dropped, and a space or `.` in the name before its first `[` an `_`.
// Read as written, `wallet.id=usd` named no parameter: a filter dropped, a list answered unfiltered,
// and `user.id` after `user_id` not the last user_id a WordPress site credits.
import { describe, expect, it } from "vitest";
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
