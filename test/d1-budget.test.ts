import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import operationsMd from "../docs/operations.md?raw";
import scalingMd from "../docs/scaling.md?raw";
import securityMd from "../docs/security.md?raw";
import { createApp } from "../src/app";
import { createDb } from "../src/db/client";
import { listEvents } from "../src/db/events";
import { countingD1, wrappedD1 } from "./d1-counter";
import {
  API,
  appendHistory,
  call,
  credit,
  makeAdmin,
  makeKey,
  makeUser,
  makeWallet,
  PASSWORD,
  signedToken,
  type TestUser,
  unique,
} from "./helpers";

// D1 cost per route, measured through a binding that counts round trips and sums meta rows.
// Each route is called once to warm the isolate caches (wallets, usernames, verified keys), then
// measured: what a request costs in steady state.
// A call may name its own credentials (a sign-out ends the session it is sent with).
type Call = [method: string, path: string, body?: unknown, auth?: string];

/** What the second of two calls `next` makes costs: the first warms the isolate's caches. */
async function warmCost(auth: string, next: () => Call | Promise<Call>) {
  const counter = countingD1();
  const app = createApp();
  const send = ([method, path, body, as = auth]: Call) =>
    app.request(
      `${API}${path}`,
      {
        method,
        headers: {
          Authorization: as,
          ...(body === undefined ? {} : { "Content-Type": "application/json" }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      },
      { ...env, DB: counter.db },
    );
  const warm = await send(await next());
  const call = await next();
  const { value: res, cost } = await counter.measure(() => send(call));
  return { call, res, warm: warm.status, status: res.status, ...cost };
}

async function costOf(
  method: string,
  path: string,
  auth: string,
  body?: unknown,
  query: Record<string, string | number> = {},
) {
  const search = new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)]));
  const target = search.size > 0 ? `${path}?${search}` : path;
  const {
    call: _call,
    res: _res,
    ...cost
  } = await warmCost(auth, () => [method, target, typeof body === "function" ? body() : body]);
  return cost;
}

async function fixture() {
  const admin = await makeAdmin();
  const user = await makeUser();
  const wallet = await makeWallet(admin);
  const wallets = [wallet, ...(await Promise.all([1, 2, 3, 4].map(() => makeWallet(admin))))];
  return { admin, user, wallet, wallets };
}

// The docs quote these measurements: each is held to the sentence that quotes it, so a route whose
// cost moves fails here until the sentence follows. Wrapped lines read as one.
const WORDS = ["none", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"];
const quoted = (doc: string, figure: string) =>
  expect(doc.replace(/\s+/g, " ").includes(figure), figure).toBe(true);

const creditBody = (user: TestUser, wallet: string) => () => ({
  user_id: user.id,
  wallet_id: wallet,
  amount: "1.25",
  request_id: unique("r"),
});

describe("D1 cost per route", () => {
  it("every route answers in one round trip once warm, authentication included (a sign-in in two)", async () => {
    const { admin, user, wallet, wallets } = await fixture();
    const other = await makeUser();
    await credit(admin, { user_id: user.id, wallet_id: wallet, amount: 100 });
    const key = await makeKey(admin, "read-write");
    const cases: [string, string, unknown, Record<string, string | number>?][] = [
      ["POST", "/credits", creditBody(user, wallet)],
      ["POST", "/debits", creditBody(user, wallet)],
      [
        "POST",
        "/transfers",
        () => ({
          from_user_id: user.id,
          to_user_id: other.id,
          wallet_id: wallet,
          amount: "0.01",
          request_id: unique("t"),
        }),
      ],
      [
        "GET",
        "/user-wallet-balance",
        undefined,
        { user_id: user.id, wallet_id: wallets.join(","), formatted: "yes" },
      ],
      ["GET", "/transactions", undefined, { user_id: user.id, security_code: 1, per_page: 10 }],
      [
        "GET",
        "/user-wallet-balance",
        undefined,
        { user_id: user.id, wallet_id: wallets.join(","), at: "2026-01-01T00:00:00Z" },
      ],
      ["GET", "/statements", undefined, { user_id: user.id, wallet_id: wallet, per_page: 10 }],
      ["GET", "/wallets", undefined],
      ["GET", `/wallets/${wallet}`, undefined],
      [
        "POST",
        "/wallets",
        () => ({
          wallet_id: unique("w").toLowerCase().slice(0, 30),
          wallet_name: "W",
          wallet_symbol: "$",
        }),
      ],
      [
        "POST",
        "/users",
        () => ({
          username: unique("u"),
          user_email: `${unique("e")}@example.test`,
          user_password: "secret123",
        }),
      ],
      ["GET", "/api-keys", undefined],
      ["POST", "/api-keys", () => ({ name: "k", scope: "read" })],
      [
        "POST",
        "/batches",
        // Three operations, four entries: still one D1 batch.
        () => ({
          request_id: unique("b"),
          operations: [
            { type: "debit", user_id: user.id, wallet_id: wallet, amount: "0.03" },
            { type: "credit", user_id: other.id, wallet_id: wallet, amount: "0.02" },
            {
              type: "transfer",
              from_user_id: other.id,
              to_user_id: admin.id,
              wallet_id: wallet,
              amount: "0.01",
            },
          ],
        }),
      ],
    ];
    const table: Record<string, { roundTrips: number; rowsRead: number; rowsWritten: number }> = {};
    const txn = await credit(admin, { user_id: user.id, wallet_id: wallet, amount: 1 });
    const keyToRevoke = await call("POST", "/api-keys", {
      auth: admin.bearer,
      body: { name: "r", scope: "read" },
    });
    cases.push(
      ["GET", `/transactions/${txn.body.data.transaction_id}`, undefined],
      ["DELETE", `/api-keys/${keyToRevoke.body.data.id}`, undefined],
      ["POST", "/users/login", { user_email: user.email, user_password: PASSWORD }],
    );
    for (const auth of [admin.bearer, key.header]) {
      for (const [method, path, body, query] of cases) {
        const cost = await costOf(method, path, auth, body, query);
        if (auth === admin.bearer)
          table[`${method} ${path.replace(/\/[0-9]+$/, "/{id}").replace(wallet, "{wallet_id}")}`] =
            cost;
        expect({
          route: `${method} ${path}`,
          status: cost.status,
          roundTrips: cost.roundTrips,
        }).toEqual({
          route: `${method} ${path}`,
          status: cost.status < 300 ? cost.status : "2xx",
          // A sign-in reads the user, checks the password, then writes its session (one batch).
          roundTrips: path === "/users/login" ? 2 : 1,
        });
      }
    }
    const signIn = table["POST /users/login"]!.roundTrips;
    quoted(securityMd, `A sign-in is ${WORDS[signIn]} D1 round trips`);
    quoted(
      operationsMd,
      `checks that each route it lists, the money routes and the common reads and writes, takes ${WORDS[table["POST /credits"]!.roundTrips]} once the isolate is warm`,
    );
    // The figures BENCHMARKS.md quotes, which
    // `npx vitest run test/d1-budget.test.ts --silent=false` prints: console.info, since a passing
    // test's console.log lines stay in the runtime (test/held-logs.ts).
    for (const [route, c] of Object.entries(table))
      console.info(`d1-cost | ${route} | ${c.roundTrips} | ${c.rowsRead} | ${c.rowsWritten} |`);
  });

  it("a reversal takes two round trips (it reads the entries it reverses, then writes), a batch's three", async () => {
    const { admin, user, wallet } = await fixture();
    const { res: value, ...cost } = await warmCost(admin.bearer, async () => {
      const txn = await credit(admin, { user_id: user.id, wallet_id: wallet, amount: 1 });
      return [
        "POST",
        `/transactions/${txn.body.data.transaction_id}/reverse`,
        { request_id: unique("rev") },
      ];
    });
    expect(value.status).toBe(200);
    expect(cost.roundTrips).toBe(2);
    const batch = await warmCost(admin.bearer, async () => {
      const operations = [{ type: "credit", user_id: user.id, wallet_id: wallet, amount: "1" }];
      const written = await call("POST", "/batches", {
        auth: admin.bearer,
        body: { request_id: unique("b"), operations },
      });
      return ["POST", `/batches/${written.body.data.batch_id}/reverse`, {}];
    });
    expect(batch.res.status).toBe(200);
    expect(batch.roundTrips).toBe(3);
    quoted(operationsMd, `a batch's reversal ${WORDS[batch.roundTrips]})`);
    quoted(scalingMd, `one to ${WORDS[batch.roundTrips]} round trips once warm`);
  });

  it("an isolate's first credit to a wallet and a user reads both (three round trips), a new isolate's first credit also its migrations and credential", async () => {
    const { admin, user, wallets } = await fixture();
    const key = (await makeKey(admin, "read-write")).header;
    // A binding of its own is a new isolate to the caches (db/isolate-cache.ts is keyed by it).
    const isolate = () => countingD1(wrappedD1((_statements, send) => send()));
    const creditThrough = async (
      counter: ReturnType<typeof countingD1>,
      auth: string,
      to: TestUser,
      wallet: string,
    ) => {
      const { value: res, cost } = await counter.measure(() =>
        call("POST", "/credits", {
          auth,
          body: creditBody(to, wallet)(),
          app: createApp(),
          d1: counter.db,
        }),
      );
      expect(res.status, res.text).toBe(200);
      return cost;
    };
    // Which migrations D1 holds, the session, the wallet, the user's name, then the write; an API
    // key's first use also records its last use (at most once a minute per key).
    const restarted = (await creditThrough(isolate(), admin.bearer, user, wallets[0]!)).roundTrips;
    const withKey = (await creditThrough(isolate(), key, user, wallets[0]!)).roundTrips;
    expect([restarted, withKey]).toEqual([5, 6]);
    const warm = isolate();
    await creditThrough(warm, admin.bearer, user, wallets[0]!);
    // A user's first entry in a wallet also writes its new balance row's primary key entry.
    const first = await creditThrough(warm, admin.bearer, await makeUser(), wallets[1]!);
    expect([first.roundTrips, first.rowsWritten]).toEqual([3, 9]);
    expect((await creditThrough(warm, admin.bearer, user, wallets[2]!)).roundTrips).toBe(2);
    const again = await creditThrough(warm, admin.bearer, user, wallets[2]!);
    expect([again.roundTrips, again.rowsWritten]).toEqual([1, 8]);
    quoted(scalingMd, `${WORDS[withKey]} at most for a new isolate's first credit with an API key`);
    quoted(operationsMd, `for a user it has not met logs ${WORDS[first.roundTrips]};`);
    quoted(
      operationsMd,
      `so its first credit logs ${WORDS[restarted]}, ${WORDS[withKey]} with an API key`,
    );
    quoted(
      operationsMd,
      `So a credit, which inserts one entry, writes ${again.rowsWritten} rows: the entry and its indexes, its balance, its event and the balance timeline's point (BENCHMARKS.md says what each row is for); ${first.rowsWritten} for a user's first entry in a wallet`,
    );
  });

  it("a sign-out takes two round trips (its session read at the primary, then ended), an unlock two, accented or not", async () => {
    const { admin, user } = await fixture();
    const signOut = await warmCost(admin.bearer, async () => {
      const { token } = await signedToken(user);
      return ["POST", "/users/logout", undefined, `Bearer ${token}`];
    });
    expect([signOut.warm, signOut.status]).toEqual([200, 200]);
    expect(signOut.roundTrips).toBe(2);
    // The user, then the logins that may name it in one batch: its e-mail, its username and, for an
    // accented username, its plain spelling, which signs in too when nobody else holds it.
    const unlock = async (who: TestUser) => {
      const cost = await warmCost(admin.bearer, () => ["POST", `/users/${who.id}/unlock`]);
      expect([cost.warm, cost.status]).toEqual([200, 200]);
      return cost.roundTrips;
    };
    const plain = await unlock(user);
    expect([plain, await unlock(await makeUser("subscriber", unique("jösé")))]).toEqual([2, 2]);
    quoted(
      operationsMd,
      `a sign-out ${WORDS[signOut.roundTrips]} (its session read at the primary, then ended), an unlock ${WORDS[plain]} (the user, then in one batch the logins`,
    );
  });

  it("each money operation writes and reads a fixed budget of rows", async () => {
    // D1 bills every row written, index rows included (docs: BENCHMARKS.md "Rows per credit"). A
    // credit writes 8: the entry, its four index rows (idempotency key, date, wallet and date, slug),
    // the balance (an upsert), the balance timeline's point (a WITHOUT ROWID table: one write) and
    // the outbox's event. A new write on any of these operations must show up here.
    const { admin, user, wallet } = await fixture();
    const other = await makeUser();
    await credit(admin, { user_id: user.id, wallet_id: wallet, amount: 100 });
    const auth = (await makeKey(admin, "read-write")).header;
    const send = async (make: () => Promise<Call>) => {
      const { call, res, statements, roundTrips, rowsRead, rowsWritten } = await warmCost(
        auth,
        make,
      );
      expect(res.status, `${call[0]} ${call[1]}: ${await res.clone().text()}`).toBe(200);
      return { statements, roundTrips, rowsRead, rowsWritten };
    };
    // A new amount each time, so each entry's title is new: a site's credits rarely share one.
    let cents = 25;
    const money = () => ({
      user_id: user.id,
      wallet_id: wallet,
      amount: (cents++ / 100).toFixed(2),
    });
    const hold = async () => {
      const res = await call("POST", "/holds", {
        auth,
        body: { ...money(), request_id: unique("h") },
      });
      return res.body.data.hold_id as number;
    };
    const entry = async () => (await credit(admin, money())).body.data.transaction_id as number;
    const operations: Record<string, () => Promise<Call>> = {
      credit: async () => ["POST", "/credits", { ...money(), request_id: unique("c") }],
      debit: async () => ["POST", "/debits", { ...money(), request_id: unique("d") }],
      transfer: async () => [
        "POST",
        "/transfers",
        {
          from_user_id: user.id,
          to_user_id: other.id,
          wallet_id: wallet,
          amount: money().amount,
          request_id: unique("t"),
        },
      ],
      hold: async () => ["POST", "/holds", { ...money(), request_id: unique("h") }],
      capture: async () => ["POST", `/holds/${await hold()}/capture`, {}],
      void: async () => ["POST", `/holds/${await hold()}/void`],
      reversal: async () => [
        "POST",
        `/transactions/${await entry()}/reverse`,
        { request_id: unique("rev") },
      ],
    };
    // Beside a credit's 8: a transfer is two entries, each with its transfer index row; a reversal
    // one entry and its reversal index row, after reading the entry it reverses. A hold writes its
    // row, four index rows, its event and the event's type index row (holds have no AUTOINCREMENT,
    // so no sqlite_sequence row is read or written); capturing writes the hold's status, its entry
    // (with the hold index row) and its event; a void writes the hold's status and its event.
    // Rows read, for an entry whose title is new: a credit's 20 are its guards' index reads (the
    // balance, the used request key, the timeline's last point once in each of its two triggers and
    // once in the balance's, the event's wallet), its slug's probe and the request key checked
    // before it. An
    // entry's slug probes one more row for each entry already holding its title that second.
    const budget: Record<string, { roundTrips: number; rowsWritten: number; rowsRead: number }> = {
      credit: { roundTrips: 1, rowsWritten: 8, rowsRead: 20 },
      debit: { roundTrips: 1, rowsWritten: 8, rowsRead: 21 },
      transfer: { roundTrips: 1, rowsWritten: 18, rowsRead: 41 },
      hold: { roundTrips: 1, rowsWritten: 7, rowsRead: 10 },
      capture: { roundTrips: 2, rowsWritten: 12, rowsRead: 33 },
      void: { roundTrips: 2, rowsWritten: 3, rowsRead: 8 },
      reversal: { roundTrips: 2, rowsWritten: 9, rowsRead: 27 },
    };
    const measured: Record<string, Awaited<ReturnType<typeof send>>> = {};
    for (const [name, make] of Object.entries(operations)) {
      const { roundTrips, rowsRead, rowsWritten } = (measured[name] = await send(make));
      console.info(`d1-cost | ${name} | ${roundTrips} | ${rowsRead} | ${rowsWritten} |`);
    }
    for (const [name, { roundTrips, rowsWritten, rowsRead }] of Object.entries(measured)) {
      const most = budget[name]!;
      expect({ name, roundTrips, rowsWritten }).toEqual({
        name,
        roundTrips: most.roundTrips,
        rowsWritten: most.rowsWritten,
      });
      expect(rowsRead, name).toBeLessThanOrEqual(most.rowsRead);
    }
    const { reversal, capture, void: voided, credit: credited } = measured;
    expect([capture!.roundTrips, voided!.roundTrips]).toEqual([
      reversal!.roundTrips,
      reversal!.roundTrips,
    ]);
    quoted(
      operationsMd,
      `a sign-in, a reversal, a capture and a void ${WORDS[reversal!.roundTrips]}`,
    );
    // security.md's example of a credit's log line.
    quoted(
      securityMd,
      `"d1_statements":${credited!.statements},"d1_rows_read":${credited!.rowsRead},"d1_rows_written":${credited!.rowsWritten},"d1_round_trips":${credited!.roundTrips}}`,
    );
  });

  it("an entry's INSERT … SELECT binds at most 36 values (a reversal's), far below D1's 100", async () => {
    // docs/scaling.md quotes these: what each movement's entries bind, in the order written.
    const { admin, user, wallet } = await fixture();
    const other = await makeUser();
    await credit(admin, { user_id: user.id, wallet_id: wallet, amount: 100 });
    let binds: number[] = [];
    const d1 = wrappedD1(async (statements, send) => {
      for (const s of statements) {
        const { statement, params } = s as unknown as { statement: string; params: unknown[] };
        if (statement.startsWith('insert into "transactions"')) binds.push(params.length);
      }
      return send();
    });
    const app = createApp();
    const post = async (path: string, body: unknown = {}) => {
      binds = [];
      const res = await call("POST", path, { auth: admin.bearer, body, app, d1 });
      expect(res.status, path).toBe(200);
      return { data: res.body.data, binds };
    };
    const money = (key: string) => ({
      user_id: user.id,
      wallet_id: wallet,
      amount: "1.25",
      request_id: unique(key),
    });
    const transfer = {
      from_user_id: user.id,
      to_user_id: other.id,
      wallet_id: wallet,
      amount: "0.01",
    };
    const credited = await post("/credits", money("c"));
    const transferred = await post("/transfers", { ...transfer, request_id: unique("t") });
    const held = await post("/holds", money("h"));
    const batch = await post("/batches", {
      request_id: unique("b"),
      operations: [
        { type: "debit", user_id: user.id, wallet_id: wallet, amount: "0.03" },
        { type: "credit", user_id: other.id, wallet_id: wallet, amount: "0.02" },
        { type: "transfer", ...transfer },
      ],
    });
    const reverse = (id: number) =>
      post(`/transactions/${id}/reverse`, { request_id: unique("r") });
    const bound = {
      credit: credited.binds,
      debit: (await post("/debits", money("d"))).binds,
      transfer: transferred.binds,
      reversal: (await reverse(credited.data.transaction_id)).binds,
      "transfer's reversal": (await reverse(transferred.data.debit_transaction_id)).binds,
      capture: (await post(`/holds/${held.data.hold_id}/capture`)).binds,
      batch: batch.binds,
      "batch's reversal": (await post(`/batches/${batch.data.batch_id}/reverse`)).binds,
    };
    expect(bound).toEqual({
      credit: [35],
      debit: [35],
      transfer: [35, 32],
      reversal: [36],
      "transfer's reversal": [36, 32],
      capture: [33],
      batch: [31, 31, 31, 31],
      "batch's reversal": [31, 31, 31, 31],
    });
    quoted(
      scalingMd,
      `one entry's \`INSERT … SELECT\` binds at most ${Math.max(...Object.values(bound).flat())} (a reversal's; a credit's or a debit's ${bound.credit[0]}, a capture's ${bound.capture[0]}, a transfer's receiving half ${bound.transfer[1]}, a batch's entry ${bound.batch[0]})`,
    );
  });

  it("a balance read costs the same after 10 and after 5,000 entries", async () => {
    const { admin, user, wallet, wallets } = await fixture();
    const read = () =>
      costOf("GET", "/user-wallet-balance", admin.bearer, undefined, {
        user_id: user.id,
        wallet_id: wallets.join(","),
        formatted: "yes",
      });
    for (let i = 0; i < 10; i++)
      await credit(admin, { user_id: user.id, wallet_id: wallet, amount: 1 });
    const after10 = await read();
    await appendHistory(user.id, wallet, 4990);
    const after5000 = await read();
    expect(after10.status).toBe(200);
    expect(after5000.rowsRead).toBe(after10.rowsRead);
    expect(after5000.roundTrips).toBe(1);
  });

  it("a balance at an instant reads one index row per wallet, after 10 or 5,000 entries", async () => {
    const { admin, user, wallet, wallets } = await fixture();
    const read = () =>
      costOf("GET", "/user-wallet-balance", admin.bearer, undefined, {
        user_id: user.id,
        wallet_id: wallets.join(","),
        at: new Date(Date.now() - 1000).toISOString(), // a second that is over
      });
    for (let i = 0; i < 10; i++)
      await credit(admin, { user_id: user.id, wallet_id: wallet, amount: 1 });
    const after10 = await read();
    await appendHistory(user.id, wallet, 4990);
    const after5000 = await read();
    expect(after10.status).toBe(200);
    expect(after5000.rowsRead).toBe(after10.rowsRead);
    expect(after5000.roundTrips).toBe(1);
  });

  it("a transactions page reads in proportion to its page size, not the history", async () => {
    const { admin, user, wallet } = await fixture();
    const page = (per_page: number) =>
      costOf("GET", "/transactions", admin.bearer, undefined, {
        user_id: user.id,
        security_code: 1,
        per_page,
      });
    await appendHistory(user.id, wallet, 200);
    const [small200, large200] = [await page(5), await page(50)];
    await appendHistory(user.id, wallet, 2000);
    const [small2200, large2200] = [await page(5), await page(50)];
    expect(large200.rowsRead - small200.rowsRead).toBe(large2200.rowsRead - small2200.rowsRead);
  });

  it("a warm transactions page of 20 is two statements in one round trip, filtered or not", async () => {
    const { admin, user, wallet } = await fixture();
    await appendHistory(user.id, wallet, 50);
    const pages: Record<string, string | number>[] = [
      { page: 1 },
      { page: 2 },
      { pageno: 3 },
      { page: 9 },
      { page: 1, wallet_id: wallet },
      { page: 1, txn_type: "CREDIT" },
    ];
    for (const query of pages) {
      const cost = await costOf("GET", "/transactions", admin.bearer, undefined, {
        user_id: user.id,
        security_code: 1,
        per_page: 20,
        ...query,
      });
      expect({ query, status: cost.status, roundTrips: cost.roundTrips }).toEqual({
        query,
        status: 200,
        roundTrips: 1,
      });
      // The page, then the total with whether the user and the filtered wallet exist.
      expect(cost.statements, JSON.stringify(query)).toBeLessThanOrEqual(2);
    }
  });

  it("transfers, reversals and events by type are found through their partial indexes", async () => {
    // Every lookup by transfer or by reversed entry names a value, which implies the indexes'
    // `IS NOT NULL`: the planner still searches them (a scan would read the whole ledger).
    const plan = async (query: string) => {
      const { results } = await env.DB.prepare(`EXPLAIN QUERY PLAN ${query}`)
        .bind(1)
        .all<{ detail: string }>();
      return results.map((r) => r.detail).join("\n");
    };
    // A transfer's other half (db/ledger.ts findMovement), and the transfer guard (ledger/append.ts).
    expect(
      await plan(
        "SELECT t.id FROM transactions t WHERE t.id = ? OR t.transfer_id = (SELECT transfer_id FROM transactions WHERE id = 1)",
      ),
    ).toMatch(/SEARCH t USING (COVERING )?INDEX transactions_transfer \(transfer_id=\?\)/);
    expect(await plan("SELECT 1 FROM transactions WHERE transfer_id = ?")).toMatch(
      /SEARCH transactions USING COVERING INDEX transactions_transfer \(transfer_id=\?\)/,
    );
    // Events of the rarer types through the partial type index (transaction.created writes none).
    const byType = listEvents(createDb(env.DB), 0, 10, ["user.created", "hold.placed"]).toSQL();
    const { results: eventsPlan } = await env.DB.prepare(`EXPLAIN QUERY PLAN ${byType.sql}`)
      .bind(...byType.params)
      .all<{ detail: string }>();
    expect(eventsPlan.map((r) => r.detail).join("\n")).toMatch(
      /SEARCH events USING INDEX events_type \(type=\? AND id>\?\)/,
    );
    // The one-reversal guard (trigger transactions_reversed_once, ledger/append.ts).
    expect(await plan("SELECT 1 FROM transactions WHERE reverses_id = ?")).toMatch(
      /SEARCH transactions USING COVERING INDEX transactions_reverses \(reverses_id=\?\)/,
    );
  });
});
