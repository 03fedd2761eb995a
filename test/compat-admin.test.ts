// The plugin's remaining admin routes: POST wallets, DELETE wallets/{wallet} and
// DELETE users/{user_id}, against the answers of the plugin's source (api/core/wallets/*,
// includes/wallets/*, api/core/users/delete-users.php, includes/users/delete-users.php): its field
// names, checks, statuses, texts and envelopes. No capture of these routes exists, so the expected
// bodies are written from that source here, key order included.
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { accountKey, addressKey, keyName, loginKey, objectFor } from "../src/throttle/sign-in";
import { compatCall, GUARDED } from "./compat-helpers";
import {
  CLEAN,
  call,
  credit,
  type Json,
  ledgerViolations,
  makeAdmin,
  makeKey,
  makeUser,
  makeWallet,
  PASSWORD,
  type TestUser,
  tableCounts,
  unique,
} from "./helpers";

const NS = "/wp-json/rimplenet/v1";
const JSON_HEADERS = { "Content-Type": "application/json" };

/** A wallet id the plugin accepts (letters only: its `requires` "string" rule). */
const letters = () =>
  Array.from(crypto.getRandomValues(new Uint8Array(12)), (b) =>
    String.fromCharCode(97 + (b % 26)),
  ).join("");

let admin: TestUser;
let subscriber: TestUser;

beforeAll(async () => {
  admin = await makeAdmin();
  subscriber = await makeUser();
});

const post = (body: Json | string, auth: string | null = admin.bearer, headers = JSON_HEADERS) =>
  compatCall("POST", `${NS}/wallets`, {
    headers: { ...headers, ...(auth ? { Authorization: auth } : {}) },
    body: typeof body === "string" ? body : JSON.stringify(body),
    vars: GUARDED,
  });

const del = (path: string, auth: string | null = admin.bearer) =>
  compatCall("DELETE", `${NS}/${path}`, {
    headers: auth ? { Authorization: auth } : {},
    vars: GUARDED,
  });

const walletRow = (id: string) =>
  env.DB.prepare("SELECT * FROM wallets WHERE id = ?").bind(id).first<Json>();
const userRow = (id: number) =>
  env.DB.prepare("SELECT id FROM users WHERE id = ?").bind(id).first();
const count = async (sql: string, ...args: unknown[]) =>
  (await env.DB.prepare(sql)
    .bind(...args)
    .first<{ n: number }>())!.n;

describe("POST wallets in the dialect", () => {
  it("creates rimplenetsaas's test wallets from its exact call", async () => {
    // laravellously/rimplenetsaas RimplenetController::createTestWallet, as of 2023-02-02: naira,
    // cedis, francs, yen and usd (Http::post sends JSON). A fresh id of letters stands for each.
    const id = letters();
    const name = `${id[0]!.toUpperCase()}${id.slice(1)}`;
    const res = await post({
      wallet_name: `${name} Test Wallet`,
      wallet_id: id,
      wallet_symbol: "N",
      wallet_note: `${name} Test Wallet`,
      wallet_type: "fiat",
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({
      status: true,
      message: "Wallet was successully created",
      data: { rimplenet_wallet_id: id, rimplenet_wallet_name: `${name} Test Wallet` },
    });
  });

  it("creates a wallet from rimplenetsaas's earlier call and answers the plugin's 200 and fields", async () => {
    const id = letters();
    // The same method before 2023-02-02: one wallet, its id Str::random(4) (letters of both cases).
    const res = await post({
      wallet_name: "Test Wallet",
      wallet_id: id.toUpperCase(),
      wallet_symbol: "$",
      wallet_note: "Test Wallet - abcdef",
      wallet_type: "fiat",
    });
    expect(res.status, res.text).toBe(200);
    const row = (await walletRow(id))!;
    expect(res.text).toBe(
      JSON.stringify({
        status_code: 200,
        status: true,
        message: "Wallet was successully created",
        data: {
          wallet_id: row.post_id,
          rimplenet_wallet_name: "Test Wallet",
          rimplenet_wallet_id: id,
          rimplenet_wallet_symbol: "$",
          rimplenet_wallet_note: "Test Wallet - abcdef",
          rimplenet_wallet_type: "fiat",
          rimplenet_wallet_decimal: 2,
          rimplenet_max_withdrawal_amount: 999999999,
          rimplenet_min_withdrawal_amount: 0,
          rimplenet_wallet_symbol_position: "left",
        },
      }),
    );
    expect(row).toMatchObject({
      name: "Test Wallet",
      decimals: 2,
      extra_decimals: 0,
      type: "fiat",
    });
    // The same wallet in both namespaces' lists.
    const listed = await compatCall("GET", `${NS}/wallets`, {
      headers: { Authorization: admin.bearer },
      vars: GUARDED,
    });
    expect(listed.body.data.find((w: Json) => w.wallet_id === id)).toMatchObject({
      post_id: row.post_id,
      wallet_decimal: "2",
    });
  });

  it("refuses an id ending in a space PHP's trim keeps, which its credits could not name", async () => {
    const id = letters();
    const body = {
      wallet_name: "Em",
      wallet_id: `${id}\u2003`,
      wallet_symbol: "E",
      wallet_type: "fiat",
    };
    const res = await post(body);
    expect(res.status, res.text).toBe(400);
    expect(res.body.error).toEqual({
      wallet_id: "wallet_id requires only alphabets",
    });
    expect(await walletRow(id)).toBeNull();
  });

  it("keeps JSON numbers for wallet_decimal and the symbol position asked for", async () => {
    const id = letters();
    const res = await post({
      wallet_name: "Coin",
      wallet_id: id,
      wallet_symbol: "C",
      wallet_type: "crypto",
      wallet_decimal: 0,
      wallet_symbol_pos: "right",
      max_withdrawal_amount: 5000,
      min_withdrawal_amount: 1,
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.rimplenet_wallet_decimal).toBe(0);
    expect(res.body.data.rimplenet_wallet_symbol_position).toBe("right");
    expect(await walletRow(id)).toMatchObject({ decimals: 0, symbol_position: "right" });
  });

  it("answers 409 Wallet Already Exists for a taken id, in any case, and writes nothing", async () => {
    const id = letters();
    const body = { wallet_name: "Dup", wallet_id: id, wallet_symbol: "D", wallet_type: "fiat" };
    expect((await post(body)).status).toBe(200);
    const before = await tableCounts();
    const again = await post({ ...body, wallet_id: id.toUpperCase(), wallet_name: "Other" });
    expect(again.status).toBe(409);
    expect(again.body).toStrictEqual({
      status_code: 409,
      status: false,
      message: "Wallet Already Exists",
      error: ["Wallet Already Exists"],
    });
    expect(await tableCounts()).toStrictEqual(before);
    expect((await walletRow(id))!.name).toBe("Dup");
  });

  it("answers the plugin's requires() texts for empty and non-alphabetic fields, all together", async () => {
    const before = await tableCounts();
    const empty = await post({});
    expect(empty.status).toBe(400);
    expect(empty.text).toBe(
      JSON.stringify({
        status_code: 400,
        status: false,
        message: "invalid input",
        error: {
          wallet_name: "Field Cannot be empty",
          wallet_id: "Field Cannot be empty",
          wallet_symbol: "Field Cannot be empty",
          wallet_type: "Field Cannot be empty",
        },
      }),
    );
    const bad = await post({
      wallet_name: "Naira (NGN)",
      wallet_id: "usd2",
      wallet_symbol: "₦",
      wallet_type: "fiat-1",
      wallet_symbol_pos: "",
      wallet_decimal: "",
    });
    expect(bad.body.error).toStrictEqual({
      wallet_name: "wallet_name requires only alphabets",
      wallet_id: "wallet_id requires only alphabets",
      wallet_symbol_pos: "Field Cannot be empty",
      wallet_type: "wallet_type requires only alphabets",
      wallet_decimal: "Field Cannot be empty",
    });
    expect(await tableCounts()).toStrictEqual(before);
  });

  it("answers the plugin's number checks: text is not a number, limits, and its Equality Error", async () => {
    const base = {
      wallet_name: "Num",
      wallet_id: letters(),
      wallet_symbol: "N",
      wallet_type: "fiat",
    };
    const form = await post(
      new URLSearchParams({ ...base, wallet_decimal: "2" }).toString(),
      admin.bearer,
      { "Content-Type": "application/x-www-form-urlencoded" },
    );
    expect(form.text).toBe(
      JSON.stringify({
        status_code: 400,
        status: false,
        message: "",
        error: { wallet_decimal: "Requires a number or decimal" },
      }),
    );
    const limits = await post({ ...base, max_withdrawal_amount: 1e10, min_withdrawal_amount: -1 });
    expect(limits.status).toBe(400);
    expect(limits.body.error).toStrictEqual({
      max_amount: "Withdrawal amount cannot be greater than 999999999",
      min_amount: "Withdrawal amount cannot be less than 0",
    });
    const equal = await post({ ...base, max_withdrawal_amount: 5, min_withdrawal_amount: 5 });
    expect(equal.body.error).toStrictEqual({
      max_amount: "Equality Error",
      min_amount: "Equality Error",
    });
    expect(await walletRow(base.wallet_id)).toBeNull();
  });

  it("reads wallet_decimal -0 as 0, as PHP's json_decode does", async () => {
    const id = "zerodecimals";
    const res = await post(
      `{"wallet_name":"Zero","wallet_id":"${id}","wallet_symbol":"Z","wallet_type":"fiat","wallet_decimal":-0}`,
    );
    expect(res.status, res.text).toBe(200);
    expect(await walletRow(id)).toMatchObject({ decimals: 0 });
  });

  it("refuses what the service cannot keep (the plugin stored it): decimals past 8, a position other than left or right, a long id", async () => {
    const res = await post({
      wallet_name: "Wide",
      wallet_id: "a".repeat(33),
      wallet_symbol: "W",
      wallet_type: "fiat",
      wallet_decimal: 9,
      wallet_symbol_pos: "middle",
    });
    expect(res.status).toBe(400);
    expect(res.body).toStrictEqual({
      status_code: 400,
      status: false,
      message: "invalid input",
      error: {
        wallet_id: "wallet_id must start with a letter and hold at most 32 of a-z, 0-9 and _",
        wallet_decimal: "wallet_decimal must be an integer from 0 to 8",
        wallet_symbol_pos: "wallet_symbol_pos must be left or right",
      },
    });
  });

  /** A new wallet with this symbol is refused, in the dialect's envelope, for `why`. */
  async function expectSymbolRefused(symbol: string, why: string) {
    const res = await post({
      wallet_name: "Test Wallet",
      wallet_id: letters(),
      wallet_symbol: symbol,
      wallet_type: "fiat",
    });
    expect(res.status, JSON.stringify(symbol)).toBe(400);
    expect(res.body, JSON.stringify(symbol)).toStrictEqual({
      status_code: 400,
      status: false,
      message: "invalid input",
      error: { wallet_symbol: why },
    });
  }

  it("refuses a symbol of white space alone as empty, as wallet/v1 does", async () => {
    const before = await tableCounts();
    // sanitize_text_field trims ASCII white space only: a no-break or ideographic space stays.
    for (const blank of ["\u00a0", "\u3000", "\u00a0 \u2003"])
      await expectSymbolRefused(blank, "Field Cannot be empty");
    expect(await tableCounts()).toEqual(before);
  });

  it("refuses a symbol with control, bidirectional or invisible characters, as wallet/v1 does", async () => {
    const before = await tableCounts();
    // A right-to-left override beside "$1,500.00" shows it reversed, in the console and in every
    // *_formatted string; a zero-width space makes two symbols look the same.
    for (const hidden of ["\u202e", "\u2066", "\u200f", "\u200b", "\ufeff", "\u0007", "\u00ad"])
      await expectSymbolRefused(
        `U${hidden}S`,
        "wallet_symbol must not hold control, bidirectional or invisible characters",
      );
    expect(await tableCounts()).toEqual(before);
    // Emoji sequences keep their zero-width joiner; right-to-left scripts are text like any other.
    for (const symbol of ["🏳️‍🌈", "ر.س", "₦"]) {
      const res = await post({
        wallet_name: "Test Wallet",
        wallet_id: letters(),
        wallet_symbol: symbol,
        wallet_type: "fiat",
      });
      expect(res.status, symbol).toBe(200);
    }
  });

  it("refuses a symbol that begins or ends with a digit or a sign, as wallet/v1 does", async () => {
    const before = await tableCounts();
    // "<symbol><number>": the symbol 1 would show 500 as "1500.00", the symbol - as "-500.00".
    for (const symbol of ["1", "-", "US1", "0."])
      await expectSymbolRefused(
        symbol,
        "wallet_symbol must not begin or end with a digit or a sign: it would read as part of the amount",
      );
    expect(await tableCounts()).toEqual(before);
  });
});

describe("DELETE wallets/{wallet} in the dialect", () => {
  it("deletes a wallet no entry names, as the plugin answered, and it is gone from both namespaces", async () => {
    const id = await makeWallet(admin);
    const res = await del(`wallets/${id}`);
    expect(res.status, res.text).toBe(200);
    expect(res.text).toBe(
      JSON.stringify({
        status_code: 200,
        status: true,
        message: `${id} wallet deleted`,
        data: ["Operation completed"],
      }),
    );
    expect(await walletRow(id)).toBeNull();
    expect((await call("GET", `/wallets/${id}`, { auth: admin.bearer })).status).toBe(404);
    // This isolate forgot it: a credit names an unknown wallet, as on the plugin (capture 26).
    const creditRes = await compatCall("POST", `${NS}/credits`, {
      headers: { ...JSON_HEADERS, Authorization: admin.bearer },
      body: JSON.stringify({ user_id: subscriber.id, wallet_id: id, request_id: "r1", amount: 1 }),
      vars: GUARDED,
    });
    expect([creditRes.status, creditRes.body.message]).toStrictEqual([400, ""]);
    const again = await del(`wallets/${id}`);
    expect([again.status, again.body]).toStrictEqual([
      400,
      { status_code: 400, status: false, message: "", error: ["Invalid wallet Id"] },
    ]);
  });

  it("never gives a deleted wallet's post_id to another: the plugin's post ids were never reused", async () => {
    const postId = async (id: string) => {
      const res = await post({
        wallet_name: "Row",
        wallet_id: id,
        wallet_symbol: "$",
        wallet_type: "fiat",
      });
      expect(res.status, res.text).toBe(200);
      return res.body.data.wallet_id as number;
    };
    const [kept, deleted] = [letters(), letters()];
    const keptRow = await postId(kept);
    const deletedRow = await postId(deleted);
    // The newest wallet goes: its row number was the highest, which the next wallet would take.
    expect((await del(`wallets/${deleted}`)).status).toBe(200);
    const next = letters();
    const nextRow = await postId(next);
    expect(nextRow).toBeGreaterThan(deletedRow);
    expect((await walletRow(next))?.post_id).toBe(nextRow);
    const list = await compatCall("GET", `${NS}/wallets`, {
      headers: { Authorization: admin.bearer },
      vars: GUARDED,
    });
    const postIds = Object.fromEntries(
      (list.body.data as Json[]).map((w) => [w.wallet_id, w.post_id]),
    );
    expect([postIds[kept], postIds[next], postIds[deleted]]).toStrictEqual([
      keptRow,
      nextRow,
      undefined,
    ]);
    // The row after it goes on from there, newest first in GET wallets as WP_Query ordered them.
    const after = letters();
    expect(await postId(after)).toBe(nextRow + 1);
  });

  it("refuses a wallet with entries (the ledger is append-only) and changes nothing", async () => {
    const id = await makeWallet(admin);
    expect(
      (await credit(admin, { user_id: subscriber.id, wallet_id: id, amount: "5" })).status,
    ).toBe(200);
    const before = await tableCounts();
    const res = await del(`wallets/${id}`);
    expect([res.status, res.body]).toStrictEqual([
      409,
      {
        status_code: 409,
        status: false,
        message: "Operation cannot be completed",
        error: [`${id} wallet has transactions: the ledger keeps them`],
      },
    ]);
    expect(await tableCounts()).toStrictEqual(before);
    expect(await ledgerViolations()).toStrictEqual(CLEAN);
  });

  it("keeps a deleted wallet's units: its id comes back, in either dialect, only with its decimals", async () => {
    const id = letters();
    await makeWallet(admin, { id, decimals: 2 });
    const balance = `/user-wallet-balance?user_id=${subscriber.id}&wallet_id=${id}`;
    expect((await call("GET", balance, { auth: admin.bearer })).status).toBe(200); // now cached here
    // Deleted through another isolate (raw SQL): this isolate still holds the wallet, 2 decimals.
    await env.DB.prepare("DELETE FROM wallets WHERE id = ?").bind(id).run();
    const before = await tableCounts();
    const text = `wallet ${id} was deleted with 2 decimals: a wallet re-created under its id must have the same`;
    const v1 = await call("POST", "/wallets", {
      auth: admin.bearer,
      body: { wallet_id: id, wallet_name: "Again", wallet_symbol: "A", wallet_decimal: 4 },
    });
    expect([v1.status, v1.body.message, v1.body.error]).toStrictEqual([
      400,
      "invalid input",
      { wallet_decimal: text },
    ]);
    const plugin = await post({
      wallet_name: "Again",
      wallet_id: id.toUpperCase(),
      wallet_symbol: "A",
      wallet_type: "fiat",
      wallet_decimal: 0,
    });
    expect([plugin.status, plugin.body.error]).toStrictEqual([400, { wallet_decimal: text }]);
    expect(await tableCounts()).toStrictEqual(before);
    expect(await walletRow(id)).toBeNull();
    // With the same decimals it is created, and the stale cache converts exactly: 1.5 is 150 units.
    expect(
      (await post({ wallet_name: "Again", wallet_id: id, wallet_symbol: "A", wallet_type: "fiat" }))
        .status,
    ).toBe(200);
    const res = await credit(admin, { user_id: subscriber.id, wallet_id: id, amount: "1.5" });
    expect(res.status, res.text).toBe(200);
    const stored = await env.DB.prepare("SELECT amount_minor FROM transactions WHERE id = ?")
      .bind(res.body.data.transaction_id)
      .first<{ amount_minor: number }>();
    expect(stored!.amount_minor).toBe(150);
    expect(await ledgerViolations()).toStrictEqual(CLEAN);
  });

  it("is no route for an id outside the plugin's [\\w]+, and refuses callers as POST wallets does", async () => {
    const odd = await del("wallets/us-d");
    expect([odd.status, odd.body.code]).toStrictEqual([404, "rest_no_route"]);
    const id = await makeWallet(admin);
    expect((await del(`wallets/${id}`, null)).status).toBe(401);
    expect((await del(`wallets/${id}`, subscriber.bearer)).status).toBe(403);
    expect((await del(`wallets/${id}`, (await makeKey(admin, "read")).header)).status).toBe(403);
    expect(await walletRow(id)).not.toBeNull();
  });
});

describe("DELETE in the dialect: the path names what is deleted", () => {
  it("ignores a user_id or wallet in the query or the body, which WordPress let override the path's", async () => {
    const [kept, gone] = [await makeUser(), await makeUser()];
    const [keptWallet, goneWallet] = [await makeWallet(admin), await makeWallet(admin)];
    const send = (path: string, query: string, body: Json) =>
      compatCall("DELETE", `${NS}/${path}?${query}`, {
        headers: { ...JSON_HEADERS, Authorization: admin.bearer },
        body: JSON.stringify(body),
        vars: GUARDED,
      });
    const user = await send(`users/${gone.id}`, `user_id=${kept.id}`, { user_id: kept.id });
    expect(user.status, user.text).toBe(200);
    const wallet = await send(
      `wallets/${goneWallet}`,
      `wallet=${keptWallet}&wallet_id=${keptWallet}`,
      {
        wallet_id: keptWallet,
        wallet: keptWallet,
      },
    );
    expect(wallet.status, wallet.text).toBe(200);
    expect([await userRow(gone.id), await walletRow(goneWallet)]).toEqual([null, null]);
    expect(await userRow(kept.id)).toEqual({ id: kept.id });
    expect(await walletRow(keptWallet)).toMatchObject({ id: keptWallet });
  });
});

describe("DELETE users/{user_id} in the dialect", () => {
  it("forgets what the sign-in throttle knew of the user's logins: a later user of them inherits nothing", async () => {
    const name = unique("reused");
    const signIn = (login: string, password: string, ip: string) =>
      call("POST", "/users/login", {
        body: { user_email: login, user_password: password },
        headers: { "CF-Connecting-IP": ip },
      });
    const old = await makeUser("subscriber", name);
    const home = "198.18.9.1";
    expect((await signIn(name, PASSWORD, home)).status).toBe(200);
    const res = await del(`users/${old.id}`);
    expect(res.status, res.text).toBe(200);
    await makeUser("subscriber", name);
    for (let a = 0; a < 5; a++)
      for (let i = 0; i < 10; i++) await signIn(name, `guess-${i}`, `198.18.9.${10 + a}`);
    // The deleted user's home is no address of the heir's: the ceiling locks it too.
    expect((await signIn(name, "guess", home)).status).toBe(429);
  }, 30_000);

  /**
   * LOGIN_THROTTLE as bound, but for its objects' `forget`, which fails its first `failures` calls
   * per object (an object unreachable for a moment, after the deletion committed): `knows`, asked
   * before the deletion, answers as the real object does.
   */
  function forgetFailing(failures: number) {
    const ns = env.LOGIN_THROTTLE;
    const calls = new Map<string, number>();
    const binding = {
      idFromName: (name: string) => ns.idFromName(name),
      get: (id: DurableObjectId) => {
        const real = ns.get(id);
        return {
          knows: (address: string, nowMs: number) => real.knows(address, nowMs),
          forget: async () => {
            const n = (calls.get(id.toString()) ?? 0) + 1;
            calls.set(id.toString(), n);
            if (n <= failures) throw new Error("Network connection lost.");
            await real.forget();
          },
        };
      },
    };
    return { binding: binding as unknown as typeof ns, calls };
  }

  /** A user who signed in from `ip` with its username, so its login's and account's objects know it. */
  async function signedInUser(ip: string) {
    const user = await makeUser("subscriber", unique("forgot"));
    const res = await call("POST", "/users/login", {
      body: { user_email: user.username, user_password: PASSWORD },
      headers: { "CF-Connecting-IP": ip },
    });
    expect(res.status, res.text).toBe(200);
    return user;
  }

  /** Whether each of the user's keys' objects (account, username, e-mail) still knows `ip`. */
  const known = (user: TestUser, ip: string) =>
    Promise.all(
      [accountKey(user.id), loginKey(user.username), loginKey(user.email)].map(async (key) =>
        (await objectFor(env.LOGIN_THROTTLE, key)).knows(keyName(addressKey(ip)), Date.now()),
      ),
    );

  const delThrough = (throttle: typeof env.LOGIN_THROTTLE, id: number) =>
    call("DELETE", `${NS}/users/${id}`, {
      auth: admin.bearer,
      vars: { ...GUARDED, LOGIN_THROTTLE: throttle },
    });

  const DELETED = JSON.stringify({
    status_code: 200,
    status: true,
    message: "User deleted successfully",
    data: [],
    error: [],
  });

  it("answers deleted when the throttle cannot forget the user's keys, and logs which it kept", async () => {
    const log = vi.spyOn(console, "error").mockImplementation(() => {});
    const ip = "198.18.9.201";
    const user = await signedInUser(ip);
    expect(await known(user, ip)).toEqual([true, true, false]);
    const { binding, calls } = forgetFailing(Infinity);
    const res = await delThrough(binding, user.id);
    expect([res.status, res.text]).toStrictEqual([200, DELETED]);
    expect(await userRow(user.id)).toBeNull();
    // Each key's object was asked twice; what it knew stays, as the line says.
    expect([...calls.values()]).toEqual([2, 2, 2]);
    expect(await known(user, ip)).toEqual([true, true, false]);
    const lines = log.mock.calls
      .map(([line]) => JSON.parse(String(line)) as Json)
      .filter((line) => "throttle_not_forgotten" in line);
    expect(lines).toEqual([
      {
        request_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        throttle_not_forgotten: { user_id: user.id, keys: ["account", "email", "username"] },
        fault: "Error: Network connection lost.",
      },
    ]);
    // Neither login's text is in it (an e-mail address), nor a password or token.
    const text = JSON.stringify(lines);
    for (const secret of [user.email, user.username, PASSWORD, admin.bearer.slice(7)])
      expect(text).not.toContain(secret);
    // Asked again, the user is gone, as after any deletion.
    expect((await del(`users/${user.id}`)).status).toBe(404);
  });

  it("asks an object that failed to forget once more: the deletion forgets all, logs nothing", async () => {
    const log = vi.spyOn(console, "error").mockImplementation(() => {});
    const ip = "198.18.9.202";
    const user = await signedInUser(ip);
    const { binding, calls } = forgetFailing(1);
    const res = await delThrough(binding, user.id);
    expect([res.status, res.text]).toStrictEqual([200, DELETED]);
    expect(await userRow(user.id)).toBeNull();
    expect([...calls.values()]).toEqual([2, 2, 2]);
    expect(await known(user, ip)).toEqual([false, false, false]);
    expect(log).not.toHaveBeenCalled();
  });

  it("deletes a user with no entries, its keys and sessions, as the plugin answered; its token and key stop working", async () => {
    const user = await makeUser("administrator");
    const key = (await makeKey(user, "read-write")).header;
    expect(
      (await compatCall("GET", `${NS}/wallets`, { headers: { Authorization: key }, vars: GUARDED }))
        .status,
    ).not.toBe(401);
    const res = await del(`users/${user.id}`);
    expect([res.status, res.text]).toStrictEqual([
      200,
      JSON.stringify({
        status_code: 200,
        status: true,
        message: "User deleted successfully",
        data: [],
        error: [],
      }),
    ]);
    expect(await userRow(user.id)).toBeNull();
    expect(await count("SELECT count(*) AS n FROM api_keys WHERE user_id = ?", user.id)).toBe(0);
    expect(await count("SELECT count(*) AS n FROM sessions WHERE user_id = ?", user.id)).toBe(0);
    for (const auth of [user.bearer, key])
      expect((await del(`users/${subscriber.id}`, auth)).status).toBe(400);
    const again = await del(`users/${user.id}`);
    expect([again.status, again.body]).toStrictEqual([
      404,
      { status_code: 404, status: "Failed", message: "User not found", data: [], error: [] },
    ]);
  });

  it("refuses a user with entries, keeping the user, its balance, keys and sessions", async () => {
    const user = await makeUser();
    await makeKey(user, "read");
    const wallet = await makeWallet(admin);
    expect((await credit(admin, { user_id: user.id, wallet_id: wallet, amount: "7" })).status).toBe(
      200,
    );
    const before = await tableCounts();
    const sessions = await count("SELECT count(*) AS n FROM sessions WHERE user_id = ?", user.id);
    const res = await del(`users/${user.id}`);
    expect([res.status, res.body]).toStrictEqual([
      409,
      {
        status_code: 409,
        status: "failed",
        message: "Operation cannot be completed",
        data: [],
        error: [
          { user_id: ["user has transactions: the ledger keeps them and the user's balances"] },
        ],
      },
    ]);
    expect(await tableCounts()).toStrictEqual(before);
    expect(await count("SELECT count(*) AS n FROM sessions WHERE user_id = ?", user.id)).toBe(
      sessions,
    );
    expect(await ledgerViolations()).toStrictEqual(CLEAN);
  });

  it("names the user by the dialect's one rule: 0002 is user 2's id, 0 nobody; text is no route", async () => {
    const user = await makeUser();
    expect((await del(`users/${String(user.id).padStart(6, "0")}`)).status).toBe(200);
    expect((await del("users/0")).status).toBe(404);
    expect((await del(`users/${user.username}`)).body.code).toBe("rest_no_route");
  });
});

describe("a delete racing a credit", () => {
  it("never leaves an entry without its user or wallet, whichever lands first", async () => {
    const landed: number[] = [];
    for (let round = 0; round < 6; round++) {
      const user = await makeUser();
      const wallet = await makeWallet(admin);
      // Sent together the deletes land first; sent a turn of the event loop later, the credit.
      const turn = round % 2 === 0 ? Promise.resolve() : scheduler.wait(0);
      const [credited, deletedUser, deletedWallet] = await Promise.all([
        credit(admin, { user_id: user.id, wallet_id: wallet, amount: "3" }),
        turn.then(() => del(`users/${user.id}`)),
        turn.then(() => del(`wallets/${wallet}`)),
      ]);
      landed.push(credited.status);
      const entries = await count(
        "SELECT count(*) AS n FROM transactions WHERE user_id = ? OR wallet_id = ?",
        user.id,
        wallet,
      );
      if (credited.status === 200) {
        expect(entries).toBe(1);
        expect(await userRow(user.id)).not.toBeNull();
        expect(await walletRow(wallet)).not.toBeNull();
        // Both still stand, each now with an entry: neither delete went through.
        expect([deletedUser.status, deletedWallet.status]).toEqual([409, 409]);
      } else {
        expect(entries).toBe(0);
        expect([deletedUser.status, deletedWallet.status]).toEqual([200, 200]);
      }
    }
    expect(new Set(landed), "each side landed first at least once").toEqual(new Set([200, 400]));
    const orphans = await count(
      `SELECT count(*) AS n FROM transactions t WHERE NOT EXISTS (SELECT 1 FROM users u WHERE u.id = t.user_id)
         OR NOT EXISTS (SELECT 1 FROM wallets w WHERE w.id = t.wallet_id)`,
    );
    expect(orphans).toBe(0);
    expect(await ledgerViolations()).toStrictEqual(CLEAN);
  });
});

describe("a deletion made through another isolate", () => {
  // Raw SQL stands in for the other isolate: this app's isolate cache still holds the user and the
  // wallet, as another isolate's would after the deletion.
  // The foreign key refuses the insert; the isolate then forgets the stale facts and answers as a
  // request naming a user or wallet that does not exist is answered.
  it("a credit naming a user or wallet this isolate still remembers writes nothing and answers not found", async () => {
    const user = await makeUser();
    const wallet = await makeWallet(admin);
    const balance = `/user-wallet-balance?user_id=${user.id}&wallet_id=${wallet}`;
    expect((await call("GET", balance, { auth: admin.bearer })).status).toBe(200);
    await env.DB.batch([
      env.DB.prepare("DELETE FROM sessions WHERE user_id = ?").bind(user.id),
      env.DB.prepare("DELETE FROM users WHERE id = ?").bind(user.id),
    ]);
    const before = await tableCounts();
    const toUser = await credit(admin, { user_id: user.id, wallet_id: wallet, amount: "4" });
    expect(toUser.status, toUser.text).toBe(404);
    expect(toUser.body.message).toBe("Invalid User credentials");
    expect(
      await env.DB.prepare("DELETE FROM wallets WHERE id = ?").bind(wallet).run(),
    ).toBeTruthy();
    const toWallet = await credit(admin, {
      user_id: subscriber.id,
      wallet_id: wallet,
      amount: "4",
    });
    expect(toWallet.status, toWallet.text).toBe(400);
    expect(toWallet.body.error).toStrictEqual({ wallet_id: "wallet_id not found" });
    // The wallet's deletion, and its wallet.deleted event, are all that changed.
    expect(await tableCounts()).toStrictEqual({
      ...before,
      wallets: Number(before!.wallets) - 1,
      events: Number(before!.events) + 1,
    });
    expect(await ledgerViolations()).toStrictEqual(CLEAN);
  });

  it("the plugin's credits and transfers answer it in the plugin's words, as for one never there", async () => {
    const write = (path: string, body: Json) =>
      compatCall("POST", `${NS}/${path}`, {
        headers: { ...JSON_HEADERS, Authorization: admin.bearer },
        body: JSON.stringify(body),
        vars: GUARDED,
      });
    const remember = async (userId: number, walletId: string) =>
      expect(
        (
          await call("GET", `/user-wallet-balance?user_id=${userId}&wallet_id=${walletId}`, {
            auth: admin.bearer,
          })
        ).status,
      ).toBe(200);
    const wallet = await makeWallet(admin, { id: letters() });
    await remember(subscriber.id, wallet);
    await env.DB.prepare("DELETE FROM wallets WHERE id = ?").bind(wallet).run();
    let before = await tableCounts();
    const toWallet = await write("credits", {
      user_id: subscriber.id,
      wallet_id: wallet,
      request_id: "gone1",
      amount: "4",
    });
    // Capture 26, the plugin's answer for a wallet it does not have.
    expect([toWallet.status, toWallet.text]).toStrictEqual([
      400,
      JSON.stringify({ status_code: 400, status: false, message: "" }),
    ]);
    expect(await tableCounts()).toStrictEqual(before);
    // Money out of one too: its zero balance refuses the debit before the foreign key does, and the
    // ledger then finds the wallet gone, so the route runs once more (capture 26's answer again).
    const drained = await makeWallet(admin, { id: letters() });
    await remember(subscriber.id, drained);
    await env.DB.prepare("DELETE FROM wallets WHERE id = ?").bind(drained).run();
    before = await tableCounts();
    const fromWallet = await write("debits", {
      user_id: subscriber.id,
      wallet_id: drained,
      request_id: "gone2",
      amount: "4",
    });
    expect([fromWallet.status, fromWallet.text]).toStrictEqual([
      400,
      JSON.stringify({ status_code: 400, status: false, message: "" }),
    ]);
    expect(await tableCounts()).toStrictEqual(before);

    const funded = await makeWallet(admin, { id: letters() });
    const sender = await makeUser();
    const receiver = await makeUser();
    expect(
      (await credit(admin, { user_id: sender.id, wallet_id: funded, amount: "9" })).status,
    ).toBe(200);
    await remember(receiver.id, funded);
    await env.DB.batch([
      env.DB.prepare("DELETE FROM sessions WHERE user_id = ?").bind(receiver.id),
      env.DB.prepare("DELETE FROM users WHERE id = ?").bind(receiver.id),
    ]);
    before = await tableCounts();
    const toUser = await write("transfers", {
      transfer_from_user: sender.id,
      transfer_to_user: receiver.id,
      wallet_id: funded,
      amount_to_transfer: "2",
    });
    expect([toUser.status, toUser.body]).toStrictEqual([
      400,
      {
        status_code: 400,
        status: false,
        message: `Unable to reach ${receiver.id}`,
        error: [`Invalid User ${receiver.id}`],
      },
    ]);
    expect(await tableCounts()).toStrictEqual(before);
    expect(await ledgerViolations()).toStrictEqual(CLEAN);
  });
});

describe("discovery and Allow", () => {
  it("list POST wallets, GET and DELETE wallets/{wallet} and DELETE users/{user_id}", async () => {
    const index = await compatCall("GET", "/wp-json/", { vars: GUARDED });
    expect(index.body.routes["/rimplenet/v1/wallets"].methods).toEqual(["GET", "POST"]);
    expect(index.body.routes["/rimplenet/v1/wallets/(?P<wallet>[\\w]+)"].methods).toEqual([
      "DELETE",
    ]);
    // Two routes, as the plugin registered them (get-wallet.php and delete-wallets.php), each with
    // its own Allow.
    expect(index.body.routes["/rimplenet/v1/wallets/(?P<wallet>[a-zA-Z0-9_]+)"].methods).toEqual([
      "GET",
    ]);
    expect(index.body.routes["/rimplenet/v1/users/(?P<user_id>\\d+)"].methods).toEqual(["DELETE"]);
    const listed = await compatCall("GET", `${NS}/wallets`, {
      headers: { Authorization: admin.bearer },
      vars: GUARDED,
    });
    expect(listed.headers.get("allow")).toBe("GET, POST");
    const gone = await del("wallets/nosuchwallet");
    expect(gone.headers.get("allow")).toBe("DELETE");
    expect((await del("users/999999999")).headers.get("allow")).toBe("DELETE");
    const one = await compatCall("GET", `${NS}/wallets/nosuchwallet`, {
      headers: { Authorization: admin.bearer },
      vars: GUARDED,
    });
    expect(one.headers.get("allow")).toBe("GET");
  });
});
