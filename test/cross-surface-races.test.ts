// The same money moved through the three surfaces at once (wallet/v1, the plugin dialect, the
// console): each race has one outcome, every loser a documented refusal (never a 5xx), the ledger
// stays sound and each write has exactly one event.
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { hashApiKey } from "../src/auth/api-keys";
import { compatCall, ON } from "./compat-helpers";
import { consoleOf, form, hidden, noticeLeft } from "./console-helpers";
import { wrappedD1 } from "./d1-counter";
import {
  appAt,
  arrivingBeforeWrite,
  call,
  credit,
  type Json,
  MAX_AMOUNT,
  makeAdmin,
  makeKey,
  makeUser,
  makeWallet,
  type TestUser,
  unique,
} from "./helpers";
import { NS, type Sent, senders, signedInAdmin, sound } from "./surfaces";

let admin: TestUser;
let wallet: string;
const con = consoleOf();
let cookie: string;
let csrf: string;

beforeAll(async () => {
  ({ admin, wallet, cookie, csrf } = await signedInAdmin(con));
});

const plugin = (method: string, path: string, body?: Json, auth = admin.bearer) =>
  compatCall(method, `${NS}/${path}`, {
    headers: { Authorization: auth, "Content-Type": "application/json" },
    body: body && JSON.stringify(body),
    vars: ON,
  });

const { v1, pl, cs } = senders(() => ({ admin, con, cookie, csrf }));

const entries = async (userId: number) =>
  (
    await env.DB.prepare(
      "SELECT id, txn_type, amount_minor, request_id FROM transactions WHERE user_id = ?",
    )
      .bind(userId)
      .all<Json>()
  ).results;

const statuses = (rs: { status: number }[]) => rs.map((r) => r.status).sort();

/** A write naming user `u` (and `v`, the other end of a transfer) in wallet `w`. */
type Surface = (d1: D1Database, u: TestUser, v: TestUser, w: string) => Promise<Sent>;
const entry = (u: TestUser, w: string) => ({
  user_id: u.id,
  wallet_id: w,
  amount: "1.00",
  request_id: unique("k"),
});
const v1Transfer = (from: TestUser, to: TestUser, w: string) => ({
  from_user_id: from.id,
  to_user_id: to.id,
  wallet_id: w,
  amount: "1.00",
  request_id: unique("k"),
});
const plTransfer = (from: TestUser, to: TestUser, w: string) => ({
  transfer_from_user: from.id,
  transfer_to_user: to.id,
  wallet_id: w,
  amount_to_transfer: "1",
  request_id: unique("k"),
});
const csTransfer = (to: TestUser, w: string) => ({
  to_user_id: to.id,
  wallet_id: w,
  amount: "1.00",
  request_id: unique("k"),
});
const SURFACES: Record<string, Surface> = {
  "v1 credit": (d1, u, _v, w) => v1("/credits", entry(u, w))(d1),
  "v1 debit": (d1, u, _v, w) => v1("/debits", entry(u, w))(d1),
  "v1 hold": (d1, u, _v, w) => v1("/holds", entry(u, w))(d1),
  "v1 transfer to": (d1, u, v, w) => v1("/transfers", v1Transfer(v, u, w))(d1),
  "v1 transfer from": (d1, u, v, w) => v1("/transfers", v1Transfer(u, v, w))(d1),
  "v1 batch": (d1, u, v, w) =>
    v1("/batches", {
      request_id: unique("b"),
      operations: [
        { type: "debit", user_id: v.id, wallet_id: w, amount: "1.00" },
        { type: "credit", user_id: u.id, wallet_id: w, amount: "1.00" },
      ],
    })(d1),
  "plugin credit": (d1, u, _v, w) => pl("credits", entry(u, w))(d1),
  "plugin debit": (d1, u, _v, w) => pl("debits", entry(u, w))(d1),
  "plugin transfer to": (d1, u, v, w) => pl("transfers", plTransfer(v, u, w))(d1),
  "plugin transfer from": (d1, u, v, w) => pl("transfers", plTransfer(u, v, w))(d1),
  "console credit": (d1, u, _v, w) => cs(`/users/${u.id}/credit`, entry(u, w))(d1),
  "console debit": (d1, u, _v, w) => cs(`/users/${u.id}/debit`, entry(u, w))(d1),
  "console transfer to": (d1, u, v, w) => cs(`/users/${v.id}/transfer`, csTransfer(u, w))(d1),
};

/** The documented answer to a write naming a user or wallet that is gone (docs/compat.md, "Races"). */
function expectGone(name: string, what: "user" | "wallet", res: Sent) {
  const [surface, verb] = name.split(" ");
  if (surface === "console")
    return expect(res.text).toMatch(
      what === "user" ? /^error:.* refused\. No user \d+\.$/ : /^error:.*wallet_id not found$/,
    );
  if (surface === "v1") {
    if (what === "user")
      return expect([res.status, JSON.parse(res.text).message]).toEqual([
        404,
        "Invalid User credentials",
      ]);
    return expect([res.status, res.text]).toEqual([
      400,
      expect.stringContaining("wallet_id not found"),
    ]);
  }
  const body = JSON.parse(res.text);
  if (verb === "transfer")
    return what === "user"
      ? expect([res.status, body.message]).toEqual([
          400,
          expect.stringMatching(/^Unable to reach \d+$/),
        ])
      : expect([res.status, body.message]).toEqual([404, "Invalid Wallet"]);
  return what === "user"
    ? expect([res.status, body.message]).toEqual([404, "Invalid User credentials"])
    : expect([res.status, body]).toEqual([400, { status_code: 400, status: false, message: "" }]);
}

describe("a user or wallet deleted (plugin DELETE) just before a write through each surface", () => {
  for (const [name, surface] of Object.entries(SURFACES))
    for (const what of ["user", "wallet"] as const)
      it(`${name} / its ${what} deleted`, async () => {
        const u = await makeUser();
        const v = await makeUser();
        const w = await makeWallet(admin);
        if (what === "user") await credit(admin, { user_id: v.id, wallet_id: w, amount: "10" });
        const d1 = arrivingBeforeWrite(async () => {
          const del =
            what === "user"
              ? await plugin("DELETE", `users/${u.id}`)
              : await plugin("DELETE", `wallets/${w}`);
          expect(del.status, del.text).toBe(200);
        });
        const res = await surface(d1, u, v, w);
        expectGone(name, what, res);
        expect(res.status, res.text).toBeLessThan(500);
        await sound([u.id, v.id]);
        const es = await entries(u.id);
        const gone =
          (await env.DB.prepare("SELECT count(*) n FROM users WHERE id = ?")
            .bind(u.id)
            .first<number>("n")) === 0;
        if (gone) expect(es).toHaveLength(0);
        const wGone =
          (await env.DB.prepare("SELECT count(*) n FROM wallets WHERE id = ?")
            .bind(w)
            .first<number>("n")) === 0;
        if (wGone)
          expect(
            await env.DB.prepare("SELECT count(*) n FROM transactions WHERE wallet_id = ?")
              .bind(w)
              .first<number>("n"),
          ).toBe(0);
      });
});

/** A write under the request_id `key`, naming user `u` (a transfer's sender) and `v`. */
type Keyed = (d1: D1Database, u: TestUser, v: TestUser, w: string, key: string) => Promise<Sent>;
const KEYED: Record<string, Keyed> = {
  "v1 credit": (d1, u, _v, w, key) =>
    v1("/credits", { user_id: u.id, wallet_id: w, amount: "1.00", request_id: key })(d1),
  "v1 debit": (d1, u, _v, w, key) =>
    v1("/debits", { user_id: u.id, wallet_id: w, amount: "1.00", request_id: key })(d1),
  "v1 hold": (d1, u, _v, w, key) =>
    v1("/holds", { user_id: u.id, wallet_id: w, amount: "1.00", request_id: key })(d1),
  "v1 transfer": (d1, u, v, w, key) =>
    v1("/transfers", {
      from_user_id: u.id,
      to_user_id: v.id,
      wallet_id: w,
      amount: "1.00",
      request_id: key,
    })(d1),
  "plugin credit": (d1, u, _v, w, key) =>
    pl("credits", { user_id: u.id, wallet_id: w, amount: "1.00", request_id: key })(d1),
  "plugin debit": (d1, u, _v, w, key) =>
    pl("debits", { user_id: u.id, wallet_id: w, amount: "1.00", request_id: key })(d1),
  "plugin transfer": (d1, u, v, w, key) =>
    pl("transfers", {
      transfer_from_user: u.id,
      transfer_to_user: v.id,
      wallet_id: w,
      amount_to_transfer: "1",
      request_id: key,
    })(d1),
  "console credit": (d1, u, _v, w, key) =>
    cs(`/users/${u.id}/credit`, { wallet_id: w, amount: "1.00", request_id: key })(d1),
  "console debit": (d1, u, _v, w, key) =>
    cs(`/users/${u.id}/debit`, { wallet_id: w, amount: "2.00", request_id: key })(d1),
  "console transfer": (d1, u, v, w, key) =>
    cs(`/users/${u.id}/transfer`, {
      to_user_id: v.id,
      wallet_id: w,
      amount: "1.00",
      request_id: key,
    })(d1),
};

describe("the same request_id (letters folded) taken through another surface just before a write", () => {
  const names = Object.keys(KEYED);
  for (const a of names)
    for (const b of names) {
      if (a.split(" ")[0] === b.split(" ")[0]) continue;
      it(`${a} / ${b}`, async () => {
        const u = await makeUser();
        const v = await makeUser();
        await credit(admin, { user_id: u.id, wallet_id: wallet, amount: "10" });
        const key = unique("k");
        let bRes: Sent | undefined;
        const d1 = arrivingBeforeWrite(async () => {
          bRes = await KEYED[b]!(env.DB, u, v, wallet, key.toUpperCase());
        });
        const aRes = await KEYED[a]!(d1, u, v, wallet, key);
        // The loser: 409 naming what holds the key, or the console's words for it ("Already done"
        // only where the entry holding it is the very movement the form asks for).
        if (a.startsWith("console"))
          expect(aRes.text).toMatch(
            /^ok:Already done|^error:\w+ refused\. Transaction already exists: (txn|hold)_id \d+/,
          );
        else
          expect([aRes.status, JSON.parse(aRes.text).message]).toEqual([
            409,
            "Transaction already exists",
          ]);
        expect(aRes.status, aRes.text).toBeLessThan(500);
        expect(bRes!.status, bRes!.text).toBeLessThan(400);
        const es = await entries(u.id);
        const hs = await env.DB.prepare("SELECT count(*) n FROM holds WHERE user_id = ?")
          .bind(u.id)
          .first<number>("n");
        expect(es.length - 1 + hs!, JSON.stringify(es)).toBe(1);
        await sound([u.id, v.id]);
      });
    }
});

describe("an administrator demoted", () => {
  it("keeps no administrator rights past the documented bounds, on any surface", async () => {
    const a = await makeAdmin();
    const u = await makeUser();
    const { header } = await makeKey(a, "read-write");
    let t = Date.now();
    const creditAt = (ms: number, auth: string) =>
      call("POST", "/credits", {
        app: appAt(ms),
        auth,
        body: { user_id: u.id, wallet_id: wallet, amount: "1.00", request_id: unique("k") },
      });
    expect((await creditAt(t, a.bearer)).status).toBe(200);
    expect((await creditAt(t, header)).status).toBe(200);
    // No route demotes: an operator's UPDATE. Tokens follow within 5 s, keys within 30 s.
    await env.DB.prepare("UPDATE users SET role = 'subscriber' WHERE id = ?").bind(a.id).run();
    expect((await creditAt(t + 6_000, a.bearer)).status).toBe(403);
    t += 31_000;
    const tok = await creditAt(t, a.bearer);
    const key = await creditAt(t, header);
    const pluginRes = await compatCall("POST", `${NS}/credits`, {
      headers: { Authorization: a.bearer, "Content-Type": "application/json" },
      body: JSON.stringify({
        user_id: u.id,
        wallet_id: wallet,
        amount: "1.00",
        request_id: unique("k"),
      }),
      vars: ON,
    });
    expect(
      [tok.status, key.status, pluginRes.status],
      `${tok.text}\n${key.text}\n${pluginRes.text}`,
    ).toEqual([403, 403, 403]);
  });
});

describe("deletions racing each other", () => {
  it("a user deleted twice at once: one 200, one 404, one user.deleted event", async () => {
    const u = await makeUser();
    const rs = await Promise.all(
      Array.from({ length: 6 }, () => plugin("DELETE", `users/${u.id}`)),
    );
    expect(statuses(rs), rs.map((r) => r.text).join("\n")).toEqual([200, 404, 404, 404, 404, 404]);
    const n = await env.DB.prepare(
      "SELECT count(*) n FROM events WHERE type = 'user.deleted' AND subject = ?",
    )
      .bind(String(u.id))
      .first<number>("n");
    expect(n).toBe(1);
  });
  it("a wallet deleted twice at once: one 200, the rest 400, one wallet.deleted event", async () => {
    const w = await makeWallet(admin);
    const rs = await Promise.all(Array.from({ length: 6 }, () => plugin("DELETE", `wallets/${w}`)));
    expect(statuses(rs), rs.map((r) => r.text).join("\n")).toEqual([200, 400, 400, 400, 400, 400]);
    const n = await env.DB.prepare(
      "SELECT count(*) n FROM events WHERE type = 'wallet.deleted' AND subject = ?",
    )
      .bind(w)
      .first<number>("n");
    expect(n).toBe(1);
  });
});

describe("credits of three surfaces group-committed together", () => {
  it("a credit past the largest balance refuses only itself, in its own dialect's words", async () => {
    const w = await makeWallet(admin, { decimals: 0 });
    const u = await makeUser();
    expect(
      (await credit(admin, { user_id: u.id, wallet_id: w, amount: String(MAX_AMOUNT - 30) }))
        .status,
    ).toBe(200);
    const jobs: Promise<Sent>[] = [];
    for (let i = 0; i < 8; i++)
      jobs.push(
        v1("/credits", { user_id: u.id, wallet_id: w, amount: "1", request_id: unique("c") })(
          env.DB,
        ),
        pl("credits", { user_id: u.id, wallet_id: w, amount: "1", request_id: unique("c") })(
          env.DB,
        ),
        cs(`/users/${u.id}/credit`, { wallet_id: w, amount: "1", request_id: unique("c") })(env.DB),
      );
    jobs.splice(
      5,
      0,
      pl("credits", { user_id: u.id, wallet_id: w, amount: "20", request_id: unique("c") })(env.DB),
    );
    jobs.splice(
      9,
      0,
      v1("/credits", { user_id: u.id, wallet_id: w, amount: "20", request_id: unique("c") })(
        env.DB,
      ),
    );
    const rs = await Promise.all(jobs);
    // Only the 20s can pass the largest balance; each refused one says so, in its dialect's words.
    for (const r of rs)
      if (r.status !== 200 && !r.text.startsWith("ok:"))
        expect(r.text).toMatch(/past the largest balance|^error:Credit refused\./);
    const b = await env.DB.prepare(
      "SELECT balance_minor FROM balances WHERE user_id = ? AND wallet_id = ?",
    )
      .bind(u.id, w)
      .first<number>("balance_minor");
    expect(b).toBeLessThanOrEqual(MAX_AMOUNT);
    const okCount = rs.filter((r) => r.status === 200 || r.text.startsWith("ok:")).length;
    const es = await entries(u.id);
    expect(es.length - 1, rs.map((r) => `${r.status} ${r.text.slice(0, 160)}`).join("\n")).toBe(
      okCount,
    );
    await sound([u.id]);
  });
});

describe("a batch and a hold resolved through two surfaces at once", () => {
  it("a batch reversed through the console, wallet/v1 and one entry's reversal at once", async () => {
    const u = await makeUser();
    const v = await makeUser();
    const b = await call("POST", "/batches", {
      auth: admin.bearer,
      body: {
        request_id: unique("b"),
        operations: [
          { type: "credit", user_id: u.id, wallet_id: wallet, amount: "5.00" },
          { type: "credit", user_id: v.id, wallet_id: wallet, amount: "5.00" },
        ],
      },
    });
    expect(b.status, b.text).toBe(200);
    const { batch_id: id, transaction_ids: ids } = b.body.data;
    const rs = await Promise.all([
      cs(`/batches/${id}/reverse`, { note: "" })(env.DB),
      v1(`/batches/${id}/reverse`, {})(env.DB),
      v1(`/transactions/${ids[1]}/reverse`, { request_id: unique("r") })(env.DB),
      cs(`/batches/${id}/reverse`, { note: "" })(env.DB),
      v1(`/batches/${id}/reverse`, {})(env.DB),
    ]);
    const wins = rs.filter((r) => r.status === 200 || r.text.startsWith("ok:"));
    expect(wins.length, rs.map((r) => `${r.status} ${r.text.slice(0, 200)}`).join("\n")).toBe(1);
    for (const r of rs) expect(r.status).toBeLessThan(500);
    await sound([u.id, v.id]);
  });

  it("a hold captured and voided through the console and wallet/v1 at once", async () => {
    for (let round = 0; round < 4; round++) {
      const u = await makeUser();
      await credit(admin, { user_id: u.id, wallet_id: wallet, amount: "10" });
      const h = await call("POST", "/holds", {
        auth: admin.bearer,
        body: { user_id: u.id, wallet_id: wallet, amount: "4.00", request_id: unique("h") },
      });
      const hid = h.body.data.hold_id;
      const jobs = [
        cs(`/users/${u.id}/holds/${hid}/capture`, { amount: "3" })(env.DB),
        v1(`/holds/${hid}/capture`, {})(env.DB),
        cs(`/users/${u.id}/holds/${hid}/void`, {})(env.DB),
        v1(`/holds/${hid}/void`, {})(env.DB),
        v1(`/holds/${hid}/capture`, { amount: "1" })(env.DB),
      ];
      const order = [...jobs.slice(round), ...jobs.slice(0, round)];
      const rs = await Promise.all(order);
      const wins = rs.filter((r) => r.status === 200 || r.text.startsWith("ok:"));
      expect(wins.length, rs.map((r) => `${r.status} ${r.text.slice(0, 200)}`).join("\n")).toBe(1);
      for (const r of rs) expect(r.status).toBeLessThan(500);
      const ev = await env.DB.prepare(
        "SELECT type FROM events WHERE type LIKE 'hold.%' AND subject = ?",
      )
        .bind(String(hid))
        .all<Json>();
      expect(ev.results.map((e) => e.type).sort()).toHaveLength(2);
      await sound([u.id]);
    }
  });
});

describe("one account created through three surfaces at once", () => {
  it("same username, crossed username and e-mail: one account, the others refused as taken", async () => {
    for (let round = 0; round < 3; round++) {
      const name = unique("acct").toLowerCase();
      const other = unique("acct").toLowerCase();
      const email = `${name}@example.test`;
      const rs = await Promise.all([
        v1("/users", {
          username: name,
          user_email: `${other}@example.test`,
          user_password: "secret123",
        })(env.DB),
        pl("users", { username: other, user_email: email, user_password: "secret123" })(env.DB),
        cs("/users", {
          username: email.toUpperCase(),
          user_email: email.toUpperCase(),
          user_password: "secret123",
        })(env.DB),
        v1("/users", {
          username: name.toUpperCase(),
          user_email: `x${other}@example.test`,
          user_password: "secret123",
        })(env.DB),
      ]);
      for (const r of rs) expect(r.status, r.text).toBeLessThan(500);
      const rows = await env.DB.prepare(
        "SELECT id, username, email FROM users WHERE lower(username) IN (?, ?, ?) OR lower(email) IN (?, ?, ?)",
      )
        .bind(name, other, email, `${other}@example.test`, email, `x${other}@example.test`)
        .all<Json>();
      // No two accounts whose names collide.
      const names = rows.results.flatMap((r) => [
        String(r.username).toLowerCase(),
        String(r.email).toLowerCase(),
      ]);
      expect(
        new Set(names).size,
        JSON.stringify(rows.results) + rs.map((r) => r.text.slice(0, 200)).join("\n"),
      ).toBe(
        names.length -
          rows.results.filter(
            (r) => String(r.username).toLowerCase() === String(r.email).toLowerCase(),
          ).length,
      );
    }
  });
});

describe("an administrator deleted through the plugin", () => {
  it("its console session, token and key stop at once in this isolate", async () => {
    const b = await makeAdmin();
    const u = await makeUser();
    const { header } = await makeKey(b, "read-write");
    const bCookie = await con.signIn(b);
    const bCsrf = hidden((await con.request("/", { cookie: bCookie })).html, "_csrf");
    // Used once, so each is cached.
    expect(
      (
        await v1("/credits", {
          user_id: u.id,
          wallet_id: wallet,
          amount: "1.00",
          request_id: unique("c"),
        })(env.DB)
      ).status,
    ).toBe(200);
    const viaKey = () =>
      call("POST", "/credits", {
        auth: header,
        body: { user_id: u.id, wallet_id: wallet, amount: "1.00", request_id: unique("c") },
      });
    const viaToken = () =>
      call("POST", "/credits", {
        auth: b.bearer,
        body: { user_id: u.id, wallet_id: wallet, amount: "1.00", request_id: unique("c") },
      });
    const viaConsole = () =>
      con.request(`/users/${u.id}/credit`, {
        method: "POST",
        cookie: bCookie,
        body: form({
          _csrf: bCsrf,
          wallet_id: wallet,
          amount: "1.00",
          request_id: unique("c"),
          step: "confirm",
        }),
      });
    expect((await viaKey()).status).toBe(200);
    expect((await viaToken()).status).toBe(200);
    expect(noticeLeft(await viaConsole())).toMatch(/^ok:/);
    const before = (await entries(u.id)).length;
    const del = await plugin("DELETE", `users/${b.id}`);
    expect(del.status, del.text).toBe(200);
    const k = await viaKey();
    const t = await viaToken();
    const c = await viaConsole();
    expect([k.status, t.status], `${k.text}\n${t.text}`).toEqual([401, 401]);
    expect(c.headers.get("location")).toBe("/wallet-admin/sign-in");
    expect((await entries(u.id)).length).toBe(before);
    const pk = await compatCall("POST", `${NS}/credits`, {
      headers: { Authorization: header, "Content-Type": "application/json" },
      body: JSON.stringify({
        user_id: u.id,
        wallet_id: wallet,
        amount: "1.00",
        request_id: unique("k"),
      }),
      vars: ON,
    });
    expect(pk.status, pk.text).toBe(401);
  });
});

describe("a user deleted just before a group-committed batch holding its credit", () => {
  it("refuses that credit only; the others are written once", async () => {
    const users = await Promise.all(Array.from({ length: 6 }, () => makeUser()));
    const gone = users[2]!;
    let deletion: Sent | undefined;
    const d1 = arrivingBeforeWrite(async () => {
      deletion = await plugin("DELETE", `users/${gone.id}`);
    });
    const rs = await Promise.all(
      users.flatMap((u, i) => [
        v1("/credits", {
          user_id: u.id,
          wallet_id: wallet,
          amount: "1.00",
          request_id: unique("c"),
        })(d1),
        pl("credits", {
          user_id: u.id,
          wallet_id: wallet,
          amount: "1.00",
          request_id: unique("c"),
        })(d1),
        ...(i % 2
          ? [
              cs(`/users/${u.id}/credit`, {
                wallet_id: wallet,
                amount: "1.00",
                request_id: unique("c"),
              })(d1),
            ]
          : []),
      ]),
    );
    const log = `${deletion?.status} ${deletion?.text}\n${rs.map((r) => `${r.status} ${r.text.slice(0, 160)}`).join("\n")}`;
    for (const r of rs) expect(r.status, log).toBeLessThan(500);
    const exists = await env.DB.prepare("SELECT count(*) n FROM users WHERE id = ?")
      .bind(gone.id)
      .first<number>("n");
    const okCount = rs.filter((r) => r.status === 200 || r.text.startsWith("ok:")).length;
    let written = 0;
    for (const u of users) written += (await entries(u.id)).length;
    expect(written, log).toBe(okCount);
    if (exists === 0) expect(await entries(gone.id)).toHaveLength(0);
    expect(deletion, log).toBeDefined();
    await sound(users.map((u) => u.id));
  });
});

describe("a user or wallet deleted by another isolate (this one still holds it)", () => {
  for (const [name, surface] of Object.entries(SURFACES))
    for (const what of ["user", "wallet"] as const)
      it(`${name} / its ${what} deleted elsewhere`, async () => {
        const u = await makeUser();
        const v = await makeUser();
        const w = await makeWallet(admin);
        const other = await makeWallet(admin);
        if (what === "user") await credit(admin, { user_id: v.id, wallet_id: w, amount: "10" });
        else await credit(admin, { user_id: v.id, wallet_id: other, amount: "10" });
        // This isolate learns the wallet and both usernames.
        await call("GET", `/wallets/${w}`, { auth: admin.bearer });
        await call("GET", "/balances", { auth: admin.bearer, query: { user_id: u.id } });
        await surface(env.DB, await makeUser(), v, other);
        // Another isolate (its own binding: its own cache) deletes.
        const elsewhere = wrappedD1((_s, send) => send());
        const del = await compatCall(
          "DELETE",
          `${NS}/${what === "user" ? `users/${u.id}` : `wallets/${w}`}`,
          {
            headers: { Authorization: admin.bearer },
            vars: { ...ON, DB: elsewhere } as never,
          },
        );
        const res = await surface(env.DB, u, v, w);
        expect(del.status, del.text).toBe(200);
        expectGone(name, what, res);
        expect(res.status, res.text).toBeLessThan(500);
        await sound([u.id, v.id]);
      });
});

/** env.DB on which the first batch commits and then is reported lost. */
function losingFirstCommit() {
  let lost = false;
  return wrappedD1(async (_s, send) => {
    const r = await send();
    if (!lost) {
      lost = true;
      throw new Error("D1_ERROR: Network connection lost.");
    }
    return r;
  });
}

describe("a write whose commit D1 reported lost, through each surface", () => {
  for (const [name, surface] of Object.entries(KEYED))
    it(name, async () => {
      const u = await makeUser();
      const v = await makeUser();
      await credit(admin, { user_id: u.id, wallet_id: wallet, amount: "10" });
      const before = (await entries(u.id)).length + (await entries(v.id)).length;
      const res = await surface(losingFirstCommit(), u, v, wallet, unique("k"));
      const after = (await entries(u.id)).length + (await entries(v.id)).length;
      // Its outcome unknown: 503, retry with the same request_id (the console keeps the form's key).
      if (name.startsWith("console"))
        expect(res.text).toMatch(/^error:\w+ refused\. Service temporarily unavailable/);
      else expect(res.status, res.text).toBe(503);
      expect(after - before).toBe(name.includes("hold") ? 0 : name.includes("transfer") ? 2 : 1);
      expect(res.status, res.text).not.toBe(500);
      await sound([u.id, v.id]);
    });
  it("plugin transfer without request_id", async () => {
    const u = await makeUser();
    const v = await makeUser();
    await credit(admin, { user_id: u.id, wallet_id: wallet, amount: "10" });
    const body = {
      transfer_from_user: u.id,
      transfer_to_user: v.id,
      wallet_id: wallet,
      amount_to_transfer: "1",
    };
    const rs = await Promise.all([
      pl("transfers", body)(losingFirstCommit()),
      pl("transfers", body)(env.DB),
      pl("transfers", body)(env.DB),
    ]);
    // No key to retry with: the lost one is looked up and answered as made.
    expect(rs.map((r) => r.status)).toEqual([200, 200, 200]);
    expect(await entries(u.id)).toHaveLength(4);
    await sound([u.id, v.id]);
  });
});

describe("an API key revoked through the console while its batch is in flight", () => {
  it("the batch is written whole or not at all; the key's next request is refused at once", async () => {
    const u = await makeUser();
    const v = await makeUser();
    await credit(admin, { user_id: u.id, wallet_id: wallet, amount: "10" });
    const { key, header } = await makeKey(admin, "read-write");
    const id = await env.DB.prepare("SELECT id FROM api_keys WHERE key_hash = ?")
      .bind(hashApiKey(key))
      .first<number>("id");
    let revoked: Sent | undefined;
    const d1 = arrivingBeforeWrite(async () => {
      revoked = await cs(`/api-keys/${id}/revoke`, {})(env.DB);
    });
    const body = {
      request_id: unique("b"),
      operations: [
        { type: "debit", user_id: u.id, wallet_id: wallet, amount: "3.00" },
        { type: "credit", user_id: v.id, wallet_id: wallet, amount: "3.00" },
      ],
    };
    const res = await call("POST", "/batches", { auth: header, d1, body });
    expect(revoked?.text).toMatch(/^ok:/);
    expect([200, 401]).toContain(res.status);
    const n = (await entries(u.id)).length + (await entries(v.id)).length;
    expect(n).toBe(res.status === 200 ? 3 : 1);
    const again = await call("POST", "/batches", {
      auth: header,
      body: { ...body, request_id: unique("b") },
    });
    expect(again.status).toBe(401);
    const plug = await compatCall("POST", `${NS}/debits`, {
      headers: { Authorization: header, "Content-Type": "application/json" },
      body: JSON.stringify({
        user_id: u.id,
        wallet_id: wallet,
        amount: "1.00",
        request_id: unique("k"),
      }),
      vars: ON,
    });
    expect(plug.status).toBe(401);
    await sound([u.id, v.id]);
  });
});

describe("a console form whose write D1 reported lost, sent again", () => {
  for (const action of ["credit", "debit", "transfer"] as const)
    it(`${action}: "Already done", the money moved once`, async () => {
      const u = await makeUser();
      const v = await makeUser();
      await credit(admin, { user_id: u.id, wallet_id: wallet, amount: "10" });
      const key = unique("k");
      const fields = {
        wallet_id: wallet,
        amount: "1.00",
        request_id: key,
        ...(action === "transfer" ? { to_user_id: v.id } : {}),
      };
      const first = await cs(`/users/${u.id}/${action}`, fields)(losingFirstCommit());
      const n = (await entries(u.id)).length;
      const again = await con.request(`/users/${u.id}/${action}`, {
        method: "POST",
        cookie,
        body: form({ _csrf: csrf, ...fields }),
      });
      let notice = noticeLeft(again);
      let page = "";
      if (!notice && again.headers.get("location")) {
        const next = await con.request(
          again.headers.get("location")!.replace("/wallet-admin", ""),
          { cookie },
        );
        page = next.html;
        notice = noticeLeft(next) || next.headers.get("location") || "";
      }
      expect(
        { first: first.text, notice, n: (await entries(u.id)).length },
        page.slice(0, 3000),
      ).toEqual({ first: first.text, notice: expect.stringMatching(/Already done/), n });
    });
});
