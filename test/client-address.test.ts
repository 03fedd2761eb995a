// A request that reaches the sign-in throttle or the mail limits without CF-Connecting-IP counts as
// one shared client address (src/http/site.ts clientAddress): the first such request in an isolate
// says so, once. Listed in FRESH_START (vitest.config.ts): no request of another file comes before.
import { afterEach, describe, expect, it, vi } from "vitest";
import { call, makeAdmin, makeUser, type TestUser, unique } from "./helpers";

const noticesIn = (spy: { mock: { calls: unknown[][] } }) =>
  spy.mock.calls
    .map(([line]) => {
      try {
        return JSON.parse(String(line)) as Record<string, unknown>;
      } catch {
        return {};
      }
    })
    .filter((line) => line.setting === "CF-Connecting-IP");

const signIn = (user: TestUser, headers: Record<string, string>) =>
  call("POST", "/users/login", {
    body: { user_email: user.email, user_password: unique("wrong") },
    headers,
  });

afterEach(() => {
  vi.restoreAllMocks();
});

describe("a request without CF-Connecting-IP", () => {
  // First in the file: the notice is once per isolate, so one logged here would be the only one.
  it("is not logged by an administrator's unlock, which counts no client", async () => {
    const error = vi.spyOn(console, "error");
    const [admin, user] = [await makeAdmin(), await makeUser()];
    const unlock = await call("POST", `/users/${user.id}/unlock`, { auth: admin.bearer });
    expect(unlock.status, unlock.text).toBe(200);
    // Before: the unlock logged the isolate's one notice, naming its own request.
    expect(noticesIn(error)).toEqual([]);
  });

  it("is logged once per isolate, by the first sign-in or mail that lacks it, and never otherwise", async () => {
    const error = vi.spyOn(console, "error");
    const user = await makeUser();
    expect((await signIn(user, { "CF-Connecting-IP": "203.0.113.7" })).status).toBe(400);
    expect(noticesIn(error)).toEqual([]);
    const reset = await call("POST", "/users/password-reset", {
      body: { user_email: user.email },
      vars: { MAIL_TRANSPORT: "outbox" },
    });
    expect(reset.status, reset.text).toBe(200);
    // A blank header is no address either; the notice is not repeated.
    expect((await signIn(user, { "CF-Connecting-IP": " " })).status).toBe(400);
    expect((await signIn(user, {})).status).toBe(400);
    const notices = noticesIn(error);
    expect(notices).toHaveLength(1);
    expect(notices[0]).toMatchObject({ request_id: reset.headers.get("x-request-id") });
    expect(notices[0]!.notice).toMatch(/without CF-Connecting-IP.*one client address/);
  });
});
