// The Rimplenet dialect's lists and transfers: GET credits, GET debits, GET transfers, GET wallets
// and POST transfers (plugin files api/core/{credits,debits,transfers,wallets}/get-*.php and
// includes/transfers/create-transfers.php), as laravellously/rimplenetsaas calls them
// (app/Http/Controllers/RimplenetController.php), through the same ledger as /wp-json/wallet/v1.
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { compatCall, GUARDED } from "./compat-helpers";
import {
  appendHistory,
  arrivingAfterRefusal,
  balanceOf,
  CLEAN,
  call,
  credit,
  importedEntry,
  type Json,
  ledgerViolations,
  makeAdmin,
  makeKey,
  makeUser,
  makeWallet,
  type TestUser,
  tableCounts,
  unique,
} from "./helpers";

const NS = "/wp-json/rimplenet/v1";
let admin: TestUser;
let alice: TestUser;
let bob: TestUser;
let wallet: string;

const get = (path: string, auth?: string) =>
  compatCall("GET", `${NS}${path}`, {
    vars: GUARDED,
    headers: auth ? { Authorization: auth } : {},
  });
const post = (path: string, body: Json, auth?: string) =>
  compatCall("POST", `${NS}${path}`, {
    vars: GUARDED,
    headers: { "Content-Type": "application/json", ...(auth ? { Authorization: auth } : {}) },
    body: JSON.stringify(body),
  });

/** A plugin credit or debit by an administrator; its entry's id. */
async function entryId(path: "/credits" | "/debits", body: Json) {
  const res = await post(path, body, admin.bearer);
  expect(res.status, res.text).toBe(200);
  return res.body.data.transaction_id as number;
}

beforeAll(async () => {
  admin = await makeAdmin();
  [alice, bob] = [await makeUser(), await makeUser()];
  wallet = await makeWallet(admin);
  await credit(admin, { user_id: alice.id, wallet_id: wallet, amount: "100.00", note: "top up" });
  await credit(admin, { user_id: bob.id, wallet_id: wallet, amount: "5.50" });
});

describe("POST transfers", () => {
  it("moves money as one pair, answered with the sender's entry (RimplenetController.php:168 createTestTransfer)", async () => {
    const aliceBefore = await balanceOf(admin, alice.id, wallet);
    const bobBefore = await balanceOf(admin, bob.id, wallet);
    const res = await post(
      "/transfers",
      {
        transfer_from_user: alice.id,
        wallet_id: wallet,
        transfer_to_user: bob.id,
        amount_to_transfer: 10,
        note: "Test Transfer",
      },
      admin.bearer,
    );
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({
      status_code: 200,
      status: true,
      message: "Transfer Action Completed",
      data: { transfer: expect.any(Number) },
    });
    expect(await balanceOf(admin, alice.id, wallet)).toBe(aliceBefore - 10);
    expect(await balanceOf(admin, bob.id, wallet)).toBe(bobBefore + 10);
    expect(await ledgerViolations()).toEqual(CLEAN);
  });

  it("applies a repeated request_id once, even when the repeats race", async () => {
    const body = {
      transfer_from_user: alice.id,
      transfer_to_user: bob.id,
      wallet_id: wallet,
      amount_to_transfer: "1.25",
      request_id: unique("t_"),
    };
    const before = await balanceOf(admin, alice.id, wallet);
    const replies = await Promise.all(
      Array.from({ length: 10 }, () => post("/transfers", body, admin.bearer)),
    );
    expect(replies.filter((r) => r.status === 200)).toHaveLength(1);
    expect(replies.filter((r) => r.status === 409)).toHaveLength(9);
    expect(await balanceOf(admin, alice.id, wallet)).toBe(before - 1.25);
    expect(await ledgerViolations()).toEqual(CLEAN);
  });

  it("refuses what it cannot do and writes nothing", async () => {
    const before = await tableCounts();
    const base = { transfer_from_user: alice.id, transfer_to_user: bob.id, wallet_id: wallet };
    const cases: [Json, number, string][] = [
      [{}, 400, "invalid input"],
      [{ ...base, amount_to_transfer: "abc" }, 400, "invalid input"],
      [
        { ...base, amount_to_transfer: "-5" },
        400,
        "Request amount is below minimum transfer amount",
      ],
      [{ ...base, amount_to_transfer: "0" }, 400, ""],
      [{ ...base, amount_to_transfer: "1e400" }, 400, "invalid input"],
      [{ ...base, amount_to_transfer: 1_000_000 }, 400, "Insufficient Balance"],
      [{ ...base, transfer_to_user: alice.id, amount_to_transfer: 1 }, 400, "invalid input"],
      [
        { ...base, transfer_to_user: 2_000_000_000, amount_to_transfer: 1 },
        400,
        "Unable to reach 2000000000",
      ],
      // Refused as a transfer to oneself before the user is looked up.
      [
        {
          ...base,
          transfer_from_user: 2_000_000_000,
          transfer_to_user: 2_000_000_000,
          amount_to_transfer: 1,
        },
        400,
        "invalid input",
      ],
      [{ ...base, wallet_id: "nowallet", amount_to_transfer: 1 }, 404, "Invalid Wallet"],
      // The plugin's order: the users, then the wallet, then the amount.
      ...[
        { wallet_id: "nowallet", amount_to_transfer: 1 },
        { amount_to_transfer: "-5" },
        { amount_to_transfer: "0.001" },
        { amount_to_transfer: "99999999999999999" },
      ].map((fault): [Json, number, string] => [
        { ...base, transfer_to_user: 2_000_000_000, ...fault },
        400,
        "Unable to reach 2000000000",
      ]),
      [{ ...base, wallet_id: "nowallet", amount_to_transfer: "-5" }, 404, "Invalid Wallet"],
      [{ ...base, wallet_id: "bad-id!", amount_to_transfer: 1 }, 400, "invalid input"],
      [{ ...base, amount_to_transfer: 1, request_id: "has space" }, 400, "invalid input"],
      // Sent, but nothing is left of it as a key: refused, never a transfer without one.
      [{ ...base, amount_to_transfer: 1, request_id: ["retry_1"] }, 400, "invalid input"],
      [{ ...base, amount_to_transfer: 1, request_id: { a: 1 } }, 400, "invalid input"],
      [{ ...base, amount_to_transfer: 1, request_id: false }, 400, "invalid input"],
      [{ ...base, amount_to_transfer: 1, request_id: "%31%32" }, 400, "invalid input"],
      [{ ...base, amount_to_transfer: 1, request_id: "<b></b>" }, 400, "invalid input"],
      [{ ...base, amount_to_transfer: 1, request_id: "   " }, 400, "invalid input"],
      [{ ...base, amount_to_transfer: [1] }, 400, "invalid input"],
      [{ ...base, amount_to_transfer: { a: 1 } }, 400, "invalid input"],
    ];
    for (const [body, status, message] of cases) {
      const res = await post("/transfers", body, admin.bearer);
      expect(res.status, `${JSON.stringify(body)}: ${res.text}`).toBe(status);
      expect(res.body.message).toBe(message);
    }
    expect(await tableCounts()).toEqual(before);
  });

  it("refuses zero, negative and insufficient amounts in the plugin's words (create-transfers.php executeTransfer)", async () => {
    const [from, to, own] = [await makeUser(), await makeUser(), await makeWallet(admin)];
    await credit(admin, { user_id: from.id, wallet_id: own, amount: "1234.5" });
    const base = { transfer_from_user: from.id, transfer_to_user: to.id, wallet_id: own };
    const before = await tableCounts();
    const refusal = async (amount: unknown) =>
      (await post("/transfers", { ...base, amount_to_transfer: amount }, admin.bearer)).body;
    const plugin = (message: string, error: string) => ({
      status_code: 400,
      status: false,
      message,
      error,
    });
    for (const zero of [0, "0"])
      expect(await refusal(zero), String(zero)).toEqual(
        plugin("", "One or more compulsory field is empty"),
      );
    // PHP's empty() is true of "0" only; the plugin moved nothing for "0.00", and this service refuses it.
    expect(await refusal("0.00")).toEqual({
      status_code: 400,
      status: false,
      message: "invalid input",
      error: { amount_to_transfer: "amount_to_transfer must be greater than zero" },
    });
    expect(await refusal("-5.50")).toEqual(
      plugin(
        "Request amount is below minimum transfer amount",
        "Requested amount [-5.50] is below minimum transfer amount, input amount not less than 0",
      ),
    );
    // Negative whatever its exponent: past any amount's size is still below zero.
    expect(await refusal("-1e999")).toEqual(
      plugin(
        "Request amount is below minimum transfer amount",
        "Requested amount [-1e999] is below minimum transfer amount, input amount not less than 0",
      ),
    );
    expect(await refusal(1_000_000)).toEqual(
      plugin(
        "Insufficient Balance",
        "Amount to transfer - [₦1,000,000.00] is larger than the amount in your mature wallet, input amount not more than the balance in your ( Naira Wallet mature wallet - [₦1,234.50] ), the balance in your ( Naira Wallet immature wallet  - [₦0.00] )  cannot be transferred until maturity",
      ),
    );
    expect(await tableCounts()).toEqual(before);

    // What a hold reserves cannot be moved: "immature" in the plugin's words. A key that may only
    // write is told the same.
    const hold = await call("POST", "/holds", {
      auth: admin.bearer,
      body: { user_id: from.id, wallet_id: own, amount: "1000.00", request_id: unique("hold") },
    });
    expect(hold.status, hold.text).toBe(200);
    const writeKey = (await makeKey(admin, "write")).header;
    const held = await post("/transfers", { ...base, amount_to_transfer: 500 }, writeKey);
    expect(held.body).toEqual(
      plugin(
        "Insufficient Balance",
        "Amount to transfer - [₦500.00] is larger than the amount in your mature wallet, input amount not more than the balance in your ( Naira Wallet mature wallet - [₦234.50] ), the balance in your ( Naira Wallet immature wallet  - [₦1,000.00] )  cannot be transferred until maturity",
      ),
    );
  });

  it("refuses a transfer past the receiver's largest balance under amount_to_transfer, the field it has", async () => {
    const [from, to, own] = [await makeUser(), await makeUser(), await makeWallet(admin)];
    await credit(admin, { user_id: from.id, wallet_id: own, amount: "5" });
    // 999,999,999,999,999 units is the most a balance holds.
    await credit(admin, { user_id: to.id, wallet_id: own, amount: "9999999999999.99" });
    const before = await tableCounts();
    const res = await post(
      "/transfers",
      {
        transfer_from_user: from.id,
        transfer_to_user: to.id,
        wallet_id: own,
        amount_to_transfer: "1",
      },
      admin.bearer,
    );
    expect(res.body).toEqual({
      status_code: 400,
      status: false,
      message: "invalid input",
      error: {
        amount_to_transfer:
          "amount_to_transfer would take the balance past the largest balance a wallet can hold",
      },
    });
    expect(await tableCounts()).toEqual(before);
  });

  /** The plugin's transfer as an administrator sends it, on the D1 binding `d1`. */
  const transferOn = (d1: D1Database, from: number, to: number, wallet: string, amount: number) =>
    call("POST", `${NS}/transfers`, {
      auth: admin.bearer,
      vars: GUARDED,
      d1,
      body: {
        transfer_from_user: from,
        transfer_to_user: to,
        wallet_id: wallet,
        amount_to_transfer: amount,
      },
    });

  it("words an insufficient balance with the symbol first, whatever side the wallet writes it on", async () => {
    const [from, to] = [await makeUser(), await makeUser()];
    const own = await makeWallet(admin, { symbol: "RMP", position: "right" });
    await credit(admin, { user_id: from.id, wallet_id: own, amount: "2" });
    const res = await post(
      "/transfers",
      {
        transfer_from_user: from.id,
        transfer_to_user: to.id,
        wallet_id: own,
        amount_to_transfer: 5,
      },
      admin.bearer,
    );
    expect(res.body.error).toBe(
      "Amount to transfer - [RMP5.00] is larger than the amount in your mature wallet, input amount not more than the balance in your ( Naira Wallet mature wallet - [RMP2.00] ), the balance in your ( Naira Wallet immature wallet  - [RMP0.00] )  cannot be transferred until maturity",
    );
  });

  it("notes a transfer sent without a note with no trailing space, and takes a request_id of 191 characters, not 192", async () => {
    const [from, to, own] = [await makeUser(), await makeUser(), await makeWallet(admin)];
    await credit(admin, { user_id: from.id, wallet_id: own, amount: "10" });
    const base = { transfer_from_user: from.id, transfer_to_user: to.id, wallet_id: own };
    const key = unique("t_")
      .replace(/[^A-Za-z0-9_]/g, "_")
      .padEnd(192, "k");
    const before = await tableCounts();
    const long = await post(
      "/transfers",
      { ...base, amount_to_transfer: 1, request_id: key },
      admin.bearer,
    );
    expect([long.status, Object.keys(long.body.error)]).toEqual([400, ["request_id"]]);
    expect(await tableCounts()).toEqual(before);
    const res = await post(
      "/transfers",
      { ...base, amount_to_transfer: 1, request_id: key.slice(0, 191) },
      admin.bearer,
    );
    expect(res.status, res.text).toBe(200);
    const debitId = res.body.data.transfer as number;
    const debit = await get(`/debits?debit_id=${debitId}`, admin.bearer);
    expect(debit.body.data.note).toBe(`TRANSFER to ${to.username}`);
    // transfer_id names a half's partner: the receiving half.
    const received = await get(`/transfers?transfer_id=${debitId}`, admin.bearer);
    expect(received.body.data.transferDesc).toBe(`TRANSFER from ${from.username}`);
    // An empty request_id is none: each call moves money, as on the plugin.
    for (const _ of [1, 2]) {
      const keyless = await post(
        "/transfers",
        { ...base, amount_to_transfer: 1, request_id: "" },
        admin.bearer,
      );
      expect(keyless.status, keyless.text).toBe(200);
    }
    expect(await balanceOf(admin, from.id, own)).toBe(7);
  });

  it("names the balance that refused a transfer, not one a credit brought a moment later", async () => {
    const [from, to, own] = [await makeUser(), await makeUser(), await makeWallet(admin)];
    await credit(admin, { user_id: from.id, wallet_id: own, amount: "2" });
    // Right after the database refuses the transfer, another request credits the sender enough to
    // pay it, before the route words its refusal.
    let arrived = false;
    const d1 = arrivingAfterRefusal(async () => {
      arrived = true;
      await credit(admin, { user_id: from.id, wallet_id: own, amount: "10" });
    });
    const res = await transferOn(d1, from.id, to.id, own, 5);
    expect(arrived).toBe(true);
    expect(res.body).toEqual({
      status_code: 400,
      status: false,
      message: "Insufficient Balance",
      error:
        "Amount to transfer - [₦5.00] is larger than the amount in your mature wallet, input amount not more than the balance in your ( Naira Wallet mature wallet - [₦2.00] ), the balance in your ( Naira Wallet immature wallet  - [₦0.00] )  cannot be transferred until maturity",
    });
    expect(await balanceOf(admin, from.id, own)).toBe(12);
  });

  it("names the reserve that refused a transfer, though the hold is voided a moment later", async () => {
    const [from, to, own] = [await makeUser(), await makeUser(), await makeWallet(admin)];
    await credit(admin, { user_id: from.id, wallet_id: own, amount: "10" });
    const hold = await call("POST", "/holds", {
      auth: admin.bearer,
      body: { user_id: from.id, wallet_id: own, amount: "8", request_id: unique("hold") },
    });
    expect(hold.status, hold.text).toBe(200);
    const holdId = hold.body.data.hold_id as number;
    // Right after the database refuses the transfer (₦2.00 free, ₦8.00 held), the hold is voided.
    const d1 = arrivingAfterRefusal(async () => {
      const voided = await call("POST", `/holds/${holdId}/void`, { auth: admin.bearer });
      expect(voided.status, voided.text).toBe(200);
    });
    const res = await transferOn(d1, from.id, to.id, own, 5);
    expect(res.body).toMatchObject({ status_code: 400, message: "Insufficient Balance" });
    expect(res.body.error).toContain("( Naira Wallet mature wallet - [₦2.00] )");
    expect(res.body.error).toContain("( Naira Wallet immature wallet  - [₦8.00] )");
    expect(await balanceOf(admin, from.id, own)).toBe(10);
  });

  it("needs an administrator's write credentials", async () => {
    const body = {
      transfer_from_user: alice.id,
      transfer_to_user: bob.id,
      wallet_id: wallet,
      amount_to_transfer: 1,
    };
    const readKey = (await makeKey(admin, "read")).header;
    const before = await tableCounts();
    expect((await post("/transfers", body)).status).toBe(401);
    expect((await post("/transfers", body, "Bearer undefined")).status).toBe(400);
    expect((await post("/transfers", body, alice.bearer)).status).toBe(403);
    expect((await post("/transfers", body, readKey)).status).toBe(403);
    expect(await tableCounts()).toEqual(before);
  });
});

describe("GET credits, debits, transfers", () => {
  it("lists credits newest first with the plugin's fields (RimplenetController.php:110 listCredits)", async () => {
    // Users and a wallet of its own, so the list is this test's whatever ran before it.
    const [from, to, own] = [await makeUser(), await makeUser(), await makeWallet(admin)];
    await credit(admin, { user_id: from.id, wallet_id: own, amount: "100.00", note: "top up" });
    await credit(admin, { user_id: to.id, wallet_id: own, amount: "5.50" });
    const transfer = { transfer_from_user: from.id, transfer_to_user: to.id, wallet_id: own };
    for (const amount of [10, "1.25"]) {
      const body = { ...transfer, amount_to_transfer: amount, note: "Test Transfer" };
      expect((await post("/transfers", body, admin.bearer)).status).toBe(200);
    }
    const res = await get("/credits", admin.bearer);
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({
      status_code: 200,
      status: true,
      message: "Credits Retrieved",
    });
    const mine = (res.body.data as Json[]).filter((r) => r.currency === own);
    // The transfers' receiving halves are credits too, as the plugin's posts were.
    expect(mine.map((r) => r.amount)).toEqual(["1.25", "10", "5.50", "100.00"]);
    expect(mine[1]).toMatchObject({
      request_id: "",
      credits_request_id: "",
      note: `TRANSFER from ${from.username} Test Transfer`,
      description: expect.stringMatching(/^TRANSFER ~ TRANSACTION by /),
    });
    const plain = mine.slice(2);
    expect(Object.keys(plain[1]!)).toEqual([
      "id",
      "amount",
      "balance_after",
      "balance_before",
      "currency",
      "funds_type",
      "request_id",
      "total_balance_after",
      "total_balance_before",
      "credits_request_id",
      "txn_type",
      "note",
      "description",
    ]);
    expect(plain[1]).toMatchObject({
      balance_before: "0.00",
      balance_after: "100.00",
      total_balance_before: "0.00",
      total_balance_after: "100.00",
      funds_type: `user_withdrawable_bal_${own}`,
      txn_type: "CREDIT",
      note: "top up",
      description: expect.stringMatching(/^TRANSACTION by /),
    });
    expect(plain[1]!.request_id).toMatch(new RegExp(`^${from.id}_`));
    expect(res.headers.get("X-WP-Total")).toMatch(/^\d+$/);
  });

  it("reads one credit by credit_id, and 404s an unknown one", async () => {
    const list = await get("/credits", admin.bearer);
    const id = (list.body.data as Json[])[0]!.id;
    const one = await get(`/credits?credit_id=${id}`, admin.bearer);
    expect(one.body).toMatchObject({
      status: true,
      message: "Transacrion Retrieved",
      data: { id },
    });
    // A number's integer part, as PHP's `int $id` read it; text after a number is no id (PHP 8's
    // TypeError, a 500 on the plugin).
    expect((await get(`/credits?credit_id=${id}.9`, admin.bearer)).body.data).toMatchObject({ id });
    // The plugin looked one up for any id but "" (`$id !== ''`): "0" is no list.
    for (const bad of ["999999999", "abc", `${id}abc`, "-1", "1e9", "0"]) {
      const res = await get(`/credits?credit_id=${bad}`, admin.bearer);
      expect(res.status, bad).toBe(404);
      expect(res.body).toEqual({
        status_code: 404,
        status: false,
        message: "Transaction not Found",
        error: [`Invalid Transaction Id ${bad}`],
      });
    }
  });

  it("keeps a note's white space sanitize_text_field keeps (a no-break space at its end) in both halves' notes", async () => {
    const [from, to] = [await makeUser(), await makeUser()];
    for (const note of ["paid\u00a0", "\u3000"]) {
      // A wallet of its own for each note: other files' transfers land in the same list meanwhile.
      const own = await makeWallet(admin);
      await credit(admin, { user_id: from.id, wallet_id: own, amount: "10.00" });
      const sent = await post(
        "/transfers",
        {
          transfer_from_user: from.id,
          transfer_to_user: to.id,
          wallet_id: own,
          amount_to_transfer: 1,
          note,
        },
        admin.bearer,
      );
      expect(sent.status, sent.text).toBe(200);
      const halves = ((await get("/transfers", admin.bearer)).body.data as Json[])
        .filter((r) => r.currency === own)
        .map((r) => r.transferDesc);
      // As the plugin wrote them: the text, a space, the note as sanitized (which kept these).
      expect(halves.toSorted(), JSON.stringify(note)).toEqual(
        [`TRANSFER from ${from.username} ${note}`, `TRANSFER to ${to.username} ${note}`].toSorted(),
      );
    }
  });

  it("lists transfer halves with both usernames (RimplenetController.php:161 listTransfers)", async () => {
    // Users and a wallet of its own, so the list is this test's whatever ran before it.
    const [from, to, own] = [await makeUser(), await makeUser(), await makeWallet(admin)];
    await credit(admin, { user_id: from.id, wallet_id: own, amount: "100.00" });
    const transfer = { transfer_from_user: from.id, transfer_to_user: to.id, wallet_id: own };
    const sent = await post(
      "/transfers",
      { ...transfer, amount_to_transfer: 10, note: "Test Transfer" },
      admin.bearer,
    );
    expect(sent.status, sent.text).toBe(200);
    const res = await get("/transfers", admin.bearer);
    expect(res.status, res.text).toBe(200);
    const halves = (res.body.data as Json[]).filter((r) => r.currency === own);
    expect(halves).toHaveLength(2);
    const debit = halves.find((r) => r.transferType === "DEBIT")!;
    expect(debit).toMatchObject({
      transferFrom: from.username,
      transferTo: to.username,
      transferAmount: "10",
      transferDesc: `TRANSFER to ${to.username} Test Transfer`,
      balanceBefore: "100.00",
      balanceAfter: "90.00",
    });
    expect(debit.transferId).toMatch(/^\d+$/);
    expect(debit.formattedDate).toMatch(/^\d{4} [A-Z][a-z]{2} [A-Z][a-z]{2} \d{2}:\d{2} [ap]m$/);

    // One by id is the half whose link names it, as the plugin's alt_transfer_id look-up found it.
    const creditHalf = halves.find((r) => r.transferType === "CREDIT")!;
    const byDebit = await get(`/transfers?transfer_id=${creditHalf.transferId}`, admin.bearer);
    expect(byDebit.body).toEqual({
      status_code: 200,
      status: true,
      message: "Transfer Retrieved",
      data: creditHalf,
    });
    const byCredit = await get(`/transfers?transfer_id=${debit.transferId}`, admin.bearer);
    expect(byCredit.body.data).toEqual(debit);
    // Both halves are among the credits and the debits, found by their ids there too.
    const creditId = Number(debit.transferId);
    // The sender's DEBIT is written first and the CREDIT right after it (the plugin wrote them the
    // other way round): newest first, the credit is listed above (docs/compat.md, POST transfers).
    expect(creditId).toBe(sent.body.data.transfer + 1);
    expect(halves.map((r) => r.transferType)).toEqual(["CREDIT", "DEBIT"]);
    expect(
      (await get(`/debits?debit_id=${sent.body.data.transfer}`, admin.bearer)).body,
    ).toMatchObject({
      message: "Transacrion Retrieved",
      data: { id: sent.body.data.transfer, txn_type: "DEBIT", request_id: "" },
    });
    expect((await get(`/credits?credit_id=${creditId}`, admin.bearer)).body.data).toMatchObject({
      id: creditId,
      txn_type: "CREDIT",
      note: `TRANSFER from ${from.username} Test Transfer`,
    });
    for (const bad of ["999999999", "abc"])
      expect((await get(`/transfers?transfer_id=${bad}`, admin.bearer)).body).toEqual({
        status_code: 404,
        status: false,
        message: "Transfer not found",
        error: "Invalid Transfer Id",
      });
  });

  // An imported transfer's two halves as the site wrote them. The plugin wrote a zero transfer's
  // receiving half through its credit code, which books a credit of 0 as a DEBIT of "-0" (posts
  // 1682/1684 of the plugin site diffed against): both halves are DEBITs, and the "-0" one is the
  // receiver's, as the plugin named them from its transfer_address_from/_to meta. The importer keeps
  // a site's amount as written, so a DEBIT of "-3" moves 3 out, as its type says: the sender's.
  it.each([
    ["a zero transfer, both halves DEBITs", ["DEBIT", 0, "0"], ["DEBIT", 0, "-0"]],
    ["a DEBIT half the site wrote as -3", ["DEBIT", 300, "-3"], ["CREDIT", 300, "3"]],
  ] as const)("names the sender and receiver of an imported transfer: %s", async (_, sent, got) => {
    const [from, to, own] = [await makeUser(), await makeUser(), await makeWallet(admin)];
    const link = unique("wp-transfer");
    await importedEntry(from.id, own, sent[0], sent[1], sent[2], 0, 1_700_000_000, {
      transferId: link,
      note: `TRANSFER to ${to.username} `,
    });
    await importedEntry(to.id, own, got[0], got[1], got[2], 0, 1_700_000_000, {
      transferId: link,
      note: `TRANSFER from ${from.username} `,
    });
    // Each half by the other's id, as the plugin's alt_transfer_id look-up found them.
    const { results } = await env.DB.prepare(
      "SELECT id FROM transactions WHERE transfer_id = ? ORDER BY id",
    )
      .bind(link)
      .all<{ id: number }>();
    const halves = [];
    for (const { id } of results) {
      const res = await get(`/transfers?transfer_id=${id}`, admin.bearer);
      expect(res.status, res.text).toBe(200);
      halves.push(res.body.data as Json);
    }
    expect(halves.map((h) => [h.transferDesc, h.transferFrom, h.transferTo])).toEqual([
      [`TRANSFER from ${from.username} `, from.username, to.username],
      [`TRANSFER to ${to.username} `, from.username, to.username],
    ]);
  });

  it("keeps an imported transfer half's title as the site wrote it: the plugin renamed only the posts it wrote", async () => {
    const [from, to, own] = [await makeUser(), await makeUser(), await makeWallet(admin)];
    const link = unique("wp-transfer");
    await importedEntry(from.id, own, "DEBIT", 300, "3", 0, 1_700_000_000, { transferId: link });
    await importedEntry(to.id, own, "CREDIT", 300, "3", 0, 1_700_000_000, { transferId: link });
    const { results } = await env.DB.prepare(
      "SELECT id, txn_type FROM transactions WHERE transfer_id = ? ORDER BY id",
    )
      .bind(link)
      .all<{ id: number; txn_type: string }>();
    const [debitId, creditId] = results.map((r) => r.id);
    const credit = await get(`/credits?credit_id=${creditId}`, admin.bearer);
    const debit = await get(`/debits?debit_id=${debitId}`, admin.bearer);
    expect([credit.body.data.description, debit.body.data.description]).toEqual(["t", "t"]);
  });

  it("reads one debit by debits_id, the plugin's own name for debit_id, with its request_id as sent", async () => {
    const rid = unique("Dreq_");
    const id = await entryId("/debits", {
      user_id: alice.id,
      wallet_id: wallet,
      request_id: rid,
      amount: 1,
    });
    for (const query of [`debits_id=${id}`, `debit_id=${id}`, `debit_id=${id}&debits_id=1`])
      expect((await get(`/debits?${query}`, admin.bearer)).body.data, query).toMatchObject({
        id,
        // formatDebits read the request_id meta; formatCredits the txn_request_id one.
        request_id: rid,
        debits_request_id: `${alice.id}_${rid.toLowerCase()}`,
      });
    expect((await get("/debits?debits_id=999999999", admin.bearer)).body).toEqual({
      status_code: 404,
      status: false,
      message: "Transaction not Found",
      error: ["Invalid Transaction Id 999999999"],
    });
  });

  it("holds at most 100 credits a page, whatever per_page asks", async () => {
    // The list is the site's: this file's 101 credits make sure it has more than a page.
    const own = await makeWallet(admin);
    await appendHistory(alice.id, own, 101);
    for (const asked of ["100", "101"]) {
      const res = await get(`/credits?per_page=${asked}`, admin.bearer);
      expect(res.status, res.text).toBe(200);
      expect(res.body.data, asked).toHaveLength(100);
    }
  });

  it("lists debits, paged with page/per_page (RimplenetController.php:135 listDebits)", async () => {
    const res = await get("/debits?per_page=1&page=1", admin.bearer);
    if (res.status === 200) {
      expect(res.body.data).toHaveLength(1);
      expect(res.headers.get("X-WP-TotalPages")).toBe(res.headers.get("X-WP-Total"));
    } else expect(res.body).toMatchObject({ status: false, message: "No Debit Found" });
    // A page past the end is past it however large its number, never the first page again.
    for (const page of ["999999", "9007199254740993", `1${"0".repeat(30)}`, "1e308"]) {
      const far = await get(`/credits?page=${page}`, admin.bearer);
      expect(far.status, page).toBe(404);
      expect(far.body.message).toBe("No wallet Found");
    }
    for (const odd of ["page=-1", "per_page=0", "per_page=abc", "page[]=1", "per_page=1e9"])
      expect((await get(`/credits?${odd}`, admin.bearer)).status, odd).toBeLessThan(500);
  });

  it("reads a per_page below 1 as a page of one", async () => {
    await appendHistory(alice.id, await makeWallet(admin), 2);
    for (const asked of ["0", "-5"]) {
      const res = await get(`/credits?per_page=${asked}`, admin.bearer);
      expect(res.status, res.text).toBe(200);
      expect(res.body.data, asked).toHaveLength(1);
      expect(res.headers.get("X-WP-TotalPages")).toBe(res.headers.get("X-WP-Total"));
    }
  });
});

describe("GET wallets", () => {
  it("lists wallets as post meta text (RimplenetController.php:65 getWallets)", async () => {
    const res = await get("/wallets/", admin.bearer);
    expect(res.status, res.text).toBe(200);
    const w = (res.body.data as Json[]).find((r) => r.wallet_id === wallet)!;
    expect(w).toEqual({
      post_id: expect.any(Number),
      wallet_id: wallet,
      wallet_name: "Naira Wallet",
      wallet_symbol: "₦",
      wallet_max_wdr_amount: "999999999",
      wallet_min_wdr_amount: "0",
      wallet_symbol_position: "left",
      wallet_decimal: "2",
      wallet_note: expect.any(String),
      wallet_type: expect.any(String),
    });
    const again = await get("/wallets", admin.bearer);
    expect((again.body.data as Json[]).find((r) => r.wallet_id === wallet)!.post_id).toBe(
      w.post_id,
    );
    // WP_Query's order: the newest wallet first.
    const ids = (again.body.data as Json[]).map((r) => r.post_id as number);
    expect(ids).toEqual(ids.toSorted((a, b) => b - a));
  });
});

// The plugin's api/core/wallets/get-wallet.php serves one wallet at `GET wallets/{wallet}`, as
// the real plugin (1.1.31) answers it.
describe("GET wallets/{wallet}", () => {
  it("answers one wallet as GET wallets lists it, its id in any case", async () => {
    const listed = (await get("/wallets", admin.bearer)).body.data as Json[];
    const record = listed.find((r) => r.wallet_id === wallet)!;
    for (const path of [`/wallets/${wallet}`, `/wallets/${wallet.toUpperCase()}/`]) {
      const res = await get(path, admin.bearer);
      expect(res.status, `${path}: ${res.text}`).toBe(200);
      expect(res.body).toStrictEqual({
        status_code: 200,
        status: true,
        message: "Wallet Retrieved",
        data: record,
      });
    }
  });

  it("answers an unknown wallet in the plugin's words, other text as no route, and refuses non-administrators", async () => {
    const unknown = {
      status_code: 404,
      status: false,
      message: "Wallet not found",
      error: ["Invalid wallet Id"],
    };
    for (const id of ["nowallet", "1", "x".repeat(40)]) {
      const res = await get(`/wallets/${id}`, admin.bearer);
      expect(res.status, res.text).toBe(404);
      expect(res.body).toStrictEqual(unknown);
    }
    const odd = await get("/wallets/u-sd", admin.bearer);
    expect(odd.status).toBe(404);
    expect(odd.body.code).toBe("rest_no_route");
    expect((await get(`/wallets/${wallet}`)).status).toBe(401);
    expect((await get(`/wallets/${wallet}`, alice.bearer)).status).toBe(403);
    expect((await get(`/wallets/${wallet}`, (await makeKey(admin, "read")).header)).status).toBe(
      200,
    );
  });
});

describe("GET verify-email-address", () => {
  it("without a mail transport sends no mail and shows no token, alike for any address (zugavalize-app src/Utils/useAuth.js:35)", async () => {
    const known = await get(
      `/verify-email-address/?email_address=${encodeURIComponent(alice.email)}&fire_email=true`,
    );
    const unknown = await get(
      "/verify-email-address/?email_address=nobody%40example.test&fire_email=true",
    );
    for (const res of [known, unknown]) {
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        status_code: 400,
        status: false,
        message: "Email Not Sent",
        error: { mail: false },
      });
    }
    const token = await get(
      `/verify-email-address?email_address=${encodeURIComponent(alice.email)}`,
    );
    expect(token.body).toEqual({
      status_code: 400,
      status: false,
      message: "Token Not Generated",
      error: { mail: false },
    });
    expect((await get("/verify-email-address")).body).toEqual({
      status_code: 400,
      status: false,
      message: "email not parsed",
      error: false,
    });
  });
});

describe("GET transactions (the plugin's meta query) over transfers, keys and pages", () => {
  const search = async (query: string) =>
    (await get(`/transactions?${query}`, admin.bearer)).body.data as Json[];
  /** The plugin's transfer of 5 between two users of their own wallet. */
  const transfer = async (from: TestUser, to: TestUser, wallet: string) => {
    const sent = await post(
      "/transfers",
      {
        transfer_from_user: from.id,
        transfer_to_user: to.id,
        wallet_id: wallet,
        amount_to_transfer: 5,
      },
      admin.bearer,
    );
    expect(sent.status, sent.text).toBe(200);
  };

  it("finds a transfer's halves by user and currency, never by a request_id they did not have", async () => {
    const [from, to, own] = [await makeUser(), await makeUser(), await makeWallet(admin)];
    const rid = unique("src_");
    await credit(admin, { user_id: from.id, wallet_id: own, amount: "50.00", request_id: rid });
    await transfer(from, to, own);
    const halves = (await search(`meta_key=currency&meta_value=${own}`)).filter((r) =>
      r.note.startsWith("TRANSFER"),
    );
    expect(halves.map((r) => [r.user_id, r.transaction_type, r.request_id])).toEqual(
      expect.arrayContaining([
        [from.id, "DEBIT", ""],
        [to.id, "CREDIT", ""],
      ]),
    );
    // Unlike the plugin's halves, which had no user_id meta: a user's transfers are in its history.
    const received = halves.find((r) => r.user_id === to.id)!.ID;
    expect((await search(`meta_key=user_id&meta_value=${to.id}`)).map((r) => r.ID)).toContain(
      received,
    );
    const byKey = await search(`meta_key=request_id&posts_per_page=100`);
    const halfIds = halves.map((r) => r.ID);
    expect(byKey.filter((r) => halfIds.includes(r.ID))).toEqual([]);
    // MySQL compared meta keys without case: REQUEST_ID is request_id.
    expect((await search(`meta_key=REQUEST_ID&meta_value=${rid}`)).map((r) => r.user_id)).toEqual([
      from.id,
    ]);
  });

  it("finds entries by the plugin's txn_request_id, funds_type and alt_transfer_id meta", async () => {
    const [from, to, own] = [await makeUser(), await makeUser(), await makeWallet(admin)];
    const rid = unique("Ord_");
    const creditId = await entryId("/credits", {
      user_id: from.id,
      wallet_id: own,
      request_id: rid,
      amount: 50,
    });
    const debitId = await entryId("/debits", {
      user_id: from.id,
      wallet_id: own,
      request_id: `${rid}_d`,
      amount: 1,
    });
    await transfer(from, to, own);
    const ids = async (query: string) => (await search(query)).map((r) => r.ID as number);
    const halves = (await search(`meta_key=currency&meta_value=${own}`)).filter(
      (r) => r.request_id === "",
    );
    const [toHalf, fromHalf] = [to.id, from.id].map(
      (user) => halves.find((r) => r.user_id === user)!.ID as number,
    );

    // `<user>_<request_id folded to lower case>`, for credits and debits; halves had none.
    const txnRequestId = `${from.id}_${rid.toLowerCase()}`;
    expect((await ids(`meta_key=txn_request_id&meta_value=${txnRequestId}`)).sort()).toEqual(
      [creditId, debitId].sort(),
    );
    expect(await ids(`meta_key=TXN_REQUEST_ID&meta_value=${txnRequestId}_D`)).toEqual([debitId]);
    const withKey = await ids("meta_key=txn_request_id&posts_per_page=-1");
    expect(withKey).not.toContain(toHalf);
    expect(withKey).not.toContain(fromHalf);
    // Every entry's funds are its wallet's withdrawable balance.
    expect(
      (await ids(`meta_key=funds_type&meta_value=user_withdrawable_bal_${own}`)).sort(),
    ).toEqual([creditId, debitId, toHalf, fromHalf].sort());
    // Each half names the other; a credit or a debit is no half.
    expect(await ids(`meta_key=alt_transfer_id&meta_value=${fromHalf}`)).toContain(toHalf);
    expect(await ids(`meta_key=alt_transfer_id&meta_value=${toHalf}`)).toContain(fromHalf);
    const anyHalf = await ids("meta_key=alt_transfer_id&posts_per_page=-1");
    expect(anyHalf).not.toContain(creditId);
    expect(anyHalf).not.toContain(debitId);
  });

  it("reads posts_per_page=-1 (WordPress's every post) as the most a page holds, and page_no as absint() read it", async () => {
    const own = await makeWallet(admin);
    for (let i = 0; i < 12; i++)
      await credit(admin, { user_id: alice.id, wallet_id: own, amount: "1.00" });
    expect(await search(`meta_key=currency&meta_value=${own}`)).toHaveLength(10);
    expect(await search(`meta_key=currency&meta_value=${own}&posts_per_page=-1`)).toHaveLength(12);
    // Every post is one page: page_no does not move it. Another negative count is its size.
    expect(
      await search(`meta_key=currency&meta_value=${own}&posts_per_page=-1&page_no=2`),
    ).toHaveLength(12);
    expect(await search(`meta_key=currency&meta_value=${own}&posts_per_page=-5`)).toHaveLength(5);
    // WP_Query read `paged` through absint(): page_no=-2 is page 2.
    expect(await search(`meta_key=currency&meta_value=${own}&page_no=2`)).toHaveLength(2);
    expect(await search(`meta_key=currency&meta_value=${own}&page_no=-2`)).toHaveLength(2);
    expect(await search(`meta_key=currency&meta_value=${own}&page_no=-2.5`)).toHaveLength(2);
    expect(await search(`meta_key=currency&meta_value=${own}&page_no=-0`)).toHaveLength(10);
    // A page past the end is past it however large its number, never the first page again.
    for (const page of ["3", "9007199254740993", `1${"0".repeat(30)}`, "1e308"])
      expect(await search(`meta_key=currency&meta_value=${own}&page_no=${page}`), page).toEqual([]);
  });

  it("reads posts_per_page and page_no as WP_Query's (int) and absint() read a text", async () => {
    const own = await makeWallet(admin);
    for (let i = 0; i < 12; i++)
      await credit(admin, { user_id: alice.id, wallet_id: own, amount: "1.00" });
    const count = async (query: string) =>
      (await search(`meta_key=currency&meta_value=${own}&${query}`)).length;
    // (int) reads a text's leading number: 12abc is 12, 1e1x is 10, 0x1A is 0, which WP_Query
    // answered with one post, as it did any other text but "" and "0" (the default 10).
    // 1e400 too: (int) of a number past a double's range is 0.
    const perPage = [
      "12abc",
      "1e1x",
      "+5",
      "0012",
      "5 ",
      "0x1A",
      "abc",
      "0.5",
      "00",
      "1e400",
      "",
      "0",
    ];
    const counts = [12, 10, 5, 12, 5, 1, 1, 1, 1, 1, 10, 10];
    const asked = [];
    for (const n of perPage) asked.push(await count(`posts_per_page=${encodeURIComponent(n)}`));
    expect(asked).toEqual(counts);
    // Only a number equal to -1 is every post; another text whose (int) is -1 asked MySQL for
    // `LIMIT 0, -1`, which it refused: no post found.
    expect(await count("posts_per_page=-1.0")).toBe(12);
    for (const n of ["-1abc", "-1.5"]) expect(await count(`posts_per_page=${n}`), n).toBe(0);
    expect(await count("posts_per_page=-3abc")).toBe(3);
    // paged is absint(): page_no=2abc is page 2, -2x page 2, x page 1.
    const pages = [];
    for (const n of ["2abc", "-2x", "1e0x", "x", "1e400"]) pages.push(await count(`page_no=${n}`));
    expect(pages).toEqual([2, 2, 10, 10, 10]);
  });

  it("holds at most 100 posts a page, whatever posts_per_page asks", async () => {
    const own = await makeWallet(admin);
    await appendHistory(alice.id, own, 101);
    for (const asked of ["100", "101", "-101", "-1"])
      expect(
        await search(`meta_key=currency&meta_value=${own}&posts_per_page=${asked}`),
        asked,
      ).toHaveLength(100);
    expect(
      await search(`meta_key=currency&meta_value=${own}&posts_per_page=101&page_no=2`),
    ).toHaveLength(1);
  });

  it("finds a meta_data key whatever its ASCII case", async () => {
    const res = await post(
      "/credits",
      {
        user_id: alice.id,
        wallet_id: wallet,
        request_id: unique("md_"),
        amount: 1,
        meta_data: { Channel: "App" },
      },
      admin.bearer,
    );
    expect(res.status, res.text).toBe(200);
    const id = res.body.data.transaction_id;
    for (const key of ["Channel", "channel", "CHANNEL"])
      expect(
        (await search(`meta_key=${key}&meta_value=app`)).map((r) => r.ID),
        key,
      ).toContain(id);
    expect((await search("meta_key=channel&meta_value=web")).map((r) => r.ID)).not.toContain(id);
  });

  it("orders rows of one second by ID ascending, newest date first or last, as MySQL gave them", async () => {
    const [user, own] = [await makeUser(), await makeWallet(admin)];
    const at = Math.floor(Date.now() / 1000) - 120;
    await importedEntry(user.id, own, "CREDIT", 100, "1", 0, at);
    await importedEntry(user.id, own, "CREDIT", 100, "1", 100, at);
    const byDate = async (dir: string) =>
      (await search(`meta_key=currency&meta_value=${own}&order=${dir}`)).map((r) => r.ID);
    const [first, second] = await byDate("ASC");
    expect(second).toBeGreaterThan(first);
    expect(await byDate("DESC")).toEqual([first, second]);
  });

  it("orders by ID only for orderby=ID as written: WP_Query's keys are case-sensitive, so id is by date", async () => {
    // Two imported entries whose ids run against their dates, as a site's backdated posts do.
    const [user, own] = [await makeUser(), await makeWallet(admin)];
    const now = Math.floor(Date.now() / 1000);
    await importedEntry(user.id, own, "CREDIT", 100, "1", 0, now - 60);
    await importedEntry(user.id, own, "CREDIT", 100, "1", 100, now - 3600);
    const [older, newer] = (
      await search(`meta_key=currency&meta_value=${own}&orderby=ID&order=ASC`)
    ).map((r) => r.ID);
    expect(newer).toBeGreaterThan(older);
    const order = async (orderby: string) =>
      (await search(`meta_key=currency&meta_value=${own}&orderby=${orderby}&order=DESC`)).map(
        (r) => r.ID,
      );
    expect(await order("ID")).toEqual([newer, older]);
    // The later post_date first: the lower id.
    for (const orderby of ["id", "Id", "iD", "date", "", "title"])
      expect(await order(orderby), orderby).toEqual([older, newer]);
    // `order` in any ASCII case, as parse_order's strtoupper() read it; `ſ` is no `S` to it.
    const by = async (dir: string) =>
      (
        await search(
          `meta_key=currency&meta_value=${own}&orderby=ID&order=${encodeURIComponent(dir)}`,
        )
      ).map((r) => r.ID);
    for (const dir of ["ASC", "asc", "aSc"]) expect(await by(dir), dir).toEqual([older, newer]);
    for (const dir of ["aſc", "ascending", ""]) expect(await by(dir), dir).toEqual([newer, older]);
  });
});
