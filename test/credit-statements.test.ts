// A lone credit's or debit's statements run from SQL text built once per isolate with placeholders
// (src/ledger/append.ts loneStatements, issue 24). These tests hold that text to what Drizzle
// builds for the same entry today, so a schema or query change the cached text missed fails here,
// and that both write the same rows and answer a repeat the same way.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createDb } from "../src/db/client";
import {
  appendEntries,
  insertEntry,
  loneQueries,
  movementResult,
  movementStatements,
  type NewEntry,
  preparedLone,
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
    ...overrides,
  };
}

/** What Drizzle builds for the entry now, statement by statement. */
const drizzleBuilt = (e: NewEntry) => [
  insertEntry(db, e).toSQL(),
  usedUnder(db, e.userId, e.requestId).toSQL(),
];

const rowOf = async (id: number) =>
  env.DB.prepare(`SELECT * FROM transactions WHERE id = ?`)
    .bind(id)
    .first<Record<string, unknown>>();

describe("a lone entry's statements built once per isolate", () => {
  it("are the text and values Drizzle builds for the same entry, in every shape", async () => {
    const base = await newEntry();
    const shapes: NewEntry[] = [
      base,
      { ...base, guidSite: null },
      { ...base, keyed: false, transferId: crypto.randomUUID() },
      { ...base, txnType: "DEBIT", metaData: '{"k":"v"}' },
      { ...base, reversesId: 7 },
      { ...base, holdId: 3, keyed: false },
    ];
    for (const e of shapes) expect(loneQueries(db, e)).toEqual(drizzleBuilt(e));
  });

  it("keep placeholders in the cached text, never a first entry's values", async () => {
    const e = await newEntry();
    for (const withGuid of [true, false]) {
      const [insert, used] = preparedLone(db, withGuid);
      for (const query of [insert, used]) {
        expect(query.sql).not.toContain(e.slugBase);
        expect(query.params).not.toContain(e.userId);
        expect(query.params).not.toContain(e.requestId);
      }
    }
  });

  it("write the same row and balance as the Drizzle-built statements, and answer a repeat alike", async () => {
    const prepared = await newEntry();
    const built = await newEntry();
    const viaPrepared = await appendEntries(db, [prepared]);
    const viaBuilt = movementResult(await db.batch(movementStatements(db, [built])));
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
    }
    // A repeat, by either path, writes nothing and names the entry its key holds.
    expect(await appendEntries(db, [{ ...prepared, amountMinor: 99 }])).toEqual({
      created: false,
      existingId: a,
    });
    expect(
      movementResult(await db.batch(movementStatements(db, [{ ...built, amountMinor: 99 }]))),
    ).toEqual({
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
