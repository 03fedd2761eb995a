// Every kind of wallet × every verb that moves money × every surface that moves or shows it. One
// scenario runs on each kind: a native wallet, wallets the WordPress import made that store more
// places than they show (2 shown 3 stored, 0 shown 2 stored, 8 shown 12 stored), a 0-place wallet
// and one near the largest balance; and wallets made through the API: one of 8 places (the most
// wallet/v1 allows), the default wallet (POST /wallets with every optional field left out) and one
// re-created after deletion (made and deleted through the plugin, made again through wallet/v1,
// with this isolate having read it before). Credits, debits and transfers go through wallet/v1, the
// plugin's dialect (amounts past the stored places, rounded half away from zero) and the console's
// forms; holds are placed, captured and voided through wallet/v1 and the console; a batch and its
// reversal, and single reversals, through both. A model of the ledger kept here in exact integers
// says what each step moves; after each, every surface must show the model's figures: the stored
// balance and the sum of the entries, wallet/v1's balance, balances, summary, statement and CSV,
// the plugin's balance and summary, and the console's page. Last, the shown (rounded) balance is
// debited: refused where it rounds above what is there, else leaving the dust below the display.
// Every entry, read one by one and in each list (wallet/v1's history, its records, the plugin's
// search, the statement in JSON and CSV and the console's page), must show the amount stored.
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { exactText, formatExact, formatMoney } from "../src/ledger/money";
import { GUARDED } from "./compat-helpers";
import { consoleOf, form, noticeLeft } from "./console-helpers";
import {
  appAt,
  CLEAN,
  call,
  INSUFFICIENT,
  type Json,
  ledgerViolations,
  makeAdmin,
  makeKey,
  makeUser,
  type Reply,
  storedBalance,
  type TestUser,
  unique,
} from "./helpers";

const NS = "/wp-json/rimplenet/v1";

/** How the wallet is made: by SQL (as the importer writes it) unless named. */
type Made = "sql" | "wallet/v1" | "defaults" | "re-created";
type Kind = { name: string; decimals: number; extra: number; start: string; made?: Made };
const KINDS: Kind[] = [
  { name: "native, 2 places", decimals: 2, extra: 0, start: "1000" },
  { name: "imported, 2 shown and 3 stored", decimals: 2, extra: 1, start: "1000" },
  { name: "imported, 0 shown and 2 stored", decimals: 0, extra: 2, start: "1000" },
  // 12 places: the largest balance is 999.999999999999.
  { name: "imported, 8 shown and 12 stored", decimals: 8, extra: 4, start: "100" },
  { name: "native, 0 places", decimals: 0, extra: 0, start: "1000" },
  // 999,999,999,999,999 units is the most a balance holds: 20 units of headroom for the credits.
  {
    name: "native, 2 places, near the largest balance",
    decimals: 2,
    extra: 0,
    start: "9999999999970",
  },
  {
    name: "native, 8 places, made by POST /wallets",
    decimals: 8,
    extra: 0,
    start: "100",
    made: "wallet/v1",
  },
  {
    name: "the default wallet (POST /wallets, no optional field)",
    decimals: 2,
    extra: 0,
    start: "1000",
    made: "defaults",
  },
  {
    name: "re-created after deletion, 4 places",
    decimals: 4,
    extra: 0,
    start: "1000",
    made: "re-created",
  },
];

let admin: TestUser;
let key: string;
let cookie: string;
let csrf: string;
const con = consoleOf();

beforeAll(async () => {
  admin = await makeAdmin();
  key = (await makeKey(admin, "read-write")).header;
  cookie = await con.signIn(admin);
  const page = await con.request("/", { cookie });
  csrf = page.html.match(/name="_csrf" value="([^"]+)"/)![1]!;
});

/** A plugin-safe key (letters, digits, underscore). */
const rid = () => unique("k").replaceAll(/[^a-z0-9]/gi, "_");

/** Exact units of a decimal text at `places`, rounded half away from zero past them. */
function unitsOf(text: string, places: number) {
  const [integer, fraction = ""] = text.split(".");
  const kept = BigInt(integer! + fraction.slice(0, places).padEnd(places, "0"));
  return fraction.length > places && fraction[places]! >= "5" ? kept + 1n : kept;
}
/** A JSON number of a balance, as exact units (it carries at most 15 digits). */
const unitsOfNumber = (n: number, places: number) => unitsOf(n.toFixed(places), places);

/** What the ledger holds for one user in the scenario's wallet: balance and held, in units. */
type Position = { balance: bigint; held: bigint };

async function v1(method: string, path: string, body?: Json, query?: Json) {
  return call(method, path, { auth: key, body, query });
}
const plugin = (method: string, path: string, body?: Json, query?: Json) =>
  call(method, `${NS}${path}`, { auth: key, body, query, vars: GUARDED });
/** The plugin's transfers take a token (its JWT routes). */
const pluginTransfer = (body: Json) =>
  call("POST", `${NS}/transfers`, { auth: admin.bearer, body, vars: GUARDED });

/** A console form, sent as the operator's browser sends it; the notice it left (`ok:…`). */
async function consoleForm(path: string, fields: Record<string, string | number>) {
  const res = await con.request(path, {
    method: "POST",
    cookie,
    // A money form as its confirmation's Confirm sends it.
    body: form({ _csrf: csrf, step: "confirm", ...fields }),
  });
  expect(res.status, res.html).toBe(303);
  return noticeLeft(res);
}

function ok(res: Reply) {
  expect(res.status, res.text).toBe(200);
  return res.body.data;
}

/** Makes the kind's wallet as its `made` says; `reader` reads it first where the kind needs that. */
async function makeKind(kind: Kind, id: string, symbol: string, reader: TestUser) {
  const made = kind.made ?? "sql";
  if (made === "sql") {
    await env.DB.prepare(
      `INSERT INTO wallets (id, name, symbol, symbol_position, decimals, extra_decimals, type, created_at_ms)
       VALUES (?, 'Kind', ?, 'left', ?, ?, 'fiat', 0)`,
    )
      .bind(id, symbol, kind.decimals, kind.extra)
      .run();
    return;
  }
  const body: Json = { wallet_id: id, wallet_name: "Kind", wallet_symbol: symbol };
  if (made !== "defaults") body.wallet_decimal = kind.decimals;
  if (made === "re-created") {
    const pluginAdmin = { auth: admin.bearer, vars: GUARDED };
    const first = await call("POST", `${NS}/wallets`, {
      ...pluginAdmin,
      body: { ...body, wallet_type: "fiat" },
    });
    expect(first.status, first.text).toBe(200);
    // Read through both dialects, so that this isolate knows the wallet it then deletes.
    ok(await v1("GET", "/user-wallet-balance", undefined, { user_id: reader.id, wallet_id: id }));
    ok(
      await plugin("GET", "/user-wallet-balance", undefined, { user_id: reader.id, wallet_id: id }),
    );
    const gone = await call("DELETE", `${NS}/wallets/${id}`, pluginAdmin);
    expect(gone.status, gone.text).toBe(200);
  }
  ok(await call("POST", "/wallets", { auth: admin.bearer, body }));
  const row = await env.DB.prepare("SELECT decimals, extra_decimals FROM wallets WHERE id = ?")
    .bind(id)
    .first();
  expect(row).toEqual({ decimals: kind.decimals, extra_decimals: kind.extra });
}

// Each kind's steps build on the one before (the model carries over): a scenario, run in order.
describe("each kind of wallet, step by step", { shuffle: false }, () => {
  describe.each(KINDS)("a wallet: $name", (kind) => {
    const places = kind.decimals + kind.extra;
    let wallet: string;
    let w: { decimals: number; extraDecimals: number; symbol: string; symbolPosition: "left" };
    let a: TestUser;
    let b: TestUser;
    const model = new Map<number, Position>();
    const at = (u: TestUser) => model.get(u.id)!;
    /** Units of a display-precision amount (what wallet/v1 and the console accept). */
    const u = (text: string) => unitsOf(text, places);

    beforeAll(async () => {
      // Letters only: the plugin's POST wallets takes no digit in an id.
      wallet = unique("s")
        .toLowerCase()
        .slice(0, 20)
        .replaceAll(/\d/g, (d) => "abcdefghij"[Number(d)]!);
      const symbol = `S${KINDS.indexOf(kind)}$`;
      [a, b] = await Promise.all([makeUser(), makeUser()]);
      await makeKind(kind, wallet, symbol, a);
      w = { decimals: kind.decimals, extraDecimals: kind.extra, symbol, symbolPosition: "left" };
      model.set(a.id, { balance: 0n, held: 0n });
      model.set(b.id, { balance: 0n, held: 0n });
    });

    /** Every surface's figures for `user` against the model. */
    async function surfacesAgree(user: TestUser) {
      const { balance, held } = at(user);
      const available = balance - held;
      const q = { user_id: user.id, wallet_id: wallet };
      const row = await storedBalance(user.id, wallet);
      const n = (x: number) => unitsOfNumber(x, places);
      const one = ok(
        await v1("GET", "/user-wallet-balance", undefined, { ...q, formatted: "yes" }),
      );
      const all = ok(await v1("GET", "/balances", undefined, { user_id: user.id })).find(
        (r: Json) => r.wallet_id === wallet,
      );
      const summary = ok(await v1("GET", `/wallets/${wallet}/summary`, undefined, q));
      const pBalance = ok(await plugin("GET", "/user-wallet-balance", undefined, q));
      const pSummary = ok(await plugin("GET", "/wallet-summary", undefined, q));
      // A clock two seconds on, so that this second's entries are in the statement.
      const later = appAt(Date.now() + 2000);
      const statement = await call("GET", "/statements", { auth: key, query: q, app: later });
      const csv = await call("GET", "/statements", {
        auth: key,
        query: { ...q, format: "csv" },
        app: later,
      });
      const page = await con.request(`/users/${user.id}?wallet=${wallet}`, { cookie });
      expect(page.status, page.html).toBe(200);
      expect({
        stored: BigInt(row.balance),
        entries: BigInt(row.total),
        balance: n(one[wallet]),
        shown: one.formatted[wallet],
        listed: [n(all.balance), n(all.held), n(all.available)],
        summary: [n(summary.balance), n(summary.held), n(summary.available)],
        plugin: n(pBalance.wallet_balance_raw),
        pluginShown: pBalance.wallet_balance_formatted,
        pluginSummary: [
          n(pSummary.wallet_balance_raw),
          n(pSummary.wallet_held_raw),
          n(pSummary.wallet_available_raw),
        ],
        statement: n(statement.body.data.closing_balance),
        csv: csv.headers.get("x-statement-closing-balance"),
        // The console shows every stored digit (formatExact), so that its rows add up.
        console: [
          page.html.includes(formatExact(balance, w)),
          page.html.includes(formatExact(available, w)),
        ],
      }).toEqual({
        stored: balance,
        entries: balance,
        balance,
        shown: formatMoney(balance, w),
        listed: [balance, held, available],
        summary: [balance, held, available],
        plugin: balance,
        pluginShown: formatMoney(balance, w),
        pluginSummary: [balance, held, available],
        statement: balance,
        csv: exactText(balance, { decimals: places, extraDecimals: 0 }),
        console: [true, true],
      });
    }
    /**
     * Every entry of `user` in the wallet, as each surface shows it, against the stored units:
     * wallet/v1's history and each of its records, the plugin's search, the statement (JSON and
     * CSV) and the console's page; their signed sum is the model's balance.
     */
    async function entriesAgree(user: TestUser) {
      const stored = (
        await env.DB.prepare(
          "SELECT id, txn_type, amount_minor FROM transactions WHERE user_id = ? AND wallet_id = ? ORDER BY id",
        )
          .bind(user.id, wallet)
          .all<{ id: number; txn_type: string; amount_minor: number }>()
      ).results.map((r) => [r.id, r.txn_type, BigInt(r.amount_minor)] as const);
      const expected = stored.map(([id, type, units]) => [id, type, units]);
      const signed = stored.reduce((t, [, type, n]) => (type === "CREDIT" ? t + n : t - n), 0n);
      expect(signed).toBe(at(user).balance);
      const q = { user_id: user.id, wallet_id: wallet };
      const history = ok(
        await v1("GET", "/transactions", undefined, { ...q, security_code: 1, order: "asc" }),
      ) as Json[];
      /** Rows led by an entry's id, in id order (the statement keeps the chain's order). */
      const byId = <T extends unknown[]>(rows: T[]) =>
        rows.sort((x, y) => Number(x[0]) - Number(y[0]));
      expect(byId(history.map((e) => [e.ID, e.txn_type, u(e.amount)]))).toEqual(expected);
      const records = await Promise.all(
        stored.map(async ([id]) => ok(await v1("GET", `/transactions/${id}`)) as Json),
      );
      expect(records.map((e) => [e.ID, e.txn_type, u(e.amount)])).toEqual(expected);
      const found = ok(
        await plugin("GET", "/transactions", undefined, {
          meta_key: "currency",
          meta_value: wallet,
          posts_per_page: 100,
          orderby: "ID",
          order: "ASC",
        }),
      ) as Json[];
      const mine = found.filter((e) => e.user_id === user.id);
      // Its amount_formatted is the amount as sent (the plugin's), so only the number is compared.
      expect(mine.map((e) => [e.ID, e.transaction_type, unitsOfNumber(e.amount, places)])).toEqual(
        expected,
      );
      const later = appAt(Date.now() + 2000);
      const statement = ok(await call("GET", "/statements", { auth: key, query: q, app: later }));
      expect(byId(statement.entries.map((e: Json) => [e.ID, e.txn_type, u(e.amount)]))).toEqual(
        expected,
      );
      const csv = await call("GET", "/statements", {
        auth: key,
        query: { ...q, format: "csv" },
        app: later,
      });
      const rows = csv.text
        .trim()
        .split("\r\n")
        .slice(1)
        .map((line) => line.split(","));
      expect(byId(rows.map((r) => [Number(r[0]), r[3], r[4]]))).toEqual(
        stored.map(([id, type, units]) => [
          id,
          type,
          exactText(units, { decimals: places, extraDecimals: 0 }),
        ]),
      );
      const page = await con.request(`/users/${user.id}?wallet=${wallet}`, { cookie });
      for (const [id, , units] of stored)
        expect(page.html, `entry ${id}`).toContain(formatExact(units, w));
    }
    const move = (user: TestUser, units: bigint) => {
      at(user).balance += units;
    };

    it("credits through wallet/v1, the plugin (rounded to the stored places) and the console", async () => {
      ok(
        await v1("POST", "/credits", {
          user_id: a.id,
          wallet_id: wallet,
          amount: kind.start,
          request_id: rid(),
        }),
      );
      move(a, u(kind.start));
      // One digit past the stored places, 5: rounded up.
      const sent = `1.${"2".repeat(places)}5`;
      ok(
        await plugin("POST", "/credits", {
          user_id: a.id,
          wallet_id: wallet,
          amount: sent,
          request_id: rid(),
        }),
      );
      move(a, unitsOf(sent, places));
      expect(unitsOf(sent, places)).toBe(BigInt(`1${"2".repeat(places)}`) + 1n);
      expect(
        await consoleForm(`/users/${a.id}/credit`, {
          wallet_id: wallet,
          amount: "2",
          request_id: rid(),
        }),
      ).toMatch(/^ok:Transaction Completed/);
      move(a, u("2"));
      await surfacesAgree(a);
    });

    it("debits through each, the plugin's rounded down past the stored places", async () => {
      ok(
        await v1("POST", "/debits", {
          user_id: a.id,
          wallet_id: wallet,
          amount: "1",
          request_id: rid(),
        }),
      );
      move(a, -u("1"));
      const sent = `1.${"1".repeat(places)}49`;
      ok(
        await plugin("POST", "/debits", {
          user_id: a.id,
          wallet_id: wallet,
          amount: sent,
          request_id: rid(),
        }),
      );
      move(a, -unitsOf(sent, places));
      expect(
        await consoleForm(`/users/${a.id}/debit`, {
          wallet_id: wallet,
          amount: "1",
          request_id: rid(),
        }),
      ).toMatch(/^ok:Transaction Completed/);
      move(a, -u("1"));
      await surfacesAgree(a);
    });

    it("transfers through each", async () => {
      ok(
        await v1("POST", "/transfers", {
          from_user_id: a.id,
          to_user_id: b.id,
          wallet_id: wallet,
          amount: "3",
          request_id: rid(),
        }),
      );
      move(a, -u("3"));
      move(b, u("3"));
      const sent = `2.${"4".repeat(places)}5`;
      expect(
        (
          await pluginTransfer({
            transfer_from_user: a.id,
            transfer_to_user: b.id,
            wallet_id: wallet,
            amount_to_transfer: sent,
            request_id: rid(),
          })
        ).status,
      ).toBe(200);
      move(a, -unitsOf(sent, places));
      move(b, unitsOf(sent, places));
      expect(
        await consoleForm(`/users/${a.id}/transfer`, {
          wallet_id: wallet,
          amount: "1",
          to_user_id: b.id,
          request_id: rid(),
        }),
      ).toMatch(/^ok:Transfer Action Completed/);
      move(a, -u("1"));
      move(b, u("1"));
      await surfacesAgree(a);
      await surfacesAgree(b);
    });

    it("holds placed through wallet/v1, captured and voided through it and the console", async () => {
      const hold = async (amount: string) => {
        const data = ok(
          await v1("POST", "/holds", {
            user_id: a.id,
            wallet_id: wallet,
            amount,
            request_id: rid(),
          }),
        );
        at(a).held += u(amount);
        return data.hold_id as number;
      };
      const first = await hold("5");
      const second = await hold("4");
      const third = await hold("3");
      await surfacesAgree(a);
      expect(await consoleForm(`/users/${a.id}/holds/${first}/capture`, { amount: "2" })).toMatch(
        /^ok:Hold \d+ captured/,
      );
      at(a).held -= u("5");
      move(a, -u("2"));
      expect(await consoleForm(`/users/${a.id}/holds/${second}/void`, {})).toMatch(
        /^ok:Hold \d+ voided/,
      );
      at(a).held -= u("4");
      ok(await v1("POST", `/holds/${third}/capture`, { amount: "1" }));
      at(a).held -= u("3");
      move(a, -u("1"));
      const open = await hold("2");
      await surfacesAgree(a);
      ok(await v1("POST", `/holds/${open}/void`));
      at(a).held -= u("2");
      await surfacesAgree(a);
    });

    it("a batch and its reversal, and single reversals, through wallet/v1 and the console", async () => {
      const batch = ok(
        await v1("POST", "/batches", {
          request_id: rid(),
          operations: [
            { type: "credit", user_id: b.id, wallet_id: wallet, amount: "1" },
            { type: "debit", user_id: a.id, wallet_id: wallet, amount: "2" },
            {
              type: "transfer",
              from_user_id: a.id,
              to_user_id: b.id,
              wallet_id: wallet,
              amount: "1",
            },
          ],
        }),
      );
      move(b, u("2"));
      move(a, -u("3"));
      await surfacesAgree(a);
      await surfacesAgree(b);
      expect(await consoleForm(`/batches/${batch.batch_id}/reverse`, {})).toMatch(
        /^ok:Batch \d+ reversed/,
      );
      move(b, -u("2"));
      move(a, u("3"));
      await surfacesAgree(a);
      await surfacesAgree(b);
      // The plugin's rounded credit, reversed from the console; its rounded debit, through wallet/v1.
      const entries = ok(
        await v1("GET", "/transactions", undefined, {
          user_id: a.id,
          security_code: 1,
          wallet_id: wallet,
          order: "asc",
        }),
      ) as Json[];
      const pluginCredit = entries.find(
        (e) => e.post_content === `Amount:1.${"2".repeat(places)}5`,
      )!;
      const pluginDebit = entries.find(
        (e) => e.post_content === `Amount:1.${"1".repeat(places)}49`,
      )!;
      expect(
        await consoleForm(`/users/${a.id}/reverse/${pluginCredit.ID}`, { request_id: rid() }),
      ).toMatch(/^ok:Transaction \d+ reversed/);
      move(a, -unitsOf(`1.${"2".repeat(places)}5`, places));
      ok(await v1("POST", `/transactions/${pluginDebit.ID}/reverse`, { request_id: rid() }));
      move(a, unitsOf(`1.${"1".repeat(places)}49`, places));
      await surfacesAgree(a);
      await entriesAgree(a);
      await entriesAgree(b);
    });

    it("the shown balance, debited: refused where it rounds above what is there, else leaving the dust", async () => {
      const shown = ok(
        await v1("GET", "/user-wallet-balance", undefined, {
          user_id: a.id,
          wallet_id: wallet,
          formatted: "yes",
        }),
      ).formatted[wallet] as string;
      const text = shown.slice(w.symbol.length).replaceAll(",", "");
      const shownUnits = unitsOf(text, places);
      const res = await v1("POST", "/debits", {
        user_id: a.id,
        wallet_id: wallet,
        amount: text,
        request_id: rid(),
      });
      if (shownUnits > at(a).balance - at(a).held) expect(res.body).toEqual(INSUFFICIENT);
      else {
        ok(res);
        move(a, -shownUnits);
      }
      // What is left (dust below one shown unit, or all of it) the plugin takes exactly, by its raw figure.
      const raw = ok(
        await plugin("GET", "/user-wallet-balance", undefined, {
          user_id: a.id,
          wallet_id: wallet,
        }),
      ).wallet_balance_raw as number;
      if (raw !== 0) {
        ok(
          await plugin("POST", "/debits", {
            user_id: a.id,
            wallet_id: wallet,
            amount: raw.toFixed(places),
            request_id: rid(),
          }),
        );
        move(a, -unitsOf(raw.toFixed(places), places));
      }
      expect(at(a).balance).toBe(0n);
      await surfacesAgree(a);
      expect(await ledgerViolations()).toEqual(CLEAN);
    });
  });
});
