// The verbs that tell a money request sent again under a used key, called without HTTP: the entry
// holding the key is what the request asks now (the console answers "Already done"), or something
// else (a field changed since, another movement), and only an administrator allowed to read asks.
import { describe, expect, it } from "vitest";
import { createDb } from "../src/db/client";
import type { ServiceContext } from "../src/wallet/context";
import { credit, debit, reverse, transfer } from "../src/wallet/movements";
import { type AskedMovement, entryIsMovement, entryReverses } from "../src/wallet/repeats";
import { keyedEntryId } from "../src/wallet/transactions";
import { countingD1 } from "./d1-counter";
import { makeAdmin, makeUser, unique } from "./helpers";
import { importedSelfTransfer, refusalOf, serviceAs, serviceWallet } from "./service-helpers";

/**
 * `ctx` on a metered binding, as a request's is (db/meter.ts): its rows come keyed by column name,
 * so two columns of one name would read as one.
 */
const metered = (ctx: ServiceContext, counter = countingD1()) => ({
  ...ctx,
  db: createDb(counter.db),
});

async function setup() {
  const [admin, alice, bob, carol, walletId, otherWalletId] = await Promise.all([
    makeAdmin(),
    makeUser(),
    makeUser(),
    makeUser(),
    serviceWallet(),
    serviceWallet(),
  ]);
  return { admin, alice, bob, carol, walletId, otherWalletId, ctx: metered(serviceAs(admin)) };
}

const sent = (userId: number, walletId: string, amount: string, requestId = unique("Key")) => ({
  user: { id: userId },
  walletId,
  amount: { sent: amount, policy: "refuse-excess-places" as const },
  requestId,
  note: "",
});

/** The entry holding the user's key, as a form sent again finds it (undefined: none). */
const holderOf = (ctx: ServiceContext, userId: number, requestId: string) =>
  keyedEntryId(ctx, { userId, requestId });

/** A reversal of entry `id` as the console's form sends it, of `userId`'s page. */
const undo = (userId: number, id: number) => ({
  id,
  ref: String(id),
  userId,
  requestId: unique("undo"),
  note: "",
});

describe("entryIsMovement", () => {
  it("answers yes for the very credit, debit or transfer the key holds", async () => {
    const { ctx, alice, bob, walletId } = await setup();
    const c = sent(alice.id, walletId, "5.00");
    const d = sent(alice.id, walletId, "2.50");
    const t = sent(alice.id, walletId, "1.25");
    await credit(ctx, c);
    await debit(ctx, d);
    await transfer(ctx, { ...t, from: t.user, to: { id: bob.id } });
    // The entry the refusal of the same form sent again names, as the console's post finds it.
    const again = await refusalOf(credit(ctx, c));
    expect(again.code).toBe("transaction_exists");
    const credited = (again as { existingId: number }).existingId;
    expect(
      await entryIsMovement(ctx, { entryId: credited, movement: { ...c, kind: "credit" } }),
    ).toBe(true);
    // The entry the key holds, as a transfer's confirmation finds it: the key compared as folded.
    const debited = (await holderOf(ctx, alice.id, d.requestId.toUpperCase()))!;
    expect(
      await entryIsMovement(ctx, { entryId: debited, movement: { ...d, kind: "debit" } }),
    ).toBe(true);
    const moved = (await holderOf(ctx, alice.id, t.requestId))!;
    const asked: AskedMovement = { ...t, kind: "transfer", to: { id: bob.id } };
    expect(await entryIsMovement(ctx, { entryId: moved, movement: asked })).toBe(true);
  });

  it("answers no when a field differs from what the entry holding the key is", async () => {
    const { ctx, alice, bob, carol, walletId, otherWalletId } = await setup();
    const c = sent(alice.id, walletId, "5.00");
    const t = sent(alice.id, walletId, "1.25");
    await credit(ctx, c);
    await transfer(ctx, { ...t, from: t.user, to: { id: bob.id } });
    const credited = (await holderOf(ctx, alice.id, c.requestId))!;
    const moved = (await holderOf(ctx, alice.id, t.requestId))!;
    const asked: AskedMovement = { ...c, kind: "credit" };
    const differing: [number, AskedMovement][] = [
      // The amount as sent, not its value: the key holds "5.00".
      [credited, { ...asked, amount: { ...c.amount, sent: "5" } }],
      [credited, { ...asked, amount: { ...c.amount, sent: "6.00" } }],
      [credited, { ...asked, walletId: otherWalletId }],
      [credited, { ...asked, user: { id: bob.id } }],
      [credited, { ...asked, kind: "debit" }],
      [credited, { ...asked, kind: "transfer", to: { id: bob.id } }],
      [moved, { ...t, kind: "transfer", to: { id: carol.id } }],
      [moved, { ...t, kind: "transfer", to: { id: alice.id } }],
      [moved, { ...t, kind: "credit" }],
      [moved, { ...t, kind: "transfer", user: { id: bob.id }, to: { id: alice.id } }],
    ];
    for (const [entryId, movement] of differing)
      expect(await entryIsMovement(ctx, { entryId, movement }), JSON.stringify(movement)).toBe(
        false,
      );
  });

  it("answers no for an entry another kind of movement wrote with the same figures", async () => {
    const { ctx, alice, bob, walletId } = await setup();
    await credit(ctx, sent(alice.id, walletId, "9.00"));
    // A transfer's DEBIT half, asked as the debit of its key, user, wallet and amount.
    const t = sent(alice.id, walletId, "1.25");
    await transfer(ctx, { ...t, from: t.user, to: { id: bob.id } });
    const half = (await holderOf(ctx, alice.id, t.requestId))!;
    // A reversal of a debit: a CREDIT of alice's, asked as the credit of its key and figures.
    const d = sent(alice.id, walletId, "2.50");
    await debit(ctx, d);
    const undone = undo(alice.id, (await holderOf(ctx, alice.id, d.requestId))!);
    await reverse(ctx, undone);
    const reversal = (await holderOf(ctx, alice.id, undone.requestId))!;
    const asked: [number, AskedMovement][] = [
      [half, { ...t, kind: "debit" }],
      [reversal, { ...sent(alice.id, walletId, "2.50", undone.requestId), kind: "credit" }],
    ];
    for (const [entryId, movement] of asked)
      expect(await entryIsMovement(ctx, { entryId, movement }), movement.kind).toBe(false);
  });

  it("answers no for a key no entry holds, and for an id that names no entry", async () => {
    const { ctx, alice, walletId } = await setup();
    const c = sent(alice.id, walletId, "1");
    expect(await holderOf(ctx, alice.id, c.requestId)).toBeUndefined();
    const nowhere = 2 ** 52;
    const asked: AskedMovement = { ...c, kind: "credit" };
    expect(await entryIsMovement(ctx, { entryId: nowhere, movement: asked })).toBe(false);
  });
});

describe("entryReverses", () => {
  it("answers yes for the reversal of the entry named, and no for any other entry", async () => {
    const { ctx, alice, walletId } = await setup();
    const c = sent(alice.id, walletId, "3");
    const { transactionId } = await credit(ctx, c);
    const other = await credit(ctx, sent(alice.id, walletId, "4"));
    const reversal = undo(alice.id, transactionId);
    await reverse(ctx, reversal);
    const again = await refusalOf(reverse(ctx, reversal));
    expect(again.code).toBe("transaction_exists");
    const entryId = (again as { existingId: number }).existingId;
    expect(await entryReverses(ctx, { entryId, txn: transactionId })).toBe(true);
    expect(await entryReverses(ctx, { entryId, txn: other.transactionId })).toBe(false);
    expect(await entryReverses(ctx, { entryId, txn: 2 ** 52 })).toBe(false);
    // The credit reversed is no reversal, of itself or of anything.
    const credited = (await holderOf(ctx, alice.id, c.requestId))!;
    expect(await entryReverses(ctx, { entryId: credited, txn: transactionId })).toBe(false);
    expect(await entryReverses(ctx, { entryId: 2 ** 52, txn: transactionId })).toBe(false);
  });

  it("answers yes for a transfer's reversal named by either half, asked of either half", async () => {
    const { ctx, alice, bob, walletId } = await setup();
    await credit(ctx, sent(alice.id, walletId, "10"));
    const move = () => {
      const t = sent(alice.id, walletId, "2");
      return transfer(ctx, { ...t, from: t.user, to: { id: bob.id } });
    };
    const byDebit = await move();
    const fromAlice = undo(alice.id, byDebit.debitId);
    await reverse(ctx, fromAlice);
    const byCredit = await move();
    const fromBob = undo(bob.id, byCredit.creditId);
    await reverse(ctx, fromBob);
    const aliceHolds = (await holderOf(ctx, alice.id, fromAlice.requestId))!;
    const bobHolds = (await holderOf(ctx, bob.id, fromBob.requestId))!;
    for (const [entryId, { debitId, creditId }] of [
      [aliceHolds, byDebit],
      [bobHolds, byCredit],
    ] as const)
      for (const txn of [debitId, creditId])
        expect(await entryReverses(ctx, { entryId, txn })).toBe(true);
    // A reversal is of its own transfer only.
    expect(await entryReverses(ctx, { entryId: aliceHolds, txn: byCredit.creditId })).toBe(false);
  });

  it("answers yes for a site's transfer from a user to itself reversed by its CREDIT half", async () => {
    // The reversal's keyed entry undoes the DEBIT half first (movements.ts undoOrder): the key holds
    // the reversal of the other half of the transaction named.
    const { ctx, alice, walletId } = await setup();
    const { creditHalf, debitHalf } = await importedSelfTransfer(alice.id, walletId);
    const reversal = undo(alice.id, creditHalf);
    const { transactionIds, reversedIds } = await reverse(ctx, reversal);
    expect(reversedIds[0]).toBe(debitHalf);
    const entryId = (await holderOf(ctx, alice.id, reversal.requestId))!;
    expect(entryId).toBe(transactionIds[0]);
    expect(await entryReverses(ctx, { entryId, txn: creditHalf })).toBe(true);
  });
});

describe("who may ask", () => {
  it("refuses a subscriber, an operator's key without the read scope and nobody", async () => {
    const { admin, alice, walletId } = await setup();
    const { transactionId } = await credit(serviceAs(admin), sent(alice.id, walletId, "1"));
    const m = {
      entryId: transactionId,
      movement: { ...sent(alice.id, walletId, "1"), kind: "credit" as const },
    };
    const r = { entryId: transactionId, txn: transactionId };
    const callers = [serviceAs(alice), serviceAs(alice, "read"), serviceAs(admin, "write")];
    for (const ctx of callers) {
      expect(await refusalOf(entryIsMovement(ctx, m))).toEqual({ code: "forbidden" });
      expect(await refusalOf(entryReverses(ctx, r))).toEqual({ code: "forbidden" });
    }
    expect(await refusalOf(entryIsMovement(serviceAs(), m))).toEqual({ code: "not_signed_in" });
    expect(await refusalOf(entryReverses(serviceAs(), r))).toEqual({ code: "not_signed_in" });
    for (const scope of ["read", "read-write"] as const)
      expect(await entryIsMovement(serviceAs(admin, scope), m)).toBe(true);
  });
});

describe("what asking costs", () => {
  it("reads one D1 statement each, a transfer's other half and a reversed entry's included", async () => {
    const { admin, alice, bob, walletId } = await setup();
    const counter = countingD1();
    const ctx = metered(serviceAs(admin), counter);
    await credit(ctx, sent(alice.id, walletId, "10"));
    const t = sent(alice.id, walletId, "2");
    const { debitId, creditId } = await transfer(ctx, { ...t, from: t.user, to: { id: bob.id } });
    const { transactionIds } = await reverse(ctx, undo(alice.id, debitId));
    const movement: AskedMovement = { ...t, kind: "transfer", to: { id: bob.id } };
    const asked = await counter.measure(() => entryIsMovement(ctx, { entryId: debitId, movement }));
    const undone = await counter.measure(() =>
      entryReverses(ctx, { entryId: transactionIds[0]!, txn: creditId }),
    );
    expect([asked.value, undone.value]).toEqual([true, true]);
    expect([asked.cost.statements, undone.cost.statements]).toEqual([1, 1]);
  });
});
