import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { HELD_MS } from "../src/throttle/policy";
import {
  appAt,
  call,
  lockSignIn,
  makeAdmin,
  makeKey,
  makeUser,
  PASSWORD,
  signInFrom,
} from "./helpers";

// POST /users/{user_id}/unlock: an operator clears an account's sign-in lock (docs/security.md).
// Its authorization matrix runs with every other route's in auth.test.ts.

describe("POST /users/{user_id}/unlock", () => {
  it("clears a locked account, so the right password signs in at once", async () => {
    const [admin, user] = await Promise.all([makeAdmin(), makeUser()]);
    await lockSignIn(user, "203.0.113.10");
    const res = await call("POST", `/users/${user.id}/unlock`, { auth: admin.bearer });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toStrictEqual({
      status_code: 200,
      status: true,
      message: "Sign-in lock cleared",
      data: { user_id: user.id, was_locked: true, failed_attempts: 10 },
      error: [],
    });
    expect((await signInFrom(user, PASSWORD, "203.0.113.10")).status).toBe(200);
  });

  it("clears the locks of every address and the account's ceiling: each of them signs in at once", async () => {
    const [admin, user] = await Promise.all([makeAdmin(), makeUser()]);
    const addresses = [
      "203.0.113.20",
      "203.0.113.21",
      "203.0.113.22",
      "203.0.113.23",
      "203.0.113.24",
    ];
    for (const ip of addresses)
      for (let i = 0; i < 10; i++)
        expect((await signInFrom(user, `wrong-${i}`, ip)).status).toBe(400);
    expect((await signInFrom(user, PASSWORD, addresses[0]!)).status).toBe(429);
    expect((await signInFrom(user, PASSWORD, "203.0.113.25")).status).toBe(429); // the ceiling
    const res = await call("POST", `/users/${user.id}/unlock`, { auth: admin.bearer });
    expect(res.body.data).toStrictEqual({
      user_id: user.id,
      was_locked: true,
      failed_attempts: 50,
    });
    for (const ip of [...addresses, "203.0.113.25"])
      expect((await signInFrom(user, PASSWORD, ip)).status, ip).toBe(200);
  }, 30_000);

  it("clears the locks of both logins, the username's and the e-mail's", async () => {
    const [admin, user] = await Promise.all([makeAdmin(), makeUser()]);
    const ip = "203.0.113.14";
    const byName = (password: string) =>
      call("POST", "/users/login", {
        body: { user_email: user.username, user_password: password },
        headers: { "CF-Connecting-IP": ip },
      });
    for (let i = 0; i < 10; i++) expect((await byName(`wrong-${i}`)).status).toBe(400);
    await lockSignIn(user, ip);
    expect((await byName(PASSWORD)).status).toBe(429);
    const res = await call("POST", `/users/${user.id}/unlock`, { auth: admin.bearer });
    expect(res.body.data).toStrictEqual({
      user_id: user.id,
      was_locked: true,
      failed_attempts: 20,
    });
    expect((await byName(PASSWORD)).status).toBe(200);
    expect((await signInFrom(user, PASSWORD, ip)).status).toBe(200);
  });

  it("leaves alone a login that names another user: a username that is another's e-mail", async () => {
    const [admin, victim, collider] = await Promise.all([makeAdmin(), makeUser(), makeUser()]);
    await env.DB.prepare("UPDATE users SET username = ? WHERE id = ?")
      .bind(victim.email, collider.id)
      .run();
    await lockSignIn(victim, "203.0.113.15");
    const res = await call("POST", `/users/${collider.id}/unlock`, { auth: admin.bearer });
    expect(res.body.data).toStrictEqual({
      user_id: collider.id,
      was_locked: false,
      failed_attempts: 0,
    });
    expect((await signInFrom(victim, PASSWORD, "203.0.113.15")).status).toBe(429);
  });

  it("also forgets the back-off: the next lock lasts 60 s again", async () => {
    const [admin, user] = await Promise.all([makeAdmin(), makeUser()]);
    await lockSignIn(user, "203.0.113.11");
    expect((await call("POST", `/users/${user.id}/unlock`, { auth: admin.bearer })).status).toBe(
      200,
    );
    const now = Date.now();
    for (let i = 0; i < 10; i++) await signInFrom(user, `again-${i}`, "203.0.113.11", appAt(now));
    // Asked once those failures are answered, the lock says its whole length.
    const locked = await signInFrom(user, PASSWORD, "203.0.113.11", appAt(now + HELD_MS));
    expect(locked.status).toBe(429);
    expect(locked.headers.get("retry-after")).toBe("60");
  });

  it("answers 200 for an account that was not locked, saying so", async () => {
    const [admin, user] = await Promise.all([makeAdmin(), makeUser()]);
    await signInFrom(user, "one wrong", "203.0.113.12");
    const res = await call("POST", `/users/${user.id}/unlock`, { auth: admin.bearer });
    expect(res.status).toBe(200);
    expect(res.body.data).toStrictEqual({
      user_id: user.id,
      was_locked: false,
      failed_attempts: 1,
    });
  });

  it("counts only failures still counted: none past the 15-minute window or before a lock that ended", async () => {
    const [admin, user] = await Promise.all([makeAdmin(), makeUser()]);
    const now = Date.now();
    await signInFrom(user, "old wrong", "203.0.113.15", appAt(now));
    for (let i = 0; i < 10; i++) await signInFrom(user, `wrong-${i}`, "203.0.113.16", appAt(now));
    // 16 minutes on: the first failure is out of its window, the 60 s lock long over, so the next
    // attempt from either address is counted afresh: nothing is still counted, nothing locked.
    const unlock = (atMs: number) =>
      call("POST", `/users/${user.id}/unlock`, { auth: admin.bearer, app: appAt(atMs) });
    const res = await unlock(now + 16 * 60_000);
    expect(res.body.data).toStrictEqual({
      user_id: user.id,
      was_locked: false,
      failed_attempts: 0,
    });
  });

  it("answers 404 in envelope B for a user id that does not exist", async () => {
    const admin = await makeAdmin();
    for (const id of ["2000000000", "99999999999999999999"]) {
      const res = await call("POST", `/users/${id}/unlock`, { auth: admin.bearer });
      expect(res.status).toBe(404);
      expect(res.body).toStrictEqual({
        status_code: 404,
        status: "failed",
        message: "Invalid User credentials",
        data: [],
        error: [`Unable to reach ${id}`],
      });
    }
  });

  it("answers rest_no_route for an id that is not a number", async () => {
    const admin = await makeAdmin();
    const res = await call("POST", "/users/abc/unlock", { auth: admin.bearer });
    expect(res.status).toBe(404);
    expect(res.body.code).toBe("rest_no_route");
  });

  it("answers 401 without credentials and 403 to a subscriber or a read key, and unlocks nothing then", async () => {
    const [admin, user] = await Promise.all([makeAdmin(), makeUser()]);
    await lockSignIn(user, "203.0.113.13");
    const none = await call("POST", `/users/${user.id}/unlock`);
    expect(none.status).toBe(401);
    expect(none.body).toStrictEqual({
      status_code: 401,
      status: "failed",
      message: "Permission denied",
      data: [],
      error: { unauthorize: "No authorization provided" },
    });
    for (const auth of [user.bearer, (await makeKey(admin, "read")).header]) {
      const res = await call("POST", `/users/${user.id}/unlock`, { auth });
      expect(res.status).toBe(403);
      expect(res.body).toStrictEqual({
        status_code: 403,
        status: "failed",
        message: "Permission denied",
        data: [],
        error: { unauthorize: "Request is not authorized" },
      });
    }
    expect((await signInFrom(user, PASSWORD, "203.0.113.13")).status).toBe(429);
  });

  it("is listed by the discovery index and the OpenAPI document", async () => {
    const admin = await makeAdmin();
    const index = await call("GET", "/wp-json/wallet/v1");
    expect(index.body.routes["/wallet/v1/users/(?P<user_id>[\\d]+)/unlock"]).toEqual({
      namespace: "wallet/v1",
      methods: ["POST"],
    });
    const openapi = await call("GET", "/openapi.json", { auth: admin.bearer });
    expect(Object.keys(openapi.body.paths["/wp-json/wallet/v1/users/{user_id}/unlock"])).toEqual([
      "post",
    ]);
  });
});
