// A username must never name another account's e-mail, nor an e-mail another account's username
// (docs/security.md#usernames-and-e-mails): both dialects create users through one guarded insert,
// the administrator tool writes the same guard, and every lookup by login text (sign-in in both
// dialects, the plugin's user references) follows one rule: a text with `@` names the account
// whose e-mail it is, else the account with that username; a text without `@` is a username.
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { adminInsertSql } from "../scripts/lib/admin-insert";
import { hashPassword } from "../src/auth/password";
import { compatCall, GUARDED } from "./compat-helpers";
import {
  call,
  type Json,
  makeAdmin,
  PASSWORD,
  type TestUser,
  tableCounts,
  unique,
} from "./helpers";

const NS = "/wp-json/rimplenet/v1";
const NEW_PASSWORD = "s3cret-pass";
const NOT_OWN_EMAIL = "username may only be an e-mail address if it is the user_email";
const USERNAME_TAKEN = "username already taken";
const EMAIL_TAKEN = "user_email already taken";

let admin: TestUser;
let legacyHash: string;

beforeAll(async () => {
  admin = await makeAdmin();
  legacyHash = await hashPassword(PASSWORD);
});

/** A user written straight in SQL, as the WordPress import writes one: no rule checks it. */
async function legacyUser(username: string, email: string, passwordHash = legacyHash) {
  const row = await env.DB.prepare(
    "INSERT INTO users (username, email, password_hash, role, registered_at_ms) VALUES (?, ?, ?, 'subscriber', 0) RETURNING id",
  )
    .bind(username, email, passwordHash)
    .first<{ id: number }>();
  return { id: row!.id, username, email };
}

const address = (prefix: string) => `${unique(prefix)}@example.test`;

const dialects = {
  "wallet/v1": (body: Json) => call("POST", "/users", { auth: admin.bearer, body }),
  plugin: (body: Json) =>
    compatCall("POST", `${NS}/users`, {
      headers: { Authorization: admin.bearer, "Content-Type": "application/json" },
      body: JSON.stringify(body),
      vars: GUARDED,
    }),
};

const refused = (error: Json[]) => ({
  status_code: 400,
  status: "failed",
  message: "Validation error",
  data: [],
  error,
});

for (const [dialect, create] of Object.entries(dialects)) {
  describe(`creating a user (${dialect})`, () => {
    it("refuses a username that is another account's e-mail, in any case, writing nothing", async () => {
      const before = await tableCounts();
      for (const username of [admin.email, admin.email.toUpperCase()]) {
        const res = await create({
          username,
          user_email: address("impostor"),
          user_password: NEW_PASSWORD,
        });
        expect(res.status, res.text).toBe(400);
        expect(res.body).toStrictEqual(refused([{ user_login: [NOT_OWN_EMAIL, USERNAME_TAKEN] }]));
      }
      expect(await tableCounts()).toStrictEqual(before);
    });

    it("refuses a username that is another account's e-mail even when it is its own e-mail too", async () => {
      // The e-mail is then taken as well: both are reported, as the plugin reported both.
      const owner = await legacyUser(unique("owner"), address("owned"));
      const res = await create({
        username: owner.email,
        user_email: owner.email,
        user_password: NEW_PASSWORD,
      });
      expect(res.body).toStrictEqual(
        refused([{ user_login: [USERNAME_TAKEN] }, { user_email: [EMAIL_TAKEN] }]),
      );
    });

    it("refuses an e-mail that is an imported account's e-mail-shaped username, in any case", async () => {
      const legacy = await legacyUser(address("legacy"), address("elsewhere"));
      for (const email of [legacy.username, legacy.username.toUpperCase()]) {
        const res = await create({
          username: unique("newcomer"),
          user_email: email,
          user_password: NEW_PASSWORD,
        });
        expect(res.status, res.text).toBe(400);
        expect(res.body).toStrictEqual(refused([{ user_email: [EMAIL_TAKEN] }]));
      }
    });

    it("refuses a username containing @ that is not its own e-mail, though nobody has it", async () => {
      const res = await create({
        username: address("someone"),
        user_email: address("other"),
        user_password: NEW_PASSWORD,
      });
      expect(res.body).toStrictEqual(refused([{ user_login: [NOT_OWN_EMAIL] }]));
    });

    it("reports the e-mail rule beside the other field errors", async () => {
      const res = await create({
        username: admin.email,
        user_email: address("impostor"),
        user_password: "short",
      });
      expect(res.body).toStrictEqual(
        refused([
          { user_login: [NOT_OWN_EMAIL, USERNAME_TAKEN] },
          { user_pass: ["Please enter at least 6 characters for the user_password"] },
        ]),
      );
    });

    it("accepts a username that is its own e-mail, in another case, and it signs in by it", async () => {
      const email = address("self");
      const res = await create({
        username: email.toUpperCase(),
        user_email: email,
        user_password: NEW_PASSWORD,
      });
      expect(res.status, res.text).toBe(201);
      const login = await call("POST", "/users/login", {
        body: { user_email: email, user_password: NEW_PASSWORD },
      });
      expect(login.body.data).toMatchObject({ user_id: res.body.data.id, user_email: email });
    });
  });
}

describe("the administrator tool's insert (admin:create, the dev seed)", () => {
  const run = async (username: string, email: string) =>
    (
      await env.DB.prepare(
        adminInsertSql({ username, email, passwordHash: "x", nowMs: Date.now() }),
      ).all()
    ).results;

  it("refuses a username that is another account's e-mail and an e-mail that is another's username", async () => {
    const legacy = await legacyUser(address("legacy"), address("elsewhere"));
    expect(await run(admin.email.toUpperCase(), address("root"))).toEqual([]);
    expect(await run(unique("root"), legacy.username)).toEqual([]);
    expect(await run(address("root"), address("other"))).toEqual([]);
  });

  it("inserts an administrator whose username is its own e-mail, or has no @", async () => {
    const email = address("root");
    expect(await run(email, email)).toEqual([{ id: expect.any(Number) }]);
    expect(await run(unique("root"), address("root"))).toEqual([{ id: expect.any(Number) }]);
  });
});

describe("a login text names one account (sign-in in both dialects)", () => {
  const signIn = {
    "wallet/v1": (login: string, password: string) =>
      call("POST", "/users/login", { body: { user_email: login, user_password: password } }),
    plugin: (login: string, password: string) =>
      compatCall("POST", `${NS}/users/login/`, {
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ user_email: login, user_password: password }),
        vars: GUARDED,
      }),
  };

  for (const [dialect, login] of Object.entries(signIn)) {
    it(`(${dialect}) with @, the e-mail's owner; the imported username that shadows it signs in by its own e-mail`, async () => {
      const text = address("shared");
      const owner = await legacyUser(unique("owner"), text);
      const shadow = await legacyUser(text, address("shadow"), await hashPassword("shadow-pass"));
      const asOwner = await login(text.toUpperCase(), PASSWORD);
      expect(asOwner.status, asOwner.text).toBe(200);
      expect(String(asOwner.body.data.user_id)).toBe(String(owner.id));
      expect((await login(text, "shadow-pass")).body.error).toEqual(["Invalid Credential"]);
      const asShadow = await login(shadow.email, "shadow-pass");
      expect(String(asShadow.body.data.user_id)).toBe(String(shadow.id));
    });

    it(`(${dialect}) without @, only a username: an imported e-mail without @ names nobody`, async () => {
      const text = unique("bare");
      await legacyUser(unique("odd"), text, await hashPassword("odd-pass"));
      const named = await legacyUser(text, address("named"));
      expect((await login(text, "odd-pass")).body.error).toEqual(["Invalid Credential"]);
      const res = await login(text, PASSWORD);
      expect(res.status, res.text).toBe(200);
      expect(String(res.body.data.user_id)).toBe(String(named.id));
    });
  }
});

describe("the plugin's user references (GET users?user_id=)", () => {
  const read = (text: string) =>
    compatCall("GET", `${NS}/users?user_id=${encodeURIComponent(text)}`, {
      headers: { Authorization: admin.bearer },
      vars: GUARDED,
    });

  it("an e-mail names the account whose e-mail it is, not an imported account named by it", async () => {
    const impostor = await legacyUser(admin.email.toUpperCase(), address("impostor"));
    const res = await read(admin.email);
    expect(res.status, res.text).toBe(200);
    expect(res.body.data).toMatchObject({ id: admin.id, username: admin.username });
    // The impostor is still reached by its id, or by its own e-mail.
    expect((await read(impostor.email)).body.data).toMatchObject({ id: impostor.id });
  });

  it("an e-mail-shaped username nobody has as an e-mail still names its account", async () => {
    const legacy = await legacyUser(address("wp-login"), address("wp-mail"));
    expect((await read(legacy.username)).body.data).toMatchObject({ id: legacy.id });
  });
});
