// A month of batches and batch reversals on a wallet that stores more places than it shows (as the
// WordPress import makes one): GET /statements adds up to the last place stored (opening + in − out
// = closing), its CSV holds the JSON's entries and figures exactly, and the console's Statement
// section and Download CSV say the same; the next month opens where this one closed.
import { env } from "cloudflare:workers";
import { parse } from "csv-parse/sync";
import { beforeAll, describe, expect, it } from "vitest";
import { consoleOf } from "./console-helpers";
import {
  appAt,
  call,
  importedEntry,
  makeAdmin,
  makeUser,
  storingMore,
  type TestUser,
  unique,
} from "./helpers";

const { request, signIn } = consoleOf();
let admin: TestUser;
let alice: TestUser;
let bob: TestUser;
let wallet: string;
let cookie: string;

/** November 2026, day `day`, 09:00 UTC. */
const nov = (day: number) => Date.UTC(2026, 10, day, 9, 0, 0);

async function post(path: string, body: object, ms: number) {
  const res = await call("POST", path, { auth: admin.bearer, body, app: appAt(ms) });
  expect(res.status, res.text).toBe(200);
  return res.body.data;
}

beforeAll(async () => {
  admin = await makeAdmin();
  [alice, bob] = [await makeUser(), await makeUser()];
  wallet = await storingMore(); // 2 decimals shown, 3 stored
  const s = (ms: number) => ms / 1000;
  // Imported: one before the month (the opening balance), two in it, of three places.
  await importedEntry(alice.id, wallet, "CREDIT", 10_005, "10.005", 0, s(Date.UTC(2026, 9, 30)));
  await importedEntry(alice.id, wallet, "CREDIT", 2_006, "2.006", 10_005, s(Date.UTC(2026, 10, 1)));
  await importedEntry(alice.id, wallet, "DEBIT", 3, "0.003", 12_011, s(Date.UTC(2026, 10, 2)));
  const imported = await env.DB.prepare(
    "SELECT id FROM transactions WHERE user_id = ? AND wallet_id = ? AND amount_minor = 2006",
  )
    .bind(alice.id, wallet)
    .first<{ id: number }>();
  const op = (type: string, amount: string, user = alice) => ({
    type,
    user_id: user.id,
    wallet_id: wallet,
    amount,
  });
  await post(
    "/batches",
    {
      request_id: unique("b"),
      operations: [
        op("credit", "5.00"),
        op("debit", "1.25"),
        {
          type: "transfer",
          from_user_id: alice.id,
          to_user_id: bob.id,
          wallet_id: wallet,
          amount: "0.10",
        },
      ],
    },
    nov(5),
  );
  const reversed = await post(
    "/batches",
    { request_id: unique("b"), operations: [op("credit", "3.00"), op("credit", "1.00", bob)] },
    nov(6),
  );
  await post(`/batches/${reversed.batch_id}/reverse`, {}, nov(7));
  await post(`/transactions/${imported!.id}/reverse`, { request_id: unique("r") }, nov(8));
  const leg = await post(
    "/batches",
    { request_id: unique("b"), operations: [op("debit", "0.50")] },
    nov(9),
  );
  await post(
    `/transactions/${leg.transaction_ids[0]}/reverse`,
    { request_id: unique("r") },
    nov(10),
  );
  // The month's last second (its last millisecond), and its reversal at the next month's first.
  const last = await post(
    "/batches",
    { request_id: unique("b"), operations: [op("credit", "7.00")] },
    Date.UTC(2026, 10, 30, 23, 59, 59, 999),
  );
  await post(`/batches/${last.batch_id}/reverse`, {}, Date.UTC(2026, 11, 1));
  cookie = await signIn(admin);
});

/** A decimal of the wallet's three stored places, in its units. */
const units = (text: string) => {
  const [whole, part = ""] = text.replace("-", "").split(".");
  const n = BigInt(whole! + part.padEnd(3, "0"));
  return text.startsWith("-") ? -n : n;
};

describe("a month of batches and their reversals, on a wallet storing more places than it shows", () => {
  const november = () => `user_id=${alice.id}&wallet_id=${wallet}&from=2026-11-01&to=2026-11-30`;

  it("adds up exactly in JSON, and the CSV holds the same entries and figures", async () => {
    const json = await call("GET", `/statements?${november()}`, { auth: admin.bearer });
    expect(json.status, json.text).toBe(200);
    const d = json.body.data;
    // 10.005 before; in 2.006 + 5 + 3 + 0.5 (a leg's reversal) + 7; out 0.003 + 1.25 + 0.1 + 3
    // (the batch reversal) + 2.006 (an import's reversal) + 0.5.
    expect([d.opening_balance, d.total_in, d.total_out, d.closing_balance, d.count]).toEqual([
      10.005, 17.506, 6.859, 20.652, 11,
    ]);
    const csv = await call("GET", `/statements?${november()}&format=csv`, { auth: admin.bearer });
    const figures = ["opening-balance", "total-in", "total-out", "closing-balance"].map(
      (h) => csv.headers.get(`x-statement-${h}`)!,
    );
    expect(figures).toEqual(["10.005", "17.506", "6.859", "20.652"]);
    const rows = parse(csv.text, { columns: true }) as Record<string, string>[];
    // The JSON's entries, one page of them all, as the CSV's rows.
    expect(rows.map((r) => [Number(r.ID), r.txn_type, r.post_date, r.note])).toEqual(
      d.entries.map((e: Record<string, unknown>) => [e.ID, e.txn_type, e.post_date, e.note]),
    );
    expect(rows.map((r) => units(r.amount!))).toEqual(
      d.entries.map((e: { amount: string }) => units(e.amount)),
    );
    // The rows sum to the figures, and each balance after follows from the one before.
    let balance = units(figures[0]!);
    const sums = { CREDIT: 0n, DEBIT: 0n };
    for (const r of rows) {
      const amount = units(r.amount!);
      sums[r.txn_type as "CREDIT" | "DEBIT"] += amount;
      balance += r.txn_type === "CREDIT" ? amount : -amount;
      expect(units(r.balance_after!)).toBe(balance);
    }
    expect([sums.CREDIT, sums.DEBIT, balance]).toEqual([17_506n, 6_859n, 20_652n]);
    expect(rows.at(-1)!.post_date).toBe("2026-11-30 23:59:59");
  });

  it("opens December where November closed, with the reversal made at its first second", async () => {
    const dec = await call(
      "GET",
      `/statements?user_id=${alice.id}&wallet_id=${wallet}&from=2026-12-01&to=2026-12-01`,
      { auth: admin.bearer },
    );
    const d = dec.body.data;
    expect([d.opening_balance, d.total_in, d.total_out, d.closing_balance, d.count]).toEqual([
      20.652, 0, 7, 13.652, 1,
    ]);
  });

  it("is drawn exactly by the console, whose CSV is the API's", async () => {
    const days = `wallet=${wallet}&from=2026-11-01&to=2026-11-30`;
    const page = await request(`/users/${alice.id}?${days}`, { cookie });
    const totals = page.html.match(/aria-label="Statement totals".*?<\/table>/s)![0];
    expect(totals.match(/<td class="num">[^<]*<\/td>/g)).toEqual(
      ["₦10.005", "₦17.506", "₦6.859", "₦20.652", "11"].map((t) => `<td class="num">${t}</td>`),
    );
    const api = await call("GET", `/statements?${november()}&format=csv`, { auth: admin.bearer });
    const download = await request(`/users/${alice.id}/statement.csv?${days}`, { cookie });
    expect(download.status).toBe(200);
    expect(download.html).toBe(api.text);
  });

  it("sums the other side of the batches too", async () => {
    const csv = await call(
      "GET",
      `/statements?user_id=${bob.id}&wallet_id=${wallet}&from=2026-11-01&to=2026-11-30&format=csv`,
      { auth: admin.bearer },
    );
    const figures = ["opening-balance", "total-in", "total-out", "closing-balance"].map(
      (h) => csv.headers.get(`x-statement-${h}`)!,
    );
    expect(figures).toEqual(["0.000", "1.100", "1.000", "0.100"]);
  });
});
