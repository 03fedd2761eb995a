// POST users/login in the Rimplenet dialect: the shared sign-in (throttled, constant-cost), answered
// as the plugin answered (includes/users/login.php), and the middey client's sign-in replayed.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { compatCall, GUARDED } from "./compat-helpers";
import { call, makeAdmin, makeUser, PASSWORD, type TestUser, unique } from "./helpers";

const LOGIN = "/wp-json/rimplenet/v1/users/login/";
const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();
const FORM = { "Content-Type": "application/x-www-form-urlencoded" };

describe("POST users/login in the dialect", () => {
  it("Dynastiy/middey src/services/auth.js:6 (payload from src/modules/App/Auth/LoginFlow/Login.vue:83): signs in, and the token reads the user", async () => {
    const user: TestUser = await makeUser();
    const res = await compatCall("POST", LOGIN, {
      // axios sends the stored token, or `Bearer undefined` before there is one (src/https/axios.js:18).
      headers: { ...FORM, Authorization: "Bearer undefined" },
      body: form({ user_email: user.email, user_password: PASSWORD }),
      vars: GUARDED,
    });
    expect(res.status, res.text).toBe(200);
    expect(Object.keys(res.body)).toEqual(["status_code", "status", "message", "data", "error"]);
    expect(res.body).toMatchObject({
      status_code: 200,
      status: true,
      message: "Login successful",
      error: [],
    });
    expect(Object.keys(res.body.data)).toEqual([
      "access_token",
      "user_id",
      "user_email",
      "username",
      "time_of_login",
    ]);
    expect(res.body.data).toMatchObject({
      user_id: String(user.id),
      user_email: user.email,
      username: user.username,
    });
    expect(Number.isInteger(res.body.data.time_of_login)).toBe(true);
    const read = await compatCall("GET", `/wp-json/rimplenet/v1/users?user_id=${user.id}`, {
      headers: { Authorization: `Bearer ${res.body.data.access_token}` },
      vars: GUARDED,
    });
    expect(read.status, read.text).toBe(200);
  });

  it("refuses a wrong password as the plugin did, and an unknown token_expiration in its words", async () => {
    const user = await makeUser();
    const wrong = await compatCall("POST", LOGIN, {
      headers: FORM,
      body: form({ user_email: user.email, user_password: "nope-nope" }),
      vars: GUARDED,
    });
    expect(wrong.body).toStrictEqual({
      status_code: 400,
      status: "failed",
      message: "Validation error",
      data: [],
      error: ["Invalid Credential"],
    });
    const odd = await compatCall("POST", LOGIN, {
      headers: FORM,
      body: form({ user_email: user.email, user_password: PASSWORD, token_expiration: "forever" }),
      vars: GUARDED,
    });
    expect(odd.body).toStrictEqual({
      status_code: 400,
      status: "failed",
      message: "Validation error",
      data: [],
      error: { error: "unkown token_expiration" },
    });
  });

  it("is throttled with wallet/v1's sign-in: the 11th failure locks the account in both namespaces", async () => {
    const user = await makeUser();
    const headers = { ...FORM, "CF-Connecting-IP": "203.0.113.77" };
    for (let i = 0; i < 10; i++) {
      const res = await compatCall("POST", LOGIN, {
        headers,
        body: form({ user_email: user.email, user_password: `wrong-${i}` }),
        vars: GUARDED,
      });
      expect(res.status).toBe(400);
    }
    const locked = await compatCall("POST", LOGIN, {
      headers,
      body: form({ user_email: user.email, user_password: PASSWORD }),
      vars: GUARDED,
    });
    expect(locked.status).toBe(429);
    expect(locked.headers.get("Retry-After")).not.toBeNull();
    const there = await compatCall("POST", "/wp-json/wallet/v1/users/login", {
      headers,
      body: form({ user_email: user.email, user_password: PASSWORD }),
      vars: GUARDED,
    });
    expect(there.status).toBe(429);
  });

  it("reads a JSON number as its text, as it reads the password: a numeric username signs in, in both namespaces", async () => {
    // WordPress usernames can be digits (the plugin's site had `12345`), and a client that keeps
    // the login as a number sends it as one. The plugin's sanitize_text_field made it text; here
    // it was refused as missing ("user_email is required") while a numeric password was text.
    const digits = `${Date.now()}${Math.floor(Math.random() * 1000)}`;
    const user = await makeUser("subscriber", digits);
    for (const path of [LOGIN, "/wp-json/wallet/v1/users/login"]) {
      const res = await compatCall("POST", path, {
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ user_email: Number(digits), user_password: PASSWORD }),
        vars: GUARDED,
      });
      expect(res.status, res.text).toBe(200);
      expect(res.body.data.username).toBe(user.username);
    }
    const nobody = await compatCall("POST", LOGIN, {
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ user_email: 12345.5, user_password: PASSWORD }),
      vars: GUARDED,
    });
    expect(nobody.body).toStrictEqual({
      status_code: 400,
      status: "failed",
      message: "Validation error",
      data: [],
      error: ["Invalid Credential"],
    });
  });

  it("reads a JSON boolean as PHP's text of it, as the plugin did: true is the text 1, false is empty", async () => {
    const json = (body: Record<string, unknown>) =>
      compatCall("POST", LOGIN, {
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify(body),
        vars: GUARDED,
      });
    // `true` is "1", a login text like any other (the plugin, which took only an e-mail there,
    // answered "Invalid user_email"), never a missing field.
    expect((await json({ user_email: true, user_password: true })).body).toStrictEqual({
      status_code: 400,
      status: "failed",
      message: "Validation error",
      data: [],
      error: ["Invalid Credential"],
    });
    expect((await json({ user_email: false, user_password: false })).body.error).toEqual([
      { user_email: ["user_email is required"] },
      { user_pass: ["user_password is required"] },
    ]);
    // token_expiration as the plugin compared it: true == 'persistent', false and 0 == null
    const user = await makeUser();
    const lifetime = async (token_expiration: unknown) => {
      const res = await json({ user_email: user.email, user_password: PASSWORD, token_expiration });
      expect(res.status, res.text).toBe(200);
      const payload = res.body.data.access_token.split(".")[1].replaceAll("-", "+");
      const claims = JSON.parse(atob(payload.replaceAll("_", "/")));
      return claims.exp - claims.iat;
    };
    expect([await lifetime(true), await lifetime(false), await lifetime(0)]).toEqual([
      15_780_000, 3600, 3600,
    ]);
  });

  it("trims the password as wp_authenticate did (PHP's trim): a padded one signs in, blanks are a wrong one", async () => {
    const user = await makeUser();
    const padded = await compatCall("POST", LOGIN, {
      headers: FORM,
      body: form({ user_email: user.email, user_password: ` \t${PASSWORD}\n\0\x0B` }),
      vars: GUARDED,
    });
    expect(padded.status, padded.text).toBe(200);
    // Blanks pass the plugin's "is required" check and are empty once trimmed: a wrong password.
    const blanks = await compatCall("POST", LOGIN, {
      headers: FORM,
      body: form({ user_email: user.email, user_password: " \t " }),
      vars: GUARDED,
    });
    expect(blanks.body).toMatchObject({ status_code: 400, error: ["Invalid Credential"] });
    // Only what PHP's trim() removes: a no-break space is part of the password.
    const nbsp = await compatCall("POST", LOGIN, {
      headers: FORM,
      body: form({ user_email: user.email, user_password: `${PASSWORD}\u00a0` }),
      vars: GUARDED,
    });
    expect(nbsp.body).toMatchObject({ status_code: 400, error: ["Invalid Credential"] });
    // wallet/v1's sign-in takes the password exactly as sent.
    const exact = await compatCall("POST", "/wp-json/wallet/v1/users/login", {
      headers: FORM,
      body: form({ user_email: user.email, user_password: ` ${PASSWORD}` }),
      vars: GUARDED,
    });
    expect(exact.status, exact.text).toBe(400);
  });

  it("a password of 0 is empty to PHP, as wp_authenticate_username_password judged it: refused even where an imported hash is of 0", async () => {
    const user = await makeUser();
    // A site's bare MD5 of "0", as an old WordPress stored passwords.
    await env.DB.prepare("UPDATE users SET password_hash = ? WHERE id = ?")
      .bind("cfcd208495d565ef66e7dff9f98764da", user.id)
      .run();
    const zero = await compatCall("POST", LOGIN, {
      headers: FORM,
      body: form({ user_email: user.email, user_password: "0" }),
      vars: GUARDED,
    });
    expect(zero.body).toMatchObject({ status_code: 400, error: ["Invalid Credential"] });
  });

  it("reads the login without its accents, as WordPress's sanitize_user did: José signs in as Jose", async () => {
    const user = await makeUser("subscriber", unique("jose"));
    const typed = user.username.replace(/^jose/, "José");
    // NFC as a keyboard sends it, NFD as some systems do, and the e-mail as it is.
    for (const login of [typed, typed.normalize("NFD"), user.email]) {
      const res = await compatCall("POST", LOGIN, {
        headers: FORM,
        body: form({ user_email: login, user_password: PASSWORD }),
        vars: GUARDED,
      });
      expect(res.status, `${JSON.stringify(login)}: ${res.text}`).toBe(200);
      expect(res.body.data.user_id).toBe(String(user.id));
    }
    // A username kept with its accents (an import's) is found as typed first, as MySQL found it.
    const accented = await makeUser("subscriber", unique("josé"));
    const res = await compatCall("POST", LOGIN, {
      headers: FORM,
      body: form({ user_email: accented.username, user_password: PASSWORD }),
      vars: GUARDED,
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.user_id).toBe(String(accented.id));
  });

  it("an operator's unlock ends the lock failed sign-ins put on a username kept with accents", async () => {
    const [admin, accented] = await Promise.all([
      makeAdmin(),
      makeUser("subscriber", unique("josé")),
    ]);
    const signIn = (password: string) =>
      compatCall("POST", LOGIN, {
        headers: { ...FORM, "CF-Connecting-IP": "203.0.113.91" },
        body: form({ user_email: accented.username, user_password: password }),
        vars: GUARDED,
      });
    for (let i = 0; i < 10; i++) expect((await signIn(`wrong-${i}`)).status).toBe(400);
    expect((await signIn(PASSWORD)).status).toBe(429);
    const unlocked = await call("POST", `/users/${accented.id}/unlock`, { auth: admin.bearer });
    expect(unlocked.status, unlocked.text).toBe(200);
    const res = await signIn(PASSWORD);
    expect(res.status, res.text).toBe(200);
  });

  it("an unlock never clears another user's counts: José's accentless spelling is Jose's login", async () => {
    // The plugin counts `José` typed as `Jose`, so both users' failures there are one login's. An
    // unlock of José (asked of an operator by anyone) must not hand Jose's guessers a new round:
    // José's lock there waits out, and José signs in at once by e-mail or through wallet/v1.
    const plain = unique("jose");
    const [admin, jose, accented] = await Promise.all([
      makeAdmin(),
      makeUser("subscriber", plain),
      makeUser("subscriber", plain.replace(/^jose/, "José")),
    ]);
    const at = { ...FORM, "CF-Connecting-IP": "203.0.113.92" };
    const plugin = (login: string, password = PASSWORD) =>
      compatCall("POST", LOGIN, {
        headers: at,
        body: form({ user_email: login, user_password: password }),
        vars: GUARDED,
      });
    for (let i = 0; i < 10; i++)
      expect((await plugin(accented.username, `wrong-${i}`)).status).toBe(400);
    expect((await plugin(accented.username)).status).toBe(429);
    expect((await plugin(jose.username)).status).toBe(429);

    const unlocked = await call("POST", `/users/${accented.id}/unlock`, { auth: admin.bearer });
    expect(unlocked.status, unlocked.text).toBe(200);
    expect((await plugin(accented.username)).status).toBe(429);
    expect((await plugin(jose.username)).status).toBe(429);
    const byEmail = await plugin(accented.email);
    expect(byEmail.status, byEmail.text).toBe(200);
    expect(byEmail.body.data.user_id).toBe(String(accented.id));
    const native = await call("POST", "/users/login", {
      headers: { "CF-Connecting-IP": "203.0.113.92" },
      body: { user_email: accented.username, user_password: PASSWORD },
    });
    expect(native.status, native.text).toBe(200);
  });

  it("a username kept with accents is three logins to the throttle: 10 failures each from one address", async () => {
    // The price of the escape above (docs/security.md#sign-in-throttling): wallet/v1 counts the name
    // as typed, the plugin's dialect without its accents, and the e-mail is a login of its own.
    const accented = await makeUser("subscriber", unique("Jösé"));
    const at = { "CF-Connecting-IP": "203.0.113.93" };
    const native = (login: string, password: string) =>
      call("POST", "/users/login", {
        headers: at,
        body: { user_email: login, user_password: password },
      });
    const plugin = (login: string, password: string) =>
      compatCall("POST", LOGIN, {
        headers: { ...FORM, ...at },
        body: form({ user_email: login, user_password: password }),
        vars: GUARDED,
      });
    const checked: Record<string, number> = {};
    for (const [name, signIn, login] of [
      ["wallet/v1, the name as typed", native, accented.username],
      ["the plugin's dialect, the name without accents", plugin, accented.username],
      ["the e-mail", native, accented.email],
    ] as const) {
      checked[name] = 0;
      for (let i = 0; i < 11; i++)
        if ((await signIn(login, `wrong-${i}`)).status === 400) checked[name]++;
      expect((await signIn(login, PASSWORD)).status, name).toBe(429);
    }
    expect(checked).toEqual({
      "wallet/v1, the name as typed": 10,
      "the plugin's dialect, the name without accents": 10,
      "the e-mail": 10,
    });
  });

  it("is a 404 while the namespace is off", async () => {
    const res = await compatCall("POST", LOGIN, {
      headers: FORM,
      body: form({ user_email: "a@b.c", user_password: "x" }),
    });
    expect(res.status).toBe(404);
  });
});
