// The plugin dialect's smaller rules: the order of a guarded balance read's refusals, a subscriber
// asking about nobody, sanitize_text_field's trim, the same-user transfer's field, request_id's
// 191 characters, users' first page and debits' wallet id.
import { describe, expect, it } from "vitest";
import { compatCall, GUARDED } from "./compat-helpers";
import { credit, makeAccount, makeAdmin, makeKey, makeUser, makeWallet, unique } from "./helpers";

const NS = "/wp-json/rimplenet/v1";

describe("balances with COMPAT_PUBLIC_READS off: the order of refusals", () => {
  it("refuses a key without the read scope before the 422 (credentials, scope, then fields)", async () => {
    const admin = await makeAdmin();
    const writeOnly = { Authorization: (await makeKey(admin, "write")).header };
    for (const route of ["user-wallet-balance", "user-wallet-balance/multi"]) {
      const res = await compatCall("GET", `${NS}/${route}?user_id=0&wallet_id=`, {
        vars: GUARDED,
        headers: writeOnly,
      });
      expect(res.status, route).toBe(403);
      expect(res.body.error, route).toStrictEqual({
        permission: "Permission Denied for get_rimplenet_wallets_balance",
        recommendation: "Set allowed actions withing the given permissions list",
      });
    }
  });
});

describe("balances with COMPAT_PUBLIC_READS off: a subscriber asking about nobody", () => {
  it("is refused as about anyone else (403), so the answer tells no username is free", async () => {
    const admin = await makeAdmin();
    const user = await makeUser();
    const other = await makeUser();
    const wallet = await makeWallet(admin);
    const ask = (who: string) =>
      compatCall("GET", `${NS}/user-wallet-balance?user_id=${who}&wallet_id=${wallet}`, {
        vars: GUARDED,
        headers: { Authorization: user.bearer },
      });
    expect((await ask(user.username)).status).toBe(200);
    expect((await ask(other.username)).status).toBe(403);
    expect((await ask(unique("nobody"))).status).toBe(403);
    expect((await ask("999999999")).status).toBe(403);
  });
});

const post = (admin: { bearer: string }, path: string, body: Record<string, unknown>) =>
  compatCall("POST", `${NS}${path}`, {
    vars: GUARDED,
    headers: { Authorization: admin.bearer, "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });

describe("sanitize_text_field's last step", () => {
  it("trims what removing %hh octets leaves, so the wallet is read with its balance", async () => {
    const { admin, user, wallet } = await makeAccount();
    await credit(admin, { user_id: user.id, wallet_id: wallet, amount: "12.50" });
    // The query's text, once decoded: `<wallet> %41`.
    const res = await compatCall(
      "GET",
      `${NS}/user-wallet-balance?user_id=${user.id}&wallet_id=${wallet}%20%2541`,
      { vars: GUARDED, headers: { Authorization: admin.bearer } },
    );
    expect(res.body.submitted.wallet_id).toBe(wallet);
    expect(res.body.data.wallet_id).toBe(wallet);
    expect(res.body.data.wallet_balance_raw).toBe(12.5);
  });
});

describe("POST transfers from a user to the same user", () => {
  it("is refused under transfer_to_user's name, as docs/compat.md words it", async () => {
    const { admin, user, wallet } = await makeAccount();
    await credit(admin, { user_id: user.id, wallet_id: wallet, amount: "10.00" });
    const res = await post(admin, "/transfers", {
      transfer_from_user: user.id,
      transfer_to_user: user.id,
      amount_to_transfer: "1.00",
      wallet_id: wallet,
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toStrictEqual({
      transfer_to_user: "transfer_to_user must differ from transfer_from_user",
    });
  });
});

describe("POST credits: request_id's length", () => {
  it("takes 191 characters and refuses 192 with the dialect's text", async () => {
    const { admin, user, wallet } = await makeAccount();
    const keyed = (first: string, length: number) =>
      post(admin, "/credits", {
        user_id: user.id,
        wallet_id: wallet,
        amount: "1",
        request_id: `${first}${unique("r").replace(/[^A-Za-z0-9_]/g, "_")}`.padEnd(length, "x"),
      });
    const credit191 = await keyed("a", 191);
    expect(credit191.status, credit191.text).toBe(200);
    const credit192 = await keyed("b", 192);
    expect(credit192.status).toBe(400);
    expect(credit192.body.error).toStrictEqual({
      request_id: "request_id must be at most 191 characters",
    });
    // A key the plugin's alnum check refuses is refused in its words, however long.
    const dashed = await keyed("c-", 192);
    expect(dashed.body.error).toStrictEqual({
      request_id: "request_id can contain aplhpabets, numbers and underscore",
    });
  });
});

describe("POST credits, debits and transfers: a note's length", () => {
  it("takes 1,000 characters (an emoji is one) and refuses 1,001 in wallet/v1's words", async () => {
    const { admin, user, wallet } = await makeAccount();
    const other = await makeUser();
    await credit(admin, { user_id: user.id, wallet_id: wallet, amount: "10" });
    const key = () => unique("n").replace(/[^A-Za-z0-9_]/g, "_");
    const sends = (note: string) => [
      post(admin, "/credits", {
        user_id: user.id,
        wallet_id: wallet,
        amount: "1",
        request_id: key(),
        note,
      }),
      post(admin, "/debits", {
        user_id: user.id,
        wallet_id: wallet,
        amount: "1",
        request_id: key(),
        note,
      }),
      post(admin, "/transfers", {
        transfer_from_user: user.id,
        transfer_to_user: other.id,
        amount_to_transfer: "1",
        wallet_id: wallet,
        note,
      }),
    ];
    for (const res of await Promise.all(sends("\u{1F4B8}".repeat(1000))))
      expect(res.status, res.text).toBe(200);
    for (const res of await Promise.all(sends("\u{1F4B8}".repeat(1001)))) {
      expect(res.status).toBe(400);
      expect(res.body.error).toStrictEqual({ note: "note must be at most 1000 characters" });
    }
  });
});

describe("GET users: pages count from 1", () => {
  it("reads page=0 as the first page", async () => {
    const admin = await makeAdmin();
    const res = await compatCall("GET", `${NS}/users?page=0`, {
      vars: GUARDED,
      headers: { Authorization: admin.bearer },
    });
    expect(res.status).toBe(200);
    expect(res.body.data.others.currentPage).toBe(1);
  });

  // The plugin's `$page ? $page : 1` then `10 * ($page - 1)`: PHP 8's arithmetic reads the number a
  // text starts with (`2abc` is 2, with a warning); `abc` threw a TypeError there (a 500).
  it("reads page as PHP's arithmetic did: the number the text starts with", async () => {
    const admin = await makeAdmin();
    for (const [page, current] of [
      ["2abc", 2],
      [" 3", 3],
      ["2.9", 2],
      ["abc", 1],
      ["-3", 1],
    ] as const) {
      const res = await compatCall("GET", `${NS}/users?page=${encodeURIComponent(page)}`, {
        vars: GUARDED,
        headers: { Authorization: admin.bearer },
      });
      expect(res.status, page).toBe(200);
      expect(res.body.data.others.currentPage, page).toBe(current);
    }
  });

  it("reads a page past the end as past it, however large its number", async () => {
    const admin = await makeAdmin();
    for (const page of ["1000001", "9007199254740993", `1${"0".repeat(30)}`, "1e308"]) {
      const res = await compatCall("GET", `${NS}/users?page=${page}`, {
        vars: GUARDED,
        headers: { Authorization: admin.bearer },
      });
      expect(res.status, page).toBe(200);
      expect(res.body.data.users, page).toEqual([]);
    }
  });
});

describe("POST debits: the wallet id checked as credits check it", () => {
  it("debits a wallet whose id holds a digit (the plugin's debits refused it) and refuses one without a word character as credits do", async () => {
    const admin = await makeAdmin();
    const user = await makeUser();
    const wallet = await makeWallet(admin, { id: `usdt2${unique("w").slice(-8)}`.toLowerCase() });
    await credit(admin, { user_id: user.id, wallet_id: wallet, amount: "5" });
    const debited = await post(admin, "/debits", {
      user_id: user.id,
      wallet_id: wallet,
      request_id: unique("d"),
      amount: "2",
    });
    expect(debited.status, debited.text).toBe(200);
    const balance = await compatCall(
      "GET",
      `${NS}/user-wallet-balance?user_id=${user.id}&wallet_id=${wallet}`,
      { vars: GUARDED, headers: { Authorization: admin.bearer } },
    );
    expect(balance.body.data.wallet_balance_raw).toBe(3);
    for (const path of ["/credits", "/debits"]) {
      const res = await post(admin, path, {
        user_id: user.id,
        wallet_id: "-",
        request_id: unique("d"),
        amount: "1",
      });
      expect([res.status, res.body.error], path).toEqual([
        400,
        { wallet_id: "wallet_id Invalid Chars" },
      ]);
      // The plugin's `/\w+/` asks for one word character anywhere: `us-d` passes it, and names
      // no wallet (the plugin's empty 400).
      const spelled = await post(admin, path, {
        user_id: user.id,
        wallet_id: "us-d",
        request_id: unique("d"),
        amount: "1",
      });
      expect([spelled.status, spelled.body], path).toEqual([
        400,
        { status_code: 400, status: false, message: "" },
      ]);
    }
  });
});
