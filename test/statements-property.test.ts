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

/** An instant in epoch ms written as ISO 8601 with a given offset in minutes (`Z` for 0 when `z`). */
function isoWithOffset(ms: number, offsetMin: number, z: boolean) {
  if (offsetMin === 0 && z) return new Date(ms).toISOString();
  const local = new Date(ms + offsetMin * 60_000).toISOString().slice(0, 23);
  const sign = offsetMin < 0 ? "-" : "+";
  const abs = Math.abs(offsetMin);
  return `${local}${sign}${String(Math.floor(abs / 60)).padStart(2, "0")}:${String(abs % 60).padStart(2, "0")}`;
}

describe(`statements, balances and after/before where entries share seconds (fast-check seed ${SEED})`, () => {
  it("agree with each other and with the entries' order by id, at instants that cut through a second", {
    timeout: 240_000,
  }, async () => {
    const offsets = fc.constantFrom(0, 840, -720, 345, -210);
    const instant = fc.record({ at: fc.nat(), offset: offsets, z: fc.boolean() });
    await fc.assert(
      fc.asyncProperty(
        // Groups of writes sent at once (group commit writes them together), each a few hundred
        // ms after the last, now and then back (a clock behind).
        fc.array(
          fc.record({
            dtMs: fc.integer({ min: -1200, max: 1500 }),
            amounts: fc.array(fc.integer({ min: -3000, max: 9000 }), {
              minLength: 1,
              maxLength: 4,
            }),
          }),
          { minLength: 2, maxLength: 8 },
        ),
        fc.array(fc.tuple(instant, instant), { minLength: 2, maxLength: 4 }),
        async (groups, ranges) => {
          const { admin, user, wallet } = await makeAccount();
          let clockMs = T0;
          for (const group of groups) {
            clockMs += group.dtMs;
            const replies = await Promise.all(
              group.amounts.map((signed, i) =>
                call("POST", signed < 0 ? "/debits" : "/credits", {
                  auth: admin.bearer,
                  body: {
                    user_id: user.id,
                    wallet_id: wallet,
                    amount: (Math.max(1, Math.abs(signed)) / 100).toFixed(2),
                    request_id: unique("d"),
                  },
                  app: appAt(clockMs + 7 * i),
                }),
              ),
            );
            for (const res of replies) expect(res.status, res.text).toBeLessThan(500);
          }
          const chain = counted(await chainOf(user.id, wallet));
          const nowMs = clockMs + 3_600_000;
          const firstMs = T0 - 5_000;
          const span = clockMs - firstMs + 10_000;
          const ask = (path: string, query: Record<string, string | number>) =>
            call("GET", path, {
              auth: admin.bearer,
              query: { user_id: user.id, wallet_id: wallet, ...query },
              app: appAt(nowMs),
            });
          const byDate = [...chain].sort((a, b) => a.createdS - b.createdS || a.id - b.id);
          for (const [a, b] of ranges) {
            const [fromMs, toMs] = [firstMs + (a.at % span), firstMs + (b.at % span)].sort(
              (x, y) => x - y,
            ) as [number, number];
            const from = isoWithOffset(fromMs, a.offset, a.z);
            const to = isoWithOffset(toMs, b.offset, b.z);
            const [fromS, toS] = [Math.ceil(fromMs / 1000), Math.floor(toMs / 1000)];

            const balance = await ask("/user-wallet-balance", { at: to });
            expect(minor(balance.body.data[wallet]), `at ${to}`).toBe(sumUpTo(chain, toS));

            const s = (await ask("/statements", { from, to })).body.data;
            const between = chain.filter((e) => e.fromS >= fromS && e.fromS <= toS);
            expect(minor(s.opening_balance), `${from}..${to}`).toBe(sumUpTo(chain, fromS - 1));
            expect(minor(s.closing_balance)).toBe(sumUpTo(chain, toS));
            expect(minor(s.opening_balance) + minor(s.total_in) - minor(s.total_out)).toBe(
              minor(s.closing_balance),
            );
            expect(s.entries.map((e: Json) => e.ID)).toEqual(between.map((e) => e.id));

            // after/before are exclusive, on each entry's own date: one dated in a bound's second
            // is before that bound unless the bound is the second's very start.
            const listed = await ask("/transactions", {
              security_code: 0,
              after: from,
              before: to,
              order: "asc",
            });
            const inside = byDate.filter(
              (e) => e.createdS * 1000 > fromMs && e.createdS * 1000 < toMs,
            );
            expect(
              listed.body.data.map((e: Json) => e.ID),
              `after ${from} before ${to}`,
            ).toEqual(inside.map((e) => e.id));
          }
        },
      ),
      { seed: SEED, numRuns: RUNS },
    );
  });
});
