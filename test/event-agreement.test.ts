// The feed and the webhooks against the ledger they record: every event's data is what the reads
// answer afterwards (on a wallet that stores more places than it shows too), each committed row has
// exactly one event, and a delivered body is the feed's record, byte for byte.
import { env } from "cloudflare:workers";
import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import type { Outbound } from "../src/events/deliver";
import { pumpEndpoint } from "../src/events/pump";
import {
  call,
  credit,
  debit,
  importedEntry,
  type Json,
  makeAdmin,
  makeKey,
  makeUser,
  storingMore,
  subscribeWebhook,
  type TestUser,
  transfer,
  unique,
} from "./helpers";
import { pumpDeps } from "./service-helpers";

const ok = (res: { status: number; text: string }) => expect(res.status, res.text).toBe(200);

const newestEvent = async () =>
  (await env.DB.prepare("SELECT coalesce(max(id), 0) AS id FROM events").first<{ id: number }>())!
    .id;

/** Every event after `after`, read through the feed a page of `limit` at a time. */
async function feedAfter(admin: TestUser, after: number, limit = 1000) {
  const all: Json[] = [];
  for (let cursor = after; ; ) {
    const res = await call("GET", "/events", {
      auth: admin.bearer,
      query: { after: cursor, limit },
    });
    expect(res.status, res.text).toBe(200);
    const page = res.body.data as Json[];
    if (page.length === 0) return all;
    all.push(...page);
    cursor = page.at(-1)!.id;
  }
}

const read = async (admin: TestUser, path: string) => {
  const res = await call("GET", path, { auth: admin.bearer });
  expect(res.status, `${path}: ${res.text}`).toBe(200);
  return res.body.data as Json;
};

/** Each transaction.created event is GET /transactions/{id}'s record; one event per entry written. */
async function expectEntriesAgree(admin: TestUser, events: Json[], entryIds: number[]) {
  const created = events.filter((e) => e.type === "transaction.created");
  expect(created.map((e) => e.data.ID)).toEqual(entryIds);
  for (const e of created)
    expect(e.data, `event ${e.id}`).toStrictEqual(await read(admin, `/transactions/${e.data.ID}`));
}

/** The ids of the entries written after `afterId`, in id order. */
const entriesAfter = async (afterId: number) =>
  (
    await env.DB.prepare("SELECT id FROM transactions WHERE id > ? AND imported = 0 ORDER BY id")
      .bind(afterId)
      .all<{ id: number }>()
  ).results.map((r) => r.id);

const newestEntry = async () =>
  (await env.DB.prepare("SELECT coalesce(max(id), 0) AS id FROM transactions").first<{
    id: number;
  }>())!.id;

describe("events on a wallet that stores a place more than it shows", () => {
  it("every money verb's events are the records the reads answer after it", async () => {
    const admin = await makeAdmin();
    const [a, b] = [await makeUser(), await makeUser()];
    const wallet = await storingMore(1);
    const key = (await makeKey(admin, "read-write")).header;
    const fromEntry = await newestEntry();
    const from = await newestEvent();
    const atS = Math.floor(Date.now() / 1000) - 60;
    await importedEntry(a.id, wallet, "CREDIT", 120_345, "120.345", 0, atS);
    await importedEntry(a.id, wallet, "DEBIT", 1_005, "1.005", 120_345, atS);
    const importedDebit = await newestEntry();
    ok(await credit(admin, { user_id: a.id, wallet_id: wallet, amount: "12.34" }));
    const undone = await call("POST", `/transactions/${importedDebit}/reverse`, {
      auth: admin.bearer,
      body: { request_id: unique("r") },
    });
    ok(undone);
    const t = await transfer(admin, {
      from_user_id: a.id,
      to_user_id: b.id,
      wallet_id: wallet,
      amount: "2.5",
    });
    ok(t);
    const hold = await call("POST", "/holds", {
      auth: key,
      body: { user_id: a.id, wallet_id: wallet, amount: "3.33", request_id: unique("h") },
    });
    ok(hold);
    const holdId = hold.body.data.hold_id as number;
    const captured = await call("POST", `/holds/${holdId}/capture`, {
      auth: key,
      body: { amount: "1.11" },
    });
    ok(captured);
    const rev = await call("POST", `/transactions/${t.body.data.credit_transaction_id}/reverse`, {
      auth: admin.bearer,
      body: { request_id: unique("r") },
    });
    ok(rev);
    const batch = await call("POST", "/batches", {
      auth: admin.bearer,
      body: {
        request_id: unique("b"),
        operations: [
          { type: "credit", user_id: b.id, wallet_id: wallet, amount: "0.04" },
          {
            type: "transfer",
            from_user_id: a.id,
            to_user_id: b.id,
            wallet_id: wallet,
            amount: "7.77",
          },
          {
            type: "transfer",
            from_user_id: b.id,
            to_user_id: a.id,
            wallet_id: wallet,
            amount: "7.77",
          },
        ],
      },
    });
    ok(batch);
    const batchId = batch.body.data.batch_id as number;
    const completed = await read(admin, `/batches/${batchId}`);
    ok(await call("POST", `/batches/${batchId}/reverse`, { auth: admin.bearer }));

    const events = await feedAfter(admin, from);
    await expectEntriesAgree(admin, events, await entriesAfter(fromEntry));
    const ofType = (type: string) => events.filter((e) => e.type === type);
    expect(ofType("hold.captured").map((e) => e.data)).toStrictEqual([
      await read(admin, `/holds/${holdId}`),
    ]);
    expect(ofType("batch.completed").map((e) => e.data)).toStrictEqual([completed]);
    expect(ofType("batch.reversed").map((e) => e.data)).toStrictEqual([
      await read(admin, `/batches/${batchId}`),
    ]);
    expect(events.map((e) => e.type)).toEqual([
      "transaction.created", // credit
      "transaction.created", // debit
      "transaction.created", // transfer's DEBIT
      "transaction.created", // and CREDIT
      "hold.placed",
      "transaction.created",
      "hold.captured",
      "transaction.created",
      "transaction.created",
      ...Array(5).fill("transaction.created"),
      "batch.completed",
      ...Array(5).fill("transaction.created"),
      "batch.reversed",
    ]);
    // The amounts as the wallet stores them.
    expect(events.slice(0, 4).map((e) => [e.data.amount, e.data.amount_formatted_disp])).toEqual([
      ["12.34", "₦12.34"],
      ["1.005", "₦1.01"],
      ["2.5", "₦2.50"],
      ["2.5", "₦2.50"],
    ]);
  });

  it("reversing a site's transfer from a user to itself writes one event per half, each its record", async () => {
    const admin = await makeAdmin();
    const user = await makeUser();
    const wallet = await storingMore(1);
    const atS = Math.floor(Date.now() / 1000) - 60;
    const link = unique("self");
    const from = await newestEvent();
    await importedEntry(user.id, wallet, "CREDIT", 100_005, "100.005", 0, atS);
    await importedEntry(user.id, wallet, "CREDIT", 50_005, "50.005", 100_005, atS, {
      transferId: link,
    });
    await importedEntry(user.id, wallet, "DEBIT", 50_005, "50.005", 150_010, atS, {
      transferId: link,
    });
    await importedEntry(user.id, wallet, "DEBIT", 80_000, "80", 100_005, atS);
    // The import's entries are the site's history: no event.
    expect(await newestEvent()).toBe(from);
    const [creditHalf, debitHalf] = (
      await env.DB.prepare("SELECT id FROM transactions WHERE transfer_id = ? ORDER BY id")
        .bind(link)
        .all<{ id: number }>()
    ).results.map((r) => r.id) as [number, number];
    const rev = await call("POST", `/transactions/${creditHalf}/reverse`, {
      auth: admin.bearer,
      body: { request_id: unique("r") },
    });
    expect(rev.status, rev.text).toBe(200);
    expect(rev.body.data.reversed_transaction_ids).toEqual([debitHalf, creditHalf]);
    const events = await feedAfter(admin, from);
    await expectEntriesAgree(admin, events, rev.body.data.transaction_ids);
    expect(events.map((e) => [e.data.txn_type, e.data.amount])).toEqual([
      ["CREDIT", "50.005"],
      ["DEBIT", "50.005"],
    ]);
    const again = await call("POST", `/transactions/${debitHalf}/reverse`, {
      auth: admin.bearer,
      body: { request_id: unique("r") },
    });
    expect(again.status).toBe(409);
    expect(await feedAfter(admin, events.at(-1)!.id)).toEqual([]);
  });
});

describe("the feed read while writes go on", () => {
  it("pages of 7 read during concurrent credits, transfers and refusals see every event once, in id order", async () => {
    const admin = await makeAdmin();
    const users = [await makeUser(), await makeUser(), await makeUser()];
    const wallet = await storingMore(1);
    const from = await newestEvent();
    const seen: number[] = [];
    let done = false;
    const reader = (async () => {
      let cursor = from;
      for (;;) {
        const finished = done;
        const res = await call("GET", "/events", {
          auth: admin.bearer,
          query: { after: cursor, limit: 7 },
        });
        const page = res.body.data as Json[];
        seen.push(...page.map((e) => e.id as number));
        if (page.length > 0) cursor = page.at(-1)!.id;
        else if (finished) return;
      }
    })();
    const writes = await Promise.all(
      Array.from({ length: 60 }, (_, i) => {
        const u = users[i % 3]!;
        const v = users[(i + 1) % 3]!;
        if (i % 4 === 3)
          return transfer(admin, {
            from_user_id: u.id,
            to_user_id: v.id,
            wallet_id: wallet,
            amount: "0.001",
          });
        if (i % 10 === 9)
          return debit(admin, { user_id: u.id, wallet_id: wallet, amount: "1000000" });
        return credit(admin, { user_id: u.id, wallet_id: wallet, amount: "0.123" });
      }),
    );
    done = true;
    await reader;
    const ids = (
      await env.DB.prepare("SELECT id FROM events WHERE id > ? ORDER BY id")
        .bind(from)
        .all<{ id: number }>()
    ).results.map((r) => r.id);
    expect(seen).toEqual(ids);
    const written = writes.filter((w) => w.status === 200);
    const entries = written.reduce(
      (n, w) => n + (w.body.data.debit_transaction_id === undefined ? 1 : 2),
      0,
    );
    expect(ids.length).toBe(entries);
  });
});

describe("webhooks of every type", () => {
  it("deliver each event once by id, signed, with the feed's record as its body byte for byte", async () => {
    const admin = await makeAdmin();
    const user = await makeUser();
    const other = await makeUser();
    const wallet = await storingMore(1);
    const hook = await subscribeWebhook(
      admin,
      "transaction.created,hold.placed,hold.captured,hold.voided,batch.completed,batch.reversed,user.created,wallet.created",
    );
    const key = (await makeKey(admin, "read-write")).header;
    await credit(admin, { user_id: user.id, wallet_id: wallet, amount: "50.55" });
    const hold = await call("POST", "/holds", {
      auth: key,
      body: { user_id: user.id, wallet_id: wallet, amount: "3.33", request_id: unique("h") },
    });
    await call("POST", `/holds/${hold.body.data.hold_id}/capture`, {
      auth: key,
      body: { amount: "1.11" },
    });
    const h2 = await call("POST", "/holds", {
      auth: key,
      body: { user_id: user.id, wallet_id: wallet, amount: "1", request_id: unique("h") },
    });
    await call("POST", `/holds/${h2.body.data.hold_id}/void`, { auth: key });
    const batch = await call("POST", "/batches", {
      auth: admin.bearer,
      body: {
        request_id: unique("b"),
        operations: [
          {
            type: "transfer",
            from_user_id: user.id,
            to_user_id: other.id,
            wallet_id: wallet,
            amount: "7.77",
          },
        ],
      },
    });
    await call("POST", `/batches/${batch.body.data.batch_id}/reverse`, { auth: admin.bearer });
    await makeUser();
    const expected = await feedAfter(admin, hook.last_event_id);
    expect(expected.length).toBeGreaterThan(10);

    // A receiver that fails each event's first attempt, and counts what it accepted.
    const tries = new Map<string, number>();
    const accepted: { id: string; body: string; headers: Record<string, string> }[] = [];
    const outbound: Outbound = async (_url, init) => {
      const headers = Object.fromEntries(new Headers(init.headers).entries());
      const id = headers["webhook-id"]!;
      tries.set(id, (tries.get(id) ?? 0) + 1);
      if (tries.get(id) === 1) return new Response(null, { status: 503 });
      accepted.push({ id, body: String(init.body), headers });
      return new Response(null, { status: 204 });
    };
    let now = Date.now();
    const deps = pumpDeps(outbound, () => now);
    for (let round = 0; round < 100; round++) {
      const r = await pumpEndpoint(deps, hook.id);
      if (r.kind === "idle") break;
      if (r.kind === "retry") now += r.delayS * 1000;
    }
    const mine = expected.filter((e) => e.type !== "hold.expired");
    expect(accepted.map((d) => d.id)).toEqual(mine.map((e) => String(e.id)));
    const verifier = new Webhook(hook.secret);
    for (const [i, d] of accepted.entries()) {
      // The test's clock ran ahead through the back-offs: the signature as of its own timestamp.
      const at = new Date(Number(d.headers["webhook-timestamp"]) * 1000);
      expect(d.headers["webhook-signature"]).toBe(verifier.sign(d.id, at, d.body));
      expect(JSON.parse(d.body)).toStrictEqual(mine[i]);
      expect(d.body).toBe(JSON.stringify(mine[i]));
    }
  });
});

describe("group-committed credits one of which passes the largest balance", () => {
  it("write one event per credit written and none for the refused one", async () => {
    const admin = await makeAdmin();
    const users = [await makeUser(), await makeUser(), await makeUser()];
    const wallet = await storingMore(1);
    // users[0] is a cent short of the largest balance a wallet holds.
    const full = await credit(admin, {
      user_id: users[0]!.id,
      wallet_id: wallet,
      amount: "999999999999.99",
    });
    const from = await newestEvent();
    const fromEntry = await newestEntry();
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        credit(admin, { user_id: users[i % 3]!.id, wallet_id: wallet, amount: "0.05" }),
      ),
    );
    const written = answers.filter((a) => a.status === 200);
    expect(answers.length - written.length, JSON.stringify(full.body)).toBeGreaterThan(0);
    const events = await feedAfter(admin, from);
    const ids = written.map((a) => a.body.data.transaction_id as number).sort((a, b) => a - b);
    expect(await entriesAfter(fromEntry)).toEqual(ids);
    await expectEntriesAgree(admin, events, ids);
    expect(events.length).toBe(ids.length);
  });
});

describe("a wallet the import made, storing more places", () => {
  it("has a wallet.created event that is GET /wallets/{id}'s record", async () => {
    const admin = await makeAdmin();
    const from = await newestEvent();
    const wallet = await storingMore(2);
    const events = await feedAfter(admin, from);
    expect(events.map((e) => e.type)).toEqual(["wallet.created"]);
    expect(events[0]!.data).toStrictEqual(await read(admin, `/wallets/${wallet}`));
  });
});

describe("reversals' links", () => {
  it("pair each reversal entry with the entry it reverses, as the answer lists them, across two wallets too", async () => {
    const admin = await makeAdmin();
    const [a, b] = [await makeUser(), await makeUser()];
    const [w1, w2] = [await storingMore(1), await storingMore(2)];
    const atS = Math.floor(Date.now() / 1000) - 60;
    const link = unique("two");
    await importedEntry(a.id, w1, "CREDIT", 100_000, "100", 0, atS);
    await importedEntry(a.id, w1, "DEBIT", 12_345, "12.345", 100_000, atS, { transferId: link });
    await importedEntry(b.id, w2, "CREDIT", 123_450, "12.3450", 0, atS, { transferId: link });
    const [debitHalf, creditHalf] = (
      await env.DB.prepare("SELECT id FROM transactions WHERE transfer_id = ? ORDER BY id")
        .bind(link)
        .all<{ id: number }>()
    ).results.map((r) => r.id) as [number, number];
    const from = await newestEvent();
    const rev = await call("POST", `/transactions/${creditHalf}/reverse`, {
      auth: admin.bearer,
      body: { request_id: unique("r") },
    });
    expect(rev.status, rev.text).toBe(200);
    expect(rev.body.data.reversed_transaction_ids).toEqual([creditHalf, debitHalf]);
    const events = await feedAfter(admin, from);
    await expectEntriesAgree(admin, events, rev.body.data.transaction_ids);
    expect(events.map((e) => [e.data.txn_type, e.data.amount, e.data.wallet_decimal])).toEqual([
      ["DEBIT", "12.3450", 2],
      ["CREDIT", "12.345", 2],
    ]);
    const links = async (ids: number[]) =>
      (
        await env.DB.prepare(
          `SELECT id, reverses_id FROM transactions WHERE id IN (${ids.join(",")}) ORDER BY id`,
        ).all<{ id: number; reverses_id: number }>()
      ).results;
    expect(await links(rev.body.data.transaction_ids)).toEqual(
      rev.body.data.transaction_ids.map((id: number, i: number) => ({
        id,
        reverses_id: rev.body.data.reversed_transaction_ids[i],
      })),
    );

    // A batch there and back, reversed: its entries written credit back first, each paired.
    ok(await credit(admin, { user_id: a.id, wallet_id: w1, amount: "5" }));
    const batch = await call("POST", "/batches", {
      auth: admin.bearer,
      body: {
        request_id: unique("b"),
        operations: [
          { type: "transfer", from_user_id: a.id, to_user_id: b.id, wallet_id: w1, amount: "5" },
          { type: "transfer", from_user_id: b.id, to_user_id: a.id, wallet_id: w1, amount: "5" },
        ],
      },
    });
    ok(batch);
    const batchFrom = await newestEvent();
    const undone = await call("POST", `/batches/${batch.body.data.batch_id}/reverse`, {
      auth: admin.bearer,
    });
    ok(undone);
    const batchEvents = await feedAfter(admin, batchFrom);
    await expectEntriesAgree(admin, batchEvents, undone.body.data.transaction_ids);
    expect(batchEvents.map((e) => e.type).at(-1)).toBe("batch.reversed");
    expect(batchEvents.at(-1)!.data).toStrictEqual(
      await read(admin, `/batches/${batch.body.data.batch_id}`),
    );
    expect(await links(undone.body.data.transaction_ids)).toEqual(
      undone.body.data.transaction_ids.map((id: number, i: number) => ({
        id,
        reverses_id: undone.body.data.reversed_transaction_ids[i],
      })),
    );
  });
});
