// The sharding prototype (bench/do-writer/, docs/scaling.md): credits written by a Durable Object
// per user. It must answer as the D1 ledger does, byte for byte but for entry ids, and keep the
// same invariants inside each user's object: a request_id applies once, balance == sum of entries,
// a refused credit writes nothing. Runs in the "do-writer" vitest project (its worker exports the
// object's class).
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { ShardAudit } from "../bench/do-writer/ledger-shard";
import { shardLedger, shardOf } from "../bench/do-writer/shard-ledger";
import { MAX_MINOR } from "../src/ledger/money";
import {
  alreadyExists,
  call,
  type Json,
  makeAdmin,
  makeUser,
  makeWallet,
  type TestUser,
  tableCounts,
  testApp,
  unique,
} from "./helpers";

const shardApp = testApp({ ledger: shardLedger });
const d1App = testApp();

const creditVia = (app: typeof shardApp, admin: TestUser, body: Json) =>
  call("POST", "/credits", {
    app,
    auth: admin.bearer,
    body: { request_id: unique("req"), ...body },
  });

const audit = (userId: number): Promise<ShardAudit> => shardOf(env, userId).audit();

const balanceVia = async (
  app: typeof shardApp,
  admin: TestUser,
  userId: number,
  wallet: string,
) => {
  const res = await call("GET", "/user-wallet-balance", {
    app,
    auth: admin.bearer,
    query: { user_id: userId, wallet_id: wallet },
  });
  expect(res.status, res.text).toBe(200);
  return res.body.data[wallet] as number;
};

async function account() {
  const admin = await makeAdmin();
  const user = await makeUser();
  const wallet = await makeWallet(admin);
  return { admin, user, wallet };
}

describe("Durable Object ledger writer (prototype)", () => {
  it("applies a credit once under 50 concurrent duplicates; the others answer 409 naming it", async () => {
    const { admin, user, wallet } = await account();
    const body = { user_id: user.id, wallet_id: wallet, amount: "7.25", request_id: unique("dup") };
    const answers = await Promise.all(
      Array.from({ length: 50 }, () => creditVia(shardApp, admin, body)),
    );
    const ok = answers.filter((a) => a.status === 200);
    expect(ok).toHaveLength(1);
    const id = ok[0]!.body.data.transaction_id;
    for (const a of answers.filter((x) => x.status !== 200)) {
      expect(a.status).toBe(409);
      expect(a.body).toEqual(alreadyExists(id));
    }
    expect(await audit(user.id)).toEqual({
      wallets: [{ walletId: wallet, balanceMinor: 725, sumMinor: 725, entries: 1 }],
    });
    expect(await balanceVia(shardApp, admin, user.id, wallet)).toBe(7.25);
  });

  it("sums 120 distinct concurrent credits over two wallets exactly; balance == sum of entries", async () => {
    const { admin, user, wallet } = await account();
    const other = await makeWallet(admin);
    const amounts = Array.from({ length: 120 }, (_, i) => (i % 7) + 1 + (i % 3) / 100);
    const answers = await Promise.all(
      amounts.map((amount, i) =>
        creditVia(shardApp, admin, {
          user_id: user.id,
          wallet_id: i % 2 ? other : wallet,
          amount: amount.toFixed(2),
        }),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual(amounts.map(() => 200));
    expect(new Set(answers.map((a) => a.body.data.transaction_id)).size).toBe(120);
    const minor = (odd: number) =>
      amounts.reduce((n, a, i) => n + (i % 2 === odd ? Math.round(a * 100) : 0), 0);
    const { wallets } = await audit(user.id);
    expect(wallets.sort((a, b) => a.walletId.localeCompare(b.walletId))).toEqual(
      [
        { walletId: wallet, balanceMinor: minor(0), sumMinor: minor(0), entries: 60 },
        { walletId: other, balanceMinor: minor(1), sumMinor: minor(1), entries: 60 },
      ].sort((a, b) => a.walletId.localeCompare(b.walletId)),
    );
    expect(await balanceVia(shardApp, admin, user.id, wallet)).toBe(minor(0) / 100);
    expect(await balanceVia(shardApp, admin, user.id, other)).toBe(minor(1) / 100);
  });

  it("keeps each user's credits in that user's object", async () => {
    const { admin, user, wallet } = await account();
    const second = await makeUser();
    await creditVia(shardApp, admin, { user_id: user.id, wallet_id: wallet, amount: 3 });
    await creditVia(shardApp, admin, { user_id: second.id, wallet_id: wallet, amount: 4 });
    expect((await audit(user.id)).wallets).toEqual([
      { walletId: wallet, balanceMinor: 300, sumMinor: 300, entries: 1 },
    ]);
    expect((await audit(second.id)).wallets).toEqual([
      { walletId: wallet, balanceMinor: 400, sumMinor: 400, entries: 1 },
    ]);
  });

  it("refuses bad input, an unknown user or wallet, and a balance past the largest, writing nothing", async () => {
    const { admin, user, wallet } = await account();
    await creditVia(shardApp, admin, { user_id: user.id, wallet_id: wallet, amount: 10 });
    const before = { shard: await audit(user.id), d1: await tableCounts() };
    const refused = [
      { user_id: user.id, wallet_id: wallet, amount: "-1" },
      { user_id: user.id, wallet_id: wallet, amount: "1.005" },
      { user_id: user.id, wallet_id: wallet, amount: 0 },
      { user_id: user.id, wallet_id: "nowallet", amount: 1 },
      { user_id: 999_999_999, wallet_id: wallet, amount: 1 },
      { user_id: user.id, wallet_id: wallet, amount: 1, request_id: "" },
      { user_id: user.id, wallet_id: wallet, amount: (MAX_MINOR / 100).toFixed(2) },
    ];
    for (const body of refused) {
      const res = await creditVia(shardApp, admin, body);
      expect([400, 404], `${JSON.stringify(body)}: ${res.text}`).toContain(res.status);
    }
    expect(await audit(user.id)).toEqual(before.shard);
    expect(await tableCounts()).toEqual(before.d1);
    expect(await balanceVia(shardApp, admin, user.id, wallet)).toBe(10);
  });

  it("answers every credit and balance read byte for byte as the D1 ledger does, but for entry ids", async () => {
    const { admin, user, wallet } = await account();
    const dUser = await makeUser(); // the D1 twin: the same requests, written to D1
    const cases: Json[] = [
      { wallet_id: wallet, amount: 1500, request_id: "Order-1" },
      { wallet_id: wallet, amount: 99, request_id: "order-1" }, // a duplicate: 409
      { wallet_id: wallet, amount: "-1", request_id: "bad" },
      { wallet_id: wallet, amount: (MAX_MINOR / 100).toFixed(2), request_id: "too-much" },
      { wallet_id: "nowallet", amount: 1, request_id: "x" },
    ];
    const ids = new Map<number, number>(); // shard id -> D1 id
    for (const body of cases) {
      const viaShard = await creditVia(shardApp, admin, { ...body, user_id: user.id });
      const viaD1 = await creditVia(d1App, admin, { ...body, user_id: dUser.id });
      expect(viaShard.status, viaShard.text).toBe(viaD1.status);
      const shardId = viaShard.body.data?.transaction_id ?? viaShard.body.error?.txn_id;
      const d1Id = viaD1.body.data?.transaction_id ?? viaD1.body.error?.txn_id;
      if (shardId !== undefined) ids.set(Number(shardId), Number(d1Id));
      const normalized = viaShard.text
        .replaceAll(`"user_id":${user.id}`, `"user_id":${dUser.id}`)
        .replace(/"(transaction_id|txn_id)":"?(\d+)/, (m, _k, n) =>
          m.replace(n, String(ids.get(Number(n)))),
        );
      expect(normalized).toBe(viaD1.text);
    }
    const read = (app: typeof shardApp, userId: number) =>
      call("GET", "/user-wallet-balance", {
        app,
        auth: admin.bearer,
        query: { user_id: userId, wallet_id: wallet, formatted: "yes" },
      });
    expect((await read(shardApp, user.id)).text).toBe((await read(d1App, dUser.id)).text);
  });
});
