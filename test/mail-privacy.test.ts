// What mailed links tell a stranger (docs/mail.md#asking-for-a-mail-reveals-nothing): a request
// for a mail makes the same D1 writes whether or not an account has the address; a reset code is
// looked up before any password is hashed, and guesses are throttled per client address; one
// client cannot spend the mail another needs; and no bookmark goes to a caller who presented no
// credential.
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import fc from "fast-check";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { maskAddresses } from "../src/email-address";
import { HELD_MS } from "../src/throttle/policy";
import { countingD1 } from "./d1-counter";
import {
  API,
  answeredWithout,
  call,
  makeAdmin,
  makeUser,
  PASSWORD,
  sharedApp,
  testApp,
  unique,
} from "./helpers";

const BOOKMARK = "x-d1-bookmark";

/** Cloudflare Email Service, stood in for: mail leaves without touching D1, as in production. */
function emailService() {
  const sent: { to: string; subject: string; text: string }[] = [];
  const vars = {
    MAIL_TRANSPORT: "cloudflare",
    MAIL_FROM: "wallet@example.test",
    EMAIL: { send: async (m: (typeof sent)[number]) => void sent.push(m) },
  } as unknown as Record<string, string>;
  return { sent, vars };
}

const OUTBOX = { MAIL_TRANSPORT: "outbox" };
const COMPAT = { ...OUTBOX, COMPAT_NAMESPACE: "rimplenet" };

const ASKS = {
  "POST /users/password-reset": (email: string) => ({
    method: "POST",
    path: "/users/password-reset",
    body: { user_email: email },
  }),
  "POST /users/verify-email": (email: string) => ({
    method: "POST",
    path: "/users/verify-email",
    body: { user_email: email },
  }),
  "GET verify-email-address (plugin)": (email: string) => ({
    method: "GET",
    path: `/wp-json/rimplenet/v1/verify-email-address?email_address=${encodeURIComponent(email)}&fire_email=true`,
    body: undefined,
  }),
};

// An isolate's first request asks D1 once whether every migration is in: measure after it.
beforeAll(() => call("POST", "/users/login", { body: {} }));

describe("a request for a mail writes alike for every address", () => {
  it.each(Object.entries(ASKS))(
    "%s: the same D1 statements, round trips and rows written with or without an account",
    async (_, ask) => {
      const { sent, vars } = emailService();
      const d1 = countingD1();
      const costOf = async (email: string) => {
        const { method, path, body } = ask(email);
        const { value, cost } = await d1.measure(() =>
          call(method, path, {
            body,
            d1: d1.db,
            vars: { ...vars, COMPAT_NAMESPACE: "rimplenet" },
            headers: { "CF-Connecting-IP": `198.51.100.${Math.floor(Math.random() * 250)}` },
          }),
        );
        expect(value.status, value.text).toBe(200);
        expect(value.headers.get(BOOKMARK)).toBeNull();
        return { statements: cost.statements, trips: cost.roundTrips, written: cost.rowsWritten };
      };
      const user = await makeUser();
      const withAccount = await costOf(user.email);
      expect(sent.map((m) => m.to)).toEqual([user.email]);
      const without = await costOf(`${unique("nobody")}@example.test`);
      expect(sent, "no mail for an address without an account").toHaveLength(1);
      expect(without).toStrictEqual(withAccount);
      expect(withAccount.written).toBeGreaterThan(0);
    },
  );

  it("with the dev outbox, the mail is kept in the same batch: the same statements and round trips either way", async () => {
    const d1 = countingD1();
    const costOf = async (email: string) => {
      const { value, cost } = await d1.measure(() =>
        call("POST", "/users/password-reset", {
          body: { user_email: email },
          d1: d1.db,
          vars: OUTBOX,
          headers: { "CF-Connecting-IP": "198.51.100.200" },
        }),
      );
      expect(value.status, value.text).toBe(200);
      return { statements: cost.statements, trips: cost.roundTrips };
    };
    const user = await makeUser();
    const nobody = `${unique("nobody")}@example.test`;
    expect(await costOf(nobody)).toStrictEqual(await costOf(user.email));
    const kept = await env.DB.prepare(
      "SELECT to_address FROM mail_outbox WHERE to_address IN (?, ?)",
    )
      .bind(user.email, nobody)
      .all<{ to_address: string }>();
    expect(kept.results.map((r) => r.to_address)).toEqual([user.email]);
  });

  it("an address already verified writes as an unverified one does, and gets no mail", async () => {
    const { sent, vars } = emailService();
    const d1 = countingD1();
    const user = await makeUser();
    await env.DB.prepare("UPDATE users SET email_verified_at_ms = 1 WHERE id = ?")
      .bind(user.id)
      .run();
    const other = await makeUser();
    const costs = [];
    for (const email of [user.email, other.email]) {
      const { cost } = await d1.measure(() =>
        call("POST", "/users/verify-email", { body: { user_email: email }, d1: d1.db, vars }),
      );
      costs.push([cost.statements, cost.rowsWritten]);
    }
    expect(costs[0]).toStrictEqual(costs[1]);
    expect(sent.map((m) => m.to)).toEqual([other.email]);
  });
});

describe("reset codes", () => {
  it("a well-formed code that was never mailed is refused at its look-up: one read, nothing written", async () => {
    const d1 = countingD1();
    const bogus = "A".repeat(43);
    const { value, cost } = await d1.measure(() =>
      call("POST", "/users/password-reset/confirm", {
        body: { token: bogus, user_password: "x".repeat(256) },
        d1: d1.db,
        headers: { "CF-Connecting-IP": "192.0.2.10" },
      }),
    );
    expect(value.status).toBe(400);
    expect(value.body.message).toBe("Invalid or expired link");
    expect(cost.statements).toBe(1);
    expect(cost.rowsWritten).toBe(0);
  });

  it("guesses from one client address are throttled like failed sign-ins; another address is not", async () => {
    const ip = "192.0.2.77";
    const guess = (from: string, i: number) =>
      call("POST", "/users/password-reset/confirm", {
        body: {
          token: `${"B".repeat(40)}${String(i).padStart(3, "0")}`,
          user_password: "secret-1",
        },
        headers: { "CF-Connecting-IP": from },
      });
    const statuses = [];
    for (let i = 0; i < 101; i++) statuses.push((await guess(ip, i)).status);
    expect(statuses.slice(0, 100).every((s) => s === 400)).toBe(true);
    const refused = await guess(ip, 101);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(refused.body.message).toBe("Too many failed sign-in attempts");
    expect((await guess("192.0.2.78", 0)).status).toBe(400);
  });

  it("a good code gives its guess back: it does not count against the address", async () => {
    const user = await makeUser();
    const { sent, vars } = emailService();
    await call("POST", "/users/password-reset", { body: { user_email: user.email }, vars });
    const code = /^[A-Za-z0-9_-]{43}$/m.exec(sent[0]?.text ?? "")?.[0];
    expect(code).toBeDefined();
    const ip = "192.0.2.90";
    const confirm = (token: string) =>
      call("POST", "/users/password-reset/confirm", {
        body: { token, user_password: "a-new-password" },
        headers: { "CF-Connecting-IP": ip },
      });
    for (let i = 0; i < 99; i++)
      expect((await confirm(`${"C".repeat(40)}${i}`.slice(0, 43))).status).toBe(400);
    expect((await confirm(code!)).status).toBe(200);
    expect((await confirm("D".repeat(43))).status, "the 100th failure").toBe(400);
    expect((await confirm("E".repeat(43))).status).toBe(429);
  });
});

describe("the mail limit", () => {
  it("a stranger's requests spend the stranger's share: the account holder still gets a mail", async () => {
    const user = await makeUser();
    const ask = (ip: string) =>
      call("POST", "/users/password-reset", {
        body: { user_email: user.email },
        vars: OUTBOX,
        headers: { "CF-Connecting-IP": ip },
      });
    for (let i = 0; i < 5; i++) expect((await ask("203.0.113.5")).status).toBe(200);
    expect((await ask("203.0.113.5")).status).toBe(429);
    expect((await ask("2001:db8:1:2::7")).status).toBe(200);
  });

  it("every client together gets 30 mails an hour to one address, then 429 for all", async () => {
    const email = `${unique("inbox")}@example.test`;
    const ask = (ip: string) =>
      call("POST", "/users/verify-email", {
        body: { user_email: email },
        vars: OUTBOX,
        headers: { "CF-Connecting-IP": ip },
      });
    for (let client = 0; client < 6; client++)
      for (let i = 0; i < 5; i++) expect((await ask(`198.18.0.${client}`)).status).toBe(200);
    const refused = await ask("198.18.0.99");
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
  });
});

describe("the limit per client address (MAIL_LIMIT_PER_CLIENT)", () => {
  // One clock for the whole test, so every refusal's Retry-After is the same number.
  const fixedClock = () => {
    const now = Date.now();
    return testApp({ nowMs: () => now });
  };
  const ask = (
    app: ReturnType<typeof testApp>,
    route: keyof typeof ASKS,
    email: string,
    from: string,
    limit: string,
    d1?: D1Database,
  ) => {
    const { method, path, body } = ASKS[route](email);
    return call(method, path, {
      app,
      body,
      d1,
      vars: { ...COMPAT, MAIL_LIMIT_PER_CLIENT: limit },
      headers: { "CF-Connecting-IP": from },
    });
  };
  const tokensFor = async (emails: string[]) =>
    (
      await env.DB.prepare(
        `SELECT count(*) AS n FROM mail_tokens WHERE lower(email) IN (${emails.map(() => "lower(?)").join(", ")})`,
      )
        .bind(...emails)
        .first<{ n: number }>()
    )?.n;
  const nobody = () => `${unique("nobody")}@example.test`;

  it("the N+1th mail from one client over N addresses is refused on every route, alike for every address, and writes nothing", async () => {
    const app = fixedClock();
    const ip = "203.0.113.60";
    const routes = Object.keys(ASKS) as (keyof typeof ASKS)[];
    // Three addresses, one on each route, two with an account and one without.
    const first = [(await makeUser()).email, nobody(), (await makeUser()).email];
    for (const [i, email] of first.entries())
      expect((await ask(app, routes[i]!, email, ip, "3")).status).toBe(200);
    expect(await tokensFor(first)).toBe(3);
    const d1 = countingD1();
    const known = (await makeUser()).email;
    const unknown = nobody();
    for (const route of routes) {
      const answers = [];
      for (const email of [known, unknown]) {
        const { value, cost } = await d1.measure(() => ask(app, route, email, ip, "3", d1.db));
        expect(value.status, route).toBe(429);
        expect(cost.rowsWritten, route).toBe(0);
        expect(cost.statements, route).toBe(0);
        answers.push({
          body: value.body,
          retryAfter: value.headers.get("retry-after"),
        });
      }
      expect(Number(answers[0]!.retryAfter)).toBeGreaterThan(0);
      expect(
        answers[1],
        `${route}: the same refusal for an address with an account and one without`,
      ).toStrictEqual(answers[0]);
    }
    expect(await tokensFor([known, unknown])).toBe(0);
    // Another client address asks on: the refusal was the client's, not the addresses'.
    expect((await ask(app, "POST /users/verify-email", known, "203.0.113.61", "3")).status).toBe(
      200,
    );
    expect(
      (await ask(app, "POST /users/password-reset", unknown, "2001:db8:60::1", "3")).status,
    ).toBe(200);
    expect(await tokensFor([known, unknown])).toBe(2);
  });

  it("says which limit refused: the client's, in each route's envelope", async () => {
    const app = fixedClock();
    const ip = "203.0.113.62";
    expect((await ask(app, "POST /users/verify-email", nobody(), ip, "1")).status).toBe(200);
    const api = await ask(app, "POST /users/password-reset", nobody(), ip, "1");
    expect(api.body).toStrictEqual({
      status_code: 429,
      status: "failed",
      message: "Too many mails",
      data: [],
      error: [
        `Too many mails asked for from this client address: try again in ${api.headers.get("retry-after")} seconds`,
      ],
    });
    const plugin = await ask(app, "GET verify-email-address (plugin)", nobody(), ip, "1");
    expect(plugin.body).toStrictEqual({
      status_code: 429,
      status: false,
      message: "Email Not Sent",
      error: { mail: false },
    });
    expect(plugin.headers.get("retry-after")).toBe(api.headers.get("retry-after"));
  });

  it("requests without CF-Connecting-IP count as one client", async () => {
    // Two days ago: the refusal this starts is over before any other test's requests without the
    // header (they all share that one client), and those count here too, so 2 is at most 2.
    const then = Date.now() - 2 * 24 * 3_600_000;
    const app = testApp({ nowMs: () => then });
    const limit = "2";
    const asks = [];
    for (let i = 0; i < 3; i++)
      asks.push(
        await call("POST", "/users/verify-email", {
          app,
          body: { user_email: nobody() },
          vars: { ...OUTBOX, MAIL_LIMIT_PER_CLIENT: limit },
        }),
      );
    expect(asks.at(-1)!.status).toBe(429);
  });

  it("0 turns it off: a client it refused is answered at once", async () => {
    const app = fixedClock();
    const ip = "203.0.113.63";
    expect((await ask(app, "POST /users/verify-email", nobody(), ip, "1")).status).toBe(200);
    expect((await ask(app, "POST /users/verify-email", nobody(), ip, "1")).status).toBe(429);
    for (let i = 0; i < 5; i++)
      expect((await ask(app, "POST /users/verify-email", nobody(), ip, "0")).status).toBe(200);
  });

  /** Fresh addresses asked for one at a time until one is refused: how many were served. */
  const servedUntilRefused = async (app: ReturnType<typeof testApp>, ip: string, limit: string) => {
    for (let served = 0; ; served++)
      if ((await ask(app, "POST /users/verify-email", nobody(), ip, limit)).status === 429)
        return served;
  };

  it("concurrent requests: a client gets exactly its limit, though an address's refusal gives a count back after another request reached it", async () => {
    const app = fixedClock();
    const ip = "203.0.113.65";
    const full = nobody();
    // This client's share of `full` is spent, with the client's limit off.
    for (let i = 0; i < 5; i++)
      expect((await ask(app, "POST /users/verify-email", full, ip, "0")).status).toBe(200);
    // Two requests to `full` take a count each and give it back once `full` refuses them; the
    // others reach the limit of 3 meanwhile (the client's object takes calls in their order).
    const answers = await Promise.all([
      ask(app, "POST /users/verify-email", full, ip, "3"),
      ask(app, "POST /users/verify-email", full, ip, "3"),
      ...Array.from({ length: 4 }, () => ask(app, "POST /users/verify-email", nobody(), ip, "3")),
    ]);
    expect(answers.slice(0, 2).map((a) => a.body.error[0])).toEqual([
      expect.stringMatching(/^Too many mails to this address/),
      expect.stringMatching(/^Too many mails to this address/),
    ]);
    const concurrent = answers.slice(2).filter((a) => a.status === 200).length;
    expect(concurrent + (await servedUntilRefused(app, ip, "3"))).toBe(3);
  });

  it("a client refused at one limit is served when it is raised, until it has the new limit", async () => {
    const app = fixedClock();
    const ip = "203.0.113.67";
    expect(await servedUntilRefused(app, ip, "2")).toBe(2);
    expect(await servedUntilRefused(app, ip, "5")).toBe(3);
    // Lowered again, it is refused: 5 in the hour is past 2.
    expect(await servedUntilRefused(app, ip, "2")).toBe(0);
  });

  it("a client past a lowered limit is refused until enough of its hour's mails are out of it", async () => {
    const now = Date.now();
    const app = testApp({ nowMs: () => now });
    const ip = "203.0.113.68";
    for (let i = 0; i < 3; i++)
      expect((await ask(app, "POST /users/verify-email", nobody(), ip, "10")).status).toBe(200);
    // Once those three can no longer be given back (a request answered), they refuse for the hour.
    const settled = testApp({ nowMs: () => now + HELD_MS });
    const refused = await ask(settled, "POST /users/verify-email", nobody(), ip, "2");
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toBe("3600");
  });

  it("a refusal by the per-address limit leaves the client's count as it was", async () => {
    const app = fixedClock();
    const ip = "203.0.113.64";
    const email = nobody();
    for (let i = 0; i < 5; i++)
      expect((await ask(app, "POST /users/verify-email", email, ip, "6")).status).toBe(200);
    // The 6th to this address is the address's refusal, and does not spend the client's 6th.
    expect((await ask(app, "POST /users/verify-email", email, ip, "6")).body.error[0]).toMatch(
      /^Too many mails to this address/,
    );
    expect((await ask(app, "POST /users/verify-email", nobody(), ip, "6")).status).toBe(200);
    expect((await ask(app, "POST /users/verify-email", nobody(), ip, "6")).status).toBe(429);
  });
});

describe("no bookmark for strangers", () => {
  it("GET /health, sign-in, mail requests and the plugin's routes answer a caller without a credential with no bookmark", async () => {
    const admin = await makeAdmin();
    const known = (
      await call("GET", "/wallets", {
        auth: admin.bearer,
        headers: { [BOOKMARK]: "first-primary" },
      })
    ).headers.get(BOOKMARK);
    expect(known).toMatch(/^[0-9a-f]{8}-/);
    const headers = { [BOOKMARK]: known! };
    const answers = [
      await testApp().request("/health", { headers }, env),
      await call("POST", "/users/login", {
        body: { user_email: admin.email, user_password: PASSWORD },
        headers,
      }),
      await call("POST", "/users/password-reset", {
        body: { user_email: admin.email },
        vars: OUTBOX,
        headers,
      }),
      await call("GET", "/users/verify-email?token=x", { headers }),
      await call("GET", "/wp-json/rimplenet/v1/verify-email-address?email_address=a@b.test", {
        vars: COMPAT,
        headers,
      }),
      await call("GET", "/wp-json/wallet/v1/no-such-route", { headers }),
    ];
    expect(answers.map((r) => r.status)).toEqual([200, 200, 200, 400, 400, 404]);
    for (const res of answers) expect(res.headers.get(BOOKMARK)).toBeNull();
  });
});

describe("whom a mail goes to", () => {
  it("mails the address as the account has it, not as the request wrote it", async () => {
    const user = await makeUser("subscriber", unique("Ada"));
    expect(user.email).not.toBe(user.email.toLowerCase());
    for (const path of ["/users/verify-email", "/users/password-reset"]) {
      const { sent, vars } = emailService();
      const res = await call("POST", path, {
        body: { user_email: user.email.toLowerCase() },
        vars,
      });
      expect(res.status, path).toBe(200);
      expect(
        sent.map((m) => m.to),
        path,
      ).toEqual([user.email]);
    }
  });
});

describe("a mail the transport refuses", () => {
  it("is logged with the transport's words and code, the address masked, and the answer unchanged", async () => {
    const user = await makeUser();
    const refused = Object.assign(
      new Error(`recipient not allowed: ${user.email} (to ${user.email})`),
      {
        code: "E_RECIPIENT_NOT_ALLOWED",
      },
    );
    const vars = {
      MAIL_TRANSPORT: "cloudflare",
      MAIL_FROM: "wallet@example.test",
      EMAIL: {
        send: async () => {
          throw refused;
        },
      },
    } as unknown as Record<string, string>;
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    const res = await call("POST", "/users/password-reset", {
      body: { user_email: user.email },
      vars,
    });
    const lines = logged.mock.calls.map((args) => args.join(" "));
    logged.mockRestore();
    expect(res.status, res.text).toBe(200);
    const line = lines.find((l) => l.includes("mail_failed"));
    expect(line, lines.join("\n")).toBeDefined();
    expect(JSON.parse(line!)).toMatchObject({
      mail_failed: "Error: recipient not allowed: <address> (to <address>)",
      code: "E_RECIPIENT_NOT_ALLOWED",
    });
    expect(line).not.toContain(user.email.split("@")[0]);
  });
});

describe("a mail sent where the runtime has an execution context", () => {
  it("goes after the answer; its failure is logged once, with the request id, no address", async () => {
    const user = await makeUser();
    let refuse: ((err: Error) => void) | undefined;
    const vars = {
      MAIL_TRANSPORT: "cloudflare",
      MAIL_FROM: "wallet@example.test",
      // The transport answers only when the test says so.
      EMAIL: { send: () => new Promise((_, reject) => (refuse = reject)) },
      // A write with an execution context nudges the webhook endpoints of every file's database,
      // whose consumer would fetch their URLs: none here.
      WEBHOOK_QUEUE: undefined,
    };
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    try {
      const ctx = createExecutionContext();
      const answered = sharedApp().request(
        `${API}/users/password-reset`,
        {
          method: "POST",
          headers: { "Content-Type": "application/json", "CF-Connecting-IP": "198.51.100.61" },
          body: JSON.stringify({ user_email: user.email }),
        },
        { ...env, ...vars },
        ctx,
      );
      const res = await answeredWithout(answered, "no answer while the mail was unsent");
      expect(res.status).toBe(200);
      const failures = () =>
        logged.mock.calls.map((args) => args.join(" ")).filter((l) => l.includes("mail_failed"));
      await vi.waitFor(() => expect(refuse).toBeDefined());
      expect(failures()).toEqual([]);
      refuse!(Object.assign(new Error(`no such mailbox: ${user.email}`), { code: "E_X" }));
      await waitOnExecutionContext(ctx);
      expect(failures().map((l) => JSON.parse(l))).toEqual([
        {
          request_id: res.headers.get("X-Request-Id"),
          mail_failed: "Error: no such mailbox: <address>",
          code: "E_X",
        },
      ]);
    } finally {
      logged.mockRestore();
    }
  });
});

describe("maskAddresses", () => {
  it("masks each run holding an address, and nothing else", () => {
    expect(maskAddresses("to <ada@example.test>, bob+x@y.z; and 'c@d'")).toBe(
      "to <<address>>, <address>; and '<address>'",
    );
    expect(maskAddresses("@handle and trailing@ and a@b@c")).toBe(
      "@handle and trailing@ and <address>",
    );
    expect(maskAddresses("no address\there")).toBe("no address\there");
    expect(maskAddresses("x".repeat(100_000))).toBe("x".repeat(100_000));
  });

  it("masks what one pattern over the whole text masks", () => {
    // The rule as one regex (quadratic on a long run without an @, so not the one used).
    const oneRegex = (text: string) =>
      text.replace(/[^\s<>()[\]"',;:]+@[^\s<>()[\]"',;:]+/g, "<address>");
    const piece = fc.constantFrom(
      "a",
      "b.",
      "@",
      " ",
      "\n",
      "<",
      ">",
      ",",
      ";",
      ":",
      '"',
      "'",
      "(",
      "]",
      "é",
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 30 }), (pieces) => {
        const text = pieces.join("");
        expect(maskAddresses(text)).toBe(oneRegex(text));
      }),
      { numRuns: 2000 },
    );
  });
});
