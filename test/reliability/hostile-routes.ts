// The hostile-input section's routes and cases: each route with its fields' plausible values and,
// for writes, a value that must be refused; a fast-check case (credentials, path, parameters in body
// and query, encodings) built into a request; and the judge of each answer.
import fc from "fast-check";
import type { Ctx, Key, User } from "./api";
import { type Answer, isObject, truncate, unique } from "./harness";
import {
  type BodySpec,
  bodyKinds,
  buildBody,
  type Entry,
  garbageAuth,
  paramEntries,
  queryText,
  RawJson,
  rawQuery,
} from "./hostile-input";

/** What the hostile cases aim at: two users with entries, wallets, keys, a used request_id. */
export type Fixtures = {
  a: User;
  b: User;
  wallet: string;
  wallet0: string;
  usedRequestId: string;
  txnIds: number[];
  sacrificialKeyIds: number[];
  readKey: Key;
  revokedKey: Key;
  adminId: number;
  adminEmail: string;
  adminUsername: string;
};

/** "refused": every case must be refused and write nothing; "mixed": sometimes valid. */
export type Mode = "refused" | "mixed";

export type Route = {
  id: string;
  method: "GET" | "POST" | "DELETE";
  path: string | ((param: string) => string);
  pathArb?: fc.Arbitrary<string>;
  envelope: "A" | "B";
  success: number;
  public?: boolean;
  allowKey?: boolean;
  fields: Record<string, fc.Arbitrary<unknown>>;
  /** Field values that make a write refused, put last in every parameter source. */
  refuse?: Record<string, unknown>;
  refusePath?: string;
  /** A valid body for the edge-value table. */
  base?: () => Record<string, unknown>;
  basePath?: string;
};

export type AuthSpec =
  | { kind: "admin" }
  | { kind: "garbage"; header: string }
  | { kind: "subscriber" }
  | { kind: "read-key" }
  | { kind: "revoked-key" };

export type CaseSpec = {
  auth: AuthSpec;
  scheme: string;
  pathParam: string | undefined;
  bodyEntries: Entry[];
  queryEntries: Entry[];
  rawQuery: string | undefined;
  body: BodySpec;
};

export type BuiltRequest = {
  url: string;
  method: string;
  headers: Record<string, string>;
  body: string | Uint8Array<ArrayBuffer> | undefined;
  requestText: string;
  path: string;
  size: number;
  oversize: boolean;
};

export const NO_SUCH_ID = "999999999";
const MAX_BODY = 64 * 1024;

export const JSON_UTF8 = "application/json; charset=UTF-8";
const HOSTILE_ADDRESS = "203.0.113.66";
const WP_ERRORS: Record<string, number> = { rest_no_route: 404, rest_invalid_json: 400 };
// Text a response may never carry unless the request itself did (a stack frame, an error class, SQL
// engine or D1 names, source paths).
const LEAK_MARKERS = [
  /(?:\n|\\n)\s+at\s/,
  /\bat\s+(?:async\s+)?[\w$.<>]+\s+\([^)]*:\d+:\d+\)/,
  /\b\w*Error:/,
  /SQLITE/i,
  /D1_/,
  /\.(?:ts|js|mjs):\d+/,
  /node_modules|cloudflare-internal|\.wrangler\//,
];

/** The routes, their fields' plausible values, and (for writes) a field value that must be refused. */
export function routeTable(f: Fixtures): Route[] {
  const userId = fc.oneof(
    fc.constantFrom(f.a.id, f.b.id, f.adminId, 2_000_000_000),
    fc.constantFrom(f.a.id, f.b.id).map(String),
  );
  const walletId = fc.constantFrom(
    f.wallet,
    f.wallet.toUpperCase(),
    ` ${f.wallet} `,
    f.wallet0,
    "nosuchwallet",
  );
  const amount = fc.oneof(
    fc
      .integer({ min: 1, max: 5_000 })
      .map((m) => `${Math.floor(m / 100)}.${String(m % 100).padStart(2, "0")}`),
    fc.integer({ min: 1, max: 50 }),
    fc.constantFrom("1.500", "0.01", "3", 2.5),
  );
  const requestId = fc.oneof(
    fc.uuid(),
    fc.string({ minLength: 1, maxLength: 24 }),
    fc.constantFrom(f.usedRequestId),
  );
  const note = fc.string({ maxLength: 40 });
  const text = fc.string({ minLength: 1, maxLength: 30 });
  const isoDate = fc.oneof(
    fc
      .date({ min: new Date("2000-01-01"), max: new Date("2100-01-01"), noInvalidDate: true })
      .map((d) => d.toISOString()),
    fc.constantFrom(
      "2024-01-01",
      "2024-01-01 10:00",
      "2024-01-01T10:00:00+01:00",
      "2024-13-45",
      "yesterday",
    ),
  );
  const txnId = fc.oneof(
    fc.constantFrom(...f.txnIds.map(String)),
    fc.constantFrom("0", "1", NO_SUCH_ID, "9".repeat(20)),
  );
  const pathSegment = fc.oneof(
    fc
      .string({ unit: "grapheme-ascii", minLength: 1, maxLength: 20 })
      // `.` and `..` (encoded or not) are dot segments: the URL parser resolves them before a
      // request leaves (`/batches/..` is sent as the namespace's index), so no client sends one.
      .filter((text) => text !== "." && text !== "..")
      .map(encodeURIComponent),
    fc.constantFrom(
      "-1",
      "1e3",
      "0x1",
      "%00",
      "1%20",
      "%E2%80%AE",
      "1;DROP TABLE users",
      "..%2f..%2fcredits",
      "1.5",
      "%F0%9F%98%80",
    ),
  );
  const dayText = fc.constantFrom(
    "2024-02-29",
    "2023-02-29",
    "9999-99-99",
    "0000-00-00",
    "2024-1-1",
  );
  // Ids that name nothing, however leniently read: no case may move, remove or send anything real.
  const noSuchId = fc.constantFrom(
    "0",
    NO_SUCH_ID,
    "9".repeat(20),
    `${NO_SUCH_ID}%20`,
    `+${NO_SUCH_ID}`,
    `${NO_SUCH_ID}.0`,
    `0x${NO_SUCH_ID}`,
    "-1",
    "%00",
    "..%2f..%2fcredits",
    "%F0%9F%98%80",
  );
  const linkToken = fc.oneof(
    fc.string({ unit: fc.constantFrom(..."0123456789abcdef"), maxLength: 80 }),
    fc.string({ maxLength: 80 }),
  );
  const money = (extra?: Record<string, fc.Arbitrary<unknown>>) => ({
    user_id: userId,
    wallet_id: walletId,
    request_id: requestId,
    amount,
    note,
    ...extra,
  });
  const moneyRoute = (path: "/credits" | "/debits", amount: string): Route => ({
    id: `POST ${path}`,
    method: "POST",
    path,
    envelope: "A",
    success: 200,
    fields: money(),
    refuse: { amount: "-1" },
    base: () => ({ user_id: f.a.id, wallet_id: f.wallet, amount, request_id: unique("edge-") }),
  });
  return [
    moneyRoute("/credits", "1.00"),
    moneyRoute("/debits", "0.01"),
    {
      id: "POST /transfers",
      method: "POST",
      path: "/transfers",
      envelope: "A",
      success: 200,
      fields: {
        from_user_id: userId,
        to_user_id: userId,
        wallet_id: walletId,
        request_id: requestId,
        amount,
        note,
      },
      refuse: { amount: "-1" },
      base: () => ({
        from_user_id: f.a.id,
        to_user_id: f.b.id,
        wallet_id: f.wallet,
        amount: "0.01",
        request_id: unique("edge-"),
      }),
    },
    {
      id: "POST /users",
      method: "POST",
      path: "/users",
      envelope: "B",
      success: 201,
      fields: {
        username: fc.oneof(
          fc.stringMatching(/^[a-z][a-z0-9_.@-]{3,20}$/),
          fc.constantFrom(f.a.username, f.a.username.toUpperCase()),
        ),
        user_email: fc.oneof(fc.emailAddress(), fc.constantFrom(f.a.email)),
        user_password: fc.string({ minLength: 6, maxLength: 30 }),
        first_name: text,
        last_name: text,
      },
      refuse: { user_password: "12345" },
      base: () => {
        const name = unique("edge").slice(0, 30);
        return {
          username: name,
          user_email: `${name}@example.test`,
          user_password: "edge-password",
          first_name: "Edge",
          last_name: "Case",
        };
      },
    },
    {
      id: "POST /users/login",
      method: "POST",
      path: "/users/login",
      envelope: "B",
      success: 200,
      public: true,
      fields: {
        user_email: fc.constantFrom(f.a.email, f.a.username, f.adminEmail, "nobody@example.test"),
        username: fc.constantFrom(f.a.username, "nobody"),
        user_password: fc.oneof(fc.constant(f.a.password), fc.string({ maxLength: 20 })),
        token_expiration: fc.constantFrom("persistent", "never", ""),
      },
      refuse: { user_password: "not-the-password" },
      base: () => ({
        user_email: f.a.email,
        user_password: f.a.password,
        token_expiration: "persistent",
      }),
    },
    {
      id: "POST /wallets",
      method: "POST",
      path: "/wallets",
      envelope: "A",
      success: 200,
      fields: {
        wallet_id: fc.oneof(
          fc.stringMatching(/^[a-z][a-z0-9_]{2,20}$/),
          fc.constantFrom(f.wallet, "formatted", "FORMATTED"),
        ),
        wallet_name: text,
        wallet_symbol: fc.constantFrom("$", "₦", "BTC", "€"),
        wallet_symbol_position: fc.constantFrom("left", "right", "middle"),
        wallet_decimal: fc.oneof(
          fc.integer({ min: 0, max: 9 }),
          fc.constantFrom("2", "8", "-1", "2.0"),
        ),
        wallet_type: fc.constantFrom("fiat", "crypto", "Points", "a b"),
        wallet_note: note,
      },
      refuse: { wallet_decimal: "9" },
      base: () => ({
        wallet_id: unique("e").toLowerCase().slice(0, 30),
        wallet_name: "Edge",
        wallet_symbol: "$",
        wallet_symbol_position: "left",
        wallet_decimal: 2,
        wallet_type: "fiat",
        wallet_note: "",
      }),
    },
    {
      id: "POST /api-keys",
      method: "POST",
      path: "/api-keys",
      envelope: "A",
      success: 201,
      allowKey: true,
      fields: {
        name: text,
        scope: fc.constantFrom("read", "write", "read-write", "admin", "READ"),
        username: fc.constantFrom(f.a.username, f.adminUsername, "nobody-here"),
      },
      refuse: { scope: "superuser" },
      base: () => ({ name: unique("edge"), scope: "read", username: f.a.username }),
    },
    {
      id: "POST /transactions/{id}/reverse",
      method: "POST",
      path: (id: string) => `/transactions/${id}/reverse`,
      pathArb: fc.oneof({ weight: 3, arbitrary: txnId }, { weight: 1, arbitrary: pathSegment }),
      envelope: "A",
      success: 200,
      fields: { request_id: requestId, note },
      refuse: { request_id: "x".repeat(192) },
      refusePath: NO_SUCH_ID,
      base: () => ({ request_id: unique("edge-"), note: "edge" }),
      basePath: String(f.txnIds[1]),
    },
    {
      id: "POST /holds",
      method: "POST",
      path: "/holds",
      envelope: "A",
      success: 200,
      fields: money({
        expires_in: fc.oneof(
          fc.integer({ min: -5, max: 2_600_000 }),
          fc.constantFrom("60", "0", "1.5", "soon"),
        ),
      }),
      // No edge table (`base`): its fields are the credit's (which has one) and an integer like
      // per_page, and the table must finish within its share of the section's time.
      refuse: { amount: "-1" },
    },
    // Holds by an id no hold has (or none at all): a capture or void here never succeeds, so the
    // fixtures' money is not moved by these cases.
    ...(["capture", "void"] as const).map(
      (action): Route => ({
        id: `POST /holds/{id}/${action}`,
        method: "POST",
        path: (id: string) => `/holds/${id}/${action}`,
        pathArb: fc.oneof(fc.constantFrom("0", NO_SUCH_ID, "9".repeat(20)), pathSegment),
        envelope: "A",
        success: 200,
        fields: action === "capture" ? { amount, note } : {},
        refuse: action === "capture" ? { amount: "-1" } : {},
        refusePath: NO_SUCH_ID,
      }),
    ),
    {
      id: "GET /holds",
      method: "GET",
      path: "/holds",
      envelope: "A",
      success: 200,
      fields: {
        user_id: userId,
        wallet_id: walletId,
        status: fc.constantFrom("held", "CAPTURED", "voided", "expired", "pending"),
        page: fc.integer({ min: 0, max: 5 }),
        per_page: fc.integer({ min: 0, max: 101 }),
      },
    },
    {
      id: "GET /holds/{id}",
      method: "GET",
      path: (id: string) => `/holds/${id}`,
      pathArb: fc.oneof(fc.constantFrom("1", "2", NO_SUCH_ID, "9".repeat(20)), pathSegment),
      envelope: "A",
      success: 200,
      fields: {},
    },
    {
      id: "GET /balances",
      method: "GET",
      path: "/balances",
      envelope: "A",
      success: 200,
      fields: { user_id: userId },
    },
    {
      id: "GET /user-wallet-balance",
      method: "GET",
      path: "/user-wallet-balance",
      envelope: "A",
      success: 200,
      fields: {
        user_id: userId,
        wallet_id: fc.constantFrom(
          f.wallet,
          `${f.wallet},${f.wallet0}`,
          ` ${f.wallet.toUpperCase()} , ${f.wallet0} `,
          Array(60)
            .fill(f.wallet0)
            .map((w, i) => `${w}${i}`)
            .join(","),
          "nope",
          ",",
        ),
        formatted: fc.constantFrom("yes", "YES", "no", ""),
      },
    },
    {
      id: "GET /transactions",
      method: "GET",
      path: "/transactions",
      envelope: "A",
      success: 200,
      fields: {
        user_id: userId,
        security_code: fc.constantFrom("0", 0, "-5", "123456789012345678", "1.5"),
        page: fc.integer({ min: 0, max: 5 }),
        pageno: fc.integer({ min: 1, max: 3 }),
        per_page: fc.integer({ min: 0, max: 101 }),
        wallet_id: walletId,
        txn_type: fc.constantFrom("CREDIT", "debit", "REFUND"),
        after: isoDate,
        before: isoDate,
        order: fc.constantFrom("asc", "DESC", "sideways"),
      },
    },
    {
      id: "GET /transactions/{id}",
      method: "GET",
      path: (id: string) => `/transactions/${id}`,
      pathArb: fc.oneof({ weight: 3, arbitrary: txnId }, { weight: 1, arbitrary: pathSegment }),
      envelope: "A",
      success: 200,
      fields: {},
    },
    {
      id: "GET /wallets",
      method: "GET",
      path: "/wallets",
      envelope: "A",
      success: 200,
      fields: {},
    },
    {
      id: "GET /wallets/{wallet_id}",
      method: "GET",
      path: (id: string) => `/wallets/${id}`,
      pathArb: fc.oneof(
        fc.constantFrom(f.wallet, f.wallet.toUpperCase(), "nosuch", "x".repeat(40)),
        pathSegment,
      ),
      envelope: "A",
      success: 200,
      fields: {},
    },
    {
      id: "GET /api-keys",
      method: "GET",
      path: "/api-keys",
      envelope: "A",
      success: 200,
      fields: {},
    },
    {
      id: "GET /statements",
      method: "GET",
      path: "/statements",
      envelope: "A",
      success: 200,
      // CSV answers are text/csv, which the judge does not read: the hostile cases ask for JSON.
      fields: {
        user_id: userId,
        wallet_id: walletId,
        from: fc.oneof(isoDate, dayText),
        to: fc.oneof(isoDate, dayText),
        page: fc.integer({ min: 0, max: 5 }),
        pageno: fc.integer({ min: 1, max: 3 }),
        per_page: fc.integer({ min: 0, max: 101 }),
        format: fc.constantFrom("json", "JSON", "pdf", ""),
      },
    },
    {
      id: "GET /wallets/{wallet_id}/summary",
      method: "GET",
      path: (id: string) => `/wallets/${id}/summary`,
      pathArb: fc.oneof(
        fc.constantFrom(f.wallet, f.wallet0, f.wallet.toUpperCase(), "nosuch", "x".repeat(40)),
        pathSegment,
      ),
      envelope: "A",
      success: 200,
      fields: { user_id: userId },
    },
    {
      id: "GET /events",
      method: "GET",
      path: "/events",
      envelope: "A",
      success: 200,
      fields: {
        after: fc.oneof(
          fc.integer({ min: 0, max: 1_000_000 }),
          fc.constantFrom("-1", "1.5", "x", "9".repeat(20)),
        ),
        limit: fc.integer({ min: -1, max: 1_001 }),
        types: fc.constantFrom(
          "transaction.created",
          "hold.captured,batch.completed",
          "transaction.created,,",
          "nope",
          "",
        ),
      },
    },
    {
      id: "POST /batches",
      method: "POST",
      path: "/batches",
      envelope: "A",
      success: 200,
      fields: {
        request_id: requestId,
        balanced: fc.constantFrom(true, false, "true", "0", "yes", 2),
        operations: fc.array(
          fc.oneof(
            fc.record(
              {
                type: fc.constantFrom("credit", "debit", "CREDIT", "refund"),
                user_id: userId,
                wallet_id: walletId,
                amount,
                note,
              },
              { requiredKeys: ["type", "amount"] },
            ),
            fc.record(
              {
                type: fc.constant("transfer"),
                from_user_id: userId,
                to_user_id: userId,
                wallet_id: walletId,
                amount,
              },
              { requiredKeys: ["type", "amount"] },
            ),
          ),
          { maxLength: 4 },
        ),
      },
      refuse: { operations: [] },
      base: () => ({
        request_id: unique("edge-"),
        operations: [{ type: "credit", user_id: f.a.id, wallet_id: f.wallet, amount: "0.01" }],
      }),
    },
    {
      id: "GET /batches",
      method: "GET",
      path: "/batches",
      envelope: "A",
      success: 200,
      fields: {
        user_id: userId,
        page: fc.integer({ min: 0, max: 5 }),
        per_page: fc.integer({ min: 0, max: 101 }),
      },
    },
    {
      id: "GET /batches/{id}",
      method: "GET",
      path: (id: string) => `/batches/${id}`,
      pathArb: fc.oneof(fc.constantFrom("1", "2", NO_SUCH_ID, "9".repeat(20)), pathSegment),
      envelope: "A",
      success: 200,
      fields: {},
    },
    // A batch no batch has: its reversal never succeeds, so no case moves the fixtures' money.
    {
      id: "POST /batches/{id}/reverse",
      method: "POST",
      path: (id: string) => `/batches/${id}/reverse`,
      pathArb: noSuchId,
      envelope: "A",
      success: 200,
      fields: { note },
      refuse: {},
      refusePath: NO_SUCH_ID,
    },
    {
      id: "GET /webhooks",
      method: "GET",
      path: "/webhooks",
      envelope: "A",
      success: 200,
      fields: {},
    },
    // Endpoints no endpoint has: the webhook sections' endpoints are neither removed nor sent to.
    {
      id: "GET /webhooks/{id}/deliveries",
      method: "GET",
      path: (id: string) => `/webhooks/${id}/deliveries`,
      pathArb: noSuchId,
      envelope: "A",
      success: 200,
      fields: { limit: fc.integer({ min: -1, max: 1_001 }) },
    },
    {
      id: "DELETE /webhooks/{id}",
      method: "DELETE",
      path: (id: string) => `/webhooks/${id}`,
      pathArb: noSuchId,
      envelope: "A",
      success: 200,
      fields: {},
      refuse: {},
      refusePath: NO_SUCH_ID,
    },
    {
      id: "POST /users/{user_id}/unlock",
      method: "POST",
      path: (id: string) => `/users/${id}/unlock`,
      pathArb: fc.oneof(fc.constantFrom(String(f.b.id), "0", NO_SUCH_ID), pathSegment),
      envelope: "B",
      success: 200,
      fields: {},
      refuse: {},
      refusePath: NO_SUCH_ID,
    },
    // Never the administrator's or the subscriber's sessions: the cases sign with them.
    {
      id: "POST /users/{user_id}/sessions/revoke",
      method: "POST",
      path: (id: string) => `/users/${id}/sessions/revoke`,
      pathArb: fc.oneof(fc.constant(String(f.b.id)), noSuchId),
      envelope: "B",
      success: 200,
      fields: {},
      refuse: {},
      refusePath: NO_SUCH_ID,
    },
    {
      id: "GET /users/verify-email",
      method: "GET",
      path: "/users/verify-email",
      envelope: "B",
      success: 200,
      public: true,
      fields: { token: linkToken },
    },
    {
      id: "POST /users/password-reset/confirm",
      method: "POST",
      path: "/users/password-reset/confirm",
      envelope: "B",
      success: 200,
      public: true,
      fields: { token: linkToken, user_password: fc.string({ maxLength: 30 }) },
      refuse: { user_password: "12345" },
      base: () => ({ token: "0".repeat(64), user_password: "edge-password" }),
    },
    {
      id: "DELETE /api-keys/{id}",
      method: "DELETE",
      path: (id: string) => `/api-keys/${id}`,
      pathArb: fc.oneof(
        { weight: 2, arbitrary: fc.constantFrom(...f.sacrificialKeyIds.map(String)) },
        { weight: 1, arbitrary: fc.constantFrom("0", NO_SUCH_ID, "9".repeat(20)) },
        { weight: 1, arbitrary: pathSegment },
      ),
      envelope: "A",
      success: 200,
      fields: {},
      refuse: {},
      refusePath: NO_SUCH_ID,
    },
  ];
}

/** A request spec for a route: credentials, path, parameters in body and query, encodings. */
export function caseArb(route: Route, mode: Mode): fc.Arbitrary<CaseSpec> {
  const isGet = route.method === "GET";
  const maxLong = isGet ? 2_000 : 20_000;
  const authArb =
    mode === "refused"
      ? fc.oneof(
          { weight: 5, arbitrary: fc.constant<AuthSpec>({ kind: "admin" }) },
          {
            weight: 3,
            arbitrary: garbageAuth.map((header): AuthSpec => ({ kind: "garbage", header })),
          },
          {
            weight: 1,
            arbitrary: fc.constantFrom<AuthSpec>(
              { kind: "subscriber" },
              { kind: "read-key" },
              { kind: "revoked-key" },
            ),
          },
        )
      : fc.oneof(
          { weight: 9, arbitrary: fc.constant<AuthSpec>({ kind: "admin" }) },
          {
            weight: 1,
            arbitrary: garbageAuth.map((header): AuthSpec => ({ kind: "garbage", header })),
          },
        );
  return fc.record({
    auth: authArb,
    scheme: fc.constantFrom("Bearer ", "bearer ", "BEARER  "),
    pathParam: route.pathArb ?? fc.constant(undefined),
    bodyEntries: isGet ? fc.constant<Entry[]>([]) : paramEntries(route.fields, maxLong),
    // GET reads the query; writes get a query too, sometimes conflicting with the body.
    queryEntries: isGet
      ? paramEntries(route.fields, 2_000)
      : fc.option(paramEntries(route.fields, 2_000), { nil: [] as Entry[], freq: 2 }),
    rawQuery,
    body: bodyKinds[route.method === "GET" ? "get" : route.method === "POST" ? "post" : "delete"],
  });
}

/** The HTTP request a case spec makes (a forced refusal goes last in every parameter source). */
export async function buildRequest(
  ctx: Ctx,
  f: Fixtures,
  route: Route,
  spec: CaseSpec,
  mode: Mode,
): Promise<BuiltRequest> {
  const forced: Entry[] = mode === "refused" ? Object.entries(route.refuse ?? {}) : [];
  const pathParam =
    mode === "refused" && route.refusePath && spec.auth.kind === "admin"
      ? route.refusePath
      : spec.pathParam;
  let path: string;
  if (typeof route.path === "string") path = route.path;
  else if (pathParam === undefined) throw new Error(`${route.id}: no path parameter`);
  else path = route.path(pathParam);
  const query = queryText([...spec.queryEntries, ...forced], spec.rawQuery);
  const url = `${ctx.api}${path}${query ? `?${query}` : ""}`;
  // Sign-ins come from an address of the hostile cases' own, as an attacker's would: when its
  // failures lock that address, the other sections still sign in from theirs.
  const headers: Record<string, string> =
    route.path === "/users/login" ? { "CF-Connecting-IP": HOSTILE_ADDRESS } : {};
  const auth = {
    admin: `${spec.scheme}${ctx.admin.token}`,
    garbage: spec.auth.kind === "garbage" ? spec.auth.header : undefined,
    subscriber: f.a.bearer,
    "read-key": f.readKey.header,
    "revoked-key": f.revokedKey.header,
  }[spec.auth.kind];
  if (auth !== undefined) headers.Authorization = auth;
  const built = buildBody(spec.body, [...spec.bodyEntries, ...forced]);
  if (built.formData) {
    // Serialized here (fetch would do the same) so the size the server sees is known exactly.
    const encoded = new Response(built.formData);
    built.bytes = new Uint8Array(await encoded.arrayBuffer());
    built.contentType = encoded.headers.get("content-type") ?? undefined;
  }
  const body = built.text ?? built.bytes;
  const size =
    built.text !== undefined ? Buffer.byteLength(built.text) : (built.bytes?.length ?? 0);
  if (built.contentType) headers["Content-Type"] = built.contentType;
  const requestText = `${url}\n${auth ?? ""}\n${built.text ?? (built.bytes ? new TextDecoder().decode(built.bytes) : JSON.stringify(spec.bodyEntries))}`;
  return {
    url,
    method: route.method,
    headers,
    body,
    requestText,
    path,
    size,
    oversize: size > MAX_BODY,
  };
}

/** Everything wrong with one answer; empty when it is acceptable. */
export function judge(route: Route, spec: CaseSpec, req: BuiltRequest, res: Answer, mode: Mode) {
  const problems: string[] = [];
  if (res.status >= 500) problems.push(`a ${res.status}`);
  else if (res.status < 200 || (res.status >= 300 && res.status < 400))
    problems.push(`status ${res.status}`);
  const type = res.headers.get("content-type");
  if (type !== JSON_UTF8) problems.push(`Content-Type ${type}`);
  for (const marker of LEAK_MARKERS)
    if (marker.test(res.text) && !marker.test(req.requestText))
      problems.push(`response matches ${marker}`);
  const b = res.json;
  if (!isObject(b)) return [...problems, "body is not a JSON object"];
  const keys = Object.keys(b).sort().join(",");

  const oversize = req.oversize;
  const authKind = spec.auth.kind;
  // A fuzzed path segment may leave the route's pattern (e.g. a non-numeric id): WordPress's 404
  // rest_no_route comes before credentials then. On a fixed path it would be a bug.
  const noRoute = b.code === "rest_no_route";
  if (noRoute && !route.pathArb) problems.push("rest_no_route on the route's own path");
  const needsAuth = !route.public && !noRoute;
  // What must happen whatever else the case holds, in the documented order of checks.
  if (oversize) {
    if (res.status !== 413 || b.message !== "Payload too large")
      problems.push(
        `an oversized body (${req.size} bytes) answered ${res.status} ${b.message ?? b.code}, not 413 Payload too large`,
      );
  } else if (needsAuth && authKind === "garbage") {
    if (res.status !== 401) problems.push(`garbage credentials answered ${res.status}, not 401`);
  } else if (
    needsAuth &&
    (authKind === "read-key" || authKind === "subscriber") &&
    route.method !== "GET"
  ) {
    if (res.status !== 403) problems.push(`${authKind} on a write answered ${res.status}, not 403`);
  } else if (needsAuth && authKind === "revoked-key") {
    if (res.status !== 401) problems.push(`a revoked key answered ${res.status}, not 401`);
  } else if (
    spec.body.kind === "json-invalid" &&
    route.method === "POST" &&
    (authKind === "admin" || route.public) &&
    !noRoute
  ) {
    if (b.code !== "rest_invalid_json")
      problems.push(
        `a broken JSON body answered ${res.status} ${b.message}, not rest_invalid_json`,
      );
  }
  if (mode === "refused" && res.status < 300)
    problems.push(`a case that must be refused answered ${res.status}`);

  if ("code" in b) {
    if (
      keys !== "code,data,message" ||
      WP_ERRORS[String(b.code)] !== res.status ||
      JSON.stringify(b.data) !== JSON.stringify({ status: res.status }) ||
      typeof b.message !== "string"
    ) {
      problems.push(`not WordPress's error shape: ${truncate(res.text, 200)}`);
    }
    return problems;
  }
  if (b.status_code !== res.status)
    problems.push(`status_code ${b.status_code} but HTTP ${res.status}`);
  if (typeof b.message !== "string" || b.message === "") problems.push("no message");
  if (b.message === "Internal error") problems.push("Internal error");
  // The size limit runs before the route sets its envelope family, and unexpected faults are
  // answered by the app-wide handler: 413 and 500 are envelope A on every route.
  const family = res.status === 413 || res.status === 500 ? "A" : route.envelope;
  if (res.status < 300) {
    if (res.status !== route.success)
      problems.push(`success ${res.status}, the route's success is ${route.success}`);
    if (b.status !== true) problems.push(`success with status ${JSON.stringify(b.status)}`);
    if (family === "A" && keys !== "data,message,status,status_code")
      problems.push(`envelope A success keys ${keys}`);
    if (
      family === "B" &&
      (keys !== "data,error,message,status,status_code" || JSON.stringify(b.error) !== "[]")
    )
      problems.push(`envelope B success keys ${keys}, error ${JSON.stringify(b.error)}`);
  } else {
    if (family === "A" && (keys !== "error,message,status,status_code" || b.status !== false))
      problems.push(`not envelope A failure: keys ${keys}, status ${JSON.stringify(b.status)}`);
    if (
      family === "B" &&
      (keys !== "data,error,message,status,status_code" ||
        b.status !== "failed" ||
        JSON.stringify(b.data) !== "[]")
    )
      problems.push(`not envelope B failure: keys ${keys}, status ${JSON.stringify(b.status)}`);
    if (b.error === undefined || b.error === null) problems.push("failure without error");
  }
  return problems;
}

/** A compact, printable form of a failing case (long strings shortened). */
export function describe(spec: CaseSpec, req: BuiltRequest) {
  const short = (v: unknown) =>
    typeof v === "string"
      ? truncate(v, 80)
      : v instanceof RawJson
        ? `<raw ${truncate(v.text, 60)}>`
        : truncate(JSON.stringify(v) ?? String(v), 80);
  return JSON.stringify({
    url: truncate(req.url, 300),
    auth: spec.auth.kind === "garbage" ? truncate(spec.auth.header, 80) : spec.auth.kind,
    body: spec.body,
    bodyEntries: spec.bodyEntries.map(([k, v]) => [k, short(v)]),
    queryEntries: spec.queryEntries.map(([k, v]) => [k, short(v)]),
  });
}
