// Taking over an account without its password: mailed codes and links used where they do not
// belong, answers that tell which accounts exist, and spellings of one login that would each get
// their own sign-in throttle (docs/mail.md, docs/security.md).
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { consoleOf } from "./console-helpers";
import { call, makeAdmin, makeUser, PASSWORD, type Reply, unique } from "./helpers";

const OUTBOX = { MAIL_TRANSPORT: "outbox" };
/**
 * This file's client address: its failed sign-ins and reset codes count against it, not against
 * the one client that every file's requests without CF-Connecting-IP share.
 */
const CLIENT = { "CF-Connecting-IP": "2001:db8:acc7::1" };

async function newestMail(email: string, subject: string) {
  const row = await env.DB.prepare(
    "SELECT body_text FROM mail_outbox WHERE to_address = ? AND subject = ? ORDER BY id DESC LIMIT 1",
  )
    .bind(email, subject)
    .first<{ body_text: string }>();
  const token = /(?:token=|^)([A-Za-z0-9_-]{43})$/m.exec(row?.body_text ?? "")?.[1];
  expect(token, `a token in the newest "${subject}" mail to ${email}`).toBeDefined();
  return token!;
}

const askReset = (email: string) =>
  call("POST", "/users/password-reset", {
    body: { user_email: email },
    vars: OUTBOX,
    headers: CLIENT,
  });
const askVerification = (email: string) =>
  call("POST", "/users/verify-email", {
    body: { user_email: email },
    vars: OUTBOX,
    headers: CLIENT,
  });
const resetCode = (email: string) => newestMail(email, "Reset your password");
const verifyToken = (email: string) => newestMail(email, "Verify your e-mail address");
const confirm = (token: string, password = "taken-over") =>
  call("POST", "/users/password-reset/confirm", {
    body: { token, user_password: password },
    headers: CLIENT,
  });
const login = (user_email: string, password: string) =>
  call("POST", "/users/login", { body: { user_email, user_password: password }, headers: CLIENT });

describe("mailed codes used where they do not belong", () => {
  it("a verification link's token is no reset code, and a reset code verifies nothing", async () => {
    const user = await makeUser();
    await askVerification(user.email);
    await askReset(user.email);
    const link = await verifyToken(user.email);
    const code = await resetCode(user.email);
    expect((await confirm(link)).status, "a verification token as a reset code").toBe(400);
    expect((await login(user.email, "taken-over")).status).toBe(400);
    const verified = await call("GET", "/users/verify-email", { query: { token: code } });
    expect(verified.status, "a reset code as a verification link").toBe(400);
    // Both still work for what they were mailed for.
    expect((await confirm(code)).status).toBe(200);
    expect((await call("GET", "/users/verify-email", { query: { token: link } })).status).toBe(200);
  });

  it("a code with its letters' case changed, cut short or padded is refused and spends nothing", async () => {
    const user = await makeUser();
    await askReset(user.email);
    const code = await resetCode(user.email);
    const swapped = [...code]
      .map((ch) => (ch === ch.toLowerCase() ? ch.toUpperCase() : ch.toLowerCase()))
      .join("");
    for (const forged of [swapped, code.slice(0, 42), `${code}A`, ` ${code}`, `${code}\n`]) {
      const res = await confirm(forged);
      expect(res.status, `${JSON.stringify(forged)}: ${res.text}`).toBe(400);
    }
    expect((await confirm(code)).status, "the real code, still unused").toBe(200);
  });

  it("two codes confirmed at once: exactly one password is set", async () => {
    const user = await makeUser();
    await askReset(user.email);
    const first = await resetCode(user.email);
    await askReset(user.email);
    const second = await resetCode(user.email);
    const answers = await Promise.all([
      confirm(first, "password-one"),
      confirm(second, "password-two"),
      confirm(first, "password-three"),
    ]);
    expect(answers.map((a) => a.status).sort()).toStrictEqual([200, 400, 400]);
    const won = ["password-one", "password-two", "password-three"][
      answers.findIndex((a) => a.status === 200)
    ]!;
    for (const password of ["password-one", "password-two", "password-three"])
      expect((await login(user.email, password)).status, password).toBe(
        password === won ? 200 : 400,
      );
  });

  it("a code mailed to an address the user no longer has is refused, and so is a deleted user's", async () => {
    const moved = await makeUser();
    await askReset(moved.email);
    const code = await resetCode(moved.email);
    await askVerification(moved.email);
    const link = await verifyToken(moved.email);
    // No route changes an address; an operator's SQL (or a future route) may.
    await env.DB.prepare("UPDATE users SET email = ? WHERE id = ?")
      .bind(`${unique("moved")}@example.test`, moved.id)
      .run();
    expect((await confirm(code)).status, "a code for the old address").toBe(400);
    expect((await call("GET", "/users/verify-email", { query: { token: link } })).status).toBe(400);
    expect((await login(moved.username, PASSWORD)).status, "the password unchanged").toBe(200);

    // A user deleted, and a new one made with its address: the old code names nobody.
    const admin = await makeAdmin();
    const gone = await makeUser();
    await askReset(gone.email);
    const old = await resetCode(gone.email);
    const deleted = await call("DELETE", `/wp-json/rimplenet/v1/users/${gone.id}`, {
      auth: admin.bearer,
      vars: { COMPAT_NAMESPACE: "rimplenet" },
    });
    expect(deleted.status, deleted.text).toBe(200);
    const username = unique("heir");
    const made = await call("POST", "/users", {
      auth: admin.bearer,
      body: { username, user_email: gone.email, user_password: PASSWORD },
    });
    expect(made.status, made.text).toBe(201);
    expect((await confirm(old)).status, "the deleted user's code on its heir").toBe(400);
    expect((await login(username, PASSWORD)).status).toBe(200);
  });

  it("a reset ends the user's console sessions too", async () => {
    const admin = await makeAdmin();
    const { request, signIn } = consoleOf();
    const cookie = await signIn(admin);
    expect((await request("/", { cookie })).status).toBe(200);
    await askReset(admin.email);
    expect((await confirm(await resetCode(admin.email))).status).toBe(200);
    const after = await request("/", { cookie });
    expect(after.status, "the console session the reset ended").toBe(303);
    expect(after.headers.get("location")).toBe("/wallet-admin/sign-in");
  });
});

/** An answer without what differs between any two requests (its id, its date). */
const wire = (res: Reply) => ({
  status: res.status,
  body: res.text,
  headers: [...res.headers].filter(([name]) => !["x-request-id", "date"].includes(name)),
});

describe("asking for a mail tells nothing of who has an account", () => {
  it("answers an address with an account, verified or not, and one without, byte for byte alike", async () => {
    const user = await makeUser();
    const verified = await makeUser();
    await env.DB.prepare("UPDATE users SET email_verified_at_ms = 1 WHERE id = ?")
      .bind(verified.id)
      .run();
    const nobody = `${unique("nobody")}@example.test`;
    // Three addresses: an account's, a verified account's, nobody's. An answer that repeats the
    // address asked for is compared with it left out.
    for (const ask of [askReset, askVerification]) {
      const answers = [];
      for (const email of [user.email, verified.email, nobody]) {
        const res = await ask(email);
        answers.push(wire({ ...res, text: res.text.replace(email, "<address>") }));
      }
      expect(answers[1]).toStrictEqual(answers[0]);
      expect(answers[2]).toStrictEqual(answers[0]);
    }
    const compat = (email: string) =>
      call("GET", "/wp-json/rimplenet/v1/verify-email-address", {
        query: { email_address: email, fire_email: "true" },
        vars: { ...OUTBOX, COMPAT_NAMESPACE: "rimplenet" },
      });
    const plugin = await Promise.all([user.email, verified.email, nobody].map(compat));
    expect(wire(plugin[1]!)).toStrictEqual(wire(plugin[0]!));
    expect(wire(plugin[2]!)).toStrictEqual(wire(plugin[0]!));
  });

  it("a refused sign-in answers an unknown login and a wrong password byte for byte alike", async () => {
    const user = await makeUser();
    const wrong = await login(user.email, "not the password");
    const nobody = await login(`${unique("nobody")}@example.test`, "not the password");
    const byName = await login(user.username, "not the password");
    const nameless = await login(unique("nobody"), "not the password");
    expect(wire(nobody)).toStrictEqual(wire(wrong));
    expect(wire(nameless)).toStrictEqual(wire(byName));
    expect(wire(byName)).toStrictEqual(wire(wrong));
  });
});

describe("one login, many spellings: the sign-in throttle counts them as one", () => {
  it("case and surrounding blanks, Unicode's too, spend the same pair's 10 failures", async () => {
    const user = await makeUser();
    const spellings = [
      user.username,
      user.username.toUpperCase(),
      ` ${user.username}`,
      `${user.username}\t`,
      `\u00a0${user.username}`,
      `${user.username}\ufeff`,
      `${user.username}\u3000`,
      `${user.username}\u2028`,
      `\n${user.username.toUpperCase()}\r`,
      user.username.replace(/^./, (ch) => ch.toUpperCase()),
    ];
    for (const spelling of spellings) {
      const res = await login(spelling, "not the password");
      expect(res.status, `${JSON.stringify(spelling)}: ${res.text}`).toBe(400);
    }
    // All ten landed on one pair, which is now locked, whichever spelling brings the right password.
    for (const spelling of spellings) {
      const res = await login(spelling, PASSWORD);
      expect(res.status, `${JSON.stringify(spelling)}: ${res.text}`).toBe(429);
    }
    // A character that is no blank makes another login, which names nobody: no way round the lock.
    for (const spelling of [`${user.username}\u0000`, `${user.username}\u200b`]) {
      const res = await login(spelling, PASSWORD);
      expect(res.status, `${JSON.stringify(spelling)}: ${res.text}`).toBe(400);
    }
  });

  it("an e-mail's other spellings either share its locked pair or name nobody, in both dialects", async () => {
    // A name with a `k`, which the Kelvin sign (U+212A) looks like and Unicode case-folds to.
    const user = await makeUser("subscriber", unique("kate"));
    const [local, domain] = user.email.split("@") as [string, string];
    // An address of this test's own: the file's CLIENT keeps its count for the tests above.
    const from = { "CF-Connecting-IP": "2001:db8:acc7:e::1" };
    const v1 = (user_email: string, user_password: string) =>
      call("POST", "/users/login", { body: { user_email, user_password }, headers: from });
    const plugin = (user_email: string, user_password: string) =>
      call("POST", "/wp-json/rimplenet/v1/users/login", {
        body: { user_email, user_password },
        headers: from,
        vars: { COMPAT_NAMESPACE: "rimplenet" },
      });
    for (let i = 0; i < 10; i++) expect((await v1(user.email, `wrong-${i}`)).status).toBe(400);
    // Letter case folds onto the locked pair, in either dialect.
    for (const spelling of [user.email.toUpperCase(), `${local}@${domain.toUpperCase()}`])
      for (const signIn of [v1, plugin]) {
        const res = await signIn(spelling, PASSWORD);
        expect(res.status, `${spelling}: ${res.text}`).toBe(429);
      }
    // What a mail provider or Unicode's compatibility forms might call the same address is another
    // login here, and names nobody: the right password opens nothing through it.
    const fullWidth = (text: string) =>
      text.replace(/[!-~]/g, (ch) => String.fromCodePoint(ch.codePointAt(0)! + 0xfee0));
    for (const spelling of [
      `${local}\uff20${domain}`,
      `${fullWidth(local)}@${domain}`,
      fullWidth(user.email),
      `${local.slice(0, 2)}.${local.slice(2)}@${domain}`,
      `${local}+tag@${domain}`,
      `${local}@${domain}.`,
      `${local.replace(/k/gi, "\u212a")}@${domain}`,
    ])
      for (const signIn of [v1, plugin]) {
        const res = await signIn(spelling, PASSWORD);
        expect(res.status, `${JSON.stringify(spelling)}: ${res.text}`).toBe(400);
      }
  });
});
