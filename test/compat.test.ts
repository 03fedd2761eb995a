import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { compatCall, GUARDED, ON } from "./compat-helpers";
import {
  call,
  credit,
  makeAdmin,
  makeKey,
  makeUser,
  makeWallet,
  NO_ROUTE,
  signedToken,
  type TestUser,
  unique,
} from "./helpers";

const NS = "/wp-json/rimplenet/v1";
const balancePath = (userId: number | string, wallets: string, route = "user-wallet-balance") =>
  `${NS}/${route}?user_id=${userId}&wallet_id=${encodeURIComponent(wallets)}`;

/** An administrator, a subscriber with 1500.50 in one wallet, and a second, unused wallet. */
async function funded() {
  const admin = await makeAdmin();
  const user = await makeUser();
  const wallet = await makeWallet(admin, { symbol: "₦", name: "Naira" });
  const other = await makeWallet(admin, {
    symbol: "COIN",
    position: "right",
    decimals: 0,
    name: "Coin",
  });
  expect(
    (await credit(admin, { user_id: user.id, wallet_id: wallet, amount: "1500.50" })).status,
  ).toBe(200);
  return { admin, user, wallet, other };
}

describe("the compatibility namespace switch", () => {
  it("is off by default: the namespace is a 404 rest_no_route, in both path forms, and discovery omits it", async () => {
    const { user, wallet } = await funded();
    for (const path of [
      balancePath(user.id, wallet),
      `/?rest_route=/rimplenet/v1/user-wallet-balance&user_id=${user.id}&wallet_id=${wallet}`,
      NS,
    ]) {
      const res = await compatCall("GET", path);
      expect(res.status).toBe(404);
      expect(res.body).toStrictEqual(NO_ROUTE);
    }
    const index = await compatCall("GET", "/wp-json/");
    expect(index.body.namespaces).toEqual(["wallet/v1"]);
    expect(Object.keys(index.body.routes).some((r) => r.startsWith("/rimplenet"))).toBe(false);
  });

  it("when on, discovery lists the namespace and its routes, and GET /wp-json/<ns>/v1 is its index", async () => {
    const index = await compatCall("GET", "/wp-json/", { vars: ON });
    expect(index.body.namespaces).toEqual(["wallet/v1", "rimplenet/v1"]);
    expect(index.body.routes["/rimplenet/v1/user-wallet-balance"]).toStrictEqual({
      namespace: "rimplenet/v1",
      methods: ["GET"],
    });
    expect(index.body.routes["/rimplenet/v1/user-wallet-balance/multi"]).toStrictEqual({
      namespace: "rimplenet/v1",
      methods: ["GET"],
    });
    expect(index.body.routes["/rimplenet/v1/users"]).toStrictEqual({
      namespace: "rimplenet/v1",
      methods: ["GET", "POST"],
    });
    const own = await compatCall("GET", `${NS}/`, { vars: ON });
    expect(own.status).toBe(200);
    expect(own.body.namespace).toBe("rimplenet/v1");
    expect(index.body.routes["/rimplenet/v1/credits"]).toStrictEqual({
      namespace: "rimplenet/v1",
      methods: ["GET", "POST"],
    });
    expect(Object.keys(own.body.routes)).toEqual([
      "/rimplenet/v1",
      "/rimplenet/v1/credits",
      "/rimplenet/v1/debits",
      "/rimplenet/v1/transactions",
      "/rimplenet/v1/user-wallet-balance",
      "/rimplenet/v1/user-wallet-balance/multi",
      "/rimplenet/v1/users",
      "/rimplenet/v1/users/login",
      "/rimplenet/v1/users/(?P<user_id>\\d+)",
      "/rimplenet/v1/transfers",
      "/rimplenet/v1/wallets",
      "/rimplenet/v1/wallets/(?P<wallet>[a-zA-Z0-9_]+)",
      "/rimplenet/v1/wallets/(?P<wallet>[\\w]+)",
      "/rimplenet/v1/wallet-summary",
      "/rimplenet/v1/verify-email-address",
    ]);
  });

  it("matches the namespace and paths case-insensitively and accepts trailing slashes", async () => {
    const { user, wallet } = await funded();
    for (const path of [
      `/wp-json/RimpleNet/v1/User-Wallet-Balance/?user_id=${user.id}&wallet_id=${wallet}`,
      `/wp-json/rimplenet/v1/user-wallet-balance/multi/?user_id=${user.id}&wallet_id=${wallet}`,
      // WordPress strips every trailing slash (untrailingslashit): the real plugin answers these.
      `/wp-json/rimplenet/v1/user-wallet-balance///?user_id=${user.id}&wallet_id=${wallet}`,
      `/wp-json/Rimplenet/v1/user-wallet-balance//?user_id=${user.id}&wallet_id=${wallet}`,
      `/?rest_route=/rimplenet/v1/user-wallet-balance//&user_id=${user.id}&wallet_id=${wallet}`,
    ]) {
      const res = await compatCall("GET", path, {
        vars: { COMPAT_NAMESPACE: "RIMPLENET", COMPAT_PUBLIC_READS: "true" },
      });
      expect(res.status, res.text).toBe(200);
    }
  });

  it("reads COMPAT_PUBLIC_READS in any letter case, spaces around it ignored", async () => {
    const { user, wallet } = await funded();
    for (const flag of ["TRUE", " True "]) {
      const res = await compatCall("GET", balancePath(user.id, wallet), {
        vars: { COMPAT_NAMESPACE: "rimplenet", COMPAT_PUBLIC_READS: flag },
      });
      expect(res.status, flag).toBe(200);
    }
  });

  it("answers 404 for another namespace name, for routes not served yet and for POST on the reads", async () => {
    const { user, wallet } = await funded();
    for (const [method, path] of [
      ["GET", `/wp-json/other/v1/user-wallet-balance?user_id=${user.id}&wallet_id=${wallet}`],
      ["PUT", `${NS}/users/2`],
      ["PUT", `${NS}/wallets/usd`],
      ["POST", balancePath(user.id, wallet)],
      ["POST", balancePath(user.id, wallet, "user-wallet-balance/multi")],
    ] as const) {
      const res = await compatCall(method, path, { vars: ON });
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.body).toStrictEqual(NO_ROUTE);
    }
  });

  it("never lets COMPAT_NAMESPACE=wallet touch /wp-json/wallet/v1: it still requires credentials", async () => {
    const { user, wallet } = await funded();
    const res = await compatCall(
      "GET",
      `/wp-json/wallet/v1/user-wallet-balance?user_id=${user.id}&wallet_id=${wallet}`,
      { vars: { COMPAT_NAMESPACE: "wallet", COMPAT_PUBLIC_READS: "true" } },
    );
    expect(res.status).toBe(401);
    expect(
      (await compatCall("GET", "/wp-json/", { vars: { COMPAT_NAMESPACE: "wallet" } })).body
        .namespaces,
    ).toEqual(["wallet/v1"]);
  });

  it("leaves /wp-json/wallet/v1 exactly as it was while the dialect is on", async () => {
    const { admin, user, wallet } = await funded();
    const path = `/wp-json/wallet/v1/user-wallet-balance?user_id=${user.id}&wallet_id=${wallet}`;
    expect((await compatCall("GET", path, { vars: ON })).status).toBe(401);
    const res = await compatCall("GET", path, {
      vars: ON,
      headers: { Authorization: admin.bearer },
    });
    expect(res.body).toStrictEqual({
      status_code: 200,
      status: true,
      message: "Wallet Balance retrieved",
      data: { [wallet]: 1500.5 },
    });
  });
});

describe("balances with COMPAT_PUBLIC_READS=true", () => {
  it("ignores any Authorization or x-api-key header: never refused", async () => {
    const { user, wallet } = await funded();
    const { token: expired } = await signedToken(
      { id: user.id, username: user.username, role: "subscriber" },
      { lifetimeS: 1, nowMs: 0 },
    );
    const { token: foreign } = await signedToken(
      { id: user.id, username: user.username, role: "administrator" },
      { secret: "another-secret" },
    );
    const headerSets: Record<string, string>[] = [
      { Authorization: "Bearer undefined" },
      { Authorization: "Bearer null" },
      { Authorization: `Bearer ${expired}` },
      { Authorization: `Bearer ${foreign}` },
      { Authorization: "Basic" },
      { Authorization: "Bearer é" },
      { "x-api-key": "not-a-key" },
    ];
    for (const headers of headerSets) {
      const res = await compatCall("GET", balancePath(user.id, wallet), { vars: ON, headers });
      expect(res.status, JSON.stringify(headers)).toBe(200);
      expect(res.body.data.wallet_balance_raw).toBe(1500.5);
    }
  });

  it("prints balances exactly from minor units", async () => {
    const { admin, user, wallet } = await funded();
    for (const amount of ["0.1", "0.2"])
      await credit(admin, { user_id: user.id, wallet_id: wallet, amount });
    const big = await makeUser();
    await credit(admin, { user_id: big.id, wallet_id: wallet, amount: "9999999999999.99" });
    const res = await compatCall("GET", balancePath(user.id, wallet), { vars: ON });
    expect(res.text).toContain(
      '"wallet_balance_raw":1500.8,"wallet_balance_formatted":"₦1,500.80"',
    );
    const top = await compatCall("GET", balancePath(big.id, wallet), { vars: ON });
    expect(top.text).toContain(
      '"wallet_balance_raw":9999999999999.99,"wallet_balance_formatted":"₦9,999,999,999,999.99"',
    );
  });

  it("/multi answers an array in request order, and keys by position once an unknown wallet leaves a gap", async () => {
    const { user, wallet, other } = await funded();
    const dense = await compatCall(
      "GET",
      balancePath(user.id, `${other},${wallet},nosuch`, "user-wallet-balance/multi"),
      { vars: ON },
    );
    expect(dense.status).toBe(200);
    expect(dense.body.data.map((r: { wallet_id: string }) => r.wallet_id)).toEqual([other, wallet]);
    expect(dense.body.data[0]).toStrictEqual({
      wallet_id: other,
      wallet_balance_raw: 0,
      wallet_balance_formatted: "0 COIN",
      wallet_name: "Coin",
      wallet_symbol: "COIN",
      wallet_symbol_position: "right",
      wallet_decimal: "0",
      wallet_note: "",
      wallet_type: "fiat",
    });
    const gap = await compatCall(
      "GET",
      balancePath(user.id, `nosuch,${wallet}`, "user-wallet-balance/multi"),
      { vars: ON },
    );
    expect(Object.keys(gap.body.data)).toEqual(["1"]);
    expect(gap.body.data["1"].wallet_balance_raw).toBe(1500.5);
    const none = await compatCall(
      "GET",
      balancePath(user.id, "nosuch", "user-wallet-balance/multi"),
      { vars: ON },
    );
    expect(none.body.data).toStrictEqual([]);
    expect(none.body.submitted).toStrictEqual({
      user_id: String(user.id),
      wallet_id: "nosuch",
      formatted: "",
    });
  });

  it("answers the plugin's 422 shapes: by value on the single route (PHP key order kept), by field on /multi", async () => {
    const cases: [string, string][] = [
      [
        `${NS}/user-wallet-balance?user_id=&wallet_id=0`,
        '{"":"user_id is required","0":"wallet_id is required"}',
      ],
      [`${NS}/user-wallet-balance?user_id=0&wallet_id=0`, '["wallet_id is required"]'],
      [
        `${NS}/user-wallet-balance/multi`,
        '{"user_id":"user_id is required","wallet_id":"wallet_id is required"}',
      ],
      [
        `${NS}/user-wallet-balance/multi?user_id=0&wallet_id=usd`,
        '{"user_id":"user_id is required"}',
      ],
    ];
    for (const [path, error] of cases) {
      const res = await compatCall("GET", path, { vars: ON });
      expect(res.text, path).toBe(
        `{"status_code":422,"status":false,"message":"Entities Are Required","error":${error}}`,
      );
    }
  });

  it("reads a user id as get_user_meta did, sanitizes what it echoes, and bounds the wallet list", async () => {
    const { user, wallet } = await funded();
    const minus = await compatCall("GET", balancePath(`-${user.id}`, wallet), { vars: ON });
    expect(minus.body.data.wallet_balance_raw).toBe(1500.5);
    const word = await compatCall("GET", balancePath("abc", `<b>${wallet}</b>`), { vars: ON });
    expect(word.body.data.wallet_balance_raw).toBe(0);
    expect(word.body.submitted).toStrictEqual({ user_id: "abc", wallet_id: wallet, formatted: "" });
    // Each piece is sanitized again, as the plugin did: PHP's trim keeps a no-break space and a
    // form feed, so the piece names no wallet.
    for (const spaced of [`${wallet}\u00a0`, `${wallet}\f`]) {
      const res = await compatCall("GET", balancePath(user.id, spaced), { vars: ON });
      expect(res.body.data, JSON.stringify(spaced)).toStrictEqual([]);
    }
    const many = await compatCall("GET", balancePath(user.id, Array(51).fill(wallet).join(",")), {
      vars: ON,
    });
    expect(many.status).toBe(400);
    expect(many.body.error).toStrictEqual({ wallet_id: "wallet_id lists at most 50 wallets" });
  });
});

describe("balances with COMPAT_PUBLIC_READS off", () => {
  const read = (auth: Record<string, string>, userId: number, wallet: string) =>
    compatCall("GET", balancePath(userId, wallet), { vars: GUARDED, headers: auth });

  it("lets an administrator read anyone and a subscriber only itself, as /wallet/v1 decides", async () => {
    const { admin, user, wallet } = await funded();
    const stranger = await makeUser();
    expect(
      (await read({ Authorization: admin.bearer }, user.id, wallet)).body.data.wallet_balance_raw,
    ).toBe(1500.5);
    expect(
      (await read({ Authorization: user.bearer }, user.id, wallet)).body.data.wallet_balance_raw,
    ).toBe(1500.5);
    expect(
      (await read({ Authorization: (await makeKey(admin, "read")).header }, user.id, wallet))
        .status,
    ).toBe(200);
    const refused = await read({ Authorization: stranger.bearer }, user.id, wallet);
    expect(refused.body).toStrictEqual({
      status_code: 403,
      status: false,
      message: "Permission Denied",
      error: {
        permission: "Permission Denied for get_rimplenet_wallets_balance",
        recommendation: "Set allowed actions withing the given permissions list",
      },
    });
    expect(
      (await read({ Authorization: (await makeKey(admin, "write")).header }, user.id, wallet))
        .status,
    ).toBe(403);
  });

  it("reads the header's second word as the credential and ignores any after it, as the plugin's explode(' ', …)[1] did", async () => {
    const { admin, user, wallet } = await funded();
    const key = (await makeKey(admin, "read-write")).header;
    for (const auth of [`${key} extra`, `${admin.bearer} extra words`]) {
      const res = await read({ Authorization: auth }, user.id, wallet);
      expect([res.status, res.body.data?.wallet_balance_raw], auth).toEqual([200, 1500.5]);
    }
    // A JWT route too; a second word that does not verify is still refused.
    const users = await compatCall("GET", `${NS}/users?user_id=${user.id}`, {
      vars: GUARDED,
      headers: { Authorization: `${admin.bearer} extra` },
    });
    expect(users.status, users.text).toBe(200);
    expect((await read({ Authorization: "Key wrong extra" }, user.id, wallet)).status).toBe(401);
    // wallet/v1 keeps the contract's two words
    const v1 = await call("GET", "/user-wallet-balance", {
      auth: `${key} extra`,
      query: { user_id: user.id, wallet_id: wallet },
    });
    expect(v1.status).toBe(401);
  });
});

describe("GET users", () => {
  const users = (auth: TestUser | null, query = "") =>
    compatCall("GET", `${NS}/users${query}`, {
      vars: ON,
      headers: auth ? { Authorization: auth.bearer } : {},
    });

  it("lets a subscriber read itself by id or username, and nobody else (403 before existence)", async () => {
    const user = await makeUser();
    const other = await makeUser();
    for (const query of [`?user_id=${user.id}`, `?user_id=${user.username}`]) {
      const res = await users(user, query);
      expect(res.body).toMatchObject({
        status_code: 200,
        status: true,
        message: "User retrieved successfully",
        error: [],
      });
      expect(res.body.data).toMatchObject({
        id: user.id,
        username: user.username,
        user_email: user.email,
        display_name: user.username,
        first_name: "",
        last_name: "",
        roles: ["subscriber"],
      });
    }
    for (const query of [`?user_id=${other.id}`, "?user_id=2000000000", ""]) {
      expect((await users(user, query)).body).toStrictEqual({
        status_code: 403,
        status: "failed",
        message: "Permission denied",
        data: [],
        error: { unauthorize: "Request is not authorized" },
      });
    }
  });

  it('lets an administrator read anyone, answer 404 "Failed" for nobody, and list ten a page', async () => {
    const admin = await makeAdmin();
    const user = await makeUser();
    expect((await users(admin, `?user_id=${user.id}`)).body.data.id).toBe(user.id);
    expect((await users(admin, "?user_id=nobody-at-all")).body).toStrictEqual({
      status_code: 404,
      status: "Failed",
      message: "User not found",
      data: [],
      error: [],
    });
    for (let i = 0; i < 10; i++) await makeUser("subscriber", unique("zz"));
    const count = async () =>
      (await env.DB.prepare("SELECT count(*) AS n FROM users").first<{ n: number }>())!.n;
    // One past a multiple of ten: the last page holds one user, which counts as a page.
    for (let n = await count(); n % 10 !== 1; n++) await makeUser();
    const first = await users(admin);
    expect(first.body.data.users).toHaveLength(10);
    const total = await count();
    expect(first.body.data.others).toStrictEqual({
      totalPages: Math.ceil(total / 10),
      currentPage: 1,
    });
    const second = await users(admin, "?page=2&user_id=0");
    expect(second.body.data.others.currentPage).toBe(2);
    expect(second.body.data.users[0].username).not.toBe(first.body.data.users[0].username);
  });

  it("prints user_created_at as WordPress stored user_registered: in UTC, whatever the site's zone", async () => {
    const admin = await makeAdmin();
    const user = await makeUser();
    const { ms } = (await env.DB.prepare("SELECT registered_at_ms AS ms FROM users WHERE id = ?")
      .bind(user.id)
      .first<{ ms: number }>())!;
    const res = await compatCall("GET", `${NS}/users?user_id=${user.id}`, {
      vars: { ...GUARDED, SITE_TIMEZONE: "Asia/Kathmandu" },
      headers: { Authorization: admin.bearer },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.user_created_at).toBe(
      new Date(ms).toISOString().slice(0, 19).replace("T", " "),
    );
  });

  it("refuses in the plugin's JWT texts: none 401, a bad token 400 Invalid signature", async () => {
    expect((await users(null, "?user_id=1")).body).toStrictEqual({
      status_code: 401,
      status: "failed",
      message: "Permission denied",
      data: [],
      error: { unauthorize: "No authorization provided" },
    });
    const bad = await compatCall("GET", `${NS}/users?user_id=1`, {
      vars: ON,
      headers: { Authorization: "Bearer abc.def.ghi" },
    });
    expect(bad.body).toStrictEqual({
      status_code: 400,
      status: "failed",
      message: "Validation error",
      data: [],
      error: ["Invalid signature"],
    });
  });

  it("is the same with COMPAT_PUBLIC_READS off (it never was public)", async () => {
    const admin = await makeAdmin();
    const res = await compatCall("GET", `${NS}/users?user_id=${admin.id}`, {
      vars: GUARDED,
      headers: { Authorization: admin.bearer },
    });
    expect(res.body.data.roles).toEqual(["administrator"]);
    expect((await call("GET", "/wp-json/wallet/v1/users")).status).toBe(404);
  });
});
