// Property (fast-check, seeded): after random sequences of the money verbs, called as the service
// and sent one to three at once (credits, debits, transfers, holds placed, captured whole or in part
// and voided, entries and batches reversed, the clock moving on and back), on a wallet of two places
// and one imported storing a place more than it shows (with an imported entry of three places and
// amounts the plugin's policy rounds there), every surface that reads a user's wallet answers the
// same figures as the entries themselves: the ledger's balance, the wallet summary (balance, held,
// available, entry count, last entry), the available balances, the history (its total, the sum of
// its rows, its highest id), a statement of the whole chain (opening 0, closing and in − out the
// balance, its count), the balance at the last second over, and the holds listed as held. The
// writes are checked against a model elsewhere (ledger-model); this checks the reads against them.
import { env } from "cloudflare:workers";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { LedgerRefusal } from "../src/ledger/append";
import { userBalances } from "../src/wallet/balances";
import { reverseBatch } from "../src/wallet/batch-reversal";
import { postBatch } from "../src/wallet/batches";
import type { ServiceContext } from "../src/wallet/context";
import {
  availableBalances,
  captureHold,
  listHolds,
  placeHold,
  voidHold,
} from "../src/wallet/holds";
import type { AmountSent } from "../src/wallet/movements";
import { credit, debit, reverse, transfer } from "../src/wallet/movements";
import { Refusal } from "../src/wallet/refusal";
import { openStatement } from "../src/wallet/statements";
import { walletSummary } from "../src/wallet/summary";
import { historyPage } from "../src/wallet/transactions";
import { importedEntry, makeAdmin, makeUser, makeWallet, storingMore, unique } from "./helpers";
import { serviceAs } from "./service-helpers";

const SEED = 20_261_202;
const RUNS = 40;
/** Outcomes the seeded runs must meet, so that each surface is read after each kind of write. */
const MUST_REACH = [
  "clock",
  "credit",
  "debit",
  "transfer",
  "hold",
  "capture",
  "void",
  "reverse",
  "batch",
  "unbatch",
];

type Step =
  | { k: "credit" | "debit" | "hold"; u: number; w: number; d: number }
  | { k: "transfer"; u: number; v: number; w: number; d: number }
  | { k: "capture"; h: number; whole: boolean }
  | { k: "void"; h: number }
  | { k: "reverse"; e: number }
  | { k: "batch"; u: number; v: number; w: number; d: number; d2: number }
  | { k: "unbatch"; b: number }
  | { k: "clock"; s: number };

const u = fc.nat(2);
const w = fc.nat(1);
const d = fc.integer({ min: 1, max: 3_000 });
const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ k: fc.constantFrom("credit" as const, "debit" as const, "hold" as const), u, w, d }),
  fc.record({ k: fc.constant("transfer" as const), u, v: u, w, d }),
  fc.record({ k: fc.constant("capture" as const), h: fc.nat(20), whole: fc.boolean() }),
  fc.record({ k: fc.constant("void" as const), h: fc.nat(20) }),
  fc.record({ k: fc.constant("reverse" as const), e: fc.nat(50) }),
  fc.record({ k: fc.constant("batch" as const), u, v: u, w, d, d2: d }),
  fc.record({ k: fc.constant("unbatch" as const), b: fc.nat(10) }),
  // Mostly on; now and then back (another isolate's clock, a credit held by group commit).
  fc.record({ k: fc.constant("clock" as const), s: fc.integer({ min: -100, max: 200 }) }),
);

const signed = (e: { txnType: "CREDIT" | "DEBIT"; amountMinor: number }) =>
  e.txnType === "CREDIT" ? e.amountMinor : -e.amountMinor;

describe(`every read of a wallet agrees with its entries (fast-check seed ${SEED})`, () => {
  it(`after ${RUNS} random sequences of every money verb, some sent at once`, {
    timeout: 120_000,
  }, async () => {
    const admin = await makeAdmin();
    const wallets = [await makeWallet(admin, { decimals: 2 }), await storingMore(1)];
    // Dated in the past, so that no other file's newest-first list of the whole site starts with them.
    let nowMs = Date.UTC(2021, 0, 1) + 500;
    const ctx: ServiceContext = {
      ...serviceAs(admin),
      nowMs: () => nowMs,
      stamp: () => ({ nowMs, guidSite: null }),
    };
    const reached = new Set<string>();

    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(step, { minLength: 1, maxLength: 3 }), { minLength: 5, maxLength: 15 }),
        async (rounds) => {
          nowMs += 10_000_000;
          let latestMs = nowMs;
          const ids = (await Promise.all([makeUser(), makeUser(), makeUser()])).map((p) => p.id);
          await importedEntry(
            ids[0]!,
            wallets[1]!,
            "CREDIT",
            12_345,
            "12.345",
            0,
            Math.floor(nowMs / 1000) - 5,
          );
          for (const id of ids)
            for (const walletId of wallets)
              await credit(ctx, {
                user: { id },
                walletId,
                amount: { sent: "50", policy: "refuse-excess-places" },
                requestId: unique("fund"),
                note: "",
              });
          const holds: number[] = [];
          const entries: number[] = [];
          const batches: number[] = [];
          const log: string[] = [];
          // On the imported wallet, every third amount has four places, which the plugin's policy
          // rounds to the three it stores.
          const amount = (wi: number, dd: number): AmountSent =>
            wi === 1 && dd % 3 === 0
              ? { sent: (dd / 1000).toFixed(4), policy: "round-half-away-from-zero" }
              : { sent: (dd / 100).toFixed(2), policy: "refuse-excess-places" };
          const move = (s: { u: number; w: number; d: number }) => ({
            user: { id: ids[s.u]! },
            walletId: wallets[s.w]!,
            amount: amount(s.w, s.d),
            requestId: unique("r"),
            note: "",
          });
          const pick = (list: number[], i: number) => list[i % Math.max(list.length, 1)];

          async function run(s: Step) {
            switch (s.k) {
              case "credit":
              case "debit":
                entries.push(
                  (await (s.k === "credit" ? credit : debit)(ctx, move(s))).transactionId,
                );
                return;
              case "hold":
                holds.push(
                  (await placeHold(ctx, { ...move(s), expiresInS: 1 + (s.d % 300) })).hold.id,
                );
                return;
              case "transfer": {
                const t = await transfer(ctx, {
                  ...move(s),
                  from: { id: ids[s.u]! },
                  to: { id: ids[s.v]! },
                });
                entries.push(t.debitId, t.creditId);
                return;
              }
              case "capture": {
                const h = pick(holds, s.h);
                if (h === undefined) return "nothing";
                const amount = s.whole
                  ? undefined
                  : ({ sent: "0.01", policy: "refuse-excess-places" } as const);
                const captured = await captureHold(ctx, {
                  hold: { id: h, ref: String(h) },
                  amount,
                  note: "",
                });
                entries.push(captured.transactionId!);
                return;
              }
              case "void": {
                const h = pick(holds, s.h);
                if (h === undefined) return "nothing";
                await voidHold(ctx, { hold: { id: h, ref: String(h) } });
                return;
              }
              case "reverse": {
                const e = pick(entries, s.e);
                if (e === undefined) return "nothing";
                entries.push(
                  ...(
                    await reverse(ctx, { id: e, ref: String(e), requestId: unique("v"), note: "" })
                  ).transactionIds,
                );
                return;
              }
              case "batch": {
                const leg = { walletId: wallets[s.w]!, note: "" };
                const second =
                  s.u === s.v
                    ? {
                        ...leg,
                        type: "debit" as const,
                        user: { id: ids[s.u]! },
                        amount: amount(s.w, s.d2),
                      }
                    : {
                        ...leg,
                        type: "transfer" as const,
                        from: { id: ids[s.u]! },
                        to: { id: ids[s.v]! },
                        amount: amount(s.w, s.d2),
                      };
                const b = await postBatch(ctx, {
                  requestId: unique("b"),
                  balanced: false,
                  operations: [
                    { ...leg, type: "credit", user: { id: ids[s.u]! }, amount: amount(s.w, s.d) },
                    second,
                  ],
                });
                batches.push(b.batchId);
                entries.push(...b.transactionIds);
                return;
              }
              case "unbatch": {
                const b = pick(batches, s.b);
                if (b === undefined) return "nothing";
                entries.push(
                  ...(await reverseBatch(ctx, { id: b, ref: String(b), note: "" })).transactionIds,
                );
                return;
              }
              case "clock":
                nowMs += s.s * 1000;
                latestMs = Math.max(latestMs, nowMs);
                return;
            }
          }

          for (const round of rounds) {
            const outcomes = await Promise.allSettled(round.map(run));
            outcomes.forEach((o, i) => {
              const s = round[i]!;
              if (o.status === "fulfilled") {
                if (o.value !== "nothing") reached.add(s.k);
                log.push(`${JSON.stringify(s)} ok`);
                return;
              }
              // Refused, as a money verb refuses: never a fault.
              if (!(o.reason instanceof Refusal || o.reason instanceof LedgerRefusal))
                throw o.reason;
              log.push(
                `${JSON.stringify(s)} refused ${JSON.stringify(o.reason instanceof Refusal ? o.reason.reason.code : o.reason.reason)}`,
              );
            });
          }

          // Read once every entry's second is over.
          nowMs = latestMs + 2_000;
          const nowS = Math.floor(nowMs / 1000);
          for (const userId of ids) {
            const available = await availableBalances(ctx, userId);
            for (const walletId of wallets) {
              const truth = (await env.DB.prepare(
                `SELECT coalesce(sum(CASE txn_type WHEN 'CREDIT' THEN amount_minor ELSE -amount_minor END), 0) AS balance,
                 count(*) AS n, max(id) AS last,
                 (SELECT coalesce(sum(amount_minor), 0) FROM holds WHERE user_id = ?1 AND wallet_id = ?2
                    AND status = 'held' AND expires_at_s > ?3) AS held
               FROM transactions WHERE user_id = ?1 AND wallet_id = ?2`,
              )
                .bind(userId, walletId, nowS)
                .first<{ balance: number; n: number; last: number; held: number }>())!;
              const summary = await walletSummary(ctx, { user: { id: userId }, walletId });
              const history = await historyPage(ctx, {
                userId,
                walletId,
                offset: 0,
                limit: 100,
                order: "desc",
              });
              const statement = await openStatement(ctx, {
                userId,
                walletId,
                page: { offset: 0, limit: 1 },
              });
              const at = await userBalances(ctx, { userId, walletIds: [walletId], atS: nowS - 1 });
              const held = await listHolds(ctx, {
                userId,
                walletId,
                status: "held",
                page: 1,
                perPage: 100,
              });
              const row = available.find((r) => r.wallet.id === walletId);
              const read = {
                balance: summary.balanceMinor,
                held: summary.heldMinor,
                available: summary.availableMinor,
                n: summary.entryCount,
                last: summary.last?.id,
                ledger: (await ctx.ledger.readBalances(userId, [walletId])).balances.get(walletId),
                balances: [row?.balanceMinor, row?.heldMinor, row?.availableMinor],
                history: [
                  history.total,
                  history.rows.reduce((sum, r) => sum + signed(r.entry), 0),
                  Math.max(...history.rows.map((r) => r.entry.id)),
                ],
                statement: [
                  statement.openingMinor,
                  statement.closingMinor,
                  Number(statement.inMinor - statement.outMinor),
                  statement.count,
                ],
                at: at.get(walletId)?.minor,
                holdsListed: held.holds.reduce((sum, h) => sum + h.hold.amountMinor, 0),
              };
              const { balance, n, last } = truth;
              expect(read, `user ${userId} wallet ${walletId}:\n${log.join("\n")}`).toEqual({
                balance,
                held: truth.held,
                available: balance - truth.held,
                n,
                last,
                ledger: balance,
                balances: [balance, truth.held, balance - truth.held],
                history: [n, balance, last],
                statement: [0, balance, balance, n],
                at: balance,
                holdsListed: truth.held,
              });
              // What may be spent is never below zero (no balance here was imported below it).
              expect(balance - truth.held).toBeGreaterThanOrEqual(0);
            }
          }
        },
      ),
      { seed: SEED, numRuns: RUNS, endOnFailure: true },
    );
    expect([...reached].sort()).toEqual([...MUST_REACH].sort());
  });
});
