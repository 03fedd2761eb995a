// What the plugin dialect reads as an amount and what its answers report: every answer's
// `amount` is the amount that moved, the text as sent stays with the entry, and percent-escapes
// left in an amount's text never change the number it reads as.
import { beforeAll, describe, expect, it } from "vitest";
import { compatCall, GUARDED } from "./compat-helpers";
import {
  balanceOf,
  CLEAN,
  call,
  type Json,
  ledgerViolations,
  makeAdmin,
  makeUser,
  makeWallet,
  type TestUser,
  tableCounts,
  unique,
} from "./helpers";

const NS = "/wp-json/rimplenet/v1";
let admin: TestUser;

beforeAll(async () => {
  admin = await makeAdmin();
});

const rid = () => unique("r").replace(/[^A-Za-z0-9_]/g, "_");

function send(path: string, body: string, contentType: string | null, auth = admin.bearer) {
  const headers: Record<string, string> = { Authorization: auth };
  if (contentType) headers["Content-Type"] = contentType;
  return compatCall("POST", `${NS}${path}`, { vars: GUARDED, headers, body });
}
const json = (path: string, body: Json) => send(path, JSON.stringify(body), "application/json");
const read = (path: string) =>
  compatCall("GET", `${NS}${path}`, { vars: GUARDED, headers: { Authorization: admin.bearer } });

/** A subscriber with `funds` in a fresh 2-decimal wallet. */
async function account(funds = "0") {
  const user = await makeUser();
  const wallet = await makeWallet(admin, { decimals: 2 });
  if (funds !== "0") {
    const res = await call("POST", "/credits", {
      auth: admin.bearer,
      body: { user_id: user.id, wallet_id: wallet, amount: funds, request_id: rid() },
    });
    expect(res.status, res.text).toBe(200);
  }
  return { user, wallet };
}

/** The wallet/v1 record of an entry (its `amount` and `post_content`). */
async function v1Record(userId: number, id: number) {
  const res = await call("GET", "/transactions", {
    auth: admin.bearer,
    query: { user_id: userId, security_code: 1 },
  });
  expect(res.status, res.text).toBe(200);
  return (res.body.data as Json[]).find((t) => t.ID === id)!;
}

describe("answers report the amount that moved", () => {
  it("a credit of 0.005 on a 2-decimal wallet moves 0.01, and every list says 0.01 (the text as sent stays in post_content)", async () => {
    const { user, wallet } = await account();
    const res = await json("/credits", {
      user_id: user.id,
      wallet_id: wallet,
      request_id: rid(),
      amount: "0.005",
    });
    expect(res.status, res.text).toBe(200);
    const id = res.body.data.transaction_id;
    expect(await balanceOf(admin, user.id, wallet)).toBe(0.01);

    const one = await read(`/credits?credit_id=${id}`);
    expect(one.status, one.text).toBe(200);
    expect(one.body.data.amount).toBe("0.01");
    const v1 = await v1Record(user.id, id);
    expect([v1.amount, v1.post_content, v1.amount_formatted_disp]).toEqual([
      "0.01",
      "Amount:0.005",
      "₦0.01",
    ]);
    const listed = await read(`/transactions?meta_key=user_id&meta_value=${user.id}`);
    const entry = (listed.body.data as Json[]).find((t) => t.ID === id)!;
    expect([entry.amount, entry.amount_formatted]).toEqual([0.01, "₦0.01"]);
  });

  it("a debit that rounds reports what moved in GET debits", async () => {
    const { user, wallet } = await account("5");
    const res = await json("/debits", {
      user_id: user.id,
      wallet_id: wallet,
      request_id: rid(),
      amount: 1.234999,
    });
    expect(res.status, res.text).toBe(200);
    expect(await balanceOf(admin, user.id, wallet)).toBe(3.77);
    const one = await read(`/debits?debit_id=${res.body.data.transaction_id}`);
    expect(one.body.data.amount).toBe("1.23");
  });

  it("a transfer that rounds reports what moved on both halves in GET transfers", async () => {
    const { user, wallet } = await account("5");
    const to = await makeUser();
    const res = await json("/transfers", {
      transfer_from_user: user.id,
      transfer_to_user: to.id,
      wallet_id: wallet,
      amount_to_transfer: "+.125",
    });
    expect(res.status, res.text).toBe(200);
    const sender = await read(`/transfers?transfer_id=${res.body.data.transfer}`);
    expect(sender.body.data.transferAmount).toBe("0.13");
    const receiver = await read(`/transfers?transfer_id=${sender.body.data.transferId}`);
    expect(receiver.body.data.transferAmount).toBe("0.13");
    expect(await balanceOf(admin, to.id, wallet)).toBe(0.13);
  });

  it("an exponent past any amount: negative is not positive, positive too large; nothing moves", async () => {
    const { user, wallet } = await account();
    const before = await tableCounts();
    const refused = async (amount: string) =>
      (await json("/credits", { user_id: user.id, wallet_id: wallet, request_id: rid(), amount }))
        .body.error;
    expect(await refused("-1e999")).toEqual({ amount: "amount must be greater than zero" });
    expect(await refused("-1E+400")).toEqual({ amount: "amount must be greater than zero" });
    expect(await refused("1e-999")).toEqual({ amount: "amount must be greater than zero" });
    expect(await refused("1e999")).toEqual({ amount: "amount is too large" });
    expect(await tableCounts()).toEqual(before);
  });

  it("a JSON number past what a double holds is PHP's INF, no valid amount; one a double holds is too large or not positive, by what it is", async () => {
    const { user, wallet } = await account();
    const before = await tableCounts();
    const refused = async (amount: string) =>
      (
        await send(
          "/credits",
          `{"user_id":${user.id},"wallet_id":"${wallet}","request_id":"${rid()}","amount":${amount}}`,
          "application/json",
        )
      ).body.error;
    expect(await refused("1e400")).toEqual({ amount: "amount requires a valid amount" });
    expect(await refused("-1e400")).toEqual({ amount: "amount requires a valid amount" });
    expect(await refused("1e300")).toEqual({ amount: "amount is too large" });
    expect(await refused("-1e300")).toEqual({ amount: "amount must be greater than zero" });
    expect(await tableCounts()).toEqual(before);
  });

  it("a transfer of a JSON number past what a double holds is no valid amount, never echoed back written out", async () => {
    const { user, wallet } = await account("5");
    const to = await makeUser();
    const before = await tableCounts();
    const transfer = (amount: string) =>
      send(
        "/transfers",
        `{"transfer_from_user":${user.id},"transfer_to_user":${to.id},"wallet_id":"${wallet}","amount_to_transfer":${amount}}`,
        "application/json",
      );
    const inf = await transfer("-1e400");
    expect([inf.status, inf.body]).toEqual([
      400,
      {
        status_code: 400,
        status: false,
        message: "invalid input",
        error: { amount_to_transfer: "amount_to_transfer requires a valid amount" },
      },
    ]);
    // Sent as text, PHP's is_numeric took it, and the plugin echoed it as sent.
    const text = await transfer('"-1e400"');
    expect(text.body.error).toBe(
      "Requested amount [-1e400] is below minimum transfer amount, input amount not less than 0",
    );
    expect(await tableCounts()).toEqual(before);
  });

  it("a negative JSON number is echoed in PHP's text of it, as the plugin's sanitize_text_field made it", async () => {
    const { user, wallet } = await account("5");
    const to = await makeUser();
    const before = await tableCounts();
    const echoed = async (amount: string) =>
      (
        await send(
          "/transfers",
          `{"transfer_from_user":${user.id},"transfer_to_user":${to.id},"wallet_id":"${wallet}","amount_to_transfer":${amount}}`,
          "application/json",
        )
      ).body.error;
    const below = (text: string) =>
      `Requested amount [${text}] is below minimum transfer amount, input amount not less than 0`;
    // What JavaScript's JSON.stringify writes for the float noise of a subtraction.
    expect(await echoed("-1.4210854715202004e-14")).toBe(below("-1.4210854715202E-14"));
    expect(await echoed("-1e-5")).toBe(below("-1.0E-5"));
    expect(await echoed("-1e20")).toBe(below("-1.0E+20"));
    expect(await echoed("-0.30000000000000004")).toBe(below("-0.3"));
    // Within PHP's 14 digits, the same text either way.
    expect(await echoed("-5.50")).toBe(below("-5.5"));
    expect(await echoed("-1e2")).toBe(below("-100"));
    expect(await tableCounts()).toEqual(before);
  });

  it("an amount that moved exactly is shown as it was sent (1500, 100.50, 1e1, 1e0000001)", async () => {
    const { user, wallet } = await account();
    for (const [amount, shown] of [
      ["1500", "1500"],
      ["100.50", "100.50"],
      ["1e1", "1e1"],
      // PHP's is_numeric reads the exponent's leading zeros as nothing: 10, not "too large"
      ["1e0000001", "1e0000001"],
    ]) {
      const res = await json("/credits", {
        user_id: user.id,
        wallet_id: wallet,
        request_id: rid(),
        amount,
      });
      expect(res.status, res.text).toBe(200);
      const one = await read(`/credits?credit_id=${res.body.data.transaction_id}`);
      expect(one.body.data.amount, amount).toBe(shown);
    }
    expect(await balanceOf(admin, user.id, wallet)).toBe(1620.5);
  });

  it("a JSON number below 10^-6 (JavaScript sends 0.0000001 as 1e-7) records the plain decimal text wallet/v1 records, in credits and transfers", async () => {
    const user = await makeUser();
    const to = await makeUser();
    const wallet = await makeWallet(admin, { decimals: 8 });
    // JSON.stringify writes these numbers as 1e-7 and 5e-8, as a JavaScript client sends them.
    const credit = await json("/credits", {
      user_id: user.id,
      wallet_id: wallet,
      request_id: rid(),
      amount: 0.0000001,
    });
    expect(credit.status, credit.text).toBe(200);
    const v1Credit = await call("POST", "/credits", {
      auth: admin.bearer,
      body: { user_id: to.id, wallet_id: wallet, request_id: rid(), amount: 0.0000001 },
    });
    expect(v1Credit.status, v1Credit.text).toBe(200);
    const transfer = await json("/transfers", {
      transfer_from_user: user.id,
      transfer_to_user: to.id,
      wallet_id: wallet,
      amount_to_transfer: 0.00000005,
    });
    expect(transfer.status, transfer.text).toBe(200);

    const records = async (id: number) => {
      const r = await v1Record(id === credit.body.data.transaction_id ? user.id : to.id, id);
      return [r.amount, r.post_content];
    };
    expect(await records(credit.body.data.transaction_id)).toEqual([
      "0.0000001",
      "Amount:0.0000001",
    ]);
    expect(await records(v1Credit.body.data.transaction_id)).toEqual([
      "0.0000001",
      "Amount:0.0000001",
    ]);
    const one = await read(`/credits?credit_id=${credit.body.data.transaction_id}`);
    expect(one.body.data.amount).toBe("0.0000001");
    const sent = await read(`/transfers?transfer_id=${transfer.body.data.transfer}`);
    expect(sent.body.data.transferAmount).toBe("0.00000005");
    expect(await balanceOf(admin, user.id, wallet)).toBe(0.00000005);
    expect(await balanceOf(admin, to.id, wallet)).toBe(0.00000015);
  });
});

describe("percent-escapes in an amount", () => {
  it("a form body's or a query's amount=1%2e5 is decoded once, by the transport, and credits 1.5", async () => {
    const { user, wallet } = await account();
    const fields = `user_id=${user.id}&wallet_id=${wallet}&amount=1%2e5`;
    const form = await send(
      "/credits",
      `${fields}&request_id=${rid()}`,
      "application/x-www-form-urlencoded",
    );
    expect(form.status, form.text).toBe(200);
    const query = await compatCall("POST", `${NS}/credits?${fields}&request_id=${rid()}`, {
      vars: GUARDED,
      headers: { Authorization: admin.bearer },
    });
    expect(query.status, query.text).toBe(200);
    expect(await balanceOf(admin, user.id, wallet)).toBe(3);
  });

  it("text still holding %2e after that (JSON, multipart, a form encoded twice) is no amount: 400, never 15", async () => {
    const { user, wallet } = await account("20");
    const before = await tableCounts();
    const base = { user_id: String(user.id), wallet_id: wallet };
    const refused = { amount: "amount requires a valid amount" };
    const multipart = new FormData();
    for (const [k, v] of Object.entries({ ...base, request_id: rid(), amount: "1%2e5" }))
      multipart.append(k, v);
    const replies = [
      await json("/credits", { ...base, request_id: rid(), amount: "1%2e5" }),
      await json("/debits", { ...base, request_id: rid(), amount: "1%2e5" }),
      await compatCall("POST", `${NS}/credits`, {
        vars: GUARDED,
        headers: { Authorization: admin.bearer },
        body: multipart as unknown as string,
      }),
      await send(
        "/credits",
        new URLSearchParams({ ...base, request_id: rid(), amount: "1%2e5" }).toString(),
        "application/x-www-form-urlencoded",
      ),
    ];
    for (const res of replies) {
      expect(res.status, res.text).toBe(400);
      expect(res.body.error).toEqual(refused);
    }
    const transfer = await json("/transfers", {
      transfer_from_user: user.id,
      transfer_to_user: admin.id,
      wallet_id: wallet,
      amount_to_transfer: "1%2e5",
    });
    expect(transfer.status, transfer.text).toBe(400);
    expect(transfer.body.error).toEqual({
      amount_to_transfer: "amount_to_transfer requires a valid amount",
    });
    expect(await tableCounts()).toEqual(before);
    expect(await balanceOf(admin, user.id, wallet)).toBe(20);
  });

  it("other fields are still read as sanitize_text_field reads them (octets removed)", async () => {
    const { user, wallet } = await account();
    const res = await json("/credits", {
      user_id: `${user.id}%20`,
      wallet_id: wallet,
      request_id: `${rid()}%41`,
      amount: "2",
    });
    expect(res.status, res.text).toBe(200);
    expect(await balanceOf(admin, user.id, wallet)).toBe(2);
    expect(await ledgerViolations()).toEqual(CLEAN);
  });
});

describe("an amount's text past its length", () => {
  it("is refused in POST transfers as in credits and debits, writing nothing and never echoed", async () => {
    const { user, wallet } = await account("100");
    const to = await makeUser();
    const before = await tableCounts();
    const transfer = (amount: string) =>
      json("/transfers", {
        transfer_from_user: user.id,
        transfer_to_user: to.id,
        wallet_id: wallet,
        amount_to_transfer: amount,
      });
    const long = await transfer(`1.${"0".repeat(100)}`);
    expect(long.status, long.text).toBe(400);
    expect(long.body.error).toEqual({
      amount_to_transfer: "amount_to_transfer must be at most 40 characters",
    });
    const negative = await transfer(`-${"9".repeat(5000)}`);
    expect(negative.status, negative.text).toBe(400);
    expect(negative.body.error).toEqual({
      amount_to_transfer: "amount_to_transfer must be greater than zero",
    });
    expect(await tableCounts()).toEqual(before);
  });

  it("is refused as not numeric, the plugin's own check, when it is not a number at all", async () => {
    const { user, wallet } = await account("100");
    const to = await makeUser();
    const before = await tableCounts();
    const text = "x".repeat(100);
    for (const path of ["/credits", "/debits"]) {
      const res = await json(path, {
        user_id: user.id,
        wallet_id: wallet,
        request_id: rid(),
        amount: text,
      });
      expect([res.status, res.body.error], path).toEqual([
        400,
        { amount: "amount requires a valid amount" },
      ]);
    }
    const moved = await json("/transfers", {
      transfer_from_user: user.id,
      transfer_to_user: to.id,
      wallet_id: wallet,
      amount_to_transfer: text,
    });
    expect([moved.status, moved.body.error]).toEqual([
      400,
      { amount_to_transfer: "amount_to_transfer requires a valid amount" },
    ]);
    expect(await tableCounts()).toEqual(before);
  });
});

describe("a refused amount beside an unknown user or wallet", () => {
  it("is named before the user in credits and debits, however it is written, as wallet/v1 names it", async () => {
    const { user, wallet } = await account("100");
    const before = await tableCounts();
    const notPositive = { amount: "amount must be greater than zero" };
    const tooLarge = { amount: "amount is too large" };
    // Each amount's refusal needs no wallet (its sign), or only the wallet's places.
    const cases: [string, unknown, Json][] = [
      ["-1", "-1", notPositive],
      ["0", 0, notPositive],
      ["-0.5", -0.5, notPositive],
      ["-1e300", -1e300, notPositive],
      ["a long negative", `-${"9".repeat(50)}`, notPositive],
      ["rounds to zero", "0.001", notPositive],
      ["too large for the wallet", "99999999999999999", tooLarge],
    ];
    for (const [label, amount, error] of cases)
      for (const path of ["/credits", "/debits"]) {
        const nobody = await json(path, {
          user_id: 999_999_999,
          wallet_id: wallet,
          request_id: rid(),
          amount,
        });
        expect([nobody.status, nobody.body.error], `${path} ${label}`).toEqual([400, error]);
      }
    // A sign is judged with the other fields, before the wallet is looked up.
    for (const [label, amount, error] of cases.slice(0, 5))
      for (const path of ["/credits", "/debits"]) {
        const noWallet = await json(path, {
          user_id: user.id,
          wallet_id: "nowallet",
          request_id: rid(),
          amount,
        });
        expect([noWallet.status, noWallet.body.error], `${path} ${label}`).toEqual([400, error]);
      }
    // wallet/v1 names the amount before the user too.
    const v1 = await call("POST", "/credits", {
      auth: admin.bearer,
      body: { user_id: 999_999_999, wallet_id: wallet, request_id: rid(), amount: "-1" },
    });
    expect([v1.status, v1.body.error]).toEqual([400, notPositive]);
    expect(await tableCounts()).toEqual(before);
  });
});
