// An imported user's WordPress password × every sign-in: wallet/v1's POST /users/login, the
// plugin's POST users/login and the console's sign-in form, for each hash a WordPress site holds
// (phpass, WordPress 6.8's bcrypt, plain bcrypt, MD5, and Django's pbkdf2_sha256 a site carried
// over from Django). On each surface the wrong password is refused in that surface's words and
// changes nothing; the right one signs in, the credential it gives works where it belongs (a token
// on both API dialects, a cookie on the console), the hash is replaced by the service's own, and
// the same password signs in again against that.
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { GUARDED } from "./compat-helpers";
import { consoleOf, form } from "./console-helpers";
import { call, type Json, makeUser, makeWallet, type TestUser, unique } from "./helpers";
import { wordPressHashes } from "./wordpress-hash-oracle";

const PASSWORD = "wp pass ✓ 'quoted'";
/** The formats WordPress sites hold a password in (wordpress-hash-oracle.ts makes each). */
const KINDS = ["phpass", "wp-bcrypt", "bcrypt", "md5", "django"] as const;
/**
 * Django 1.11's hash of "lètmein": 36,000 iterations over the salt TEXT "seasalt" (Django's salt is
 * text; its UTF-8 bytes are PBKDF2's salt). Made by Node's crypto.pbkdf2Sync("lètmein", "seasalt",
 * 36000, 32, "sha256"); Python's hashlib.pbkdf2_hmac, which Django calls, gives the same digest.
 */
const DJANGO = {
  password: "lètmein",
  hash: "pbkdf2_sha256$36000$seasalt$mEUPPFJkT/xtwDU8rB7Q+puHRZnR07WRjerTkt/3HI0=",
};
/** The hash this service writes: 100,000 iterations, a salt of 16 random bytes in base64. */
const OWN_HASH = /^pbkdf2_sha256\$100000\$[A-Za-z0-9+/]{22}==\$[A-Za-z0-9+/]{43}=$/;

/** An imported user's password and the hash the site held for it. */
const imported = async (kind: (typeof KINDS)[number]) =>
  kind === "django"
    ? DJANGO
    : { password: PASSWORD, hash: (await wordPressHashes(PASSWORD))[kind] };

const con = consoleOf();
let wallet: string;

/** What a surface's sign-in gives: a refusal's status and words, or a credential to try. */
type SignIn = { status: number; refusal?: unknown; credential?: string };
type Surface = {
  name: string;
  signIn: (login: string, password: string) => Promise<SignIn>;
  /** The credential works where it belongs: the caller's own balance, or the console's page. */
  works: (credential: string, user: TestUser) => Promise<void>;
  refused: { status: number; words: unknown };
};

async function apiWorks(token: string, user: TestUser) {
  const q = { user_id: user.id, wallet_id: wallet };
  const v1 = await call("GET", "/user-wallet-balance", { auth: token, query: q });
  expect([v1.status, v1.body.data?.[wallet]], v1.text).toEqual([200, 0]);
  const plugin = await call("GET", "/wp-json/rimplenet/v1/user-wallet-balance", {
    auth: token,
    query: q,
    vars: GUARDED,
  });
  expect([plugin.status, plugin.body.data?.wallet_balance_raw], plugin.text).toEqual([200, 0]);
}

/** An API dialect's login route: its token, or its refusal's words. */
const apiLogin = (name: string, path: string, vars?: Record<string, string>): Surface => ({
  name,
  signIn: async (login, password) => {
    const res = await call("POST", path, {
      body: { user_email: login, user_password: password },
      vars,
    });
    return {
      status: res.status,
      refusal: res.body.error,
      credential: res.body.data?.access_token && `Bearer ${res.body.data.access_token}`,
    };
  },
  works: apiWorks,
  refused: { status: 400, words: ["Invalid Credential"] },
});

const SURFACES: Surface[] = [
  apiLogin("wallet/v1 POST /users/login", "/users/login"),
  apiLogin("the plugin's POST users/login", "/wp-json/rimplenet/v1/users/login/", GUARDED),
  {
    name: "the console's sign-in",
    signIn: async (login, password) => {
      const res = await con.request("/sign-in", {
        method: "POST",
        body: form({ email: login, password }),
      });
      if (res.status !== 303) return { status: res.status, refusal: signInNotice(res.html) };
      return { status: 200, credential: res.headers.get("set-cookie")!.split(";")[0]! };
    },
    works: async (cookie, user) => {
      const page = await con.request(`/users/${user.id}`, { cookie });
      expect(page.status, page.html).toBe(200);
      expect(page.html).toContain(user.username);
    },
    refused: { status: 400, words: "Those credentials were not accepted." },
  },
];

/** The refusal the sign-in page shows. */
const signInNotice = (html: string) =>
  /Those credentials were not accepted\./.exec(html)?.[0] ?? html.slice(0, 200);

const hashOf = async (user: TestUser) =>
  (await env.DB.prepare("SELECT password_hash AS h FROM users WHERE id = ?")
    .bind(user.id)
    .first<{ h: string }>())!.h;

beforeAll(async () => {
  const admin = await makeUser("administrator");
  wallet = await makeWallet(admin);
});

describe.each(SURFACES)("$name", (surface) => {
  it.each(KINDS)("signs in an imported administrator holding a %s hash", async (kind) => {
    const { password, hash } = await imported(kind);
    const user = await makeUser("administrator", unique("wp"), hash);
    const wrong = await surface.signIn(user.email, `${password}x`);
    expect([wrong.status, wrong.refusal]).toEqual([surface.refused.status, surface.refused.words]);
    expect(await hashOf(user), "a refused password leaves the hash").toBe(hash);
    // By username, as a WordPress user signed in.
    const first = await surface.signIn(user.username, password);
    expect(first.status, JSON.stringify(first.refusal as Json)).toBe(200);
    await surface.works(first.credential!, user);
    const upgraded = await hashOf(user);
    expect(upgraded).toMatch(OWN_HASH);
    const again = await surface.signIn(user.email, password);
    expect(again.status, JSON.stringify(again.refusal as Json)).toBe(200);
    await surface.works(again.credential!, user);
    expect(await hashOf(user)).toBe(upgraded);
  });
});
