// Read replicas through D1's Sessions API (docs/scaling.md#read-replicas): every answer carries the
// session's bookmark in x-d1-bookmark, a client that sends it back reads at least that new, reads
// start anywhere and writes at the primary. Miniflare has one database and no replicas, so these
// check the sessions the app opens and the bookmarks it hands out, not replica lag.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { CONSOLE_AUDIENCE } from "../src/auth/tokens";
import { GUARDED } from "./compat-helpers";
import { consoleOf, form, hidden, noticeLeft } from "./console-helpers";
import { withSessions } from "./d1-counter";
import {
  API,
  call,
  credit,
  makeAdmin,
  makeUser,
  makeWallet,
  signedToken,
  testApp,
  unique,
} from "./helpers";

const BOOKMARK = /^[0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{32}$/;

/** env.DB, recording where each session starts and the bookmark after each batch with its rows' ids. */
function sessionRecorder() {
  const starts: (string | undefined)[] = [];
  const batches: { bookmark: string | null; ids: unknown[] }[] = [];
  const session = (inner: D1DatabaseSession): D1DatabaseSession =>
    new Proxy(inner, {
      get(target, prop) {
        if (prop === "batch")
          return async (statements: D1PreparedStatement[]) => {
            const results = await target.batch<{ id?: unknown }>(statements);
            const ids = results.flatMap((r) => r.results.map((row) => row.id));
            batches.push({ bookmark: target.getBookmark(), ids });
            return results;
          };
        const value = Reflect.get(target, prop, target);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
  const d1 = withSessions((inner, start) => {
    starts.push(start);
    return session(inner);
  });
  return { d1, starts, batches };
}

/**
 * env.DB whose sessions read an entry by its id as a replica only as new as the session's bookmark
 * would: an entry committed after that bookmark is not there yet. D1 may send any query of a session
 * but its first to such a replica (a session started at the primary included); the bookmark after
 * each batch that wrote an entry says when it was committed. Also records each batch's entry ids.
 */
function laggingEntries() {
  const committed = new Map<number, string>();
  const batches: number[][] = [];
  const ENTRY_BY_ID = /from "transactions".*where "transactions"\."id" = \?/is;
  const sqlOf = (s: D1PreparedStatement) => (s as unknown as { statement: string }).statement;
  const statement = (
    inner: D1PreparedStatement,
    session: D1DatabaseSession,
    values: unknown[] = [],
  ): D1PreparedStatement =>
    new Proxy(inner, {
      get(target, prop) {
        if (prop === "bind")
          return (...bound: unknown[]) => statement(target.bind(...bound), session, bound);
        const seen = session.getBookmark();
        const ahead =
          seen !== null &&
          ENTRY_BY_ID.test(sqlOf(target)) &&
          values.some((v) => (committed.get(Number(v)) ?? "") > seen);
        if (ahead && prop === "first")
          return async () => {
            await target.first();
            return null;
          };
        if (ahead && prop === "all") return async () => ({ ...(await target.all()), results: [] });
        if (ahead && prop === "raw") return async () => (await target.raw()).slice(0, 0);
        const value = Reflect.get(target, prop, target);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
  const session = (inner: D1DatabaseSession): D1DatabaseSession =>
    new Proxy(inner, {
      get(target, prop) {
        if (prop === "prepare") return (query: string) => statement(target.prepare(query), target);
        if (prop === "batch")
          return async (statements: D1PreparedStatement[]) => {
            const results = await target.batch<{ id?: number }>(statements);
            const ids = statements.flatMap((s, i) =>
              /^\s*insert into "transactions"/i.test(sqlOf(s))
                ? results[i]!.results.map((row) => row.id!)
                : [],
            );
            for (const id of ids) committed.set(id, target.getBookmark()!);
            if (ids.length > 0) batches.push(ids);
            return results;
          };
        const value = Reflect.get(target, prop, target);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
  const d1 = withSessions(session);
  return { d1, batches };
}

async function account() {
  const admin = await makeAdmin();
  const user = await makeUser();
  const wallet = await makeWallet(admin);
  return { admin, user, wallet };
}

const bookmarkOf = (res: { headers: Headers }) => res.headers.get("x-d1-bookmark");

describe("read replicas: x-d1-bookmark", () => {
  it("a credit answers with a bookmark; a balance read sent with it sees the credit and answers a bookmark no older", async () => {
    const { admin, user, wallet } = await account();
    const written = await credit(admin, { user_id: user.id, wallet_id: wallet, amount: "15" });
    expect(written.status).toBe(200);
    const bookmark = bookmarkOf(written);
    expect(bookmark).toMatch(BOOKMARK);

    const read = await call("GET", "/user-wallet-balance", {
      auth: admin.bearer,
      query: { user_id: user.id, wallet_id: wallet },
      headers: { "x-d1-bookmark": bookmark! },
    });
    expect(read.status).toBe(200);
    expect(read.body.data[wallet]).toBe(15);
    expect(bookmarkOf(read)).toMatch(BOOKMARK);
    expect(bookmarkOf(read)! >= bookmark!).toBe(true);
  });

  it("a read without a bookmark answers as before, with one", async () => {
    const { admin, user, wallet } = await account();
    const plain = await call("GET", "/transactions", {
      auth: admin.bearer,
      query: { user_id: user.id, security_code: 1 },
    });
    expect(plain.status).toBe(200);
    expect(plain.body).toEqual({
      status_code: 200,
      status: true,
      message: "Txns Retrieved Successful",
      data: [],
    });
    expect(bookmarkOf(plain)).toMatch(BOOKMARK);
    expect(wallet).toBeTruthy();
  });

  it.each([
    ["garbage", "not-a-bookmark", "first-primary"],
    ["too long", `00000000-00000000-00000000-${"0".repeat(32)}${"0".repeat(200)}`, "first-primary"],
    ["upper case", `0000000A-00000000-00000000-${"0".repeat(32)}`, "first-primary"],
    ["a constraint other than first-primary", "first-unconstrained", "first-primary"],
    ["white space inside", "0000000a 00000000", "first-primary"],
    // An empty header is none: the read starts anywhere.
    ["empty", "", "first-unconstrained"],
  ])("a malformed bookmark (%s) is ignored: the read answers 200", async (_, header, start) => {
    const { admin, user, wallet } = await account();
    await credit(admin, { user_id: user.id, wallet_id: wallet, amount: "2" });
    const recorder = sessionRecorder();
    const read = await call("GET", "/user-wallet-balance", {
      auth: admin.bearer,
      query: { user_id: user.id, wallet_id: wallet },
      headers: { "x-d1-bookmark": header },
      d1: recorder.d1,
    });
    expect(read.status).toBe(200);
    expect(read.body.data[wallet]).toBe(2);
    expect(recorder.starts).toEqual([start]);
    expect(bookmarkOf(read)).toMatch(BOOKMARK);
  });

  it("a malformed bookmark on a refused request changes nothing of the refusal", async () => {
    const read = await call("GET", "/user-wallet-balance", {
      query: { wallet_id: "ngn" },
      headers: { "x-d1-bookmark": "%%%" },
    });
    expect(read.status).toBe(401);
    expect(read.body.message).toBe("Permission denied");
  });

  it("a bookmark in D1's form this service never handed out (another deployment's) is handed to D1: no 5xx", async () => {
    const { admin, user, wallet } = await account();
    await credit(admin, { user_id: user.id, wallet_id: wallet, amount: "2" });
    for (const made of [
      `ffffffff-ffffffff-ffffffff-${"f".repeat(32)}`,
      `00000000-00000000-00000000-${"0".repeat(32)}`,
    ]) {
      const recorder = sessionRecorder();
      const read = await call("GET", "/user-wallet-balance", {
        auth: admin.bearer,
        query: { user_id: user.id, wallet_id: wallet },
        headers: { "x-d1-bookmark": made },
        d1: recorder.d1,
      });
      expect(read.status).toBe(200);
      expect(read.body.data[wallet]).toBe(2);
      expect(recorder.starts).toEqual([made]);
    }
  });

  it("reads start anywhere, or from the client's bookmark; writes start at the primary whatever is sent", async () => {
    const { admin, user, wallet } = await account();
    const recorder = sessionRecorder();
    const opts = { auth: admin.bearer, d1: recorder.d1 };
    const first = await call("GET", "/user-wallet-balance", {
      ...opts,
      query: { user_id: user.id, wallet_id: wallet },
    });
    const bookmark = bookmarkOf(first)!;
    await call("GET", "/wallets", { ...opts, headers: { "x-d1-bookmark": bookmark } });
    await call("GET", "/api-keys", opts);
    await call("POST", "/credits", {
      ...opts,
      body: { user_id: user.id, wallet_id: wallet, amount: "1", request_id: unique("r") },
      headers: { "x-d1-bookmark": bookmark },
    });
    await call("POST", "/debits", {
      ...opts,
      body: { user_id: user.id, wallet_id: wallet, amount: "1", request_id: unique("r") },
    });
    await call("GET", "/wallets", { ...opts, headers: { "x-d1-bookmark": "first-primary" } });
    expect(recorder.starts).toEqual([
      "first-unconstrained",
      bookmark,
      "first-unconstrained",
      "first-primary",
      "first-primary",
      "first-primary",
    ]);
  });

  it("the compatibility namespace's GETs read from replicas and its POSTs from the primary", async () => {
    const { admin, user, wallet } = await account();
    const recorder = sessionRecorder();
    const app = testApp();
    const send = (method: string, path: string, body?: unknown) =>
      app.request(
        `/wp-json/rimplenet/v1${path}`,
        {
          method,
          headers: { Authorization: admin.bearer, "Content-Type": "application/json" },
          body: body === undefined ? undefined : JSON.stringify(body),
        },
        { ...env, ...GUARDED, DB: recorder.d1 },
      );
    const read = await send("GET", `/user-wallet-balance?user_id=${user.id}&wallet_id=${wallet}`);
    const write = await send("POST", "/credits", {
      user_id: user.id,
      wallet_id: wallet,
      amount: 3,
      request_id: unique("r"),
    });
    expect([read.status, write.status]).toEqual([200, 200]);
    expect(recorder.starts).toEqual(["first-unconstrained", "first-primary"]);
    expect(bookmarkOf(write)).toMatch(BOOKMARK);
  });

  it("credits written in one group-commit batch each answer a bookmark as new as that batch", async () => {
    const { admin, user, wallet } = await account();
    const recorder = sessionRecorder();
    const replies = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        call("POST", "/credits", {
          auth: admin.bearer,
          d1: recorder.d1,
          body: { user_id: user.id, wallet_id: wallet, amount: i + 1, request_id: unique("g") },
        }),
      ),
    );
    expect(replies.map((r) => r.status)).toEqual(replies.map(() => 200));
    // Some credits were written by another request's batch (else this checks nothing).
    expect(recorder.batches.some((b) => b.ids.length > 2)).toBe(true);
    for (const reply of replies) {
      const id = reply.body.data.transaction_id;
      const batch = recorder.batches.find((b) => b.ids.includes(id));
      expect(batch, `batch of ${id}`).toBeDefined();
      expect(bookmarkOf(reply)! >= batch!.bookmark!, `bookmark of ${id}`).toBe(true);
    }
  });

  it("credits of a lost group-commit batch, read back, each answer a bookmark as new as that batch", async () => {
    const { admin, user, wallet } = await account();
    // The first shared batch commits and its answer is lost: each of its credits is read back.
    let lost: { bookmark: string | null; ids: unknown[] } | undefined;
    const d1 = withSessions(
      (inner): D1DatabaseSession =>
        new Proxy(inner, {
          get(target, prop) {
            if (prop === "batch")
              return async (statements: D1PreparedStatement[]) => {
                if (statements.length <= 2 || lost) return target.batch(statements);
                const results = await target.batch<{ id?: unknown }>(statements);
                const ids = results.flatMap((r) => r.results.map((row) => row.id));
                lost = { bookmark: target.getBookmark(), ids };
                throw new Error("D1_ERROR: Network connection lost.");
              };
            const value = Reflect.get(target, prop, target);
            return typeof value === "function" ? value.bind(target) : value;
          },
        }),
    );
    const replies = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        call("POST", "/credits", {
          auth: admin.bearer,
          d1,
          body: { user_id: user.id, wallet_id: wallet, amount: i + 1, request_id: unique("l") },
        }),
      ),
    );
    expect(replies.map((r) => r.status)).toEqual(replies.map(() => 200));
    const fromLost = replies.filter((r) => lost?.ids.includes(r.body.data.transaction_id));
    // Its writer and some credits waiting in it (else this checks nothing).
    expect(fromLost.length).toBeGreaterThan(2);
    for (const reply of fromLost)
      expect(
        bookmarkOf(reply)! >= lost!.bookmark!,
        `bookmark of ${reply.body.data.transaction_id}`,
      ).toBe(true);
  });

  it("a page of the console reads at the primary, on one D1 session for all its verbs", async () => {
    const { admin, user } = await account();
    const recorder = sessionRecorder();
    const { token } = await signedToken(admin, { audience: CONSOLE_AUDIENCE });
    const res = await testApp().request(
      `/wallet-admin/users/${user.id}`,
      { headers: { Cookie: `wallet_admin=${token}` } },
      { ...env, DB: recorder.d1 },
    );
    expect(res.status).toBe(200);
    expect(recorder.starts).toEqual(["first-primary"]);
    expect(bookmarkOf(res)).toMatch(BOOKMARK);
  });

  it("HEAD of a read answers the bookmark too", async () => {
    const { admin } = await account();
    const res = await testApp().request(
      `${API}/wallets`,
      { method: "HEAD", headers: { Authorization: admin.bearer } },
      env,
    );
    expect(res.status).toBe(200);
    expect(bookmarkOf(res)).toMatch(BOOKMARK);
  });

  it("a console credit written in another request's group-commit batch reads its own entry afterwards", async () => {
    const { admin, user, wallet } = await account();
    const lagging = laggingEntries();
    const { request, signIn } = consoleOf(testApp());
    const cookie = await signIn(admin);
    const page = await request(`/users/${user.id}`, { cookie });
    const vars = { DB: lagging.d1 };
    const send = (amount: number, key: string) =>
      request(`/users/${user.id}/credit`, {
        method: "POST",
        cookie,
        vars,
        body: form({
          _csrf: hidden(page.html, "_csrf"),
          request_id: key,
          wallet_id: wallet,
          amount,
          step: "confirm",
        }),
      });
    // Amounts typed without places ("7"): the notice shows the ledger's figure (₦7.00) only when the
    // page's read of the entry it just wrote finds it. One form is sent twice at once.
    const twice = unique("twice");
    const forms = [
      ...Array.from({ length: 16 }, (_, i) => [i + 1, unique("f")] as const),
      [99, twice] as const,
      [99, twice] as const,
    ];
    const sent = await Promise.all(forms.map(([amount, key]) => send(amount, key)));

    // Some credits were written by another request's batch (else this checks nothing).
    expect(lagging.batches.some((ids) => ids.length > 1)).toBe(true);
    const notices = sent.map(noticeLeft);
    for (const [i, [amount]] of forms.slice(0, 16).entries())
      expect(notices[i]).toMatch(new RegExp(`^ok:Transaction Completed: ₦${amount}\\.00 credited`));
    // Sorted: "Already done" (the repeat) before "Transaction Completed" (the one that wrote).
    expect(notices.slice(16).sort()).toEqual([
      "ok:Already done: this form was sent before, and the money moved once.",
      expect.stringMatching(/^ok:Transaction Completed: ₦99\.00 credited/),
    ]);
  });
});
