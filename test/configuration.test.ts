// Configuration errors are answers, not faults (src/settings.ts, src/http/settings.ts, src/health.ts):
// a missing or unusable setting answers 503 service_not_configured in each route's envelope, before
// anything is read or written; GET /health names it; the index routes keep working.
import { applyD1Migrations, createExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { COMPAT_ROUTES } from "../src/compat";
import { NOT_MIGRATED, schemaBehind } from "../src/db/health";
import { LATEST_MIGRATION } from "../src/db/latest-migration";
import { HISTORY_CHUNK } from "../src/db/ledger";
import { needsSettings } from "../src/http/route";
import worker from "../src/index";
import { ROUTES } from "../src/routes";
import {
  flagOn,
  mailLimitPerClient,
  NOT_TEXT,
  retryBaseS,
  type SettingName,
} from "../src/settings";
import {
  API,
  appendHistory,
  type Json,
  makeAccount,
  makeAdmin,
  makeKey,
  makeUser,
  makeWallet,
  minutesRunAt,
  PASSWORD,
  type TestUser,
  tableCounts,
  testApp,
  unique,
} from "./helpers";

const COMPAT = "/wp-json/rimplenet/v1";
const SHORT = "x".repeat(31);

type Vars = Partial<Record<SettingName, string>>;

async function request(
  method: string,
  path: string,
  vars: Vars,
  {
    auth,
    body,
    d1,
    swapped,
  }: { auth?: string; body?: Json | string; d1?: D1Database; swapped?: boolean } = {},
) {
  const headers: Record<string, string> = {};
  if (auth) headers.Authorization = auth;
  if (body !== undefined)
    headers["Content-Type"] =
      typeof body === "string" ? "application/x-www-form-urlencoded" : "application/json";
  const res = await testApp().request(
    path,
    { method, headers, body: typeof body === "string" ? body : body && JSON.stringify(body) },
    {
      ...env,
      COMPAT_NAMESPACE: "rimplenet",
      ...vars,
      ...(d1 ? { DB: d1 } : {}),
      // A copied Durable Object block left unchanged: LOGIN_THROTTLE's class_name is HistoryGate.
      ...(swapped ? { LOGIN_THROTTLE: env.HISTORY_GATE } : {}),
    },
  );
  const text = await res.text();
  let parsed: Json = {};
  try {
    parsed = JSON.parse(text);
  } catch {
    // a console page: `text` is what came back
  }
  return { status: res.status, text, body: parsed, headers: res.headers };
}

const sessionCount = async () =>
  (await env.DB.prepare("SELECT count(*) AS n FROM sessions").first<{ n: number }>())!.n;

const envelopeA = (missing: string[]) => ({
  status_code: 503,
  status: false,
  message: "Service not configured",
  error: { missing },
});
const envelopeB = (missing: string[]) => ({
  status_code: 503,
  status: "failed",
  message: "Service not configured",
  data: [],
  error: { missing },
});

/** A path of a route, its `{id}` named. */
const concrete = (path: string) => path.replace(/\{\w+\}/g, "1");

afterEach(() => {
  vi.restoreAllMocks();
});

describe("a JWT_SECRET that is missing or too short", () => {
  // First in the file: each problem is logged once per isolate.
  it("is logged once, with the variable's name and why, however many requests meet it", async () => {
    const log = vi.spyOn(console, "error");
    for (let i = 0; i < 3; i++)
      expect((await request("GET", "/health", { JWT_SECRET: SHORT })).status).toBe(503);
    const lines = log.mock.calls
      .map(([line]) => JSON.parse(String(line)) as Json)
      .filter((line) => line.setting === "JWT_SECRET");
    expect(lines).toEqual([
      expect.objectContaining({
        setting: "JWT_SECRET",
        problem: "shorter than 32 characters",
      }),
    ]);
  });

  for (const [what, secret] of [
    ["empty", ""],
    ["31 characters", SHORT],
  ] as const) {
    describe(`(${what})`, () => {
      const vars = { JWT_SECRET: secret };
      let ctx: { admin: TestUser; user: TestUser; wallet: string; key: string };
      const setup = async () => {
        if (ctx) return ctx;
        const admin = await makeAdmin();
        const user = await makeUser();
        const wallet = await makeWallet(admin);
        const key = (await makeKey(admin, "read-write")).header;
        return (ctx = { admin, user, wallet, key });
      };

      it("answers every wallet/v1 route but the index ones 503 service_not_configured in its envelope, writing nothing", async () => {
        const { admin, user, wallet } = await setup();
        const before = await tableCounts();
        const routes = ROUTES.filter(needsSettings);
        expect(routes.length).toBeGreaterThan(15);
        for (const route of routes) {
          const body =
            route.method === "GET"
              ? undefined
              : {
                  user_id: user.id,
                  wallet_id: wallet,
                  amount: "5.00",
                  request_id: unique("r"),
                  user_email: admin.email,
                  user_password: PASSWORD,
                };
          const res = await request(route.method, `${API}${concrete(route.path)}`, vars, {
            auth: admin.bearer,
            body,
          });
          const expected = route.envelope === "B" ? envelopeB : envelopeA;
          expect(res.body, `${route.method} ${route.path}`).toEqual(expected(["JWT_SECRET"]));
          expect(res.status).toBe(503);
        }
        expect(await tableCounts()).toEqual(before);
      });

      it("refuses an administrator's API key on a money route too: no credit is written", async () => {
        const { user, wallet, key } = await setup();
        const before = await tableCounts();
        const res = await request("POST", `${API}/credits`, vars, {
          auth: key,
          body: { user_id: user.id, wallet_id: wallet, amount: "5.00", request_id: unique("r") },
        });
        expect(res.status).toBe(503);
        expect(res.body).toEqual(envelopeA(["JWT_SECRET"]));
        expect(await tableCounts()).toEqual(before);
      });

      it("answers POST /users/login 503 in envelope B, with the right password, and opens no session", async () => {
        const { admin } = await setup();
        const sessions = await sessionCount();
        const res = await request("POST", `${API}/users/login`, vars, {
          body: { user_email: admin.email, user_password: PASSWORD },
        });
        expect(res.status).toBe(503);
        expect(res.body).toEqual(envelopeB(["JWT_SECRET"]));
        expect(await sessionCount()).toBe(sessions);
      });

      it("answers every route of the plugin's namespace 503 in the plugin's envelope (B under users), writing nothing", async () => {
        const { admin, user, wallet } = await setup();
        const before = await tableCounts();
        const sessions = await sessionCount();
        for (const route of COMPAT_ROUTES) {
          const path = route.path.replace("{user_id}", String(user.id)).replace("{wallet}", wallet);
          const res = await request(route.method, `${COMPAT}${path}`, vars, {
            auth: admin.bearer,
            body:
              route.method === "GET"
                ? undefined
                : {
                    user_id: user.id,
                    wallet_id: wallet,
                    amount: "5",
                    request_id: unique("r"),
                    username: unique("u"),
                    email: `${unique("u")}@example.test`,
                    password: PASSWORD,
                  },
          });
          const expected = route.path.startsWith("/users") ? envelopeB : envelopeA;
          expect(res.body, `${route.method} ${route.path}`).toEqual(expected(["JWT_SECRET"]));
          expect(res.status).toBe(503);
        }
        expect(await tableCounts()).toEqual(before);
        expect(await sessionCount()).toBe(sessions);
      });

      it("shows the console's sign-in page as a 503 page naming JWT_SECRET, and a correct sign-in opens no session", async () => {
        const { admin } = await setup();
        const sessions = await sessionCount();
        const page = await request("GET", "/wallet-admin/sign-in", vars);
        expect(page.status).toBe(503);
        expect(page.headers.get("content-type")).toMatch(/^text\/html/);
        expect(page.text).toContain("Service not configured");
        expect(page.text).toContain("JWT_SECRET");
        const signIn = await request("POST", "/wallet-admin/sign-in", vars, {
          body: new URLSearchParams({ email: admin.email, password: PASSWORD }).toString(),
        });
        expect(signIn.status).toBe(503);
        expect(signIn.headers.get("set-cookie")).toBeNull();
        expect((await request("GET", "/wallet-admin/", vars)).status).toBe(503);
        expect(await sessionCount()).toBe(sessions);
      });

      it("keeps the routes that need no secret working: GET /, the discovery indexes, the OpenAPI document and its reference", async () => {
        for (const path of [
          "/",
          "/wp-json/",
          API,
          `${API}/openapi.json`,
          COMPAT,
          "/api-reference",
        ]) {
          const res = await request("GET", path, vars);
          expect(res.status, path).toBe(200);
        }
      });

      it("makes GET /health answer 503 naming JWT_SECRET, D1 reachable", async () => {
        const res = await request("GET", "/health", vars);
        expect(res.status).toBe(503);
        expect(res.body).toEqual({
          status: "unavailable",
          missing: ["JWT_SECRET"],
          database: "ok",
        });
      });
    });
  }
});

describe("GET /health", () => {
  it("answers 200 ok with a good secret and D1 answering", async () => {
    const res = await request("GET", "/health", {});
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: "ok", missing: [], database: "ok" });
    expect(res.headers.get("cache-control")).toBe("no-store");
  });

  it("reports D1 unreachable as a 503 answer, not a fault, and shows no error text", async () => {
    const lost = {
      prepare: () => {
        throw new Error("D1_ERROR: Network connection lost. secret-detail");
      },
      batch: () => Promise.reject(new Error("D1_ERROR: Network connection lost.")),
      getBookmark: () => null,
    };
    const broken = { ...lost, withSession: () => lost } as unknown as D1Database;
    vi.spyOn(console, "error").mockImplementation(() => {});
    const res = await request("GET", "/health", {}, { d1: broken });
    expect(res.status).toBe(503);
    expect(res.body).toEqual({ status: "unavailable", missing: [], database: "unreachable" });
    expect(res.text).not.toContain("secret-detail");
  });

  it("names each other required setting that is unset or unusable, and the routes answer 503 for it", async () => {
    const cases: [Vars, string[]][] = [
      [{ JWT_ISSUER: " " }, ["JWT_ISSUER"]],
      [{ SITE_TIMEZONE: "Mars/Olympus_Mons" }, ["SITE_TIMEZONE"]],
      [{ SITE_TIMEZONE: "" }, ["SITE_TIMEZONE"]],
      [{ SITE_URL: "wallet.example.com" }, ["SITE_URL"]],
      [{ JWT_SECRET: "", SITE_URL: "ftp://wallet.example.com" }, ["JWT_SECRET", "SITE_URL"]],
      // A URL parser drops a newline or a tab, but the text itself goes into every Link header.
      [{ SITE_URL: "https://wallet.example.com\n/x" }, ["SITE_URL"]],
      [{ SITE_URL: "https://wallet.example.com/a\tb" }, ["SITE_URL"]],
      [{ SITE_URL: "https://user:pass@wallet.example.com" }, ["SITE_URL"]],
      [{ SITE_URL: "http:wallet.example.com" }, ["SITE_URL"]],
      [{ SITE_URL: "https://wallet.example.com/?a=b" }, ["SITE_URL"]],
      [{ SITE_URL: "https://wallet.example.com/#top" }, ["SITE_URL"]],
      [{ SITE_URL: 'https://wallet.example.com/a"><img' }, ["SITE_URL"]],
      [{ JWT_SECRET: " ".repeat(40) }, ["JWT_SECRET"]],
      // Spaces at its ends are no part of a key's strength.
      [{ JWT_SECRET: `x${" ".repeat(31)}` }, ["JWT_SECRET"]],
    ];
    vi.spyOn(console, "error").mockImplementation(() => {});
    const admin = await makeAdmin();
    for (const [vars, missing] of cases) {
      const health = await request("GET", "/health", vars);
      expect(health.status, JSON.stringify(vars)).toBe(503);
      expect(health.body.missing).toEqual(missing);
      const res = await request("GET", `${API}/wallets`, vars, { auth: admin.bearer });
      expect(res.status).toBe(503);
      expect(res.body).toEqual(envelopeA(missing));
    }
  });

  it("never moves money or puts an unusable SITE_URL in an answer", async () => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    const admin = await makeAdmin();
    const user = await makeUser();
    const wallet = await makeWallet(admin);
    const vars = { SITE_URL: "https://wallet.example.com\n/x" };
    const before = await tableCounts();
    const credit = await request("POST", `${API}/credits`, vars, {
      auth: admin.bearer,
      body: { user_id: user.id, wallet_id: wallet, amount: 7, request_id: unique("nl") },
    });
    expect(credit.body).toEqual(envelopeA(["SITE_URL"]));
    expect(await tableCounts()).toEqual(before);
    const home = await request("GET", "/", vars);
    expect(home.status).toBe(200);
    expect(home.body.api).toBe("http://localhost/wp-json/");
    expect(home.headers.get("link")).toContain("<http://localhost/wp-json/>");
  });

  it("names a binding the deployment lacks, in /health and every route, and never faults", async () => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    const admin = await makeAdmin();
    const send = (path: string, unbound: string, init: RequestInit = {}) =>
      testApp().request(path, init, { ...env, [unbound]: undefined });
    for (const name of ["DB", "LOGIN_THROTTLE", "HISTORY_GATE"]) {
      const health = await send("/health", name);
      expect(health.status, name).toBe(503);
      const body = await health.json<Json>();
      expect(body.missing).toEqual([name]);
      expect(body.database).toBe(name === "DB" ? "unreachable" : "ok");
      const read = await send(`${API}/wallets`, name, {
        headers: { Authorization: admin.bearer },
      });
      expect(read.status).toBe(503);
      expect(await read.json()).toEqual(envelopeA([name]));
      const signIn = await send(`${API}/users/login`, name, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ user_email: admin.email, user_password: PASSWORD }),
      });
      expect(await signIn.json()).toEqual(envelopeB([name]));
      expect((await send("/wp-json/", name)).status).toBe(200);
    }
  });

  it("names a binding of the wrong kind (another binding, or a var, of its name) as it names an unbound one, never faulting", async () => {
    const log = vi.spyOn(console, "error").mockImplementation(() => {});
    const admin = await makeAdmin();
    const user = await makeUser();
    const wallet = await makeWallet(admin);
    const send = (path: string, over: Record<string, unknown>, init: RequestInit = {}) =>
      testApp().request(path, init, { ...env, ...over });
    // Those every route needs: 503 naming it, as when it is unbound.
    for (const over of [
      { DB: "wallet-ledger" },
      { DB: env.WEBHOOK_QUEUE },
      { LOGIN_THROTTLE: env.DB },
      { HISTORY_GATE: "HistoryGate" },
    ]) {
      const [name] = Object.keys(over) as [string];
      const health = await send("/health", over);
      expect(health.status, name).toBe(503);
      expect(await health.json<Json>(), name).toEqual({
        status: "unavailable",
        missing: [name],
        database: name === "DB" ? "unreachable" : "ok",
      });
      const read = await send(`${API}/wallets`, over, { headers: { Authorization: admin.bearer } });
      expect(await read.json(), name).toEqual(envelopeA([name]));
      const signIn = await send(`${API}/users/login`, over, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ user_email: admin.email, user_password: PASSWORD }),
      });
      expect(await signIn.json(), name).toEqual(envelopeB([name]));
      expect((await send("/", over)).status, name).toBe(200);
    }
    // The optional ones: as when unbound (no limit, no webhooks, no reference files), and named
    // by GET /health, since a binding of that name was meant.
    const credit = () => ({
      method: "POST",
      headers: { Authorization: admin.bearer, "Content-Type": "application/json" },
      body: JSON.stringify({
        user_id: user.id,
        wallet_id: wallet,
        amount: "1.00",
        request_id: unique("t"),
      }),
    });
    const hook = {
      method: "POST",
      headers: { Authorization: admin.bearer, "Content-Type": "application/json" },
      body: JSON.stringify({ url: "https://hooks.example.com/x", events: ["transaction.created"] }),
    };
    for (const over of [
      { MONEY_RATE_LIMIT: "3000" },
      { WEBHOOK_QUEUE: "wallet-webhooks" },
      { WEBHOOK_DLQ: env.DB },
      // A send_email binding given the queue's name: it has send, not sendBatch.
      { WEBHOOK_DLQ: { send: async () => {} } },
      { ASSETS: "assets" },
    ]) {
      const [name] = Object.keys(over) as [string];
      const health = await send("/health", over);
      expect(health.status, name).toBe(503);
      expect((await health.json<Json>()).missing, name).toEqual([name]);
      expect((await send(`${API}/credits`, over, credit())).status, name).toBe(200);
    }
    const hookRes = await send(`${API}/webhooks`, { WEBHOOK_QUEUE: "wallet-webhooks" }, hook);
    expect(hookRes.status).toBe(503);
    expect((await hookRes.json<Json>()).error).toEqual({ missing: ["WEBHOOK_QUEUE"] });
    const file = await send("/api-reference/swagger-ui.css", { ASSETS: "assets" });
    expect(file.status).toBe(503);
    expect((await file.json<Json>()).error).toEqual({ missing: ["ASSETS"] });
    // The cron says so, rather than fail.
    await worker.scheduled(
      { scheduledTime: Date.now(), cron: "* * * * *", noRetry() {} },
      { ...env, DB: "wallet-ledger" } as unknown as Env,
      createExecutionContext(),
    );
    const lines = log.mock.calls.map(([line]) => String(line));
    expect(lines.join("\n")).not.toContain('"stack"');
    const named = lines.map((line) => JSON.parse(line) as Json).filter((line) => line.setting);
    expect(named).toContainEqual(
      expect.objectContaining({
        setting: "MONEY_RATE_LIMIT",
        problem: expect.stringContaining("[[ratelimits]]"),
      }),
    );
    expect(named).toContainEqual({
      cron: "* * * * *",
      setting: "DB",
      problem: expect.stringContaining("not a D1 database"),
    });
  });

  it("names a Durable Object binding of the other class (class_name swapped) when its object is called, never faulting", async () => {
    const log = vi.spyOn(console, "error").mockImplementation(() => {});
    const { admin, user, wallet } = await makeAccount();
    await appendHistory(user.id, wallet, HISTORY_CHUNK + 1);
    const swapped = { LOGIN_THROTTLE: env.HISTORY_GATE, HISTORY_GATE: env.LOGIN_THROTTLE };
    const signIn = await testApp().request(
      `${API}/users/login`,
      {
        method: "POST",
        // As Cloudflare sends it: without it, its own notice is logged (test/client-address).
        headers: { "Content-Type": "application/json", "CF-Connecting-IP": "203.0.113.9" },
        body: JSON.stringify({ user_email: admin.email, user_password: PASSWORD }),
      },
      { ...env, ...swapped },
    );
    expect(signIn.status).toBe(503);
    expect(await signIn.json()).toEqual(envelopeB(["LOGIN_THROTTLE"]));
    // A whole history past one read takes its caller's gate first.
    const history = await testApp().request(
      `${API}/transactions?security_code=1&user_id=${user.id}`,
      { headers: { Authorization: admin.bearer } },
      { ...env, ...swapped },
    );
    expect(history.status).toBe(503);
    expect(await history.json()).toEqual(envelopeA(["HISTORY_GATE"]));
    const lines = log.mock.calls.map(([line]) => JSON.parse(String(line)) as Json);
    expect(lines.map((line) => [line.setting, line.problem])).toEqual([
      [
        "LOGIN_THROTTLE",
        'is bound to another Durable Object class: in wrangler.toml, its class_name must be "LoginThrottle"',
      ],
      [
        "HISTORY_GATE",
        'is bound to another Durable Object class: in wrangler.toml, its class_name must be "HistoryGate"',
      ],
    ]);
  });

  it("names a Durable Object binding of the other class in GET /health, which asks its object", async () => {
    const log = vi.spyOn(console, "error").mockImplementation(() => {});
    const health = async (bindings: Record<string, unknown>) => {
      const res = await testApp().request("/health", {}, { ...env, ...bindings });
      return { status: res.status, body: await res.json() };
    };
    const unavailable = (missing: string[]) => ({
      status: 503,
      body: { status: "unavailable", missing, database: "ok" },
    });
    expect(await health({ LOGIN_THROTTLE: env.HISTORY_GATE })).toEqual(
      unavailable(["LOGIN_THROTTLE"]),
    );
    expect(await health({ HISTORY_GATE: env.LOGIN_THROTTLE })).toEqual(
      unavailable(["HISTORY_GATE"]),
    );
    expect(
      await health({ LOGIN_THROTTLE: env.HISTORY_GATE, HISTORY_GATE: env.LOGIN_THROTTLE }),
    ).toEqual(unavailable(["LOGIN_THROTTLE", "HISTORY_GATE"]));
    expect(await health({})).toEqual({
      status: 200,
      body: { status: "ok", missing: [], database: "ok" },
    });
    // The problem is logged once per isolate (the test above met it first); never as a fault.
    const lines = log.mock.calls.map(([line]) => JSON.parse(String(line)) as Json);
    expect(lines.filter((line) => "stack" in line)).toEqual([]);
  });

  it("names LOGIN_THROTTLE when its class has no SQL storage (new_classes), in sign-ins and GET /health", async () => {
    const log = vi.spyOn(console, "error").mockImplementation(() => {});
    const admin = await makeAdmin();
    // workerd's refusal, word for word, of every call to a LoginThrottle deployed without SQL (the
    // vitest pool cannot bind one: a class's storage is one setting for all its bindings).
    const refused = Object.assign(
      new Error(
        "SQL is not enabled for this Durable Object class. To enable it, change `new_classes` to `new_sqlite_classes` within the 'migrations' field in your wrangler.jsonc or wrangler.toml file.",
      ),
      { remote: true },
    );
    const withoutSql = {
      idFromName: (name: string) => env.LOGIN_THROTTLE.idFromName(name),
      get: () =>
        new Proxy(
          {},
          {
            get: (_, name) =>
              name === "then"
                ? undefined
                : async () => {
                    throw refused;
                  },
          },
        ),
    };
    const bindings = { ...env, COMPAT_NAMESPACE: "rimplenet", LOGIN_THROTTLE: withoutSql };
    const signIn = (path: string) =>
      testApp().request(
        path,
        {
          method: "POST",
          headers: { "Content-Type": "application/json", "CF-Connecting-IP": "203.0.113.9" },
          body: JSON.stringify({ user_email: admin.email, user_password: PASSWORD }),
        },
        bindings,
      );
    const api = await signIn(`${API}/users/login`);
    expect(api.status).toBe(503);
    expect(await api.json()).toEqual(envelopeB(["LOGIN_THROTTLE"]));
    const plugin = await signIn(`${COMPAT}/users/login`);
    expect(plugin.status).toBe(503);
    expect((await plugin.json<Json>()).error).toEqual({ missing: ["LOGIN_THROTTLE"] });
    const health = await testApp().request("/health", {}, bindings);
    expect(health.status).toBe(503);
    expect(await health.json()).toEqual({
      status: "unavailable",
      missing: ["LOGIN_THROTTLE"],
      database: "ok",
    });
    const lines = log.mock.calls.map(([line]) => JSON.parse(String(line)) as Json);
    expect(lines.filter((line) => "stack" in line)).toEqual([]);
    expect(lines.filter((line) => line.setting)).toEqual([
      {
        request_id: expect.any(String),
        setting: "LOGIN_THROTTLE",
        problem:
          'has no SQL storage: in wrangler.toml\'s [[migrations]], "LoginThrottle" must be in new_sqlite_classes',
      },
    ]);
  });

  it("deletes no user while LOGIN_THROTTLE is bound to the other class: 503 before the deletion", async () => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    const admin = await makeAdmin();
    const user = await makeUser();
    const res = await request(
      "DELETE",
      `${COMPAT}/users/${user.id}`,
      {},
      {
        auth: admin.bearer,
        swapped: true,
      },
    );
    expect(res.status, res.text).toBe(503);
    expect(res.body).toEqual(envelopeB(["LOGIN_THROTTLE"]));
    const kept = await env.DB.prepare("SELECT id FROM users WHERE id = ?").bind(user.id).first();
    expect(kept).toEqual({ id: user.id });
  });

  it("names a TRANSACTIONS_SECURITY_CODE that is no integer; GET /transactions alone answers 503 for it", async () => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    const admin = await makeAdmin();
    for (const code of ["sekret123", "4.5", "1e3", "--1"]) {
      const vars = { TRANSACTIONS_SECURITY_CODE: code };
      const health = await request("GET", "/health", vars);
      expect(health.status, code).toBe(503);
      expect(health.body.missing).toEqual(["TRANSACTIONS_SECURITY_CODE"]);
      const list = await request(
        "GET",
        `${API}/transactions?user_id=${admin.id}&security_code=1`,
        vars,
        { auth: admin.bearer },
      );
      expect(list.status).toBe(503);
      expect(list.body).toEqual(envelopeA(["TRANSACTIONS_SECURITY_CODE"]));
      const wallets = await request("GET", `${API}/wallets`, vars, { auth: admin.bearer });
      expect(wallets.status).toBe(200);
    }
    // A blank code is no code: any integer passes, as with none.
    const blank = await request(
      "GET",
      `${API}/transactions?user_id=${admin.id}&security_code=1`,
      { TRANSACTIONS_SECURITY_CODE: "   " },
      { auth: admin.bearer },
    );
    expect(blank.status).toBe(200);
    // A code of any length, after a minus sign, as security_code may be.
    const longest = `-${"9".repeat(40)}`;
    const health = await request("GET", "/health", { TRANSACTIONS_SECURITY_CODE: longest });
    expect(health.status).toBe(200);
    const matched = await request(
      "GET",
      `${API}/transactions?user_id=${admin.id}&security_code=${longest}`,
      { TRANSACTIONS_SECURITY_CODE: longest },
      { auth: admin.bearer },
    );
    expect(matched.status).toBe(200);
  });

  it("names a COMPAT_NAMESPACE it cannot serve; the plugin's routes are off, the API goes on", async () => {
    const log = vi.spyOn(console, "error").mockImplementation(() => {});
    const admin = await makeAdmin();
    for (const name of ["wallet", "../x", "rimple net", "x".repeat(65)]) {
      const vars = { COMPAT_NAMESPACE: name };
      const health = await request("GET", "/health", vars);
      expect(health.status, name).toBe(503);
      expect(health.body.missing).toEqual(["COMPAT_NAMESPACE"]);
      const wallets = await request("GET", `${API}/wallets`, vars, { auth: admin.bearer });
      expect(wallets.status).toBe(200);
    }
    const problems = log.mock.calls
      .map(([line]) => JSON.parse(String(line)))
      .filter((line) => line.setting === "COMPAT_NAMESPACE")
      .map((line) => line.problem);
    expect(problems).toEqual([
      "the contract's own namespace",
      "not one path segment of 1 to 64 of a-z, 0-9, _ and -",
    ]);
    // The longest name it serves: 64 of those characters.
    const longest = "a_-9".repeat(16);
    const served = await request("GET", "/health", { COMPAT_NAMESPACE: longest });
    expect(served.status, served.text).toBe(200);
    const index = await request("GET", "/wp-json/", { COMPAT_NAMESPACE: longest });
    expect(index.body.namespaces).toEqual(["wallet/v1", `${longest}/v1`]);
  });

  it("names a var wrangler.toml gives without quotes (a number, a boolean, a list), never faulting", async () => {
    // `[vars] JWT_ISSUER = 5` reaches the Worker as the number 5, not as text.
    const log = vi.spyOn(console, "error").mockImplementation(() => {});
    const admin = await makeAdmin();
    const user = await makeUser();
    const wallet = await makeWallet(admin);
    const typed = (vars: Record<string, unknown>) => vars as Vars;
    // Required: every route that needs it answers 503 naming it, as when it is unset.
    for (const vars of [{ JWT_ISSUER: 5 }, { SITE_URL: 8080 }, { SITE_TIMEZONE: 1 }]) {
      const [name] = Object.keys(vars);
      const health = await request("GET", "/health", typed(vars));
      expect(health.status, name).toBe(503);
      expect(health.body.missing).toEqual([name]);
      const wallets = await request("GET", `${API}/wallets`, typed(vars), { auth: admin.bearer });
      expect(wallets.body).toEqual(envelopeA([name!]));
      const login = await request("POST", `${API}/users/login`, typed(vars), {
        body: { user_email: admin.email, user_password: PASSWORD },
      });
      expect(login.body).toEqual(envelopeB([name!]));
      const page = await request("GET", "/wallet-admin/sign-in", typed(vars));
      expect(page.status).toBe(503);
      expect(page.text).toContain(name);
      expect((await request("GET", "/", typed(vars))).status).toBe(200);
    }
    // A security code that is no text: GET /transactions refuses, as for one that is no integer.
    const code = typed({ TRANSACTIONS_SECURITY_CODE: 1234 });
    const list = await request(
      "GET",
      `${API}/transactions?user_id=${admin.id}&security_code=1`,
      code,
      { auth: admin.bearer },
    );
    expect(list.body).toEqual(envelopeA(["TRANSACTIONS_SECURITY_CODE"]));
    expect((await request("GET", `${API}/wallets`, code, { auth: admin.bearer })).status).toBe(200);
    // Optional: read as unset (the plugin's namespace off, balances not public, CORS and mail at
    // their defaults), named by GET /health; the rest of the service goes on.
    for (const vars of [
      { COMPAT_NAMESPACE: true },
      { COMPAT_PUBLIC_READS: true },
      { CORS_ORIGINS: ["https://app.example.com"] },
      { MAIL_TRANSPORT: 1 },
      { MAIL_TRANSPORT: "cloudflare", EMAIL: { send: async () => {} }, MAIL_FROM: 5 },
      { MAIL_LIMIT_PER_CLIENT: 1000 },
      { WEBHOOK_ALLOW_LOCAL: true },
      { WEBHOOK_RETRY_BASE_S: 60 },
      { WEBHOOK_LEASE_S: 60 },
      { WEBHOOK_SECRET_KEY: 1234 },
    ]) {
      const name = Object.keys(vars).at(-1)!;
      const health = await request("GET", "/health", typed(vars));
      expect(health.status, name).toBe(503);
      expect(health.body.missing).toEqual([name]);
      const credit = await request("POST", `${API}/credits`, typed(vars), {
        auth: admin.bearer,
        body: { user_id: user.id, wallet_id: wallet, amount: "1.00", request_id: unique("t") },
      });
      expect(credit.status, name).toBe(200);
    }
    const balance = `${COMPAT}/user-wallet-balance?user_id=${user.id}&wallet_id=${wallet}`;
    const publicRead = await request("GET", balance, typed({ COMPAT_PUBLIC_READS: true }));
    expect(publicRead.status).toBe(403);
    const plugin = await request("GET", COMPAT, typed({ COMPAT_NAMESPACE: true }));
    expect(plugin.status).toBe(404);
    const hook = await request("POST", `${API}/webhooks`, typed({ WEBHOOK_SECRET_KEY: 1234 }), {
      auth: admin.bearer,
      body: { url: "https://hooks.example.com/x", events: ["transaction.created"] },
    });
    expect(hook.status).toBe(503);
    expect(hook.body.error).toEqual({ missing: ["WEBHOOK_SECRET_KEY"] });
    // The webhook consumer reads its retry delay as the default, 60 s, rather than failing a batch.
    const batch = { queue: "wallet-webhooks", messages: [] } as unknown as MessageBatch;
    const consumerEnv = { ...env, WEBHOOK_RETRY_BASE_S: 60 } as unknown as Env;
    await expect(worker.queue(batch, consumerEnv)).resolves.toBe(undefined);
    // Each logged once, by name, with what to do.
    const lines = log.mock.calls
      .map(([line]) => JSON.parse(String(line)) as Json)
      .filter((line) => line.setting === "JWT_ISSUER" || line.setting === "WEBHOOK_RETRY_BASE_S");
    expect(lines).toEqual([
      expect.objectContaining({ setting: "JWT_ISSUER", problem: NOT_TEXT }),
      expect.objectContaining({ setting: "WEBHOOK_RETRY_BASE_S", problem: NOT_TEXT }),
    ]);
    expect(NOT_TEXT).toMatch(/quotes/);
    expect(log.mock.calls.map(([line]) => String(line)).join("\n")).not.toContain('"stack"');
  });

  it("names a flag that is neither true nor false, and a retry delay, lease or mail limit that is no whole number in its bounds", async () => {
    const log = vi.spyOn(console, "error").mockImplementation(() => {});
    const admin = await makeAdmin();
    const user = await makeUser();
    const wallet = await makeWallet(admin);
    const cases = [
      { COMPAT_PUBLIC_READS: "yes" },
      { COMPAT_PUBLIC_READS: "1" },
      { WEBHOOK_ALLOW_LOCAL: "on" },
      { WEBHOOK_RETRY_BASE_S: "abc" },
      { WEBHOOK_RETRY_BASE_S: "0" },
      { WEBHOOK_RETRY_BASE_S: "1.5" },
      { WEBHOOK_LEASE_S: "19" },
      { WEBHOOK_LEASE_S: "3601" },
      { WEBHOOK_LEASE_S: "abc" },
      { MAIL_LIMIT_PER_CLIENT: "abc" },
      { MAIL_LIMIT_PER_CLIENT: "-1" },
      { MAIL_LIMIT_PER_CLIENT: "1.5" },
      { MAIL_LIMIT_PER_CLIENT: "10001" },
    ];
    for (const vars of cases) {
      const [name] = Object.keys(vars);
      const health = await request("GET", "/health", vars);
      expect(health.status, JSON.stringify(vars)).toBe(503);
      expect(health.body.missing).toEqual([name]);
      // Read as its default meanwhile: balances are not public, and the rest goes on.
      const balance = `${COMPAT}/user-wallet-balance?user_id=${user.id}&wallet_id=${wallet}`;
      expect((await request("GET", balance, vars)).status).toBe(403);
      expect((await request("GET", `${API}/wallets`, vars, { auth: admin.bearer })).status).toBe(
        200,
      );
    }
    const named = log.mock.calls
      .map(([line]) => JSON.parse(String(line)) as Json)
      .filter((line) => cases.some((vars) => line.setting === Object.keys(vars)[0]));
    expect(named.map((line) => [line.setting, line.problem])).toEqual([
      ["COMPAT_PUBLIC_READS", 'neither "true" nor "false"'],
      ["WEBHOOK_ALLOW_LOCAL", 'neither "true" nor "false"'],
      ["WEBHOOK_RETRY_BASE_S", "not a positive whole number of seconds"],
      ["WEBHOOK_LEASE_S", "not a whole number of seconds from 20 to 3600"],
      ["MAIL_LIMIT_PER_CLIENT", "not a whole number of mails an hour up to 10000 (0 for no limit)"],
    ]);
    // A mail limit so named is read as its default meanwhile: the mail routes go on.
    const mail = await request(
      "POST",
      `${API}/users/verify-email`,
      { MAIL_TRANSPORT: "outbox", MAIL_LIMIT_PER_CLIENT: "-1" },
      { body: { user_email: `${unique("nobody")}@example.test` } },
    );
    expect(mail.status, mail.text).toBe(200);
    // Each is read one way everywhere: a flag in any case, a delay in whole seconds.
    expect([" TRUE ", "true", "false", "", "yes", 1].map(flagOn)).toEqual([
      true,
      true,
      false,
      false,
      false,
      false,
    ]);
    expect(["2", " 90 ", "0", "abc", "1.5", 60].map(retryBaseS)).toEqual([2, 90, 60, 60, 60, 60]);
    expect(
      ["5", " 0 ", "10000", "", "abc", "-1", "1.5", "10001", 60].map(mailLimitPerClient),
    ).toEqual([5, 0, 10000, 1000, 1000, 1000, 1000, 1000, 1000]);
    for (const vars of [
      { COMPAT_PUBLIC_READS: " True " },
      { WEBHOOK_ALLOW_LOCAL: "FALSE" },
      { WEBHOOK_RETRY_BASE_S: " 30 " },
      { WEBHOOK_LEASE_S: " 20 " },
      { WEBHOOK_LEASE_S: "3600" },
      { MAIL_LIMIT_PER_CLIENT: " 0 " },
      { MAIL_LIMIT_PER_CLIENT: "" },
    ])
      expect((await request("GET", "/health", vars)).status, JSON.stringify(vars)).toBe(200);
  });

  it("names a MAIL_FROM that is no e-mail address, whatever the transport, and reads it as unset", async () => {
    const log = vi.spyOn(console, "error").mockImplementation(() => {});
    const admin = await makeAdmin();
    for (const from of ["Wallet", "wallet@", "Wallet <wallet@example.com>", "wallet@example"]) {
      const health = await request("GET", "/health", { MAIL_FROM: from });
      expect(health.status, from).toBe(503);
      expect(health.body.missing, from).toEqual(["MAIL_FROM"]);
      expect(
        (await request("GET", `${API}/wallets`, { MAIL_FROM: from }, { auth: admin.bearer }))
          .status,
      ).toBe(200);
    }
    expect(
      log.mock.calls
        .map(([line]) => JSON.parse(String(line)) as Json)
        .find((line) => line.setting === "MAIL_FROM"),
    ).toEqual(
      expect.objectContaining({
        problem: "not an e-mail address",
        effect: "read as its default until it is corrected",
      }),
    );
    for (const from of ["wallet@example.com", " wallet@mail.example.com ", ""])
      expect((await request("GET", "/health", { MAIL_FROM: from })).status, from).toBe(200);
  });

  it("takes SITE_URL empty, a 32-character JWT_SECRET and an integer security code as configured", async () => {
    for (const vars of [
      { SITE_URL: "", JWT_SECRET: "y".repeat(32) },
      { TRANSACTIONS_SECURITY_CODE: " -42 " },
      { TRANSACTIONS_SECURITY_CODE: "" },
      { TRANSACTIONS_SECURITY_CODE: "   " },
      { COMPAT_NAMESPACE: "" },
      { SITE_TIMEZONE: "+05:45" },
      { COMPAT_NAMESPACE: " RIMPLENET " },
    ]) {
      const res = await request("GET", "/health", vars);
      expect(res.status, JSON.stringify(vars)).toBe(200);
      expect(res.body.status).toBe("ok");
    }
  });
});

describe("SITE_TIMEZONE with spaces around it", () => {
  it("is read without them, as the other settings are, in /health and in the dates answered", async () => {
    const zone = " Africa/Lagos\n";
    expect((await request("GET", "/health", { SITE_TIMEZONE: zone })).body).toEqual({
      status: "ok",
      missing: [],
      database: "ok",
    });
    const admin = await makeAdmin();
    const atMs = Date.UTC(2026, 0, 2, 23, 30, 5);
    const res = await testApp({ nowMs: () => atMs }).request(
      `${API}/users/login`,
      {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ user_email: admin.email, user_password: PASSWORD }),
      },
      { ...env, SITE_TIMEZONE: zone },
    );
    expect(res.status).toBe(200);
    // 23:30:05 UTC is 00:30:05 the next day in Lagos (UTC+1).
    expect(((await res.json()) as Json).data.time_of_login).toBe("2026-01-03 00:30:05");
  });
});

describe("a D1 without every migration applied", () => {
  const migrations = env.TEST_MIGRATIONS;

  it("knows the newest migration in drizzle/ as the schema it needs", () => {
    expect(LATEST_MIGRATION).toBe(migrations.at(-1)!.name);
  });

  it("says so in /health and in every envelope, instead of a fault, and writes nothing", async () => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    const admin = await makeAdmin();
    const empty = { d1: env.EMPTY_DB };
    const health = await request("GET", "/health", {}, empty);
    expect(health.status).toBe(503);
    expect(health.body).toEqual({ status: "unavailable", missing: [], database: "not migrated" });
    const signIn = await request(
      "POST",
      `${API}/users/login`,
      {},
      {
        ...empty,
        body: { user_email: admin.email, user_password: PASSWORD },
      },
    );
    expect(signIn.body).toEqual(envelopeB(["migrations"]));
    const read = await request("GET", `${API}/wallets`, {}, { ...empty, auth: admin.bearer });
    expect(read.body).toEqual(envelopeA(["migrations"]));
    const plugin = await request(
      "POST",
      `${COMPAT}/credits`,
      {},
      {
        ...empty,
        auth: admin.bearer,
        body: { user_id: admin.id, wallet_id: "ngn", amount: 5, request_id: unique("m") },
      },
    );
    expect(plugin.status).toBe(503);
    expect(plugin.text).toContain('"missing":["migrations"]');
    const page = await request(
      "POST",
      "/wallet-admin/sign-in",
      {},
      {
        ...empty,
        body: new URLSearchParams({ email: admin.email, password: PASSWORD }).toString(),
      },
    );
    expect(page.status).toBe(503);
    expect(page.text).toContain("Service not configured");
    expect(page.text).toContain("set up: migrations");
    const tables = await env.EMPTY_DB.prepare(
      "SELECT count(*) AS n FROM sqlite_master WHERE type = 'table' AND name NOT LIKE '\\_%' ESCAPE '\\'",
    ).first<{ n: number }>();
    expect(tables!.n).toBe(0);
  });

  it("reads wrangler's record: one migration short is not migrated, all of them is", async () => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    await applyD1Migrations(env.BEHIND_DB, migrations.slice(0, -1));
    const behind = await request("GET", "/health", {}, { d1: env.BEHIND_DB });
    expect(behind.body.database).toBe("not migrated");
    // An older schema would still take a new user, without the event a change must have: every
    // route refuses until the last migration is in, and nothing is written.
    const users = () =>
      env.BEHIND_DB.prepare("SELECT count(*) AS n FROM users").first<{ n: number }>();
    const before = await users();
    const user = {
      username: unique("behind"),
      user_email: `${unique("b")}@example.com`,
      user_password: PASSWORD,
    };
    const created = await request("POST", `${API}/users`, {}, { d1: env.BEHIND_DB, body: user });
    expect(created.body).toEqual(envelopeB(["migrations"]));
    expect(await users()).toEqual(before);
    // The cron, whose queries that schema would still take, does nothing either.
    const lines = vi.spyOn(console, "log");
    const controller = { scheduledTime: Date.now(), cron: "* * * * *", noRetry() {} };
    await worker.scheduled(controller, { ...env, DB: env.BEHIND_DB }, createExecutionContext());
    expect(lines).not.toHaveBeenCalled();
    await applyD1Migrations(env.BEHIND_DB, migrations);
    const caughtUp = await request("GET", "/health", {}, { d1: env.BEHIND_DB });
    expect(caughtUp.status).toBe(200);
    expect(caughtUp.body.database).toBe("ok");
  });

  // Code rolled back after a newer migration was applied: D1 holds one this code does not know.
  it("names a migration D1 holds that this code does not know, and serves on", async () => {
    await applyD1Migrations(env.BEHIND_DB, migrations);
    const newest = Number(LATEST_MIGRATION.slice(0, 4));
    const unknown = `${String(newest + 1).padStart(4, "0")}_from_newer_code.sql`;
    const record = (sql: string) => env.BEHIND_DB.prepare(sql).bind(unknown).run();
    await record("INSERT INTO d1_migrations (name) VALUES (?)");
    try {
      const health = await request("GET", "/health", {}, { d1: env.BEHIND_DB });
      expect(health.status).toBe(200);
      expect(health.body).toEqual({
        status: "ok",
        missing: [],
        database: "ok",
        unknown_migrations: [unknown],
      });
      // Served, not refused: a sign-in reads the users and answers in its own words.
      const signIn = await request(
        "POST",
        `${API}/users/login`,
        {},
        {
          d1: env.BEHIND_DB,
          body: { user_email: `${unique("n")}@example.com`, user_password: PASSWORD },
        },
      );
      expect([signIn.status, signIn.body.error]).toEqual([400, ["Invalid Credential"]]);
    } finally {
      await record("DELETE FROM d1_migrations WHERE name = ?");
    }
    const known = await request("GET", "/health", {}, { d1: env.BEHIND_DB });
    expect(known.body).toEqual({ status: "ok", missing: [], database: "ok" });
  });

  it("lets the cron and the webhook consumer name an unbound DB, rather than fail", async () => {
    const errors = vi.spyOn(console, "error").mockImplementation(() => {});
    const unbound = { ...env, DB: undefined } as unknown as Env;
    await worker.scheduled(
      { scheduledTime: Date.now(), cron: "* * * * *", noRetry() {} },
      unbound,
      createExecutionContext(),
    );
    const acked: string[] = [];
    const message = { body: { endpointId: 1 }, attempts: 1 };
    const batch = {
      queue: "wallet-webhooks",
      messages: [{ ...message, ack: () => acked.push("ack"), retry: () => acked.push("retry") }],
    } as unknown as MessageBatch;
    await worker.queue(batch, unbound);
    // Nothing is lost: once DB is bound, the cron's sweep nudges every endpoint still behind.
    expect(acked).toEqual(["ack"]);
    expect(errors.mock.calls.map(([line]) => JSON.parse(String(line)))).toEqual([
      {
        cron: "* * * * *",
        setting: "DB",
        problem: "is not bound (wrangler.toml [[d1_databases]])",
      },
      {
        setting: "DB",
        problem: "is not bound (wrangler.toml [[d1_databases]])",
        effect: "webhook deliveries wait until it is bound",
      },
    ]);
  });

  it("lets the cron say so, rather than fail, on a database never migrated", async () => {
    const errors = vi.spyOn(console, "error").mockImplementation(() => {});
    await worker.scheduled(
      { scheduledTime: Date.now(), cron: "* * * * *", noRetry() {} },
      { ...env, DB: env.EMPTY_DB },
      createExecutionContext(),
    );
    expect(errors.mock.calls.map(([line]) => JSON.parse(String(line)))).toEqual([
      { cron: "* * * * *", setting: "migrations", problem: NOT_MIGRATED },
    ]);
  });

  it("lets the webhook consumer say so too, in one line, and let its messages go for the sweep", async () => {
    const errors = vi.spyOn(console, "error").mockImplementation(() => {});
    const settled: string[] = [];
    const batch = {
      queue: "wallet-webhooks",
      messages: [1, 2].map((endpointId) => ({
        body: { endpointId },
        attempts: 1,
        ack: () => settled.push(`ack ${endpointId}`),
        retry: () => settled.push(`retry ${endpointId}`),
      })),
    } as unknown as MessageBatch;
    await worker.queue(batch, { ...env, DB: env.EMPTY_DB });
    // Not a fault per endpoint retried into the dead-letter queue: once the migrations are in, the
    // cron's sweep nudges every endpoint still behind.
    expect(settled).toEqual(["ack 1", "ack 2"]);
    expect(errors.mock.calls.map(([line]) => JSON.parse(String(line)))).toEqual([
      {
        setting: "migrations",
        problem: NOT_MIGRATED,
        effect: "webhook deliveries wait until it is migrated",
      },
    ]);
  });

  it("lets the cron fail on a table missing from a migrated database: a fault, not migrations", async () => {
    const missingColumn = {
      prepare: (query: string) => {
        if (/d1_migrations/.test(query)) return env.DB.prepare(query);
        throw new Error("D1_ERROR: no such column: x: SQLITE_ERROR");
      },
      batch: env.DB.batch.bind(env.DB),
      withSession: env.DB.withSession.bind(env.DB),
    } as unknown as D1Database;
    const errors = vi.spyOn(console, "error").mockImplementation(() => {});
    const run = (scheduledTime: number) =>
      worker.scheduled(
        { scheduledTime, cron: "* * * * *", noRetry() {} },
        { ...env, DB: missingColumn },
        createExecutionContext(),
      );
    // A minute's run, then an hour's first (which also deletes expired sessions and mail tokens):
    // the error names exactly the steps that failed.
    await expect(run(minutesRunAt())).rejects.toThrow(
      /^Cron steps failed \(logged\): expire_holds, sweep_outbox$/,
    );
    const hourStart = Date.now() - (Date.now() % 3_600_000) + 1_000;
    await expect(run(hourStart)).rejects.toThrow(
      /^Cron steps failed \(logged\): expire_holds, sweep_outbox, delete_sessions, delete_mail_tokens$/,
    );
    // Each step's fault in D1's words, and no word of migrations.
    const lines = errors.mock.calls.map(([line]) => JSON.parse(String(line)));
    expect(lines.map((line) => line.step)).toEqual([
      "expire_holds",
      "sweep_outbox",
      "expire_holds",
      "sweep_outbox",
      "delete_sessions",
      "delete_mail_tokens",
    ]);
    for (const line of lines)
      expect(line).toMatchObject({ fault: expect.stringContaining("no such column") });
  });

  it("knows D1's words for a column an INSERT names and the schema lacks", () => {
    expect(
      schemaBehind(
        new Error("D1_ERROR: table transactions has no column named hold_id: SQLITE_ERROR"),
      ),
    ).toBe(true);
    expect(schemaBehind(new Error("D1_ERROR: no such table: holds: SQLITE_ERROR"))).toBe(true);
    expect(schemaBehind(new Error("D1_ERROR: UNIQUE constraint failed: users.login"))).toBe(false);
  });

  it("still answers a missing table as a fault when every migration is applied", async () => {
    const errors = vi.spyOn(console, "error").mockImplementation(() => {});
    const admin = await makeAdmin();
    const missingColumn = {
      prepare: env.DB.prepare.bind(env.DB),
      batch: env.DB.batch.bind(env.DB),
      withSession: (start?: string) => {
        const session = env.DB.withSession(start);
        return {
          prepare: (query: string) =>
            /d1_migrations|sessions/.test(query)
              ? session.prepare(query)
              : (() => {
                  throw new Error("D1_ERROR: no such column: x: SQLITE_ERROR");
                })(),
          batch: session.batch.bind(session),
          getBookmark: () => session.getBookmark(),
        };
      },
    } as unknown as D1Database;
    const res = await request(
      "GET",
      `${API}/wallets`,
      {},
      { auth: admin.bearer, d1: missingColumn },
    );
    expect(res.status).toBe(500);
    expect(res.body.message).toBe("Internal error");
    // The fault's log line carries the answer's request id, as the request line does.
    const lines = errors.mock.calls.map(([line]) => JSON.parse(String(line)));
    expect(lines).toContainEqual(
      expect.objectContaining({
        request_id: res.body.error.request_id,
        error: expect.stringContaining("no such column"),
        stack: expect.any(String),
      }),
    );
  });
});
