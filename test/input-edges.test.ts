// Inputs at their edges, on wallet/v1: lengths in characters, request_id's whitespace, the amount's
// 40 characters, PHP's last repeated query value, the path's id over the body's, DEL in a header,
// and +json media types.
import { describe, expect, it } from "vitest";
import { call, makeAdmin, makeUser, makeWallet, unique } from "./helpers";

describe("a text field's length", () => {
  it("counts characters (code points), not UTF-16 units: 1000 emoji are a note of 1000", async () => {
    const admin = await makeAdmin();
    const user = await makeUser();
    const wallet = await makeWallet(admin);
    const credit = (note: string) =>
      call("POST", "/credits", {
        auth: admin.bearer,
        body: { user_id: user.id, wallet_id: wallet, amount: "1", request_id: unique("r"), note },
      });
    const ok = await credit("😀".repeat(1000));
    expect(ok.status, ok.text).toBe(200);
    const long = await credit("😀".repeat(1001));
    expect(long.status).toBe(400);
  });
});

describe("request_id", () => {
  it("refuses whitespace around the key rather than trim it or keep it", async () => {
    const admin = await makeAdmin();
    const user = await makeUser();
    const wallet = await makeWallet(admin);
    for (const requestId of [` ${unique("r")}`, `${unique("r")} `, `${unique("r")}\t`]) {
      const res = await call("POST", "/credits", {
        auth: admin.bearer,
        body: { user_id: user.id, wallet_id: wallet, amount: "1", request_id: requestId },
      });
      expect(res.status, JSON.stringify(requestId)).toBe(400);
      expect(res.body.error, JSON.stringify(requestId)).toStrictEqual({
        request_id: "request_id must not begin or end with whitespace",
      });
    }
  });
});

describe("an amount's text", () => {
  it("may be 40 characters long, not 41", async () => {
    const admin = await makeAdmin();
    const user = await makeUser();
    const wallet = await makeWallet(admin);
    const credit = (amount: string) =>
      call("POST", "/credits", {
        auth: admin.bearer,
        body: { user_id: user.id, wallet_id: wallet, amount, request_id: unique("r") },
      });
    const forty = await credit("1".padStart(40, "0"));
    expect(forty.status, forty.text).toBe(200);
    expect((await credit("1".padStart(41, "0"))).status).toBe(400);
  });
});

describe("a parameter repeated in the query string", () => {
  it("is read as its last value, as PHP reads it", async () => {
    const admin = await makeAdmin();
    const user = await makeUser();
    const wallet = await makeWallet(admin);
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
    const admin = await makeAdmin();
    const user = await makeUser();
    const wallet = await makeWallet(admin);
    const credit = async () => {
      const res = await call("POST", "/credits", {
        auth: admin.bearer,
        body: { user_id: user.id, wallet_id: wallet, amount: "1", request_id: unique("r") },
      });
      return res.body.data.transaction_id as number;
    };
    const [a, b] = [await credit(), await credit()];
    const res = await call("POST", `/transactions/${a}/reverse`, {
      auth: admin.bearer,
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
    const admin = await makeAdmin();
    const user = await makeUser();
    const wallet = await makeWallet(admin);
    for (const type of ["application/vnd.api+json", "application/merge-patch+json"]) {
      const res = await call("POST", "/credits", {
        auth: admin.bearer,
        headers: { "Content-Type": type },
        body: { user_id: user.id, wallet_id: wallet, amount: "1", request_id: unique("r") },
      });
      expect(res.status, `${type}: ${res.text}`).toBe(200);
    }
  });
});
