// Mail (docs/mail.md): the dev outbox, verification links, password reset by mail, the per-address
// limit, and the answers without a transport, in both namespaces.
import { env } from "cloudflare:workers";
import { describe, expect, it, vi } from "vitest";
import { CONSOLE_AUDIENCE } from "../src/auth/tokens";
import { losingReads } from "./d1-counter";
import {
  call,
  lockSignIn,
  makeAdmin,
  makeUser,
  PASSWORD,
  signedToken,
  signInFrom,
  type TestUser,
  testApp,
  unique,
} from "./helpers";

const OUTBOX = { MAIL_TRANSPORT: "outbox" };
const COMPAT = { ...OUTBOX, COMPAT_NAMESPACE: "rimplenet" };

type OutboxRow = { to_address: string; subject: string; body_text: string };

async function outboxFor(email: string) {
  const { results } = await env.DB.prepare(
    "SELECT to_address, subject, body_text FROM mail_outbox WHERE to_address = ? ORDER BY id",
  )
    .bind(email)
    .all<OutboxRow>();
  return results;
}

/** The link of the newest verification mail to `email`, as a path with its query. */
async function verifyLink(email: string) {
  const mail = (await outboxFor(email)).at(-1);
  const link = /https?:\/\/\S+\/users\/verify-email\?token=[A-Za-z0-9_-]+/.exec(
    mail?.body_text ?? "",
  )?.[0];
  expect(link, "a verification link in the mail").toBeDefined();
  return link!;
}

const pathOf = (link: string) => {
  const url = new URL(link);
  return url.pathname + url.search;
};

/** The code of the newest reset mail to `email`. */
async function resetCode(email: string) {
  const mail = (await outboxFor(email)).filter((m) => m.subject === "Reset your password").at(-1);
  const code = /^[A-Za-z0-9_-]{43}$/m.exec(mail?.body_text ?? "")?.[0];
  expect(code, "a reset code in the mail").toBeDefined();
  return code!;
}

const verifiedAt = async (user: TestUser) =>
  (
    await env.DB.prepare("SELECT email_verified_at_ms AS at FROM users WHERE id = ?")
      .bind(user.id)
      .first<{ at: number | null }>()
  )?.at;

const askVerification = (email: string, vars: Record<string, string> = OUTBOX) =>
  call("POST", "/users/verify-email", { body: { user_email: email }, vars });

describe("verification mail (wallet/v1)", () => {
  it("POST /users/verify-email puts a mail with a link in the dev outbox, and the link verifies the address once", async () => {
    const user = await makeUser();
    const res = await askVerification(user.email);
    expect(res.status, res.text).toBe(200);
    expect(res.body).toStrictEqual({
      status_code: 200,
      status: true,
      message: "If an account has this address, a mail is on its way",
      data: { user_email: user.email },
      error: [],
    });
    const mails = await outboxFor(user.email);
    expect(mails).toHaveLength(1);
    expect(mails[0]!.subject).toBe("Verify your e-mail address");
    const link = await verifyLink(user.email);
    expect(
      link.startsWith("https://wallet.example.test/wp-json/wallet/v1/users/verify-email?"),
    ).toBe(true);
    expect(await verifiedAt(user)).toBeNull();

    // A link checker's HEAD is answered as the GET would be and uses nothing up.
    const looked = await call("HEAD", pathOf(link));
    expect(looked.status).toBe(200);
    expect(await verifiedAt(user)).toBeNull();

    const confirmed = await call("GET", pathOf(link));
    expect(confirmed.status, confirmed.text).toBe(200);
    expect(looked.headers.get("content-type")).toBe(confirmed.headers.get("content-type"));
    expect(confirmed.body.message).toBe("Email address verified");
    expect(confirmed.body.data).toStrictEqual({ user_id: user.id, user_email: user.email });
    expect(await verifiedAt(user)).toEqual(expect.any(Number));

    const reused = await call("GET", pathOf(link));
    expect(reused.status).toBe(400);
    expect(reused.body.message).toBe("Invalid or expired link");
    expect((await call("HEAD", pathOf(link))).status).toBe(400);
  });

  it("refuses an expired link and leaves the address unverified", async () => {
    const user = await makeUser();
    let nowMs = Date.now();
    const app = testApp({ nowMs: () => nowMs });
    await call("POST", "/users/verify-email", {
      body: { user_email: user.email },
      vars: OUTBOX,
      app,
    });
    const link = await verifyLink(user.email);
    expect((await outboxFor(user.email)).at(-1)?.body_text).toContain("for 24 hours");
    // Live until the documented 24 hours are out (a HEAD uses nothing up), not a moment longer.
    nowMs += 24 * 60 * 60_000 - 1;
    expect((await call("HEAD", pathOf(link), { app })).status).toBe(200);
    nowMs += 1;
    const res = await call("GET", pathOf(link), { app });
    expect(res.status).toBe(400);
    expect(res.body).toStrictEqual({
      status_code: 400,
      status: "failed",
      message: "Invalid or expired link",
      data: [],
      error: { token: "This link or code is invalid, used or expired: ask for a new one" },
    });
    expect(await verifiedAt(user)).toBeNull();
  });

  it("refuses forged links: a well-formed random token, a malformed one, and none", async () => {
    const forged = "A".repeat(43);
    // 60 emoji are 60 characters (120 UTF-16 units): within the token's 100, so only no link.
    for (const token of [forged, "not-a-token", "x".repeat(44), "😀".repeat(60)]) {
      const res = await call("GET", `/users/verify-email?token=${encodeURIComponent(token)}`);
      expect(res.status, token).toBe(400);
      expect(res.body.message).toBe("Invalid or expired link");
    }
    const none = await call("GET", "/users/verify-email");
    expect(none.status).toBe(400);
    expect(none.body.error).toStrictEqual([{ token: ["token is required"] }]);
  });

  it("answers an address without an account as it answers one with, and mails nothing", async () => {
    const user = await makeUser();
    const nobody = `${unique("nobody")}@example.test`;
    const [known, unknown] = await Promise.all([
      askVerification(user.email),
      askVerification(nobody),
    ]);
    expect(unknown.status).toBe(200);
    expect(unknown.body.message).toBe(known.body.message);
    expect(await outboxFor(nobody)).toHaveLength(0);
  });

  it("refuses a missing or malformed address with user creation's e-mail texts", async () => {
    for (const [body, text] of [
      [{}, "user_email is required"],
      [{ user_email: "not an address" }, "Invalid user_email"],
    ] as const) {
      const res = await call("POST", "/users/verify-email", { body, vars: OUTBOX });
      expect(res.status).toBe(400);
      expect(res.body.error).toStrictEqual([{ user_email: [text] }]);
    }
  });
});

describe("GET verify-email-address (the plugin's dialect)", () => {
  it("the zugavalize-app sequence: POST users/ then verify-email-address with fire_email=true gets 2xx, and the mailed link verifies", async () => {
    const admin = await makeAdmin();
    const username = unique("zuga");
    const email = `${username}@example.test`;
    const created = await call("POST", "/wp-json/rimplenet/v1/users/", {
      auth: admin.bearer,
      body: { username, user_email: email, user_password: "s3cret-pass" },
      vars: COMPAT,
    });
    expect(created.status, created.text).toBe(201);
    const res = await call(
      "GET",
      `/wp-json/rimplenet/v1/verify-email-address/?email_address=${encodeURIComponent(email)}&fire_email=true`,
      { vars: COMPAT },
    );
    expect(res.status, res.text).toBe(200);
    expect(res.body).toStrictEqual({
      status_code: 200,
      status: true,
      message: "Verification Mail Email Sent",
      data: { mail: true },
    });
    const confirmed = await call("GET", pathOf(await verifyLink(email)));
    expect(confirmed.status, confirmed.text).toBe(200);
    expect(confirmed.body.data.user_id).toBe(created.body.data.id);
  });

  it('answers "email not parsed" for an address no account can have, and records nothing', async () => {
    const count = async () =>
      (await env.DB.prepare("SELECT count(*) AS n FROM mail_tokens").first<{ n: number }>())!.n;
    const before = await count();
    for (const address of ["not-an-email", `${"a".repeat(20_000)}@example.org`, "a@b"]) {
      const res = await call(
        "GET",
        `/wp-json/rimplenet/v1/verify-email-address?email_address=${encodeURIComponent(address)}&fire_email=true`,
        { vars: COMPAT },
      );
      expect(res.status, address.slice(0, 20)).toBe(400);
      expect(res.body).toStrictEqual({
        status_code: 400,
        status: false,
        message: "email not parsed",
        error: false,
      });
    }
    expect(await count()).toBe(before);
  });

  it("reads the address as POST users does, trimmed of any space, and mails that address", async () => {
    const user = await makeUser();
    const res = await call(
      "GET",
      `/wp-json/rimplenet/v1/verify-email-address?email_address=${encodeURIComponent(`${user.email}\u00a0`)}&fire_email=true`,
      { vars: COMPAT },
    );
    expect(res.status, res.text).toBe(200);
    expect(await outboxFor(user.email)).toHaveLength(1);
  });

  it('without a mail transport answers the plugin\'s "Email Not Sent", as before', async () => {
    const user = await makeUser();
    const res = await call(
      "GET",
      `/wp-json/rimplenet/v1/verify-email-address?email_address=${encodeURIComponent(user.email)}&fire_email=true`,
      { vars: { COMPAT_NAMESPACE: "rimplenet" } },
    );
    expect(res.status).toBe(400);
    expect(res.body).toStrictEqual({
      status_code: 400,
      status: false,
      message: "Email Not Sent",
      error: { mail: false },
    });
    expect(await outboxFor(user.email)).toHaveLength(0);
  });
});

describe("password reset by mail", () => {
  it("request, code in the outbox, confirm: the old password is refused, the new one works, every session ends", async () => {
    const user = await makeUser();
    const login = (password: string) =>
      call("POST", "/users/login", { body: { user_email: user.email, user_password: password } });
    const other = await login(PASSWORD);
    expect(other.status).toBe(200);

    const asked = await call("POST", "/users/password-reset", {
      body: { user_email: user.email },
      vars: OUTBOX,
    });
    expect(asked.status, asked.text).toBe(200);
    expect(asked.body.message).toBe("If an account has this address, a mail is on its way");
    const code = await resetCode(user.email);

    const changed = await call("POST", "/users/password-reset/confirm", {
      body: { token: code, user_password: "a-new-password" },
    });
    expect(changed.status, changed.text).toBe(200);
    expect(changed.body.message).toBe("Password changed");
    expect(changed.body.data).toStrictEqual({ user_id: user.id, sessions_revoked: 2 });

    for (const bearer of [user.bearer, `Bearer ${other.body.data.access_token}`]) {
      const res = await call("POST", "/users/logout", { auth: bearer });
      expect(res.status, "a session from before the change").toBe(401);
    }
    expect((await login(PASSWORD)).status).toBe(400);
    expect((await login("a-new-password")).status).toBe(200);

    const again = await call("POST", "/users/password-reset/confirm", {
      body: { token: code, user_password: "yet-another-one" },
    });
    expect(again.status).toBe(400);
    expect(again.body.message).toBe("Invalid or expired link");
  });

  it("answers a reset done, and ends the sessions in this isolate, when giving the guess back fails", async () => {
    const user = await makeUser();
    // The token is now trusted by this isolate's cache, as for any signed-in caller.
    expect((await call("GET", `/balances?user_id=${user.id}`, { auth: user.bearer })).status).toBe(
      200,
    );
    await call("POST", "/users/password-reset", { body: { user_email: user.email }, vars: OUTBOX });
    // The throttle takes the guess, then loses its answer when given it back.
    const real = env.LOGIN_THROTTLE;
    const losing = {
      idFromName: (name: string) => real.idFromName(name),
      get: (id: DurableObjectId) => {
        const object = real.get(id);
        return {
          reserve: (...args: Parameters<typeof object.reserve>) => object.reserve(...args),
          release: async () => {
            throw new Error("Network connection lost.");
          },
        };
      },
    };
    const log = vi.spyOn(console, "error").mockImplementation(() => {});
    const changed = await call("POST", "/users/password-reset/confirm", {
      body: { token: await resetCode(user.email), user_password: "a-new-password" },
      vars: { LOGIN_THROTTLE: losing as unknown as typeof real },
    });
    // The password is set: the answer says so (a retry would find the code used), and the guess
    // stays counted as a failure.
    expect([changed.status, changed.body.message], changed.text).toEqual([200, "Password changed"]);
    expect(log.mock.calls.map(([line]) => JSON.parse(String(line)))).toEqual([
      {
        request_id: changed.headers.get("X-Request-Id"),
        durable_object_unavailable: "LOGIN_THROTTLE",
        error: "Error: Network connection lost.",
      },
    ]);
    const after = await call("GET", `/balances?user_id=${user.id}`, { auth: user.bearer });
    expect(after.status, "a session the reset ended").toBe(401);
  });

  it("a confirm D1 cannot look up is no guess: retries through an outage lock no address", async () => {
    const user = await makeUser();
    const ip = "198.51.100.205";
    const { d1, lost } = losingReads(/from "mail_tokens"/i);
    for (let i = 0; i < 100; i++) {
      const busy = await call("POST", "/users/password-reset/confirm", {
        body: { token: "A".repeat(43), user_password: "a-new-password" },
        headers: { "CF-Connecting-IP": ip },
        d1,
      });
      expect(busy.status, busy.text).toBe(503);
    }
    expect(lost()).toBe(100);
    // 100 guesses would lock the address out of every sign-in for 15 minutes: these were none.
    expect((await signInFrom(user, PASSWORD, ip)).status).toBe(200);
  });

  it("a newer code retires the older one only when used; an expired code changes nothing", async () => {
    const user = await makeUser();
    let nowMs = Date.now();
    const app = testApp({ nowMs: () => nowMs });
    const ask = () =>
      call("POST", "/users/password-reset", {
        body: { user_email: user.email },
        vars: OUTBOX,
        app,
      });
    await ask();
    const first = await resetCode(user.email);
    await ask();
    const second = await resetCode(user.email);
    expect(second).not.toBe(first);
    const confirm = (token: string) =>
      call("POST", "/users/password-reset/confirm", {
        body: { token, user_password: "changed-once" },
        app,
      });
    expect((await confirm(second)).status).toBe(200);
    expect((await confirm(first)).status, "the older code, retired by the change").toBe(400);

    // A code works until the documented 30 minutes are out, not a moment longer.
    await ask();
    const onTime = await resetCode(user.email);
    expect((await outboxFor(user.email)).at(-1)?.body_text).toContain("for 30 minutes");
    nowMs += 30 * 60_000 - 1;
    expect((await confirm(onTime)).status).toBe(200);
    await ask();
    const late = await resetCode(user.email);
    nowMs += 30 * 60_000;
    expect((await confirm(late)).status).toBe(400);
  });

  it("ends the sign-in locks of the user's logins once the reset code sets a new password", async () => {
    const user = await makeUser();
    const ip = "203.0.113.77";
    await lockSignIn(user, ip);
    await call("POST", "/users/password-reset", { body: { user_email: user.email }, vars: OUTBOX });
    const changed = await call("POST", "/users/password-reset/confirm", {
      body: { token: await resetCode(user.email), user_password: "a-new-password" },
      headers: { "CF-Connecting-IP": ip },
    });
    expect(changed.status, changed.text).toBe(200);
    expect((await signInFrom(user, "a-new-password", ip)).status).toBe(200);
  });

  it("says a token sent as a number, list or object is no text, not that none was sent", async () => {
    for (const token of [123, ["abc"], { code: "abc" }]) {
      const res = await call("POST", "/users/password-reset/confirm", {
        body: { token, user_password: "123456" },
      });
      expect(res.status, JSON.stringify(token)).toBe(400);
      expect(res.body.error).toStrictEqual([{ token: ["token must be a string"] }]);
    }
  });

  it("checks the new password like user creation and keeps the code for a good one", async () => {
    const user = await makeUser();
    await call("POST", "/users/password-reset", { body: { user_email: user.email }, vars: OUTBOX });
    const code = await resetCode(user.email);
    const short = await call("POST", "/users/password-reset/confirm", {
      body: { token: code, user_password: "12345" },
    });
    expect(short.status).toBe(400);
    expect(short.body.error).toStrictEqual([
      { user_pass: ["Please enter at least 6 characters for the user_password"] },
    ]);
    const good = await call("POST", "/users/password-reset/confirm", {
      body: { token: code, user_password: "123456" },
    });
    expect(good.status, good.text).toBe(200);
  });

  it("answers an address without an account as one with, and mails nothing", async () => {
    const nobody = `${unique("nobody")}@example.test`;
    const res = await call("POST", "/users/password-reset", {
      body: { user_email: nobody },
      vars: OUTBOX,
    });
    expect(res.status).toBe(200);
    expect(res.body.message).toBe("If an account has this address, a mail is on its way");
    expect(await outboxFor(nobody)).toHaveLength(0);
  });
});

describe("the per-address limit", () => {
  it("answers 429 with Retry-After once an address had 5 mails in the hour, whichever route and namespace asked", async () => {
    const user = await makeUser();
    const answers = [
      await askVerification(user.email),
      await call("POST", "/users/password-reset", {
        body: { user_email: user.email },
        vars: OUTBOX,
      }),
      await askVerification(user.email),
      await call("POST", "/users/password-reset", {
        body: { user_email: user.email },
        vars: OUTBOX,
      }),
      await askVerification(user.email),
    ];
    expect(answers.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    const refused = await call("POST", "/users/password-reset", {
      body: { user_email: user.email.toUpperCase() },
      vars: OUTBOX,
    });
    expect(refused.status).toBe(429);
    expect(refused.body.message).toBe("Too many mails");
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    const compat = await call(
      "GET",
      `/wp-json/rimplenet/v1/verify-email-address?email_address=${encodeURIComponent(user.email)}&fire_email=true`,
      { vars: COMPAT },
    );
    expect(compat.status).toBe(429);
    expect(compat.body).toStrictEqual({
      status_code: 429,
      status: false,
      message: "Email Not Sent",
      error: { mail: false },
    });
    // 3 verification and 2 reset mails went out; the refused requests sent nothing.
    expect(await outboxFor(user.email)).toHaveLength(5);
  });

  it("counts an address without an account the same, so a 429 tells nothing", async () => {
    const nobody = `${unique("nobody")}@example.test`;
    for (let i = 0; i < 5; i++) expect((await askVerification(nobody)).status).toBe(200);
    expect((await askVerification(nobody)).status).toBe(429);
  });
});

/** A send_email binding that refuses every mail, as Email Service refuses a sender it cannot use. */
const refusingBinding = {
  send: async () => {
    throw new Error("invalid sender");
  },
};

describe("without a mail transport", () => {
  it.each([
    ["no MAIL_TRANSPORT", {}, "MAIL_TRANSPORT", []],
    ["an unknown MAIL_TRANSPORT", { MAIL_TRANSPORT: "smtp" }, "MAIL_TRANSPORT", ["MAIL_TRANSPORT"]],
    [
      "cloudflare without MAIL_FROM",
      { MAIL_TRANSPORT: "cloudflare", EMAIL: refusingBinding },
      "MAIL_FROM",
      ["MAIL_FROM"],
    ],
    [
      "cloudflare without MAIL_FROM or the EMAIL binding",
      { MAIL_TRANSPORT: "cloudflare" },
      "MAIL_FROM, EMAIL",
      ["MAIL_FROM", "EMAIL"],
    ],
    [
      "cloudflare without the EMAIL binding",
      { MAIL_TRANSPORT: "cloudflare", MAIL_FROM: "wallet@example.test" },
      "EMAIL",
      ["EMAIL"],
    ],
    // Sent from it, every mail failed after the answer (logged as mail_failed), unseen by /health.
    [
      "cloudflare with a MAIL_FROM that is no e-mail address",
      { MAIL_TRANSPORT: "cloudflare", MAIL_FROM: "Wallet", EMAIL: refusingBinding },
      "MAIL_FROM",
      ["MAIL_FROM"],
    ],
  ])(
    '%s: the mail routes answer 503 "Mail is not configured" naming it, and write nothing',
    async (_, vars, missing, health) => {
      vi.spyOn(console, "error").mockImplementation(() => {});
      const user = await makeUser();
      for (const path of ["/users/verify-email", "/users/password-reset"]) {
        const res = await call("POST", path, { body: { user_email: user.email }, vars });
        expect(res.status).toBe(503);
        expect(res.body).toStrictEqual({
          status_code: 503,
          status: "failed",
          message: "Mail is not configured",
          data: [],
          error: [`This service sends no mail (${missing}): ask its operator`],
        });
      }
      // Mail left unset is meant; a transport set but unusable is a problem GET /health names.
      const checked = await testApp().request("/health", {}, { ...env, ...vars });
      expect(checked.status).toBe(health.length === 0 ? 200 : 503);
      expect((await checked.json<{ missing: string[] }>()).missing).toEqual(health);
      vi.restoreAllMocks();
      const tokens = await env.DB.prepare("SELECT count(*) AS n FROM mail_tokens WHERE user_id = ?")
        .bind(user.id)
        .first<{ n: number }>();
      expect(tokens?.n).toBe(0);
    },
  );

  it("logs what is missing once per isolate, not at each request", async () => {
    const logged = vi.spyOn(console, "log").mockImplementation(() => {});
    const user = await makeUser();
    for (const path of ["/users/verify-email", "/users/password-reset", "/users/verify-email"])
      expect(
        (await call("POST", path, { body: { user_email: user.email }, vars: {} })).status,
      ).toBe(503);
    const lines = logged.mock.calls.map((args) => args.join(" "));
    vi.restoreAllMocks();
    // None when an earlier request in this isolate logged it already.
    expect(lines.filter((l) => l.includes('"mail":"not configured"')).length).toBeLessThanOrEqual(
      1,
    );
  });
});

describe("the dev outbox on a deployment's address", () => {
  it("is no transport where requests do not come to this machine: 503 naming MAIL_TRANSPORT, no mail kept or logged", async () => {
    const user = await makeUser();
    const logged = vi.spyOn(console, "log").mockImplementation(() => {});
    const errors = vi.spyOn(console, "error").mockImplementation(() => {});
    // A hostname that only begins as this machine's names (localhost.example.test,
    // 127.0.0.1.nip.io) is a deployment's all the same.
    for (const origin of [
      "https://wallet.example.test",
      "http://localhost.example.test",
      "http://127.0.0.1.nip.io",
    ]) {
      logged.mockClear();
      errors.mockClear();
      const deployed = await testApp().request(
        `${origin}/wp-json/wallet/v1/users/password-reset`,
        {
          method: "POST",
          headers: { "Content-Type": "application/json" },
          body: JSON.stringify({ user_email: user.email }),
        },
        { ...env, ...OUTBOX },
      );
      const health = await testApp().request(`${origin}/health`, {}, { ...env, ...OUTBOX });
      const lines = [...logged.mock.calls, ...errors.mock.calls].map((args) => args.join(" "));
      expect(deployed.status, origin).toBe(503);
      expect(await deployed.json(), origin).toMatchObject({
        message: "Mail is not configured",
        error: ["This service sends no mail (MAIL_TRANSPORT): ask its operator"],
      });
      expect(health.status, origin).toBe(503);
      expect((await health.json<{ missing: string[] }>()).missing, origin).toEqual([
        "MAIL_TRANSPORT",
      ]);
      expect(await outboxFor(user.email), origin).toEqual([]);
      expect(lines.join("\n"), origin).not.toContain("mail_outbox");
    }
    vi.restoreAllMocks();
    // On this machine (npm run dev, the tests) the same setting keeps the mail.
    const local = await call("POST", "/users/password-reset", {
      body: { user_email: user.email },
      vars: OUTBOX,
    });
    expect(local.status).toBe(200);
    expect(await outboxFor(user.email)).toHaveLength(1);
  });
});

describe("the dev outbox's size", () => {
  it("keeps the newest 200 mails: older ones go as a new one arrives", async () => {
    // Fillers older than any mail (negative ids), so no other file's mail is the one that goes.
    await env.DB.prepare(
      `INSERT INTO mail_outbox (id, to_address, subject, body_text, created_at_ms)
       WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 250)
       SELECT -i, 'filler@outbox.test', 'filler', '', 0 FROM n`,
    ).run();
    try {
      const user = await makeUser();
      expect((await askVerification(user.email)).status).toBe(200);
      const kept = await env.DB.prepare("SELECT count(*) AS n FROM mail_outbox").first<{
        n: number;
      }>();
      expect(kept?.n).toBe(200);
      expect(await outboxFor(user.email)).toHaveLength(1);
    } finally {
      await env.DB.prepare("DELETE FROM mail_outbox WHERE id < 0").run();
    }
  });
});

describe("the console's outbox (/wallet-admin/outbox)", () => {
  const consoleRequest = (path: string, init: RequestInit = {}) =>
    testApp().request(
      `http://localhost/wallet-admin${path}`,
      { ...init, redirect: "manual" },
      {
        ...env,
        ...OUTBOX,
      },
    );
  const signIn = async (user: TestUser) => {
    const res = await consoleRequest("/sign-in", {
      method: "POST",
      body: new URLSearchParams({ email: user.email, password: PASSWORD }),
    });
    return res.headers.get("set-cookie")?.split(";")[0];
  };

  it("shows an administrator the mails kept, link included", async () => {
    const [admin, user] = await Promise.all([makeAdmin(), makeUser()]);
    await askVerification(user.email);
    const link = await verifyLink(user.email);
    const cookie = await signIn(admin);
    const page = await consoleRequest("/outbox", { headers: { Cookie: cookie! } });
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain("Mail transport: outbox.");
    expect(html).toContain(`To ${user.email}`);
    expect(html).toContain(link);
  });

  it("sends a signed-out visitor to sign in and refuses a subscriber's console session", async () => {
    const user = await makeUser();
    await askVerification(user.email);
    const anonymous = await consoleRequest("/outbox");
    expect(anonymous.status).toBe(303);
    expect(anonymous.headers.get("location")).toBe("/wallet-admin/sign-in");
    const { token } = await signedToken(user, { audience: CONSOLE_AUDIENCE });
    const refused = await consoleRequest("/outbox", {
      headers: { Cookie: `wallet_admin=${token}` },
    });
    expect(refused.status).toBe(403);
    expect(await refused.text()).not.toContain("Verify your e-mail address");
  });
});
