// An account whose password hash is marked unusable (db/users.ts UNUSABLE_MARK: the WordPress
// import marks a network's spam users so): no surface signs it in with the password it had, and no
// reset mail reaches it or, mailed before the mark, is taken.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { phpassCrypt } from "../src/auth/wordpress-hashes";
import { UNUSABLE_MARK } from "../src/db/schema";
import { compatCall, GUARDED } from "./compat-helpers";
import { consoleOf, form } from "./console-helpers";
import { call, makeAdmin, makeUser, PASSWORD, type TestUser } from "./helpers";

const OUTBOX = { MAIL_TRANSPORT: "outbox" };
const SITE_HASH = phpassCrypt(PASSWORD, "$P$BabcdefgH")!;

const setHash = (user: TestUser, hash: string) =>
  env.DB.prepare("UPDATE users SET password_hash = ? WHERE id = ?").bind(hash, user.id).run();
const hashOf = async (user: TestUser) =>
  (await env.DB.prepare("SELECT password_hash AS h FROM users WHERE id = ?")
    .bind(user.id)
    .first<{ h: string }>())!.h;
const resetMails = async (user: TestUser) =>
  (
    await env.DB.prepare(
      "SELECT body_text FROM mail_outbox WHERE to_address = ? AND subject = 'Reset your password'",
    )
      .bind(user.email)
      .all<{ body_text: string }>()
  ).results;

/** Each surface's sign-in with the site's password: whether it opened a session. */
const SURFACES = {
  "wallet/v1": async (user: TestUser) => {
    const res = await call("POST", "/users/login", {
      body: { user_email: user.email, user_password: PASSWORD },
    });
    expect([200, 400], res.text).toContain(res.status);
    if (res.status === 400) expect(res.body.error).toEqual(["Invalid Credential"]);
    return res.status === 200;
  },
  "the plugin's": async (user: TestUser) => {
    const res = await compatCall("POST", "/wp-json/rimplenet/v1/users/login/", {
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ user_email: user.email, user_password: PASSWORD }).toString(),
      vars: GUARDED,
    });
    expect([200, 400], res.text).toContain(res.status);
    if (res.status === 400) expect(res.body.error).toEqual(["Invalid Credential"]);
    return res.status === 200;
  },
  console: async (user: TestUser) => {
    const res = await consoleOf().request("/sign-in", {
      method: "POST",
      body: form({ email: user.email, password: PASSWORD }),
    });
    expect([303, 400], res.html).toContain(res.status);
    if (res.status === 400) expect(res.html).toContain("Those credentials were not accepted.");
    return res.status === 303;
  },
};

describe("an account whose password is marked unusable", () => {
  for (const [surface, signIn] of Object.entries(SURFACES))
    it(`is refused by ${surface} sign-in with the password of the hash after the mark`, async () => {
      const user = surface === "console" ? await makeAdmin() : await makeUser();
      await setHash(user, `${UNUSABLE_MARK}${SITE_HASH}`);
      expect(await signIn(user)).toBe(false);
      expect(await hashOf(user)).toBe(`${UNUSABLE_MARK}${SITE_HASH}`);
      // The mark removed, the hash after it signs in again.
      await setHash(user, SITE_HASH);
      expect(await signIn(user)).toBe(true);
    });

  it("is shown in the console's user list as unable to sign in", async () => {
    const [marked, usable] = [await makeUser(), await makeUser()];
    await setHash(marked, `${UNUSABLE_MARK}${SITE_HASH}`);
    const { request, signIn } = consoleOf();
    const cookie = await signIn(await makeAdmin());
    const roleOf = async (user: TestUser) => {
      const page = await request(`/users?q=${encodeURIComponent(user.username)}`, { cookie });
      expect(page.status).toBe(200);
      return /<td>subscriber(.*?)<\/td>/s.exec(page.html)?.[1];
    };
    expect(await roleOf(marked)).toBe('<span class="muted"> · cannot sign in</span>');
    expect(await roleOf(usable)).toBe("");
  });

  it("is mailed no reset, answered as any address is, and a code mailed before the mark is refused", async () => {
    const user = await makeUser();
    const ask = () =>
      call("POST", "/users/password-reset", { body: { user_email: user.email }, vars: OUTBOX });
    expect((await ask()).status).toBe(200);
    const code = /^[A-Za-z0-9_-]{43}$/m.exec((await resetMails(user))[0]?.body_text ?? "")?.[0];
    expect(code, "a reset code mailed while the password was usable").toBeDefined();

    await setHash(user, `${UNUSABLE_MARK}${SITE_HASH}`);
    const asked = await ask();
    expect(asked.status, asked.text).toBe(200);
    expect(asked.body.message).toBe("If an account has this address, a mail is on its way");
    expect(await resetMails(user), "no second mail").toHaveLength(1);

    const used = await call("POST", "/users/password-reset/confirm", {
      body: { token: code, user_password: "a-new-password" },
    });
    expect(used.status, used.text).toBe(400);
    expect(used.body.message).toBe("Invalid or expired link");
    expect(await hashOf(user)).toBe(`${UNUSABLE_MARK}${SITE_HASH}`);
  });
});
