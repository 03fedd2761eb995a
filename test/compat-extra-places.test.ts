// A reproduction: a site imported with amounts of more places than its wallets show leaves
// wallets that store extra places; the plugin dialect's credits, debits and transfers on them must
// move exactly the amount sent (rounded half away from zero to the places the wallet stores), not a
// tenth or a hundredth of it. The wallets are made by the importer itself, as a live site's are.
import { beforeAll, describe, expect, it } from "vitest";
import { compatCall, GUARDED } from "./compat-helpers";
import { CLEAN, call, ledgerViolations, storedBalance } from "./helpers";
import { importedAdmin, runImport } from "./import-helpers";
import { SITE_OPTIONS, siteDump } from "./site-dump";

const API = "/wp-json/rimplenet/v1";

/** Wallets storing 1, 2, 3 and 4 places past the ones they show. */
const WALLETS = [
  { id: "xone", decimals: 2, extra: 1 },
  { id: "xtwo", decimals: 0, extra: 2 },
  { id: "xthree", decimals: 2, extra: 3 },
  { id: "xfour", decimals: 8, extra: 4 },
];
const places = (w: (typeof WALLETS)[number]) => w.decimals + w.extra;
/** The smallest amount a wallet stores: 0.001 at 3 places. */
const oneUnit = (p: number) => `0.${"0".repeat(p - 1)}1`;

const SENDER = 2;
const RECEIVER = 3;
let admin: string;

beforeAll(async () => {
  // Each wallet's site amount has exactly its storage places, so the import stores that many.
  const dump = siteDump(
    WALLETS.map(({ id, decimals }) => ({ id, decimals })),
    WALLETS.map((w) => ({
      user: SENDER,
      wallet: w.id,
      amount: `100.${"0".repeat(places(w) - 1)}5`,
    })),
  );
  const run = await runImport(SITE_OPTIONS, dump);
  expect(run.report.refused, JSON.stringify(run.report.conflicts)).toBe(false);
  admin = await importedAdmin(1, "siteadmin");
});

/** Exact integer units of decimal text at `p` places (the text has at most `p`). */
function units(text: string, p: number) {
  const [integer, fraction = ""] = text.split(".");
  expect(fraction.length).toBeLessThanOrEqual(p);
  return BigInt(integer! + fraction.padEnd(p, "0"));
}

/** The balance as stored, the sum of its entries, and the balance wallet/v1 answers. */
async function holdings(userId: number, walletId: string) {
  const row = await storedBalance(userId, walletId);
  const read = await call("GET", "/user-wallet-balance", {
    auth: admin,
    query: { user_id: userId, wallet_id: walletId },
  });
  expect(read.status, read.text).toBe(200);
  return {
    stored: BigInt(row.balance),
    entries: BigInt(row.total),
    api: read.body.data[walletId],
  };
}

/** `amount` as sent: a JSON string, a JSON number literal, or a form field. */
type Encoding = "json-string" | "json-number" | "form";

function request(
  route: string,
  fields: Record<string, string | number>,
  amountKey: string,
  amount: string,
  as: Encoding,
) {
  if (as === "form") {
    const form = new URLSearchParams({ ...fields, [amountKey]: amount } as Record<string, string>);
    return compatCall("POST", `${API}/${route}`, {
      headers: { Authorization: admin, "Content-Type": "application/x-www-form-urlencoded" },
      body: form.toString(),
      vars: GUARDED,
    });
  }
  const json = JSON.stringify(fields).slice(0, -1);
  const literal = as === "json-string" ? JSON.stringify(amount) : amount;
  return compatCall("POST", `${API}/${route}`, {
    headers: { Authorization: admin, "Content-Type": "application/json" },
    body: `${json},${JSON.stringify(amountKey)}:${literal}}`,
    vars: GUARDED,
  });
}

let requests = 0;
const rid = () => `extra_${Date.now()}_${requests++}`;

describe.each(WALLETS)(
  "compat money on wallet $id, storing $extra places past its display decimals",
  (w) => {
    const p = places(w);
    /** [amount as sent, how, what must move (exact, at the wallet's storage places)] */
    const cases: [string, Encoding, string][] = [
      ["10", "json-string", "10"],
      ["10", "json-number", "10"],
      ["10.5", "json-number", "10.5"],
      ["10.5", "form", "10.5"],
      [`7.${"1".repeat(p)}`, "json-string", `7.${"1".repeat(p)}`],
      [oneUnit(p), "form", oneUnit(p)],
      // What JavaScript sends for 0.1 + 0.2: rounded half away from zero to the stored places.
      [String(0.1 + 0.2), "json-number", "0.3"],
      [String(0.1 + 0.2), "json-string", "0.3"],
    ];

    it.each(cases)("POST credits of %s (%s) moves exactly %s", async (amount, as, moved) => {
      const before = await holdings(SENDER, w.id);
      const res = await request(
        "credits",
        { user_id: SENDER, wallet_id: w.id, request_id: rid() },
        "amount",
        amount,
        as,
      );
      expect(res.status, res.text).toBe(200);
      const after = await holdings(SENDER, w.id);
      const expected = before.stored + units(moved, p);
      expect([after.stored, after.entries]).toEqual([expected, expected]);
      expect(after.api).toBe(Number(exact(expected, p)));
    });

    it.each(cases)("POST debits of %s (%s) moves exactly %s", async (amount, as, moved) => {
      const before = await holdings(SENDER, w.id);
      const res = await request(
        "debits",
        { user_id: SENDER, wallet_id: w.id, request_id: rid() },
        "amount",
        amount,
        as,
      );
      expect(res.status, res.text).toBe(200);
      const after = await holdings(SENDER, w.id);
      const expected = before.stored - units(moved, p);
      expect([after.stored, after.entries]).toEqual([expected, expected]);
      expect(after.api).toBe(Number(exact(expected, p)));
    });

    it.each(cases)(
      "POST transfers of %s (%s) moves exactly %s from one user to the other",
      async (amount, as, moved) => {
        const [from, to] = [await holdings(SENDER, w.id), await holdings(RECEIVER, w.id)];
        const res = await request(
          "transfers",
          { transfer_from_user: SENDER, transfer_to_user: RECEIVER, wallet_id: w.id },
          "amount_to_transfer",
          amount,
          as,
        );
        expect(res.status, res.text).toBe(200);
        const [fromAfter, toAfter] = [await holdings(SENDER, w.id), await holdings(RECEIVER, w.id)];
        const sent = units(moved, p);
        expect([fromAfter.stored, fromAfter.entries]).toEqual([
          from.stored - sent,
          from.stored - sent,
        ]);
        expect([toAfter.stored, toAfter.entries]).toEqual([to.stored + sent, to.stored + sent]);
        expect(fromAfter.api).toBe(Number(exact(from.stored - sent, p)));
        expect(toAfter.api).toBe(Number(exact(to.stored + sent, p)));
      },
    );
  },
);

it("leaves every balance equal to the sum of its entries", async () => {
  expect(await ledgerViolations()).toEqual(CLEAN);
});

/** Decimal text of `n` units at `p` places (positive balances only here). */
function exact(n: bigint, p: number) {
  const digits = n.toString().padStart(p + 1, "0");
  return `${digits.slice(0, -p)}.${digits.slice(-p)}`;
}
