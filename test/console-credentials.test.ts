// The console's authorization matrix, generated from its router: every screen and form behind the
// operator's guard × every kind of cookie it may be sent with. Only a live administrator's console
// session, and for a form its own CSRF token, gets through; every other cookie is signed out (an
// API token, an expired or foreign console token, a session signed out, ended everywhere, or whose
// administrator was deleted), a subscriber's console token is turned away and its own session ended
// (as sign-out ends one), and nothing else any of them sends writes a row, ends a session or revokes
// a key. A console route without an entry here fails, as a new API route fails
// test/authorization-matrix.test.ts.
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { CONSOLE_AUDIENCE } from "../src/auth/tokens";
import { consoleRoutes } from "../src/console";
import { GUARDED } from "./compat-helpers";
import { consoleOf, form, hidden, noticeLeft, type Page } from "./console-helpers";
import {
  call,
  credit,
  makeAdmin,
  makeKey,
  makeUser,
  makeWallet,
  type Reply,
  respelled,
  signedToken,
  type TestUser,
  tableCounts,
  unique,
} from "./helpers";

const { request, signIn } = consoleOf();
const today = () => new Date().toISOString().slice(0, 10);

/** What one route is sent: its path's ids filled, and a form that a live session would act on. */
type Objects = {
  user: TestUser;
  other: TestUser;
  wallet: string;
  holdId: number;
  batchId: number;
  txnId: number;
  keyId: number;
  hookId: number;
  eventId: number;
};
type Entry = (o: Objects) => { path: string; fields?: Record<string, string | number> };

let admin: TestUser;
/** The answer's body, once its status is the one expected. */
const ok = async (res: Promise<Reply>, status = 200) => {
  const r = await res;
  expect(r.status, r.text).toBe(status);
  return r.body;
};

/** A user with money, a hold, a batch, a key and a webhook: the things the routes name. */
async function objects(): Promise<Objects> {
  const [user, other, wallet] = await Promise.all([makeUser(), makeUser(), makeWallet(admin)]);
  await credit(admin, { user_id: user.id, wallet_id: wallet, amount: "100" });
  const post = (path: string, body: unknown, status = 200) =>
    ok(call("POST", path, { auth: admin.bearer, body }), status);
  const hold = await post("/holds", {
    user_id: user.id,
    wallet_id: wallet,
    amount: "10",
    request_id: unique("h"),
  });
  const batch = await post("/batches", {
    request_id: unique("b"),
    operations: [{ type: "credit", user_id: user.id, wallet_id: wallet, amount: "5" }],
  });
  const key = await post("/api-keys", { name: "console matrix", scope: "read" }, 201);
  const hook = await post(
    "/webhooks",
    { url: `http://127.0.0.1:9/${unique("h")}`, events: "transaction.created" },
    201,
  );
  // A credit of its own to reverse: the hold stands on the first one.
  const reversible = await credit(admin, { user_id: user.id, wallet_id: wallet, amount: "1" });
  const events = await ok(call("GET", "/events", { auth: admin.bearer, query: { limit: 1 } }));
  return {
    user,
    other,
    wallet,
    holdId: hold.data.hold_id,
    batchId: batch.data.batch_id,
    txnId: reversible.body.data.transaction_id,
    keyId: key.data.id,
    hookId: hook.data.id,
    eventId: events.data[0].id,
  };
}

const ROUTES: Record<string, Entry> = {
  "GET /": () => ({ path: "/" }),
  "GET /users": () => ({ path: "/users" }),
  "GET /users/:id": (o) => ({ path: `/users/${o.user.id}?wallet=${o.wallet}` }),
  "GET /users/:id/reverse/:txn": (o) => ({ path: `/users/${o.user.id}/reverse/${o.txnId}` }),
  // Without a form this session sent, each says none is waiting.
  ...Object.fromEntries(
    (["credit", "debit", "transfer"] as const).map((action): [string, Entry] => [
      `GET /users/:id/${action}`,
      (o) => ({ path: `/users/${o.user.id}/${action}` }),
    ]),
  ),
  "GET /users/:id/statement.csv": (o) => ({
    path: `/users/${o.user.id}/statement.csv?wallet=${o.wallet}&from=${today()}&to=${today()}`,
  }),
  "GET /batches/:id": (o) => ({ path: `/batches/${o.batchId}` }),
  "GET /outbox": () => ({ path: "/outbox" }),
  "GET /wallets": () => ({ path: "/wallets" }),
  "GET /api-keys": () => ({ path: "/api-keys" }),
  "GET /webhooks": () => ({ path: "/webhooks" }),
  "POST /users": () => {
    const username = unique("cm");
    return {
      path: "/users",
      fields: { username, user_email: `${username}@example.test`, user_password: "secret-123" },
    };
  },
  ...Object.fromEntries(
    (["credit", "debit", "transfer"] as const).map((action): [string, Entry] => [
      `POST /users/:id/${action}`,
      (o) => ({
        path: `/users/${o.user.id}/${action}`,
        fields: {
          wallet_id: o.wallet,
          amount: "1",
          request_id: unique("m"),
          // Money moves only once confirmed: its confirmation's Confirm.
          step: "confirm",
          ...(action === "transfer" ? { to_user_id: o.other.id } : {}),
        },
      }),
    ]),
  ),
  "POST /users/:id/holds/:hold/capture": (o) => ({
    path: `/users/${o.user.id}/holds/${o.holdId}/capture`,
    fields: { amount: "4" },
  }),
  "POST /users/:id/holds/:hold/void": (o) => ({
    path: `/users/${o.user.id}/holds/${o.holdId}/void`,
  }),
  "POST /users/:id/reverse/:txn": (o) => ({
    path: `/users/${o.user.id}/reverse/${o.txnId}`,
    fields: { request_id: unique("r") },
  }),
  "POST /users/:id/sessions/revoke": (o) => ({ path: `/users/${o.other.id}/sessions/revoke` }),
  "POST /batches/:id/reverse": (o) => ({ path: `/batches/${o.batchId}/reverse` }),
  "POST /wallets": () => ({
    path: "/wallets",
    fields: {
      wallet_id: unique("w").toLowerCase().slice(0, 32),
      wallet_name: "Matrix",
      wallet_symbol: "M",
      wallet_symbol_position: "left",
      wallet_decimal: "2",
    },
  }),
  "POST /api-keys": () => ({ path: "/api-keys", fields: { name: "matrix", scope: "read" } }),
  "POST /api-keys/:id/revoke": (o) => ({ path: `/api-keys/${o.keyId}/revoke` }),
  "POST /webhooks": () => ({
    path: "/webhooks",
    fields: { url: "https://hooks.example.com/matrix", events: "user.created" },
  }),
  "POST /webhooks/:id/test": (o) => ({ path: `/webhooks/${o.hookId}/test` }),
  "POST /webhooks/:id/resend": (o) => ({
    path: `/webhooks/${o.hookId}/resend`,
    fields: { event_id: o.eventId },
  }),
  "POST /webhooks/:id/delete": (o) => ({ path: `/webhooks/${o.hookId}/delete` }),
};

/** Routes outside the operator's guard: its files and the sign-in screen, tested on their own. */
const UNGUARDED = new Set([
  "GET /console.css",
  "GET /console.js",
  "GET /icon.svg",
  "GET /sign-in",
  "POST /sign-in",
  "POST /sign-out",
]);

type Outcome = "signed out" | "not an administrator" | "form expired" | "allowed";
/** A cookie to send, the CSRF token its form carries ("" for none), and any other headers. */
type Sent = { cookie: string; csrf: string; headers?: Record<string, string> };
type Kind = { name: string; outcome: Outcome; sent: () => Promise<Sent> };

const cookieOf = (token: string) => `wallet_admin=${token}`;
/** A console session of its own, signed in as a browser does, and the CSRF token of its pages. */
async function session(user: TestUser): Promise<Sent> {
  const cookie = await signIn(user);
  const page = await request("/", { cookie });
  return { cookie, csrf: hidden(page.html, "_csrf") };
}
const none = (cookie: string): Sent => ({ cookie, csrf: "" });

const KINDS: Kind[] = [
  { name: "no cookie", outcome: "signed out", sent: async () => none("") },
  {
    name: "an administrator's API token as the cookie",
    outcome: "signed out",
    sent: async () => none(cookieOf(admin.token)),
  },
  // The API's credentials, sent as the API takes them: the console reads only its cookie.
  {
    name: "an administrator's API token as Authorization: Bearer",
    outcome: "signed out",
    sent: async () => ({ ...none(""), headers: { Authorization: admin.bearer } }),
  },
  ...(["read", "write", "read-write"] as const).map(
    (scope): Kind => ({
      name: `an administrator's ${scope} API key as Authorization: Key`,
      outcome: "signed out",
      sent: async () => ({
        ...none(""),
        headers: { Authorization: (await makeKey(admin, scope)).header },
      }),
    }),
  ),
  {
    name: "an expired console token",
    outcome: "signed out",
    sent: async () => {
      const { token } = await signedToken(admin, {
        audience: CONSOLE_AUDIENCE,
        nowMs: Date.now() - 2 * 3600_000,
      });
      return none(cookieOf(token));
    },
  },
  {
    name: "a console token signed with another secret",
    outcome: "signed out",
    sent: async () => {
      const { token } = await signedToken(admin, {
        audience: CONSOLE_AUDIENCE,
        secret: "another-secret-of-thirty-two-characters",
      });
      return none(cookieOf(token));
    },
  },
  {
    name: "a live console session's token, its signature spelled another way",
    outcome: "signed out",
    sent: async () => {
      const live = await session(admin);
      return { ...live, cookie: respelled(live.cookie) };
    },
  },
  {
    name: "a console session signed out",
    outcome: "signed out",
    sent: async () => {
      const live = await session(admin);
      const out = await request("/sign-out", {
        method: "POST",
        cookie: live.cookie,
        body: form({ _csrf: live.csrf }),
      });
      expect(out.status, out.html).toBe(303);
      return live;
    },
  },
  {
    name: "a console session its user was signed out of everywhere",
    outcome: "signed out",
    sent: async () => {
      const operator = await makeAdmin();
      const live = await session(operator);
      await ok(call("POST", `/users/${operator.id}/sessions/revoke`, { auth: admin.bearer }));
      return live;
    },
  },
  {
    name: "a deleted administrator's console session",
    outcome: "signed out",
    sent: async () => {
      const operator = await makeAdmin();
      const live = await session(operator);
      await ok(
        call("DELETE", `/wp-json/rimplenet/v1/users/${operator.id}`, {
          auth: admin.bearer,
          vars: GUARDED,
        }),
      );
      return live;
    },
  },
  {
    // Sign-in never opens one for a subscriber; a token of that kind signed all the same.
    name: "a subscriber's console token",
    outcome: "not an administrator",
    sent: async () => {
      const { token } = await signedToken(await makeUser(), { audience: CONSOLE_AUDIENCE });
      return none(cookieOf(token));
    },
  },
  {
    // The role is the user's as the database has it now (an operator's UPDATE: no route demotes).
    name: "a console session of an administrator made a subscriber",
    outcome: "not an administrator",
    sent: async () => {
      const operator = await makeAdmin();
      const { token } = await signedToken(operator, { audience: CONSOLE_AUDIENCE });
      await env.DB.prepare("UPDATE users SET role = 'subscriber' WHERE id = ?")
        .bind(operator.id)
        .run();
      return none(cookieOf(token));
    },
  },
  {
    name: "an administrator's session, its form without the CSRF token",
    outcome: "form expired",
    sent: async () => ({ ...(await session(admin)), csrf: "" }),
  },
  {
    name: "an administrator's session, its form with another session's CSRF token",
    outcome: "form expired",
    sent: async () => ({ ...(await session(admin)), csrf: (await session(admin)).csrf }),
  },
  { name: "an administrator's session", outcome: "allowed", sent: () => session(admin) },
];

/**
 * Each kind's cookie, made once: the dead sessions stay dead, and what a live session does ends
 * none of its own (the sessions it revokes are another user's). A subscriber's session is ended by
 * the request that sends it, so each of its requests gets one of its own.
 */
const made = new Map<Kind, Promise<Sent>>();
const sentBy = (kind: Kind) => {
  if (kind.outcome === "not an administrator") return kind.sent();
  if (!made.has(kind)) made.set(kind, kind.sent());
  return made.get(kind)!;
};

/** Rows, money and revocations: a refused request changes none (a subscriber's ends its session). */
async function snapshot() {
  const revoked = await env.DB.prepare(
    `SELECT (SELECT count(*) FROM api_keys WHERE revoked_at_ms IS NOT NULL) AS keys,
       (SELECT count(*) FROM sessions WHERE revoked_at_ms IS NOT NULL) AS sessions,
       (SELECT count(*) FROM holds WHERE status <> 'held') AS resolved`,
  ).first<{ keys: number; sessions: number; resolved: number }>();
  return { ...(await tableCounts()), revoked };
}

function expectOutcome(res: Page, method: string, outcome: Outcome) {
  const location = res.headers.get("location") ?? "";
  switch (outcome) {
    case "signed out":
      expect(res.status, res.html).toBe(303);
      expect(location).toBe("/wallet-admin/sign-in");
      if (method === "POST") expect(noticeLeft(res)).toMatch(/^error:/);
      return;
    case "not an administrator":
      expect(res.status, res.html).toBe(403);
      // The cookie is dropped, and the page is the sign-in form, not the screen asked for.
      expect(res.headers.get("set-cookie")).toMatch(/^wallet_admin=;.*Max-Age=0/);
      expect(res.html).toContain('action="/wallet-admin/sign-in"');
      return;
    case "form expired":
      expect(res.status, res.html).toBe(403);
      expect(res.html).toBe("The form has expired: go back, reload the page and try again.");
      return;
    case "allowed":
      if (method === "GET") expect(res.status, res.html).toBe(200);
      else {
        expect(res.status, res.html).toBe(303);
        expect(location).not.toBe("/wallet-admin/sign-in");
        // Done, or for a webhook to a port nothing listens on, tried and reported.
        expect(noticeLeft(res)).toMatch(/^ok:|^error:(Test to webhook|Event \d+ sent again)/);
      }
  }
}

beforeAll(async () => {
  admin = await makeAdmin();
});

describe("the console's authorization matrix", () => {
  it("has an entry for every route behind the guard, and none for a route that is gone", () => {
    const guarded = consoleRoutes()
      .routes.filter((r) => r.method === "GET" || r.method === "POST")
      .map((r) => `${r.method} ${r.path}`)
      .filter((r) => !UNGUARDED.has(r));
    expect(guarded.filter((r) => !ROUTES[r])).toEqual([]);
    expect(Object.keys(ROUTES).filter((r) => !guarded.includes(r))).toEqual([]);
  });

  let shared: Objects;
  beforeAll(async () => {
    shared = await objects();
  });

  for (const [route, entry] of Object.entries(ROUTES)) {
    const method = route.split(" ")[0]!;
    describe(route, () => {
      for (const kind of KINDS) {
        // A page has no CSRF token to leave out.
        if (method === "GET" && kind.outcome === "form expired") continue;
        it(`× ${kind.name} → ${kind.outcome}`, async () => {
          // What a live session does is real: it gets objects of its own.
          const o = kind.outcome === "allowed" ? await objects() : shared;
          const { path, fields } = entry(o);
          const sent = await sentBy(kind);
          const before = kind.outcome === "allowed" ? undefined : await snapshot();
          // A subscriber's request ends its own session, and only that.
          if (before && kind.outcome === "not an administrator") before.revoked!.sessions += 1;
          const res = await request(path, {
            method,
            cookie: sent.cookie || undefined,
            headers: sent.headers,
            ...(method === "POST" ? { body: form({ _csrf: sent.csrf, ...fields }) } : {}),
          });
          expectOutcome(res, method, kind.outcome);
          if (before) expect(await snapshot()).toEqual(before);
        });
      }
    });
  }
});
