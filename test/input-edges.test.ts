// Inputs at their edges, on wallet/v1: lengths in characters, request_id's whitespace, the amount's
// 40 characters, PHP's last repeated query value, the path's id over the body's, DEL in a header,
// and +json media types.
import { describe, expect, it } from "vitest";
import { call, makeAccount, unique } from "./helpers";

type Account = Awaited<ReturnType<typeof makeAccount>>;

/** POST /credits of 1 to the account's user in its wallet, with `fields` over those. */
const creditTo = (
  { admin, user, wallet }: Account,
  fields: Record<string, unknown> = {},
  headers?: Record<string, string>,
) =>
  call("POST", "/credits", {
    auth: admin.bearer,
    headers,
    body: { user_id: user.id, wallet_id: wallet, amount: "1", request_id: unique("r"), ...fields },
  });

describe("a text field's length", () => {
  it("counts characters (code points), not UTF-16 units: 1000 emoji are a note of 1000", async () => {
    const account = await makeAccount();
    const ok = await creditTo(account, { note: "😀".repeat(1000) });
    expect(ok.status, ok.text).toBe(200);
    const long = await creditTo(account, { note: "😀".repeat(1001) });
    expect(long.status).toBe(400);
  });
});

describe("request_id", () => {
  it("refuses whitespace around the key rather than trim it or keep it", async () => {
    const account = await makeAccount();
    for (const requestId of [` ${unique("r")}`, `${unique("r")} `, `${unique("r")}\t`]) {
      const res = await creditTo(account, { request_id: requestId });
      expect(res.status, JSON.stringify(requestId)).toBe(400);
      expect(res.body.error, JSON.stringify(requestId)).toStrictEqual({
        request_id: "request_id must not begin or end with whitespace",
      });
    }
  });
});

describe("an amount's text", () => {
  it("may be 40 characters long, not 41", async () => {
    const account = await makeAccount();
    const forty = await creditTo(account, { amount: "1".padStart(40, "0") });
    expect(forty.status, forty.text).toBe(200);
    expect((await creditTo(account, { amount: "1".padStart(41, "0") })).status).toBe(400);
  });
});

describe("a parameter repeated in the query string", () => {
  it("is read as its last value, as PHP reads it", async () => {
    const { admin, user, wallet } = await makeAccount();
    const res = await call(
      "GET",
      `/user-wallet-balance?user_id=${user.id}&wallet_id=nosuchwallet&wallet_id=${wallet}`,
      { auth: admin.bearer },
    );
    expect(res.status, res.text).toBe(200);
    expect(res.body.data).toEqual({ [wallet]: 0 });
  });
});

describe("a path parameter and a body parameter of the same name", () => {
  it("acts on the record the path names, whatever the body says", async () => {
    const account = await makeAccount();
    const credit = async () => (await creditTo(account)).body.data.transaction_id as number;
    const [a, b] = [await credit(), await credit()];
    const res = await call("POST", `/transactions/${a}/reverse`, {
      auth: account.admin.bearer,
      body: { id: b, request_id: unique("rev") },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.reversed_transaction_ids).toEqual([a]);
  });
});

describe("a header the service reads as text", () => {
  it("refuses DEL (0x7f) in Content-Type as outside printable ASCII", async () => {
    const res = await call("POST", "/users/login", {
      body: { user_email: "x@y.z", user_password: "secret" },
      headers: { "Content-Type": "application/json\u007f" },
    });
    expect(res.status).toBe(400);
    expect(res.text).toContain("the Content-Type header must be printable ASCII");
  });
});

describe("a JSON body under a structured +json media type", () => {
  it("is read as JSON (application/merge-patch+json, application/vnd.api+json)", async () => {
    const account = await makeAccount();
    for (const type of ["application/vnd.api+json", "application/merge-patch+json"]) {
      const res = await creditTo(account, {}, { "Content-Type": type });
      expect(res.status, `${type}: ${res.text}`).toBe(200);
    }
  });
});
