// The console as its own security boundary, and nothing for strangers:
// no CORS on /wallet-admin/*, state-changing console requests only from the console's own origin
// (on top of the CSRF token), COOP and CORP on its answers; no D1 bookmark on a refusal. (The
// request id and the cf_ray log field are tested with the request log, in strict-input.test.ts.)
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { consoleOf, form, hidden, noticeLeft, type Page } from "./console-helpers";
import {
  balanceOf,
  CLEAN,
  call,
  credit,
  ledgerViolations,
  makeAdmin,
  makeKey,
  makeUser,
  makeWallet,
  PASSWORD,
  type TestUser,
  tableCounts,
  testApp,
  unique,
} from "./helpers";

const { request, signIn } = consoleOf(testApp());

const OWN = "http://localhost";
/**
 * Another origin on the same site (another port, another scheme, a subdomain), a host whose name
 * ends in the console's, a stranger's site, and an opaque origin.
 */
const FOREIGN = [
  "http://localhost:9999",
  "https://localhost",
  "http://evil.localhost",
  "http://evillocalhost",
  "https://evil.example",
  "null",
];

const corsHeadersOf = (headers: Headers) =>
  [...headers.keys()].filter((name) => name.toLowerCase().startsWith("access-control-"));

let admin: TestUser;
let alice: TestUser;
let wallet: string;
let cookie: string;
/** A user page's form fields: a valid CSRF token and a fresh idempotency key. */
let fields: () => Promise<Record<string, string>>;

/** The API keys as stored (ids and revocation), to prove a refused request changed none. */
const keyRows = () =>
  env.DB.prepare("SELECT id, revoked_at_ms FROM api_keys ORDER BY id")
    .all()
    .then((r) => r.results);

beforeAll(async () => {
  admin = await makeAdmin();
  alice = await makeUser();
  wallet = await makeWallet(admin);
  await credit(admin, { user_id: alice.id, wallet_id: wallet, amount: "2.00" });
  await makeKey(admin, "read");
  cookie = await signIn(admin);
  fields = async () => {
    const page = await request(`/users/${alice.id}`, { cookie });
    expect(page.status).toBe(200);
    // As the credit's confirmation sends it (its Confirm): what would move money, were it let in.
    return {
      _csrf: hidden(page.html, "_csrf"),
      request_id: hidden(page.html, "request_id"),
      step: "confirm",
    };
  };
});

describe("no CORS on the console", () => {
  it.each([
    ["GET", "/"],
    ["GET", "/sign-in"],
    ["GET", "/users"],
    ["POST", "/sign-in"],
    ["POST", "/users/1/credit"],
    ["OPTIONS", "/users"],
    ["OPTIONS", "/api-keys"],
    ["OPTIONS", ""],
  ])(
    "%s /wallet-admin%s answers no Access-Control-* header, whatever the Origin",
    async (method, path) => {
      for (const origin of [OWN, ...FOREIGN]) {
        // Even an origin CORS_ORIGINS names: that list is the API's, never the console's.
        for (const vars of [{}, { CORS_ORIGINS: origin }] as Record<string, string>[]) {
          const res = await request(path, {
            method,
            cookie,
            headers: {
              Origin: origin,
              "Access-Control-Request-Method": "POST",
              "Access-Control-Request-Headers": "content-type",
            },
            vars,
          });
          expect(corsHeadersOf(res.headers), `${method} ${path} from ${origin}`).toEqual([]);
          expect(res.status, `${method} ${path} from ${origin}`).not.toBe(204);
        }
      }
    },
  );

  it("keeps a console POST a POST whatever method switch it names: the switch is the API's", async () => {
    // WP_REST_Server's `_method` and X-HTTP-Method-Override, read here, would send a name no route
    // has to the API's JSON 404, with the API's CORS headers and none of the console's.
    for (const [query, header] of [
      ["?_method=BOGUS", undefined],
      ["?_method=DELETE", undefined],
      ["", "BOGUS"],
    ] as const) {
      const before = await tableCounts();
      const res = await request(`/users/${alice.id}/credit${query}`, {
        method: "POST",
        cookie,
        headers: {
          Origin: "https://evil.example",
          ...(header ? { "X-HTTP-Method-Override": header } : {}),
        },
        body: form({ ...(await fields()), wallet_id: wallet, amount: "777.00" }),
      });
      const label = `${query}${header ?? ""}`;
      expect(res.status, label).toBe(403);
      expect(res.headers.get("content-security-policy"), label).toContain("frame-ancestors 'none'");
      expect(corsHeadersOf(res.headers), label).toEqual([]);
      expect(await tableCounts()).toEqual(before);
    }
  });

  it("answers no CORS header however the console's path is spelled (case, percent-encoding)", async () => {
    for (const url of [`${OWN}/WALLET-ADMIN/users`, `${OWN}/wallet%2Dadmin/users`]) {
      const res = await request(url, {
        method: "OPTIONS",
        headers: { Origin: "https://evil.example", "Access-Control-Request-Method": "POST" },
      });
      expect(corsHeadersOf(res.headers), url).toEqual([]);
    }
  });
});

describe("signing out of the console", () => {
  it("needs the session's CSRF token: a form without it ends nothing", async () => {
    const own = await signIn(await makeAdmin());
    const res = await request("/sign-out", { method: "POST", cookie: own, body: form({}) });
    expect(res.status).toBe(403);
    expect((await request("/", { cookie: own })).status).toBe(200);
  });
});

describe("state-changing console requests come from the console's own origin", () => {
  it("refuses a credit from another origin with a valid cookie and CSRF token: 403, the ledger unchanged", async () => {
    const balance = await balanceOf(admin, alice.id, wallet);
    for (const origin of FOREIGN) {
      const before = await tableCounts();
      const res = await request(`/users/${alice.id}/credit`, {
        method: "POST",
        cookie,
        headers: { Origin: origin },
        body: form({ ...(await fields()), wallet_id: wallet, amount: "777.00" }),
      });
      expect(res.status, origin).toBe(403);
      expect(res.headers.get("set-cookie")).toBeNull();
      expect(await tableCounts()).toEqual(before);
    }
    expect(await balanceOf(admin, alice.id, wallet)).toBe(balance);
    expect(await ledgerViolations()).toEqual(CLEAN);
  });

  it("refuses creating and revoking API keys, creating users and signing out from another origin; nothing changes", async () => {
    const keysPage = await request("/api-keys", { cookie });
    const csrf = hidden(keysPage.html, "_csrf");
    const keyId = keysPage.html.match(/action="\/wallet-admin\/api-keys\/(\d+)\/revoke"/)![1];
    const keysBefore = await keyRows();
    const countsBefore = await tableCounts();
    for (const origin of FOREIGN) {
      for (const [path, body] of [
        ["/api-keys", { _csrf: csrf, name: "stolen", scope: "read-write" }],
        [`/api-keys/${keyId}/revoke`, { _csrf: csrf }],
        [
          "/users",
          {
            _csrf: csrf,
            username: unique("intruder"),
            user_email: `${unique("intruder")}@example.test`,
            user_password: "secret-123",
          },
        ],
        ["/sign-out", { _csrf: csrf }],
      ] as const) {
        const res = await request(path, {
          method: "POST",
          cookie,
          headers: { Origin: origin },
          body: form(body),
        });
        expect(res.status, `${path} from ${origin}`).toBe(403);
        expect(res.html).not.toContain("copy it now");
        expect(res.headers.get("set-cookie"), `${path} from ${origin}`).toBeNull();
      }
    }
    expect(await keyRows()).toEqual(keysBefore);
    expect(await tableCounts()).toEqual(countsBefore);
  });

  it("refuses a sign-in posted from another origin before checking the password: no cookie", async () => {
    const res = await request("/sign-in", {
      method: "POST",
      headers: { Origin: "https://evil.example" },
      body: form({ email: admin.email, password: PASSWORD }),
    });
    expect(res.status).toBe(403);
    expect(res.headers.get("set-cookie")).toBeNull();
  });

  it.each(["cross-site", "same-site"])(
    "refuses a POST without Origin whose Sec-Fetch-Site is %s: 403, nothing written",
    async (site) => {
      const before = await tableCounts();
      const res = await request(`/users/${alice.id}/credit`, {
        method: "POST",
        cookie,
        headers: { "Sec-Fetch-Site": site },
        body: form({ ...(await fields()), wallet_id: wallet, amount: "5.00" }),
      });
      expect(res.status).toBe(403);
      expect(await tableCounts()).toEqual(before);
    },
  );

  it("accepts a credit from its own origin, by Origin or by Sec-Fetch-Site, and one with neither header (the CSRF token decides)", async () => {
    const start = await balanceOf(admin, alice.id, wallet);
    const sources: Record<string, string>[] = [
      { Origin: OWN, "Sec-Fetch-Site": "same-origin" },
      { "Sec-Fetch-Site": "same-origin" },
      {},
    ];
    for (const headers of sources) {
      const res = await request(`/users/${alice.id}/credit`, {
        method: "POST",
        cookie,
        headers,
        body: form({ ...(await fields()), wallet_id: wallet, amount: "1.00" }),
      });
      expect(res.status, JSON.stringify(headers)).toBe(303);
      expect(noticeLeft(res)).toContain("Transaction Completed");
    }
    expect(await balanceOf(admin, alice.id, wallet)).toBe(start + 3);
    expect(await ledgerViolations()).toEqual(CLEAN);
  });

  it("still needs the CSRF token from its own origin", async () => {
    const before = await tableCounts();
    const res = await request(`/users/${alice.id}/credit`, {
      method: "POST",
      cookie,
      headers: { Origin: OWN },
      body: form({ request_id: unique("r"), wallet_id: wallet, amount: "1.00" }),
    });
    expect(res.status).toBe(403);
    expect(await tableCounts()).toEqual(before);
  });

  it("refuses a form whose text is not UTF-8 with 400 before anything moves; UTF-8 text is kept as sent", async () => {
    const before = await tableCounts();
    const raw = { "Content-Type": "application/x-www-form-urlencoded" };
    // The last of repeated names wins, as in a form body of the API.
    for (const bad of ["note=%ff", "request_id=r%c3%28", "amount=1%ff", "%ff=1"]) {
      const body = `${form({ ...(await fields()), wallet_id: wallet, amount: "1.00" })}&${bad}`;
      const res = await request(`/users/${alice.id}/credit`, {
        method: "POST",
        cookie,
        headers: raw,
        body,
      });
      expect(res.status, bad).toBe(400);
      expect(res.html).toContain("The form could not be read (body is not valid UTF-8)");
    }
    // A body that is no form (JSON, multipart), CSRF token and all, is refused for what it is.
    const fieldsNow = { ...(await fields()), wallet_id: wallet, amount: "1.00" };
    const multipart = new FormData();
    for (const [name, value] of Object.entries(fieldsNow)) multipart.append(name, value);
    for (const body of [JSON.stringify(fieldsNow), multipart]) {
      const res = await request(`/users/${alice.id}/credit`, {
        method: "POST",
        cookie,
        headers: typeof body === "string" ? { "Content-Type": "application/json" } : {},
        body,
      });
      expect(res.status).toBe(400);
      expect(res.html).toContain("a form is sent as application/x-www-form-urlencoded");
    }
    const signIn = await request("/sign-in", {
      method: "POST",
      headers: raw,
      body: `email=${encodeURIComponent(admin.email)}&password=%ff`,
    });
    expect(signIn.status).toBe(400);
    expect(signIn.html).toContain("body is not valid UTF-8");
    expect(signIn.headers.get("set-cookie")).toBeNull();
    expect(await tableCounts()).toEqual(before);

    const note = unique("café ✓");
    const ok = await request(`/users/${alice.id}/credit`, {
      method: "POST",
      cookie,
      body: form({ ...(await fields()), wallet_id: wallet, amount: "1.00", note }),
    });
    expect(ok.status).toBe(303);
    const stored = await env.DB.prepare("SELECT note FROM transactions WHERE note = ?1")
      .bind(note)
      .first();
    expect(stored).toEqual({ note });
  });

  it("refuses a GET another site's page loads without navigating, and a page it opens shows no new key's secret: it waits for the console", async () => {
    const keysPage = await request("/api-keys", { cookie });
    const made = await request("/api-keys", {
      method: "POST",
      cookie,
      body: form({ _csrf: hidden(keysPage.html, "_csrf"), name: unique("shown"), scope: "read" }),
    });
    expect(made.status).toBe(303);
    const secret = made.headers
      .getSetCookie()
      .map((c) => c.split(";")[0]!)
      .filter((c) => c.includes("secret"));
    expect(secret).toHaveLength(1);
    const withSecret = [cookie, ...secret].join("; ");
    // An image, a fetch, a frame or a prefetch from a sibling subdomain or a stranger's site.
    for (const [site, mode, dest] of [
      ["same-site", "no-cors", "image"],
      ["cross-site", "cors", "empty"],
      ["same-site", "navigate", "iframe"],
      ["cross-site", "no-cors", "empty"],
    ]) {
      const res = await request("/api-keys", {
        cookie: withSecret,
        headers: { "Sec-Fetch-Site": site!, "Sec-Fetch-Mode": mode!, "Sec-Fetch-Dest": dest! },
      });
      expect(res.status, `${site} ${mode} ${dest}`).toBe(403);
      expect(res.headers.get("set-cookie")).toBeNull();
    }
    // A prefetch of a link (speculation rules) from a sibling subdomain: sent as a navigation,
    // with Sec-Purpose, and never shown unless the operator follows the link.
    const prefetch = await request("/api-keys", {
      cookie: withSecret,
      headers: {
        "Sec-Fetch-Site": "same-site",
        "Sec-Fetch-Mode": "navigate",
        "Sec-Fetch-Dest": "document",
        "Sec-Purpose": "prefetch",
      },
    });
    expect(prefetch.status).toBe(403);
    expect(prefetch.headers.get("set-cookie")).toBeNull();
    // A link followed from another site (or a window it opened and closed) opens the page, which
    // leaves the secret for the console's own redirect.
    const navigation = { "Sec-Fetch-Mode": "navigate", "Sec-Fetch-Dest": "document" };
    const opened = await request("/api-keys", {
      cookie: withSecret,
      headers: { ...navigation, "Sec-Fetch-Site": "cross-site" },
    });
    expect(opened.status).toBe(200);
    expect(opened.html).not.toContain("copy it now");
    expect(opened.html).not.toContain("wk_");
    const secretName = secret[0]!.split("=")[0]!;
    expect(opened.headers.getSetCookie().filter((c) => c.startsWith(secretName))).toEqual([]);
    const own = await request("/api-keys", {
      cookie: withSecret,
      headers: { ...navigation, "Sec-Fetch-Site": "same-origin" },
    });
    expect(own.html).toContain("copy it now");
    expect(own.html).toContain("wk_");
  });

  it("lets GET pages be read with a foreign Origin header (a link followed), still without CORS", async () => {
    const res = await request("/users", { cookie, headers: { Origin: "https://evil.example" } });
    expect(res.status).toBe(200);
    expect(corsHeadersOf(res.headers)).toEqual([]);
  });
});

describe("the console over https", () => {
  it("tells the browser to come back only over https (HSTS), and never says so over plain http", async () => {
    const app = testApp();
    const at = (url: string) => app.request(url, { redirect: "manual" }, env);
    for (const path of [
      "/wallet-admin/sign-in",
      "/wallet-admin/console.css",
      "/wallet-admin/users",
    ])
      expect(
        (await at(`https://wallet.example${path}`)).headers.get("strict-transport-security"),
        path,
      ).toBe("max-age=31536000");
    // A browser ignores it over http; the redirect to https and a local address send none.
    expect(
      (await at("http://wallet.example/wallet-admin/sign-in")).headers.get(
        "strict-transport-security",
      ),
    ).toBeNull();
    expect(
      (await at("http://localhost/wallet-admin/sign-in")).headers.get("strict-transport-security"),
    ).toBeNull();
  });
});

describe("the console over plain http", () => {
  it("redirects every address but a local one to https before anything is read: no sign-in form over http", async () => {
    const app = testApp();
    const at = (url: string, init: RequestInit = {}) =>
      app.request(url, { ...init, redirect: "manual" }, env);
    const page = await at("http://wallet.example/wallet-admin/users?q=a%20b");
    expect(page.status).toBe(308);
    expect(page.headers.get("location")).toBe("https://wallet.example/wallet-admin/users?q=a%20b");
    // Served over http, the sign-in form would send the password in clear, and the Secure cookie
    // it answered would be dropped by the browser: the operator, never signed in, would try again.
    const before = await tableCounts();
    const signIn = await at("http://wallet.example/wallet-admin/sign-in", {
      method: "POST",
      body: form({ email: admin.email, password: PASSWORD }),
    });
    expect(signIn.status).toBe(308);
    expect(signIn.headers.get("location")).toBe("https://wallet.example/wallet-admin/sign-in");
    expect(signIn.headers.get("set-cookie")).toBeNull();
    expect(await tableCounts()).toEqual(before);
    for (const header of ["content-security-policy", "x-frame-options", "cache-control"])
      expect(signIn.headers.get(header), header).not.toBeNull();
    // A local address keeps plain http (npm run dev), and the API is not the console's to move.
    for (const local of ["http://localhost", "http://127.0.0.1:8787", "http://[::1]:8787"])
      expect((await at(`${local}/wallet-admin/sign-in`)).status, local).toBe(200);
    expect((await at("http://wallet.example/health")).status).toBe(200);
  });
});

describe("console pages are isolated from other origins", () => {
  it("sends COOP and CORP same-origin, X-Frame-Options DENY and frame-ancestors 'none' on pages, assets and refusals", async () => {
    const answers = [
      await request("/sign-in"),
      await request("/", { cookie }),
      await request("/console.css"),
      await request("/users", {
        method: "POST",
        cookie,
        headers: { Origin: "https://evil.example" },
        body: form({ _csrf: "x" }),
      }),
    ];
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 403]);
    for (const res of answers) {
      expect(res.headers.get("cross-origin-opener-policy")).toBe("same-origin");
      expect(res.headers.get("cross-origin-resource-policy")).toBe("same-origin");
      expect(res.headers.get("x-frame-options")).toBe("DENY");
      expect(res.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    }
  });
});

describe("a console form past the body limit", () => {
  /** A form body one byte over 64 KiB. */
  const oversized = () => form({ note: "x".repeat(64 * 1024 - 4) });

  it("from its own origin: the console's 413 page with its headers, never the API's JSON; nothing moves", async () => {
    const before = await tableCounts();
    // Declared (Content-Length) and streamed (chunked, no length): both judged as the API's are.
    const streamed = new Blob([oversized().toString()]).stream();
    const answers = [
      await request(`/users/${alice.id}/credit`, {
        method: "POST",
        cookie,
        headers: { Origin: OWN, "Content-Type": "application/x-www-form-urlencoded" },
        body: oversized().toString(),
      }),
      await request(`/users/${alice.id}/credit`, {
        method: "POST",
        cookie,
        headers: { Origin: OWN, "Content-Type": "application/x-www-form-urlencoded" },
        body: streamed,
        duplex: "half",
      } as RequestInit),
    ];
    for (const res of answers) {
      expect(res.status).toBe(413);
      expect(res.headers.get("content-type")).toMatch(/^text\/html/);
      expect(res.html).toContain("nothing was done");
      expect(res.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
      expect(res.headers.get("x-frame-options")).toBe("DENY");
      expect(res.headers.get("cross-origin-opener-policy")).toBe("same-origin");
      expect(res.headers.get("cross-origin-resource-policy")).toBe("same-origin");
    }
    expect(await tableCounts()).toEqual(before);
  });

  it("from another origin: 403 before its body is read, as any foreign form", async () => {
    const res = await request(`/users/${alice.id}/credit`, {
      method: "POST",
      cookie,
      headers: { Origin: "https://evil.example" },
      body: oversized(),
    });
    expect(res.status).toBe(403);
  });
});

describe("every console answer carries the console's strict CSP", () => {
  /** A D1 binding whose every query fails, for a console page that meets a fault. */
  const brokenDb: D1Database = new Proxy(env.DB, {
    get: (target, name) =>
      name === "withSession"
        ? () => brokenDb
        : name === "prepare" || name === "batch" || name === "exec"
          ? () => {
              throw new Error("D1 is down (test)");
            }
          : Reflect.get(target, name),
  });

  it("on pages, assets, redirects, refusals, 404s, an unconfigured service and a fault", async () => {
    const answers: [string, Page][] = [
      ["sign-in", await request("/sign-in")],
      [
        "wrong password",
        await request("/sign-in", {
          method: "POST",
          body: form({ email: admin.email, password: "x" }),
        }),
      ],
      ["signed out", await request("/")],
      ["no trailing slash", await request(`${OWN}/wallet-admin`)],
      ["overview", await request("/", { cookie })],
      ["stylesheet", await request("/console.css")],
      ["script", await request("/console.js")],
      ["no such page, signed in", await request("/no-such-page", { cookie })],
      ["no such page, signed out", await request("/no-such-page")],
      ["no such page, upper case", await request(`${OWN}/WALLET-ADMIN/NO-SUCH-PAGE`, { cookie })],
      ["no such user", await request("/users/999999999", { cookie })],
      [
        "foreign origin",
        await request("/users", {
          method: "POST",
          cookie,
          headers: { Origin: "https://evil.example" },
          body: form({}),
        }),
      ],
      ["no CSRF token", await request("/users", { method: "POST", cookie, body: form({}) })],
      ["unconfigured", await request("/sign-in", { vars: { JWT_SECRET: "" } })],
      ["a fault", await request("/", { cookie, vars: { DB: brokenDb } as never })],
    ];
    expect(answers.map(([what, res]) => [what, res.status])).toEqual([
      ["sign-in", 200],
      ["wrong password", 400],
      ["signed out", 303],
      ["no trailing slash", 303],
      ["overview", 200],
      ["stylesheet", 200],
      ["script", 200],
      ["no such page, signed in", 404],
      ["no such page, signed out", 303],
      ["no such page, upper case", 404],
      ["no such user", 404],
      ["foreign origin", 403],
      ["no CSRF token", 403],
      ["unconfigured", 503],
      ["a fault", 500],
    ]);
    for (const [what, res] of answers) {
      const csp = res.headers.get("content-security-policy") ?? "";
      const directives = Object.fromEntries(
        csp
          .split(";")
          .map((d) => d.trim().split(/\s+/))
          .map(([name, ...v]) => [name, v.join(" ")]),
      );
      expect(directives, what).toEqual({
        "default-src": "'none'",
        "script-src": "'self'",
        "style-src": "'self'",
        "img-src": "'self'",
        "form-action": "'self'",
        "frame-ancestors": "'none'",
        "base-uri": "'none'",
        "object-src": "'none'",
      });
    }
  });
});

describe("nothing for strangers", () => {
  const BOOKMARK = "x-d1-bookmark";
  /** A bookmark the service handed out: before, any request that sent it got at least it back. */
  let known: string;

  beforeAll(async () => {
    const res = await credit(admin, { user_id: alice.id, wallet_id: wallet, amount: "1" });
    known = res.headers.get(BOOKMARK)!;
    expect(known).toMatch(/^[0-9a-f]{8}-/);
  });

  it("answers a bookmark on a success, and none on a 401 or 403 of wallet/v1", async () => {
    const sub = await makeUser();
    const bogusKey = `Key ${btoa(`${admin.username}:not-the-key`)}`;
    const headers = { [BOOKMARK]: known };
    const query = { user_id: alice.id, wallet_id: wallet };
    const ok = await call("GET", "/user-wallet-balance", { auth: admin.bearer, query, headers });
    const none = await call("GET", "/user-wallet-balance", { query, headers });
    const bogus = await call("GET", "/user-wallet-balance", { auth: bogusKey, query, headers });
    const other = await call("GET", "/user-wallet-balance", { auth: sub.bearer, query, headers });
    expect([ok.status, none.status, bogus.status, other.status]).toEqual([200, 401, 401, 403]);
    expect(ok.headers.get(BOOKMARK)).toMatch(/^[0-9a-f]{8}-/);
    for (const res of [none, bogus, other]) expect(res.headers.get(BOOKMARK)).toBeNull();
  });

  it("answers no bookmark on the compatibility namespace's 401 and 403", async () => {
    const vars = { COMPAT_NAMESPACE: "rimplenet" };
    const sub = await makeUser();
    const statuses: number[] = [];
    for (const auth of [undefined, "Bearer not.a.token", sub.bearer]) {
      const res = await testApp().request(
        `/wp-json/rimplenet/v1/user-wallet-balance?user_id=${alice.id}&wallet_id=${wallet}`,
        { headers: { [BOOKMARK]: known, ...(auth ? { Authorization: auth } : {}) } },
        { ...env, ...vars },
      );
      statuses.push(res.status);
      expect(res.headers.get(BOOKMARK)).toBeNull();
    }
    expect(statuses.sort()).toEqual([401, 403, 403]);
  });

  it("a locked sign-in says why once, with Retry-After, as the API's 429 does", async () => {
    const user = await makeAdmin();
    const headers = { "CF-Connecting-IP": "203.0.113.78" };
    for (let i = 0; i < 10; i++)
      await call("POST", "/users/login", {
        body: { user_email: user.email, user_password: `wrong-${i}` },
        headers,
      });
    const locked = await request("/sign-in", {
      method: "POST",
      headers: { ...headers, Origin: OWN },
      body: form({ email: user.email, password: "wrong-again" }),
    });
    expect(locked.status).toBe(429);
    expect(locked.headers.get("Retry-After")).toMatch(/^[0-9]+$/);
    expect(locked.html).toMatch(/Too many failed sign-in attempts: try again in [0-9]+ seconds/);
    expect(locked.html.match(/Too many failed sign-in attempts/g)).toHaveLength(1);
  });

  it("answers no bookmark on a sign-in's 400 or 429, nor on the console's refusals", async () => {
    const user = await makeUser();
    const ip = "203.0.113.77";
    const headers = { [BOOKMARK]: known, "CF-Connecting-IP": ip };
    const answers = [];
    for (let i = 0; i < 11; i++)
      answers.push(
        await call("POST", "/users/login", {
          body: { user_email: user.email, user_password: `wrong-${i}` },
          headers,
        }),
      );
    expect(answers.at(0)!.status).toBe(400);
    expect(answers.at(-1)!.status).toBe(429);
    for (const res of answers) expect(res.headers.get(BOOKMARK)).toBeNull();
    const refused = await request(`/users/${alice.id}/credit`, {
      method: "POST",
      cookie,
      headers: { Origin: "https://evil.example", [BOOKMARK]: known },
      body: form({ _csrf: "x" }),
    });
    expect(refused.status).toBe(403);
    expect(refused.headers.get(BOOKMARK)).toBeNull();
  });
});
