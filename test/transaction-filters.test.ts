// A page of a user's transactions is read along a named index in its order, (user, date, id) or
// for one wallet (user, wallet, date, id) (src/db/ledger.ts entriesByDate, INDEXED BY): one
// statement per filter shape and order. Every shape is sent here, page by page, and answers the
// entries its filter selects, in the order asked for, with their total.
import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import {
  call,
  importedEntry,
  type Json,
  makeAdmin,
  makeUser,
  makeWallet,
  type TestUser,
} from "./helpers";

let admin: TestUser;
let userId: number;
let wallets: string[];
type Stored = { id: number; wallet_id: string; txn_type: string; created_at_s: number };
let stored: Stored[];
const BASE_S = Math.floor(Date.now() / 1000) - 100_000;

beforeAll(async () => {
  admin = await makeAdmin();
  userId = (await makeUser()).id;
  wallets = [await makeWallet(admin), await makeWallet(admin)];
  // Credits and debits in two wallets, several to a second (ties broken by id), in date order.
  const balance = new Map(wallets.map((w) => [w, 0]));
  for (let i = 0; i < 24; i++) {
    const wallet = wallets[i % 3 === 0 ? 1 : 0]!;
    const before = balance.get(wallet)!;
    const type = i % 4 === 3 && before > 0 ? "DEBIT" : "CREDIT";
    await importedEntry(userId, wallet, type, 1, "0.01", before, BASE_S + Math.floor(i / 3) * 10);
    balance.set(wallet, before + (type === "CREDIT" ? 1 : -1));
  }
  stored = (
    await env.DB.prepare(
      "SELECT id, wallet_id, txn_type, created_at_s FROM transactions WHERE user_id = ?",
    )
      .bind(userId)
      .all<Stored>()
  ).results;
});

const iso = (s: number) => new Date(s * 1000).toISOString();

describe("GET /transactions along its date-ordered index, INDEXED BY", () => {
  it("answers every filter shape, in either order, page by page, as the filter selects", async () => {
    const after = BASE_S + 20; // each an entry's second: both bounds exclusive
    const before = BASE_S + 60;
    const shapes: Json[] = [];
    for (const wallet of [undefined, wallets[0]])
      for (const type of [undefined, "CREDIT", "DEBIT"])
        for (const from of [undefined, after])
          for (const to of [undefined, before])
            for (const order of ["asc", "desc"]) shapes.push({ wallet, type, from, to, order });
    expect(shapes).toHaveLength(48);
    for (const { wallet, type, from, to, order } of shapes) {
      const expected = stored
        .filter(
          (e) =>
            (wallet === undefined || e.wallet_id === wallet) &&
            (type === undefined || e.txn_type === type) &&
            (from === undefined || e.created_at_s > from) &&
            (to === undefined || e.created_at_s < to),
        )
        .sort((a, b) => a.created_at_s - b.created_at_s || a.id - b.id)
        .map((e) => e.id);
      if (order === "desc") expected.reverse();
      const query: Record<string, string | number> = {
        user_id: userId,
        security_code: 0,
        order,
        per_page: 4,
      };
      if (wallet !== undefined) query.wallet_id = wallet;
      if (type !== undefined) query.txn_type = type;
      if (from !== undefined) query.after = iso(from);
      if (to !== undefined) query.before = iso(to);
      const seen: number[] = [];
      for (let page = 1; page <= Math.ceil(expected.length / 4) + 1; page++) {
        const res = await call("GET", "/transactions", {
          auth: admin.bearer,
          query: { ...query, page },
        });
        expect(res.status, `${JSON.stringify(query)} ${res.text}`).toBe(200);
        expect(res.headers.get("X-WP-Total")).toBe(String(expected.length));
        seen.push(...(res.body.data as Json[]).map((r) => Number(r.ID)));
      }
      expect(seen, JSON.stringify(query)).toEqual(expected);
    }
  });
});
