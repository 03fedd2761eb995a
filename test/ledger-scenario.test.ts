import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { minorToNumber, minorToText } from "../src/ledger/money";
import {
  alreadyExists,
  CLEAN,
  call,
  INSUFFICIENT,
  type Json,
  ledgerViolations,
  makeAdmin,
  makeUser,
  makeWallet,
  mulberry32,
  type Reply,
  type TestUser,
  tableCounts,
  unique,
} from "./helpers";

const SEED = 20240613;
const OPERATIONS = 300;

type Kind = "CREDIT" | "DEBIT";
/** One entry as the model expects it in the ledger. */
type Entry = {
  id: number;
  user: number;
  wallet: number;
  type: Kind;
  minor: number;
  peer?: number;
  reverses?: number;
  reversed: boolean;
};

describe("ledger scenario", () => {
  it(`keeps every invariant through ${OPERATIONS} seeded credits, debits, transfers and reversals, some refused`, {
    timeout: 120_000,
  }, async () => {
    const rand = mulberry32(SEED);
    const int = (lo: number, hi: number) => lo + Math.floor(rand() * (hi - lo + 1));
    const pick = <T>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)]!;

    const admin: TestUser = await makeAdmin();
    const users: TestUser[] = [];
    for (let i = 0; i < 4; i++) users.push(await makeUser());
    const decimals = [2, 0];
    const wallets = [
      await makeWallet(admin, { decimals: decimals[0] }),
      await makeWallet(admin, { decimals: decimals[1], symbol: "PTS", position: "right" }),
    ];

    // The model: balances in minor units, every entry written, and each user's used request ids.
    const balance = new Map<string, number>();
    const bal = (u: number, w: number) => balance.get(`${u}|${w}`) ?? 0;
    const add = (u: number, w: number, delta: number) =>
      balance.set(`${u}|${w}`, bal(u, w) + delta);
    const entries = new Map<number, Entry>();
    const keyed: { user: number; requestId: string; entryId: number }[] = [];
    const credited = [0, 0];
    const debited = [0, 0];
    const tally: Record<string, number> = {};
    const count = (label: string) => (tally[label] = (tally[label] ?? 0) + 1);

    const write = (e: Entry) => {
      entries.set(e.id, e);
      add(e.user, e.wallet, e.type === "CREDIT" ? e.minor : -e.minor);
      (e.type === "CREDIT" ? credited : debited)[e.wallet]! += e.minor;
    };

    /** Amount on the wire: decimal text, or sometimes a JSON number when that is exact. */
    const wire = (minor: number, w: number): string | number => {
      const text = minorToText(minor, decimals[w]!);
      return rand() < 0.3 ? Number(text) : text;
    };
    const amountFor = (w: number) => (w === 0 ? int(1, 20_000) : int(1, 200));
    /** Often within the balance, sometimes exactly it, sometimes one unit over, sometimes anything. */
    const spendFor = (u: number, w: number) => {
      const b = bal(u, w);
      const r = rand();
      if (b > 0 && r < 0.45) return int(1, b);
      if (b > 0 && r < 0.6) return b;
      if (r < 0.75) return b + 1;
      return amountFor(w);
    };

    /** Sends one request; a refusal must leave every table as it was, a success writes `entriesWritten` rows. */
    async function send(
      label: string,
      method: string,
      path: string,
      body: Json,
      expectedStatus: number,
      entriesWritten: number,
    ): Promise<Reply> {
      const before = (await tableCounts()) as Json;
      const res = await call(method, path, { auth: admin.bearer, body });
      const context = `${label} ${path} ${JSON.stringify(body)} -> ${res.text}`;
      expect(res.status, context).toBe(expectedStatus);
      const after = (await tableCounts()) as Json;
      if (expectedStatus === 200)
        expect(after.transactions - before.transactions, context).toBe(entriesWritten);
      else expect(after, context).toEqual(before);
      count(`${label} ${expectedStatus}`);
      return res;
    }

    for (let step = 0; step < OPERATIONS; step++) {
      const r = rand();
      const w = int(0, 1);
      const u = int(0, 3);
      const user = users[u]!;
      const wallet = wallets[w]!;

      if (r < 0.28 || entries.size === 0) {
        const minor = amountFor(w);
        const requestId = unique("c");
        const res = await send(
          "credit",
          "POST",
          "/credits",
          { user_id: user.id, wallet_id: wallet, amount: wire(minor, w), request_id: requestId },
          200,
          1,
        );
        const id = res.body.data.transaction_id as number;
        write({ id, user: u, wallet: w, type: "CREDIT", minor, reversed: false });
        keyed.push({ user: u, requestId, entryId: id });
      } else if (r < 0.5) {
        const minor = spendFor(u, w);
        const requestId = unique("d");
        const fits = minor <= bal(u, w);
        const res = await send(
          "debit",
          "POST",
          "/debits",
          { user_id: user.id, wallet_id: wallet, amount: wire(minor, w), request_id: requestId },
          fits ? 200 : 400,
          1,
        );
        if (fits) {
          const id = res.body.data.transaction_id as number;
          write({ id, user: u, wallet: w, type: "DEBIT", minor, reversed: false });
          keyed.push({ user: u, requestId, entryId: id });
        } else expect(res.body).toEqual(INSUFFICIENT);
      } else if (r < 0.72) {
        const to = (u + int(1, 3)) % 4;
        const minor = spendFor(u, w);
        const requestId = unique("t");
        const fits = minor <= bal(u, w);
        const body = {
          from_user_id: user.id,
          to_user_id: users[to]!.id,
          wallet_id: wallet,
          amount: wire(minor, w),
          request_id: requestId,
          note: `step ${step}`,
        };
        const res = await send("transfer", "POST", "/transfers", body, fits ? 200 : 400, 2);
        if (fits) {
          const { debit_transaction_id: d, credit_transaction_id: c } = res.body.data as {
            debit_transaction_id: number;
            credit_transaction_id: number;
          };
          write({ id: d, user: u, wallet: w, type: "DEBIT", minor, peer: c, reversed: false });
          write({ id: c, user: to, wallet: w, type: "CREDIT", minor, peer: d, reversed: false });
          keyed.push({ user: u, requestId, entryId: d });
        } else expect(res.body).toEqual(INSUFFICIENT);
      } else if (r < 0.75) {
        const body = {
          from_user_id: user.id,
          to_user_id: user.id,
          wallet_id: wallet,
          amount: 1,
          request_id: unique("s"),
        };
        const res = await send("self-transfer", "POST", "/transfers", body, 400, 0);
        expect(res.body.error).toEqual({ to_user_id: "to_user_id must differ from from_user_id" });
      } else if (r < 0.92) {
        // Reverse any earlier entry: originals, halves of transfers, already-reversed ones and reversals.
        const target = entries.get(pick([...entries.keys()]))!;
        const halves = [target, ...(target.peer === undefined ? [] : [entries.get(target.peer)!])];
        const requestId = unique("r");
        const path = `/transactions/${target.id}/reverse`;
        if (halves.some((h) => h.reverses !== undefined)) {
          const res = await send(
            "reverse-a-reversal",
            "POST",
            path,
            { request_id: requestId },
            400,
            0,
          );
          expect(res.body.error).toEqual({ id: "a reversal cannot be reversed" });
        } else if (target.reversed) {
          const res = await send("reverse-again", "POST", path, { request_id: requestId }, 409, 0);
          expect(res.body.message).toBe("Transaction already reversed");
        } else {
          // A half whose reversal is a DEBIT must be covered by its owner's balance now.
          const fits = halves.every((h) => h.type === "DEBIT" || h.minor <= bal(h.user, h.wallet));
          const res = await send(
            "reverse",
            "POST",
            path,
            { request_id: requestId, note: `undo ${target.id}` },
            fits ? 200 : 400,
            halves.length,
          );
          if (fits) {
            expect(res.body.data.reversed_transaction_ids).toEqual(halves.map((h) => h.id));
            const ids = res.body.data.transaction_ids as number[];
            expect(ids).toHaveLength(halves.length);
            halves.forEach((h, i) => {
              h.reversed = true;
              const peer = halves.length === 2 ? ids[1 - i] : undefined;
              write({
                id: ids[i]!,
                user: h.user,
                wallet: h.wallet,
                type: h.type === "CREDIT" ? "DEBIT" : "CREDIT",
                minor: h.minor,
                reverses: h.id,
                peer,
                reversed: false,
              });
            });
            keyed.push({ user: target.user, requestId, entryId: ids[0]! });
          } else expect(res.body).toEqual(INSUFFICIENT);
        }
      } else {
        // Replay a used request_id (in other letter case) through another kind of request: always 409, nothing written.
        if (keyed.length === 0) continue;
        const used = pick(keyed);
        const owner = users[used.user]!;
        const requestId = rand() < 0.5 ? used.requestId.toUpperCase() : used.requestId;
        const how = int(0, 3);
        const ownEntries = [...entries.values()].filter(
          (e) =>
            e.user === used.user &&
            e.reverses === undefined &&
            (e.peer === undefined || entries.get(e.peer)!.reverses === undefined),
        );
        let res: Reply;
        if (how === 0) {
          res = await send(
            "replay-as-credit",
            "POST",
            "/credits",
            {
              user_id: owner.id,
              wallet_id: wallet,
              amount: wire(amountFor(w), w),
              request_id: requestId,
            },
            409,
            0,
          );
        } else if (how === 1) {
          res = await send(
            "replay-as-debit",
            "POST",
            "/debits",
            {
              user_id: owner.id,
              wallet_id: wallet,
              amount: wire(amountFor(w), w),
              request_id: requestId,
            },
            409,
            0,
          );
        } else if (how === 2 || ownEntries.length === 0) {
          const to = users[(used.user + int(1, 3)) % 4]!;
          const body = {
            from_user_id: owner.id,
            to_user_id: to.id,
            wallet_id: wallet,
            amount: wire(amountFor(w), w),
            request_id: requestId,
          };
          res = await send("replay-as-transfer", "POST", "/transfers", body, 409, 0);
        } else {
          // The reversal's request_id belongs to the named entry's owner.
          const target = pick(ownEntries);
          res = await send(
            "replay-as-reverse",
            "POST",
            `/transactions/${target.id}/reverse`,
            { request_id: requestId },
            409,
            0,
          );
        }
        expect(res.body).toEqual(alreadyExists(used.entryId));
      }
    }

    // The scenario really exercised what it claims to.
    for (const label of [
      "credit 200",
      "debit 200",
      "debit 400",
      "transfer 200",
      "transfer 400",
      "reverse 200",
      "reverse 400",
      "reverse-again 409",
      "reverse-a-reversal 400",
      "self-transfer 400",
    ]) {
      expect(tally[label] ?? 0, `${label} in ${JSON.stringify(tally)}`).toBeGreaterThan(0);
    }
    expect(
      Object.entries(tally)
        .filter(([k]) => k.startsWith("replay"))
        .reduce((n, [, v]) => n + v, 0),
    ).toBeGreaterThan(5);

    // Invariants the helper checks over the whole database.
    expect(await ledgerViolations()).toEqual(CLEAN);

    const userIds = users.map((x) => x.id);
    for (let u = 0; u < 4; u++) {
      for (let w = 0; w < 2; w++) {
        const label = `user ${u} wallet ${w}`;
        // The API's balance is the model's.
        const res = await call("GET", "/user-wallet-balance", {
          auth: admin.bearer,
          query: { user_id: users[u]!.id, wallet_id: wallets[w]! },
        });
        expect(res.body.data[wallets[w]!], label).toBe(minorToNumber(bal(u, w), decimals[w]!));
        expect(bal(u, w), label).toBeGreaterThanOrEqual(0);

        // The stored balance is the sum of the entries, and each entry continues the one before.
        const { results: rows } = await env.DB.prepare(
          `SELECT id, txn_type, amount_minor, balance_before_minor, balance_after_minor FROM transactions WHERE user_id = ? AND wallet_id = ? ORDER BY id`,
        )
          .bind(users[u]!.id, wallets[w]!)
          .all<{
            id: number;
            txn_type: Kind;
            amount_minor: number;
            balance_before_minor: number;
            balance_after_minor: number;
          }>();
        const sum = rows.reduce(
          (s, e) => s + (e.txn_type === "CREDIT" ? e.amount_minor : -e.amount_minor),
          0,
        );
        const stored = await env.DB.prepare(
          `SELECT balance_minor FROM balances WHERE user_id = ? AND wallet_id = ?`,
        )
          .bind(users[u]!.id, wallets[w]!)
          .first<{ balance_minor: number }>();
        expect(stored?.balance_minor ?? 0, label).toBe(sum);
        expect(sum, label).toBe(bal(u, w));
        let previous = 0;
        for (const e of rows) {
          expect(e.balance_before_minor, `${label} entry ${e.id}`).toBe(previous);
          expect(e.balance_after_minor, `${label} entry ${e.id}`).toBe(
            e.balance_before_minor + (e.txn_type === "CREDIT" ? e.amount_minor : -e.amount_minor),
          );
          expect(e.balance_after_minor, `${label} entry ${e.id}`).toBeGreaterThanOrEqual(0);
          previous = e.balance_after_minor;
        }
        // Exactly the entries the model saw succeed, no more.
        expect(
          rows.map((e) => e.id),
          label,
        ).toEqual(
          [...entries.values()]
            .filter((e) => e.user === u && e.wallet === w)
            .map((e) => e.id)
            .sort((a, b) => a - b),
        );
      }
    }

    // Total money per wallet is what was credited minus what was debited by requests that succeeded.
    for (let w = 0; w < 2; w++) {
      const total = await env.DB.prepare(
        `SELECT coalesce(sum(balance_minor), 0) AS n FROM balances WHERE wallet_id = ?`,
      )
        .bind(wallets[w]!)
        .first<{ n: number }>();
      expect(total!.n, `wallet ${w}`).toBe(credited[w]! - debited[w]!);
      const modelTotal = [0, 1, 2, 3].reduce((s, u) => s + bal(u, w), 0);
      expect(total!.n, `wallet ${w}`).toBe(modelTotal);
    }

    // Links: every transfer id joins one DEBIT and one CREDIT of the same amount between two users;
    // every reversal is the opposite of the entry it names, for the same user and wallet.
    const { results: groups } = await env.DB.prepare(
      `SELECT transfer_id, count(*) AS n, count(DISTINCT user_id) AS users, sum(txn_type = 'DEBIT') AS debits,
         sum(CASE txn_type WHEN 'CREDIT' THEN amount_minor ELSE -amount_minor END) AS net
       FROM transactions WHERE transfer_id IS NOT NULL AND user_id IN (${userIds.join(",")}) GROUP BY transfer_id`,
    ).all<{ n: number; users: number; debits: number; net: number }>();
    expect(groups.length).toBeGreaterThan(0);
    for (const g of groups) expect(g).toMatchObject({ n: 2, users: 2, debits: 1, net: 0 });
    const { results: badReversals } = await env.DB.prepare(
      `SELECT r.id FROM transactions r JOIN transactions o ON o.id = r.reverses_id
       WHERE r.user_id IN (${userIds.join(",")})
         AND (o.user_id IS NOT r.user_id OR o.wallet_id IS NOT r.wallet_id OR o.amount_minor IS NOT r.amount_minor OR o.txn_type = r.txn_type OR o.reverses_id IS NOT NULL)`,
    ).all();
    expect(badReversals).toEqual([]);
    const reversalCount = await env.DB.prepare(
      `SELECT count(*) AS n FROM transactions WHERE reverses_id IS NOT NULL AND user_id IN (${userIds.join(",")})`,
    ).first<{ n: number }>();
    expect(reversalCount!.n).toBe(
      [...entries.values()].filter((e) => e.reverses !== undefined).length,
    );
  });
});
