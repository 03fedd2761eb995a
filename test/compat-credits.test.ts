// POST credits and POST debits in the Rimplenet 1.1.31 dialect: the captures 11-36 replayed in
// order against the compatibility namespace (status, key order, field names, JSON types, every
// deterministic value), the deliberate differences asserted as this service answers them, and the
// money rules of the shared ledger (idempotent, race-safe, no overdraft, a refusal writes nothing).
import { beforeAll, describe, expect, it } from "vitest";
import { compareShape, compatCall, GUARDED } from "./compat-helpers";
import casesText from "./fixtures/rimplenet-1.1.31/credits.jsonl?raw";
import {
  CLEAN,
  call,
  type Json,
  ledgerViolations,
  makeAdmin,
  makeKey,
  makeUser,
  type TestUser,
  tableCounts,
  unique,
} from "./helpers";

type Case = {
  id: string;
  description: string;
  request: {
    method: string;
    path: string;
    auth: string;
    headers: Record<string, string>;
    body: string | null;
  };
  response: { status: number; body_json: Json };
};

const CASES: Case[] = casesText
  .trim()
  .split("\n")
  .map((line) => JSON.parse(line));
const API = "/wp-json/rimplenet/v1";

/** Where this service answers otherwise on purpose (docs/compat.md), and what it answers. */
const DIFFERENT: Record<string, { status: number; body: Json; reason: string }> = {
  "29": {
    status: 400,
    body: {
      status_code: 400,
      status: false,
      message: "invalid input",
      error: { amount: "amount must be greater than zero" },
    },
    reason: "the plugin booked a credit of -5 as a debit that could overdraw",
  },
  "30": {
    status: 400,
    body: {
      status_code: 400,
      status: false,
      message: "invalid input",
      error: { amount: "amount must be greater than zero" },
    },
    reason: "the plugin booked a credit of 0, moving nothing",
  },
  "33": {
    status: 401,
    body: {
      status_code: 401,
      status: false,
      message: "Invalid Token",
      error: {
        credentials: "Authorization Denied",
        recommendation: {
          username: "Re-visit the specified username",
          password: "Confirm password matches",
        },
      },
    },
    reason:
      "a wrong key for a known user gets the same answer as an unknown user (the plugin's 400 told them apart)",
  },
  "35": {
    status: 200,
    body: {
      status_code: 200,
      status: true,
      message: "Transaction Completed",
      data: { transaction_id: 0, user_id: 0 },
    },
    reason:
      "this service's own access token is a credential on every route (the plugin's key routes took keys only)",
  },
  "36": {
    status: 401,
    body: {
      status_code: 401,
      status: false,
      message: "Invalid Token",
      error: {
        credentials: "Authorization Denied",
        recommendation: {
          username: "Re-visit the specified username",
          password: "Confirm password matches",
        },
      },
    },
    reason:
      "Basic carries an API key here, as on the plugin's other routes; a password in it is a wrong key",
  },
};

let admin: TestUser;
let keyHeader: string;
const ids = new Map<string, number>();
/** The entry each capture's request made (12-15 answer with 11's). */
let firstCredit = 0;

beforeAll(async () => {
  admin = await makeAdmin();
  keyHeader = (await makeKey(admin, "read-write")).header;
  const [alice, bob] = [await makeUser(), await makeUser()];
  ids.set("1", admin.id).set("2", alice.id).set("3", bob.id);
  for (const id of ["usd", "ngn"]) {
    const res = await call("POST", "/wallets", {
      auth: admin.bearer,
      body: {
        wallet_id: id,
        wallet_name: id,
        wallet_symbol: "$",
        wallet_decimal: 2,
        wallet_type: "fiat",
      },
    });
    expect(res.status, res.text).toBe(200);
  }
});

/** The captured body with this database's user ids. */
function replayBody(c: Case) {
  const body = c.request.body ?? "";
  if (c.request.headers["Content-Type"]?.startsWith("application/x-www-form-urlencoded")) {
    return body.replace(/(^|&)user_id=(\d+)/, (all, lead, id) =>
      ids.has(id) ? `${lead}user_id=${ids.get(id)}` : all,
    );
  }
  const json = JSON.parse(body || "{}");
  if (typeof json.user_id === "number" && ids.has(String(json.user_id)))
    json.user_id = ids.get(String(json.user_id));
  return JSON.stringify(json);
}

function replayedUserId(c: Case) {
  const body = replayBody(c);
  return Number(
    body.startsWith("{") ? JSON.parse(body).user_id : new URLSearchParams(body).get("user_id"),
  );
}

function replayHeaders(c: Case) {
  const headers: Record<string, string> = {};
  if (c.request.headers["Content-Type"])
    headers["Content-Type"] = c.request.headers["Content-Type"];
  // The peer's key and JWT were the peer's own: replay with this service's credentials.
  if (c.request.auth === "key") headers.Authorization = keyHeader;
  else if (c.request.auth === "jwt") headers.Authorization = admin.bearer;
  else if (c.request.headers.Authorization) headers.Authorization = c.request.headers.Authorization;
  return headers;
}

describe("replay of the Rimplenet 1.1.31 captures 11-36 (POST credits)", () => {
  it("covers captures 11 to 36", () => {
    expect(CASES.map((c) => Number(c.id.slice(0, 2)))).toEqual(
      Array.from({ length: 26 }, (_, i) => 11 + i),
    );
  });

  for (const c of CASES) {
    const n = c.id.slice(0, 2);
    const different = DIFFERENT[n];
    it(`${c.id}: answers ${different ? `${different.status} on purpose (${different.reason})` : c.response.status}`, async () => {
      const before = await tableCounts();
      const res = await compatCall("POST", c.request.path, {
        headers: replayHeaders(c),
        body: replayBody(c),
        vars: GUARDED,
      });
      const expected = structuredClone(different?.body ?? c.response.body_json);
      expect(res.status, res.text).toBe(different?.status ?? c.response.status);
      expect(res.headers.get("content-type")).toBe("application/json; charset=UTF-8");
      const skip = new Set<string>();
      if (expected.data?.transaction_id !== undefined) {
        skip.add("data.transaction_id");
        expected.data.user_id = replayedUserId(c);
      }
      if (expected.error?.txn_id !== undefined) expected.error.txn_id = String(firstCredit);
      compareShape(res.body, expected, skip);
      if (n === "11") firstCredit = res.body.data.transaction_id;
      if (res.status !== 200) expect(await tableCounts()).toStrictEqual(before);
    });
  }

  it("kept the money the replay moved: balances equal the sum of their entries", async () => {
    expect(await ledgerViolations()).toEqual(CLEAN);
    const read = await call("GET", "/user-wallet-balance", {
      auth: admin.bearer,
      query: { user_id: ids.get("3")!, wallet_id: "usd" },
    });
    // 10 (16) + 12.345 rounded half away from zero to 12.35 (19)
    expect(read.body.data.usd).toBe(22.35);
  });
});

describe("POST credits and debits in the dialect", () => {
  const post = (route: "credits" | "debits" | "transfers", body: Json, auth = admin.bearer) =>
    compatCall("POST", `${API}/${route}`, {
      headers: { Authorization: auth, "Content-Type": "application/json" },
      body: JSON.stringify(body),
      vars: GUARDED,
    });

  async function account() {
    const user = await makeUser();
    const wallet = unique("w")
      .slice(0, 20)
      .toLowerCase()
      .replace(/[^a-z0-9_]/g, "");
    const res = await call("POST", "/wallets", {
      auth: admin.bearer,
      body: {
        wallet_id: wallet,
        wallet_name: "W",
        wallet_symbol: "$",
        wallet_decimal: 2,
        wallet_type: "fiat",
      },
    });
    expect(res.status, res.text).toBe(200);
    return { user, wallet };
  }
  const rid = () => unique("r").replace(/[^A-Za-z0-9_]/g, "_");
  const balance = async (userId: number, wallet: string) =>
    (
      await call("GET", "/user-wallet-balance", {
        auth: admin.bearer,
        query: { user_id: userId, wallet_id: wallet },
      })
    ).body.data[wallet];

  it("rounds an amount with more decimals than the wallet half away from zero, on its digits, answers what moved as its amount and keeps the text as sent", async () => {
    const { user, wallet } = await account();
    const res = await post("credits", {
      user_id: String(user.id),
      wallet_id: wallet,
      request_id: rid(),
      amount: 14507.525000000001,
    });
    expect(res.status, res.text).toBe(200);
    expect(await balance(user.id, wallet)).toBe(14507.53);
    const list = await call("GET", "/transactions", {
      auth: admin.bearer,
      query: { user_id: user.id, security_code: 1 },
    });
    expect(list.body.data[0].amount).toBe("14507.53");
    expect(list.body.data[0].post_content).toBe("Amount:14507.525000000001");
  });

  it('reads a JSON true as PHP\'s text "1" and false as empty, as the plugin did', async () => {
    const { user, wallet } = await account();
    const res = await post("credits", {
      user_id: user.id,
      wallet_id: wallet,
      request_id: rid(),
      amount: true,
    });
    expect(res.status, res.text).toBe(200);
    expect(await balance(user.id, wallet)).toBe(1);
    const refused = await post("credits", {
      user_id: user.id,
      wallet_id: wallet,
      request_id: rid(),
      amount: false,
    });
    expect([refused.status, refused.body.error]).toEqual([
      400,
      { amount: "Field Cannot be empty" },
    ]);
  });

  it("debits the balance, refuses past it writing nothing, and answers a repeated request_id 409", async () => {
    const { user, wallet } = await account();
    expect(
      (
        await post("credits", {
          user_id: user.id,
          wallet_id: wallet,
          request_id: rid(),
          amount: "10",
        })
      ).status,
    ).toBe(200);
    const id = rid();
    const debit = await post("debits", {
      user_id: user.id,
      wallet_id: wallet,
      request_id: id,
      amount: 4,
    });
    expect(debit.body).toMatchObject({ status_code: 200, message: "Transaction Completed" });
    const again = await post("debits", {
      user_id: user.id,
      wallet_id: wallet,
      request_id: id.toUpperCase(),
      amount: 4,
    });
    expect(again.body).toStrictEqual({
      status_code: 409,
      status: false,
      message: "Transaction already exists",
      error: {
        txn_id: String(debit.body.data.transaction_id),
        exist: "Transaction already executed",
      },
    });
    const before = await tableCounts();
    const over = await post("debits", {
      user_id: user.id,
      wallet_id: wallet,
      request_id: rid(),
      amount: 7,
    });
    expect(over.body).toStrictEqual({
      status_code: 400,
      status: false,
      message: "Insufficient Balance",
      error: { amount: "Insufficient Balance" },
    });
    expect(await tableCounts()).toStrictEqual(before);
    expect(await balance(user.id, wallet)).toBe(6);
  });

  it("reads an amount and a user id with C's white space around them as PHP's is_numeric did: a form feed is space", async () => {
    const { user, wallet } = await account();
    const res = await post("credits", {
      user_id: user.id,
      wallet_id: wallet,
      request_id: rid(),
      amount: "5\f",
    });
    expect(res.status, res.text).toBe(200);
    expect(await balance(user.id, wallet)).toBe(5);
    // `<id>\f` is numeric to PHP, so it names the user with that id, as the balance read took it
    const read = await compatCall(
      "GET",
      `${API}/user-wallet-balance?user_id=${user.id}%0C&wallet_id=${wallet}`,
      { headers: { Authorization: admin.bearer }, vars: GUARDED },
    );
    expect([read.status, read.body.data?.wallet_balance_raw], read.text).toEqual([200, 5]);
  });

  it("reads a multipart body's text fields as PHP's $_POST held them: a file part is no field, whatever its name", async () => {
    const { user, wallet } = await account();
    const form = new FormData();
    for (const [k, v] of Object.entries({
      user_id: String(user.id),
      wallet_id: wallet,
      request_id: rid(),
      amount: "2",
    }))
      form.append(k, v);
    // PHP puts a file part in $_FILES, which WP_REST_Request never reads a parameter from.
    form.append("amount", new Blob(["9"]), "amount.txt");
    form.append("note", new Blob(["a file"]), "note.txt");
    // The body and its boundary as fetch writes them.
    const credit = async (body: FormData) => {
      const sent = new Request("http://localhost/", { method: "POST", body });
      return compatCall("POST", `${API}/credits`, {
        headers: {
          Authorization: admin.bearer,
          "Content-Type": sent.headers.get("Content-Type")!,
        },
        body: await sent.text(),
        vars: GUARDED,
      });
    };
    const res = await credit(form);
    expect(res.status, res.text).toBe(200);
    expect(await balance(user.id, wallet)).toBe(2);
    // A file alone is a field not sent: credits' missing user_id is 0, as `?? 0` made it.
    const only = new FormData();
    only.append("user_id", new Blob(["2"]), "user.txt");
    const refused = await credit(only);
    expect([refused.status, refused.body.error?.user_id]).toEqual([400, "user_id cannot be zero"]);
  });

  it("keeps a note as WordPress's sanitize_text_field wrote it: a lone < escaped with what follows it, tags stripped", async () => {
    const { user, wallet } = await account();
    const res = await post("credits", {
      user_id: user.id,
      wallet_id: wallet,
      request_id: rid(),
      amount: 1,
      note: '<b>paid</b> 2 < 3 & "ok"',
    });
    expect(res.status, res.text).toBe(200);
    const one = await compatCall(
      "GET",
      `${API}/credits?credit_id=${res.body.data.transaction_id}`,
      { headers: { Authorization: admin.bearer }, vars: GUARDED },
    );
    expect(one.body.data?.note, one.text).toBe("paid 2 &lt; 3 &amp; &quot;ok&quot;");
  });

  it("a missing user_id is 'cannot be zero' for credits and 'empty' for debits, as the plugin's two files had it", async () => {
    const { wallet } = await account();
    expect(
      (await post("credits", { wallet_id: wallet, request_id: rid(), amount: 1 })).body.error,
    ).toEqual({ user_id: "user_id cannot be zero" });
    expect(
      (await post("debits", { wallet_id: wallet, request_id: rid(), amount: 1 })).body.error,
    ).toEqual({ user_id: "Field Cannot be empty" });
  });

  it("a user id past any user's names nobody, not zero, in credits, debits and transfers", async () => {
    const { user, wallet } = await account();
    const huge = "99999999999999999999";
    const before = await tableCounts();
    for (const route of ["credits", "debits"] as const) {
      const res = await post(route, {
        user_id: huge,
        wallet_id: wallet,
        request_id: rid(),
        amount: 1,
      });
      expect([res.status, res.body.error], route).toEqual([404, [`Unable to reach ${huge}`]]);
    }
    // A transfer answers as it answers any user nobody is (the plugin's 400 "Invalid User").
    const transfer = async (to: string) =>
      (
        await post("transfers", {
          transfer_from_user: user.id,
          transfer_to_user: to,
          wallet_id: wallet,
          amount_to_transfer: 1,
        })
      ).text.replaceAll(to, "<id>");
    expect(await transfer(huge)).toBe(await transfer("2000000000"));
    expect(await transfer(huge)).toContain("Invalid User <id>");
    // Two ids that name nobody are two unknown users, not one user twice.
    const bothUnknown = await post("transfers", {
      transfer_from_user: huge,
      transfer_to_user: `${huge}8`,
      wallet_id: wallet,
      amount_to_transfer: 1,
    });
    expect(bothUnknown.text).toContain(`Invalid User ${huge}`);
    expect(await tableCounts()).toEqual(before);
  });

  it("a JSON number user id past PHP_INT_MAX is the float json_decode made of it: 'requires an integer', in credits, debits and transfers", async () => {
    const { user, wallet } = await account();
    const to = await makeUser();
    const before = await tableCounts();
    // Written out by hand: JavaScript cannot send 2^63 exactly. PHP read these as floats, whose
    // text (`9.2233720368548E+18`, `1.0E+20`) is no integer.
    for (const huge of ["9223372036854775808", "1e20", "99999999999999999999"]) {
      for (const route of ["credits", "debits"] as const) {
        const res = await compatCall("POST", `${API}/${route}`, {
          headers: { Authorization: admin.bearer, "Content-Type": "application/json" },
          body: `{"user_id":${huge},"wallet_id":"${wallet}","request_id":"${rid()}","amount":1}`,
          vars: GUARDED,
        });
        expect([res.status, res.body.error], `${route} ${huge}`).toEqual([
          400,
          { user_id: "user_id requires an integer" },
        ]);
      }
      const transfer = await compatCall("POST", `${API}/transfers`, {
        headers: { Authorization: admin.bearer, "Content-Type": "application/json" },
        body: `{"transfer_from_user":${user.id},"transfer_to_user":${huge},"wallet_id":"${wallet}","amount_to_transfer":1}`,
        vars: GUARDED,
      });
      expect([transfer.status, transfer.body.error], `transfers ${huge}`).toEqual([
        400,
        { transfer_to_user: "transfer_to_user requires an integer" },
      ]);
    }
    // PHP_INT_MAX itself is an integer to PHP, a user id that names nobody, as the same digits sent as text.
    for (const body of [
      `{"user_id":9223372036854775807,"wallet_id":"${wallet}","request_id":"${rid()}","amount":1}`,
      `{"user_id":"9223372036854775808","wallet_id":"${wallet}","request_id":"${rid()}","amount":1}`,
    ]) {
      const res = await compatCall("POST", `${API}/credits`, {
        headers: { Authorization: admin.bearer, "Content-Type": "application/json" },
        body,
        vars: GUARDED,
      });
      expect(res.status, body).toBe(404);
    }
    expect(await tableCounts()).toEqual(before);
    expect(to.id).toBeGreaterThan(0);
  });

  it("a JSON -0.0 is the float json_decode made of it, whose text is '-0': no request_id, no user id, no amount to transfer", async () => {
    const { user, wallet } = await account();
    const to = await makeUser();
    await post("credits", { user_id: user.id, wallet_id: wallet, request_id: rid(), amount: 5 });
    const before = await tableCounts();
    const raw = (route: string, body: string) =>
      compatCall("POST", `${API}/${route}`, {
        headers: { Authorization: admin.bearer, "Content-Type": "application/json" },
        body,
        vars: GUARDED,
      });
    for (const zero of ["-0.0", "-0e0", "-0.0E+5"]) {
      // The plugin's alnum check refused "-0": nothing is credited under a key "0".
      const keyed = await raw(
        "credits",
        `{"user_id":${user.id},"wallet_id":"${wallet}","request_id":${zero},"amount":1}`,
      );
      expect([keyed.status, keyed.body.error], zero).toEqual([
        400,
        { request_id: "request_id can contain aplhpabets, numbers and underscore" },
      ]);
      const named = await raw(
        "debits",
        `{"user_id":${zero},"wallet_id":"${wallet}","request_id":"${rid()}","amount":1}`,
      );
      expect([named.status, named.body.error], zero).toEqual([
        400,
        { user_id: "user_id requires an integer" },
      ]);
      // Not PHP's empty "0": the zero every other spelling of it is.
      const moved = await raw(
        "transfers",
        `{"transfer_from_user":${user.id},"transfer_to_user":${to.id},"wallet_id":"${wallet}","amount_to_transfer":${zero}}`,
      );
      expect([moved.status, moved.body.error], zero).toEqual([
        400,
        { amount_to_transfer: "amount_to_transfer must be greater than zero" },
      ]);
    }
    expect(await tableCounts()).toEqual(before);
    // `-0` is an integer to json_decode: 0, PHP's empty amount.
    const integer = await raw(
      "transfers",
      `{"transfer_from_user":${user.id},"transfer_to_user":${to.id},"wallet_id":"${wallet}","amount_to_transfer":-0}`,
    );
    expect([integer.status, integer.body.error]).toEqual([
      400,
      "One or more compulsory field is empty",
    ]);
    expect(await balance(user.id, wallet)).toBe(5);
  });

  it("a request_id with whitespace PHP's trim keeps (NBSP, BOM, U+2028, U+3000) is not alphanumeric: 400, nothing written, in credits, debits and transfers", async () => {
    const { user, wallet } = await account();
    const to = await makeUser();
    await post("credits", { user_id: user.id, wallet_id: wallet, request_id: rid(), amount: 5 });
    const before = await tableCounts();
    for (const id of [`${rid()}\u00a0`, `\ufeff${rid()}`, `${rid()}\u2028`, `\u3000${rid()}`]) {
      for (const route of ["credits", "debits"] as const) {
        const res = await post(route, {
          user_id: user.id,
          wallet_id: wallet,
          request_id: id,
          amount: 1,
        });
        expect(res.status, `${route} ${JSON.stringify(id)}`).toBe(400);
        expect(res.body.error).toEqual({
          request_id: "request_id can contain aplhpabets, numbers and underscore",
        });
      }
      const transfer = await compatCall("POST", `${API}/transfers`, {
        headers: { Authorization: admin.bearer, "Content-Type": "application/json" },
        body: JSON.stringify({
          transfer_from_user: user.id,
          transfer_to_user: to.id,
          wallet_id: wallet,
          amount_to_transfer: 1,
          request_id: id,
        }),
        vars: GUARDED,
      });
      expect(transfer.status, `transfers ${JSON.stringify(id)}: ${transfer.text}`).toBe(400);
    }
    expect(await tableCounts()).toEqual(before);
    expect(await balance(user.id, wallet)).toBe(5);
  });

  it("50 concurrent credits with one request_id apply once", async () => {
    const { user, wallet } = await account();
    const id = rid();
    const answers = await Promise.all(
      Array.from({ length: 50 }, () =>
        post("credits", { user_id: user.id, wallet_id: wallet, request_id: id, amount: "1.25" }),
      ),
    );
    expect(answers.filter((r) => r.status === 200)).toHaveLength(1);
    expect(answers.filter((r) => r.status === 409)).toHaveLength(49);
    expect(await balance(user.id, wallet)).toBe(1.25);
    expect(await ledgerViolations()).toEqual(CLEAN);
  });

  it("is a 404 rest_no_route while the namespace is off", async () => {
    const res = await compatCall("POST", `${API}/credits`, {
      headers: { Authorization: admin.bearer },
      body: "{}",
    });
    expect(res.status).toBe(404);
    expect(res.body.code).toBe("rest_no_route");
  });

  it("NellalinkHQ/middleware-samzugagpt-general routes/custom/debit-user.js:82 POST debits with meta_data and x-api-key", async () => {
    const { user, wallet } = await account();
    await post("credits", { user_id: user.id, wallet_id: wallet, request_id: rid(), amount: 50 });
    const res = await compatCall("POST", `${API}/debits`, {
      headers: {
        "x-api-key": "the-site-key-the-middleware-sends",
        Authorization: admin.bearer,
        "Content-Type": "application/json",
      },
      body: JSON.stringify({
        request_id: `community_membership_registration_by_user_${user.id}`,
        user_id: user.id,
        amount: 20,
        wallet_id: wallet,
        note: "Community Membership Registration",
        meta_data: {
          alt_request_id: `community_membership_registration_from_user_${user.id}`,
          transaction_action_type: "community_membership_registration_debit",
        },
      }),
      vars: GUARDED,
    });
    expect(res.body).toMatchObject({
      status_code: 200,
      status: true,
      message: "Transaction Completed",
      // As text, as the plugin's debits answered it (its credits answer a number).
      data: { user_id: String(user.id) },
    });
    expect(await balance(user.id, wallet)).toBe(30);
  });
});
