// The console's forms beside their wallet/v1 twins (src/console/ and src/routes/ call the same
// verbs): for each input, the console refuses exactly when the API refuses, naming the same faults
// in the same order (in its own frame: `Capture refused. …`), and writes nothing then; it succeeds
// exactly when the API succeeds, writing the same thing. Inputs the console reads apart on
// purpose are left out: the ASCII white space around a field is trimmed (docs/console.md), an empty
// capture amount is all of the hold, an empty key username the operator's own.
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { refusalText } from "../src/console/api";
import { ApiError } from "../src/http/errors";
import { consoleOf, form, noticeLeft } from "./console-helpers";
import {
  appAt,
  call,
  credit,
  importedEntry,
  type Json,
  makeUser,
  type Reply,
  type TestUser,
  tableCounts,
  unique,
} from "./helpers";
import { signedInAdmin } from "./surfaces";

const con = consoleOf();
const { request } = con;

let admin: TestUser;
let user: TestUser;
let wallet: string;
let cookie: string;
let csrf: string;

beforeAll(async () => {
  ({ admin, wallet, cookie, csrf } = await signedInAdmin(con));
  user = await makeUser();
  await credit(admin, { user_id: user.id, wallet_id: wallet, amount: "1000.00" });
});

const api = (method: string, path: string, body?: Json) =>
  call(method, path, { auth: admin.bearer, ...(body ? { body } : {}) });

/** A form's fields; one undefined is not sent. */
type Fields = Record<string, string | undefined>;

/** The notice a console form's post left (`ok:…` or `error:…`). */
async function consoleSends(path: string, fields: Fields = {}) {
  const sent = Object.entries(fields).filter((f): f is [string, string] => f[1] !== undefined);
  const res = await request(path, {
    method: "POST",
    cookie,
    body: form({ _csrf: csrf, ...Object.fromEntries(sent) }),
  });
  expect(res.status, res.html.slice(0, 300)).toBe(303);
  return noticeLeft(res);
}

/** What the console says of a refusal the API answered: its frame, then the API's words. */
const refusedAs = (what: string, res: Reply) =>
  `error:${what} refused. ${refusalText(new ApiError(400, res.body.message, res.body.error))}`;

/**
 * The API's answer on a target made for it, then the console's on the same target when the API
 * refused (nothing written, so the target is unchanged), else on a twin made alike.
 */
async function twins<T>(
  make: () => Promise<T>,
  viaApi: (target: T) => Promise<Reply>,
  viaConsole: (target: T) => Promise<string>,
) {
  const target = await make();
  const before = await tableCounts();
  const apiSaid = await viaApi(target);
  if (apiSaid.status >= 400) {
    expect(await tableCounts(), apiSaid.text).toEqual(before);
    const consoleSaid = await viaConsole(target);
    expect(await tableCounts(), consoleSaid).toEqual(before);
    return { apiSaid, consoleSaid, target, twin: target };
  }
  const twin = await make();
  const consoleSaid = await viaConsole(twin);
  return { apiSaid, consoleSaid, target, twin };
}

describe("capturing and voiding a hold", () => {
  /** A hold of `amount`, placed now, or placed two minutes ago to last a second (expired). */
  async function placed(amount = "20.00", expired = false) {
    const res = await call("POST", "/holds", {
      auth: admin.bearer,
      app: expired ? appAt(Date.now() - 120_000) : undefined,
      body: {
        user_id: user.id,
        wallet_id: wallet,
        amount,
        request_id: unique("h"),
        expires_in: expired ? 1 : 3600,
      },
    });
    expect(res.status, res.text).toBe(200);
    return res.body.data.hold_id as number;
  }
  const heldRow = (id: number) =>
    env.DB.prepare(
      `SELECT h.status, h.captured_minor, t.amount_minor, t.txn_type, t.note
         FROM holds h LEFT JOIN transactions t ON t.hold_id = h.id WHERE h.id = ?`,
    )
      .bind(id)
      .first<Json>();
  const page = (id: number) => `/users/${user.id}/holds/${id}`;

  it.each([
    ["all of it", undefined],
    ["part", "5"],
    ["part, places as the wallet's", "5.50"],
    ["all, named", "20.00"],
    ["more than held", "20.01"],
    ["zero", "0"],
    ["zero, with places", "0.00"],
    ["not a number", "abc"],
    ["too many places", "1.001"],
    ["a sign", "-1"],
    ["an exponent", "1e1"],
    ["a thousands separator", "1,000"],
    ["a symbol", "₦5"],
    ["digits past the longest amount", "1".repeat(40)],
  ])("captures %s (%s) as the API does", async (_, amount) => {
    const { apiSaid, consoleSaid, target, twin } = await twins(
      () => placed(),
      (id) => api("POST", `/holds/${id}/capture`, amount === undefined ? {} : { amount }),
      (id) => consoleSends(`${page(id)}/capture`, amount === undefined ? {} : { amount }),
    );
    if (apiSaid.status >= 400) return expect(consoleSaid).toBe(refusedAs("Capture", apiSaid));
    expect(consoleSaid).toMatch(/^ok:Hold \d+ captured/);
    const [a, b] = [await heldRow(target), await heldRow(twin)];
    expect({ ...b, note: b?.note.replace(String(twin), String(target)) }).toEqual(a);
  });

  it.each([
    ["captured", async (id: number) => api("POST", `/holds/${id}/capture`, { amount: "1" })],
    ["voided", async (id: number) => api("POST", `/holds/${id}/void`)],
    ["expired", async () => undefined],
  ])("refuses to capture or void a hold %s as the API does", async (status, resolve) => {
    for (const [action, label] of [
      ["capture", "Capture"],
      ["void", "Void"],
    ] as const)
      for (const amount of [undefined, "1", "50", "abc", "1.001"]) {
        if (action === "void" && amount !== undefined) continue;
        const fields = amount === undefined ? {} : { amount };
        const { apiSaid, consoleSaid } = await twins(
          async () => {
            const id = await placed("20.00", status === "expired");
            await resolve(id);
            return id;
          },
          (id) => api("POST", `/holds/${id}/${action}`, fields),
          (id) => consoleSends(`${page(id)}/${action}`, fields),
        );
        expect(apiSaid.status, `${action} ${amount}: ${apiSaid.text}`).toBeGreaterThanOrEqual(400);
        expect(consoleSaid, `${action} ${amount}`).toBe(refusedAs(label, apiSaid));
      }
  });

  it("refuses a hold that does not exist as the API does", async () => {
    for (const [action, label] of [
      ["capture", "Capture"],
      ["void", "Void"],
    ] as const)
      for (const fields of [{}, { amount: "1" }, { amount: "abc" }]) {
        const { apiSaid, consoleSaid } = await twins(
          async () => 987_654_321,
          (id) => api("POST", `/holds/${id}/${action}`, fields),
          (id) => consoleSends(`${page(id)}/${action}`, fields),
        );
        if (action === "void" && "amount" in fields) continue;
        expect(consoleSaid, `${action} ${JSON.stringify(fields)}`).toBe(refusedAs(label, apiSaid));
      }
  });

  it("voids a hold as the API does", async () => {
    const { apiSaid, consoleSaid, target, twin } = await twins(
      () => placed(),
      (id) => api("POST", `/holds/${id}/void`),
      (id) => consoleSends(`${page(id)}/void`),
    );
    expect(apiSaid.status).toBe(200);
    expect(consoleSaid).toBe(`ok:Hold ${twin} voided: all of it released.`);
    expect(await heldRow(twin)).toEqual(await heldRow(target));
  });
});

describe("reversing a transaction", () => {
  /** A user of its own, credited `amount` (an entry to reverse), and what `then` does to it. */
  async function credited(
    amount = "10.00",
    then?: (txn: number, userId: number) => Promise<unknown>,
  ) {
    const owner = await makeUser();
    const res = await credit(admin, { user_id: owner.id, wallet_id: wallet, amount });
    const txn = res.body.data.transaction_id as number;
    await then?.(txn, owner.id);
    return { userId: owner.id, txn };
  }
  const reverseViaApi = (t: { txn: number }, fields: Json = {}) =>
    api("POST", `/transactions/${t.txn}/reverse`, { request_id: unique("r"), ...fields });
  const reverseViaConsole = (t: { userId: number; txn: number }, fields: Fields = {}) =>
    consoleSends(`/users/${t.userId}/reverse/${t.txn}`, {
      request_id: unique("console-"),
      ...fields,
    });
  /** The entries a reversal wrote, as the ledger holds them, named apart from their ids. */
  const reversalOf = (txn: number) =>
    env.DB.prepare(
      `SELECT txn_type, amount_minor, wallet_id, note, balance_after_minor, transfer_id IS NOT NULL AS transfer
         FROM transactions WHERE reverses_id = ? ORDER BY id`,
    )
      .bind(txn)
      .all<Json>()
      .then((r) => r.results);

  it.each([
    ["a credit", {}],
    ["a credit, with a note", { note: "refund" }],
    ["a credit, with the longest note", { note: "n".repeat(1000) }],
  ])("reverses %s as the API does", async (_, fields) => {
    const { apiSaid, consoleSaid, target, twin } = await twins(
      () => credited(),
      (t) => reverseViaApi(t, fields),
      (t) => reverseViaConsole(t, fields),
    );
    expect(apiSaid.status, apiSaid.text).toBe(200);
    expect(consoleSaid).toBe(`ok:Transaction ${twin.txn} reversed.`);
    const named = (rows: Json[], txn: number) =>
      rows.map((r) => ({ ...r, note: r.note.replace(String(txn), "<id>") }));
    expect(named(await reversalOf(twin.txn), twin.txn)).toEqual(
      named(await reversalOf(target.txn), target.txn),
    );
  });

  it("reverses a transfer, both halves, as the API does", async () => {
    const { apiSaid, consoleSaid, target, twin } = await twins(
      async () => {
        const [from, to] = [await makeUser(), await makeUser()];
        await credit(admin, { user_id: from.id, wallet_id: wallet, amount: "10.00" });
        const res = await api("POST", "/transfers", {
          from_user_id: from.id,
          to_user_id: to.id,
          wallet_id: wallet,
          amount: "4.00",
          request_id: unique("t"),
        });
        expect(res.status, res.text).toBe(200);
        return { userId: from.id, txn: res.body.data.debit_transaction_id as number };
      },
      (t) => reverseViaApi(t),
      (t) => reverseViaConsole(t),
    );
    expect(apiSaid.status, apiSaid.text).toBe(200);
    expect(consoleSaid).toBe(`ok:Transaction ${twin.txn} reversed.`);
    const count = async (t: { txn: number }) =>
      (await env.DB.prepare("SELECT count(*) AS n FROM transactions WHERE reverses_id IN (?, ?)")
        .bind(t.txn, t.txn + 1)
        .first<{ n: number }>())!.n;
    expect(await count(twin)).toBe(await count(target));
    expect(await count(twin)).toBe(2);
  });

  it.each([
    ["already reversed", (txn: number) => reverseViaApi({ txn })],
    [
      "taken back by a debit (insufficient balance)",
      (_txn: number, userId: number) =>
        api("POST", "/debits", {
          user_id: userId,
          wallet_id: wallet,
          amount: "6.00",
          request_id: unique("d"),
        }),
    ],
  ])("refuses a transaction %s as the API does", async (_, then) => {
    for (const fields of [{}, { note: "n".repeat(1001) }]) {
      const { apiSaid, consoleSaid } = await twins(
        () => credited("10.00", then),
        (t) => reverseViaApi(t, fields),
        (t) => reverseViaConsole(t, fields),
      );
      expect(apiSaid.status, apiSaid.text).toBeGreaterThanOrEqual(400);
      expect(consoleSaid).toBe(refusedAs("Reversal", apiSaid));
    }
  });

  it("refuses a reversal, an imported zero entry and an unknown transaction as the API does", async () => {
    const reversal = async () => {
      const t = await credited();
      const res = await reverseViaApi(t);
      return { userId: t.userId, txn: res.body.data.transaction_ids[0] as number };
    };
    const zero = async () => {
      const owner = await makeUser();
      await importedEntry(owner.id, wallet, "CREDIT", 0, "0.00", 0, 1_700_000_000);
      const row = await env.DB.prepare("SELECT max(id) AS id FROM transactions WHERE user_id = ?")
        .bind(owner.id)
        .first<{ id: number }>();
      return { userId: owner.id, txn: row!.id };
    };
    const unknown = async () => ({ userId: user.id, txn: 987_654_321 });
    for (const [label, make] of [
      ["a reversal", reversal],
      ["a zero", zero],
      ["unknown", unknown],
    ] as const)
      for (const fields of [{}, { note: "n".repeat(1001) }]) {
        const { apiSaid, consoleSaid } = await twins(
          make,
          (t) => reverseViaApi(t, fields),
          (t) => reverseViaConsole(t, fields),
        );
        expect(apiSaid.status, `${label}: ${apiSaid.text}`).toBeGreaterThanOrEqual(400);
        expect(consoleSaid, label).toBe(refusedAs("Reversal", apiSaid));
      }
  });
});

describe("reversing a batch", () => {
  /** A batch crediting two users of its own, and what `then` does to it. */
  async function batch(
    then?: (b: { id: number; legs: number[]; users: number[] }) => Promise<unknown>,
  ) {
    const users = [(await makeUser()).id, (await makeUser()).id];
    const res = await api("POST", "/batches", {
      request_id: unique("b"),
      operations: users.map((user_id, i) => ({
        type: "credit",
        user_id,
        wallet_id: wallet,
        amount: `${i + 2}.00`,
      })),
    });
    expect(res.status, res.text).toBe(200);
    const b = { id: res.body.data.batch_id as number, legs: res.body.data.transaction_ids, users };
    await then?.(b);
    return b;
  }
  const viaApi = (b: { id: number }, fields: Json = {}) =>
    api("POST", `/batches/${b.id}/reverse`, fields);
  const viaConsole = (b: { id: number }, fields: Fields = {}) =>
    consoleSends(`/batches/${b.id}/reverse`, fields);

  /** The legs a batch's reversal wrote, named apart from their ids. */
  const legsReversing = async (b: { legs: number[] }) =>
    (
      await env.DB.prepare(
        `SELECT r.txn_type, r.amount_minor, r.note, t.id AS reverses
           FROM transactions r JOIN transactions t ON t.id = r.reverses_id
          WHERE r.reverses_id IN (?, ?) ORDER BY r.id`,
      )
        .bind(...b.legs)
        .all<Json>()
    ).results.map(({ reverses, ...r }) => ({
      ...r,
      leg: b.legs.indexOf(reverses),
      note: r.note.replace(String(reverses), "<id>"),
    }));

  it("reverses a batch as the API does", async () => {
    for (const fields of [{}, { note: "undo" }]) {
      const { apiSaid, consoleSaid, target, twin } = await twins(
        () => batch(),
        (b) => viaApi(b, fields),
        (b) => viaConsole(b, fields),
      );
      expect(apiSaid.status, apiSaid.text).toBe(200);
      expect(consoleSaid).toBe(`ok:Batch ${twin.id} reversed.`);
      expect(await legsReversing(twin)).toEqual(await legsReversing(target));
      expect(await legsReversing(twin)).toHaveLength(2);
    }
  });

  it.each([
    ["already reversed", (b: { id: number }) => viaApi(b)],
    [
      "with a leg reversed alone",
      (b: { legs: number[] }) =>
        api("POST", `/transactions/${b.legs[1]}/reverse`, { request_id: unique("r") }),
    ],
    [
      "whose money was taken back (insufficient balance)",
      (b: { users: number[] }) =>
        api("POST", "/debits", {
          user_id: b.users[0],
          wallet_id: wallet,
          amount: "2.00",
          request_id: unique("d"),
        }),
    ],
  ])("refuses a batch %s as the API does", async (_, then) => {
    for (const fields of [{}, { note: "n".repeat(1001) }]) {
      const { apiSaid, consoleSaid } = await twins(
        () => batch(then),
        (b) => viaApi(b, fields),
        (b) => viaConsole(b, fields),
      );
      expect(apiSaid.status, apiSaid.text).toBeGreaterThanOrEqual(400);
      expect(consoleSaid).toBe(refusedAs("Reversal", apiSaid));
    }
  });

  it("refuses a reversal batch and an unknown batch as the API does", async () => {
    const reversalBatch = async () => {
      const b = await batch();
      const res = await viaApi(b);
      return { id: res.body.data.reversal_batch_id as number };
    };
    for (const make of [reversalBatch, async () => ({ id: 987_654_321 })])
      for (const fields of [{}, { note: "n".repeat(1001) }]) {
        const { apiSaid, consoleSaid } = await twins(
          make,
          (b) => viaApi(b, fields),
          (b) => viaConsole(b, fields),
        );
        expect(apiSaid.status, apiSaid.text).toBeGreaterThanOrEqual(400);
        expect(consoleSaid).toBe(refusedAs("Reversal", apiSaid));
      }
  });
});

describe("making and revoking an API key", () => {
  const newest = () =>
    env.DB.prepare(
      "SELECT user_id, name, scope, revoked_at_ms IS NOT NULL AS revoked FROM api_keys ORDER BY id DESC LIMIT 1",
    ).first<Json>();
  let owner: TestUser;
  beforeAll(async () => {
    owner = await makeUser();
  });

  it.each<[string, Record<string, string>]>([
    ["the operator's own", { name: "k", scope: "read" }],
    ["another user's", { name: "k", scope: "write", username: "<owner>" }],
    [
      "another user's, the username in capitals",
      { name: "k", scope: "read-write", username: "<OWNER>" },
    ],
    ["the longest name", { name: "n".repeat(100), scope: "read" }],
    ["a name too long", { name: "n".repeat(101), scope: "read" }],
    ["a name with an override", { name: "a\u202eb", scope: "read" }],
    ["a name with a zero-width space", { name: "a\u200bb", scope: "read" }],
    ["no name", { name: "", scope: "read" }],
    ["no scope", { name: "k", scope: "" }],
    ["a scope that is none", { name: "k", scope: "admin" }],
    ["a scope in capitals", { name: "k", scope: "READ" }],
    ["an unknown user", { name: "k", scope: "read", username: "nobody-at-all" }],
    ["a username too long", { name: "k", scope: "read", username: "u".repeat(61) }],
    ["every field refused", { name: "", scope: "x", username: "nobody-at-all" }],
    [
      "a name and a scope refused, an unknown user",
      { name: "\u202e", scope: "x", username: "u".repeat(61) },
    ],
  ])("makes a key for %s as the API does", async (_, sent) => {
    const fields = Object.fromEntries(
      Object.entries(sent).map(([k, v]) => [
        k,
        v.replace("<owner>", owner.username).replace("<OWNER>", owner.username.toUpperCase()),
      ]),
    );
    const { apiSaid, consoleSaid } = await twins(
      async () => fields,
      (f) => api("POST", "/api-keys", f),
      async (f) => {
        const said = await consoleSends("/api-keys", f);
        return said.startsWith("ok:") ? `${said}|${JSON.stringify(await newest())}` : said;
      },
    );
    if (apiSaid.status >= 400) {
      const expected =
        apiSaid.status === 404
          ? `error:New API key refused. No user ${fields.username}.`
          : refusedAs("New API key", apiSaid);
      return expect(consoleSaid).toBe(expected);
    }
    const made = await env.DB.prepare(
      "SELECT user_id, name, scope, revoked_at_ms IS NOT NULL AS revoked FROM api_keys WHERE id = ?",
    )
      .bind(apiSaid.body.data.id)
      .first<Json>();
    expect(consoleSaid).toMatch(/^ok:Key created for /);
    expect(JSON.parse(consoleSaid.split("|")[1]!)).toEqual(made);
  });

  it("revokes a key as the API does, a revoked one too, and refuses an unknown one", async () => {
    const key = async () => {
      const res = await api("POST", "/api-keys", { name: "to revoke", scope: "read" });
      return res.body.data.id as number;
    };
    for (const make of [
      key,
      async () => {
        const id = await key();
        await api("DELETE", `/api-keys/${id}`);
        return id;
      },
      async () => 987_654_321,
    ]) {
      const { apiSaid, consoleSaid, twin } = await twins(
        make,
        (id) => api("DELETE", `/api-keys/${id}`),
        (id) => consoleSends(`/api-keys/${id}/revoke`),
      );
      if (apiSaid.status >= 400) expect(consoleSaid).toBe(refusedAs("Revocation", apiSaid));
      else expect(consoleSaid).toBe(`ok:Key ${twin} revoked.`);
    }
  });
});

describe("making and deleting a webhook", () => {
  const stored = (id: number) =>
    env.DB.prepare("SELECT url, description, event_types FROM webhook_endpoints WHERE id = ?")
      .bind(id)
      .first<Json>();
  const url = "https://hooks.example.com/in";

  it.each<[string, Record<string, string>]>([
    ["one event", { url, events: "transaction.created" }],
    ["two events, spaced", { url, events: " transaction.created , wallet.created " }],
    ["an event twice, a blank", { url, events: "transaction.created,,transaction.created" }],
    ["a description", { url, events: "transaction.created", description: "ours" }],
    [
      "the longest description",
      { url, events: "transaction.created", description: "d".repeat(500) },
    ],
    [
      "a description too long",
      { url, events: "transaction.created", description: "d".repeat(501) },
    ],
    [
      "a description with an override",
      { url, events: "transaction.created", description: "a\u202eb" },
    ],
    ["no events", { url, events: "" }],
    ["an event that is none", { url, events: "transaction.made" }],
    ["events of commas alone", { url, events: ",," }],
    ["no url", { url: "", events: "transaction.created" }],
    ["an ftp url", { url: "ftp://hooks.example.com/x", events: "transaction.created" }],
    ["an http url", { url: "http://hooks.example.com/x", events: "transaction.created" }],
    ["a loopback url", { url: "https://127.0.0.1/x", events: "transaction.created" }],
    [
      "a url with a password",
      { url: "https://u:p@hooks.example.com/x", events: "transaction.created" },
    ],
    [
      "a url with a fragment",
      { url: "https://hooks.example.com/x#f", events: "transaction.created" },
    ],
    ["no url at all", { url: "hooks", events: "transaction.created" }],
    [
      "a url too long",
      { url: `https://hooks.example.com/${"x".repeat(2100)}`, events: "transaction.created" },
    ],
    ["a url and events refused", { url: "ftp://x", events: "nope" }],
    [
      "a url and a description refused",
      { url: "ftp://x", events: "wallet.created", description: "a\u202eb" },
    ],
    ["every field refused", { url: "", events: "", description: "d".repeat(501) }],
  ])("makes a webhook with %s as the API does", async (_, fields) => {
    const { apiSaid, consoleSaid } = await twins(
      async () => fields,
      (f) => api("POST", "/webhooks", f),
      (f) => consoleSends("/webhooks", f),
    );
    if (apiSaid.status >= 400) return expect(consoleSaid).toBe(refusedAs("New webhook", apiSaid));
    const id = Number(/^ok:Webhook (\d+) created\.$/.exec(consoleSaid)?.[1]);
    expect(await stored(id)).toEqual(await stored(apiSaid.body.data.id));
  });

  it("deletes a webhook as the API does, and refuses one deleted or unknown", async () => {
    const made = async () => {
      const res = await api("POST", "/webhooks", { url, events: "transaction.created" });
      return res.body.data.id as number;
    };
    for (const make of [
      made,
      async () => {
        const id = await made();
        await api("DELETE", `/webhooks/${id}`);
        return id;
      },
      async () => 987_654_321,
    ]) {
      const { apiSaid, consoleSaid, twin } = await twins(
        make,
        (id) => api("DELETE", `/webhooks/${id}`),
        (id) => consoleSends(`/webhooks/${id}/delete`),
      );
      if (apiSaid.status >= 400) expect(consoleSaid).toBe(refusedAs("Deletion", apiSaid));
      else {
        expect(consoleSaid).toBe(`ok:Webhook ${twin} deleted.`);
        expect(await stored(twin)).toBeNull();
      }
    }
  });
});

describe("sending a webhook an event again", () => {
  it("refuses an event id or a webhook as the API does", async () => {
    const made = await api("POST", "/webhooks", {
      url: "https://hooks.example.com/again",
      events: "transaction.created",
    });
    for (const hook of [made.body.data.id as number, 987_654_321])
      for (const eventId of ["", "abc", "-1", "1e3", "1.0", "987654321"]) {
        const { apiSaid, consoleSaid } = await twins(
          async () => hook,
          (id) => api("POST", `/webhooks/${id}/resend`, { event_id: eventId }),
          (id) => consoleSends(`/webhooks/${id}/resend`, { event_id: eventId }),
        );
        expect(apiSaid.status, `${hook} ${eventId}: ${apiSaid.text}`).toBeGreaterThanOrEqual(400);
        expect(consoleSaid, `${hook} ${eventId}`).toBe(refusedAs("Resend", apiSaid));
      }
  });
});

describe("signing a user out everywhere", () => {
  it("signs a user out as the API does, and refuses an unknown user", async () => {
    const { apiSaid, consoleSaid, twin } = await twins(
      async () => (await makeUser()).id,
      (id) => api("POST", `/users/${id}/sessions/revoke`),
      (id) => consoleSends(`/users/${id}/sessions/revoke`),
    );
    expect(apiSaid.status).toBe(200);
    const { revoked } = apiSaid.body.data;
    expect(consoleSaid).toBe(
      `ok:Signed out everywhere: ${revoked} session${revoked === 1 ? "" : "s"} ended.`,
    );
    expect(twin).not.toBe(apiSaid.body.data.user_id);
    const unknown = await twins(
      async () => 987_654_321,
      (id) => api("POST", `/users/${id}/sessions/revoke`),
      (id) => consoleSends(`/users/${id}/sessions/revoke`),
    );
    expect(unknown.apiSaid.status).toBe(404);
    expect(unknown.consoleSaid).toBe("error:Sign-out refused. No user 987654321.");
  });
});

describe("making a user and a wallet", () => {
  it.each<[string, Record<string, string>]>([
    [
      "a new user",
      { username: "<new>", user_email: "<new>@example.com", user_password: "pw-123456" },
    ],
    [
      "a username too short",
      { username: "abc", user_email: "<new>@example.com", user_password: "x" },
    ],
    [
      "a username taken",
      { username: "<taken>", user_email: "<new>@example.com", user_password: "x" },
    ],
    ["an e-mail taken", { username: "<new>", user_email: "<taken-email>", user_password: "x" }],
    ["an e-mail that is none", { username: "<new>", user_email: "nope", user_password: "x" }],
    ["no password", { username: "<new>", user_email: "<new>@example.com", user_password: "" }],
    [
      "a username with a space",
      { username: "a b c d", user_email: "<new>@example.com", user_password: "x" },
    ],
    [
      "a username of another's e-mail",
      { username: "x<new>@example.com", user_email: "<new>@example.com", user_password: "x" },
    ],
    ["every field refused", { username: "", user_email: "", user_password: "" }],
  ])("makes %s as the API does", async (_, sent) => {
    const taken = await makeUser();
    const fields = () => {
      const fresh = unique("u").toLowerCase();
      return Object.fromEntries(
        Object.entries(sent).map(([k, v]) => [
          k,
          v
            .replaceAll("<new>", fresh)
            .replace("<taken>", taken.username)
            .replace("<taken-email>", taken.email),
        ]),
      );
    };
    const { apiSaid, consoleSaid } = await twins(
      async () => fields(),
      (f) => api("POST", "/users", f),
      (f) => consoleSends("/users", f),
    );
    if (apiSaid.status >= 400) return expect(consoleSaid).toBe(refusedAs("New user", apiSaid));
    expect(consoleSaid).toBe("ok:User created.");
  });

  it.each<[string, Record<string, string>]>([
    [
      "a new wallet",
      {
        wallet_name: "Cedi",
        wallet_symbol: "₵",
        wallet_symbol_position: "left",
        wallet_decimal: "2",
      },
    ],
    [
      "a wallet id taken",
      {
        wallet_id: "<taken>",
        wallet_name: "Cedi",
        wallet_symbol: "₵",
        wallet_symbol_position: "left",
        wallet_decimal: "2",
      },
    ],
    [
      "a wallet id that is none",
      {
        wallet_id: "a b",
        wallet_name: "Cedi",
        wallet_symbol: "₵",
        wallet_symbol_position: "left",
        wallet_decimal: "2",
      },
    ],
    [
      "a reserved id",
      {
        wallet_id: "formatted",
        wallet_name: "Cedi",
        wallet_symbol: "₵",
        wallet_symbol_position: "left",
        wallet_decimal: "2",
      },
    ],
    [
      "a symbol ending in a digit",
      {
        wallet_name: "Cedi",
        wallet_symbol: "C1",
        wallet_symbol_position: "left",
        wallet_decimal: "2",
      },
    ],
    [
      "a name with an override",
      {
        wallet_name: "a\u202eb",
        wallet_symbol: "₵",
        wallet_symbol_position: "left",
        wallet_decimal: "2",
      },
    ],
    [
      "too many decimals",
      {
        wallet_name: "Cedi",
        wallet_symbol: "₵",
        wallet_symbol_position: "left",
        wallet_decimal: "99",
      },
    ],
    [
      "no decimals",
      {
        wallet_name: "Cedi",
        wallet_symbol: "₵",
        wallet_symbol_position: "right",
        wallet_decimal: "",
      },
    ],
    [
      "a position that is none",
      {
        wallet_name: "Cedi",
        wallet_symbol: "₵",
        wallet_symbol_position: "up",
        wallet_decimal: "2",
      },
    ],
    [
      "every field refused",
      {
        wallet_id: "",
        wallet_name: "",
        wallet_symbol: "",
        wallet_symbol_position: "",
        wallet_decimal: "",
      },
    ],
  ])("makes %s as the API does", async (_, sent) => {
    const fields = () => ({
      wallet_id: unique("w").toLowerCase().slice(0, 20),
      ...Object.fromEntries(
        Object.entries(sent).map(([k, v]) => [k, v.replace("<taken>", wallet)]),
      ),
    });
    const { apiSaid, consoleSaid } = await twins(
      async () => fields(),
      (f) => api("POST", "/wallets", f),
      (f) => consoleSends("/wallets", f),
    );
    if (apiSaid.status >= 400) return expect(consoleSaid).toBe(refusedAs("New wallet", apiSaid));
    expect(consoleSaid).toMatch(/^ok:Wallet \S+ created\.$/);
  });
});
