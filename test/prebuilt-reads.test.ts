// The hot reads (one entry, a page of a history) run SQL text Drizzle built once per isolate per
// shape (src/db/prebuilt.ts) and map D1's rows themselves. These tests hold both to what Drizzle
// builds and maps for the same read, in every shape a filter can take, values changing between
// reads of one shape (a value left in a shape's text would answer another read's rows).
import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { createDb } from "../src/db/client";
import { type EntryFilter, entryWithWallet, findEntry, listEntries } from "../src/db/ledger";
import { transactions } from "../src/db/schema";
import { appAt, call, debit, makeAdmin, makeUser, makeWallet, transfer, unique } from "./helpers";

const db = createDb(env.DB);
const DAY_S = 86_400;
const T0 = 1_700_000_000;

/** A user with credits, a debit and a transfer over three days and two wallets, and one imported entry in a third. */
async function history() {
  const admin = await makeAdmin();
  const user = await makeUser();
  const other = await makeUser();
  const naira = await makeWallet(admin, { decimals: 2 });
  const fine = await makeWallet(admin, { decimals: 4 });
  const old = await makeWallet(admin, { decimals: 2 });
  for (const [day, wallet, amount] of [
    [0, naira, 10],
    [1, naira, 2.5],
    [1, fine, 0.0123],
    [2, fine, 7],
  ] as const) {
    const res = await call("POST", "/credits", {
      app: appAt((T0 + day * DAY_S) * 1000),
      auth: admin.bearer,
      body: { user_id: user.id, wallet_id: wallet, amount, request_id: unique("r") },
    });
    expect(res.status, res.text).toBe(200);
  }
  expect((await debit(admin, { user_id: user.id, wallet_id: naira, amount: 1 })).status).toBe(200);
  const moved = await transfer(admin, {
    from_user_id: user.id,
    to_user_id: other.id,
    wallet_id: naira,
    amount: 3,
    request_id: unique("t"),
  });
  expect(moved.status, moved.text).toBe(200);
  const key = unique("wp-import:").toLowerCase();
  await db.insert(transactions).values({
    userId: user.id,
    walletId: old,
    txnType: "CREDIT",
    amountMinor: 0,
    amountText: "0",
    balanceBeforeMinor: 0,
    balanceAfterMinor: 0,
    requestId: key,
    requestKey: key,
    note: "imported",
    title: "imported",
    slugBase: "imported",
    slug: unique("imported-"),
    createdAtS: T0 - DAY_S,
    guid: `https://site.example/?p=${unique("")}`,
    localDate: "2023-11-13 23:13:20",
    imported: true,
    metaData: '{"k":"v"}',
  });
  const all = await entryWithWallet(db).where(eq(transactions.userId, user.id));
  return { user, naira, fine, all };
}

type Row = Awaited<ReturnType<typeof entryWithWallet>>[number];

/** What a filter selects from all of a user's entries, in the history's order. */
function expected(all: Row[], f: EntryFilter, order: "asc" | "desc") {
  const rows = all.filter(
    ({ entry: e }) =>
      (f.walletId === undefined || e.walletId === f.walletId) &&
      (f.txnType === undefined || e.txnType === f.txnType) &&
      (f.afterS === undefined || e.createdAtS > f.afterS) &&
      (f.beforeS === undefined || e.createdAtS < f.beforeS),
  );
  const sign = order === "asc" ? 1 : -1;
  return rows.sort(
    (a, b) => sign * (a.entry.createdAtS - b.entry.createdAtS || a.entry.id - b.entry.id),
  );
}

describe("reads built once per isolate", () => {
  it("map every kind of entry as Drizzle does: credits, debits, transfer halves, imported", async () => {
    const { all } = await history();
    expect(all.map((r) => r.entry.imported)).toContain(true);
    expect(all.some((r) => r.entry.transferId !== null)).toBe(true);
    for (const row of all) expect(await findEntry(db, row.entry.id)).toEqual(row);
    expect(await findEntry(db, 2 ** 40)).toBeUndefined();
    // An entry's attempt id (a lost batch's read-back) is never read with it.
    expect(entryWithWallet(db).toSQL().sql).not.toContain("attempt_id");
    expect(Object.keys(all[0]!.entry)).not.toContain("attemptId");
  });

  it("page through every filter shape in both orders, as the filter says", async () => {
    const { user, naira, fine, all } = await history();
    const filters: Omit<EntryFilter, "userId">[] = [];
    for (const walletId of [undefined, naira, fine])
      for (const txnType of [undefined, "CREDIT", "DEBIT"] as const)
        for (const afterS of [undefined, T0 - 1, T0 + DAY_S])
          for (const beforeS of [undefined, T0 + DAY_S + 1]) {
            filters.push({ walletId, txnType, afterS, beforeS });
          }
    for (const order of ["asc", "desc"] as const)
      for (const f of filters) {
        const filter = { ...f, userId: user.id };
        const want = expected(all, filter, order);
        for (const [offset, limit] of [
          [0, 20],
          [1, 2],
        ] as const) {
          const page = await listEntries(db, filter, { offset, limit, order });
          expect(page.rows, JSON.stringify({ filter, order, offset })).toEqual(
            want.slice(offset, offset + limit),
          );
          expect(page.total).toBe(want.length);
          expect(page).toMatchObject({ userExists: true, walletExists: true });
        }
      }
  });

  it("say when the user or the filtered wallet is not there", async () => {
    const { user, naira } = await history();
    const page = { offset: 0, limit: 10, order: "desc" } as const;
    expect(await listEntries(db, { userId: 2 ** 40 }, page)).toEqual({
      rows: [],
      total: 0,
      userExists: false,
      walletExists: true,
    });
    const noWallet = await listEntries(db, { userId: user.id, walletId: unique("none") }, page);
    expect(noWallet).toMatchObject({ rows: [], total: 0, userExists: true, walletExists: false });
    const stranger = await makeUser();
    expect(await listEntries(db, { userId: stranger.id, walletId: naira }, page)).toEqual({
      rows: [],
      total: 0,
      userExists: true,
      walletExists: true,
    });
  });
});
