import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeEach, describe, expect, it } from "vitest";
import type { Pace } from "../src/auth/pace";
import { hashPassword } from "../src/auth/password";
import { sha256Hex } from "../src/auth/sha256";
import { HELD_MS } from "../src/throttle/policy";
import { accountKey, addressKey, loginKey, objectFor } from "../src/throttle/sign-in";
import {
  appAt,
  call,
  makeUser as makeAnyUser,
  PASSWORD,
  type Reply,
  type testApp,
  unique,
} from "./helpers";

// Sign-in throttling: counts live in Durable Objects (src/throttle/), one per login as typed (its
// (login, address) pairs, known addresses and ceiling), one per account (the addresses either of
// its logins signed in from) and one per client address. Each test signs in from addresses of its
// own, so the tests of one file (which share storage) do not add to each other's counts.

/**
 * PASSWORD hashed as the service stores its own hashes, but at 1,000 PBKDF2 iterations where the
 * service uses 100,000: a check runs the count its stored hash names, and what this file counts is
 * sign-ins and their answers, never their cost, over some 900 checks (a login nobody has still
 * runs a whole dummy check). Each user here signs in with it.
 */
const cheapHash = hashPassword(PASSWORD, 1_000);
const makeUser = async () => makeAnyUser("subscriber", undefined, await cheapHash);

let lastOctet = 0;
/** A client address no other test uses (TEST-NET-2 and -3, varied in the last two bytes). */
const freshAddress = () => `198.51.${100 + Math.floor(lastOctet / 250)}.${(lastOctet++ % 250) + 1}`;

// Each test's attempts happen at one instant unless it says otherwise (appAt), so a Retry-After is
// the lock's exact length however long a loaded machine takes between two attempts.
let pinnedMs = Date.now();
let pinnedApp = appAt(pinnedMs);
beforeEach(() => {
  pinnedMs = Date.now();
  pinnedApp = appAt(pinnedMs);
});

/**
 * The app HELD_MS after `atMs`, as a client's next attempt comes once its failure was answered:
 * the failures counted at `atMs` can no longer be given back, so a lock they started says its whole
 * length (rounded up to the second), not the second a refusal by counts still held says.
 */
const settledAfter = (atMs = pinnedMs, options?: Parameters<typeof appAt>[1]) =>
  appAt(atMs + HELD_MS, options);

type Attempt = { login: string; password: string; ip: string; app?: ReturnType<typeof testApp> };
const attempt = ({ login, password, ip, app }: Attempt) =>
  call("POST", "/users/login", {
    body: { user_email: login, user_password: password },
    headers: { "CF-Connecting-IP": ip },
    app: app ?? pinnedApp,
  });

async function failTimes(n: number, a: Omit<Attempt, "password">) {
  const answers: Reply[] = [];
  for (let i = 0; i < n; i++) answers.push(await attempt({ ...a, password: `wrong-${i}` }));
  return answers;
}

const lockedOut = (retryAfterS: number) => ({
  status_code: 429,
  status: "failed",
  message: "Too many failed sign-in attempts",
  data: [],
  error: [`Too many failed sign-in attempts: try again in ${retryAfterS} seconds`],
});

function expectLocked(res: Reply, retryAfterS: number) {
  expect(res.status, res.text).toBe(429);
  expect(res.headers.get("retry-after")).toBe(String(retryAfterS));
  expect(res.headers.get("content-type")).toBe("application/json; charset=UTF-8");
  expect(res.body).toStrictEqual(lockedOut(retryAfterS));
}

describe("POST /users/login throttling per account and address", () => {
  it("answers the 11th attempt from one address after 10 failures with 429 and Retry-After 60, even with the right password", async () => {
    const user = await makeUser();
    const ip = freshAddress();
    const failures = await failTimes(10, { login: user.email, ip });
    expect(failures.map((r) => r.status)).toEqual(Array(10).fill(400));
    const right = { login: user.email, password: PASSWORD, ip };
    expectLocked(await attempt({ ...right, app: settledAfter() }), 60);
    // At the 10th failure's own instant it might yet have been a success that gives its count
    // back (its answer not sent): the refusal says to come back in a second.
    expectLocked(await attempt(right), 1);
  });

  it("a stranger's failures from address A do not lock address B out of the account", async () => {
    const user = await makeUser();
    const stranger = freshAddress();
    const app = appAt(pinnedMs);
    await failTimes(10, { login: user.email, ip: stranger, app });
    const locked = { login: user.email, password: PASSWORD, ip: stranger, app: settledAfter() };
    expectLocked(await attempt(locked), 60);
    const res = await attempt({
      login: user.username,
      password: PASSWORD,
      ip: freshAddress(),
      app,
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.user_id).toBe(user.id);
    // B's success does not lift A's lock.
    expectLocked(await attempt(locked), 60);
  });

  it("lets at most 10 of 20 parallel wrong attempts have their password checked; the rest answer 429", async () => {
    const user = await makeUser();
    const checked: number[] = [];
    const app = appAt(pinnedMs, { pace: async (floorMs) => void checked.push(floorMs) });
    const ip = freshAddress();
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        attempt({ login: user.email, password: `burst-${i}`, ip, app }),
      ),
    );
    const statuses = answers.map((r) => r.status).sort();
    expect(statuses.filter((s) => s !== 429)).toEqual(Array(10).fill(400));
    expect(checked).toHaveLength(10); // each password check that failed asked for its padding once
    expect(statuses.filter((s) => s === 429)).toHaveLength(10);
  });

  it("counts one pair over wallet/v1, the plugin's dialect and the console: of 30 wrong passwords sent at once through the three, in two letter cases, 10 are checked", async () => {
    const admin = await makeAnyUser("administrator", undefined, await cheapHash);
    const checked: number[] = [];
    const app = appAt(pinnedMs, { pace: async (floorMs) => void checked.push(floorMs) });
    const ip = freshAddress();
    const json = (login: string, password: string) =>
      [JSON.stringify({ user_email: login, user_password: password }), "application/json"] as const;
    const surfaces: ((login: string, password: string) => readonly [string, string, string])[] = [
      (login, password) => ["/wp-json/wallet/v1/users/login", ...json(login, password)],
      (login, password) => ["/wp-json/rimplenet/v1/users/login", ...json(login, password)],
      (login, password) => [
        "/wallet-admin/sign-in",
        new URLSearchParams({ email: login, password }).toString(),
        "application/x-www-form-urlencoded",
      ],
    ];
    const send = (i: number, password = `burst-${i}`) => {
      const login = i % 2 ? admin.email : admin.email.toUpperCase();
      const [path, body, type] = surfaces[i % 3]!(login, password);
      const headers = { "Content-Type": type, "CF-Connecting-IP": ip };
      return app.request(
        `http://localhost${path}`,
        { method: "POST", body, headers },
        { ...env, COMPAT_NAMESPACE: "rimplenet" },
      );
    };
    const answers = await Promise.all(Array.from({ length: 30 }, (_, i) => send(i)));
    const statuses = answers.map((r) => r.status).sort();
    expect(statuses).toEqual([...Array(10).fill(400), ...Array(20).fill(429)]);
    expect(checked).toHaveLength(10);
    // The right password, through each of them, finds the same lock.
    for (let i = 0; i < 3; i++) expect((await send(i, PASSWORD)).status).toBe(429);
  });

  it("leaves other accounts alone, from the same address", async () => {
    const [locked, other] = await Promise.all([makeUser(), makeUser()]);
    const ip = freshAddress();
    await failTimes(10, { login: locked.email, ip });
    expectLocked(
      await attempt({ login: locked.email, password: PASSWORD, ip, app: settledAfter() }),
      60,
    );
    const res = await attempt({ login: other.email, password: PASSWORD, ip });
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.user_id).toBe(other.id);
  });

  it("counts each login apart, in any case: the username's lock leaves the e-mail free", async () => {
    const user = await makeUser();
    const ip = freshAddress();
    const app = appAt(pinnedMs);
    await failTimes(5, { login: user.email.toUpperCase(), ip, app });
    await failTimes(10, { login: user.username, ip, app });
    const username = { login: user.username, password: PASSWORD, ip, app: settledAfter() };
    expectLocked(await attempt(username), 60);
    await failTimes(4, { login: user.email, ip, app });
    const res = await attempt({ login: user.email, password: PASSWORD, ip, app });
    expect(res.status, res.text).toBe(200);
    // A good password starts the login's own pair over, not the other's: at a shared address it
    // must not show that the two are one user's.
    expectLocked(await attempt(username), 60);
  });

  it("a user whose username is another's e-mail cannot lift that e-mail's locks by signing in", async () => {
    const victim = await makeUser();
    const collider = await makeUser();
    await env.DB.prepare("UPDATE users SET username = ? WHERE id = ?")
      .bind(victim.email.toUpperCase(), collider.id)
      .run();
    const ip = freshAddress();
    const app = appAt(pinnedMs);
    await failTimes(9, { login: victim.email, ip, app });
    const own = await attempt({ login: collider.email, password: PASSWORD, ip, app });
    expect(own.status, own.text).toBe(200);
    await failTimes(1, { login: victim.email, ip, app });
    expectLocked(
      await attempt({ login: victim.email, password: PASSWORD, ip, app: settledAfter() }),
      60,
    );
  });

  it("says nothing of which e-mail is a locked username's: it answers as for an e-mail nobody has", async () => {
    const user = await makeUser();
    const nobody = `${unique("nobody")}@example.test`;
    const ip = freshAddress();
    const app = appAt(pinnedMs);
    const settled = settledAfter();
    await failTimes(10, { login: user.username, ip, app });
    expectLocked(await attempt({ login: user.username, password: PASSWORD, ip, app: settled }), 60);
    const asKnown = await failTimes(10, { login: user.email, ip, app });
    const asUnknown = await failTimes(10, { login: nobody, ip, app });
    expect(asKnown.map((r) => [r.status, r.text])).toEqual(
      asUnknown.map((r) => [r.status, r.text]),
    );
    expectLocked(await attempt({ login: user.email, password: "again", ip, app: settled }), 60);
    expectLocked(await attempt({ login: nobody, password: "again", ip, app: settled }), 60);
  });

  it("starts the count over after a successful sign-in", async () => {
    const user = await makeUser();
    const ip = freshAddress();
    expect((await failTimes(9, { login: user.email, ip })).every((r) => r.status === 400)).toBe(
      true,
    );
    expect((await attempt({ login: user.email, password: PASSWORD, ip })).status).toBe(200);
    // Nine more failures: without the reset this would be 18 in the window, locked at the 10th.
    expect((await failTimes(9, { login: user.email, ip })).map((r) => r.status)).toEqual(
      Array(9).fill(400),
    );
    expect((await attempt({ login: user.email, password: PASSWORD, ip })).status).toBe(200);
  });

  it("lets the right password in once the 60-second lock is over", async () => {
    const user = await makeUser();
    const ip = freshAddress();
    const t0 = Date.now();
    await failTimes(10, { login: user.email, ip, app: appAt(t0) });
    expectLocked(
      await attempt({ login: user.email, password: PASSWORD, ip, app: appAt(t0 + 30_000) }),
      30,
    );
    const res = await attempt({
      login: user.email,
      password: PASSWORD,
      ip,
      app: appAt(t0 + 60_000),
    });
    expect(res.status, res.text).toBe(200);
  });

  it("doubles the lock each time it comes back: 60 s, 120 s, 240 s", async () => {
    const user = await makeUser();
    const ip = freshAddress();
    let now = Date.now();
    for (const lockS of [60, 120, 240]) {
      const answers = await failTimes(10, { login: user.email, ip, app: appAt(now) });
      expect(answers.map((r) => r.status)).toEqual(Array(10).fill(400));
      expectLocked(
        await attempt({ login: user.email, password: PASSWORD, ip, app: settledAfter(now) }),
        lockS,
      );
      now += lockS * 1000;
    }
  });

  it("counts only failures of the last 15 minutes", async () => {
    const user = await makeUser();
    const ip = freshAddress();
    const t0 = Date.now();
    await failTimes(9, { login: user.email, ip, app: appAt(t0) });
    const later = appAt(t0 + 15 * 60_000);
    expect(
      (await failTimes(9, { login: user.email, ip, app: later })).map((r) => r.status),
    ).toEqual(Array(9).fill(400));
    expect((await attempt({ login: user.email, password: PASSWORD, ip, app: later })).status).toBe(
      200,
    );
  });

  it("throttles an unknown login exactly like a known one, whatever its case", async () => {
    const [user, nobody] = [await makeUser(), `${unique("nobody")}@example.test`];
    const ip = freshAddress();
    // Two instants throughout, so both Retry-Afters are exact however slow the machine.
    const app = appAt(pinnedMs);
    const known = await failTimes(10, { login: user.email, ip, app });
    const unknown = await failTimes(10, { login: nobody, ip, app });
    expect(unknown.map((r) => [r.status, r.text])).toEqual(known.map((r) => [r.status, r.text]));
    const settled = settledAfter();
    const lockedKnown = await attempt({ login: user.email, password: "again", ip, app: settled });
    const lockedUnknown = await attempt({
      login: nobody.toUpperCase(),
      password: "again",
      ip,
      app: settled,
    });
    expectLocked(lockedKnown, 60);
    expectLocked(lockedUnknown, 60);
  });

  it("checks no password while locked: a refusal asks for no padding", async () => {
    const user = await makeUser();
    const ip = freshAddress();
    await failTimes(10, { login: user.email, ip });
    const paced: number[] = [];
    const pace: Pace = async (floorMs) => void paced.push(floorMs);
    expectLocked(
      await attempt({
        login: user.email,
        password: "wrong",
        ip,
        app: settledAfter(pinnedMs, { pace }),
      }),
      60,
    );
    expect(paced).toEqual([]);
  });
});

/** `perAddress` failures for `login` from each of `count` fresh addresses, all at `app`'s instant. */
async function spread(login: string, count: number, perAddress: number, app = appAt(pinnedMs)) {
  const answers: Reply[] = [];
  for (let i = 0; i < count; i++)
    answers.push(...(await failTimes(perAddress, { login, ip: freshAddress(), app })));
  return answers;
}

// 50 to 100 password checks (PBKDF2) per case: on a loaded machine that outlasts the 5 s default.
describe("POST /users/login: known addresses and the account's ceiling", {
  timeout: 30_000,
}, () => {
  it("a known address is not locked by 50 failures from 5 other addresses; an unknown one then gets 429 until the ceiling's lock ends", async () => {
    const user = await makeUser();
    const home = freshAddress();
    expect((await attempt({ login: user.email, password: PASSWORD, ip: home })).status).toBe(200);
    const t0 = Date.now();
    const failures = await spread(user.email, 5, 10, appAt(t0));
    expect(failures.map((r) => r.status)).toEqual(Array(50).fill(400));

    const fromHome = await attempt({
      login: user.email,
      password: PASSWORD,
      ip: home,
      app: appAt(t0),
    });
    expect(fromHome.status, fromHome.text).toBe(200);
    const elsewhere = { login: user.email, password: PASSWORD, ip: freshAddress() };
    expectLocked(await attempt({ ...elsewhere, app: settledAfter(t0) }), 60);
    expectLocked(await attempt({ ...elsewhere, app: appAt(t0 + 1_000) }), 59);
    const later = await attempt({ ...elsewhere, app: appAt(t0 + 60_000) });
    expect(later.status, later.text).toBe(200);
  });

  it("spares an address the account knows, and locks nothing of the other login", async () => {
    const user = await makeUser();
    const [home, earlier] = [freshAddress(), freshAddress()];
    expect((await attempt({ login: user.username, password: PASSWORD, ip: home })).status).toBe(
      200,
    );
    // An address only the account's object knows.
    const now = Date.now();
    await (await objectFor(env.LOGIN_THROTTLE, accountKey(user.id))).signedIn(
      sha256Hex(addressKey(earlier)),
      null,
      now,
    );
    await spread(user.email, 5, 10, appAt(now));
    for (const ip of [home, earlier]) {
      const res = await attempt({ login: user.email, password: PASSWORD, ip, app: appAt(now) });
      expect(res.status, `${ip}: ${res.text}`).toBe(200);
    }
    expectLocked(
      await attempt({
        login: user.email,
        password: PASSWORD,
        ip: freshAddress(),
        app: settledAfter(now),
      }),
      60,
    );
    // Strangers' failures on the e-mail lock nothing of the username.
    const res = await attempt({
      login: user.username,
      password: PASSWORD,
      ip: freshAddress(),
      app: appAt(now),
    });
    expect(res.status, res.text).toBe(200);
  });

  it("does not count the user's own failures at an address the account knows toward a login's ceiling", async () => {
    const user = await makeUser();
    const home = freshAddress();
    const now = Date.now();
    const signIn = (login: string, ip: string) =>
      attempt({ login, password: PASSWORD, ip, app: appAt(now) });
    expect((await signIn(user.email, home)).status).toBe(200);
    // Typos with the other login at home, which only the account knows, then strangers' 41.
    const typos = await failTimes(9, { login: user.username, ip: home, app: appAt(now) });
    expect(typos.map((r) => r.status)).toEqual(Array(9).fill(400));
    const strangers = [
      ...(await spread(user.username, 4, 10, appAt(now))),
      ...(await failTimes(1, { login: user.username, ip: freshAddress(), app: appAt(now) })),
    ];
    expect(strangers.map((r) => r.status)).toEqual(Array(41).fill(400));
    // 41 failures from addresses the user never signed in from: under the ceiling of 50.
    const res = await signIn(user.username, freshAddress());
    expect(res.status, res.text).toBe(200);
  });

  it("keeps apart two users whose usernames differ only in a letter outside A-Z", async () => {
    const [p, q] = [await makeUser(), await makeUser()];
    const tail = unique("mile");
    await env.DB.batch([
      env.DB.prepare("UPDATE users SET username = ? WHERE id = ?").bind(`\u00c9${tail}`, p.id),
      env.DB.prepare("UPDATE users SET username = ? WHERE id = ?").bind(`\u00e9${tail}`, q.id),
    ]);
    const now = Date.now();
    const qHome = freshAddress();
    const own = await attempt({ login: `\u00e9${tail}`, password: PASSWORD, ip: qHome });
    expect(own.body.data?.user_id, own.text).toBe(q.id);
    await spread(`\u00c9${tail}`, 5, 10, appAt(now));
    // Q's address is Q's: P's ceiling does not spare it.
    expectLocked(
      await attempt({
        login: `\u00c9${tail}`,
        password: "guess",
        ip: qHome,
        app: settledAfter(now),
      }),
      60,
    );
  });

  it("the ceiling's lock doubles when it comes back: 60 s, then 120 s", async () => {
    const user = await makeUser();
    let now = Date.now();
    for (const lockS of [60, 120]) {
      const failures = await spread(user.email, 5, 10, appAt(now));
      expect(failures.map((r) => r.status)).toEqual(Array(50).fill(400));
      expectLocked(
        await attempt({
          login: user.email,
          password: PASSWORD,
          ip: freshAddress(),
          app: settledAfter(now),
        }),
        lockS,
      );
      now += lockS * 1000;
    }
  });

  it("locks an unknown login's ceiling exactly like a known account's", async () => {
    const [user, nobody] = [await makeUser(), `${unique("nobody")}@example.test`];
    const t0 = Date.now();
    const known = await spread(user.email, 5, 10, appAt(t0));
    const unknown = await spread(nobody, 5, 10, appAt(t0));
    expect(unknown.map((r) => [r.status, r.text])).toEqual(known.map((r) => [r.status, r.text]));
    const ip = freshAddress();
    const settled = settledAfter(t0);
    expectLocked(await attempt({ login: user.email, password: "x", ip, app: settled }), 60);
    expectLocked(await attempt({ login: nobody, password: "x", ip, app: settled }), 60);
  });

  it("failures from a known address still lock that address's pair", async () => {
    const user = await makeUser();
    const home = freshAddress();
    expect((await attempt({ login: user.email, password: PASSWORD, ip: home })).status).toBe(200);
    await failTimes(10, { login: user.email, ip: home });
    expectLocked(
      await attempt({ login: user.email, password: PASSWORD, ip: home, app: settledAfter() }),
      60,
    );
  });

  it("spares an address the account signed in from no more than 30 days ago", async () => {
    const user = await makeUser();
    const home = freshAddress();
    const t0 = Date.now();
    const signIn = (atMs: number) =>
      attempt({ login: user.email, password: PASSWORD, ip: home, app: appAt(atMs) });
    expect((await signIn(t0)).status).toBe(200);
    const monthLater = t0 + 30 * 24 * 3_600_000;
    await spread(user.email, 5, 10, appAt(monthLater));
    expectLocked(await signIn(monthLater + HELD_MS), 60);
  });
});

// Each case checks over a hundred passwords (PBKDF2): on a loaded machine that outlasts the 5 s default.
describe("POST /users/login throttling per client address", { timeout: 30_000 }, () => {
  it("after 100 failures from one address in 15 minutes answers 429 for 15 minutes, to any account; other addresses sign in", async () => {
    const ip = freshAddress();
    const user = await makeUser();
    // One instant for the whole spray, so the lock's Retry-After is exact however slow the machine.
    const app = appAt(pinnedMs);
    // 100 failures over 20 unknown logins: no account reaches its own limit.
    const logins = Array.from({ length: 20 }, () => `${unique("spray")}@example.test`);
    for (let round = 0; round < 5; round++) {
      const answers = await Promise.all(
        logins.map((login) => attempt({ login, password: `spray-${round}`, ip, app })),
      );
      expect(answers.map((r) => r.status)).toEqual(Array(20).fill(400));
    }
    expectLocked(
      await attempt({ login: user.email, password: PASSWORD, ip, app: settledAfter() }),
      900,
    );
    const elsewhere = await attempt({ login: user.email, password: PASSWORD, ip: freshAddress() });
    expect(elsewhere.status, elsewhere.text).toBe(200);
  });

  it("does not count successful sign-ins against the address", async () => {
    const ip = freshAddress();
    const user = await makeUser();
    for (let i = 0; i < 110; i += 10) {
      const answers = await Promise.all(
        Array.from({ length: 10 }, () => attempt({ login: user.email, password: PASSWORD, ip })),
      );
      expect(answers.map((r) => r.status)).toEqual(Array(10).fill(200));
    }
  });

  it("does not count attempts a locked account refused against the address", async () => {
    const ip = freshAddress();
    const locked = await makeUser();
    await failTimes(10, { login: locked.email, ip });
    for (let i = 0; i < 100; i += 20) {
      const refused = await Promise.all(
        Array.from({ length: 20 }, () => attempt({ login: locked.email, password: "wrong", ip })),
      );
      expect(refused.map((r) => r.status)).toEqual(Array(20).fill(429));
    }
    // 10 failures and 100 refusals: the address has used 10 of its 100.
    const other = await makeUser();
    expect((await attempt({ login: other.email, password: PASSWORD, ip })).status).toBe(200);
  });

  it("counts an IPv6 client by its /64", async () => {
    const prefix = `2001:db8:${(lastOctet++).toString(16)}:1`;
    const users = await Promise.all(Array.from({ length: 10 }, () => makeUser()));
    for (const [i, user] of users.entries()) {
      const answers = await failTimes(9, {
        login: user.email,
        ip: `${prefix}::${(i + 1).toString(16)}`,
      });
      expect(answers.every((r) => r.status === 400)).toBe(true);
    }
    const target = await makeUser();
    await failTimes(10, { login: `${unique("v6")}@example.test`, ip: `${prefix}:0:0:0:ff` });
    expectLocked(
      await attempt({
        login: target.email,
        password: PASSWORD,
        ip: `${prefix}:abcd::1`,
        app: settledAfter(),
      }),
      900,
    );
  });

  it("reads the client from CF-Connecting-IP alone: forwarding headers a client sends make no new address", async () => {
    const user = await makeUser();
    const ip = freshAddress();
    // Each failure claims another client in every header a proxy might set; all ten are one pair.
    for (let i = 0; i < 10; i++) {
      const spoofed = `192.0.2.${i + 1}`;
      const res = await call("POST", "/users/login", {
        body: { user_email: user.email, user_password: `wrong-${i}` },
        headers: {
          "CF-Connecting-IP": ip,
          "X-Forwarded-For": spoofed,
          "X-Real-IP": spoofed,
          "True-Client-IP": spoofed,
          Forwarded: `for=${spoofed}`,
          "CF-Connecting-IPv6": `2001:db8:5::${i + 1}`,
        },
        app: pinnedApp,
      });
      expect(res.status, res.text).toBe(400);
    }
    const fresh = "192.0.2.200";
    const res = await call("POST", "/users/login", {
      body: { user_email: user.email, user_password: PASSWORD },
      headers: { "CF-Connecting-IP": ip, "X-Forwarded-For": fresh, "True-Client-IP": fresh },
      app: settledAfter(),
    });
    expectLocked(res, 60);
  });
});

describe("what one sign-in leaves in the throttle's storage", () => {
  const DAY_MS = 86_400_000;
  /** Each table's rows in `key`'s object ({} when it keeps no storage), and its alarm. */
  const stored = (key: string) =>
    runInDurableObject(objectFor(env.LOGIN_THROTTLE, key), async (_, state) => {
      const rows: Record<string, number> = {};
      for (const { name } of state.storage.sql
        .exec<{ name: string }>(
          "SELECT name FROM sqlite_master WHERE name IN ('throttle', 'pairs', 'known')",
        )
        .toArray())
        rows[name] = state.storage.sql.exec(`SELECT 1 FROM "${name}"`).toArray().length;
      return { rows, alarm: await state.storage.getAlarm() };
    });

  it("a failure from a new address: three rows in two objects, forgotten 15 minutes later", async () => {
    const ip = freshAddress();
    const login = `${unique("nobody")}@example.test`;
    expect((await attempt({ login, password: "wrong", ip })).status).toBe(400);
    const forgetAt = pinnedMs + 15 * 60_000; // the window: the alarm then deletes the object
    expect(await stored(addressKey(ip))).toEqual({
      rows: { throttle: 1, pairs: 0, known: 0 },
      alarm: forgetAt,
    });
    expect(await stored(loginKey(login))).toEqual({
      rows: { throttle: 1, pairs: 1, known: 0 },
      alarm: forgetAt,
    });
    // Asked in the place of an account, as the login names nobody: it keeps nothing.
    expect(await stored(`account:nobody:${login}`)).toEqual({ rows: {}, alarm: null });
  });

  it("a good sign-in: nothing of the address's count, its address known for 30 days", async () => {
    const user = await makeUser();
    const ip = freshAddress();
    expect((await attempt({ login: user.email, password: PASSWORD, ip })).status).toBe(200);
    expect(await stored(addressKey(ip))).toEqual({ rows: {}, alarm: null });
    const known = { known: 1, alarm: pinnedMs + 30 * DAY_MS };
    const login = await stored(loginKey(user.email));
    expect({ known: login.rows.known, pairs: login.rows.pairs, alarm: login.alarm }).toEqual({
      ...known,
      pairs: 0,
    });
    const account = await stored(accountKey(user.id));
    expect({ known: account.rows.known, alarm: account.alarm }).toEqual(known);
  });
});
