// A sign-in reads the user, checks the password, then writes its session: what happens to the user
// in between (a password reset, a deletion) must not leave a session behind, nor a 500
// (docs/security.md#sessions).
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { REFUSAL_FLOOR_MS } from "../src/auth/pace";
import { phpassCrypt } from "../src/auth/wordpress-hashes";
import { accountKey, addressKey, keyName, objectFor } from "../src/throttle/sign-in";
import { type BatchSender, losingReads, wrappedD1 } from "./d1-counter";
import { call, makeUser, PASSWORD, testApp } from "./helpers";

const OUTBOX = { MAIL_TRANSPORT: "outbox" };

/** The code of the newest reset mail to `email`. */
async function resetCode(email: string) {
  const row = await env.DB.prepare(
    "SELECT body_text FROM mail_outbox WHERE to_address = ? AND subject = 'Reset your password' ORDER BY id DESC",
  )
    .bind(email)
    .first<{ body_text: string }>();
  const code = /^[A-Za-z0-9_-]{43}$/m.exec(row?.body_text ?? "")?.[0];
  expect(code, "a reset code in the mail").toBeDefined();
  return code!;
}

/**
 * A D1 binding on which `meanwhile` runs (once, on the real binding) just before the first batch,
 * which for a sign-in is the one that writes its session: after its password was checked.
 */
function beforeFirstBatch(meanwhile: () => Promise<void>) {
  let ran = false;
  const sender: BatchSender = async (_statements, send) => {
    if (!ran) {
      ran = true;
      await meanwhile();
    }
    return send();
  };
  return { d1: wrappedD1(sender), ran: () => ran };
}

const signIn = (email: string, d1: D1Database, compat = false, password = PASSWORD, ip = "") =>
  call("POST", compat ? "/wp-json/rimplenet/v1/users/login" : "/users/login", {
    body: { user_email: email, user_password: password, token_expiration: "persistent" },
    d1,
    vars: compat ? { COMPAT_NAMESPACE: "rimplenet" } : {},
    headers: ip ? { "CF-Connecting-IP": ip } : {},
  });

/** Has the owner reset `user`'s password to `password`, by the mailed code. */
async function resetPassword(email: string, password: string) {
  await call("POST", "/users/password-reset", { body: { user_email: email }, vars: OUTBOX });
  const code = await resetCode(email);
  return () =>
    call("POST", "/users/password-reset/confirm", {
      body: { token: code, user_password: password },
    });
}

describe("a sign-in racing a change to its user", () => {
  for (const compat of [false, true])
    it(`a password reset while the old password is being checked opens no session (${compat ? "plugin dialect" : "wallet/v1"})`, async () => {
      const user = await makeUser();
      const confirmReset = await resetPassword(user.email, "the owner's new password");
      const race = beforeFirstBatch(async () => {
        const reset = await confirmReset();
        expect(reset.status, reset.text).toBe(200);
      });

      // Someone holding the old password signs in; the owner resets it meanwhile.
      const login = await signIn(user.email, race.d1, compat);
      expect(race.ran(), "the reset ran between the check and the session").toBe(true);
      expect(login.status, login.text).toBe(400);
      expect(login.body.error).toStrictEqual(["Invalid Credential"]);
      const { results } = await env.DB.prepare(
        "SELECT id FROM sessions WHERE user_id = ? AND revoked_at_ms IS NULL",
      )
        .bind(user.id)
        .all();
      expect(results, "no live session after the password changed").toStrictEqual([]);
    });

  it("a sign-in refused by that race is no good sign-in to the throttle", async () => {
    const user = await makeUser();
    const ip = "198.51.100.201";
    const confirmReset = await resetPassword(user.email, "the owner's new password");
    const race = beforeFirstBatch(async () => void (await confirmReset()));
    const refused = await signIn(user.email, race.d1, false, PASSWORD, ip);
    expect(race.ran()).toBe(true);
    expect(refused.status, refused.text).toBe(400);
    // A good one makes its address known to the account, which its ceiling then spares (the reset
    // itself ends the old password's locks, so what is left to see is the address).
    const account = await objectFor(env.LOGIN_THROTTLE, accountKey(user.id));
    expect(await account.knows(keyName(addressKey(ip)), Date.now())).toBe(false);
  });

  it("a sign-in refused by that race waits out the refusal floor, as every refusal after a check does", async () => {
    for (const change of ["a password reset", "a deletion"]) {
      const user = await makeUser();
      const confirmReset = await resetPassword(user.email, "the owner's new password");
      const race = beforeFirstBatch(async () => {
        if (change === "a password reset") await confirmReset();
        else
          await env.DB.batch([
            env.DB.prepare("DELETE FROM sessions WHERE user_id = ?").bind(user.id),
            env.DB.prepare("DELETE FROM users WHERE id = ?").bind(user.id),
          ]);
      });
      const asked: number[] = [];
      const app = testApp({ pace: async (floorMs) => void asked.push(floorMs) });
      const login = await call("POST", "/users/login", {
        body: { user_email: user.email, user_password: PASSWORD },
        d1: race.d1,
        app,
      });
      expect(race.ran(), change).toBe(true);
      expect(login.body.error, change).toStrictEqual(["Invalid Credential"]);
      // Unpadded, the refusal came back as soon as the session was refused: its time told that the
      // old password had been right.
      expect(asked, change).toStrictEqual([REFUSAL_FLOOR_MS]);
    }
  });

  it("a user deleted while the password is being checked: 400, not 500", async () => {
    const user = await makeUser();
    const race = beforeFirstBatch(async () => {
      await env.DB.batch([
        env.DB.prepare("DELETE FROM sessions WHERE user_id = ?").bind(user.id),
        env.DB.prepare("DELETE FROM users WHERE id = ?").bind(user.id),
      ]);
    });
    const login = await signIn(user.email, race.d1);
    expect(race.ran()).toBe(true);
    expect(login.status, login.text).toBe(400);
    expect(login.body.error).toStrictEqual(["Invalid Credential"]);
  });

  it("two first sign-ins of an imported user at once both succeed: an upgrade keeps the password", async () => {
    const user = await makeUser();
    await env.DB.prepare("UPDATE users SET password_hash = ? WHERE id = ?")
      .bind(phpassCrypt(PASSWORD, "$P$BabcdefgH"), user.id)
      .run();
    let second: Awaited<ReturnType<typeof call>> | undefined;
    const race = beforeFirstBatch(async () => {
      second = await signIn(user.email, env.DB);
    });
    const first = await signIn(user.email, race.d1);
    expect(second?.status, second?.text).toBe(200);
    expect(first.status, first.text).toBe(200);
    const hash = await env.DB.prepare("SELECT password_hash AS h FROM users WHERE id = ?")
      .bind(user.id)
      .first<{ h: string }>();
    expect(hash?.h.startsWith("$P$"), "upgraded to the service's own hash").toBe(false);
    for (const token of [first.body.data.access_token, second!.body.data.access_token]) {
      const res = await call("POST", "/users/logout", { auth: `Bearer ${token}` });
      expect(res.status, `a live session: ${res.text}`).toBe(200);
    }
  });
});

describe("a sign-in whose session D1 cannot write", () => {
  it("is no failed sign-in: the right password retried through an overload signs in once D1 is back", async () => {
    const user = await makeUser();
    const ip = "198.51.100.202";
    // Every batch fails as an overloaded D1 does: the password is checked, the session not written.
    const overloaded = wrappedD1(async () => {
      throw new Error("D1_ERROR: D1 DB is overloaded. Too many requests queued.");
    });
    for (let i = 0; i < 10; i++) {
      const busy = await signIn(user.email, overloaded, false, PASSWORD, ip);
      expect(busy.status, busy.text).toBe(503);
      expect(busy.headers.get("retry-after")).toBe("2");
    }
    // Told to retry in 2 seconds, the client did: those were no wrong passwords, so no lock.
    const back = await signIn(user.email, env.DB, false, PASSWORD, ip);
    expect(back.status, back.text).toBe(200);
  });
});

describe("a sign-in whose user D1 cannot read", () => {
  it("is no sign-in attempt: its client address is not locked by retries through an outage", async () => {
    const user = await makeUser();
    const ip = "198.51.100.203";
    // The user's look-up fails as a lost connection: no password is checked.
    const { d1, lost } = losingReads(/from "users"/i);
    for (let i = 0; i < 100; i++) {
      const busy = await signIn(user.email, d1, false, PASSWORD, ip);
      expect(busy.status, busy.text).toBe(503);
    }
    expect(lost()).toBe(100);
    // 100 failures would lock the address out of every account for 15 minutes: these were none.
    const back = await signIn(user.email, env.DB, false, PASSWORD, ip);
    expect(back.status, back.text).toBe(200);
  });
});

describe("a sign-in whose login's throttle object cannot answer", () => {
  it("is no sign-in attempt: its client address gets its count back", async () => {
    const user = await makeUser();
    const ip = "198.51.100.204";
    // LOGIN_THROTTLE as bound, but every login's object unreachable: the address's answers.
    const ns = env.LOGIN_THROTTLE;
    const unreachable = {
      idFromName: (name: string) => ns.idFromName(name),
      get: (id: DurableObjectId) =>
        new Proxy(ns.get(id), {
          get: (real, prop) =>
            prop === "reserveSignIn"
              ? async () => {
                  throw new Error("Network connection lost.");
                }
              : Reflect.get(real, prop),
        }),
    } as unknown as typeof ns;
    for (let i = 0; i < 100; i++) {
      const busy = await call("POST", "/users/login", {
        body: { user_email: user.email, user_password: PASSWORD },
        headers: { "CF-Connecting-IP": ip },
        vars: { LOGIN_THROTTLE: unreachable },
      });
      expect(busy.status, busy.text).toBe(503);
    }
    const back = await signIn(user.email, env.DB, false, PASSWORD, ip);
    expect(back.status, back.text).toBe(200);
  });
});
