// Property (fast-check, seeded): on random histories of credits, debits, transfers and reversals,
// written with a clock that sometimes goes back, the balance at any instant is the sum of the
// entries up to it, and every statement adds up: opening + in − out = closing, in JSON and in CSV.
import { env } from "cloudflare:workers";
import { parse } from "csv-parse/sync";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { appAt, call, type Json, makeAccount, makeUser, type TestUser, unique } from "./helpers";

const SEED = 20261126;
const RUNS = 12;
const T0 = Date.UTC(2026, 10, 1, 8, 0, 0);

type Step =
  | { op: "credit" | "debit"; to: 0 | 1; minor: number; dtS: number }
  | { op: "transfer"; to: 0 | 1; minor: number; dtS: number }
  | { op: "reverse"; pick: number; dtS: number };

const stepArb: fc.Arbitrary<Step> = fc.oneof(
  fc.record({
    op: fc.constantFrom("credit" as const, "debit" as const),
    to: fc.constantFrom(0 as const, 1 as const),
    minor: fc.integer({ min: 1, max: 50_000 }),
    // Mostly forward; now and then back (a clock behind, a credit held by group commit).
    dtS: fc.integer({ min: -120, max: 900 }),
  }),
  fc.record({
    op: fc.constant("transfer" as const),
    to: fc.constantFrom(0 as const, 1 as const),
    minor: fc.integer({ min: 1, max: 30_000 }),
    dtS: fc.integer({ min: -120, max: 900 }),
  }),
  fc.record({
    op: fc.constant("reverse" as const),
    pick: fc.nat(),
    dtS: fc.integer({ min: -120, max: 900 }),
  }),
);

type Entry = { id: number; signed: number; createdS: number };

/** The chain of a user's wallet as the ledger holds it, in the order it was written. */
async function chainOf(userId: number, wallet: string): Promise<Entry[]> {
  const { results } = await env.DB.prepare(
    `SELECT id, CASE txn_type WHEN 'CREDIT' THEN amount_minor ELSE -amount_minor END AS signed,
       created_at_s AS createdS FROM transactions WHERE user_id = ? AND wallet_id = ? ORDER BY id`,
  )
    .bind(userId, wallet)
    .all<Entry>();
  return results;
}

/**
 * The oracle, from the entries alone: an entry counts from its date, or from the latest date before
 * it on its chain when that is later (it joined the chain then); the balance at T is the sum of the
 * entries counted by T. With a clock that never goes back this is "the entries dated up to T".
 */
function counted(chain: Entry[]) {
  let latest = Number.NEGATIVE_INFINITY;
  return chain.map((e) => {
    latest = Math.max(latest, e.createdS);
    return { ...e, fromS: latest };
  });
}
const sumUpTo = (chain: ReturnType<typeof counted>, atS: number) =>
  chain.filter((e) => e.fromS <= atS).reduce((sum, e) => sum + e.signed, 0);

const minor = (major: number) => Math.round(major * 100);
const iso = (s: number) => new Date(s * 1000).toISOString();

describe(`statements and balances at a point in time on random histories (fast-check seed ${SEED})`, () => {
  it(`hold opening + in − out = closing and balance(T) = sum of entries up to T over ${RUNS} histories`, {
    timeout: 240_000,
  }, async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(stepArb, { minLength: 3, maxLength: 18 }),
        fc.array(fc.tuple(fc.nat(), fc.nat()), { minLength: 2, maxLength: 4 }),
        async (steps, ranges) => {
          const { admin, user, wallet } = await makeAccount();
          const users: TestUser[] = [user, await makeUser()];
          const written: number[] = [];
          let clockS = T0 / 1000;
          for (const step of steps) {
            clockS += step.dtS;
            const app = appAt(clockS * 1000);
            const key = unique("p");
            let res: Awaited<ReturnType<typeof call>>;
            if (step.op === "reverse") {
              if (written.length === 0) continue;
              const id = written[step.pick % written.length]!;
              res = await call("POST", `/transactions/${id}/reverse`, {
                auth: admin.bearer,
                body: { request_id: key },
                app,
              });
            } else if (step.op === "transfer") {
              res = await call("POST", "/transfers", {
                auth: admin.bearer,
                body: {
                  from_user_id: users[step.to]!.id,
                  to_user_id: users[1 - step.to]!.id,
                  wallet_id: wallet,
                  amount: (step.minor / 100).toFixed(2),
                  request_id: key,
                },
                app,
              });
            } else {
              res = await call("POST", step.op === "credit" ? "/credits" : "/debits", {
                auth: admin.bearer,
                body: {
                  user_id: users[step.to]!.id,
                  wallet_id: wallet,
                  amount: (step.minor / 100).toFixed(2),
                  request_id: key,
                },
                app,
              });
            }
            // Refusals (no money, reversed twice) write nothing and are part of any history.
            expect(res.status, res.text).toBeLessThan(500);
            const data: Json = res.body.data ?? {};
            if (res.status === 200)
              written.push(
                ...[
                  data.transaction_id,
                  data.debit_transaction_id,
                  ...(data.transaction_ids ?? []),
                ].filter((id) => typeof id === "number"),
              );
          }

          const nowMs = (clockS + 3600) * 1000;
          for (const owner of users) {
            const chain = counted(await chainOf(owner.id, wallet));
            const instants = [
              T0 / 1000 - 1,
              ...chain.flatMap((e) => [e.createdS - 1, e.createdS, e.fromS]),
              clockS + 1,
            ];
            for (const atS of instants) {
              const res = await call("GET", "/user-wallet-balance", {
                auth: admin.bearer,
                query: { user_id: owner.id, wallet_id: wallet, at: iso(atS) },
                app: appAt(nowMs),
              });
              expect(minor(res.body.data[wallet]), `balance at ${atS}`).toBe(sumUpTo(chain, atS));
            }

            const span = Math.max(1, clockS - T0 / 1000 + 240);
            for (const [a, b] of ranges) {
              const [fromS, toS] = [
                T0 / 1000 - 120 + (a % span),
                T0 / 1000 - 120 + (b % span),
              ].sort((x, y) => x - y) as [number, number];
              const query = {
                user_id: owner.id,
                wallet_id: wallet,
                from: iso(fromS),
                to: iso(toS),
              };
              const json = await call("GET", "/statements", {
                auth: admin.bearer,
                query,
                app: appAt(nowMs),
              });
              expect(json.status, json.text).toBe(200);
              const s = json.body.data;
              const [opening, closing] = [minor(s.opening_balance), minor(s.closing_balance)];
              expect(opening + minor(s.total_in) - minor(s.total_out)).toBe(closing);
              expect(opening).toBe(sumUpTo(chain, fromS - 1));
              expect(closing).toBe(sumUpTo(chain, toS));
              const between = chain.filter((e) => e.fromS >= fromS && e.fromS <= toS);
              expect(s.count).toBe(between.length);
              expect(s.entries.map((e: Json) => e.ID)).toEqual(between.map((e) => e.id));

              const csv = await call("GET", "/statements", {
                auth: admin.bearer,
                query: { ...query, format: "csv" },
                app: appAt(nowMs),
              });
              const rows: string[][] = parse(csv.text, { record_delimiter: "\r\n" }).slice(1);
              let running = opening;
              for (const [i, row] of rows.entries()) {
                expect(Number(row[0])).toBe(s.entries[i].ID);
                expect(row[3]).toBe(s.entries[i].txn_type);
                running += (row[3] === "CREDIT" ? 1 : -1) * minor(Number(row[4]));
                expect(minor(Number(row[5]))).toBe(running);
              }
              expect(running).toBe(closing);
            }
          }
        },
      ),
      { seed: SEED, numRuns: RUNS },
    );
  });
});
