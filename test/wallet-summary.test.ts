// A wallet's summary in both namespaces: GET /wp-json/wallet/v1/wallets/{wallet_id}/summary and
// the plugin dialect's GET wallet-summary, one verb (wallet/summary.ts) worded twice.
import { describe, expect, it } from "vitest";
import { compatCall, GUARDED } from "./compat-helpers";
import {
  call,
  credit,
  debit,
  type Json,
  makeAdmin,
  makeKey,
  makeUser,
  makeWallet,
  storingMore,
  type TestUser,
  tableCounts,
  unique,
} from "./helpers";

const PLUGIN = "/wp-json/rimplenet/v1/wallet-summary";

/** A subscriber with 10.00 in, 1.00 out and 2.50 held: 9.00 balance, 6.50 available. */
async function account() {
  const admin = await makeAdmin();
  const user = await makeUser();
  const wallet = await makeWallet(admin, { decimals: 2, symbol: "$" });
  expect(
    (await credit(admin, { user_id: user.id, wallet_id: wallet, amount: "10.00" })).status,
  ).toBe(200);
  const out = await debit(admin, { user_id: user.id, wallet_id: wallet, amount: "1.00" });
  expect(out.status, out.text).toBe(200);
  const hold = await call("POST", "/holds", {
    auth: admin.bearer,
    body: { user_id: user.id, wallet_id: wallet, request_id: unique("h"), amount: "2.50" },
  });
  expect(hold.status, hold.text).toBe(200);
  return { admin, user, wallet, lastId: out.body.data.transaction_id as number };
}

const summary = (auth: string | undefined, wallet: string, query: Json = {}) =>
  call("GET", `/wallets/${wallet}/summary`, { auth, query });

const plugin = (auth: string | undefined, query: Record<string, string | number>) =>
  compatCall(
    "GET",
    `${PLUGIN}?${new URLSearchParams(Object.entries(query).map(([k, v]): [string, string] => [k, String(v)]))}`,
    { headers: auth ? { Authorization: auth } : {}, vars: GUARDED },
  );

describe("GET /wallets/{wallet_id}/summary", () => {
  it("answers balance, held, available, the entry count and the newest entry", async () => {
    const { admin, user, wallet, lastId } = await account();
    const res = await summary(admin.bearer, wallet, { user_id: user.id });
    expect(res.status, res.text).toBe(200);
    expect(res.body.message).toBe("Wallet summary retrieved");
    expect(res.body.data).toEqual({
      user_id: user.id,
      wallet_id: wallet,
      balance: 9,
      held: 2.5,
      available: 6.5,
      entry_count: 2,
      last_entry: {
        transaction_id: lastId,
        txn_type: "DEBIT",
        amount: 1,
        date: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.000Z$/),
      },
      formatted: { balance: "$9.00", held: "$2.50", available: "$6.50" },
    });
  });

  it("answers zeros and no entry for a user who never used the wallet", async () => {
    const { admin, wallet } = await account();
    const idle = await makeUser();
    const res = await summary(admin.bearer, wallet.toUpperCase(), { user_id: idle.id });
    expect(res.status, res.text).toBe(200);
    expect(res.body.data).toMatchObject({ balance: 0, held: 0, available: 0, entry_count: 0 });
    expect(res.body.data.last_entry).toBeNull();
  });

  it("is exact on an imported wallet that stores more places than it shows", async () => {
    const { admin, user } = await account();
    const id = await storingMore(2);
    // The plugin's dialect rounds to the places the wallet stores: 1.2345 moves exactly.
    const moved = await compatCall("POST", "/wp-json/rimplenet/v1/credits", {
      headers: { Authorization: admin.bearer, "Content-Type": "application/json" },
      body: JSON.stringify({
        user_id: user.id,
        wallet_id: id,
        request_id: unique("r"),
        amount: "1.2345",
      }),
      vars: GUARDED,
    });
    expect(moved.status, moved.text).toBe(200);
    const res = await summary(admin.bearer, id, { user_id: user.id });
    expect(res.body.data).toMatchObject({ balance: 1.2345, available: 1.2345, entry_count: 1 });
    expect(res.body.data.last_entry.amount).toBe(1.2345);
    const theirs = await plugin(admin.bearer, { user_id: user.id, wallet_id: id });
    expect(theirs.body.data.wallet_balance_raw).toBe(1.2345);
  });

  it("refuses an unknown wallet, an unknown user and a malformed user_id, writing nothing", async () => {
    const { admin, user, wallet } = await account();
    const before = await tableCounts();
    const noWallet = await summary(admin.bearer, "nowallet", { user_id: user.id });
    expect(noWallet.status).toBe(404);
    expect(noWallet.body).toMatchObject({
      message: "Wallet not found",
      error: { wallet_id: "wallet_id not found" },
    });
    const noUser = await summary(admin.bearer, wallet, { user_id: 999_999_999 });
    expect(noUser.status).toBe(404);
    expect(noUser.body.message).toBe("Invalid User credentials");
    const bad = await summary(admin.bearer, wallet, { user_id: "abc" });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toEqual({ user_id: "user_id requires an integer" });
    expect(await tableCounts()).toEqual(before);
  });

  it("lets a subscriber read its own wallet only, and a key only with the read scope", async () => {
    const { admin, user, wallet } = await account();
    const other: TestUser = await makeUser();
    expect((await summary(user.bearer, wallet)).body.data.user_id).toBe(user.id);
    expect((await summary(user.bearer, wallet, { user_id: user.id })).status).toBe(200);
    expect((await summary(other.bearer, wallet, { user_id: user.id })).status).toBe(403);
    expect((await summary(undefined, wallet, { user_id: user.id })).status).toBe(401);
    const read = (await makeKey(admin, "read")).header;
    const write = (await makeKey(admin, "write")).header;
    expect((await summary(read, wallet, { user_id: user.id })).status).toBe(200);
    expect((await summary(write, wallet, { user_id: user.id })).status).toBe(403);
  });
});

describe("GET wallet-summary (the plugin's dialect)", () => {
  it("answers the same figures in the plugin's records, naming the user by id or username", async () => {
    const { admin, user, wallet, lastId } = await account();
    // post_date_gmt: the instant wallet/v1 gives the newest entry, written in UTC whatever the zone.
    const { date } = (await summary(admin.bearer, wallet, { user_id: user.id })).body.data
      .last_entry;
    for (const ref of [user.id, user.username]) {
      const res = await plugin(admin.bearer, { user_id: ref, wallet_id: wallet.toUpperCase() });
      expect(res.status, res.text).toBe(200);
      expect(res.body).toEqual({
        status_code: 200,
        status: true,
        message: "Wallet Summary retrieved",
        data: {
          user_id: user.id,
          wallet_id: wallet,
          wallet_balance_raw: 9,
          wallet_balance_formatted: "$9.00",
          wallet_held_raw: 2.5,
          wallet_held_formatted: "$2.50",
          wallet_available_raw: 6.5,
          wallet_available_formatted: "$6.50",
          entry_count: 2,
          last_txn_id: lastId,
          last_txn_type: "debit",
          last_txn_amount_raw: 1,
          last_txn_date_gmt: date.slice(0, 19).replace("T", " "),
        },
      });
    }
  });

  it("refuses in the plugin's words: no wallet_id, nobody, no wallet, no credentials, not yours", async () => {
    const { admin, user, wallet } = await account();
    const other = await makeUser();
    const missing = await plugin(admin.bearer, { user_id: user.id });
    expect(missing.status).toBe(422);
    expect(missing.body.error).toEqual({ wallet_id: "wallet_id is required" });
    const nobody = await plugin(admin.bearer, { user_id: "nobody-at-all", wallet_id: wallet });
    expect([nobody.status, nobody.body.message]).toEqual([404, "User not found"]);
    const noWallet = await plugin(admin.bearer, { user_id: user.id, wallet_id: "nowallet" });
    expect([noWallet.status, noWallet.body.message]).toEqual([404, "Invalid Wallet"]);
    // Neither there: the wallet is named first, however the user is named.
    for (const nobodyRef of [999_999_999, "nobody-at-all"]) {
      const neither = await plugin(admin.bearer, { user_id: nobodyRef, wallet_id: "nowallet" });
      expect(neither.body, String(nobodyRef)).toEqual(noWallet.body);
    }
    const anonymous = await plugin(undefined, { user_id: user.id, wallet_id: wallet });
    expect([anonymous.status, anonymous.body.message]).toEqual([403, "Permission Denied"]);
    const notYours = await plugin(other.bearer, { user_id: user.id, wallet_id: wallet });
    expect(notYours.status).toBe(403);
    expect(notYours.body.error.permission).toBe(
      "Permission Denied for get_rimplenet_wallet_summary",
    );
    // Whether a username exists is not told to a subscriber: nobody is refused like anyone else.
    const guess = await plugin(other.bearer, { user_id: "nobody-at-all", wallet_id: wallet });
    expect(guess.body).toEqual(notYours.body);
    expect((await plugin(user.bearer, { wallet_id: wallet })).body.data.user_id).toBe(user.id);
  });

  // PHP reads `user_id[]=2` as a list, which sanitize_text_field makes "": the balance routes refuse
  // it as an empty user_id. Read as no user_id, it answered the caller's own summary instead.
  it("refuses a user_id sent as a list, empty or 0 as the balance routes do, never as the caller", async () => {
    const { admin, user, wallet } = await account();
    const required = (error: Json) => ({
      status_code: 422,
      status: false,
      message: "Entities Are Required",
      error,
    });
    const get = (path: string, auth: string) =>
      compatCall("GET", `/wp-json/rimplenet/v1${path}`, {
        headers: { Authorization: auth },
        vars: GUARDED,
      });
    for (const caller of [admin, user])
      for (const query of [
        `user_id[]=${user.id}`,
        `user_id[0]=${user.id}`,
        "user_id=",
        "user_id=0",
      ]) {
        const res = await get(`/wallet-summary?${query}&wallet_id=${wallet}`, caller.bearer);
        expect(res.body, query).toEqual(required({ user_id: "user_id is required" }));
        // Its sibling says the same of the same user_id.
        const multi = await get(
          `/user-wallet-balance/multi?${query}&wallet_id=${wallet}`,
          caller.bearer,
        );
        expect(multi.body, query).toEqual(required({ user_id: "user_id is required" }));
      }
    const both = await get(`/wallet-summary?user_id[]=${user.id}`, user.bearer);
    expect(both.body).toEqual(
      required({ user_id: "user_id is required", wallet_id: "wallet_id is required" }),
    );
    // Left out, user_id is the caller.
    const own = await get(`/wallet-summary?wallet_id=${wallet}`, user.bearer);
    expect([own.status, own.body.data?.user_id]).toEqual([200, user.id]);
  });
});
