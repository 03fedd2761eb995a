// A Durable Object the service calls (the sign-in throttle, the whole-history gate) that cannot
// answer for a moment: 503 in the route's envelope, worded for what failed rather than as the
// database, nothing written, and a log line naming the binding. D1's own failures answer as before.
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { HISTORY_CHUNK } from "../src/db/ledger";
import { GUARDED } from "./compat-helpers";
import { losingReads } from "./d1-counter";
import {
  appendHistory,
  call,
  type Json,
  makeAccount,
  makeAdmin,
  makeUser,
  PASSWORD,
  type Reply,
} from "./helpers";

afterEach(() => vi.restoreAllMocks());

/** Every line the test's requests write with console.error, parsed. */
function captureErrors() {
  const error = vi.spyOn(console, "error").mockImplementation(() => {});
  return () => error.mock.calls.map(([line]) => JSON.parse(String(line)) as Json);
}

/**
 * A binding whose objects fail every call with `fault`, as an object out of reach does (the
 * runtime's "Network connection lost."), or as the object's own code does (`remote`).
 */
function failing<N extends { idFromName: (name: string) => DurableObjectId }>(
  ns: N,
  fault = () => new Error("Network connection lost."),
) {
  const object = new Proxy(
    {},
    { get: (_, method) => (method === "then" ? undefined : async () => Promise.reject(fault())) },
  );
  return { idFromName: (name: string) => ns.idFromName(name), get: () => object } as unknown as N;
}

// One text for every route that asks the throttle: a sign-in and a mail request check its limits,
// an unlock clears them and a deletion forgets them, so it says they cannot be reached.
const THROTTLE_RETRY = "Sign-in and mail limits cannot be reached now: try again in 2 seconds";

const sessionsOf = async (userId: number) =>
  (await env.DB.prepare("SELECT count(*) AS n FROM sessions WHERE user_id = ?")
    .bind(userId)
    .first<{ n: number }>())!.n;

/** The answer's 503 in `envelope`, its Retry-After, and the log line its request id names. */
function expectUnavailable(res: Reply, lines: Json[], binding: string, envelope: "A" | "B") {
  expect([res.status, res.headers.get("Retry-After")], res.text).toEqual([503, "2"]);
  const retry = binding === "LOGIN_THROTTLE" ? THROTTLE_RETRY : expect.any(String);
  expect(res.body).toStrictEqual(
    envelope === "B"
      ? {
          status_code: 503,
          status: "failed",
          message: "Service temporarily unavailable",
          data: [],
          error: { retry },
        }
      : {
          status_code: 503,
          status: false,
          message: "Service temporarily unavailable",
          error: { retry },
        },
  );
  expect(lines.filter((line) => "d1_unavailable" in line)).toEqual([]);
  expect(lines).toContainEqual({
    request_id: res.headers.get("X-Request-Id"),
    durable_object_unavailable: binding,
    error: "Error: Network connection lost.",
  });
}

describe("a sign-in while the throttle's object cannot answer", () => {
  it("answers wallet/v1's login 503 worded for sign-in, opens no session, logs LOGIN_THROTTLE", async () => {
    const user = await makeUser();
    const sessions = await sessionsOf(user.id);
    const lines = captureErrors();
    const res = await call("POST", "/users/login", {
      body: { user_email: user.email, user_password: PASSWORD },
      vars: { LOGIN_THROTTLE: failing(env.LOGIN_THROTTLE) },
    });
    expectUnavailable(res, lines(), "LOGIN_THROTTLE", "B");
    expect(res.text).not.toContain("database");
    expect(await sessionsOf(user.id)).toBe(sessions);
  });

  it("answers the plugin's login alike, in its envelope", async () => {
    const user = await makeUser();
    const sessions = await sessionsOf(user.id);
    const lines = captureErrors();
    const res = await call("POST", "/wp-json/rimplenet/v1/users/login", {
      body: { user_email: user.email, user_password: PASSWORD },
      vars: { ...GUARDED, LOGIN_THROTTLE: failing(env.LOGIN_THROTTLE) },
    });
    expectUnavailable(res, lines(), "LOGIN_THROTTLE", "B");
    expect(await sessionsOf(user.id)).toBe(sessions);
  });

  it("answers a mail request alike, and keeps no mail", async () => {
    const user = await makeUser();
    const lines = captureErrors();
    const res = await call("POST", "/users/password-reset", {
      body: { user_email: user.email },
      vars: { MAIL_TRANSPORT: "outbox", LOGIN_THROTTLE: failing(env.LOGIN_THROTTLE) },
    });
    expectUnavailable(res, lines(), "LOGIN_THROTTLE", "B");
    const kept = await env.DB.prepare("SELECT count(*) AS n FROM mail_outbox WHERE to_address = ?")
      .bind(user.email)
      .first<{ n: number }>();
    expect(kept?.n).toBe(0);
  });

  it("answers wallet/v1's unlock 503 in the same words, not as a check, and logs LOGIN_THROTTLE", async () => {
    const [admin, user] = await Promise.all([makeAdmin(), makeUser()]);
    const lines = captureErrors();
    const res = await call("POST", `/users/${user.id}/unlock`, {
      auth: admin.bearer,
      vars: { LOGIN_THROTTLE: failing(env.LOGIN_THROTTLE) },
    });
    expectUnavailable(res, lines(), "LOGIN_THROTTLE", "B");
    expect(res.text).not.toContain("checked");
  });

  it("answers the plugin's user deletion alike, and deletes nobody", async () => {
    const [admin, user] = await Promise.all([makeAdmin(), makeUser()]);
    const lines = captureErrors();
    const res = await call("DELETE", `/wp-json/rimplenet/v1/users/${user.id}`, {
      auth: admin.bearer,
      vars: { ...GUARDED, LOGIN_THROTTLE: failing(env.LOGIN_THROTTLE) },
    });
    expectUnavailable(res, lines(), "LOGIN_THROTTLE", "B");
    const kept = await env.DB.prepare("SELECT count(*) AS n FROM users WHERE id = ?")
      .bind(user.id)
      .first<{ n: number }>();
    expect(kept?.n).toBe(1);
  });

  it("answers a sign-in whose session is open though giving its counts back fails, and logs it", async () => {
    const user = await makeUser();
    const real = env.LOGIN_THROTTLE;
    const losing = {
      idFromName: (name: string) => real.idFromName(name),
      get: (id: DurableObjectId) => {
        const object = real.get(id);
        const lost = async () => Promise.reject(new Error("Network connection lost."));
        return {
          reserve: (...args: Parameters<typeof object.reserve>) => object.reserve(...args),
          knows: (...args: Parameters<typeof object.knows>) => object.knows(...args),
          reserveSignIn: (...args: Parameters<typeof object.reserveSignIn>) =>
            object.reserveSignIn(...args),
          release: lost,
          signedIn: lost,
        };
      },
    } as unknown as typeof real;
    const sessions = await sessionsOf(user.id);
    const lines = captureErrors();
    const res = await call("POST", "/users/login", {
      body: { user_email: user.email, user_password: PASSWORD },
      vars: { LOGIN_THROTTLE: losing },
    });
    expect([res.status, res.body.message], res.text).toEqual([200, "Login successful"]);
    expect(await sessionsOf(user.id)).toBe(sessions + 1);
    expect(lines()).toEqual([
      {
        request_id: res.headers.get("X-Request-Id"),
        durable_object_unavailable: "LOGIN_THROTTLE",
        error: "Error: Network connection lost.",
      },
    ]);
  });

  it("keeps a fault of the object's own code a fault: 500, logged with its text", async () => {
    const user = await makeUser();
    const lines = captureErrors();
    const bug = () => Object.assign(new Error("object's own bug"), { remote: true });
    const res = await call("POST", "/users/login", {
      body: { user_email: user.email, user_password: PASSWORD },
      vars: { LOGIN_THROTTLE: failing(env.LOGIN_THROTTLE, bug) },
    });
    expect(res.status, res.text).toBe(500);
    expect(lines()).toContainEqual(
      expect.objectContaining({
        request_id: res.headers.get("X-Request-Id"),
        error: "Error: object's own bug",
      }),
    );
  });

  it("still answers D1 lost during a sign-in as the database's", async () => {
    const user = await makeUser();
    const lines = captureErrors();
    const res = await call("POST", "/users/login", {
      body: { user_email: user.email, user_password: PASSWORD },
      d1: losingReads(/from "users"/).d1,
    });
    expect([res.status, res.headers.get("Retry-After")]).toEqual([503, "2"]);
    expect(res.body.error).toEqual({
      retry: "The database is busy: retry in 2 seconds with the same request_id",
    });
    expect(lines()).toContainEqual(
      expect.objectContaining({
        request_id: res.headers.get("X-Request-Id"),
        d1_unavailable: expect.stringContaining("Network connection lost"),
      }),
    );
    expect(lines().filter((line) => "durable_object_unavailable" in line)).toEqual([]);
  });
});

describe("a whole history while its caller's gate cannot answer", () => {
  it("answers 503 worded for the history, with paging as the way on, and logs HISTORY_GATE", async () => {
    const { admin, user, wallet } = await makeAccount();
    await appendHistory(user.id, wallet, HISTORY_CHUNK + 1);
    const lines = captureErrors();
    const res = await call("GET", "/transactions", {
      auth: admin.bearer,
      query: { security_code: 1, user_id: user.id },
      vars: { HISTORY_GATE: failing(env.HISTORY_GATE) },
    });
    expectUnavailable(res, lines(), "HISTORY_GATE", "A");
    expect(res.body.error.retry).toBe(
      "A whole history cannot be started now: try again in 2 seconds, or page with per_page (1-100) and page",
    );
    // A page needs no gate.
    const page = await call("GET", "/transactions", {
      auth: admin.bearer,
      query: { security_code: 1, user_id: user.id, per_page: 100 },
      vars: { HISTORY_GATE: failing(env.HISTORY_GATE) },
    });
    expect(page.status, page.text).toBe(200);
  });
});
