// A console click is one request: the screen calls the service's verbs itself, on the request's own
// D1 session, so the request log shows exactly one line for it (no inner API request behind it).
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { consoleOf, form, hidden } from "./console-helpers";
import { wrappedD1 } from "./d1-counter";
import {
  call,
  credit,
  makeAdmin,
  makeUser,
  makeWallet,
  PASSWORD,
  subscribeWebhook,
  type TestUser,
  testApp,
} from "./helpers";

const { request } = consoleOf(testApp());

type LogLine = {
  method: string;
  route: string | null;
  status: number;
  user_id: number | null;
  d1_statements: number;
};

/** The request log lines written while `fn` runs, parsed (other console.log output is skipped). */
async function logged(fn: () => Promise<unknown>): Promise<LogLine[]> {
  const lines: string[] = [];
  const spy = vi.spyOn(console, "log").mockImplementation((line: unknown) => {
    if (typeof line === "string" && line.startsWith('{"request_id"')) lines.push(line);
  });
  try {
    await fn();
  } finally {
    spy.mockRestore();
  }
  return lines.map((l) => JSON.parse(l));
}

let admin: TestUser;
let user: TestUser;
let wallet: string;
let cookie: string;
let csrf: string;

beforeAll(async () => {
  admin = await makeAdmin();
  user = await makeUser();
  wallet = await makeWallet(admin);
  await credit(admin, { user_id: user.id, wallet_id: wallet, amount: 10 });
  const signedIn = await request("/sign-in", {
    method: "POST",
    body: form({ email: admin.email, password: PASSWORD }),
  });
  expect(signedIn.status, signedIn.html).toBe(303);
  cookie = signedIn.headers.get("set-cookie")!.split(";")[0]!;
  csrf = hidden((await request(`/users/${user.id}`, { cookie })).html, "_csrf");
});

afterEach(() => vi.restoreAllMocks());

describe("one console click, one request", () => {
  it("signing in logs one line, the console's own", async () => {
    const lines = await logged(() =>
      request("/sign-in", {
        method: "POST",
        body: form({ email: admin.email, password: PASSWORD }),
      }),
    );
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ method: "POST", status: 303 });
  });

  it("a user's page logs one line, however many verbs it reads through", async () => {
    const lines = await logged(() => request(`/users/${user.id}`, { cookie }));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ method: "GET", status: 200, user_id: admin.id });
  });

  it("a user's page reads as many D1 statements with 30 more wallets on the site", async () => {
    // The page lists the site's wallets in one statement and the user's balances with what holds
    // reserve in another (availableBalances), however many wallets there are.
    const holder = await makeUser();
    await credit(admin, { user_id: holder.id, wallet_id: wallet, amount: 1 });
    const statements = async () =>
      (await logged(() => request(`/users/${holder.id}`, { cookie })))[0]!.d1_statements;
    await statements();
    const before = await statements();
    for (let i = 0; i < 30; i++) {
      const more = await makeWallet(admin);
      if (i % 10 === 0) await credit(admin, { user_id: holder.id, wallet_id: more, amount: 2 });
    }
    await statements(); // the isolate learns the new wallets (db/isolate-cache.ts)
    expect(await statements()).toBe(before);
  });

  it("the webhooks page reads as many D1 statements with 12 more endpoints", async () => {
    // Each endpoint's newest deliveries: read per endpoint, the page would pass the 1,000 queries
    // a Worker invocation may make at 500 endpoints.
    const statements = async () =>
      (await logged(() => request("/webhooks", { cookie })))[0]!.d1_statements;
    await subscribeWebhook(admin);
    const before = await statements();
    for (let i = 0; i < 12; i++) await subscribeWebhook(admin);
    expect(await statements()).toBe(before);
  });

  it("a batch's page reads as many D1 statements with 12 legs' users as with 2", async () => {
    // Each leg names its user (username and id); read per leg, the page's statements grew with its
    // users. Each page is read on a binding of its own, so no username is known yet (db/isolate-cache.ts).
    const statements = async (legs: number) => {
      const operations = [];
      for (let i = 0; i < legs; i++) {
        const leg = await makeUser();
        operations.push({ type: "credit", user_id: leg.id, wallet_id: wallet, amount: "1" });
      }
      const posted = await call("POST", "/batches", {
        auth: admin.bearer,
        body: { request_id: `b-${crypto.randomUUID()}`, operations },
      });
      expect(posted.status, posted.text).toBe(200);
      const vars = { DB: wrappedD1((_, send) => send()) };
      const path = `/batches/${posted.body.data.batch_id}`;
      const lines = await logged(() => request(path, { cookie, vars }));
      expect(lines[0]).toMatchObject({ method: "GET", status: 200 });
      return lines[0]!.d1_statements;
    };
    expect(await statements(12)).toBe(await statements(2));
  });

  it("each form logs one line for the operator, whether the verb moves money or refuses", async () => {
    const posts: [string, Record<string, string | number>][] = [
      [
        `/users/${user.id}/credit`,
        { wallet_id: wallet, amount: "1.00", request_id: `c-${crypto.randomUUID()}`, note: "" },
      ],
      [
        `/users/${user.id}/debit`,
        { wallet_id: wallet, amount: "999.00", request_id: `c-${crypto.randomUUID()}`, note: "" },
      ],
      [`/users/${user.id}/sessions/revoke`, {}],
      ["/api-keys", { name: "cost", scope: "read" }],
      [
        "/wallets",
        {
          wallet_id: `w${crypto.randomUUID().slice(0, 8)}`,
          wallet_name: "W",
          wallet_symbol: "W",
          wallet_symbol_position: "left",
          wallet_decimal: 2,
        },
      ],
    ];
    for (const [path, fields] of posts) {
      const lines = await logged(() =>
        request(path, { method: "POST", cookie, body: form({ _csrf: csrf, ...fields }) }),
      );
      expect(lines, path).toHaveLength(1);
      expect(lines[0], path).toMatchObject({ method: "POST", user_id: admin.id });
      expect(lines[0]!.status, path).toBeLessThan(400);
    }
  });
});
