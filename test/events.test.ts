import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { compatCall, GUARDED, ON } from "./compat-helpers";
import {
  appendLongEvents,
  call,
  credit,
  debit,
  INSUFFICIENT,
  type Json,
  makeAccount,
  makeAdmin,
  makeKey,
  makeUser,
  makeWallet,
  runCron,
  type TestUser,
  transfer,
  unique,
} from "./helpers";

/** The newest event id now: what happens next comes after it. */
const newestEvent = async () =>
  (await env.DB.prepare("SELECT coalesce(max(id), 0) AS id FROM events").first<{ id: number }>())!
    .id;

/** The events after `after`, read through the feed. */
async function feed(admin: TestUser, query: Record<string, string | number> = {}) {
  const res = await call("GET", "/events", { auth: admin.bearer, query });
  expect(res.status, res.text).toBe(200);
  return res.body.data as Json[];
}

/** The record GET /transactions/{id} answers. */
async function transactionRecord(admin: TestUser, id: number) {
  const res = await call("GET", `/transactions/${id}`, { auth: admin.bearer });
  expect(res.status, res.text).toBe(200);
  return res.body.data as Json;
}

const subjects = (events: Json[], type: string) =>
  events.filter((e) => e.type === type).map((e) => e.data.ID ?? e.data.id ?? e.data.wallet_id);

describe("the outbox", () => {
  it("a credit writes one transaction.created event whose data is the record GET /transactions/{id} answers", async () => {
    const { admin, user, wallet } = await makeAccount();
    const before = await newestEvent();
    const res = await credit(admin, { user_id: user.id, wallet_id: wallet, amount: "12.50" });
    expect(res.status, res.text).toBe(200);
    const id = res.body.data.transaction_id;
    const events = await feed(admin, { after: before });
    expect(events).toHaveLength(1);
    expect(events[0]).toStrictEqual({
      id: events[0]!.id,
      type: "transaction.created",
      timestamp: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
      data: await transactionRecord(admin, id),
    });
    expect(events[0]!.id).toBeGreaterThan(before);
    // The change's own time: the entry's post_date_gmt second, in UTC.
    const gmt = events[0]!.data.post_date_gmt as string;
    expect(events[0]!.timestamp).toBe(`${gmt.replace(" ", "T")}.000Z`);
  });

  it("a debit, both legs of a transfer and a reversal each write their own event, in the order they committed", async () => {
    const { admin, user, wallet } = await makeAccount();
    const other = await makeUser();
    await credit(admin, { user_id: user.id, wallet_id: wallet, amount: 100 });
    const before = await newestEvent();
    const d = await debit(admin, { user_id: user.id, wallet_id: wallet, amount: 10 });
    const t = await transfer(admin, {
      from_user_id: user.id,
      to_user_id: other.id,
      wallet_id: wallet,
      amount: 5,
    });
    const r = await call("POST", `/transactions/${d.body.data.transaction_id}/reverse`, {
      auth: admin.bearer,
      body: { request_id: unique("rev") },
    });
    expect([d.status, t.status, r.status]).toEqual([200, 200, 200]);
    const events = await feed(admin, { after: before });
    expect(events.map((e) => e.type)).toEqual(Array(4).fill("transaction.created"));
    expect(events.map((e) => e.data.ID)).toEqual([
      d.body.data.transaction_id,
      t.body.data.debit_transaction_id,
      t.body.data.credit_transaction_id,
      ...r.body.data.transaction_ids,
    ]);
    for (const e of events) expect(e.data).toStrictEqual(await transactionRecord(admin, e.data.ID));
  });

  it("a credit through the plugin's namespace writes the same event as one through wallet/v1", async () => {
    const { admin, user, wallet } = await makeAccount();
    const before = await newestEvent();
    const res = await compatCall("POST", "/wp-json/rimplenet/v1/credits", {
      headers: { Authorization: admin.bearer, "Content-Type": "application/json" },
      body: JSON.stringify({
        user_id: user.id,
        wallet_id: wallet,
        amount: 7,
        request_id: unique("c"),
      }),
      vars: ON,
    });
    expect(res.status, res.text).toBe(200);
    const events = await feed(admin, { after: before });
    expect(events).toHaveLength(1);
    expect(events[0]!.type).toBe("transaction.created");
    expect(events[0]!.data).toStrictEqual(await transactionRecord(admin, events[0]!.data.ID));
    expect(events[0]!.data).toMatchObject({
      post_author: String(user.id),
      amount: "7",
      txn_type: "CREDIT",
    });
  });

  it("a debit the balance refuses writes no event", async () => {
    const { admin, user, wallet } = await makeAccount();
    const before = await newestEvent();
    const res = await debit(admin, { user_id: user.id, wallet_id: wallet, amount: 1 });
    expect(res.body).toStrictEqual(INSUFFICIENT);
    expect(await newestEvent()).toBe(before);
  });

  it("a repeated request_id writes no second event", async () => {
    const { admin, user, wallet } = await makeAccount();
    const body = { user_id: user.id, wallet_id: wallet, amount: 3, request_id: unique("r") };
    const first = await credit(admin, body);
    const before = await newestEvent();
    const again = await credit(admin, body);
    expect([first.status, again.status]).toEqual([200, 409]);
    expect(await newestEvent()).toBe(before);
  });

  it("concurrent credits written in shared batches each write exactly one event, in entry order", async () => {
    const { admin, user, wallet } = await makeAccount();
    const before = await newestEvent();
    const answers = await Promise.all(
      Array.from({ length: 40 }, () =>
        credit(admin, { user_id: user.id, wallet_id: wallet, amount: 1 }),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(40).fill(200));
    const ids = answers.map((a) => a.body.data.transaction_id as number).sort((a, b) => a - b);
    const events = await feed(admin, { after: before });
    expect(subjects(events, "transaction.created")).toEqual(ids);
  });

  it("a batch that fails after an entry rolls back the entry's event with it", async () => {
    const { admin, user, wallet } = await makeAccount();
    const ok = await credit(admin, { user_id: user.id, wallet_id: wallet, amount: 1 });
    const entry = await env.DB.prepare("SELECT * FROM transactions WHERE id = ?")
      .bind(ok.body.data.transaction_id)
      .first<Json>();
    const before = await newestEvent();
    const copy = `INSERT INTO transactions (user_id, wallet_id, txn_type, amount_minor, amount_text,
      balance_before_minor, balance_after_minor, request_id, request_key, note, title, slug_base, slug, created_at_s)
      VALUES (?, ?, 'CREDIT', 1, '1', ?, ? + 1, ?, ?, '', 't', ?, ?, 1)`;
    const key = unique("raw");
    await expect(
      env.DB.batch([
        env.DB.prepare(copy).bind(
          user.id,
          wallet,
          entry!.balance_after_minor,
          entry!.balance_after_minor,
          key,
          key,
          key,
          key,
        ),
        env.DB.prepare("UPDATE transactions SET note = 'x' WHERE id = ?").bind(entry!.id),
      ]),
    ).rejects.toThrow(/ledger_append_only/);
    expect(await newestEvent()).toBe(before);
  });

  it("POST /users and POST /wallets write user.created and wallet.created with their records", async () => {
    const admin = await makeAdmin();
    const before = await newestEvent();
    const username = unique("nu");
    const u = await call("POST", "/users", {
      auth: admin.bearer,
      body: {
        username,
        user_email: `${username}@example.test`,
        user_password: "secret123",
        first_name: "Ada",
      },
    });
    expect(u.status, u.text).toBe(201);
    // The symbol on the right: the record carries the wallet's own position, not the default.
    const walletId = await makeWallet(admin, { symbol: "$", decimals: 2, position: "right" });
    const events = await feed(admin, { after: before });
    expect(events.map((e) => e.type)).toEqual(["user.created", "wallet.created"]);
    expect(events[0]!.data).toStrictEqual({
      id: u.body.data.id,
      username,
      user_email: `${username}@example.test`,
      first_name: "Ada",
      last_name: "",
      roles: ["subscriber"],
      registered_at: expect.any(String),
    });
    const wallet = await call("GET", `/wallets/${walletId}`, { auth: admin.bearer });
    expect(wallet.body.data.wallet_symbol_position).toBe("right");
    expect(events[1]!.data).toStrictEqual(wallet.body.data);
  });

  it("deleting a user and a wallet through the plugin's dialect writes user.deleted and wallet.deleted with the records as they stood", async () => {
    const admin = await makeAdmin();
    const user = await makeUser();
    const walletId = await makeWallet(admin, { symbol: "$", decimals: 2 });
    const created = await feed(admin, { after: (await newestEvent()) - 2 });
    const before = await newestEvent();
    for (const path of [`users/${user.id}`, `wallets/${walletId}`]) {
      const res = await compatCall("DELETE", `/wp-json/rimplenet/v1/${path}`, {
        headers: { Authorization: admin.bearer },
        vars: GUARDED,
      });
      expect(res.status, res.text).toBe(200);
    }
    const events = await feed(admin, { after: before });
    expect(events.map((e) => [e.type, e.data.id ?? e.data.wallet_id])).toEqual([
      ["user.deleted", user.id],
      ["wallet.deleted", walletId],
    ]);
    const madeUser = created.find((e) => e.type === "user.created" && e.data.id === user.id);
    const madeWallet = created.find(
      (e) => e.type === "wallet.created" && e.data.wallet_id === walletId,
    );
    expect(events[0]!.data).toStrictEqual(madeUser!.data);
    expect(events[1]!.data).toStrictEqual(madeWallet!.data);
    for (const e of events) expect(Date.parse(e.timestamp)).toBeGreaterThan(Date.now() - 60_000);
  });

  it("holds write hold.placed, hold.captured (naming the capture's DEBIT), hold.voided and hold.expired, each the record GET /holds/{id} answers; a refused hold writes none", async () => {
    const { admin, user, wallet } = await makeAccount();
    expect((await credit(admin, { user_id: user.id, wallet_id: wallet, amount: 100 })).status).toBe(
      200,
    );
    const key = (await makeKey(admin, "read-write")).header;
    const t0 = Date.now();
    const place = async (amount: number, expires_in = 600) => {
      const res = await call("POST", "/holds", {
        auth: key,
        body: { user_id: user.id, wallet_id: wallet, amount, request_id: unique("h"), expires_in },
      });
      expect(res.status, res.text).toBe(200);
      return res.body.data.hold_id as number;
    };
    const holdNow = async (id: number) =>
      (await call("GET", `/holds/${id}`, { auth: key })).body.data as Json;

    const before = await newestEvent();
    const captured = await place(30);
    const voided = await place(20);
    const expiring = await place(10, 1);
    const refused = await call("POST", "/holds", {
      auth: key,
      body: { user_id: user.id, wallet_id: wallet, amount: 1000, request_id: unique("h") },
    });
    expect(refused.body).toEqual(INSUFFICIENT);
    const capture = await call("POST", `/holds/${captured}/capture`, {
      auth: key,
      body: { amount: 25 },
    });
    expect(capture.status, capture.text).toBe(200);
    expect((await call("POST", `/holds/${voided}/void`, { auth: key })).status).toBe(200);
    await runCron(t0 + 120_000);

    // The cron expires every hold past its time: where the test files of a worker share a database
    // (vitest.config.ts), other files' holds too, each placed before this test's first (a page of
    // the feed's most, lest theirs fill it).
    const events = (await feed(admin, { after: before, limit: 1000 })).filter(
      (e) => !(e.type === "hold.expired" && e.data.hold_id < captured),
    );
    const debitId = capture.body.data.transaction_id as number;
    expect(events.map((e) => [e.type, e.data.hold_id ?? e.data.ID])).toEqual([
      ["hold.placed", captured],
      ["hold.placed", voided],
      ["hold.placed", expiring],
      // The capture's DEBIT, then the event naming it.
      ["transaction.created", debitId],
      ["hold.captured", captured],
      ["hold.voided", voided],
      ["hold.expired", expiring],
    ]);
    const byType = (type: string) => events.filter((e) => e.type === type);
    expect(byType("hold.captured")).toHaveLength(1);
    expect(byType("transaction.created").map((e) => e.data.ID)).toEqual([debitId]);
    expect(byType("hold.captured")[0]!.data).toEqual(await holdNow(captured));
    expect(byType("hold.captured")[0]!.data.transaction_id).toBe(debitId);
    expect(byType("hold.voided")[0]!.data).toEqual(await holdNow(voided));
    expect(byType("hold.expired")[0]!.data).toEqual(await holdNow(expiring));
    expect(byType("hold.placed")[0]!.data).toEqual({
      ...(await holdNow(captured)),
      status: "held",
      resolved_at: null,
      captured_amount: null,
      captured_amount_formatted: null,
      transaction_id: null,
    });
  });

  it("refuses to rewrite an event", async () => {
    await makeAdmin();
    await expect(env.DB.prepare("UPDATE events SET type = 'x'").run()).rejects.toThrow(
      /events_append_only/,
    );
  });
});

describe("GET /events", () => {
  it("answers oldest first and resumes after the last id seen, whatever the page size", async () => {
    const { admin, user, wallet } = await makeAccount();
    const before = await newestEvent();
    for (let i = 0; i < 7; i++)
      await credit(admin, { user_id: user.id, wallet_id: wallet, amount: 1 });
    const all = await feed(admin, { after: before });
    expect(all.length).toBeGreaterThanOrEqual(7);
    const ids = all.map((e) => e.id as number);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    const paged: number[] = [];
    let after = before;
    for (;;) {
      const page = await feed(admin, { after, limit: 3 });
      if (page.length === 0) break;
      expect(page.length).toBeLessThanOrEqual(3);
      paged.push(...page.map((e) => e.id as number));
      after = page.at(-1)!.id;
    }
    expect(paged.slice(0, ids.length)).toEqual(ids);
    // Stable: the same question answers the same.
    expect(await feed(admin, { after: before, limit: 7 })).toStrictEqual(all.slice(0, 7));
  });

  it("answers 100 events without a limit, and more when the limit asks for them", async () => {
    const { admin, user, wallet } = await makeAccount();
    const before = await newestEvent();
    // A batch of 100 credits: 100 entries' events and the batch's own, in one request.
    const operations = Array.from({ length: 100 }, () => ({
      type: "credit",
      user_id: user.id,
      wallet_id: wallet,
      amount: "1",
    }));
    const res = await call("POST", "/batches", {
      auth: admin.bearer,
      body: { request_id: unique("b"), operations },
    });
    expect(res.status, res.text).toBe(200);
    expect(await feed(admin, { after: before })).toHaveLength(100);
    expect((await feed(admin, { after: before, limit: 1000 })).length).toBeGreaterThan(100);
  });

  it("keeps only the types asked for", async () => {
    const { admin, user, wallet } = await makeAccount();
    const before = await newestEvent();
    await makeWallet(admin);
    await credit(admin, { user_id: user.id, wallet_id: wallet, amount: 1 });
    const wallets = await feed(admin, { after: before, types: " wallet.created , wallet.created" });
    expect(wallets.length).toBeGreaterThan(0);
    expect(new Set(wallets.map((e) => e.type))).toEqual(new Set(["wallet.created"]));
    const both = await feed(admin, { after: before, types: "wallet.created,transaction.created" });
    expect(new Set(both.map((e) => e.type))).toEqual(
      new Set(["wallet.created", "transaction.created"]),
    );
    // Nothing but blanks names no type: every type, as without `types`.
    for (const types of ["", ",", " , "])
      expect(await feed(admin, { after: before, types })).toStrictEqual(
        await feed(admin, { after: before }),
      );
  });

  it("ends a page early once it holds about 4 MB of data, with at least one event, and goes on from there", async () => {
    const admin = await makeAdmin();
    const before = await newestEvent();
    // Five events of 1.5 million characters each: users of a very long name.
    await appendLongEvents(5, 1_500_000);
    const first = await feed(admin, { after: before, limit: 1000 });
    expect(first.map((e) => e.id)).toEqual([before + 1, before + 2, before + 3]);
    expect(first[0]!.data.username).toHaveLength(1_500_000);
    const rest = await feed(admin, { after: before + 3, limit: 1000 });
    expect(rest.map((e) => e.id)).toEqual([before + 4, before + 5]);
    expect((await feed(admin, { after: before + 4, limit: 1 })).map((e) => e.id)).toEqual([
      before + 5,
    ]);
  });

  it("answers an empty list after the newest event", async () => {
    const admin = await makeAdmin();
    expect(await feed(admin, { after: Number.MAX_SAFE_INTEGER })).toEqual([]);
  });

  it.each([
    [{ after: "-1" }, { after: "after requires an integer" }],
    [{ after: "x" }, { after: "after requires an integer" }],
    [{ limit: "0" }, { limit: "limit must be between 1 and 1000" }],
    [{ limit: "1001" }, { limit: "limit must be between 1 and 1000" }],
    [
      { types: "transaction.created,order.paid" },
      {
        types:
          "types must name event types among transaction.created, user.created, user.deleted, wallet.created, wallet.deleted, hold.placed, hold.captured, hold.voided, hold.expired, batch.completed, batch.reversed",
      },
    ],
  ])("refuses %o with 400 invalid input", async (query, error) => {
    const admin = await makeAdmin();
    const res = await call("GET", "/events", { auth: admin.bearer, query });
    expect(res.status).toBe(400);
    expect(res.body).toStrictEqual({
      status_code: 400,
      status: false,
      message: "invalid input",
      error,
    });
  });

  it("lets an administrator's read key page the feed", async () => {
    const admin = await makeAdmin();
    const key = await makeKey(admin, "read");
    const res = await call("GET", "/events", { auth: key.header, query: { limit: 1 } });
    expect(res.status, res.text).toBe(200);
  });
});
