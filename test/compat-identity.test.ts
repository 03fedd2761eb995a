import { beforeAll, describe, expect, it } from "vitest";
import { pluginUserRef } from "../src/compat/identity";
import { compatCall, GUARDED } from "./compat-helpers";
import {
  credit,
  type Json,
  makeAdmin,
  makeUser,
  makeWallet,
  type TestUser,
  tableCounts,
  unique,
} from "./helpers";

// Compat identity: a plugin `user_id` names one user by one rule
// (src/compat/identity.ts, docs/compat.md "User references"), and authorization compares the
// resolved id with the caller's, never texts. Subscribers whose usernames look like numbers try
// every route of the dialect that takes a user reference, or could leak someone else's data.

const NS = "/wp-json/rimplenet/v1";
/** Usernames that look like the ids of the first two users of this file (` 1` is trimmed to `1`). */
const NUMERIC_NAMES = ["0001", "1", "2e0", " 1"];

let admin: TestUser;
let victim: TestUser;
let subscribers: TestUser[];
let wallet: string;

const get = (path: string, auth?: string) =>
  compatCall("GET", `${NS}${path}`, {
    vars: GUARDED,
    headers: auth ? { Authorization: auth } : {},
  });
const post = (path: string, body: Json, auth: string) =>
  compatCall("POST", `${NS}${path}`, {
    vars: GUARDED,
    headers: { "Content-Type": "application/json", Authorization: auth },
    body: JSON.stringify(body),
  });
const q = encodeURIComponent;

beforeAll(async () => {
  // The premise: users 1 and 2 are the administrator and another subscriber with money.
  admin = await makeAdmin();
  victim = await makeUser();
  expect([admin.id, victim.id]).toEqual([1, 2]);
  wallet = await makeWallet(admin);
  subscribers = [];
  for (const name of NUMERIC_NAMES) subscribers.push(await makeUser("subscriber", name));
  for (const user of [admin, victim, ...subscribers])
    expect(
      (await credit(admin, { user_id: user.id, wallet_id: wallet, amount: `${user.id}.00` }))
        .status,
    ).toBe(200);
});

describe("the plugin's user_id rule", () => {
  it("reads a numeric text as an id (absolute integer part), anything else as a username, and empty or zero as nobody", () => {
    const long = `2.${"0".repeat(60)}`;
    const ids = ["2", "0002", "2.5", "2e0", "-2", "+2", " 2 ", long].map(pluginUserRef);
    expect(ids).toEqual(Array(8).fill({ id: 2 }));
    expect(pluginUserRef("alice")).toEqual({ login: "alice" });
    expect(pluginUserRef("1abc")).toEqual({ login: "1abc" });
    expect(pluginUserRef("a@example.com")).toEqual({ login: "a@example.com" });
    expect(
      ["", "0", "00", "0.5", "-0", "1e300", "99999999999999999999"].map(pluginUserRef),
    ).toEqual(Array(7).fill(null));
  });
});

describe("a subscriber whose username looks like a number reads nothing but itself", () => {
  const FORBIDDEN_B = {
    status_code: 403,
    status: "failed",
    message: "Permission denied",
    data: [],
    error: { unauthorize: "Request is not authorized" },
  };

  it("GET users: its username names another user's id and is refused; its id reads its own record", async () => {
    for (const s of subscribers) {
      const byName = await get(`/users?user_id=${q(s.username)}`, s.bearer);
      expect(byName.body, s.username).toStrictEqual(FORBIDDEN_B);
      for (const other of [admin.id, victim.id, 2_000_000_000])
        expect((await get(`/users?user_id=${other}`, s.bearer)).body).toStrictEqual(FORBIDDEN_B);
      expect((await get("/users", s.bearer)).body).toStrictEqual(FORBIDDEN_B);
      const own = await get(`/users?user_id=${s.id}`, s.bearer);
      expect(own.status, own.text).toBe(200);
      expect(own.body.data).toMatchObject({ id: s.id, username: s.username });
    }
  });

  it("GET users: the administrator reads anyone by id, and a numeric-looking text names an id", async () => {
    for (const s of subscribers)
      expect((await get(`/users?user_id=${s.id}`, admin.bearer)).body.data.id).toBe(s.id);
    const byText = await get(`/users?user_id=${q("0001")}`, admin.bearer);
    expect(byText.body.data).toMatchObject({ id: admin.id, username: admin.username });
    expect((await get(`/users?user_id=${q(victim.username)}`, admin.bearer)).body.data.id).toBe(
      victim.id,
    );
  });

  it("GET user-wallet-balance, /multi and wallet-summary: its username is refused, its id reads its own balance", async () => {
    const permission = {
      "user-wallet-balance": "Permission Denied for get_rimplenet_wallets_balance",
      "user-wallet-balance/multi": "Permission Denied for get_rimplenet_wallets_balance",
      "wallet-summary": "Permission Denied for get_rimplenet_wallet_summary",
    };
    for (const [route, words] of Object.entries(permission))
      for (const s of subscribers) {
        for (const ref of [q(s.username), String(victim.id), String(admin.id), victim.username]) {
          const res = await get(`/${route}?user_id=${ref}&wallet_id=${wallet}`, s.bearer);
          expect(res.status, `${route} ${s.username} ${ref}`).toBe(403);
          expect(res.body.error.permission).toBe(words);
        }
        const own = await get(`/${route}?user_id=${s.id}&wallet_id=${wallet}`, s.bearer);
        expect(own.status, own.text).toBe(200);
        const record = Array.isArray(own.body.data) ? own.body.data[0] : own.body.data;
        expect(record.wallet_balance_raw).toBe(s.id);
      }
  });

  it("GET user-wallet-balance: the administrator reads anyone, by id or by username", async () => {
    for (const ref of [String(victim.id), victim.username]) {
      const res = await get(
        `/user-wallet-balance?user_id=${ref}&wallet_id=${wallet}`,
        admin.bearer,
      );
      expect(res.body.data.wallet_balance_raw, ref).toBe(victim.id);
    }
  });

  it("GET transactions: its own entries only, whatever user_id it searches for", async () => {
    for (const s of subscribers) {
      for (const value of ["1", "2", s.username.trim(), String(s.id)]) {
        const res = await get(
          `/transactions?meta_key=user_id&meta_value=${q(value)}&posts_per_page=100`,
          s.bearer,
        );
        expect(res.status).toBe(200);
        const owners = new Set(((res.body.data ?? []) as Json[]).map((r) => r.user_id));
        expect(
          [...owners].every((id) => id === s.id),
          `${s.username} ${value}`,
        ).toBe(true);
        // An empty page passes the check above: its own id must find its own credit.
        if (value === String(s.id)) expect([...owners], s.username).toEqual([s.id]);
      }
    }
    const all = await get(
      "/transactions?meta_key=user_id&meta_value=2&posts_per_page=100",
      admin.bearer,
    );
    expect((all.body.data as Json[]).some((r) => r.user_id === victim.id)).toBe(true);
  });

  it("POST credits, debits and transfers: refused, nothing written; the administrator's numeric text names an id", async () => {
    const before = await tableCounts();
    for (const s of subscribers) {
      const body = {
        user_id: s.username,
        wallet_id: wallet,
        amount: "1",
        request_id: unique("r").replaceAll("-", "_"),
      };
      expect((await post("/credits", body, s.bearer)).status).toBe(403);
      expect((await post("/debits", body, s.bearer)).status).toBe(403);
      const transfer = {
        transfer_from_user: victim.id,
        transfer_to_user: s.id,
        wallet_id: wallet,
        amount_to_transfer: "1",
      };
      const refused = await post("/transfers", transfer, s.bearer);
      expect([refused.status, refused.body.error]).toEqual([403, FORBIDDEN_B.error]);
    }
    // "0001", "1" and " 1" name the administrator: no one's balance moved, not only the victim's.
    expect(await tableCounts()).toEqual(before);
    const balance = async (id: number) =>
      (await get(`/user-wallet-balance?user_id=${id}&wallet_id=${wallet}`, admin.bearer)).body.data
        .wallet_balance_raw;
    expect(await balance(victim.id)).toBe(victim.id);

    const ok = await post(
      "/credits",
      {
        user_id: "0002",
        wallet_id: wallet,
        amount: "1",
        request_id: unique("r").replaceAll("-", "_"),
      },
      admin.bearer,
    );
    expect(ok.body.data).toEqual({ transaction_id: expect.any(Number), user_id: victim.id });
    const moved = await post(
      "/transfers",
      {
        transfer_from_user: "0002",
        transfer_to_user: subscribers[0]!.id,
        wallet_id: wallet,
        amount_to_transfer: "1",
      },
      admin.bearer,
    );
    expect(moved.status, moved.text).toBe(200);
    expect(await balance(victim.id)).toBe(victim.id);
  });

  it("GET credits, debits, transfers and wallets: refused to it, read by the administrator", async () => {
    for (const path of ["/credits", "/debits", "/transfers", "/wallets"]) {
      for (const s of subscribers) expect((await get(path, s.bearer)).status, path).toBe(403);
      expect((await get(path, admin.bearer)).status, path).toBe(200);
    }
  });

  it("GET verify-email-address answers every address alike, its own and another user's", async () => {
    const s = subscribers[0]!;
    const answers = await Promise.all(
      [s.email, victim.email, admin.email, "nobody@example.test"].map((email) =>
        get(`/verify-email-address?email_address=${q(email)}`, s.bearer),
      ),
    );
    expect(new Set(answers.map((r) => r.text)).size).toBe(1);
    expect(answers[0]!.body).toStrictEqual({
      status_code: 400,
      status: false,
      message: "Token Not Generated",
      error: { mail: false },
    });
  });
});
