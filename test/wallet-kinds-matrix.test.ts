// Money between wallets of different kinds. A transfer names one wallet, so money crosses kinds only
// in a batch: an exchange, each user paying the other in a wallet of another kind (native with 2, 0
// and 8 places; imported storing more places than it shows: 2 shown 3 stored, 0 shown 2 stored, 8
// shown 12 stored). Each kind is paired with the next, in both roles. The batch, balanced, writes
// each leg in its own wallet's units (stored, and on each dialect: wallet/v1's balances and batch,
// the plugin's balances, the console's page), and its reversal puts every unit back. Refused
// batches name the wallet and the figures in its own places, and write nothing.
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { exactText, formatExact } from "../src/ledger/money";
import { GUARDED } from "./compat-helpers";
import { consoleOf } from "./console-helpers";
import {
  CLEAN,
  call,
  type Json,
  ledgerViolations,
  makeAdmin,
  makeKey,
  makeUser,
  type Reply,
  type TestUser,
  tableCounts,
  unique,
} from "./helpers";

type Kind = { name: string; decimals: number; extra: number };
const KINDS: Kind[] = [
  { name: "native, 2 places", decimals: 2, extra: 0 },
  { name: "native, 0 places", decimals: 0, extra: 0 },
  { name: "native, 8 places", decimals: 8, extra: 0 },
  { name: "imported, 2 shown and 3 stored", decimals: 2, extra: 1 },
  { name: "imported, 0 shown and 2 stored", decimals: 0, extra: 2 },
  { name: "imported, 8 shown and 12 stored", decimals: 8, extra: 4 },
];
const PAIRS = KINDS.map((from, i) => ({ from, to: KINDS[(i + 1) % KINDS.length]! }));

let key: string;
let cookie: string;
const con = consoleOf();
const wallets = new Map<Kind, string>();
const idOf = (k: Kind) => wallets.get(k)!;
const places = (k: Kind) => k.decimals + k.extra;
const units = (k: Kind) => ({ decimals: k.decimals, extraDecimals: k.extra });

/** Exact units of a decimal text in the kind's stored places (the texts here never pass them). */
function unitsOf(text: string, k: Kind) {
  const [integer, fraction = ""] = text.split(".");
  return BigInt(integer! + fraction.padEnd(places(k), "0"));
}
/** An amount using every place the kind shows: 1.77…7, or 1 on a 0-place wallet. */
const amountIn = (k: Kind, whole: number) =>
  k.decimals === 0 ? String(whole) : `${whole}.${"7".repeat(k.decimals)}`;

function ok(res: Reply) {
  expect(res.status, res.text).toBe(200);
  return res.body.data;
}

beforeAll(async () => {
  const admin = await makeAdmin();
  key = (await makeKey(admin, "read-write")).header;
  cookie = await con.signIn(admin);
  for (const [i, k] of KINDS.entries()) {
    const id = unique(`x${i}`).toLowerCase().slice(0, 24);
    // As the importer writes them (wallet/v1 makes none with extra places).
    await env.DB.prepare(
      `INSERT INTO wallets (id, name, symbol, symbol_position, decimals, extra_decimals, type, created_at_ms)
       VALUES (?, 'Kind', ?, 'left', ?, ?, 'fiat', 0)`,
    )
      .bind(id, `X${i}$`, k.decimals, k.extra)
      .run();
    wallets.set(k, id);
  }
});

/** Stored balance units of `user` in each kind's wallet. */
async function stored(user: TestUser, kinds: Kind[]) {
  return Promise.all(
    kinds.map(async (k) => {
      const row = await env.DB.prepare(
        "SELECT balance_minor AS b FROM balances WHERE user_id = ? AND wallet_id = ?",
      )
        .bind(user.id, idOf(k))
        .first<{ b: number }>();
      return BigInt(row?.b ?? 0);
    }),
  );
}

/** `user`'s balance in each kind's wallet on every dialect, as exact texts of the stored places. */
async function shown(user: TestUser, kinds: Kind[]) {
  const listed = ok(await call("GET", "/balances", { auth: key, query: { user_id: user.id } }));
  const page = await con.request(`/users/${user.id}`, { cookie });
  expect(page.status, page.html).toBe(200);
  return Promise.all(
    kinds.map(async (k) => {
      const id = idOf(k);
      const v1 = listed.find((r: Json) => r.wallet_id === id)?.balance ?? 0;
      const plugin = ok(
        await call("GET", "/wp-json/rimplenet/v1/user-wallet-balance", {
          auth: key,
          query: { user_id: user.id, wallet_id: id },
          vars: GUARDED,
        }),
      ).wallet_balance_raw;
      return { v1: (v1 as number).toFixed(places(k)), plugin: plugin.toFixed(places(k)), page };
    }),
  );
}

async function agree(user: TestUser, kinds: Kind[], expected: bigint[]) {
  expect(await stored(user, kinds)).toEqual(expected);
  const figures = await shown(user, kinds);
  kinds.forEach((k, i) => {
    const text = exactText(expected[i]!, { decimals: places(k), extraDecimals: 0 });
    const w = { ...units(k), symbol: `X${KINDS.indexOf(k)}$`, symbolPosition: "left" as const };
    expect([figures[i]!.v1, figures[i]!.plugin], k.name).toEqual([text, text]);
    expect(figures[i]!.page.html, k.name).toContain(formatExact(expected[i]!, w));
  });
}

describe.each(PAIRS)("an exchange from $from.name to $to.name", ({ from, to }) => {
  let a: TestUser;
  let b: TestUser;
  const funded = { from: unitsOf("10", from), to: unitsOf("10", to) };

  beforeAll(async () => {
    [a, b] = await Promise.all([makeUser(), makeUser()]);
    const fund = (user: TestUser, k: Kind) =>
      call("POST", "/credits", {
        auth: key,
        body: { user_id: user.id, wallet_id: idOf(k), amount: "10", request_id: unique("f") },
      });
    ok(await fund(a, from));
    ok(await fund(b, to));
  });

  it("moves each leg in its own wallet's units, on every dialect, and its reversal puts them back", async () => {
    const pay = amountIn(from, 3);
    const back = amountIn(to, 2);
    const batch = ok(
      await call("POST", "/batches", {
        auth: key,
        body: {
          request_id: unique("x"),
          balanced: true,
          operations: [
            {
              type: "transfer",
              from_user_id: a.id,
              to_user_id: b.id,
              wallet_id: idOf(from),
              amount: pay,
            },
            {
              type: "transfer",
              from_user_id: b.id,
              to_user_id: a.id,
              wallet_id: idOf(to),
              amount: back,
            },
          ],
        },
      }),
    );
    const [p, q] = [unitsOf(pay, from), unitsOf(back, to)];
    await agree(a, [from, to], [funded.from - p, q]);
    await agree(b, [from, to], [p, funded.to - q]);
    // The batch's legs, as GET /batches/{id} answers them: each in its wallet's figures.
    const read = ok(await call("GET", `/batches/${batch.batch_id}`, { auth: key }));
    const symbol = (k: Kind) => `X${KINDS.indexOf(k)}$`;
    expect(read.transactions.map((e: Json) => [e.txn_type, e.wallet_symbol, e.amount])).toEqual([
      ["DEBIT", symbol(from), exactText(p, units(from))],
      ["CREDIT", symbol(from), exactText(p, units(from))],
      ["DEBIT", symbol(to), exactText(q, units(to))],
      ["CREDIT", symbol(to), exactText(q, units(to))],
    ]);
    ok(await call("POST", `/batches/${batch.batch_id}/reverse`, { auth: key, body: {} }));
    await agree(a, [from, to], [funded.from, 0n]);
    await agree(b, [from, to], [0n, funded.to]);
    expect(await ledgerViolations()).toEqual(CLEAN);
  });

  it("refuses a batch unbalanced in one wallet, naming it and its figures in its own places", async () => {
    const before = await tableCounts();
    const extra = amountIn(from, 1);
    const res = await call("POST", "/batches", {
      auth: key,
      body: {
        request_id: unique("u"),
        balanced: true,
        operations: [
          {
            type: "transfer",
            from_user_id: b.id,
            to_user_id: a.id,
            wallet_id: idOf(to),
            amount: "1",
          },
          { type: "credit", user_id: a.id, wallet_id: idOf(from), amount: extra },
        ],
      },
    });
    expect([res.status, res.body.error]).toEqual([
      400,
      {
        balanced: `credits (${exactText(unitsOf(extra, from), units(from))}) and debits (${exactText(0n, units(from))}) differ in wallet ${idOf(from)}`,
      },
    ]);
    expect(await tableCounts()).toEqual(before);
  });

  it("refuses a leg with a place more than its wallet shows, whatever the other leg's wallet takes", async () => {
    const before = await tableCounts();
    // One place past what `to` shows: within what `from` shows when it shows more.
    const past = `1.${"0".repeat(to.decimals)}1`;
    const res = await call("POST", "/batches", {
      auth: key,
      body: {
        request_id: unique("p"),
        operations: [
          { type: "debit", user_id: a.id, wallet_id: idOf(from), amount: "1" },
          { type: "credit", user_id: b.id, wallet_id: idOf(to), amount: past },
        ],
      },
    });
    expect([res.status, res.body.error]).toEqual([
      400,
      {
        "operations[1].amount": `amount has more decimal places than wallet ${idOf(to)} allows (${to.decimals})`,
      },
    ]);
    expect(await tableCounts()).toEqual(before);
  });
});
