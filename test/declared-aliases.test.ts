// The aliases a route accepts (the plugin's `pageno` for `page`, the sign-in's `username` for
// `user_email`) are declared in its schema, so the OpenAPI document lists them; on the wire they
// are answered as they always were: a bad alias is reported under the parameter it names, in that
// parameter's words, and the parameter itself wins when both are sent.
import { describe, expect, it } from "vitest";
import { ROUTES } from "../src/routes";
import { openApiDocument } from "../src/routes/openapi";
import { compatCall, GUARDED } from "./compat-helpers";
import { call, type Json, makeAdmin, makeUser, makeWallet, PASSWORD } from "./helpers";

// biome-ignore lint/suspicious/noExplicitAny: a JSON document read by path
const doc = openApiDocument(ROUTES) as any;
const queryParam = (path: string, name: string) =>
  (doc.paths[`/wp-json/wallet/v1${path}`].get.parameters as Json[]).find((p) => p.name === name);

const invalidInput = (error: Json) => ({
  status_code: 400,
  status: false,
  message: "invalid input",
  error,
});

describe("declared aliases in the OpenAPI document", () => {
  it.each(["/transactions", "/statements"])("GET %s lists pageno as page's alias", (path) => {
    const pageno = queryParam(path, "pageno")!;
    expect(pageno).toMatchObject({ in: "query", required: false });
    expect(pageno.schema).toMatchObject({ type: "integer", "x-alias-of": "page" });
    expect(pageno.schema.description).toMatch(/^Alias of `page`/);
    expect(pageno.schema.default).toBeUndefined();
  });

  it("lists username in POST /users/login's body as user_email's alias", () => {
    const body = doc.components.schemas.LoginInput;
    expect(Object.keys(body.properties)).toEqual([
      "user_email",
      "username",
      "user_password",
      "token_expiration",
    ]);
    expect(body.properties.username).toMatchObject({ type: "string", "x-alias-of": "user_email" });
    expect(body.properties.username.description).toMatch(/^Alias of `user_email`/);
    expect(body.required).not.toContain("username");
  });

  it("lists no alias where the route reads none (GET /batches pages without pageno)", () => {
    expect(queryParam("/batches", "pageno")).toBeUndefined();
    expect(queryParam("/batches", "page")).toBeDefined();
  });
});

describe("a bad alias value on the wire", () => {
  it.each([
    ["abc", "page requires an integer"],
    ["0", "page must be between 1 and 1000000"],
    ["1.5", "page requires an integer"],
  ])("GET /transactions?pageno=%s is reported as page: %s", async (pageno, text) => {
    const admin = await makeAdmin();
    const res = await call("GET", "/transactions", {
      auth: admin.bearer,
      query: { user_id: admin.id, security_code: 1, pageno },
    });
    expect(res.status).toBe(400);
    expect(res.text).toBe(JSON.stringify(invalidInput({ page: text })));
  });

  it("GET /transactions: page wins over a bad pageno, and a bad page beside pageno is page's", async () => {
    const admin = await makeAdmin();
    const query = { user_id: admin.id, security_code: 1 };
    const wins = await call("GET", "/transactions", {
      auth: admin.bearer,
      query: { ...query, page: 1, pageno: "abc" },
    });
    expect(wins.status, wins.text).toBe(200);
    const bad = await call("GET", "/transactions", {
      auth: admin.bearer,
      query: { ...query, page: "x", pageno: 2 },
    });
    expect(bad.text).toBe(JSON.stringify(invalidInput({ page: "page requires an integer" })));
  });

  it("GET /statements?pageno=0 is reported as page, in the order of the statement's fields", async () => {
    const admin = await makeAdmin();
    const wallet = await makeWallet(admin);
    const res = await call("GET", "/statements", {
      auth: admin.bearer,
      query: { user_id: admin.id, wallet_id: wallet, from: "x", pageno: 0 },
    });
    expect(res.text).toBe(
      JSON.stringify(
        invalidInput({
          from: "from requires an ISO 8601 date",
          page: "page must be between 1 and 1000000",
        }),
      ),
    );
  });

  const validationError = (error: Json[]) =>
    JSON.stringify({
      status_code: 400,
      status: "failed",
      message: "Validation error",
      data: [],
      error,
    });

  it.each([
    ["an empty username", { username: "" }],
    ["a boolean username", { username: true }],
    ["an object as username", { username: { a: 1 } }],
  ])("POST /users/login with %s is reported as user_email", async (_, body) => {
    const res = await call("POST", "/users/login", { body: { ...body, user_password: "x" } });
    expect(res.text).toBe(validationError([{ user_email: ["user_email is required"] }]));
  });

  it("POST /users/login: user_email wins over username, and username alone signs in", async () => {
    const user = await makeUser();
    const wins = await call("POST", "/users/login", {
      body: { user_email: user.email, username: "", user_password: PASSWORD },
    });
    expect(wins.status, wins.text).toBe(200);
    const alone = await call("POST", "/users/login", {
      body: { username: user.username, user_password: PASSWORD },
    });
    expect(alone.body.data.user_id).toBe(user.id);
    const missing = await call("POST", "/users/login", { body: {} });
    expect(missing.text).toBe(
      validationError([
        { user_email: ["user_email is required"] },
        { user_pass: ["user_password is required"] },
      ]),
    );
  });

  it("POST users/login in the plugin's dialect reports an empty username as user_email", async () => {
    const res = await compatCall("POST", "/wp-json/rimplenet/v1/users/login", {
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ username: "", user_password: "x" }),
      vars: GUARDED,
    });
    expect(res.text).toBe(validationError([{ user_email: ["user_email is required"] }]));
  });
});
