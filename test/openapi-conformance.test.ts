// The published document (clients/openapi.json, what `npm run openapi` wrote and clients are
// generated from) against the wire: each route driven through its successes, refusals and
// authorization cases, every answer checked against the operation's response for its status (a
// status it lists, the media type, the body's JSON Schema, the headers it requires, and no header
// of the API's own that it does not declare).
import { env } from "cloudflare:workers";
import { Validator } from "@cfworker/json-schema";
import { beforeAll, describe, expect, it } from "vitest";
import docText from "../clients/openapi.json?raw";
import { failingD1 } from "./d1-counter";
import {
  API,
  appAt,
  appendHistory,
  type CallOptions,
  call,
  type Json,
  lockSignIn,
  makeAdmin,
  makeKey,
  makeUser,
  makeWallet,
  type Reply,
  sharedApp,
  storingMore,
  type TestUser,
  testApp,
  unique,
} from "./helpers";

type Schema = Record<string, unknown>;
type Header = { $ref?: string; required?: boolean; schema?: Schema };
type Response = { headers?: Record<string, Header>; content?: Record<string, { schema: Schema }> };
type Operation = { responses: Record<string, Response> };
const DOC = JSON.parse(docText) as {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema>; headers: Record<string, Header> };
};

const resolvable = (value: unknown) =>
  JSON.parse(JSON.stringify(value).replaceAll('"#/components/schemas/', '"#/$defs/'));
const DEFS = resolvable(DOC.components.schemas);
const validators = new Map<unknown, Validator>();
const validatorOf = (schema: unknown) => {
  let validator = validators.get(schema);
  if (!validator) {
    validator = new Validator({ ...resolvable(schema), $defs: DEFS }, "2020-12", false);
    validators.set(schema, validator);
  }
  return validator;
};

/** The headers of the API's own that an answer may carry only where its response declares them. */
const OWN_HEADERS = [
  "x-d1-bookmark",
  "retry-after",
  "x-wp-total",
  "x-wp-totalpages",
  "content-disposition",
  "x-statement-opening-balance",
  "x-statement-closing-balance",
  "x-statement-total-in",
  "x-statement-total-out",
];

/** Each answer that does not match the document, in words; a test ends asserting none. */
let problems: string[] = [];
/** The operations and statuses met, to check every operation was driven. */
const met = new Set<string>();

/** Whether `value`, a header's text, is what `schema` (a header's) allows. */
function headerFits(value: string, schema: Schema | undefined) {
  if (schema?.type === "integer")
    return (
      /^-?\d+$/.test(value) &&
      (schema.minimum === undefined || Number(value) >= (schema.minimum as number))
    );
  return typeof schema?.pattern !== "string" || new RegExp(schema.pattern).test(value);
}

/** `res`, the answer to `method template`, against the document. */
function conform(method: string, sent: string, res: Reply, what: string) {
  const template = sent.split("?")[0]!;
  const op = DOC.paths[`${API}${template}`]?.[method.toLowerCase()];
  if (!op) {
    problems.push(`${what}: no operation ${method} ${template}`);
    return;
  }
  const key = `${method} ${template}`;
  met.add(key);
  met.add(`${key} ${res.status}`);
  const response = op.responses[String(res.status)];
  if (!response) {
    problems.push(`${what}: status ${res.status} not documented (${res.text.slice(0, 200)})`);
    return;
  }
  const type = res.headers.get("content-type") ?? "";
  if (type.startsWith("text/csv")) {
    if (!response.content?.["text/csv"]) problems.push(`${what}: text/csv not documented`);
  } else {
    if (type !== "application/json; charset=UTF-8") problems.push(`${what}: Content-Type ${type}`);
    const schema = response.content?.["application/json"]?.schema;
    if (!schema) problems.push(`${what}: no application/json schema for ${res.status}`);
    else {
      const { valid, errors } = validatorOf(schema).validate(res.body);
      if (!valid)
        problems.push(
          `${what}: ${res.status} body does not match: ${res.text.slice(0, 300)} ${JSON.stringify(
            errors.filter((e) => e.keyword !== "allOf" && e.keyword !== "anyOf").slice(-4),
          )}`,
        );
    }
  }
  const declared = Object.entries(response.headers ?? {}).map(([name, header]) => {
    const spec = header.$ref ? DOC.components.headers[header.$ref.split("/").at(-1)!]! : header;
    return [name.toLowerCase(), spec] as const;
  });
  for (const [name, spec] of declared) {
    const value = res.headers.get(name);
    if (value === null) {
      if (spec.required) problems.push(`${what}: required header ${name} missing`);
    } else if (!headerFits(value, spec.schema))
      problems.push(`${what}: header ${name}: ${value} is not ${JSON.stringify(spec.schema)}`);
  }
  for (const name of OWN_HEADERS)
    if (res.headers.has(name) && !declared.some(([d]) => d === name))
      problems.push(`${what}: header ${name} sent but not documented for ${res.status}`);
}

type Query = Record<string, string | number>;
type WireOptions = CallOptions & { path?: Record<string, string | number> };

/** One request to `template` (its `{name}`s filled from `options.path`), checked by `conform`. */
async function wire(method: string, template: string, options: WireOptions = {}) {
  const path = template.replace(/\{(\w+)\}/g, (_, name: string) => String(options.path?.[name]));
  const res = await call(method, path, options);
  const what = `${method} ${path}${options.query ? `?${new URLSearchParams(options.query as Record<string, string>)}` : ""}${options.body === undefined ? "" : ` ${JSON.stringify(options.body).slice(0, 120)}`}`;
  conform(method, template, res, what);
  return res;
}

const expectConforming = () => {
  const found = problems;
  problems = [];
  expect(found).toEqual([]);
};

let admin: TestUser;
let subscriber: TestUser;
let other: TestUser;
let wallet: string;
let readKey: string;
let writeKey: string;
const REFUSING = {
  MONEY_RATE_LIMIT: { limit: async () => ({ success: false }) },
} as unknown as Record<string, string>;
const OUTBOX = { MAIL_TRANSPORT: "outbox" };
/** A client address of this file's own: its sign-in failures and mails count against it alone. */
const CLIENT = { "CF-Connecting-IP": "2001:db8:0a91::1" };

beforeAll(async () => {
  admin = await makeAdmin();
  subscriber = await makeUser();
  other = await makeUser();
  wallet = await makeWallet(admin);
  readKey = (await makeKey(admin, "read")).header;
  writeKey = (await makeKey(admin, "write")).header;
  for (const user of [subscriber, other])
    await call("POST", "/credits", {
      auth: admin.bearer,
      body: { user_id: user.id, wallet_id: wallet, amount: "100.00", request_id: unique("seed") },
    });
});

/**
 * The credential cases every route with credentials answers: none, a bad token, and (unless the
 * route is a subscriber's too) a subscriber's token and a key of the wrong scope.
 */
async function credentialCases(
  method: string,
  template: string,
  options: WireOptions,
  { subscriberAllowed = false, scope = "write" as "read" | "write" } = {},
) {
  const { auth: _, ...rest } = options;
  await wire(method, template, rest);
  await wire(method, template, { ...rest, auth: "" });
  await wire(method, template, { ...rest, auth: "Bearer not.a.token" });
  await wire(method, template, { ...rest, auth: `Key ${btoa(`${admin.username}:nope`)}` });
  if (!subscriberAllowed) await wire(method, template, { ...rest, auth: subscriber.bearer });
  await wire(method, template, { ...rest, auth: scope === "write" ? readKey : writeKey });
}

describe("every answer of wallet/v1 is the one clients/openapi.json documents", () => {
  it("money movements: credits, debits, transfers", async () => {
    const auth = admin.bearer;
    const body = { user_id: subscriber.id, wallet_id: wallet, amount: "1.50" };
    const first = unique("c");
    for (const template of ["/credits", "/debits"]) {
      await wire("POST", template, { auth, body: { ...body, request_id: `${first}${template}` } });
      await wire("POST", template, { auth, body: { ...body, request_id: `${first}${template}` } });
      await wire("POST", template, { auth, body: {} });
      await wire("POST", template, {
        auth,
        body: { ...body, amount: 1.5, request_id: unique("n") },
      });
      await wire("POST", template, {
        auth,
        body: { ...body, user_id: 999999999, request_id: unique("u") },
      });
      await wire("POST", template, { auth, body: { ...body, wallet_id: "nope", request_id: "x" } });
      await wire("POST", template, {
        auth,
        body: { ...body, amount: "1.005", request_id: unique("p") },
      });
      await wire("POST", template, {
        auth,
        body: "{",
        headers: { "Content-Type": "application/json" },
      });
      await wire("POST", template, { auth, body: { ...body, note: "x".repeat(70_000) } });
      await wire("POST", template, {
        auth,
        body: { ...body, request_id: unique("r") },
        vars: REFUSING,
      });
      await wire("POST", template, {
        auth: writeKey,
        body: { ...body, request_id: unique("k") },
      });
      await credentialCases("POST", template, { body: { ...body, request_id: unique("a") } });
    }
    await wire("POST", "/debits", {
      auth,
      body: { ...body, amount: "1000000", request_id: unique("d") },
    });
    const transfer = {
      from_user_id: subscriber.id,
      to_user_id: other.id,
      wallet_id: wallet,
      amount: "0.25",
    };
    const id = unique("t");
    await wire("POST", "/transfers", { auth, body: { ...transfer, request_id: id } });
    await wire("POST", "/transfers", { auth, body: { ...transfer, request_id: id } });
    await wire("POST", "/transfers", { auth, body: {} });
    await wire("POST", "/transfers", {
      auth,
      body: { ...transfer, amount: "1000000", request_id: unique("t") },
    });
    await wire("POST", "/transfers", {
      auth,
      body: { ...transfer, to_user_id: 999999999, request_id: unique("t") },
    });
    await wire("POST", "/transfers", { auth, body: transfer, vars: REFUSING });
    await credentialCases("POST", "/transfers", { body: { ...transfer, request_id: unique("t") } });
    expectConforming();
  });

  it("balances: user-wallet-balance, balances, the wallet summary", async () => {
    const auth = admin.bearer;
    const query = { user_id: subscriber.id, wallet_id: wallet };
    await wire("GET", "/user-wallet-balance", { auth, query });
    await wire("GET", "/user-wallet-balance", { auth, query: { ...query, formatted: "yes" } });
    await wire("GET", "/user-wallet-balance", {
      auth,
      query: { ...query, wallet_id: `${wallet}, ${wallet}`, formatted: "yes" },
    });
    await wire("GET", "/user-wallet-balance", {
      auth,
      query: { ...query, at: "2020-01-01T00:00:00Z" },
    });
    await wire("GET", "/user-wallet-balance", { auth, query: { ...query, at: "2999-01-01" } });
    await wire("GET", "/user-wallet-balance", { auth, query: { user_id: subscriber.id } });
    await wire("GET", "/user-wallet-balance", { auth, query: { ...query, wallet_id: "nope" } });
    await wire("GET", "/user-wallet-balance", { auth, query: { ...query, user_id: 999999999 } });
    await wire("GET", "/user-wallet-balance", { auth, query: { ...query, user_id: "x" } });
    await wire("GET", "/user-wallet-balance", {
      auth: subscriber.bearer,
      query: { wallet_id: wallet },
    });
    await wire("GET", "/user-wallet-balance", {
      auth: subscriber.bearer,
      query: { ...query, user_id: other.id },
    });
    await wire("GET", "/user-wallet-balance", { auth: readKey, query });
    await credentialCases("GET", "/user-wallet-balance", { query }, { scope: "read" });

    await wire("GET", "/balances", { auth, query: { user_id: subscriber.id } });
    await wire("GET", "/balances", { auth, query: { user_id: 999999999 } });
    await wire("GET", "/balances", { auth, query: { user_id: "x" } });
    await wire("GET", "/balances", { auth: subscriber.bearer });
    await wire("GET", "/balances", { auth: subscriber.bearer, query: { user_id: other.id } });
    await credentialCases(
      "GET",
      "/balances",
      { query: { user_id: subscriber.id } },
      {
        subscriberAllowed: true,
        scope: "read",
      },
    );

    const summary = "/wallets/{wallet_id}/summary";
    const fresh = await makeUser();
    await wire("GET", summary, {
      auth,
      path: { wallet_id: wallet },
      query: { user_id: subscriber.id },
    });
    await wire("GET", summary, { auth, path: { wallet_id: wallet }, query: { user_id: fresh.id } });
    await wire("GET", summary, { auth, path: { wallet_id: "nope" }, query: { user_id: fresh.id } });
    await wire("GET", summary, {
      auth,
      path: { wallet_id: wallet },
      query: { user_id: 999999999 },
    });
    await wire("GET", summary, { auth, path: { wallet_id: wallet }, query: { user_id: "x" } });
    await wire("GET", summary, { auth: subscriber.bearer, path: { wallet_id: wallet } });
    await wire("GET", summary, {
      auth: subscriber.bearer,
      path: { wallet_id: wallet },
      query: { user_id: other.id },
    });
    await credentialCases(
      "GET",
      summary,
      { path: { wallet_id: wallet } },
      {
        subscriberAllowed: true,
        scope: "read",
      },
    );
    expectConforming();
  });

  it("holds: place, list, read, capture, void", async () => {
    const auth = admin.bearer;
    const hold = { user_id: subscriber.id, wallet_id: wallet, amount: "2.00" };
    const key = unique("h");
    const placed = await wire("POST", "/holds", { auth, body: { ...hold, request_id: key } });
    const id = placed.body.data.hold_id as number;
    const second = await wire("POST", "/holds", {
      auth,
      body: { ...hold, request_id: unique("h"), expires_in: 60, note: "n" },
    });
    await wire("POST", "/holds", { auth, body: { ...hold, request_id: key } });
    await wire("POST", "/holds", {
      auth,
      body: { ...hold, request_id: unique("h") },
      vars: REFUSING,
    });
    await wire("POST", "/holds", { auth, body: {} });
    await wire("POST", "/holds", {
      auth,
      body: { ...hold, amount: "1000000", request_id: unique("h") },
    });
    await wire("POST", "/holds", { auth, body: { ...hold, user_id: 999999999, request_id: "h" } });
    await wire("POST", "/holds", { auth, body: { ...hold, expires_in: 0, request_id: "h" } });
    await credentialCases("POST", "/holds", { body: { ...hold, request_id: unique("h") } });

    for (const query of [
      { user_id: subscriber.id },
      { user_id: subscriber.id, per_page: 1 },
      { user_id: subscriber.id, per_page: 1, page: 2 },
      { user_id: subscriber.id, page: 99 },
      { user_id: subscriber.id, status: "held", wallet_id: wallet },
      { user_id: subscriber.id, status: "nope" },
      { user_id: 999999999 },
      { user_id: "x" },
      {},
    ] as Query[])
      await wire("GET", "/holds", { auth, query });
    await wire("GET", "/holds", { auth: subscriber.bearer });
    await wire("GET", "/holds", { auth: subscriber.bearer, query: { user_id: other.id } });
    await credentialCases(
      "GET",
      "/holds",
      { query: { user_id: subscriber.id } },
      {
        subscriberAllowed: true,
        scope: "read",
      },
    );

    await wire("GET", "/holds/{id}", { auth, path: { id } });
    await wire("GET", "/holds/{id}", { auth: subscriber.bearer, path: { id } });
    await wire("GET", "/holds/{id}", { auth: other.bearer, path: { id } });
    await wire("GET", "/holds/{id}", { auth, path: { id: 999999999 } });
    await credentialCases(
      "GET",
      "/holds/{id}",
      { path: { id } },
      {
        subscriberAllowed: true,
        scope: "read",
      },
    );

    const capture = "/holds/{id}/capture";
    await wire("POST", capture, { auth, path: { id }, body: { amount: "5.00" } });
    await wire("POST", capture, { auth, path: { id }, body: { amount: "x" } });
    await credentialCases("POST", capture, { path: { id }, body: {} });
    await wire("POST", capture, { auth, path: { id }, vars: REFUSING });
    await wire("POST", capture, { auth, path: { id }, body: { amount: "1.00" } });
    await wire("POST", capture, { auth, path: { id } });
    await wire("POST", capture, { auth, path: { id: 999999999 } });
    await wire("GET", "/holds/{id}", { auth, path: { id } });

    const other2 = second.body.data.hold_id as number;
    await credentialCases("POST", "/holds/{id}/void", { path: { id: other2 } });
    await wire("POST", "/holds/{id}/void", { auth, path: { id: other2 } });
    await wire("POST", "/holds/{id}/void", { auth, path: { id: other2 } });
    await wire("POST", "/holds/{id}/void", { auth, path: { id: 999999999 } });
    await wire("POST", "/holds/{id}/void", { auth, path: { id: other2 }, vars: REFUSING });
    await wire("GET", "/holds/{id}", { auth, path: { id: other2 } });
    await wire("GET", "/holds", { auth, query: { user_id: subscriber.id } });
    expectConforming();
  });

  it("history: transactions, one transaction, its reversal, statements", async () => {
    const auth = admin.bearer;
    const base = { user_id: subscriber.id, security_code: 1 };
    const empty = await makeUser();
    for (const query of [
      base,
      { ...base, per_page: 1 },
      { ...base, per_page: 1, page: 2, order: "asc" },
      { ...base, pageno: 2, per_page: 1 },
      { ...base, page: 9999 },
      { ...base, txn_type: "CREDIT", wallet_id: wallet, after: "2020-01-01", before: "2999-01-01" },
      { user_id: empty.id, security_code: 1 },
      { user_id: empty.id, security_code: 1, per_page: 5 },
      { ...base, txn_type: "nope" },
      { ...base, wallet_id: "nope" },
      { ...base, per_page: 0 },
      { user_id: subscriber.id },
      { ...base, security_code: "x" },
      { ...base, user_id: 999999999 },
      { security_code: 1 },
    ] as Query[])
      await wire("GET", "/transactions", { auth, query });
    await wire("GET", "/transactions", {
      auth,
      query: base,
      vars: { TRANSACTIONS_SECURITY_CODE: "4321" },
    });
    await wire("GET", "/transactions", { auth: subscriber.bearer, query: { security_code: 1 } });
    await wire("GET", "/transactions", {
      auth: subscriber.bearer,
      query: { ...base, user_id: other.id },
    });
    await credentialCases(
      "GET",
      "/transactions",
      { query: base },
      {
        subscriberAllowed: true,
        scope: "read",
      },
    );

    const made = await wire("POST", "/credits", {
      auth,
      body: { user_id: subscriber.id, wallet_id: wallet, amount: "3", request_id: unique("r") },
    });
    const id = made.body.data.transaction_id as number;
    await wire("GET", "/transactions/{id}", { auth, path: { id } });
    await wire("GET", "/transactions/{id}", { auth: subscriber.bearer, path: { id } });
    await wire("GET", "/transactions/{id}", { auth: other.bearer, path: { id } });
    await wire("GET", "/transactions/{id}", { auth, path: { id: 999999999 } });
    await credentialCases(
      "GET",
      "/transactions/{id}",
      { path: { id } },
      {
        subscriberAllowed: true,
        scope: "read",
      },
    );

    const reverse = "/transactions/{id}/reverse";
    await wire("POST", reverse, { auth, path: { id }, body: {} });
    await wire("POST", reverse, { auth, path: { id }, body: { request_id: "rv", note: 5 } });
    await credentialCases("POST", reverse, { path: { id }, body: { request_id: unique("rv") } });
    await wire("POST", reverse, { auth, path: { id }, body: { request_id: "x" }, vars: REFUSING });
    const rv = unique("rv");
    await wire("POST", reverse, { auth, path: { id }, body: { request_id: rv } });
    await wire("POST", reverse, { auth, path: { id }, body: { request_id: rv } });
    await wire("POST", reverse, { auth, path: { id }, body: { request_id: unique("rv") } });
    await wire("POST", reverse, { auth, path: { id: 999999999 }, body: { request_id: "x" } });
    const spent = await wire("POST", "/credits", {
      auth,
      body: { user_id: other.id, wallet_id: wallet, amount: "3", request_id: unique("r") },
    });
    await wire("POST", "/debits", {
      auth,
      body: { user_id: other.id, wallet_id: wallet, amount: "100", request_id: unique("r") },
    });
    await wire("POST", reverse, {
      auth,
      path: { id: spent.body.data.transaction_id },
      body: { request_id: unique("rv") },
    });

    const statement = { user_id: subscriber.id, wallet_id: wallet };
    for (const query of [
      statement,
      { ...statement, per_page: 1 },
      { ...statement, per_page: 1, page: 2 },
      { ...statement, from: "2020-01-01", to: "2020-01-02" },
      { ...statement, format: "csv" },
      { ...statement, format: "csv", from: "2020-01-01", to: "2020-01-02" },
      { ...statement, format: "xml" },
      { ...statement, from: "2021-01-01", to: "2020-01-01" },
      { user_id: subscriber.id },
      { ...statement, wallet_id: "nope" },
      { ...statement, user_id: 999999999 },
    ] as Query[])
      await wire("GET", "/statements", { auth, query });
    await wire("GET", "/statements", { auth: subscriber.bearer, query: { wallet_id: wallet } });
    await wire("GET", "/statements", {
      auth: subscriber.bearer,
      query: { ...statement, user_id: other.id },
    });
    await credentialCases(
      "GET",
      "/statements",
      { query: statement },
      {
        subscriberAllowed: true,
        scope: "read",
      },
    );
    expectConforming();
  });

  it("batches: create, list, read, reverse", async () => {
    const auth = admin.bearer;
    const operations = [
      { type: "credit", user_id: subscriber.id, wallet_id: wallet, amount: "4.00" },
      { type: "debit", user_id: subscriber.id, wallet_id: wallet, amount: "1.00", note: "fee" },
      {
        type: "transfer",
        from_user_id: subscriber.id,
        to_user_id: other.id,
        wallet_id: wallet,
        amount: "1.00",
      },
    ];
    const request_id = unique("b");
    const made = await wire("POST", "/batches", { auth, body: { request_id, operations } });
    const id = made.body.data.batch_id as number;
    await wire("POST", "/batches", { auth, body: { request_id, operations } });
    await wire("POST", "/batches", { auth, body: {} });
    await wire("POST", "/batches", {
      auth,
      body: { request_id: unique("b"), balanced: true, operations },
    });
    await wire("POST", "/batches", {
      auth,
      body: { request_id: unique("b"), operations: [{ ...operations[1], amount: "1000000" }] },
    });
    await wire("POST", "/batches", {
      auth,
      body: { request_id: unique("b"), operations: [{ ...operations[0], user_id: 999999999 }] },
    });
    await wire("POST", "/batches", { auth, body: { request_id, operations }, vars: REFUSING });
    await credentialCases("POST", "/batches", { body: { request_id: unique("b"), operations } });

    for (const query of [
      { user_id: subscriber.id },
      { user_id: subscriber.id, per_page: 1, page: 1 },
      { user_id: subscriber.id, page: 999 },
      { user_id: 999999999 },
      {},
    ] as Query[])
      await wire("GET", "/batches", { auth, query });
    await wire("GET", "/batches", { auth: subscriber.bearer, query: { user_id: subscriber.id } });
    await credentialCases(
      "GET",
      "/batches",
      { query: { user_id: subscriber.id } },
      {
        subscriberAllowed: true,
        scope: "read",
      },
    );

    await wire("GET", "/batches/{id}", { auth, path: { id } });
    await wire("GET", "/batches/{id}", { auth, path: { id: 999999999 } });
    await wire("GET", "/batches/{id}", { auth: subscriber.bearer, path: { id } });
    await credentialCases(
      "GET",
      "/batches/{id}",
      { path: { id } },
      {
        subscriberAllowed: true,
        scope: "read",
      },
    );

    const reverse = "/batches/{id}/reverse";
    await credentialCases("POST", reverse, { path: { id } });
    await wire("POST", reverse, { auth, path: { id }, body: { note: ["x"] } });
    await wire("POST", reverse, { auth, path: { id }, vars: REFUSING });
    const reversal = await wire("POST", reverse, { auth, path: { id } });
    expect(reversal.status, reversal.text).toBe(200);
    await wire("POST", reverse, { auth, path: { id } });
    await wire("POST", reverse, { auth, path: { id: reversal.body.data.reversal_batch_id } });
    await wire("POST", reverse, { auth, path: { id: 999999999 } });
    await wire("GET", "/batches/{id}", { auth, path: { id } });
    await wire("GET", "/batches/{id}", {
      auth,
      path: { id: reversal.body.data.reversal_batch_id },
    });
    expectConforming();
  });

  it("users: create, sign in and out, unlock, revoke sessions", async () => {
    const auth = admin.bearer;
    const name = unique("u");
    const user = { username: name, user_email: `${name}@example.test`, user_password: "secret123" };
    const made = await wire("POST", "/users", { auth, body: user });
    await wire("POST", "/users", { auth, body: user });
    await wire("POST", "/users", { auth, body: {} });
    await wire("POST", "/users", { auth, body: { ...user, first_name: "x".repeat(70_000) } });
    await wire("POST", "/users", {
      auth,
      body: "{",
      headers: { "Content-Type": "application/json" },
    });
    await credentialCases("POST", "/users", { body: { ...user, username: unique("u") } });

    const login = "/users/login";
    const signedIn = await wire("POST", login, {
      body: { user_email: user.user_email, user_password: user.user_password },
      headers: CLIENT,
    });
    await wire("POST", login, {
      body: { username: name, user_password: user.user_password, token_expiration: "persistent" },
      headers: CLIENT,
    });
    await wire("POST", login, {
      body: { user_email: user.user_email, user_password: "no" },
      headers: CLIENT,
    });
    await wire("POST", login, { body: {}, headers: CLIENT });
    await wire("POST", login, {
      body: { user_email: "x", user_password: "y", token_expiration: true },
    });
    await wire("POST", login, {
      body: { user_email: "x", user_password: "y" },
      auth: "Bearer not.a.token",
    });
    const locked = await makeUser();
    await lockSignIn(locked, "2001:db8:0a91::2");
    await wire("POST", login, {
      body: { user_email: locked.email, user_password: "correct horse" },
      headers: { "CF-Connecting-IP": "2001:db8:0a91::2" },
    });

    const token = `Bearer ${signedIn.body.data.access_token}`;
    await wire("POST", "/users/logout", { auth: token });
    await wire("POST", "/users/logout", { auth: token });
    await wire("POST", "/users/logout", { auth: writeKey });
    await wire("POST", "/users/logout");
    await wire("POST", "/users/logout", { auth: (await makeUser()).bearer, body: { x: 1 } });

    const id = made.body.data.id as number;
    for (const template of ["/users/{user_id}/unlock", "/users/{user_id}/sessions/revoke"]) {
      await wire("POST", template, { auth, path: { user_id: id } });
      await wire("POST", template, { auth, path: { user_id: locked.id } });
      await wire("POST", template, { auth, path: { user_id: 999999999 } });
      await credentialCases("POST", template, { path: { user_id: id } });
    }
    expectConforming();
  });

  it("mail: verification and password reset", async () => {
    const user = await makeUser();
    for (const template of ["/users/verify-email", "/users/password-reset"]) {
      await wire("POST", template, {
        body: { user_email: user.email },
        vars: OUTBOX,
        headers: CLIENT,
      });
      await wire("POST", template, {
        body: { user_email: "nobody@example.test" },
        vars: OUTBOX,
        headers: CLIENT,
      });
      await wire("POST", template, { body: {}, vars: OUTBOX, headers: CLIENT });
      await wire("POST", template, { body: { user_email: "x" }, vars: OUTBOX, headers: CLIENT });
      await wire("POST", template, { body: { user_email: user.email }, headers: CLIENT });
      await wire("POST", template, {
        body: { user_email: user.email },
        auth: "Bearer not.a.token",
        vars: OUTBOX,
        headers: CLIENT,
      });
      const flooded = await makeUser();
      for (let i = 0; i < 6; i++)
        await wire("POST", template, {
          body: { user_email: flooded.email },
          vars: OUTBOX,
          headers: CLIENT,
        });
    }
    const mailed = async (subject: string) => {
      const row = await env.DB.prepare(
        "SELECT body_text FROM mail_outbox WHERE to_address = ? AND subject = ? ORDER BY id DESC LIMIT 1",
      )
        .bind(user.email, subject)
        .first<{ body_text: string }>();
      return /(?:token=|^)([A-Za-z0-9_-]{43})$/m.exec(row?.body_text ?? "")?.[1] ?? "missing";
    };
    const link = await mailed("Verify your e-mail address");
    await wire("GET", "/users/verify-email", { query: { token: link } });
    await wire("GET", "/users/verify-email", { query: { token: link } });
    await wire("GET", "/users/verify-email", {});
    await wire("GET", "/users/verify-email", { query: { token: "x".repeat(101) } });
    const code = await mailed("Reset your password");
    const confirm = "/users/password-reset/confirm";
    await wire("POST", confirm, { body: { token: code, user_password: "abc" }, headers: CLIENT });
    await wire("POST", confirm, {
      body: { token: code, user_password: "a new one" },
      headers: CLIENT,
    });
    await wire("POST", confirm, {
      body: { token: code, user_password: "a new one" },
      headers: CLIENT,
    });
    await wire("POST", confirm, { body: {}, headers: CLIENT });
    await wire("POST", confirm, { body: { token: 5, user_password: "abcdefg" }, headers: CLIENT });
    // Guesses at reset codes from one address count as failed sign-ins: past 100, 429.
    const guesser = { "CF-Connecting-IP": "2001:db8:0a91::3" };
    for (let i = 0; i < 102; i++)
      await wire("POST", confirm, {
        body: { token: "x".repeat(43), user_password: "abcdefg" },
        headers: guesser,
      });
    expectConforming();
  });

  it("wallets: create, list, read", async () => {
    const auth = admin.bearer;
    const id = unique("w").toLowerCase().slice(0, 20);
    const body = { wallet_id: id, wallet_name: "Euro", wallet_symbol: "€" };
    await wire("POST", "/wallets", { auth, body });
    await wire("POST", "/wallets", { auth, body });
    await wire("POST", "/wallets", { auth, body: {} });
    await wire("POST", "/wallets", {
      auth,
      body: {
        ...body,
        wallet_id: unique("w").toLowerCase().slice(0, 20),
        wallet_decimal: 0,
        wallet_symbol_position: "right",
        wallet_type: "crypto",
        wallet_note: "n",
      },
    });
    await wire("POST", "/wallets", { auth, body: { ...body, wallet_id: "formatted" } });
    await credentialCases("POST", "/wallets", { body: { ...body, wallet_id: "zz" } });
    await wire("GET", "/wallets", { auth });
    await wire("GET", "/wallets", { auth: readKey });
    await credentialCases("GET", "/wallets", {}, { scope: "read" });
    await wire("GET", "/wallets/{wallet_id}", { auth, path: { wallet_id: id } });
    await wire("GET", "/wallets/{wallet_id}", { auth, path: { wallet_id: id.toUpperCase() } });
    await wire("GET", "/wallets/{wallet_id}", { auth, path: { wallet_id: "nope" } });
    await wire("GET", "/wallets/{wallet_id}", { auth, path: { wallet_id: "-bad-" } });
    await credentialCases(
      "GET",
      "/wallets/{wallet_id}",
      { path: { wallet_id: id } },
      {
        scope: "read",
      },
    );
    expectConforming();
  });

  it("API keys: create, list, revoke", async () => {
    const auth = admin.bearer;
    const made = await wire("POST", "/api-keys", { auth, body: { name: "k", scope: "read" } });
    await wire("POST", "/api-keys", {
      auth,
      body: { name: "k", scope: "read-write", username: subscriber.username },
    });
    await wire("POST", "/api-keys", {
      auth,
      body: { name: "k", scope: "read", username: "nobody-here" },
    });
    await wire("POST", "/api-keys", { auth, body: {} });
    await wire("POST", "/api-keys", { auth, body: { name: "k", scope: "all" } });
    await credentialCases("POST", "/api-keys", { body: { name: "k", scope: "read" } });
    await wire("GET", "/api-keys", { auth });
    await credentialCases("GET", "/api-keys", {}, { scope: "read" });
    const id = made.body.data.id as number;
    await credentialCases("DELETE", "/api-keys/{id}", { path: { id } });
    await wire("DELETE", "/api-keys/{id}", { auth, path: { id } });
    await wire("DELETE", "/api-keys/{id}", { auth, path: { id } });
    await wire("DELETE", "/api-keys/{id}", { auth, path: { id: 999999999 } });
    await wire("GET", "/api-keys", { auth });
    expectConforming();
  });

  it("events and webhooks", async () => {
    const auth = admin.bearer;
    for (const query of [
      {},
      { after: 0, limit: 2 },
      { types: "transaction.created,hold.placed" },
      { types: "nope" },
      { limit: 0 },
      { after: -1 },
    ] as Query[])
      await wire("GET", "/events", { auth, query });
    await credentialCases("GET", "/events", {}, { scope: "read" });

    const hook = { url: `http://127.0.0.1:9/${unique("h")}`, events: ["transaction.created"] };
    const made = await wire("POST", "/webhooks", { auth, body: { ...hook, description: "d" } });
    await wire("POST", "/webhooks", {
      auth,
      body: { ...hook, events: "transaction.created,wallet.created" },
    });
    await wire("POST", "/webhooks", { auth, body: {} });
    await wire("POST", "/webhooks", { auth, body: { ...hook, url: "ftp://x" } });
    await wire("POST", "/webhooks", { auth, body: hook, vars: { WEBHOOK_SECRET_KEY: "" } });
    await credentialCases("POST", "/webhooks", { body: hook });
    await wire("GET", "/webhooks", { auth });
    await credentialCases("GET", "/webhooks", {}, { scope: "read" });

    const id = made.body.data.id as number;
    await wire("POST", "/webhooks/{id}/test", { auth, path: { id } });
    await wire("POST", "/webhooks/{id}/test", { auth, path: { id: 999999999 } });
    await credentialCases("POST", "/webhooks/{id}/test", { path: { id } });
    const event = (await call("GET", "/events", { auth })).body.data[0]?.id as number;
    await wire("POST", "/webhooks/{id}/resend", { auth, path: { id }, body: { event_id: event } });
    await wire("POST", "/webhooks/{id}/resend", {
      auth,
      path: { id },
      body: { event_id: 999999999 },
    });
    await wire("POST", "/webhooks/{id}/resend", { auth, path: { id }, body: {} });
    await wire("POST", "/webhooks/{id}/resend", {
      auth,
      path: { id: 999999999 },
      body: { event_id: event },
    });
    await credentialCases("POST", "/webhooks/{id}/resend", {
      path: { id },
      body: { event_id: event },
    });
    await wire("GET", "/webhooks/{id}/deliveries", { auth, path: { id } });
    await wire("GET", "/webhooks/{id}/deliveries", { auth, path: { id }, query: { limit: 1 } });
    await wire("GET", "/webhooks/{id}/deliveries", { auth, path: { id }, query: { limit: 0 } });
    await wire("GET", "/webhooks/{id}/deliveries", { auth, path: { id: 999999999 } });
    await credentialCases("GET", "/webhooks/{id}/deliveries", { path: { id } }, { scope: "read" });
    await credentialCases("DELETE", "/webhooks/{id}", { path: { id } });
    await wire("DELETE", "/webhooks/{id}", { auth, path: { id } });
    await wire("DELETE", "/webhooks/{id}", { auth, path: { id } });
    expectConforming();
  });

  it("the document itself, and faults: an unconfigured service, a lost database", async () => {
    await wire("GET", "/openapi.json");
    await wire("GET", "/openapi.json", { auth: "Bearer not.a.token" });
    const lost = failingD1("D1_ERROR: Network connection lost.");
    const broken = failingD1("D1_ERROR: a fault of no known kind");
    const unconfigured = { JWT_SECRET: "" };
    for (const route of Object.entries(DOC.paths)) {
      const [path, methods] = route;
      const template = path.slice(API.length);
      for (const method of Object.keys(methods)) {
        const options = {
          auth: admin.bearer,
          path: { id: 999999999, user_id: admin.id, wallet_id: wallet },
          query:
            method === "get"
              ? { user_id: admin.id, wallet_id: wallet, security_code: 1 }
              : undefined,
          body: method === "get" ? undefined : {},
        };
        await wire(method.toUpperCase(), template, { ...options, d1: lost });
        await wire(method.toUpperCase(), template, { ...options, d1: broken });
        await wire(method.toUpperCase(), template, { ...options, vars: unconfigured });
      }
    }
    expectConforming();
  });

  it("bodies on every route: a GET's JSON body too large or unreadable, forms, odd path ids", async () => {
    const app = testApp();
    // Ids no record has, and a user of this test's own: a body that reads may act on them.
    const bystander = String((await makeUser()).id);
    for (const [path, methods] of Object.entries(DOC.paths)) {
      // An administrator of the route's own: a logout's body may end its session.
      const prober = await makeAdmin();
      const template = path.slice(API.length);
      const filled = template.replace(/\{(\w+)\}/g, (_, name: string) =>
        name === "wallet_id" ? wallet : name === "user_id" ? bystander : "999999999",
      );
      for (const method of Object.keys(methods).map((m) => m.toUpperCase())) {
        for (const [body, what] of [
          [JSON.stringify({ pad: "x".repeat(70_000) }), "a body over 64 KiB"],
          ["{", "a body that is not JSON"],
          [JSON.stringify({ user_id: [1], wallet_id: {}, id: "x" }), "lists and objects"],
          [`{"a":${"[".repeat(40)}${"]".repeat(40)}}`, "JSON nested too deep"],
        ] as const) {
          // No Request is built as a GET with a body: built as a POST, its method then reads GET.
          const sent = new Request(`http://localhost${API}${filled}`, {
            method: "POST",
            headers: { "Content-Type": "application/json", Authorization: prober.bearer },
            body,
          });
          Object.defineProperty(sent, "method", { value: method });
          const res = await app.fetch(sent, env);
          const text = await res.text();
          let parsed = {};
          try {
            parsed = JSON.parse(text);
          } catch {}
          conform(
            method,
            template,
            { status: res.status, body: parsed, headers: res.headers, text },
            `${method} ${filled} with ${what}`,
          );
        }
        // A query the service will not read (not UTF-8): every route refuses it in its envelope.
        await wire(method, `${template}?x=%FF`, {
          auth: prober.bearer,
          path: { id: "999999999", user_id: bystander, wallet_id: wallet },
          body: method === "GET" ? undefined : {},
        });
        if (template.includes("{id}") || template.includes("{user_id}"))
          for (const id of ["0", "9007199254740992", "99999999999999999999"])
            await wire(method, template, {
              auth: prober.bearer,
              path: { id, user_id: id },
              body: method === "GET" ? undefined : {},
            });
      }
    }
    const form = { user_id: String(subscriber.id), wallet_id: wallet, amount: "1.25" };
    await wire("POST", "/credits", {
      auth: admin.bearer,
      body: new URLSearchParams({ ...form, request_id: unique("f") }),
    });
    const multipart = new FormData();
    for (const [k, v] of Object.entries({ ...form, request_id: unique("m") })) multipart.set(k, v);
    await wire("POST", "/credits", { auth: admin.bearer, body: multipart });
    expectConforming();
  });

  it("states past a request: an expired hold, deleted users and wallets, a busy history, an object out of reach", async () => {
    const auth = admin.bearer;
    const user = await makeUser();
    await wire("POST", "/credits", {
      auth,
      body: { user_id: user.id, wallet_id: wallet, amount: "5", request_id: unique("e") },
    });
    const placed = await wire("POST", "/holds", {
      auth,
      body: {
        user_id: user.id,
        wallet_id: wallet,
        amount: "1",
        request_id: unique("e"),
        expires_in: 1,
      },
    });
    expect(placed.status, placed.text).toBe(200);
    const later = appAt(Date.now() + 5_000);
    const id = placed.body.data.hold_id as number;
    await wire("GET", "/holds/{id}", { auth, path: { id }, app: later });
    await wire("POST", "/holds/{id}/capture", { auth, path: { id }, app: later });
    await wire("POST", "/holds/{id}/void", { auth, path: { id }, app: later });
    await wire("GET", "/holds", {
      auth,
      query: { user_id: user.id, status: "expired" },
      app: later,
    });
    await wire("GET", "/wallets/{wallet_id}/summary", {
      auth,
      path: { wallet_id: wallet },
      query: { user_id: user.id },
      app: later,
    });

    // A user and a wallet deleted through the plugin's dialect: their events in the feed.
    const gone = await makeUser();
    const goneWallet = await makeWallet(admin);
    const compat = { COMPAT_NAMESPACE: "rimplenet" };
    for (const path of [
      `/wp-json/rimplenet/v1/users/${gone.id}`,
      `/wp-json/rimplenet/v1/wallets/${goneWallet}`,
    ])
      expect((await call("DELETE", path, { auth, vars: compat })).status).toBe(200);
    await wire("GET", "/events", { auth, query: { types: "user.deleted,wallet.deleted" } });
    await wire("GET", "/events", {
      auth,
      query: {
        types:
          "hold.expired,hold.captured,hold.voided,batch.completed,batch.reversed,user.created,wallet.created",
      },
    });
    await wire("GET", "/wallets/{wallet_id}", { auth, path: { wallet_id: goneWallet } });
    await wire("GET", "/user-wallet-balance", {
      auth,
      query: { user_id: gone.id, wallet_id: wallet },
    });

    // A wallet storing more places than it shows, as the WordPress import makes one.
    const more = await storingMore(1);
    await wire("POST", "/credits", {
      auth,
      body: { user_id: user.id, wallet_id: more, amount: "1.25", request_id: unique("m") },
    });
    await wire("GET", "/wallets/{wallet_id}", { auth, path: { wallet_id: more } });
    await wire("GET", "/balances", { auth, query: { user_id: user.id } });
    await wire("GET", "/statements", { auth, query: { user_id: user.id, wallet_id: more } });
    await wire("GET", "/statements", {
      auth,
      query: { user_id: user.id, wallet_id: more, format: "csv" },
    });
    await wire("GET", "/transactions", { auth, query: { user_id: user.id, security_code: 0 } });

    // A whole history of more than 500 entries while another is still being sent.
    const long = await makeUser();
    await appendHistory(long.id, wallet, 520);
    const first = await sharedApp().request(
      `${API}/transactions?security_code=1&user_id=${long.id}`,
      { headers: { Authorization: auth } },
      env,
    );
    const reader = first.body!.getReader();
    await reader.read();
    await wire("GET", "/transactions", { auth, query: { user_id: long.id, security_code: 1 } });
    await wire("GET", "/statements", {
      auth,
      query: { user_id: long.id, wallet_id: wallet, format: "csv" },
    });
    await reader.cancel();

    // The sign-in throttle and the history gate out of reach.
    const away = <N extends { idFromName: (name: string) => DurableObjectId }>(ns: N) => {
      const object = new Proxy(
        {},
        {
          get: (_, method) =>
            method === "then"
              ? undefined
              : async () => Promise.reject(new Error("Network connection lost.")),
        },
      );
      return {
        idFromName: (name: string) => ns.idFromName(name),
        get: () => object,
      } as unknown as N;
    };
    const vars = {
      LOGIN_THROTTLE: away(env.LOGIN_THROTTLE),
      HISTORY_GATE: away(env.HISTORY_GATE),
      ...OUTBOX,
    };
    await wire("POST", "/users/login", {
      body: { user_email: user.email, user_password: "x" },
      vars,
    });
    await wire("POST", "/users/verify-email", { body: { user_email: user.email }, vars });
    await wire("POST", "/users/password-reset", { body: { user_email: user.email }, vars });
    await wire("POST", "/users/password-reset/confirm", {
      body: { token: "x".repeat(43), user_password: "abcdefg" },
      vars,
    });
    await wire("POST", "/users/{user_id}/unlock", { auth, path: { user_id: user.id }, vars });
    await wire("GET", "/transactions", {
      auth,
      query: { user_id: long.id, security_code: 1 },
      vars,
    });
    await wire("GET", "/statements", {
      auth,
      query: { user_id: long.id, wallet_id: wallet, format: "csv" },
      vars,
    });
    expectConforming();
  });

  it("checks what it says: an answer the document does not describe is caught", () => {
    const ok = {
      status_code: 200,
      status: true,
      message: "Transaction Completed",
      data: { transaction_id: 1, user_id: 2 },
    };
    const headers = new Headers({ "content-type": "application/json; charset=UTF-8" });
    const reply = (status: number, body: Json, more: Record<string, string> = {}) => {
      const h = new Headers(headers);
      for (const [k, v] of Object.entries(more)) h.set(k, v);
      return { status, body, headers: h, text: JSON.stringify(body) };
    };
    for (const [res, why] of [
      [reply(200, { ...ok, data: { ...ok.data, extra: 1 } }), "an extra field"],
      [reply(200, { ...ok, data: { ...ok.data, user_id: "2" } }), "a field of another type"],
      [reply(200, { ...ok, error: [] }), "a key the envelope does not have"],
      [
        reply(409, {
          status_code: 409,
          status: false,
          message: "Wallet Already Exists",
          error: {},
        }),
        "another route's refusal",
      ],
      [reply(418, ok), "a status not listed"],
      [
        reply(429, { status_code: 429, status: false, message: "Too many requests", error: {} }),
        "no Retry-After",
      ],
      [reply(200, ok, { "retry-after": "1" }), "an undeclared header"],
    ] as const) {
      conform("POST", "/credits", res, why);
      expect(problems, why).toHaveLength(1);
      problems = [];
    }
    conform("POST", "/credits", reply(200, ok, { "x-d1-bookmark": "b" }), "a conforming answer");
    expect(problems).toEqual([]);
  });

  // Last: it reads what the tests above met, so it fails when run alone.
  it("drove every operation and met every status the document lists", () => {
    const operations = Object.entries(DOC.paths).flatMap(([path, methods]) =>
      Object.keys(methods).map((m) => `${m.toUpperCase()} ${path.slice(API.length)}`),
    );
    expect(operations.filter((op) => !met.has(op))).toEqual([]);
    const statuses = Object.entries(DOC.paths).flatMap(([path, methods]) =>
      Object.entries(methods).flatMap(([m, op]) =>
        Object.keys(op.responses).map(
          (status) => `${m.toUpperCase()} ${path.slice(API.length)} ${status}`,
        ),
      ),
    );
    // A fault of the document's own route cannot be caused from outside.
    expect(statuses.filter((s) => !met.has(s))).toEqual(["GET /openapi.json 500"]);
  });
});
