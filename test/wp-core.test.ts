// What WordPress core adds around every REST route: CORS as browsers exercise it, the discovery Link, Allow, the `_method` switch, paging links, and the whole history
// of GET /transactions when no page is asked for.
import { env } from "cloudflare:workers";
import { describe, expect, it, vi } from "vitest";
import {
  balanceOf,
  call,
  credit,
  type Json,
  makeAccount,
  makeAdmin,
  NO_ROUTE,
  testApp,
  unique,
} from "./helpers";

const ORIGIN = "https://app.example.org";
const SITE = "https://wallet.example.test";

/** A request with some vars changed for it, as a browser would send it. */
async function send(
  method: string,
  path: string,
  init: { headers?: Record<string, string>; body?: string; vars?: Record<string, string> } = {},
) {
  const res = await testApp().request(
    path,
    { method, headers: init.headers, body: init.body },
    { ...env, ...init.vars },
  );
  return { status: res.status, headers: res.headers, text: await res.text() };
}

const preflight = (path: string, vars?: Record<string, string>) =>
  send("OPTIONS", path, {
    headers: {
      Origin: ORIGIN,
      "Access-Control-Request-Method": "POST",
      "Access-Control-Request-Headers": "authorization,content-type,x-api-key",
    },
    vars,
  });

describe("CORS, as rest_send_cors_headers answers a browser", () => {
  it.each([
    "/wp-json/wallet/v1/credits",
    "/wp-json/wallet/v1/transactions/5",
    "/wp-json/wallet/v1/users/login/",
    "/wp-json/wallet/v1/no-such-route",
    "/wp-json/rimplenet/v1/user-wallet-balance",
    "/?rest_route=/wallet/v1/credits",
  ])(
    "a preflight to %s is answered 2xx, allowing the origin and its headers but not credentials",
    async (path) => {
      const res = await preflight(path, { COMPAT_NAMESPACE: "rimplenet" });
      expect(res.status).toBe(204);
      expect(res.headers.get("Access-Control-Allow-Origin")).toBe(ORIGIN);
      expect(res.headers.get("Access-Control-Allow-Credentials")).toBeNull();
      const allowed = res.headers.get("Access-Control-Allow-Headers")!.toLowerCase().split(",");
      expect(allowed).toEqual(
        expect.arrayContaining([
          "authorization",
          "content-type",
          "x-api-key",
          "x-wp-nonce",
          "x-d1-bookmark",
        ]),
      );
      expect(res.headers.get("Access-Control-Allow-Methods")).toBe(
        "OPTIONS,GET,POST,PUT,PATCH,DELETE",
      );
      expect(res.headers.get("Vary")).toContain("Origin");
    },
  );

  it("echoes the origin without credentials on successes and refusals alike, exposing the paging and bookmark headers", async () => {
    const { admin, user, wallet } = await makeAccount();
    const answers = [
      await send(
        "GET",
        `/wp-json/wallet/v1/user-wallet-balance?user_id=${user.id}&wallet_id=${wallet}`,
        { headers: { Origin: ORIGIN, Authorization: admin.bearer } },
      ),
      await send(
        "GET",
        `/wp-json/wallet/v1/user-wallet-balance?user_id=${user.id}&wallet_id=${wallet}`,
        { headers: { Origin: ORIGIN } },
      ),
      await send("POST", "/wp-json/wallet/v1/credits", {
        headers: {
          Origin: ORIGIN,
          Authorization: admin.bearer,
          "Content-Type": "application/json",
        },
        body: "{}",
      }),
      await send("GET", "/wp-json/wallet/v1/nothing-here", { headers: { Origin: ORIGIN } }),
    ];
    expect(answers.map((r) => r.status)).toEqual([200, 401, 400, 404]);
    for (const res of answers) {
      expect(res.headers.get("Access-Control-Allow-Origin")).toBe(ORIGIN);
      expect(res.headers.get("Access-Control-Allow-Credentials")).toBeNull();
      expect(res.headers.get("Access-Control-Expose-Headers")).toBe(
        "X-WP-Total,X-WP-TotalPages,Link,x-d1-bookmark",
      );
      expect(res.headers.get("Vary")).toContain("Origin");
    }
  });

  it("echoes only an origin a browser could send: not two joined, not a non-ASCII host", async () => {
    for (const origin of [`${ORIGIN}, https://b.example`, "https://\u00e9vil.example", "null x"]) {
      const res = await send("GET", "/wp-json/", { headers: { Origin: origin } });
      expect(res.headers.get("Access-Control-Allow-Origin"), origin).toBeNull();
    }
    // Sandboxed frames and files send `null`; app shells and extensions their own schemes.
    for (const origin of [
      "null",
      "capacitor://localhost",
      "chrome-extension://abc",
      "http://[::1]:8080",
    ]) {
      const res = await send("GET", "/wp-json/", { headers: { Origin: origin } });
      expect(res.headers.get("Access-Control-Allow-Origin"), origin).toBe(origin);
    }
  });

  it("sends no CORS grant without an Origin, with CORS_ORIGINS empty or set", async () => {
    for (const vars of [{}, { CORS_ORIGINS: ORIGIN }] as Record<string, string>[]) {
      const res = await send("GET", "/wp-json/", { vars });
      expect(res.headers.get("Access-Control-Allow-Origin")).toBeNull();
      expect(res.headers.get("Access-Control-Allow-Credentials")).toBeNull();
    }
  });

  it("CORS_ORIGINS grants only the origins it names, and only those with credentials; others get no CORS header", async () => {
    const vars = { CORS_ORIGINS: `https://other.example, ${ORIGIN}/` };
    const allowed = await preflight("/wp-json/wallet/v1/credits", vars);
    expect(allowed.status).toBe(204);
    expect(allowed.headers.get("Access-Control-Allow-Origin")).toBe(ORIGIN);
    expect(allowed.headers.get("Access-Control-Allow-Credentials")).toBe("true");
    const listedGet = await send("GET", "/wp-json/", { headers: { Origin: ORIGIN }, vars });
    expect(listedGet.headers.get("Access-Control-Allow-Origin")).toBe(ORIGIN);
    expect(listedGet.headers.get("Access-Control-Allow-Credentials")).toBe("true");
    const refused = await send("OPTIONS", "/wp-json/wallet/v1/credits", {
      headers: { Origin: "https://evil.example", "Access-Control-Request-Method": "POST" },
      vars,
    });
    const granted = [...refused.headers.keys()].filter((h) => h.startsWith("access-control-"));
    expect(granted).toEqual([]);
    const get = await send("GET", "/wp-json/", {
      headers: { Origin: "https://evil.example" },
      vars,
    });
    expect([...get.headers.keys()].filter((h) => h.startsWith("access-control-"))).toEqual([]);
  });

  it("CORS_ORIGINS matches an origin however it is spelled, as a browser sends it", async () => {
    const log = vi.spyOn(console, "error").mockImplementation(() => {});
    // Browsers send scheme and host lower-case and no default port; Capacitor's iOS shell sends
    // its own scheme, whose URL origin is opaque (`null`).
    const vars = {
      CORS_ORIGINS:
        "https://App.Example.com, HTTP://x.example.com:80, https://y.example.com:443/, Capacitor://LocalHost",
    };
    for (const origin of [
      "https://app.example.com",
      "http://x.example.com",
      "https://y.example.com",
      "capacitor://localhost",
    ])
      for (const method of ["GET", "OPTIONS"] as const) {
        const res = await send(method, "/wp-json/", {
          headers: { Origin: origin, "Access-Control-Request-Method": "POST" },
          vars,
        });
        expect(res.headers.get("Access-Control-Allow-Origin"), `${method} ${origin}`).toBe(origin);
        expect(res.headers.get("Access-Control-Allow-Credentials"), origin).toBe("true");
      }
    // Each names its origin alone: not another port or host, and never a sandboxed frame's `null`.
    for (const origin of [
      "https://app.example.com:8443",
      "http://x.example.com:8080",
      "capacitor://localhost:8080",
      "capacitor://other",
      "null",
    ])
      for (const method of ["GET", "OPTIONS"] as const) {
        const res = await send(method, "/wp-json/", {
          headers: { Origin: origin, "Access-Control-Request-Method": "POST" },
          vars,
        });
        const granted = [...res.headers.keys()].filter((h) => h.startsWith("access-control-"));
        expect(granted, `${method} ${origin}`).toEqual([]);
      }
    expect(log).not.toHaveBeenCalled();
    vi.restoreAllMocks();
  });

  it("CORS_ORIGINS `*` lets every origin in as empty does, and the origins beside it with credentials", async () => {
    for (const [setting, credentialed] of [
      ["*", false],
      [` * , ${ORIGIN}`, true],
    ] as const) {
      const vars = { CORS_ORIGINS: setting };
      for (const [origin, withCredentials] of [
        ["https://any.example", false],
        [ORIGIN, credentialed],
      ] as const) {
        const pre = await send("OPTIONS", "/wp-json/wallet/v1/credits", {
          headers: { Origin: origin, "Access-Control-Request-Method": "POST" },
          vars,
        });
        expect(pre.headers.get("Access-Control-Allow-Origin"), setting).toBe(origin);
        expect(pre.headers.get("Access-Control-Allow-Methods")).toContain("POST");
        expect(pre.headers.get("Access-Control-Allow-Credentials")).toBe(
          withCredentials ? "true" : null,
        );
      }
    }
  });

  it("logs once an entry of CORS_ORIGINS that is no origin, which no browser can match", async () => {
    const log = vi.spyOn(console, "error").mockImplementation(() => {});
    const notOrigins = [
      "app.example.com",
      `${ORIGIN}/path`,
      `${ORIGIN}?x=1`,
      `${ORIGIN}#top`,
      "https://user@app.example.org",
      "file://localhost",
      "null",
      // URL would decode it to another host than the one written (app.example.com.evil.com).
      "https://app.example.com%2eevil.com",
    ];
    const vars = { CORS_ORIGINS: `${notOrigins.join(", ")}, ${ORIGIN}` };
    for (let i = 0; i < 2; i++) {
      const res = await send("GET", "/wp-json/", { headers: { Origin: ORIGIN }, vars });
      expect(res.headers.get("Access-Control-Allow-Origin")).toBe(ORIGIN);
      // A sandboxed frame's or a file's `null` is no origin either: it gets no grant.
      for (const method of ["GET", "OPTIONS"] as const) {
        const sandboxed = await send(method, "/wp-json/", { headers: { Origin: "null" }, vars });
        expect(sandboxed.headers.get("Access-Control-Allow-Origin"), method).toBeNull();
        expect(sandboxed.headers.get("Access-Control-Allow-Credentials"), method).toBeNull();
      }
    }
    const notices = log.mock.calls.map(([line]) => JSON.parse(String(line)));
    expect(notices).toEqual(
      notOrigins.map((entry) => ({
        setting: "CORS_ORIGINS",
        notice: `"${entry}" is not an origin (scheme://host[:port]), so no browser's Origin matches it`,
      })),
    );
    vi.restoreAllMocks();
  });
});

describe("discovery Link and Allow", () => {
  const API_LINK = `<${SITE}/wp-json/>; rel="https://api.w.org/"`;

  it("every REST answer, and GET and HEAD /, carry the api.w.org Link", async () => {
    for (const [method, path] of [
      ["GET", "/wp-json/"],
      ["GET", "/wp-json/wallet/v1/credits"],
      ["POST", "/wp-json/wallet/v1/credits"],
      ["GET", "/"],
      ["HEAD", "/"],
    ] as const) {
      const res = await send(method, path);
      expect(res.headers.get("Link"), `${method} ${path}`).toBe(API_LINK);
    }
    expect((await send("HEAD", "/")).status).toBe(200);
    expect(JSON.parse((await send("GET", "/")).text)).toEqual({
      name: "Wallet ledger",
      api: `${SITE}/wp-json/`,
      console: `${SITE}/wallet-admin/`,
      reference: `${SITE}/api-reference`,
    });
  });

  it("Allow names the methods of the matched route", async () => {
    const admin = await makeAdmin();
    const wallets = await call("GET", "/wallets", { auth: admin.bearer });
    expect(wallets.headers.get("Allow")).toBe("POST, GET");
    const one = await call("GET", "/transactions/999999999", { auth: admin.bearer });
    expect(one.headers.get("Allow")).toBe("GET");
    const credits = await call("POST", "/credits", { auth: admin.bearer, body: {} });
    expect(credits.headers.get("Allow")).toBe("POST");
    expect((await call("GET", "/no-such-route")).headers.get("Allow")).toBeNull();
    for (const index of ["/wp-json/", "/wp-json/wallet/v1"])
      expect((await send("GET", index)).headers.get("Allow"), index).toBe("GET");
  });
});

describe("the namespace index, as get_namespace_index lists it", () => {
  it("lists the namespace's own index route first, as GET /wp-json/ lists it", async () => {
    const [root, own] = await Promise.all([
      send("GET", "/wp-json/"),
      send("GET", "/wp-json/wallet/v1"),
    ]);
    const rootRoutes = JSON.parse(root.text).routes as Json;
    const ownRoutes = JSON.parse(own.text).routes as Json;
    // WordPress registers `/<namespace>` as the namespace's first route (register_route), so
    // both indexes list it, and the namespace's index is the root's routes of that namespace.
    expect(Object.entries(ownRoutes)[0]).toEqual([
      "/wallet/v1",
      { namespace: "wallet/v1", methods: ["GET"] },
    ]);
    const ofNamespace = Object.fromEntries(
      Object.entries(rootRoutes).filter(([, route]) => route.namespace === "wallet/v1"),
    );
    expect(ownRoutes).toStrictEqual(ofNamespace);
  });

  it("lists the root's own route first, and each path parameter as the pattern it matches", async () => {
    const root = JSON.parse((await send("GET", "/wp-json/")).text).routes as Json;
    expect(Object.entries(root)[0]).toEqual(["/", { namespace: "", methods: ["GET"] }]);
    // A record's id matches digits only, as WordPress's own `(?P<id>[\d]+)`; a wallet id any text.
    expect(root["/wallet/v1/transactions/(?P<id>[\\d]+)"]).toEqual({
      namespace: "wallet/v1",
      methods: ["GET"],
    });
    expect(root["/wallet/v1/wallets/(?P<wallet_id>[^/]+)"]?.methods).toContain("GET");
    expect((await send("GET", "/wp-json/wallet/v1/transactions/abc")).status).toBe(404);
  });
});

describe("plain permalinks and paths, as WordPress reads them", () => {
  it("a rest_route that cannot be read, or that .. would take out of the API, is no route", async () => {
    for (const path of [
      "/?rest_route=%ff",
      "/?rest_route=/wallet/v1/wallets&rest_route=%ff",
      "/?rest_route=/../health",
      "/?rest_route=/%2e%2e/wallet-admin/sign-in",
      "/index.php?rest_route=/wallet/v1/./wallets",
      // Decoded once, as PHP decodes $_GET: what is left is a name, never path syntax.
      "/?rest_route=/%252e%252e/wallet-admin/sign-in",
      "/?rest_route=/wallet/v1/%252E%252E/v1/wallets",
      "/?rest_route=/..%5Chealth",
      "/?rest_route=/.%09./health",
      "/?rest_route=/.%0A./health",
      "/?rest_route=/wallet/v1/%2557allets",
      "/?rest_route=/wallet/v1/%2577allets",
    ]) {
      const res = await send("GET", path);
      expect([res.status, JSON.parse(res.text)], path).toEqual([404, NO_ROUTE]);
    }
  });

  it("a rest_route without its leading slash is no route, a credit's included", async () => {
    // rest_api_loaded() serves the query var as it is (untrailingslashit only), and every route
    // WordPress registers starts with `/`: WP_REST_Server matches `@^/wallet/v1/credits$@i`
    // against `wallet/v1/credits` and answers rest_no_route. Nothing is written.
    const { admin, user, wallet } = await makeAccount();
    for (const [method, path] of [
      ["GET", "/?rest_route=wallet/v1/wallets"],
      ["GET", "/?rest_route=wallet/v1"],
      ["GET", "/index.php?rest_route=wallet/v1/wallets/"],
      ["POST", "/?rest_route=wallet/v1/credits"],
    ] as const) {
      const res = await send(method, path, {
        headers: { Authorization: admin.bearer, "Content-Type": "application/json" },
        ...(method === "POST"
          ? {
              body: JSON.stringify({
                user_id: user.id,
                wallet_id: wallet,
                request_id: unique("r"),
                amount: 1,
              }),
            }
          : {}),
      });
      expect([res.status, JSON.parse(res.text)], path).toEqual([404, NO_ROUTE]);
    }
    expect(await balanceOf(admin, user.id, wallet)).toBe(0);
  });

  it("a rest_route names what its path form names, characters outside ASCII included", async () => {
    const admin = await makeAdmin();
    const names = ["n%C3%A9", "%E2%84%AA", "N%C3%89", "%F0%9F%92%B0", "a%20b", "a%7Bb", "a%22b"];
    for (const name of [...names, "a%3Cb", "a%60b", "a%3Fb", "a%23b", "a%5Eb", "a%7Db", "a%3Eb"]) {
      const [asPath, asRoute] = await Promise.all(
        [`/wp-json/wallet/v1/wallets/${name}`, `/?rest_route=/wallet/v1/wallets/${name}`].map(
          (path) => send("GET", path, { headers: { Authorization: admin.bearer } }),
        ),
      );
      expect(asPath!.status, name).toBe(404);
      expect([asRoute!.status, asRoute!.text], name).toEqual([asPath!.status, asPath!.text]);
    }
  });

  it("a path is matched once decoded: %57allets is wallets", async () => {
    const admin = await makeAdmin();
    const res = await send("GET", "/wp-json/wallet/v1/%57allets", {
      headers: { Authorization: admin.bearer },
    });
    expect(res.status, res.text).toBe(200);
    expect(JSON.parse(res.text).message).toBe("Wallets retrieved");
  });

  it("/index.php/wp-json/… is its /wp-json/… (PATHINFO permalinks), a credit included", async () => {
    // WordPress registers its REST rewrite rules under `index.php/` too, and sites whose
    // permalinks are `/index.php/%postname%/` give their clients that base URL.
    const { admin, user, wallet } = await makeAccount();
    const auth = { Authorization: admin.bearer };
    for (const [index, path] of [
      ["/index.php/wp-json", "/wp-json"],
      ["/index.php/wp-json/", "/wp-json/"],
      ["/index.php/wp-json/wallet/v1", "/wp-json/wallet/v1"],
      ["/index.php/wp-json/wallet/v1/wallets", "/wp-json/wallet/v1/wallets"],
      ["/index.php/wp-json/wallet/v1/no-such-route", "/wp-json/wallet/v1/no-such-route"],
    ]) {
      const [viaIndex, direct] = await Promise.all(
        [index!, path!].map((p) => send("GET", p, { headers: auth })),
      );
      expect([viaIndex!.status, viaIndex!.text], index).toEqual([direct!.status, direct!.text]);
    }
    const body = JSON.stringify({
      user_id: user.id,
      wallet_id: wallet,
      amount: 5,
      request_id: "ix-1",
    });
    const headers = { ...auth, "Content-Type": "application/json" };
    const first = await send("POST", "/index.php/wp-json/wallet/v1/credits", { headers, body });
    expect(first.status, first.text).toBe(200);
    const again = await send("POST", "/wp-json/wallet/v1/credits", { headers, body });
    expect(again.status, again.text).toBe(409);
    const plugin = { COMPAT_NAMESPACE: "rimplenet" };
    const [viaIndex, direct] = await Promise.all(
      ["/index.php/wp-json/rimplenet/v1/wallets", "/wp-json/rimplenet/v1/wallets"].map((p) =>
        send("GET", p, { headers: auth, vars: plugin }),
      ),
    );
    expect(viaIndex!.status, viaIndex!.text).toBe(200);
    expect(viaIndex!.text).toBe(direct!.text);
    // Only the literal PHP file routes: anything else before /wp-json is no route.
    for (const other of ["/index.php5/wp-json/", "/x/index.php/wp-json/", "/index.phpwp-json/"])
      expect((await send("GET", other)).status, other).toBe(404);
  });

  it("an empty rest_route is none: the page answers as without it", async () => {
    // rest_api_loaded() returns at once for an empty rest_route, and WordPress serves the page `/`.
    for (const path of ["/?rest_route=", "/index.php?rest_route=", "/?a=1&rest_route="]) {
      const [res, without] = await Promise.all([
        send("GET", path),
        send("GET", path.split("?")[0]!),
      ]);
      expect([res.status, res.text], path).toEqual([without.status, without.text]);
    }
    expect((await send("GET", "/?rest_route=")).status).toBe(200);
  });

  it("every trailing slash of the root's route is stripped too: /wp-json// is the index", async () => {
    // WordPress's untrailingslashit leaves the route empty, which it serves as `/`.
    for (const path of ["/wp-json//", "/wp-json///", "/?rest_route=//", "/?rest_route=///"]) {
      const res = await send("GET", path);
      expect(res.status, `${path}: ${res.text}`).toBe(200);
      expect(JSON.parse(res.text).namespaces, path).toContain("wallet/v1");
    }
  });
});

describe("_method and X-HTTP-Method-Override, as WP_REST_Server reads them", () => {
  async function newKey(admin: { bearer: string }) {
    const res = await call("POST", "/api-keys", {
      auth: admin.bearer,
      body: { name: "override test", scope: "read" },
    });
    expect(res.status, res.text).toBe(201);
    return res.body.data.id as number;
  }
  const keyRevoked = async (admin: { bearer: string }, id: number) =>
    ((await call("GET", "/api-keys", { auth: admin.bearer })).body.data as Json[]).find(
      (k) => k.id === id,
    )?.revoked;

  it("POST ?_method=DELETE runs the DELETE route", async () => {
    const admin = await makeAdmin();
    const id = await newKey(admin);
    const res = await call("POST", `/api-keys/${id}?_method=delete`, { auth: admin.bearer });
    expect(res.status, res.text).toBe(200);
    expect(await keyRevoked(admin, id)).toBe(true);
  });

  it("POST with X-HTTP-Method-Override: DELETE runs the DELETE route", async () => {
    const admin = await makeAdmin();
    const id = await newKey(admin);
    const res = await call("POST", `/api-keys/${id}`, {
      auth: admin.bearer,
      headers: { "X-HTTP-Method-Override": "DELETE" },
    });
    expect(res.status, res.text).toBe(200);
    expect(await keyRevoked(admin, id)).toBe(true);
  });

  it("a method no route has is no route, in envelope and headers, and the POST does not run", async () => {
    const { admin, user, wallet } = await makeAccount();
    for (const [query, header] of [
      ["?_method=FOO", undefined],
      ["?_method=CONNECT", undefined],
      ["", "TRACK"],
      ["?_method=DELETE1", undefined],
      // strtoupper folds a-z alone: `poſt` (long s) is `POſT`, no method, as in WordPress.
      [`?_method=${encodeURIComponent("po\u017Ft")}`, undefined],
      ["", "po\u017Ft"],
      ["?_method=", undefined],
      ["", " "],
    ] as const) {
      const res = await call("POST", `/credits${query}`, {
        auth: admin.bearer,
        headers: header ? { "X-HTTP-Method-Override": header } : {},
        body: { user_id: user.id, wallet_id: wallet, amount: "1", request_id: "x" },
      });
      expect([res.status, res.body.code], `${query}${header ?? ""}`).toEqual([
        404,
        "rest_no_route",
      ]);
      expect(res.headers.get("X-Request-Id")).toBeTruthy();
      expect(res.headers.get("X-Content-Type-Options")).toBe("nosniff");
    }
    expect(await balanceOf(admin, user.id, wallet)).toBe(0);
  });

  it("reads _method as PHP's $_GET holds it: its name decoded, the last of repeats", async () => {
    // WordPress switches to DELETE here, and /credits has no DELETE: the credit must not run.
    const { admin, user, wallet } = await makeAccount();
    for (const query of [
      "?_method=POST&_method=DELETE",
      "?%5Fmethod=DELETE",
      "?_m%65thod=DELETE",
      "?_method=POST&%5fmethod=DELETE",
      "?_method=POST&+_method=DELETE", // PHP drops a name's leading spaces
      "?.method=DELETE", // and registers a `.` as `_`
    ]) {
      const res = await call("POST", `/credits${query}`, {
        auth: admin.bearer,
        body: { user_id: user.id, wallet_id: wallet, amount: "1", request_id: unique("m") },
      });
      expect([res.status, res.body.code], query).toEqual([404, "rest_no_route"]);
    }
    expect(await balanceOf(admin, user.id, wallet)).toBe(0);
    // And the last one wins the other way too: a POST that ends `_method=POST` runs as a POST.
    const id = await newKey(admin);
    const res = await call("POST", `/api-keys/${id}?_method=DELETE&_method=POST`, {
      auth: admin.bearer,
    });
    expect(res.body.code).toBe("rest_no_route"); // the key's path has no POST
    expect(await keyRevoked(admin, id)).toBe(false);
  });

  it("takes a last _method[…] for the array PHP makes of it: no route, never the POST", async () => {
    // WordPress calls set_method() with $_GET['_method'], here an array: PHP 8 stops with a fatal
    // error, PHP 7 names no method. Either way the credit never runs there.
    const { admin, user, wallet } = await makeAccount();
    for (const query of [
      "?_method[]=DELETE",
      "?_method=POST&_method[x]=POST",
      "?.method[]=POST", // `.method` is `_method`, as PHP registers names
    ]) {
      const res = await call("POST", `/credits${query}`, {
        auth: admin.bearer,
        body: { user_id: user.id, wallet_id: wallet, amount: "1", request_id: unique("m") },
      });
      expect([res.status, res.body.code], query).toEqual([404, "rest_no_route"]);
    }
    expect(await balanceOf(admin, user.id, wallet)).toBe(0);
    // A plain `_method` after the array is the text PHP keeps: POST runs as a POST.
    const res = await call("POST", "/credits?_method[]=DELETE&_method=POST", {
      auth: admin.bearer,
      body: { user_id: user.id, wallet_id: wallet, amount: "1", request_id: unique("m") },
    });
    expect(res.status, res.text).toBe(200);
  });

  it("POST ?_method=GET reads; a GET is never switched", async () => {
    const admin = await makeAdmin();
    expect((await call("POST", "/wallets?_method=GET", { auth: admin.bearer })).status).toBe(200);
    const id = await newKey(admin);
    const res = await call("GET", `/api-keys/${id}?_method=DELETE`, { auth: admin.bearer });
    expect(res.status).toBe(404);
    expect(await keyRevoked(admin, id)).toBe(false);
    // A parameter that only ends in `_method=` switches nothing.
    const posted = await call("POST", `/api-keys/${id}?x_method=DELETE`, { auth: admin.bearer });
    expect(posted.body.code).toBe("rest_no_route"); // the key's path has no POST
    expect(await keyRevoked(admin, id)).toBe(false);
  });
});

describe("GET /transactions: paging links, and the whole history when no page is asked for", () => {
  async function history(entries: number) {
    const { admin, user, wallet } = await makeAccount();
    for (let i = 0; i < entries; i += 25) {
      await Promise.all(
        Array.from({ length: Math.min(25, entries - i) }, (_, j) =>
          credit(admin, { user_id: user.id, wallet_id: wallet, amount: i + j + 1 }),
        ),
      );
    }
    return { admin, user, wallet };
  }
  const list = (auth: string, query: Record<string, string | number>) =>
    call("GET", "/transactions", { auth, query: { security_code: 1, ...query } });

  it("Link rel=prev and rel=next keep the request's parameters and change page", async () => {
    const { admin, user } = await history(5);
    const url = (page: number) =>
      `${SITE}/wp-json/wallet/v1/transactions?security_code=1&user_id=${user.id}&per_page=2&page=${page}`;
    const links = async (page: number, name = "page") =>
      (await list(admin.bearer, { user_id: user.id, per_page: 2, [name]: page })).headers
        .get("Link")!
        .split(", ")
        .slice(0, -1);
    expect(await links(1)).toEqual([`<${url(2)}>; rel="next"`]);
    // `pageno`, the plugin's name for `page`, is read as it: the links name the page once, `page`.
    expect(await links(2, "pageno")).toEqual([
      `<${url(1)}>; rel="prev"`,
      `<${url(3)}>; rel="next"`,
    ]);
    expect(await links(2)).toEqual([`<${url(1)}>; rel="prev"`, `<${url(3)}>; rel="next"`]);
    expect(await links(3)).toEqual([`<${url(2)}>; rel="prev"`]);
    expect(await links(9)).toEqual([`<${url(3)}>; rel="prev"`]);
  });

  it("without page or per_page answers every entry (250, past the old 100), as pages of the same order would", async () => {
    const { admin, user } = await history(250);
    for (const order of ["desc", "asc"]) {
      const whole = await list(admin.bearer, { user_id: user.id, order });
      expect(whole.status).toBe(200);
      expect(whole.headers.get("Content-Type")).toBe("application/json; charset=UTF-8");
      expect([whole.headers.get("X-WP-Total"), whole.headers.get("X-WP-TotalPages")]).toEqual([
        "250",
        "1",
      ]);
      const pages = [];
      for (const page of [1, 2, 3])
        pages.push(...(await list(admin.bearer, { user_id: user.id, order, page })).body.data);
      expect(whole.body).toStrictEqual({
        status_code: 200,
        status: true,
        message: "Txns Retrieved Successful",
        data: pages,
      });
      expect(whole.body.data).toHaveLength(250);
    }
  });

  it("an empty history is the same envelope with [] and no pages", async () => {
    const { admin, user } = await makeAccount();
    const res = await list(admin.bearer, { user_id: user.id });
    expect(res.text).toBe(
      '{"status_code":200,"status":true,"message":"Txns Retrieved Successful","data":[]}',
    );
    expect([res.headers.get("X-WP-Total"), res.headers.get("X-WP-TotalPages")]).toEqual(["0", "0"]);
  });

  it("filters apply to the whole history too", async () => {
    const { admin, user, wallet } = await history(30);
    const res = await list(admin.bearer, {
      user_id: user.id,
      wallet_id: wallet,
      txn_type: "DEBIT",
    });
    expect(res.body.data).toEqual([]);
    expect(res.headers.get("X-WP-Total")).toBe("0");
  });
});
