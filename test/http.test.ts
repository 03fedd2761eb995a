import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createApp } from "../src/app";
import { ROUTES } from "../src/routes";
import { GUARDED } from "./compat-helpers";
import {
  appendHistory,
  balanceOf,
  call,
  credit,
  expectRefusal,
  INVALID_JSON,
  type Json,
  makeAccount,
  makeAdmin,
  makeUser,
  makeWallet,
  NO_ROUTE,
  type Reply,
  tableCounts,
  testApp,
  unique,
} from "./helpers";

const JSON_UTF8 = "application/json; charset=UTF-8";
const EMPTY = "Field Cannot be empty";

/** An envelope-A failure: status false, an `error`, no `data`, HTTP status equal to status_code. */
function expectFailureA(res: Reply, status: number, message?: string) {
  expect(res.status, res.text).toBe(status);
  expect(res.headers.get("content-type")).toBe(JSON_UTF8);
  expect(res.body).toMatchObject({
    status_code: status,
    status: false,
    ...(message ? { message } : {}),
  });
  expect(Object.keys(res.body).sort()).toEqual(["error", "message", "status", "status_code"]);
}

const rawJson = (text: string) => ({ body: text, headers: { "Content-Type": "application/json" } });

describe("routing", () => {
  it.each([
    ["GET", "/wp-json/wallet/v1/nope"],
    ["POST", "/wp-json/wallet/v1/credits/extra"],
    ["GET", "/wp-json/other/v1/credits"],
    ["GET", "/nothing-here"],
    ["GET", "/?rest_route=/wallet/v1/nope"],
  ])("answers an unknown route (%s %s) with rest_no_route", async (method, path) => {
    const res = await call(method, path);
    expect(res.status).toBe(404);
    expect(res.headers.get("content-type")).toBe(JSON_UTF8);
    expect(res.body).toStrictEqual(NO_ROUTE);
  });

  it.each([
    ["GET", "/credits"],
    ["PUT", "/credits"],
    ["DELETE", "/wallets"],
    ["POST", "/user-wallet-balance"],
    ["POST", "/transactions"],
    ["GET", "/users"],
    ["GET", "/users/login"],
    ["POST", "/wallets/ngn"],
    ["PATCH", "/api-keys"],
    ["POST", "/openapi.json"],
  ])(
    "answers a known route with a wrong method (%s %s) with rest_no_route, with or without credentials",
    async (method, path) => {
      const admin = await makeAdmin();
      for (const auth of [undefined, admin.bearer]) {
        const res = await call(method, path, auth === undefined ? {} : { auth });
        expect(res.status).toBe(404);
        expect(res.body).toStrictEqual(NO_ROUTE);
      }
    },
  );

  it("serves /?rest_route=/wallet/v1/<route> as /wp-json/wallet/v1/<route>", async () => {
    const { admin, user, wallet } = await makeAccount();
    const posted = await call("POST", "/?rest_route=/wallet/v1/credits", {
      auth: admin.bearer,
      body: { user_id: user.id, wallet_id: wallet, amount: 1500, request_id: unique("req") },
    });
    expect(posted.status, posted.text).toBe(200);
    expect(posted.body).toEqual({
      status_code: 200,
      status: true,
      message: "Transaction Completed",
      data: { transaction_id: expect.any(Number), user_id: user.id },
    });
    const read = await call(
      "GET",
      `/?rest_route=/wallet/v1/user-wallet-balance&wallet_id=${wallet}&user_id=${user.id}&formatted=yes`,
      { auth: admin.bearer },
    );
    expect(read.status, read.text).toBe(200);
    expect(read.body.data).toEqual({ [wallet]: 1500, formatted: { [wallet]: "₦1,500.00" } });
  });

  it("reads rest_route as PHP's $_GET holds it: its name decoded, the last one counting", async () => {
    const { admin, user, wallet } = await makeAccount();
    await credit(admin, { user_id: user.id, wallet_id: wallet, amount: 10 });
    // WordPress serves the last rest_route, `rest%5Froute` among them: a credit, never the debit.
    const fields = `user_id=${user.id}&wallet_id=${wallet}&amount=3`;
    for (const [i, query] of [
      "rest_route=/wallet/v1/debits&rest%5Froute=/wallet/v1/credits",
      "rest_rout%65=/wallet/v1/credits",
      "rest.route=/wallet/v1/credits", // PHP registers a `.` in a name as `_`
      // A plain name after an array replaces it: `$_GET['rest_route']` is the credits text.
      "rest_route[]=/wallet/v1/debits&rest_route=/wallet/v1/credits",
    ].entries()) {
      const res = await call("POST", `/?${query}&${fields}&request_id=${unique(`rr${i}`)}`, {
        auth: admin.bearer,
      });
      expect(res.status, `${query}: ${res.text}`).toBe(200);
      expect(await balanceOf(admin, user.id, wallet), query).toBe(13 + 3 * i);
    }
  });

  it("takes a last rest_route[…] for the array PHP makes of it: no route", async () => {
    const { admin, user, wallet } = await makeAccount();
    // WordPress hands the array to untrailingslashit(): PHP 8 stops with a fatal error, and the
    // credit an earlier rest_route named never runs.
    const fields = `user_id=${user.id}&wallet_id=${wallet}&amount=3`;
    for (const [i, query] of [
      "rest_route=/wallet/v1/credits&rest_route[]=/wallet/v1/credits",
      "rest_route=/wallet/v1/credits&rest.route[x]=1",
    ].entries()) {
      const res = await call("POST", `/?${query}&${fields}&request_id=${unique(`ra${i}`)}`, {
        auth: admin.bearer,
      });
      expect([res.status, res.body.code], query).toEqual([404, "rest_no_route"]);
    }
    expect(await balanceOf(admin, user.id, wallet)).toBe(0);
  });

  it("refuses a /wp-json/ path's query rest_route naming another route, writing nothing", async () => {
    const { admin, user, wallet } = await makeAccount();
    const fields = (i: number) =>
      `user_id=${user.id}&wallet_id=${wallet}&amount=3&request_id=${unique(`qr${i}`)}`;
    // WordPress takes $_GET's rest_route before the path's: it would run the debit, never the credit
    // the path names. The path chose the route here, so another is refused.
    for (const [i, query] of [
      "rest_route=/wallet/v1/debits",
      "rest_route=",
      "rest_route[]=/wallet/v1/credits",
      "rest%5Froute=/wallet/v1/debits",
    ].entries()) {
      const res = await call("POST", `/wp-json/wallet/v1/credits?${query}&${fields(i)}`, {
        auth: admin.bearer,
      });
      expect([res.status, res.body.error], query).toEqual([
        400,
        { query: "rest_route names another route than the one this request was sent to" },
      ]);
    }
    expect(await balanceOf(admin, user.id, wallet)).toBe(0);
    const same = await call(
      "POST",
      `/wp-json/wallet/v1/credits?rest_route=/wallet/v1/Credits/&${fields(9)}`,
      { auth: admin.bearer },
    );
    expect(same.status, same.text).toBe(200);
    expect(await balanceOf(admin, user.id, wallet)).toBe(3);
  });

  it("refuses a form's rest_route naming another route than the request's; a JSON body's routes nothing", async () => {
    const { admin, user, wallet } = await makeAccount();
    const fields = (i: number) =>
      `user_id=${user.id}&wallet_id=${wallet}&amount=3&request_id=${unique(`fr${i}`)}`;
    const form = { "Content-Type": "application/x-www-form-urlencoded" };
    // WordPress routes by $_POST's rest_route (400 when $_GET's differs); the route here is chosen
    // before the body is read, so any other is refused rather than run as the path's credit.
    for (const [i, [path, body]] of [
      ["/wp-json/wallet/v1/credits", "rest_route=/wallet/v1/debits"],
      ["/wp-json/wallet/v1/credits", "rest_route[]=/wallet/v1/credits"],
    ].entries()) {
      const res = await call("POST", path!, {
        auth: admin.bearer,
        headers: form,
        body: `${body}&${fields(i)}`,
      });
      expect([res.status, res.body.error], `${path} ${body}`).toEqual([
        400,
        { body: "rest_route names another route than the one this request was sent to" },
      ]);
    }
    expect(await balanceOf(admin, user.id, wallet)).toBe(0);
    // Beside a query's rest_route, WordPress takes the form's only when it is the same text ("A
    // variable mismatch has been detected.", 400): a case or a slash of difference is refused.
    for (const [i, body] of [
      "rest_route=/wallet/v1/debits",
      "rest_route=/WALLET/v1/credits",
      "rest_route=/wallet/v1/credits/",
    ].entries()) {
      const res = await call("POST", "/?rest_route=/wallet/v1/credits", {
        auth: admin.bearer,
        headers: form,
        body: `${body}&${fields(20 + i)}`,
      });
      expect([res.status, res.body.error], body).toEqual([
        400,
        { body: "rest_route differs from the query's rest_route" },
      ]);
    }
    expect(await balanceOf(admin, user.id, wallet)).toBe(0);
    // Naming the route the request was sent to, it is that route's.
    for (const [i, [path, route]] of [
      ["/?rest_route=/wallet/v1/credits", "/wallet/v1/credits"],
      ["/wp-json/wallet/v1/credits/", "/WALLET/v1/credits/"],
    ].entries()) {
      const res = await call("POST", path!, {
        auth: admin.bearer,
        headers: form,
        body: `rest_route=${route}&${fields(10 + i)}`,
      });
      expect(res.status, `${path}: ${res.text}`).toBe(200);
    }
    expect(await balanceOf(admin, user.id, wallet)).toBe(6);
    // A JSON body's rest_route routes nothing (WordPress routes by $_GET and $_POST, which a JSON
    // body does not fill): a field the route does not read, so the path's credit runs.
    const res = await call("POST", "/wp-json/wallet/v1/credits", {
      auth: admin.bearer,
      body: {
        rest_route: "/wallet/v1/debits",
        user_id: user.id,
        wallet_id: wallet,
        amount: "3",
        request_id: unique("fr-json"),
      },
    });
    expect(res.status, res.text).toBe(200);
    expect(await balanceOf(admin, user.id, wallet)).toBe(9);
  });

  it("serves the namespace index at /?rest_route=/wallet/v1", async () => {
    const res = await call("GET", "/?rest_route=/wallet/v1");
    expect(res.status).toBe(200);
    expect(res.body.namespace).toBe("wallet/v1");
  });
});

describe("request bodies", () => {
  it("answers a broken JSON body with rest_invalid_json on every route that writes, and writes nothing", async () => {
    const admin = await makeAdmin();
    const before = await tableCounts();
    for (const route of ROUTES.filter((r) => r.method !== "GET")) {
      const path = route.path.replace(/\{[a-z_]+\}/g, "1");
      const res = await call(route.method, path, { auth: admin.bearer, ...rawJson("{") });
      expect(res.body, `${route.method} ${route.path}`).toStrictEqual(INVALID_JSON);
    }
    expect(await tableCounts()).toEqual(before);
  });

  it("answers a JSON body that does not parse with rest_invalid_json", async () => {
    const { admin } = await makeAccount();
    for (const text of ["{not json", '{"amount": 1,}', "{'a':1}", "[1, 2"]) {
      const res = await call("POST", "/credits", { auth: admin.bearer, ...rawJson(text) });
      expect(res.status, text).toBe(400);
      expect(res.headers.get("content-type")).toBe(JSON_UTF8);
      expect(res.body).toStrictEqual(INVALID_JSON);
    }
  });

  it("answers a JSON body led by a byte order mark, or of white space alone, as json_decode does: rest_invalid_json in both namespaces", async () => {
    // WordPress hands the body to json_decode, which reads neither; read here, the BOM-led credit
    // moved money a WordPress site refused, and a blank body let the query's credit through.
    const { admin, user, wallet } = await makeAccount();
    const before = await tableCounts();
    const credit = { user_id: user.id, wallet_id: wallet, amount: 1, request_id: unique("bom") };
    const query = new URLSearchParams({ ...credit, user_id: String(user.id), amount: "1" });
    for (const path of ["/credits", "/wp-json/rimplenet/v1/credits"])
      for (const [text, at] of [
        [`\uFEFF${JSON.stringify(credit)}`, path],
        ["\uFEFF", `${path}?${query}`],
        [" \n", `${path}?${query}`],
      ]) {
        const res = await call("POST", at!, {
          auth: admin.bearer,
          vars: GUARDED,
          ...rawJson(text!),
        });
        expect(res.status, `${at} ${JSON.stringify(text)}`).toBe(400);
        expect(res.body).toStrictEqual(INVALID_JSON);
      }
    expect(await tableCounts()).toEqual(before);
  });

  it("answers a JSON body of invalid UTF-8 or with a lone surrogate escape as json_decode does, in both namespaces", async () => {
    // json_decode refuses both (JSON_ERROR_UTF8, JSON_ERROR_UTF16): WordPress answers them as any
    // other body that does not parse, and so does the contract.
    const { admin, user, wallet } = await makeAccount();
    const before = await tableCounts();
    const head = `{"user_id":${user.id},"wallet_id":"${wallet}","amount":1,"request_id":"`;
    const bodies: [string, Uint8Array | string][] = [
      ["0xFF", new Uint8Array([...new TextEncoder().encode(head), 0xff, 0x22, 0x7d])],
      [
        "an encoded surrogate",
        new Uint8Array([...new TextEncoder().encode(head), 0xed, 0xa0, 0x80, 0x22, 0x7d]),
      ],
      ["\\ud800", `${head}u\\ud800"}`],
      // In a key, which json_decode refuses as it refuses a value, whichever way the body is read
      // (a number a double cannot hold takes the other reader).
      ...[`${head}k","\\ud800":1}`, `${head}k","n":0.10000000000000001,"\\udc00":1}`].map(
        (body): [string, string] => [`a key: ${body}`, body],
      ),
    ];
    for (const [what, body] of bodies) {
      const headers = { "Content-Type": "application/json" };
      const plugin = await call("POST", "/wp-json/rimplenet/v1/credits", {
        auth: admin.bearer,
        vars: GUARDED,
        headers,
        body,
      });
      expect([plugin.status, plugin.body], what).toStrictEqual([400, INVALID_JSON]);
      const own = await call("POST", "/credits", { auth: admin.bearer, headers, body });
      expect([own.status, own.body], what).toStrictEqual([400, INVALID_JSON]);
    }
    expect(await tableCounts()).toEqual(before);
  });

  it("reads a form body's leading byte order mark as part of its first name, as PHP does", async () => {
    // `\uFEFFuser_id=…` names no user_id in $_POST: a missing user_id, never the user it spells.
    const { admin, user, wallet } = await makeAccount();
    const res = await call("POST", "/credits", {
      auth: admin.bearer,
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: `\uFEFFuser_id=${user.id}&wallet_id=${wallet}&amount=1&request_id=${unique("bom")}`,
    });
    expect(res.status, res.text).toBe(400);
    expect(res.body.error).toEqual({ user_id: "user_id cannot be zero" });
    expect(await balanceOf(admin, user.id, wallet)).toBe(0);
  });

  it("checks credentials before parsing JSON: a broken body without credentials is 401", async () => {
    const res = await call("POST", "/credits", rawJson("{not json"));
    expectRefusal(res, "A", 401, { unauthorize: "No authorization provided" });
  });

  it("reads a parameter from the query string when the JSON body lacks it", async () => {
    const { admin, user, wallet } = await makeAccount();
    const res = await call("POST", "/credits", {
      auth: admin.bearer,
      query: { amount: 25 },
      body: { user_id: user.id, wallet_id: wallet, request_id: unique("req") },
    });
    expect(res.status, res.text).toBe(200);
    expect(await balanceOf(admin, user.id, wallet)).toBe(25);
  });

  it("prefers the JSON body over the query string for the same name", async () => {
    const { admin, user, wallet } = await makeAccount();
    const res = await call("POST", "/credits", {
      auth: admin.bearer,
      query: { amount: 999 },
      body: { user_id: user.id, wallet_id: wallet, request_id: unique("req"), amount: 3 },
    });
    expect(res.status, res.text).toBe(200);
    expect(await balanceOf(admin, user.id, wallet)).toBe(3);
  });

  it("reads a form-encoded body, and prefers it over the query string", async () => {
    const { admin, user, wallet } = await makeAccount();
    const form = new URLSearchParams({
      user_id: String(user.id),
      wallet_id: wallet,
      request_id: unique("req"),
      amount: "12.50",
    });
    const res = await call("POST", "/credits", {
      auth: admin.bearer,
      query: { amount: 999 },
      body: form,
    });
    expect(res.status, res.text).toBe(200);
    expect(await balanceOf(admin, user.id, wallet)).toBe(12.5);
  });

  it("reads a multipart body, and prefers it over the query string", async () => {
    const { admin, user, wallet } = await makeAccount();
    const form = new FormData();
    for (const [k, v] of Object.entries({
      user_id: String(user.id),
      wallet_id: wallet,
      request_id: unique("req"),
      amount: "8",
    }))
      form.append(k, v);
    const res = await call("POST", "/credits", {
      auth: admin.bearer,
      query: { amount: 999 },
      body: form,
    });
    expect(res.status, res.text).toBe(200);
    expect(await balanceOf(admin, user.id, wallet)).toBe(8);
  });

  it("reads a GET's JSON body but not its form body, as WordPress does", async () => {
    const { admin, user, wallet } = await makeAccount();
    // No Request is built as a GET with a body: built as a POST, its method then reads GET.
    const get = async (type: string, body: string) => {
      const sent = new Request(
        `http://localhost/wp-json/wallet/v1/user-wallet-balance?user_id=${user.id}&wallet_id=${wallet}`,
        {
          method: "POST",
          headers: { "Content-Type": type, Authorization: admin.bearer },
          body,
        },
      );
      Object.defineProperty(sent, "method", { value: "GET" });
      const res = await createApp().fetch(sent, env);
      return { status: res.status, body: (await res.json()) as Json };
    };
    const form = await get("application/x-www-form-urlencoded", "wallet_id=nosuchwallet");
    expect([form.status, form.body.data]).toEqual([200, { [wallet]: 0 }]);
    const json = await get("application/json", '{"wallet_id":"nosuchwallet"}');
    expect([json.status, json.body.error]).toEqual([
      400,
      { wallet_id: "wallet_id not found: nosuchwallet" },
    ]);
  });

  it("reads a form-encoded body on envelope-B routes too", async () => {
    const admin = await makeAdmin();
    const username = unique("form");
    const form = new URLSearchParams({
      username,
      user_email: `${username}@example.test`,
      user_password: "secret-123",
    });
    const res = await call("POST", "/users", { auth: admin.bearer, body: form });
    expect(res.status, res.text).toBe(201);
    expect(res.body).toStrictEqual({
      status_code: 201,
      status: true,
      message: "User created successfully",
      data: { id: expect.any(Number) },
      error: [],
    });
  });

  it("reads JSON sent as application/json; charset=UTF-8", async () => {
    const { admin, user, wallet } = await makeAccount();
    const body = { user_id: user.id, wallet_id: wallet, request_id: unique("req"), amount: 2 };
    const res = await call("POST", "/credits", {
      auth: admin.bearer,
      body,
      headers: { "Content-Type": "application/json; charset=UTF-8" },
    });
    expect(res.status, res.text).toBe(200);
  });

  it("counts a JSON null as a missing field", async () => {
    const { admin } = await makeAccount();
    const res = await call("POST", "/credits", {
      auth: admin.bearer,
      body: { user_id: null, wallet_id: null, request_id: null, amount: null },
    });
    expectFailureA(res, 400, "invalid input");
    expect(res.body.error).toStrictEqual({
      user_id: "user_id cannot be zero",
      wallet_id: EMPTY,
      request_id: EMPTY,
      amount: EMPTY,
    });
  });

  it("falls through a JSON null to the query string", async () => {
    const { admin, user, wallet } = await makeAccount();
    const res = await call("POST", "/credits", {
      auth: admin.bearer,
      query: { amount: 4 },
      body: { user_id: user.id, wallet_id: wallet, request_id: unique("req"), amount: null },
    });
    expect(res.status, res.text).toBe(200);
    expect(await balanceOf(admin, user.id, wallet)).toBe(4);
  });

  it.each(["[]", "42", '"x"', "null", "true", '[{"amount": 5}]'])(
    "takes no parameters from the JSON body %s and answers the usual validation errors",
    async (text) => {
      const { admin } = await makeAccount();
      const before = await tableCounts();
      const res = await call("POST", "/credits", { auth: admin.bearer, ...rawJson(text) });
      expectFailureA(res, 400, "invalid input");
      expect(res.body.error).toStrictEqual({
        user_id: "user_id cannot be zero",
        wallet_id: EMPTY,
        request_id: EMPTY,
        amount: EMPTY,
      });
      expect(await tableCounts()).toEqual(before);
    },
  );

  it("still reads the query string when the JSON body is not an object", async () => {
    const { admin, user, wallet } = await makeAccount();
    const query = { user_id: user.id, wallet_id: wallet, request_id: unique("req"), amount: 6 };
    const res = await call("POST", "/credits", { auth: admin.bearer, query, ...rawJson("[]") });
    expect(res.status, res.text).toBe(200);
    expect(await balanceOf(admin, user.id, wallet)).toBe(6);
  });

  it("answers a non-object JSON body on POST /users with the usual validation errors in envelope B", async () => {
    const admin = await makeAdmin();
    const res = await call("POST", "/users", { auth: admin.bearer, ...rawJson("42") });
    expect(res.status).toBe(400);
    expect(res.body).toStrictEqual({
      status_code: 400,
      status: "failed",
      message: "Validation error",
      data: [],
      error: [
        { user_login: ["username is required"] },
        { user_email: ["user_email is required"] },
        { user_pass: ["user_password is required"] },
      ],
    });
  });
});

describe("response shape", () => {
  it("sends application/json; charset=UTF-8 and a status_code equal to the HTTP status, on success and on every error", async () => {
    const { admin, user, wallet } = await makeAccount();
    const used = unique("req");
    await credit(admin, { user_id: user.id, wallet_id: wallet, amount: 1, request_id: used });
    const replies: [string, Reply][] = [
      ["200", await credit(admin, { user_id: user.id, wallet_id: wallet, amount: 1 })],
      [
        "201",
        await call("POST", "/api-keys", { auth: admin.bearer, body: { name: "k", scope: "read" } }),
      ],
      ["400", await credit(admin, { user_id: user.id, wallet_id: wallet, amount: "abc" })],
      ["401", await call("GET", "/wallets")],
      ["403", await call("GET", "/wallets", { auth: user.bearer })],
      ["404", await credit(admin, { user_id: 2_000_000_000, wallet_id: wallet, amount: 1 })],
      [
        "409",
        await credit(admin, { user_id: user.id, wallet_id: wallet, amount: 1, request_id: used }),
      ],
      ["413", await call("POST", "/credits", rawJson(" ".repeat(64 * 1024 + 1)))],
      ["400 B", await call("POST", "/users", { auth: admin.bearer, body: {} })],
      ["401 B", await call("POST", "/users", { body: {} })],
    ];
    for (const [name, res] of replies) {
      expect(res.headers.get("content-type"), name).toBe(JSON_UTF8);
      expect(res.body.status_code, name).toBe(res.status);
      expect(String(res.status), name).toBe(name.split(" ")[0]);
    }
  });
});

describe("body size", () => {
  it("answers a body over 64 KiB with 413 Payload too large, before looking at credentials", async () => {
    const before = await tableCounts();
    const res = await call("POST", "/credits", { body: { pad: "x".repeat(64 * 1024) } });
    expectFailureA(res, 413, "Payload too large");
    expect(await tableCounts()).toEqual(before);
  });

  it("answers 413 in envelope A even on the envelope-B route POST /users", async () => {
    const admin = await makeAdmin();
    const before = await tableCounts();
    const username = unique("big");
    const res = await call("POST", "/users", {
      auth: admin.bearer,
      body: {
        username,
        user_email: `${username}@example.test`,
        user_password: "secret-123",
        pad: "x".repeat(70_000),
      },
    });
    expectFailureA(res, 413, "Payload too large");
    expect(await tableCounts()).toEqual(before);
  });

  it("counts bytes, not characters: 30,000 three-byte characters are too large", async () => {
    const admin = await makeAdmin();
    const res = await call("POST", "/credits", {
      auth: admin.bearer,
      body: { pad: "₦".repeat(30_000) },
    });
    expectFailureA(res, 413, "Payload too large");
  });

  it("measures a streamed body without Content-Length too", async () => {
    const { admin, user, wallet } = await makeAccount();
    const streamed = (text: string) => {
      const bytes = new TextEncoder().encode(text);
      return new ReadableStream({
        start(controller) {
          for (let i = 0; i < bytes.length; i += 4096) controller.enqueue(bytes.slice(i, i + 4096));
          controller.close();
        },
      });
    };
    const post = async (text: string) => {
      const init = {
        method: "POST",
        body: streamed(text),
        headers: { "Content-Type": "application/json", Authorization: admin.bearer },
        duplex: "half",
      };
      const res = await createApp().request("/wp-json/wallet/v1/credits", init as RequestInit, env);
      expect(res.headers.get("content-type")).toBe(JSON_UTF8);
      return { status: res.status, body: (await res.json()) as Json };
    };
    const before = await tableCounts();
    const big = await post(
      JSON.stringify({
        user_id: user.id,
        wallet_id: wallet,
        amount: 1,
        request_id: unique("req"),
        pad: "x".repeat(70_000),
      }),
    );
    expect(big.status).toBe(413);
    expect(big.body).toStrictEqual({
      status_code: 413,
      status: false,
      message: "Payload too large",
      error: expect.anything(),
    });
    expect(await tableCounts()).toEqual(before);
    const small = await post(
      JSON.stringify({ user_id: user.id, wallet_id: wallet, amount: 1, request_id: unique("req") }),
    );
    expect(small.status).toBe(200);
  });

  it("reads a refused streamed upload to its end, up to 1 MiB, then cancels the rest", async () => {
    // A stream that counts what was pulled from it and whether it was cancelled.
    const upload = (bytes: number) => {
      const seen = { pulled: 0, cancelled: false };
      let left = bytes;
      const body = new ReadableStream<Uint8Array>({
        pull(controller) {
          if (left <= 0) return controller.close();
          const chunk = new Uint8Array(Math.min(16 * 1024, left)).fill(120);
          left -= chunk.length;
          seen.pulled += chunk.length;
          controller.enqueue(chunk);
        },
        cancel() {
          seen.cancelled = true;
        },
      });
      return { body, seen };
    };
    for (const [bytes, drained] of [
      [300_000, true],
      [4 * 1024 * 1024, false],
    ] as const) {
      const { body, seen } = upload(bytes);
      const init = { method: "POST", body, duplex: "half" };
      const res = await createApp().request("/wp-json/wallet/v1/credits", init as RequestInit, env);
      expect(res.status).toBe(413);
      if (drained) expect(seen.pulled).toBe(bytes);
      else {
        expect(seen.pulled).toBeLessThan(bytes);
        expect(seen.pulled).toBeGreaterThan(1024 * 1024);
        expect(seen.cancelled).toBe(true);
      }
    }
  });

  it("accepts a body of exactly 64 KiB and refuses one byte more", async () => {
    const { admin, user, wallet } = await makeAccount();
    const sized = (bytes: number) => {
      const body = {
        user_id: user.id,
        wallet_id: wallet,
        amount: 1,
        request_id: unique("req"),
        pad: "",
      };
      body.pad = "x".repeat(bytes - JSON.stringify(body).length);
      const text = JSON.stringify(body);
      expect(new TextEncoder().encode(text).length).toBe(bytes);
      return text;
    };
    const fits = await call("POST", "/credits", {
      auth: admin.bearer,
      ...rawJson(sized(64 * 1024)),
    });
    expect(fits.status, fits.text).toBe(200);
    const before = await tableCounts();
    const over = await call("POST", "/credits", {
      auth: admin.bearer,
      ...rawJson(sized(64 * 1024 + 1)),
    });
    expectFailureA(over, 413, "Payload too large");
    expect(await tableCounts()).toEqual(before);
  });
});

describe("order of checks: 413, 401, 403, 400, 404, 409", () => {
  it("answers 401, not 400, to a request without credentials and with invalid fields", async () => {
    const res = await call("POST", "/credits", { body: { user_id: "abc", amount: -1 } });
    expectRefusal(res, "A", 401, { unauthorize: "No authorization provided" });
  });

  it("answers 403, not 400, to a subscriber sending an invalid credit", async () => {
    const user = await makeUser();
    const before = await tableCounts();
    const res = await call("POST", "/credits", {
      auth: user.bearer,
      body: { user_id: "abc", wallet_id: "", amount: "x" },
    });
    expectRefusal(res, "A", 403, { unauthorize: "Request is not authorized" });
    expect(await tableCounts()).toEqual(before);
  });

  it("answers 403, not 400, to a subscriber sending broken JSON", async () => {
    const user = await makeUser();
    const res = await call("POST", "/credits", { auth: user.bearer, ...rawJson("{not json") });
    expectRefusal(res, "A", 403, { unauthorize: "Request is not authorized" });
  });

  it("answers 403, not 400 or 404, to a subscriber asking for another user's balance in an unknown wallet", async () => {
    const user = await makeUser();
    const res = await call("GET", "/user-wallet-balance", {
      auth: user.bearer,
      query: { user_id: 2_000_000_000, wallet_id: "no_such_wallet" },
    });
    expectRefusal(res, "A", 403, { unauthorize: "Request is not authorized" });
  });

  it("answers 400, not 404, to an administrator sending invalid fields for an unknown user", async () => {
    const { admin, wallet } = await makeAccount();
    const res = await credit(admin, { user_id: 2_000_000_000, wallet_id: wallet, amount: "abc" });
    expectFailureA(res, 400, "invalid input");
    expect(res.body.error).toStrictEqual({ amount: "amount requires a valid amount" });
  });

  it("answers 400, not 404, to a balance read of an unknown wallet for an unknown user", async () => {
    const admin = await makeAdmin();
    const res = await call("GET", "/user-wallet-balance", {
      auth: admin.bearer,
      query: { user_id: 2_000_000_000, wallet_id: "no_such_wallet" },
    });
    expectFailureA(res, 400, "invalid input");
    expect(res.body.error).toStrictEqual({ wallet_id: "wallet_id not found: no_such_wallet" });
  });

  it("answers 404 to an unknown user with valid fields", async () => {
    const { admin, wallet } = await makeAccount();
    const res = await credit(admin, { user_id: 2_000_000_000, wallet_id: wallet, amount: 1 });
    expectFailureA(res, 404, "Invalid User credentials");
    expect(res.body.error).toStrictEqual(["Unable to reach 2000000000"]);
  });

  it("answers 400, not 409, to a used request_id sent with an invalid amount", async () => {
    const { admin, user, wallet } = await makeAccount();
    const request_id = unique("req");
    await credit(admin, { user_id: user.id, wallet_id: wallet, amount: 1, request_id });
    const res = await credit(admin, {
      user_id: user.id,
      wallet_id: wallet,
      amount: "-5",
      request_id,
    });
    expectFailureA(res, 400, "invalid input");
    expect(res.body.error).toStrictEqual({ amount: "amount must be greater than zero" });
  });

  it("answers 400, not 409, to an existing wallet id sent with an invalid field", async () => {
    const { admin, wallet } = await makeAccount();
    const res = await call("POST", "/wallets", {
      auth: admin.bearer,
      body: { wallet_id: wallet, wallet_name: "Again", wallet_symbol: "A", wallet_decimal: 12 },
    });
    expectFailureA(res, 400, "invalid input");
    expect(Object.keys(res.body.error)).toEqual(["wallet_decimal"]);
  });
});

describe("GET /openapi.json", () => {
  it("is an OpenAPI 3.1 document listing every route", async () => {
    const res = await call("GET", "/openapi.json");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe(JSON_UTF8);
    expect(res.body.openapi).toMatch(/^3\.1\.\d+$/);
    expect(res.body.info).toMatchObject({ title: expect.any(String), version: expect.any(String) });
    const methods = (path: string) =>
      Object.keys(res.body.paths[`/wp-json/wallet/v1${path}`] ?? {}).sort();
    expect(methods("/credits")).toEqual(["post"]);
    expect(methods("/debits")).toEqual(["post"]);
    expect(methods("/transfers")).toEqual(["post"]);
    expect(methods("/user-wallet-balance")).toEqual(["get"]);
    expect(methods("/transactions")).toEqual(["get"]);
    expect(methods("/users")).toEqual(["post"]);
    expect(methods("/users/login")).toEqual(["post"]);
    expect(methods("/wallets")).toEqual(["get", "post"]);
    expect(methods("/wallets/{wallet_id}")).toEqual(["get"]);
    expect(methods("/api-keys")).toEqual(["get", "post"]);
    expect(methods("/api-keys/{id}")).toEqual(["delete"]);
    expect(methods("/openapi.json")).toEqual(["get"]);
  });

  it("types each success answer's data, as the suite checks every answer it receives", async () => {
    const { body } = await call("GET", "/openapi.json");
    const success = (path: string, method: string, status: string) =>
      body.paths[`/wp-json/wallet/v1${path}`][method].responses[status].content["application/json"]
        .schema;
    const credit = success("/credits", "post", "200");
    expect(credit.allOf[0]).toEqual({ $ref: "#/components/schemas/EnvelopeA" });
    expect(credit.allOf[1].properties.data).toMatchObject({
      type: "object",
      required: ["transaction_id", "user_id"],
      properties: { transaction_id: { type: "integer" }, user_id: { type: "integer" } },
      additionalProperties: false,
    });
    const bookmark = { $ref: "#/components/parameters/Bookmark" };
    expect(body.paths["/wp-json/wallet/v1/credits"].post.parameters).toContainEqual(bookmark);
    expect(body.components.parameters.Bookmark.name).toBe("x-d1-bookmark");
    const list = success("/transactions", "get", "200").allOf[1].properties.data;
    expect(list.type).toBe("array");
    expect(Object.keys(list.items.properties)).toContain("post_name");
    const balance = success("/user-wallet-balance", "get", "200").allOf[1].properties.data;
    expect(balance.additionalProperties).toEqual({ type: "number" });
    expect(success("/users", "post", "201").allOf[0]).toEqual({
      $ref: "#/components/schemas/EnvelopeB",
    });
    for (const [path, operations] of Object.entries(body.paths as Json))
      for (const [method, op] of Object.entries(operations as Json)) {
        const ok = Object.keys(op.responses).filter((status) => status < "300");
        expect(ok, `${method} ${path}`).toHaveLength(1);
      }
  });

  it("gives /transactions' page and per_page no default: left out, the whole history is sent", async () => {
    const admin = await makeAdmin();
    const user = await makeUser();
    await appendHistory(user.id, await makeWallet(admin), 101);
    const whole = await call("GET", "/transactions", {
      auth: admin.bearer,
      query: { user_id: user.id, security_code: 1 },
    });
    expect(whole.body.data).toHaveLength(101);
    const { body } = await call("GET", "/openapi.json");
    const params = body.paths["/wp-json/wallet/v1/transactions"].get.parameters as Json[];
    for (const name of ["page", "per_page"]) {
      const { schema } = params.find((p) => p.name === name)!;
      expect(schema.default, name).toBeUndefined();
      expect(schema.description, name).toMatch(/Without `page`, `pageno` and `per_page`/);
    }
  });

  it("has an interactive reference at /api-reference, linked from the front page", async () => {
    const page = await testApp().request("/api-reference", {}, env);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toMatch(/^text\/html/);
    expect(await page.text()).toContain('<script src="/api-reference/start.js">');
    const start = await testApp().request("/api-reference/start.js", {}, env);
    expect(await start.text()).toContain("/wp-json/wallet/v1/openapi.json");
    const front = await testApp().request("/", {}, env);
    expect((await front.json<Json>()).reference).toBe(`${env.SITE_URL}/api-reference`);
  });

  it("lists the same routes as the discovery index", async () => {
    const [doc, index] = await Promise.all([
      call("GET", "/openapi.json"),
      call("GET", "/wp-json/wallet/v1"),
    ]);
    const fromDoc = Object.entries(doc.body.paths as Json)
      .flatMap(([path, ops]) =>
        Object.keys(ops).map((m) => `${m.toUpperCase()} ${path.replace("/wp-json", "")}`),
      )
      .sort();
    // The namespace's own index (`/wallet/v1`) is discovery, which the document does not describe.
    const fromIndex = Object.entries(index.body.routes as Json)
      .filter(([path]) => path !== "/wallet/v1")
      // The index shows a parameter as its pattern, the document as its name.
      .map(([path, route]) => [path.replace(/\(\?P<(\w+)>[^)]+\)/g, "{$1}"), route] as const)
      .flatMap(([path, route]) => (route.methods as string[]).map((m) => `${m} ${path}`))
      .sort();
    expect(fromDoc).toEqual(fromIndex);
  });
});

describe("hostile input", () => {
  const STACK =
    /\bat \S+ \(|\n\s+at |SQLITE|D1_ERROR|TypeError|ReferenceError|RangeError|SyntaxError|node_modules|\.ts:\d+/;
  const deep = (levels: number): unknown => {
    let value: unknown = 1;
    for (let i = 0; i < levels; i++) value = { a: value };
    return value;
  };
  const SQL = "1; DROP TABLE users";
  const QUOTE = "x' OR '1'='1'; DROP TABLE wallets; --";

  type Case = [
    name: string,
    method: string,
    path: string,
    family: "A" | "B",
    make: (ctx: Awaited<ReturnType<typeof makeAccount>>) => {
      body?: unknown;
      query?: Record<string, string | number>;
    },
  ];
  const cases: Case[] = [
    [
      "credits: nested objects for scalar fields",
      "POST",
      "/credits",
      "A",
      () => ({
        body: {
          user_id: { id: 1 },
          wallet_id: ["ngn"],
          request_id: { $ne: null },
          amount: { value: 5 },
        },
      }),
    ],
    [
      "credits: a deeply nested amount",
      "POST",
      "/credits",
      "A",
      (c) => ({
        body: {
          user_id: c.user.id,
          wallet_id: c.wallet,
          request_id: unique("r"),
          amount: deep(2000),
        },
      }),
    ],
    [
      "credits: SQL in user_id and wallet_id",
      "POST",
      "/credits",
      "A",
      () => ({ body: { user_id: SQL, wallet_id: QUOTE, request_id: SQL, amount: 1 } }),
    ],
    [
      "credits: huge numbers",
      "POST",
      "/credits",
      "A",
      (c) => ({
        body: { user_id: 1e300, wallet_id: c.wallet, request_id: unique("r"), amount: 1e308 },
      }),
    ],
    [
      "credits: a 400-digit amount",
      "POST",
      "/credits",
      "A",
      (c) => ({
        body: {
          user_id: c.user.id,
          wallet_id: c.wallet,
          request_id: unique("r"),
          amount: "9".repeat(400),
        },
      }),
    ],
    [
      "credits: an amount past the largest",
      "POST",
      "/credits",
      "A",
      (c) => ({
        body: {
          user_id: c.user.id,
          wallet_id: c.wallet,
          request_id: unique("r"),
          amount: "90071992547409.93",
        },
      }),
    ],
    [
      "credits: unicode digits and emoji",
      "POST",
      "/credits",
      "A",
      () => ({
        body: { user_id: "١٢", wallet_id: "ñgn💸", request_id: "💸".repeat(200), amount: "１２" },
      }),
    ],
    [
      "credits: NUL bytes and negative zero",
      "POST",
      "/credits",
      "A",
      (c) => ({
        body: {
          user_id: "1\u0000",
          wallet_id: `${c.wallet}\u0000`,
          request_id: unique("r"),
          amount: -0,
        },
      }),
    ],
    [
      "credits: __proto__ carrying the amount",
      "POST",
      "/credits",
      "A",
      (c) => ({
        body: JSON.parse(
          `{"user_id":${c.user.id},"wallet_id":"${c.wallet}","request_id":"${unique("r")}","__proto__":{"amount":5}}`,
        ),
      }),
    ],
    [
      "users: objects and SQL",
      "POST",
      "/users",
      "B",
      () => ({
        body: {
          username: "a b'; DROP TABLE users;--",
          user_email: { $gt: "" },
          user_password: ["x"],
        },
      }),
    ],
    [
      "users: huge number fields",
      "POST",
      "/users",
      "B",
      () => ({
        body: {
          username: 1e308, // biome-ignore lint/correctness/noPrecisionLoss: a number no double holds is the point
          user_email: 12345678901234567890,
          user_password: 1,
        },
      }),
    ],
    [
      "wallets: SQL and unicode ids",
      "POST",
      "/wallets",
      "A",
      () => ({
        body: {
          wallet_id: QUOTE,
          wallet_name: { n: 1 },
          wallet_symbol: "💸",
          wallet_decimal: 1e308,
        },
      }),
    ],
    [
      "wallets: a nested wallet_id",
      "POST",
      "/wallets",
      "A",
      () => ({ body: { wallet_id: deep(50), wallet_name: "x", wallet_symbol: "x" } }),
    ],
    [
      "api-keys: a bad scope and an unknown SQL-ish username",
      "POST",
      "/api-keys",
      "A",
      () => ({ body: { name: { a: 1 }, scope: "read'; DROP TABLE api_keys; --", username: SQL } }),
    ],
    [
      "api-keys: an unknown SQL-ish username",
      "POST",
      "/api-keys",
      "A",
      () => ({ body: { name: "k", scope: "read", username: QUOTE } }),
    ],
    [
      "balance: SQL in the wallet ids",
      "GET",
      "/user-wallet-balance",
      "A",
      (c) => ({ query: { user_id: c.user.id, wallet_id: `${c.wallet},${QUOTE}` } }),
    ],
    [
      "balance: SQL in user_id",
      "GET",
      "/user-wallet-balance",
      "A",
      (c) => ({ query: { user_id: SQL, wallet_id: c.wallet } }),
    ],
    [
      "balance: a huge user_id",
      "GET",
      "/user-wallet-balance",
      "A",
      (c) => ({ query: { user_id: "9".repeat(400), wallet_id: c.wallet } }),
    ],
    [
      "transactions: SQL and unicode in filters",
      "GET",
      "/transactions",
      "A",
      (c) => ({
        query: {
          user_id: c.user.id,
          security_code: SQL,
          txn_type: "CRÉDIT",
          after: "2020-01-01'; DROP TABLE transactions; --",
          wallet_id: QUOTE,
        },
      }),
    ],
    [
      "transactions: huge page numbers",
      "GET",
      "/transactions",
      "A",
      (c) => ({
        query: { user_id: c.user.id, security_code: 1, page: "9".repeat(400), per_page: 1e308 },
      }),
    ],
  ];

  it("answers a multipart file where a scalar belongs with a 400, not a crash", async () => {
    const { admin, user, wallet } = await makeAccount();
    const form = new FormData();
    for (const [k, v] of Object.entries({
      user_id: String(user.id),
      wallet_id: wallet,
      request_id: unique("req"),
    }))
      form.append(k, v);
    form.append("amount", new File(["12"], "amount.txt"));
    const before = await tableCounts();
    const res = await call("POST", "/credits", { auth: admin.bearer, body: form });
    expectFailureA(res, 400, "invalid input");
    expect(res.body.error).toStrictEqual({ amount: "amount requires a valid amount" });
    expect(await tableCounts()).toEqual(before);
  });

  it.each(cases)(
    "%s: a 4xx in the route's envelope, no stack trace, nothing written",
    async (_name, method, path, family, make) => {
      const ctx = await makeAccount();
      const request = make(ctx);
      const before = await tableCounts();
      const res = await call(method, path, { auth: ctx.admin.bearer, ...request });
      expect(res.status, res.text).toBeGreaterThanOrEqual(400);
      expect(res.status, res.text).toBeLessThan(500);
      expect(res.text).not.toMatch(STACK);
      expect(res.headers.get("content-type")).toBe(JSON_UTF8);
      expect(res.body.status_code).toBe(res.status);
      if (family === "A") expectFailureA(res, res.status);
      else
        expect(Object.keys(res.body).sort()).toEqual([
          "data",
          "error",
          "message",
          "status",
          "status_code",
        ]);
      if (family === "B") expect(res.body).toMatchObject({ status: "failed", data: [] });
      expect(await tableCounts()).toEqual(before);
    },
  );
});

describe("route matching", () => {
  it("matches paths case-insensitively, as WordPress does", async () => {
    const admin = await makeAdmin();
    const res = await call("GET", "/wp-json/Wallet/V1/Wallets", { auth: admin.bearer });
    expect(res.status).toBe(200);
    expect(res.body.message).toBe("Wallets retrieved");
    const plain = await call("GET", "/?rest_route=/WALLET/v1/wallets", { auth: admin.bearer });
    expect(plain.status).toBe(200);
  });
});
