// The read verbs called without HTTP: who may read what, and what they answer.
import { env } from "cloudflare:workers";
import type { Context } from "hono";
import { describe, expect, it, vi } from "vitest";
import { attemptMoney } from "../src/console/api";
import type { ConsoleEnv } from "../src/console/env";
import { createDb } from "../src/db/client";
import { LedgerRefusal } from "../src/ledger/append";
import { MAX_WALLETS_PER_READ, namedBalances } from "../src/wallet/balances";
import { listUsers, readUser, userIdOf, walletRows } from "../src/wallet/directory";
import { readFeed } from "../src/wallet/events";
import { forgetGone, wordGone } from "../src/wallet/faults";
import { placeHold, readHold } from "../src/wallet/holds";
import { credit } from "../src/wallet/movements";
import { refusalOf as reasonOf } from "../src/wallet/refusal";
import {
  entriesOfKind,
  entryOfKind,
  historyPage,
  keyedEntryId,
  readTransaction,
  searchTransactions,
  wholeHistory,
} from "../src/wallet/transactions";
import { losingReads } from "./d1-counter";
import { makeAdmin, makeUser, unique } from "./helpers";
import { refusalOf, serviceAs, serviceCredit, serviceWallet } from "./service-helpers";

const FORBIDDEN = { code: "forbidden" };

async function twoAccounts() {
  const [admin, alice, bob, walletId] = await Promise.all([
    makeAdmin(),
    makeUser(),
    makeUser(),
    serviceWallet(),
  ]);
  const aliceEntry = await serviceCredit(admin, alice, walletId);
  const bobEntry = await serviceCredit(admin, bob, walletId);
  return { admin, alice, bob, walletId, aliceEntry, bobEntry };
}

describe("readTransaction", () => {
  it("answers an administrator any entry, with its wallet", async () => {
    const { admin, bobEntry, walletId } = await twoAccounts();
    const row = await readTransaction(serviceAs(admin), { id: bobEntry, ref: String(bobEntry) });
    expect(row.entry).toMatchObject({ id: bobEntry, walletId, amountMinor: 500 });
    expect(row.decimals).toBe(2);
  });

  it("answers a subscriber its own entry", async () => {
    const { alice, aliceEntry } = await twoAccounts();
    const row = await readTransaction(serviceAs(alice), { id: aliceEntry, ref: "x" });
    expect(row.entry.userId).toBe(alice.id);
  });

  it("refuses a subscriber another user's entry, and an id that does not exist, alike", async () => {
    const { alice, bobEntry } = await twoAccounts();
    const ctx = serviceAs(alice);
    expect(await refusalOf(readTransaction(ctx, { id: bobEntry, ref: "x" }))).toEqual(FORBIDDEN);
    expect(await refusalOf(readTransaction(ctx, { id: 2 ** 40, ref: "x" }))).toEqual(FORBIDDEN);
  });

  it("tells an administrator an id is unknown, and nobody signed in that they must", async () => {
    const admin = await makeAdmin();
    expect(await refusalOf(readTransaction(serviceAs(admin), { id: 2 ** 40, ref: "99" }))).toEqual({
      code: "transaction_not_found",
      ref: "99",
    });
    expect(await refusalOf(readTransaction(serviceAs(), { id: 1, ref: "1" }))).toEqual({
      code: "not_signed_in",
    });
  });

  it("refuses a key without the read scope before reading", async () => {
    const { admin, aliceEntry } = await twoAccounts();
    const ctx = serviceAs(admin, "write");
    expect(await refusalOf(readTransaction(ctx, { id: aliceEntry, ref: "x" }))).toEqual(FORBIDDEN);
  });
});

describe("readHold", () => {
  async function heldForBob() {
    const { admin, alice, bob, walletId } = await twoAccounts();
    const { hold } = await placeHold(serviceAs(admin), {
      user: { id: bob.id },
      walletId,
      amount: { sent: "1.25", policy: "refuse-excess-places" },
      requestId: unique("hold"),
      note: "",
      expiresInS: 600,
    });
    return { admin, alice, bob, id: hold.id };
  }

  it("answers an administrator anyone's hold and a subscriber its own, with the username", async () => {
    const { admin, bob, id } = await heldForBob();
    for (const who of [admin, bob]) {
      const held = await readHold(serviceAs(who), { id, ref: String(id) });
      expect(held).toMatchObject({ status: "held", username: bob.username });
      expect(held.hold).toMatchObject({ id, userId: bob.id, amountMinor: 125 });
    }
  });

  it("refuses a subscriber another user's hold, and an id that does not exist, alike", async () => {
    const { alice, id } = await heldForBob();
    const ctx = serviceAs(alice);
    expect(await refusalOf(readHold(ctx, { id, ref: "x" }))).toEqual(FORBIDDEN);
    expect(await refusalOf(readHold(ctx, { id: 2 ** 40, ref: "x" }))).toEqual(FORBIDDEN);
    expect(await refusalOf(readHold(ctx, { id: null, ref: "x" }))).toEqual(FORBIDDEN);
  });

  it("tells an administrator an id is unknown; refuses nobody, and a key without read", async () => {
    const { admin, id } = await heldForBob();
    expect(await refusalOf(readHold(serviceAs(admin), { id: null, ref: "7x" }))).toEqual({
      code: "hold_not_found",
      ref: "7x",
    });
    expect(await refusalOf(readHold(serviceAs(), { id, ref: "1" }))).toEqual({
      code: "not_signed_in",
    });
    expect(await refusalOf(readHold(serviceAs(admin, "write"), { id, ref: "1" }))).toEqual(
      FORBIDDEN,
    );
  });
});

describe("namedBalances", () => {
  const read = (user: { id: number } | { login: string } | null, ids: string[], open = false) => ({
    user,
    walletIds: ids,
    public: open,
  });

  it("answers a subscriber its own balances, unknown and empty ids left out", async () => {
    const { alice, walletId } = await twoAccounts();
    const { userId, found } = await namedBalances(
      serviceAs(alice),
      read({ login: alice.username }, [walletId, "", "nosuchwallet"]),
    );
    expect(userId).toBe(alice.id);
    expect([...found.keys()]).toEqual([walletId]);
    expect(found.get(walletId)?.minor).toBe(500);
  });

  it("refuses a subscriber anyone else, and nobody, alike", async () => {
    const { alice, bob, walletId } = await twoAccounts();
    const ctx = serviceAs(alice);
    expect(await refusalOf(namedBalances(ctx, read({ id: bob.id }, [walletId])))).toEqual(
      FORBIDDEN,
    );
    expect(await refusalOf(namedBalances(ctx, read(null, [walletId])))).toEqual(FORBIDDEN);
    expect(
      await refusalOf(namedBalances(ctx, read({ login: unique("nobody") }, [walletId]))),
    ).toEqual(FORBIDDEN);
  });

  it("answers an administrator nobody as holding nothing in the wallets that exist", async () => {
    const { admin, walletId } = await twoAccounts();
    const { userId, found } = await namedBalances(serviceAs(admin), read(null, [walletId]));
    expect(userId).toBeNull();
    expect(found.get(walletId)?.minor).toBe(0);
  });

  it("answers anyone when public, and refuses nobody signed in otherwise", async () => {
    const { bob, walletId } = await twoAccounts();
    const { found } = await namedBalances(serviceAs(), read({ id: bob.id }, [walletId], true));
    expect(found.get(walletId)?.minor).toBe(500);
    expect(await refusalOf(namedBalances(serviceAs(), read({ id: bob.id }, [walletId])))).toEqual({
      code: "not_signed_in",
    });
  });

  it("refuses more wallet ids than one read may name, after the caller's right", async () => {
    const { admin, alice, bob, walletId } = await twoAccounts();
    const ids = Array.from({ length: MAX_WALLETS_PER_READ + 1 }, () => walletId);
    expect(await refusalOf(namedBalances(serviceAs(admin), read({ id: bob.id }, ids)))).toEqual({
      code: "invalid_field",
      field: "wallet_id",
      why: `wallet_id lists at most ${MAX_WALLETS_PER_READ} wallets`,
    });
    expect(await refusalOf(namedBalances(serviceAs(alice), read({ id: bob.id }, ids)))).toEqual(
      FORBIDDEN,
    );
  });
});

describe("historyPage and wholeHistory", () => {
  it("read the caller's own history when no user is named", async () => {
    const { alice, aliceEntry } = await twoAccounts();
    const page = await historyPage(serviceAs(alice), { offset: 0, limit: 10, order: "desc" });
    expect(page.rows.map((r) => r.entry.id)).toEqual([aliceEntry]);
    expect(page.total).toBe(1);
    const whole = await wholeHistory(serviceAs(alice), { order: "asc" });
    const rows = [];
    for await (const chunk of whole.chunks) rows.push(...chunk);
    expect(rows.map((r) => r.entry.id)).toEqual([aliceEntry]);
  });

  it("refuse a subscriber another user's history", async () => {
    const { alice, bob } = await twoAccounts();
    const page = { offset: 0, limit: 10, order: "desc" as const };
    expect(await refusalOf(historyPage(serviceAs(alice), { userId: bob.id, ...page }))).toEqual(
      FORBIDDEN,
    );
    expect(
      await refusalOf(wholeHistory(serviceAs(alice), { userId: bob.id, order: "desc" })),
    ).toEqual(FORBIDDEN);
  });

  it("tell an administrator which of the user and the wallet is unknown", async () => {
    const { admin, bob } = await twoAccounts();
    const page = { offset: 0, limit: 10, order: "desc" as const };
    expect(await refusalOf(historyPage(serviceAs(admin), { userId: 2 ** 40, ...page }))).toEqual({
      code: "user_not_found",
      userId: 2 ** 40,
    });
    expect(
      await refusalOf(
        historyPage(serviceAs(admin), { userId: bob.id, walletId: "nowallet", ...page }),
      ),
    ).toEqual({ code: "wallet_not_found", walletId: "nowallet" });
  });
});

describe("searchTransactions", () => {
  const search = (value: string, isPublic = false) => ({
    key: "note",
    value,
    order: { by: "id" as const, direction: "asc" as const },
    offset: 0,
    limit: 100,
    public: isPublic,
  });

  it("keeps a subscriber's search to its own entries; an administrator's finds everyone's", async () => {
    const { admin, alice, aliceEntry, bobEntry } = await twoAccounts();
    const ids = (rows: { entry: { id: number } }[]) => rows.map((r) => r.entry.id);
    const own = ids(await searchTransactions(serviceAs(alice), search("service test")));
    expect(own).toContain(aliceEntry);
    expect(own).not.toContain(bobEntry);
    const all = ids(await searchTransactions(serviceAs(admin), search("service test")));
    expect(all).toEqual(expect.arrayContaining([aliceEntry, bobEntry]));
  });

  it("lets anyone search everything when public, and refuses nobody otherwise", async () => {
    const { bobEntry } = await twoAccounts();
    const rows = await searchTransactions(serviceAs(), search("service test", true));
    expect(rows.map((r) => r.entry.id)).toContain(bobEntry);
    expect(await refusalOf(searchTransactions(serviceAs(), search("x")))).toEqual({
      code: "not_signed_in",
    });
  });

  it("finds nothing under a key that is no post meta", async () => {
    const admin = await makeAdmin();
    expect(await searchTransactions(serviceAs(admin), { ...search(""), key: "a key" })).toEqual([]);
  });
});

describe("keyedEntryId", () => {
  it("answers an administrator the entry a user's request_id wrote, as the ledger folds keys", async () => {
    const { admin, alice, bob, walletId } = await twoAccounts();
    const requestId = unique("Keyed");
    const { transactionId } = await credit(serviceAs(admin), {
      user: { id: alice.id },
      walletId,
      amount: { sent: "1", policy: "refuse-excess-places" },
      requestId,
      note: "",
    });
    const ctx = serviceAs(admin);
    const upper = requestId.toUpperCase();
    expect(await keyedEntryId(ctx, { userId: alice.id, requestId: upper })).toBe(transactionId);
    // A key is the user's own: another's, or one never used, wrote nothing.
    expect(await keyedEntryId(ctx, { userId: bob.id, requestId })).toBeUndefined();
    expect(await keyedEntryId(ctx, { userId: alice.id, requestId: unique("no") })).toBeUndefined();
    // A subscriber learns nothing of keys, its own included.
    const own = serviceAs(alice);
    expect(await refusalOf(keyedEntryId(own, { userId: alice.id, requestId }))).toEqual(FORBIDDEN);
  });
});

describe("the plugin's administrator lists", () => {
  it("answer an administrator and refuse a subscriber", async () => {
    const { admin, alice, aliceEntry, walletId } = await twoAccounts();
    const page = await entriesOfKind(serviceAs(admin), { kind: "credits", offset: 0, limit: 100 });
    expect(page.total).toBeGreaterThanOrEqual(2);
    const one = await entryOfKind(serviceAs(admin), { kind: "credits", id: aliceEntry });
    expect(one?.username).toBe(alice.username);
    expect(await entryOfKind(serviceAs(admin), { kind: "debits", id: aliceEntry })).toBeUndefined();
    expect((await walletRows(serviceAs(admin))).map((w) => w.wallet.id)).toContain(walletId);

    const ctx = serviceAs(alice);
    for (const verb of [
      entriesOfKind(ctx, { kind: "credits", offset: 0, limit: 1 }),
      entryOfKind(ctx, { kind: "credits", id: aliceEntry }),
      walletRows(ctx),
      listUsers(ctx, { offset: 0, limit: 1 }),
      readFeed(ctx, { after: 0, limit: 1, types: [] }),
    ])
      expect(await refusalOf(verb)).toEqual(FORBIDDEN);
  });

  it("page users without their password hashes, and the feed as event records", async () => {
    const { admin } = await twoAccounts();
    const { rows, total } = await listUsers(serviceAs(admin), { offset: 0, limit: 5 });
    expect(total).toBeGreaterThanOrEqual(3);
    for (const row of rows) expect(row).not.toHaveProperty("passwordHash");
    const feed = await readFeed(serviceAs(admin), { after: 0, limit: 2, types: [] });
    expect(feed).toHaveLength(2);
  });
});

describe("readUser", () => {
  it("answers a subscriber itself, by id or by login, without its password hash", async () => {
    const alice = await makeUser();
    const byId = await readUser(serviceAs(alice), { id: alice.id });
    expect(byId).toMatchObject({ id: alice.id, username: alice.username });
    expect(byId).not.toHaveProperty("passwordHash");
    expect((await readUser(serviceAs(alice), { login: alice.username }))?.id).toBe(alice.id);
  });

  it("refuses a subscriber anyone else, and nobody, before telling whether they exist", async () => {
    const [alice, bob] = await Promise.all([makeUser(), makeUser()]);
    const ctx = serviceAs(alice);
    expect(await refusalOf(readUser(ctx, { id: bob.id }))).toEqual(FORBIDDEN);
    expect(await refusalOf(readUser(ctx, { id: 2 ** 40 }))).toEqual(FORBIDDEN);
    expect(await refusalOf(readUser(ctx, null))).toEqual(FORBIDDEN);
  });

  it("answers an administrator nobody as undefined", async () => {
    const admin = await makeAdmin();
    expect(await readUser(serviceAs(admin), null)).toBeUndefined();
    expect(await readUser(serviceAs(admin), { login: "no such login" })).toBeUndefined();
  });

  it("names a user's id without a query for an id, with one for a login", async () => {
    const alice = await makeUser();
    expect(await userIdOf(serviceAs(), { id: 7 })).toBe(7);
    expect(await userIdOf(serviceAs(), { login: alice.email })).toBe(alice.id);
    expect(await userIdOf(serviceAs(), null)).toBeNull();
  });
});

describe("faults and refusals below the verbs", () => {
  it("names the gone user first, else the wallet", async () => {
    const alice = await makeUser();
    const ctx = serviceAs();
    const gone = (userIds: number[]) => new LedgerRefusal("gone", { userIds, walletIds: ["w"] });
    expect(reasonOf(await wordGone(ctx, gone([alice.id, 2 ** 40])))).toEqual({
      code: "user_not_found",
      userId: 2 ** 40,
    });
    expect(reasonOf(await wordGone(ctx, gone([alice.id])))).toEqual({
      code: "wallet_not_found",
      walletId: "w",
    });
    const other = new Error("not gone");
    expect(await wordGone(ctx, other)).toBe(other);
  });

  it("answers a console money form busy when the look-up of what is gone is lost", async () => {
    // The form comes back with its key (sent again, the money moves at most once), as any busy
    // database is told: not the write's gone refusal thrown on, to be looked up a second time.
    const lossy = losingReads(/"users"/);
    const service = { ...serviceAs(), db: createDb(lossy.d1), d1: lossy.d1 };
    const c = { var: { service }, get: () => "request" } as unknown as Context<ConsoleEnv>;
    vi.spyOn(console, "error").mockImplementation(() => {});
    const outcome = await attemptMoney(c, () =>
      Promise.reject(new LedgerRefusal("gone", { userIds: [2 ** 40], walletIds: ["w"] })),
    ).finally(() => vi.restoreAllMocks());
    expect(lossy.lost()).toBe(1);
    expect(outcome).toMatchObject({ ok: false, refusal: { status: 503 } });
  });

  it("forgets only a ledger's gone refusal, and words the ledger's own refusals as reasons", () => {
    const named = { userIds: [1], walletIds: ["w"] };
    expect(forgetGone(serviceAs(), new LedgerRefusal("gone", named))).toEqual(named);
    expect(forgetGone(serviceAs(), new Error("gone"))).toBeUndefined();
    expect(reasonOf(new LedgerRefusal("insufficient-balance"))).toEqual({
      code: "insufficient_balance",
    });
    expect(reasonOf(new LedgerRefusal("balance-limit"))).toEqual({ code: "balance_limit" });
    expect(reasonOf(new LedgerRefusal("already-reversed"))).toBeUndefined();
    expect(reasonOf(env)).toBeUndefined();
  });
});
