// The money verbs called as the service, without HTTP: each checks its caller first, finds what it
// needs, converts the amount under the caller's policy, and either writes one batch or refuses with
// a typed reason and writes nothing. The wire's words for these refusals are tested per dialect.

import { env } from "cloudflare:workers";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { LedgerRefusal } from "../src/ledger/append";
import { MAX_MINOR } from "../src/ledger/money";
import { placeHold } from "../src/wallet/holds";
import { credit, debit, reverse, transfer, undoOrder } from "../src/wallet/movements";
import { refusalOf as reasonOf } from "../src/wallet/refusal";
import {
  CLEAN,
  importedEntry,
  ledgerViolations,
  makeAdmin,
  makeUser,
  makeWallet,
  tableCounts,
  unique,
} from "./helpers";
import { importedSelfTransfer, refusalOf, serviceAs } from "./service-helpers";

const balance = async (userId: number, walletId: string) => {
  const read = await serviceAs().ledger.readBalances(userId, [walletId]);
  return read.balances.get(walletId) ?? 0;
};

async function setup(decimals = 2) {
  const admin = await makeAdmin();
  const user = await makeUser();
  const other = await makeUser();
  const walletId = await makeWallet(admin, { decimals });
  return { admin, user, other, walletId, ctx: serviceAs(admin) };
}

const input = (userId: number, walletId: string, sent: string, requestId = unique("r")) => ({
  user: { id: userId },
  walletId,
  amount: { sent, policy: "refuse-excess-places" as const },
  requestId,
  note: "",
});

describe("who may move money", () => {
  it("refuses every caller but an administrator allowed to write, and writes nothing", async () => {
    const { admin, user, walletId } = await setup();
    const readKey = await refusalOf(
      credit(serviceAs(admin, "read"), input(user.id, walletId, "1")),
    );
    const before = await tableCounts();
    const refusals = await Promise.all([
      refusalOf(credit(serviceAs(), input(user.id, walletId, "1"))),
      refusalOf(credit(serviceAs(user), input(user.id, walletId, "1"))),
      refusalOf(debit(serviceAs(user, "read-write"), input(user.id, walletId, "1"))),
      refusalOf(
        transfer(serviceAs(user), {
          ...input(user.id, walletId, "1"),
          from: { id: user.id },
          to: { id: admin.id },
        }),
      ),
      refusalOf(reverse(serviceAs(user), { id: 1, ref: "1", requestId: "x", note: "" })),
      refusalOf(placeHold(serviceAs(user), { ...input(user.id, walletId, "1"), expiresInS: 60 })),
    ]);
    expect(readKey).toEqual({ code: "forbidden" });
    expect(refusals.map((r) => r.code)).toEqual([
      "not_signed_in",
      "forbidden",
      "forbidden",
      "forbidden",
      "forbidden",
      "forbidden",
    ]);
    expect(await tableCounts()).toEqual(before);
  });

  it("lets an administrator's write and read-write keys move money", async () => {
    const { admin, user, walletId } = await setup();
    await credit(serviceAs(admin, "write"), input(user.id, walletId, "1.50"));
    await credit(serviceAs(admin, "read-write"), input(user.id, walletId, "2"));
    expect(await balance(user.id, walletId)).toBe(350);
  });
});

describe("what a verb finds and converts", () => {
  it("names the wallet, the user (as the client named it) and the amount it refuses", async () => {
    const { ctx, user, walletId } = await setup();
    const before = await tableCounts();
    expect(await refusalOf(credit(ctx, input(user.id, "nowallet", "1")))).toEqual({
      code: "wallet_not_found",
      walletId: "nowallet",
    });
    expect(
      await refusalOf(credit(ctx, { ...input(0, walletId, "1"), user: { id: 0, as: "0007" } })),
    ).toEqual({ code: "user_not_found", userId: "0007" });
    expect(
      await refusalOf(credit(ctx, { ...input(0, walletId, "1"), user: { login: "nobody-here" } })),
    ).toEqual({ code: "user_not_found", userId: "nobody-here" });
    const places = await refusalOf(credit(ctx, input(user.id, walletId, "1.005")));
    expect(places).toMatchObject({ code: "amount_refused", refusal: "too-many-decimals" });
    expect(await refusalOf(credit(ctx, input(user.id, walletId, "-1")))).toMatchObject({
      code: "amount_refused",
      refusal: "not-positive",
    });
    expect(await tableCounts()).toEqual(before);
  });

  it("rounds half away from zero under the plugin's policy, and finds a user by login", async () => {
    const { ctx, user, walletId } = await setup();
    await credit(ctx, {
      ...input(0, walletId, "0.005"),
      user: { login: user.username.toUpperCase() },
      amount: { sent: "0.005", policy: "round-half-away-from-zero" },
    });
    expect(await balance(user.id, walletId)).toBe(1);
  });

  it("answers a used request_id with the entry it made, and moves money once", async () => {
    const { ctx, user, walletId } = await setup();
    const first = await credit(ctx, input(user.id, walletId, "5", "same-key"));
    expect(await refusalOf(credit(ctx, input(user.id, walletId, "5", "same-key")))).toEqual({
      code: "transaction_exists",
      existingId: first.transactionId,
    });
    expect(await balance(user.id, walletId)).toBe(500);
  });

  it("refuses a transfer to the sender itself, and a debit past the balance", async () => {
    const { ctx, user, walletId } = await setup();
    await credit(ctx, input(user.id, walletId, "1"));
    const same = { ...input(user.id, walletId, "1"), from: { id: user.id }, to: { id: user.id } };
    expect(await refusalOf(transfer(ctx, same))).toEqual({ code: "same_user" });
    // One user named two ways (an id and a login) is the same user, found only once both are read.
    const byLogin = { ...same, to: { login: user.username } };
    expect(await refusalOf(transfer(ctx, byLogin))).toEqual({ code: "same_user" });
    const overdraft = await debit(ctx, input(user.id, walletId, "1.01")).catch((e: unknown) => e);
    expect(overdraft).toBeInstanceOf(LedgerRefusal);
    expect((overdraft as LedgerRefusal).reason).toBe("insufficient-balance");
    expect(await balance(user.id, walletId)).toBe(100);
  });
});

describe("what a reversal named on a user's page finds", () => {
  it("refuses as not found an entry of another user, and writes nothing", async () => {
    const { ctx, user, other, walletId } = await setup();
    const made = await credit(ctx, input(user.id, walletId, "1"));
    const id = made.transactionId;
    const before = await tableCounts();
    const undo = { id, ref: String(id), requestId: unique("undo"), note: "" };
    expect(await refusalOf(reverse(ctx, { ...undo, userId: other.id }))).toEqual({
      code: "transaction_not_found",
      ref: String(id),
    });
    expect(await tableCounts()).toEqual(before);
    expect((await reverse(ctx, { ...undo, userId: user.id })).reversedIds).toEqual([id]);
  });
});

describe("a transfer refused for its balance", () => {
  it("names the sender's wallet and the amount, and writes nothing", async () => {
    const { ctx, user, other, walletId } = await setup();
    await credit(ctx, input(user.id, walletId, "1"));
    await credit(ctx, input(other.id, walletId, "5"));
    const before = await tableCounts();
    const move = {
      ...input(user.id, walletId, "1.01"),
      from: { id: user.id },
      to: { id: other.id },
    };
    expect(await refusalOf(transfer(ctx, move))).toEqual({
      code: "insufficient_balance",
      refused: { userId: user.id, walletId, amountMinor: 101 },
    });
    expect(await tableCounts()).toEqual(before);
  });
});

describe("money is conserved through the verbs", () => {
  it("keeps every balance the sum of its entries and never below zero, whatever the order", async () => {
    const { ctx, user, other, walletId } = await setup();
    const users = [user.id, other.id];
    const step = fc.oneof(
      fc.record({
        kind: fc.constant("credit" as const),
        who: fc.nat(1),
        cents: fc.integer({ min: 1, max: 500 }),
      }),
      fc.record({
        kind: fc.constant("debit" as const),
        who: fc.nat(1),
        cents: fc.integer({ min: 1, max: 500 }),
      }),
      fc.record({
        kind: fc.constant("transfer" as const),
        who: fc.nat(1),
        cents: fc.integer({ min: 1, max: 500 }),
      }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 12 }), async (steps) => {
        const expected = new Map(
          await Promise.all(users.map(async (id) => [id, await balance(id, walletId)] as const)),
        );
        // Sent at once: the ledger, not the order of arrival, decides which debits fit.
        const outcomes = await Promise.allSettled(
          steps.map((s) => {
            const from = users[s.who]!;
            const amount = (s.cents / 100).toFixed(2);
            if (s.kind === "credit") return credit(ctx, input(from, walletId, amount));
            if (s.kind === "debit") return debit(ctx, input(from, walletId, amount));
            return transfer(ctx, {
              ...input(from, walletId, amount),
              from: { id: from },
              to: { id: users[1 - s.who]! },
            });
          }),
        );
        steps.forEach((s, i) => {
          const outcome = outcomes[i]!;
          if (outcome.status === "rejected") {
            // A debit's is the ledger's own verdict; a transfer's names the movement refused too.
            expect(reasonOf(outcome.reason)?.code).toBe("insufficient_balance");
            return;
          }
          const from = users[s.who]!;
          const sign = s.kind === "credit" ? 1 : -1;
          expected.set(from, expected.get(from)! + sign * s.cents);
          if (s.kind === "transfer") {
            const to = users[1 - s.who]!;
            expected.set(to, expected.get(to)! + s.cents);
          }
        });
        for (const id of users) {
          const now = await balance(id, walletId);
          expect(now).toBe(expected.get(id));
          expect(now).toBeGreaterThanOrEqual(0);
        }
      }),
      { seed: 20_261_128, numRuns: 20 },
    );
    expect(await ledgerViolations()).toEqual(CLEAN);
  });
});

describe("a transfer a WordPress site made from a user to that same user", () => {
  // The plugin let a user transfer to itself, writing the CREDIT and then the DEBIT: the import keeps
  // both halves, linked, on one chain. Undone, it moves nothing in all, from either half.
  it("reverses from its CREDIT half though the balance left is below its amount", async () => {
    const { ctx, user, walletId } = await setup();
    const { atS, creditHalf, debitHalf } = await importedSelfTransfer(user.id, walletId);
    await importedEntry(user.id, walletId, "DEBIT", 8_000, "80", 10_000, atS);
    // Named by its CREDIT half, as by its DEBIT half: both undone, the DEBIT's first, the balance kept.
    const undo = { id: creditHalf, ref: String(creditHalf), requestId: unique("undo"), note: "" };
    const reversed = await reverse(ctx, undo);
    expect(reversed.reversedIds).toEqual([debitHalf, creditHalf]);
    expect(await balance(user.id, walletId)).toBe(2_000);
    // Its request_id is the user's, once: a replay names the reversal's first entry.
    expect(await refusalOf(reverse(ctx, undo))).toEqual({
      code: "transaction_exists",
      existingId: reversed.transactionIds[0],
    });
    expect(await ledgerViolations()).toEqual(CLEAN);
  });

  it("reverses at the largest balance from either half: lowered before it is raised there", async () => {
    for (const named of ["DEBIT", "CREDIT"] as const) {
      const { ctx, user, walletId } = await setup(0);
      const atS = Math.floor(Date.now() / 1000) - 60;
      const link = unique("self");
      await importedEntry(user.id, walletId, "CREDIT", MAX_MINOR, String(MAX_MINOR), 0, atS);
      await importedEntry(user.id, walletId, "DEBIT", 1, "1", MAX_MINOR, atS, { transferId: link });
      await importedEntry(user.id, walletId, "CREDIT", 1, "1", MAX_MINOR - 1, atS, {
        transferId: link,
      });
      const halves = await env.DB.prepare(
        "SELECT id, txn_type FROM transactions WHERE transfer_id = ? ORDER BY id",
      )
        .bind(link)
        .all<{ id: number; txn_type: string }>();
      const [debitHalf, creditHalf] = halves.results.map((r) => r.id) as [number, number];
      const id = named === "DEBIT" ? debitHalf : creditHalf;
      const undo = { id, ref: String(id), requestId: unique("undo"), note: "" };
      // Its DEBIT half undone first would take the balance to MAX + 1, which the ledger refuses.
      const reversed = await reverse(ctx, undo);
      expect(reversed.reversedIds, named).toEqual([creditHalf, debitHalf]);
      expect(await balance(user.id, walletId)).toBe(MAX_MINOR);
      expect(await refusalOf(reverse(ctx, undo))).toEqual({
        code: "transaction_exists",
        existingId: reversed.transactionIds[0],
      });
    }
    expect(await ledgerViolations()).toEqual(CLEAN);
  });
});

describe("undoOrder", () => {
  const e = (txnType: "CREDIT" | "DEBIT", amountMinor: number, userId = 1) => ({
    userId,
    walletId: "w",
    txnType,
    amountMinor,
  });
  it("raises each chain before it lowers it, in the places the chain holds", () => {
    const items = [e("CREDIT", 5), e("DEBIT", 3, 2), e("DEBIT", 5), e("CREDIT", 1, 2)];
    expect(undoOrder(items, (x) => x)).toEqual([items[2], items[1], items[0], items[3]]);
  });
  /** A chain's balance now and what its holds reserve. */
  const at = (balance: number, held = 0) =>
    new Map([["1:w", { balanceMinor: balance, heldMinor: held }]]);
  it("near the largest balance, lowers a chain first where a raise would pass it", () => {
    const round = [e("CREDIT", 7), e("DEBIT", 7), e("CREDIT", 7), e("DEBIT", 7)];
    // Far from the limit: both raises first; at it, each raise after a lowering makes room.
    expect(undoOrder(round, (x) => x, at(0)).map((x) => x.txnType)).toEqual([
      "DEBIT",
      "DEBIT",
      "CREDIT",
      "CREDIT",
    ]);
    expect(undoOrder(round, (x) => x, at(MAX_MINOR)).map((x) => x.txnType)).toEqual([
      "CREDIT",
      "DEBIT",
      "CREDIT",
      "DEBIT",
    ]);
    expect(undoOrder(round, (x) => x, at(MAX_MINOR - 7)).map((x) => x.txnType)).toEqual([
      "DEBIT",
      "CREDIT",
      "DEBIT",
      "CREDIT",
    ]);
  });
  it("near the largest balance, makes room by the lowering that keeps the balance at or above zero", () => {
    // At MAX - 1, the raise of 2 fits after lowering 1 (MAX - 2, MAX, 0); lowering MAX first
    // would take the balance to -1.
    const small = [e("CREDIT", MAX_MINOR), e("DEBIT", 2), e("CREDIT", 1)];
    expect(undoOrder(small, (x) => x, at(MAX_MINOR - 1))).toEqual([small[2], small[1], small[0]]);
    // Lowering 1 makes no room for the raise of 3 (MAX - 2), and lowering MAX - 1 after it would
    // take the balance to -1: MAX - 1 first (0, 3, 2).
    const large = [e("CREDIT", 1), e("DEBIT", 3), e("CREDIT", MAX_MINOR - 1)];
    expect(undoOrder(large, (x) => x, at(MAX_MINOR - 1))).toEqual([large[2], large[1], large[0]]);
  });
  it("near the largest balance, makes room by lowerings that keep the balance at what holds reserve", () => {
    // At MAX - 1 with MAX - 4 held: lowering 4 makes room for the raise of 3 but leaves MAX - 5,
    // below the holds; lowering 1 and 1 first (MAX - 3) keeps it there (MAX, then MAX - 4).
    const held = [e("CREDIT", 1), e("CREDIT", 1), e("DEBIT", 3), e("CREDIT", 4)];
    expect(undoOrder(held, (x) => x, at(MAX_MINOR - 1, MAX_MINOR - 4))).toEqual([
      held[0],
      held[1],
      held[2],
      held[3],
    ]);
    // Without the hold, lowering 4 alone makes room.
    expect(undoOrder(held, (x) => x, at(MAX_MINOR - 1))).toEqual([
      held[3],
      held[2],
      held[0],
      held[1],
    ]);
  });
  it("near the largest balance, makes room by a lowering that lets the raise reach it exactly", () => {
    // At MAX with MAX - 7 held: lowering 5 lets the raise of 5 back to MAX exactly; lowering 3
    // first would leave lowering 5 to take the balance to MAX - 8, below the holds.
    const exact = [e("CREDIT", 3), e("CREDIT", 5), e("DEBIT", 5)];
    expect(undoOrder(exact, (x) => x, at(MAX_MINOR, MAX_MINOR - 7))).toEqual([
      exact[1],
      exact[2],
      exact[0],
    ]);
  });
  it("near the largest balance, lowers the least first where no single lowering makes room", () => {
    // At MAX with MAX - 5 held, the raise of 5 fits after 2 and 3 (MAX - 5); 4 first would leave
    // no lowering that keeps the balance at the holds.
    const least = [e("CREDIT", 2), e("CREDIT", 3), e("CREDIT", 4), e("DEBIT", 5)];
    expect(undoOrder(least, (x) => x, at(MAX_MINOR, MAX_MINOR - 5))).toEqual([
      least[0],
      least[1],
      least[3],
      least[2],
    ]);
  });
});
