// Overload (docs/security.md#rate-limits): the money routes' per-caller limit, answered 429 with
// Retry-After in the route's envelope before anything is read or written; and a D1 that cannot take
// a request (overloaded, reset, cut off) answered 503 with Retry-After, a retry with the same
// request_id moving the money once whether or not the failed batch had committed.
import { env } from "cloudflare:workers";
import { describe, expect, it, vi } from "vitest";
import { COMPAT_ROUTES } from "../src/compat";
import { ROUTES } from "../src/routes";
import { consoleOf, form, hidden, noticeLeft } from "./console-helpers";
import { wrappedD1 } from "./d1-counter";
import {
  balanceOf,
  CLEAN,
  call,
  ledgerViolations,
  makeAdmin,
  makeUser,
  makeWallet,
  tableCounts,
  unique,
} from "./helpers";

const COMPAT = { COMPAT_NAMESPACE: "rimplenet" };
/** Miniflare's rate limiter with a limit of 3 a minute (vitest.config.ts), in the binding's place. */
const STRICT = { MONEY_RATE_LIMIT: env.TEST_RATE_LIMIT } as unknown as Record<string, string>;
/** A limiter that refuses everything: which routes ask it. */
const REFUSING = {
  MONEY_RATE_LIMIT: { limit: async () => ({ success: false }) },
} as unknown as Record<string, string>;

const MONEY_ROUTES = [
  "POST /credits",
  "POST /debits",
  "POST /transfers",
  "POST /transactions/{id}/reverse",
  "POST /holds",
  "POST /holds/{id}/capture",
  "POST /holds/{id}/void",
  "POST /batches",
  "POST /batches/{id}/reverse",
];

describe("the money routes' rate limit", () => {
  it("is declared by exactly the routes that move money, in both namespaces", () => {
    const declared = (routes: readonly { method: string; path: string; movesMoney?: true }[]) =>
      routes.filter((r) => r.movesMoney).map((r) => `${r.method} ${r.path}`);
    expect(declared(ROUTES).sort()).toEqual([...MONEY_ROUTES].sort());
    expect(declared(COMPAT_ROUTES).sort()).toEqual(
      ["POST /credits", "POST /debits", "POST /transfers"].sort(),
    );
  });

  it.each(MONEY_ROUTES)(
    "%s past the caller's share answers 429 with Retry-After before reading its input",
    async (route) => {
      const admin = await makeAdmin();
      const [method, path] = route.split(" ") as [string, string];
      const res = await call(method, path.replace("{id}", "1"), {
        auth: admin.bearer,
        body: {},
        vars: REFUSING,
      });
      expect(res.status, res.text).toBe(429);
      expect(res.body).toMatchObject({
        status_code: 429,
        status: false,
        message: "Too many requests",
      });
      expect(res.body.error.rate).toMatch(
        /^Too many money requests from this caller: try again in \d+ seconds$/,
      );
      const retryAfter = Number(res.headers.get("retry-after"));
      expect(retryAfter).toBeGreaterThan(0);
      expect(retryAfter).toBeLessThanOrEqual(60);
      expect(res.headers.get("x-d1-bookmark")).toBeNull();
    },
  );

  it.each(["credits", "debits", "transfers"])(
    "the plugin's POST %s past the caller's share answers 429 in envelope A",
    async (route) => {
      const admin = await makeAdmin();
      const res = await call("POST", `/wp-json/rimplenet/v1/${route}`, {
        auth: admin.bearer,
        body: {},
        vars: { ...COMPAT, ...REFUSING },
      });
      expect(res.status, res.text).toBe(429);
      expect(res.body).toMatchObject({
        status_code: 429,
        status: false,
        message: "Too many requests",
      });
      expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
    },
  );

  it("reads, users and keys are not counted; a caller without credentials is refused 401 first", async () => {
    const admin = await makeAdmin();
    const wallet = await makeWallet(admin);
    const read = await call("GET", "/user-wallet-balance", {
      auth: admin.bearer,
      query: { user_id: admin.id, wallet_id: wallet },
      vars: REFUSING,
    });
    expect(read.status).toBe(200);
    const anonymous = await call("POST", "/credits", { body: {}, vars: REFUSING });
    expect(anonymous.status).toBe(401);
  });

  it("counts per user: the 4th credit of a minute is refused and writes nothing; another caller goes on", async () => {
    const admin = await makeAdmin();
    const other = await makeAdmin();
    const wallet = await makeWallet(admin);
    const user = await makeUser();
    const creditAs = (who: typeof admin, request_id: string) =>
      call("POST", "/credits", {
        auth: who.bearer,
        body: { user_id: user.id, wallet_id: wallet, amount: "1.00", request_id },
        vars: STRICT,
      });
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await creditAs(admin, unique("ok"))).status);
    const refusedId = unique("refused");
    const refused = await creditAs(admin, refusedId);
    expect([...statuses, refused.status]).toEqual([200, 200, 200, 429]);
    expect((await creditAs(other, unique("other"))).status).toBe(200);
    expect(await balanceOf(admin, user.id, wallet)).toBe(4);
    // The refused request_id was never used: sent again without the limit, it is a new credit.
    const again = await call("POST", "/credits", {
      auth: admin.bearer,
      body: { user_id: user.id, wallet_id: wallet, amount: "1.00", request_id: refusedId },
    });
    expect(again.status).toBe(200);
  });
});

/** env.DB whose batches fail as an overloaded D1 does, `times` times: before reaching it, or after it committed. */
function overloadedD1(when: "before" | "after", times = 1) {
  let failures = 0;
  const d1 = wrappedD1(async (_, send) => {
    if (failures >= times) return send();
    failures++;
    if (when === "after") await send();
    throw new Error("D1_ERROR: D1 DB is overloaded. Too many requests queued.");
  });
  return { d1, failures: () => failures };
}

describe("the console's money forms", () => {
  const { request, signIn } = consoleOf();

  it("count against the operator's share as the API's money routes do, and write nothing past it", async () => {
    const admin = await makeAdmin();
    const user = await makeUser();
    const wallet = await makeWallet(admin);
    const funded = await call("POST", "/credits", {
      auth: admin.bearer,
      body: { user_id: user.id, wallet_id: wallet, amount: "5", request_id: unique("r") },
    });
    const hold = await call("POST", "/holds", {
      auth: admin.bearer,
      body: { user_id: user.id, wallet_id: wallet, amount: "1", request_id: unique("h") },
    });
    expect([funded.status, hold.status]).toEqual([200, 200]);
    const cookie = await signIn(admin);
    const csrf = hidden((await request(`/users/${user.id}`, { cookie })).html, "_csrf");
    const other = await makeUser();
    const forms: [string, Record<string, string | number>][] = [
      [`/users/${user.id}/credit`, { wallet_id: wallet, amount: "1", request_id: unique("c") }],
      [`/users/${user.id}/debit`, { wallet_id: wallet, amount: "1", request_id: unique("c") }],
      [
        `/users/${user.id}/transfer`,
        { wallet_id: wallet, amount: "1", request_id: unique("c"), to_user_id: other.id },
      ],
      [`/users/${user.id}/reverse/${funded.body.data.transaction_id}`, { request_id: unique("c") }],
      [`/users/${user.id}/holds/${hold.body.data.hold_id}/capture`, {}],
      [`/users/${user.id}/holds/${hold.body.data.hold_id}/void`, {}],
    ];
    const before = await tableCounts();
    for (const [path, fields] of forms) {
      const res = await request(path, {
        method: "POST",
        cookie,
        vars: REFUSING,
        // Each money form as its confirmation's Confirm sends it.
        body: form({ _csrf: csrf, note: "", step: "confirm", ...fields }),
      });
      expect(res.status, `${path}: ${res.html}`).toBe(303);
      expect(noticeLeft(res), path).toMatch(
        /^error:.*Too many requests: Too many money requests from this caller: try again in \d+ seconds/,
      );
    }
    expect(await tableCounts()).toEqual(before);
    // Under the share, the same form moves the money.
    const credited = await request(`/users/${user.id}/credit`, {
      method: "POST",
      cookie,
      body: form({
        _csrf: csrf,
        note: "",
        wallet_id: wallet,
        amount: "1",
        request_id: unique("c"),
        step: "confirm",
      }),
    });
    expect(noticeLeft(credited)).toMatch(/^ok:Transaction Completed/);
  });
});

describe("a D1 that cannot take the request", () => {
  it.each(["before", "after"] as const)(
    "a credit whose batches fail overloaded (%s committing) answers 503 with Retry-After; the retry moves the money once",
    async (when) => {
      const admin = await makeAdmin();
      const wallet = await makeWallet(admin);
      const user = await makeUser();
      const body = { user_id: user.id, wallet_id: wallet, amount: "2.50", request_id: unique("o") };
      const { d1, failures } = overloadedD1(when, 10);
      const errors = vi.spyOn(console, "error").mockImplementation(() => {});
      const first = await call("POST", "/credits", { auth: admin.bearer, body, d1 });
      const logged = errors.mock.calls.map(([line]) => JSON.parse(String(line)));
      errors.mockRestore();
      expect(failures()).toBeGreaterThan(0);
      // The operator's line, under the answer's request id.
      expect(logged).toContainEqual({
        request_id: first.headers.get("x-request-id"),
        d1_unavailable: expect.stringContaining("overloaded"),
      });
      expect(first.status, first.text).toBe(503);
      expect(first.body).toStrictEqual({
        status_code: 503,
        status: false,
        message: "Service temporarily unavailable",
        error: { retry: "The database is busy: retry in 2 seconds with the same request_id" },
      });
      expect(first.headers.get("retry-after")).toBe("2");
      expect(first.text).not.toMatch(/D1_ERROR|overloaded|stack/);

      const retry = await call("POST", "/credits", { auth: admin.bearer, body });
      const again = await call("POST", "/credits", { auth: admin.bearer, body });
      expect([retry.status, again.status]).toEqual(when === "before" ? [200, 409] : [409, 409]);
      expect(await balanceOf(admin, user.id, wallet)).toBe(2.5);
      expect(await ledgerViolations()).toEqual(CLEAN);
    },
  );

  it("the plugin's credit answers 503 in envelope A; a user creation's in envelope B", async () => {
    const admin = await makeAdmin();
    const wallet = await makeWallet(admin);
    const user = await makeUser();
    const plugin = await call("POST", "/wp-json/rimplenet/v1/credits", {
      auth: admin.bearer,
      body: { user_id: user.id, wallet_id: wallet, amount: 1, request_id: unique("p") },
      vars: COMPAT,
      d1: overloadedD1("before", 10).d1,
    });
    expect(plugin.status, plugin.text).toBe(503);
    expect(plugin.body).toMatchObject({ status_code: 503, status: false });
    const name = unique("u");
    const created = await call("POST", "/users", {
      auth: admin.bearer,
      body: { username: name, user_email: `${name}@example.test`, user_password: "secret-123" },
      d1: overloadedD1("before", 10).d1,
    });
    expect(created.status, created.text).toBe(503);
    expect(created.body).toMatchObject({ status_code: 503, status: "failed", data: [] });
  });
});
