// A credential made a moment ago (an API key, a sign-in's session) may not have reached the replica
// a read-only route reads: it is looked up again at the primary (db/client.ts orAtPrimary), so the
// client is not refused as "Invalid credentials" for replica lag. What a lagging replica still says of
// a credential revoked or demoted since through another isolate may let a read through for its lag,
// never a write; the isolate that ended a credential refuses it at once.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { hashApiKey } from "../src/auth/api-keys";
import { forwarded, withSessions } from "./d1-counter";
import {
  call,
  FORBIDDEN,
  INVALID_CREDENTIALS,
  makeAdmin,
  makeKey,
  makeUser,
  makeWallet,
  type Reply,
  signedToken,
  type TestUser,
  tableCounts,
  unique,
} from "./helpers";

/** A statement that runs, but answers as a replica without the row would: nothing. */
function empty(stmt: D1PreparedStatement): D1PreparedStatement {
  return new Proxy(stmt, {
    get(target, prop) {
      if (prop === "bind") return (...values: unknown[]) => empty(target.bind(...values));
      if (prop === "raw") return async () => (await target.raw()).slice(0, 0);
      if (prop === "all") return async () => ({ ...(await target.all()), results: [] });
      if (prop === "first")
        return async () => {
          await target.first();
          return null;
        };
      const value = Reflect.get(target, prop, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

/**
 * env.DB whose sessions started anywhere but the primary (a read-only route's) prepare each query
 * through `prepare`, as a lagging replica would answer it; the binding itself and a session started
 * at the primary (every write) have every row.
 */
function replica(prepare: (session: D1DatabaseSession, query: string) => D1PreparedStatement) {
  return withSessions((session, start) =>
    start === "first-primary"
      ? session
      : new Proxy(session, {
          get(s, p) {
            if (p === "prepare") return (query: string) => prepare(s, query);
            return forwarded(s, p);
          },
        }),
  );
}

const CREDENTIALS = /from "(api_keys|sessions)"/;

/** A replica that has not caught up on api_keys and sessions. */
const laggingReplica = replica((s, query) =>
  CREDENTIALS.test(query) ? empty(s.prepare(query)) : s.prepare(query),
);

describe("credentials on a read from a lagging replica", () => {
  it("accept an API key and an access token the replica has not seen yet, found at the primary", async () => {
    const admin = await makeAdmin();
    const { header } = await makeKey(admin, "read");
    for (const auth of [header, admin.bearer]) {
      const res = await call("GET", "/balances", { auth, d1: laggingReplica });
      expect(res.status, res.text).toBe(200);
    }
  });

  it("still refuse a key the primary does not have either", async () => {
    const admin = await makeAdmin();
    const { header } = await makeKey(admin, "read", { revoked: true });
    const res = await call("GET", "/balances", { auth: header, d1: laggingReplica });
    expect(res.status).toBe(401);
    expect(res.body).toStrictEqual(INVALID_CREDENTIALS);
  });
});

/**
 * A replica from before a user was made: a session started anywhere (`first-unconstrained`) reads
 * no row of users, their sessions, keys, balances or entries, in a statement or a batch; a session
 * started at a bookmark (which D1 serves at least that new) or at the primary reads every row.
 */
const beforeTheUser = (() => {
  const USER_ROWS = /(from|join) "(users|sessions|api_keys|balances|transactions)"/;
  const sqlOf = (s: D1PreparedStatement) => (s as unknown as { statement: string }).statement;
  return withSessions((session, start) =>
    start !== "first-unconstrained"
      ? session
      : new Proxy(session, {
          get(s, p) {
            if (p === "prepare")
              return (query: string) =>
                USER_ROWS.test(query) ? empty(s.prepare(query)) : s.prepare(query);
            if (p === "batch")
              return async (statements: D1PreparedStatement[]) =>
                (await s.batch(statements)).map((r, i) =>
                  USER_ROWS.test(sqlOf(statements[i]!)) ? { ...r, results: [] } : r,
                );
            return forwarded(s, p);
          },
        }),
  );
})();

/** A subscriber credited 15 in a new wallet, and the administrator who credited it. */
async function creditedUser() {
  const admin = await makeAdmin();
  const wallet = await makeWallet(admin);
  const user = await makeUser();
  const credited = await call("POST", "/credits", {
    auth: admin.bearer,
    body: { user_id: user.id, wallet_id: wallet, amount: "15", request_id: unique("c") },
  });
  expect(credited.status).toBe(200);
  return { admin, wallet, user };
}

/** `user`'s balance in `wallet`, read with `auth` through `d1` (a replica behind in some way). */
const balanceOf = (
  { user, wallet }: { user: { id: number }; wallet: string },
  auth: string,
  d1: D1Database,
  headers: Record<string, string> = {},
) =>
  call("GET", "/user-wallet-balance", {
    auth,
    query: { user_id: user.id, wallet_id: wallet },
    headers,
    d1,
  });

describe("a credential the replica has not seen yet, found at the primary", () => {
  it("reads its user's data at least as new as the primary was: the first read and those after it", async () => {
    const { wallet, user } = await creditedUser();
    const { header } = await makeKey(user, "read");
    for (const auth of [user.bearer, header])
      for (const _ of ["first", "cached"]) {
        const res = await balanceOf({ user, wallet }, auth, beforeTheUser);
        expect(res.status, res.text).toBe(200);
        expect(res.body.data[wallet]).toBe(15);
      }
  });

  it("reads as new when the isolate cached it from a write that handed out no bookmark", async () => {
    const { wallet, user } = await creditedUser();
    const { header } = await makeKey(user, "read");
    for (const auth of [user.bearer, header]) {
      // A subscriber makes no keys: 403, which carries no bookmark to send back.
      const refused = await call("POST", "/api-keys", {
        auth,
        d1: beforeTheUser,
        body: { name: unique("k"), scope: "read" },
      });
      expect(refused.body, refused.text).toEqual(FORBIDDEN);
      expect(refused.headers.get("x-d1-bookmark")).toBeNull();
      const res = await balanceOf({ user, wallet }, auth, beforeTheUser);
      expect(res.status, res.text).toBe(200);
      expect(res.body.data[wallet]).toBe(15);
    }
  });
});

/** A replica that has not caught up on credentials, balances and entries. */
const behindOnMoney = replica((s, query) =>
  /(from|join) "(api_keys|sessions|balances|transactions)"/.test(query)
    ? empty(s.prepare(query))
    : s.prepare(query),
);

describe("a read sent with x-d1-bookmark: first-primary", () => {
  it("reads the primary, though its credential was cached with an older bookmark", async () => {
    const { admin, wallet, user } = await creditedUser();
    const { header } = await makeKey(admin, "read");
    const balance = (headers: Record<string, string>) =>
      balanceOf({ user, wallet }, header, behindOnMoney, headers);
    // The key is found only at the primary, and cached with the bookmark reached there.
    expect((await balance({})).status).toBe(200);
    const fresh = await balance({ "x-d1-bookmark": "first-primary" });
    expect(fresh.status, fresh.text).toBe(200);
    expect(fresh.body.data[wallet]).toBe(15);
  });
});

/**
 * A replica that has not yet seen any revocation of a key or a session, nor a change of role. The
 * tests' reads pass only where these rewrites took effect (a revoked credential, or a subscriber's
 * on GET /wallets, is refused otherwise), so a query written otherwise cannot make them pass unseen.
 */
const rewrites: [string, string][] = [
  ['"sessions"."revoked_at_ms" from', "NULL from"],
  ['"api_keys"."revoked_at_ms" is null', "1"],
  ['"users"."role"', "'administrator'"],
];
const behindOnRevocations = replica((s, query) => {
  let stale = query;
  if (CREDENTIALS.test(query)) for (const [now, then] of rewrites) stale = stale.replace(now, then);
  return s.prepare(stale);
});

describe("credentials a lagging replica still vouches for", () => {
  const credit = (auth: string, userId: number, wallet: string) =>
    call("POST", "/credits", {
      auth,
      d1: behindOnRevocations,
      body: { user_id: userId, wallet_id: wallet, amount: "1", request_id: unique("lag") },
    });

  // What another isolate changed at the primary, which the replica has not seen yet: the read
  // passes for the replica's lag, the write that follows asks the primary.
  const changes = [
    {
      what: "a revoked",
      change: (admin: TestUser, kind: string) =>
        env.DB.prepare(
          `UPDATE ${kind === "API key" ? "api_keys" : "sessions"} SET revoked_at_ms = ? WHERE user_id = ?`,
        ).bind(Date.now(), admin.id),
      seen: "the replica has not seen the revocation",
      refused: INVALID_CREDENTIALS,
    },
    {
      what: "an administrator made a subscriber's",
      change: (admin: TestUser) =>
        env.DB.prepare("UPDATE users SET role = 'subscriber' WHERE id = ?").bind(admin.id),
      seen: "the replica has not seen the change of role",
      refused: FORBIDDEN,
    },
  ];
  for (const { what, change, seen, refused } of changes)
    for (const kind of ["access token", "API key"] as const)
      it(`let ${what} ${kind} read for the replica's lag, but never write: a write asks the primary`, async () => {
        const admin = await makeAdmin();
        const operator = await makeAdmin();
        const wallet = await makeWallet(operator);
        const { header } = await makeKey(admin, "read-write");
        const auth = kind === "API key" ? header : admin.bearer;
        await change(admin, kind).run();
        const before = await tableCounts();

        const read = await call("GET", "/wallets", { auth, d1: behindOnRevocations });
        expect(read.status, seen).toBe(200);
        const write = await credit(auth, operator.id, wallet);
        expect(write.body).toStrictEqual(refused);
        expect(await tableCounts()).toStrictEqual(before);
      });
});

/**
 * env.DB whose read-only sessions answer each statement on api_keys and sessions as they first
 * answered it: a replica that stopped catching up on credentials, and on the users and keys a
 * deletion took with them, once it vouched for them. Each call is a new binding: its own isolate.
 */
function frozenOnCredentials() {
  const seen = new Map<string, Promise<unknown>>();
  const frozen = (
    stmt: D1PreparedStatement,
    query: string,
    values: unknown[],
  ): D1PreparedStatement =>
    new Proxy(stmt, {
      get(target, prop) {
        if (prop === "bind")
          return (...bound: unknown[]) => frozen(target.bind(...bound), query, bound);
        if (prop === "raw" || prop === "all" || prop === "first") {
          const answer = (target[prop] as () => Promise<unknown>).bind(target);
          return () => {
            const key = JSON.stringify([prop, query, values]);
            if (!seen.has(key)) seen.set(key, answer());
            return seen.get(key);
          };
        }
        const value = Reflect.get(target, prop, target);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
  return replica((s, query) =>
    CREDENTIALS.test(query) ? frozen(s.prepare(query), query, []) : s.prepare(query),
  );
}

describe("a credential ended through this isolate, which a lagging replica still vouches for", () => {
  const OUTBOX = { MAIL_TRANSPORT: "outbox" };
  const resetCode = async (email: string) => {
    const mail = await env.DB.prepare(
      "SELECT body_text FROM mail_outbox WHERE to_address = ? AND subject = 'Reset your password' ORDER BY id DESC",
    )
      .bind(email)
      .first<string>("body_text");
    return /^[A-Za-z0-9_-]{43}$/m.exec(mail ?? "")![0];
  };
  // Each way a key or a session ends, sent through the isolate `d1` is; `ended`: what it ends.
  const endings: {
    what: string;
    end: (d1: D1Database, victim: TestUser, operator: TestUser, keyId: number) => Promise<Reply>;
    ended: (victim: TestUser, key: string) => string[];
    deletes?: true;
  }[] = [
    {
      what: "an API key revoked (DELETE /api-keys/{id})",
      end: (d1, _victim, operator, keyId) =>
        call("DELETE", `/api-keys/${keyId}`, { auth: operator.bearer, d1 }),
      ended: (_victim, key) => [key],
    },
    {
      what: "a session signed out (POST /users/logout)",
      end: (d1, victim) => call("POST", "/users/logout", { auth: victim.bearer, d1 }),
      ended: (victim) => [victim.bearer],
    },
    {
      what: "every session revoked by an operator",
      end: (d1, victim, operator) =>
        call("POST", `/users/${victim.id}/sessions/revoke`, { auth: operator.bearer, d1 }),
      ended: (victim) => [victim.bearer],
    },
    {
      what: "every session ended by a password reset",
      end: async (d1, victim) => {
        const asked = await call("POST", "/users/password-reset", {
          body: { user_email: victim.email },
          vars: OUTBOX,
          d1,
        });
        expect(asked.status, asked.text).toBe(200);
        return call("POST", "/users/password-reset/confirm", {
          body: { token: await resetCode(victim.email), user_password: "a-new-password" },
          d1,
        });
      },
      ended: (victim) => [victim.bearer],
    },
    {
      what: "a user deleted, its keys and sessions with it",
      end: (d1, victim, operator) =>
        call("DELETE", `/wp-json/rimplenet/v1/users/${victim.id}`, {
          auth: operator.bearer,
          vars: { COMPAT_NAMESPACE: "rimplenet" },
          d1,
        }),
      ended: (victim, key) => [victim.bearer, key],
      deletes: true,
    },
  ];
  for (const { what, end, ended, deletes } of endings)
    it(`${what}: refused at once by that isolate, whatever the replica says`, async () => {
      const d1 = frozenOnCredentials();
      const operator = await makeAdmin();
      const victim = await makeAdmin();
      const { key, header } = await makeKey(victim, "read");
      const keyId = (await env.DB.prepare("SELECT id FROM api_keys WHERE key_hash = ?")
        .bind(hashApiKey(key))
        .first<number>("id"))!;
      const read = (auth: string) => call("GET", "/wallets", { auth, d1 });
      const credentials = ended(victim, header);
      for (const auth of credentials) expect((await read(auth)).status, "live").toBe(200);

      const ending = await end(d1, victim, operator, keyId);
      expect(ending.status, ending.text).toBe(200);
      for (const auth of credentials) {
        const res = await read(auth);
        expect(res.status, "the replica still vouches for it").toBe(401);
        expect(res.body).toStrictEqual(INVALID_CREDENTIALS);
      }
      // What was not ended is still accepted through that replica: the operator, and a new session.
      expect((await read(operator.bearer)).status).toBe(200);
      if (!deletes) {
        const { token } = await signedToken(victim);
        expect((await read(`Bearer ${token}`)).status).toBe(200);
      }
    });
});
