// A movement's statements run from SQL text built once per isolate with placeholders, per shape
// (src/ledger/append.ts movementQueries). These tests hold that text to what Drizzle builds for the
// same movement today, so a schema or query change the cached text missed fails here, and that both
// write the same rows and answer a repeat the same way.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createDb } from "../src/db/client";
import {
  appendEntries,
  insertEntry,
  movementQueries,
  movementResult,
  type NewEntry,
  usedUnder,
} from "../src/ledger/append";
import { CLEAN, ledgerViolations, makeAdmin, makeUser, makeWallet, unique } from "./helpers";

const db = createDb(env.DB);

async function newEntry(overrides: Partial<NewEntry> = {}): Promise<NewEntry> {
  const admin = await makeAdmin();
  const walletId = await makeWallet(admin, { decimals: 2 });
  const slugBase = unique("credit-slug");
  return {
    userId: (await makeUser()).id,
    walletId,
    txnType: "CREDIT",
    amountMinor: 1250,
    amountText: "12.50",
    requestId: unique("Req-MiXed"),
    keyed: true,
    note: "a note",
    title: "a title",
    slugBase,
    guidSite: "https://wallet.example",
    createdAtS: 1_764_000_000,
    attemptId: unique("attempt"),
    ...overrides,
  };
}

/** What Drizzle builds for the movement now, statement by statement. */
const drizzleBuilt = ([first, ...rest]: [NewEntry, ...NewEntry[]]) => [
  insertEntry(db, first).toSQL(),
  ...rest.map((e) => insertEntry(db, e, first.transferId).toSQL()),
  usedUnder(db, first.userId, first.requestId).toSQL(),
];

/** Drizzle's statements for the movement, run as one batch. */
const runBuilt = async (movement: [NewEntry, ...NewEntry[]]) =>
  movementResult(
    await env.DB.batch(drizzleBuilt(movement).map((q) => env.DB.prepare(q.sql).bind(...q.params))),
  );

const rowOf = async (id: number) =>
  env.DB.prepare(`SELECT * FROM transactions WHERE id = ?`)
    .bind(id)
    .first<Record<string, unknown>>();

describe("a movement's statements built once per isolate", () => {
  it("are the text and values Drizzle builds for the same movement, in every shape", async () => {
    const base = await newEntry();
    const transferId = crypto.randomUUID();
    const halves = (e: NewEntry): [NewEntry, NewEntry] => [
      { ...e, txnType: "DEBIT", transferId },
      { ...e, userId: e.userId + 1, keyed: false, transferId },
    ];
    const movements: [NewEntry, ...NewEntry[]][] = [
      [base],
      [{ ...base, guidSite: null }],
      [{ ...base, txnType: "DEBIT", metaData: '{"k":"v"}' }],
      [{ ...base, reversesId: 7 }],
      [{ ...base, holdId: 3, keyed: false }],
      halves(base),
      halves({ ...base, guidSite: null }),
      halves({ ...base, reversesId: 7 }).map((e, i) => ({ ...e, reversesId: 7 + i })) as [
        NewEntry,
        NewEntry,
      ],
    ];
    for (const movement of movements)
      expect(movementQueries(db, movement)).toEqual(drizzleBuilt(movement));
  });

  it("keep placeholders in the cached text, never a first movement's values", async () => {
    const [a, b] = [await newEntry(), await newEntry()];
    const transferOf = (e: NewEntry): [NewEntry, NewEntry] => [
      { ...e, transferId: crypto.randomUUID() },
      { ...e, userId: e.userId + 1, keyed: false, transferId: crypto.randomUUID() },
    ];
    for (const [first, then] of [
      [[a], [b]],
      [transferOf(a), transferOf(b)],
    ] as [NewEntry[], NewEntry[]][]) {
      movementQueries(db, first as [NewEntry]);
      for (const query of movementQueries(db, then as [NewEntry])) {
        expect(query.sql).not.toContain(a.slugBase);
        expect(query.params).not.toContain(a.userId);
        expect(query.params).not.toContain(a.requestId);
        expect(query.params).not.toContain(a.attemptId);
        expect(query.params).not.toContain(first[0]!.transferId ?? "none");
      }
    }
  });

  it("write the same row and balance as the Drizzle-built statements, and answer a repeat alike", async () => {
    const prepared = await newEntry();
    const built = await newEntry();
    const viaPrepared = await appendEntries(db, [prepared]);
    const viaBuilt = await runBuilt([built]);
    expect(viaPrepared.created).toBe(true);
    expect(viaBuilt.created).toBe(true);
    const [a, b] = [viaPrepared, viaBuilt].map((r) => (r.created ? r.ids[0]! : -1));
    const rowA = (await rowOf(a!))!;
    const rowB = (await rowOf(b!))!;
    // The columns the two entries differ in by construction (who, which key, which slug).
    const differ = [
      "id",
      "user_id",
      "wallet_id",
      "request_id",
      "request_key",
      "slug_base",
      "slug",
      "guid",
      "attempt_id",
    ];
    const same = (row: Record<string, unknown>) =>
      Object.fromEntries(Object.entries(row).filter(([k]) => !differ.includes(k)));
    expect(same(rowA)).toEqual(same(rowB));
    for (const [row, e] of [
      [rowA, prepared],
      [rowB, built],
    ] as const) {
      expect(row.request_key).toBe(e.requestId.toLowerCase());
      expect(row.slug).toBe(e.slugBase);
      expect(row.guid).toBe(`https://wallet.example/wallettransaction/${e.slugBase}/`);
      expect(row.balance_after_minor).toBe(1250);
      expect(row.attempt_id).toBe(e.attemptId);
    }
    // A repeat, by either path, writes nothing and names the entry its key holds.
    expect(await appendEntries(db, [{ ...prepared, amountMinor: 99 }])).toEqual({
      created: false,
      existingId: a,
    });
    expect(await runBuilt([{ ...built, amountMinor: 99 }])).toEqual({
      created: false,
      existingId: b,
    });
    expect(await ledgerViolations()).toEqual(CLEAN);
  });

  it("give a second entry of the same base the next free slug, as Drizzle's did", async () => {
    const first = await newEntry({ guidSite: null });
    const second = { ...first, requestId: unique("again") };
    const one = await appendEntries(db, [first]);
    const two = await appendEntries(db, [second]);
    const slugs = await Promise.all(
      [one, two].map(async (r) => (await rowOf(r.created ? r.ids[0]! : -1))!.slug),
    );
    expect(slugs).toEqual([first.slugBase, `${first.slugBase}-2`]);
  });
});
