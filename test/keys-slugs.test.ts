// Idempotency keys fold ASCII letters only and refuse surrounding whitespace; slugs and guids are
// unique as wp_unique_post_slug keeps them. drizzle/0005 holds the
// database's half: UNIQUE indexes, the key-fold trigger, and the repair of rows written before.
import { env } from "cloudflare:workers";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { asciiLower } from "../src/ledger/request-key";
import {
  alreadyExists,
  appAt,
  CLEAN,
  call,
  credit,
  debit,
  ledgerViolations,
  makeAccount,
  makeUser,
  tableCounts,
  unique,
} from "./helpers";

const invalid = (text: string) => ({
  status_code: 400,
  status: false,
  message: "invalid input",
  error: { request_id: text },
});
const WHITESPACE = "request_id must not begin or end with whitespace";

const COLUMNS = `user_id, wallet_id, txn_type, amount_minor, amount_text, balance_before_minor, balance_after_minor,
  request_id, request_key, note, title, slug_base, slug, created_at_s, guid`;

/** A row written straight to D1, as an import or an operator's script would: a first credit of 1. */
function rawEntry(
  userId: number,
  walletId: string,
  fields: { slug: string; guid?: string | null; requestId?: string; requestKey?: string | null },
) {
  return env.DB.prepare(
    `INSERT INTO transactions (${COLUMNS}) VALUES (?, ?, 'CREDIT', 1, '0.01', 0, 1, ?, ?, '', 't', ?, ?, 0, ?)`,
  )
    .bind(
      userId,
      walletId,
      fields.requestId ?? "",
      fields.requestKey ?? null,
      fields.slug,
      fields.slug,
      fields.guid ?? null,
    )
    .run();
}

const slugOf = async (id: number) =>
  (await env.DB.prepare(`SELECT slug FROM transactions WHERE id = ?`)
    .bind(id)
    .first<{ slug: string }>())!.slug;

describe("idempotency keys compare ASCII letters case-insensitively and everything else exactly", () => {
  it("the same request_id in other ASCII case is the same key: 409 naming the first entry", async () => {
    const { admin, user, wallet } = await makeAccount();
    const id = unique("Order-");
    const first = await credit(admin, {
      user_id: user.id,
      wallet_id: wallet,
      amount: 5,
      request_id: id,
    });
    expect(first.status).toBe(200);
    const again = await credit(admin, {
      user_id: user.id,
      wallet_id: wallet,
      amount: 5,
      request_id: id.toUpperCase(),
    });
    expect(again.body).toStrictEqual(alreadyExists(first.body.data.transaction_id));
  });

  // Each pair is one key under full-Unicode lower-casing, so the second credit used to be a 409.
  it.each([
    ["K", "\u212A"], // Latin K, Kelvin sign
    ["\u00E5", "\u212B"], // a-ring, Angstrom sign
    ["i\u0307", "\u0130"], // i + combining dot above, capital I with dot above
    ["\u00DF", "\u1E9E"], // sharp s, capital sharp s
  ])("%s and %s are different keys: both credits land", async (a, b) => {
    const { admin, user, wallet } = await makeAccount();
    const id = unique("kelvin-");
    const first = await credit(admin, {
      user_id: user.id,
      wallet_id: wallet,
      amount: 5,
      request_id: `${id}${a}`,
    });
    const second = await credit(admin, {
      user_id: user.id,
      wallet_id: wallet,
      amount: 7,
      request_id: `${id}${b}`,
    });
    expect([first.status, second.status]).toEqual([200, 200]);
    expect(second.body.data.transaction_id).not.toBe(first.body.data.transaction_id);
    expect(await ledgerViolations()).toEqual(CLEAN);
  });

  // Pure CPU, yet a loaded 2-core machine stalled it past vitest's default 5 s once.
  it("asciiLower changes A-Z only, position by position", { timeout: 30_000 }, () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary" }), (s) => {
        const folded = asciiLower(s);
        expect(folded.length).toBe(s.length);
        for (let i = 0; i < s.length; i++) {
          const [from, to] = [s.charCodeAt(i), folded.charCodeAt(i)];
          expect(to).toBe(from >= 65 && from <= 90 ? from + 32 : from);
        }
      }),
    );
  });

  it.each([" lead", "trail ", "\ttab", "line\n", "\u00A0nbsp", "ideographic\u3000"])(
    "request_id %j is refused with a clear text, and nothing is written",
    async (requestId) => {
      const { admin, user, wallet } = await makeAccount();
      const before = await tableCounts();
      const res = await credit(admin, {
        user_id: user.id,
        wallet_id: wallet,
        amount: 5,
        request_id: requestId,
      });
      expect(res.body).toStrictEqual(invalid(WHITESPACE));
      expect(await tableCounts()).toStrictEqual(before);
    },
  );

  it("a whitespace-only request_id is empty, as the plugin's trimming made it", async () => {
    const { admin, user, wallet } = await makeAccount();
    const res = await credit(admin, {
      user_id: user.id,
      wallet_id: wallet,
      amount: 5,
      request_id: " \t ",
    });
    expect(res.body).toStrictEqual(invalid("Field Cannot be empty"));
  });

  it("debits and transfers apply the same rule", async () => {
    const { admin, user, wallet } = await makeAccount();
    const other = await makeUser();
    expect(
      (await debit(admin, { user_id: user.id, wallet_id: wallet, amount: 1, request_id: "x " }))
        .text,
    ).toContain(WHITESPACE);
    const res = await call("POST", "/transfers", {
      auth: admin.bearer,
      body: {
        from_user_id: user.id,
        to_user_id: other.id,
        wallet_id: wallet,
        amount: 1,
        request_id: " x",
      },
    });
    expect(res.status).toBe(400);
    expect(res.text).toContain(WHITESPACE);
  });

  // A number is read as its text, as `12` is "12": its plain decimal text, whatever the size, the
  // same text the amounts read from a number (JavaScript writes 1e21 and 1e-7 with an exponent).
  it.each([
    ["1000000000000000000000", "1000000000000000000000"],
    ["1e21", "1000000000000000000000"],
    ["12345678901234567890123", "12345678901234567890123"],
    ["1e-7", "0.0000001"],
    ["12", "12"],
  ])("a request_id sent as the number %s is the key %j", async (number, text) => {
    const { admin, user, wallet } = await makeAccount();
    const raw = await call("POST", "/credits", {
      auth: admin.bearer,
      headers: { "Content-Type": "application/json" },
      body: `{"user_id":${user.id},"wallet_id":"${wallet}","amount":"1","request_id":${number}}`,
    });
    expect(raw.status, raw.text).toBe(200);
    const stored = await env.DB.prepare("SELECT request_id FROM transactions WHERE id = ?")
      .bind(raw.body.data.transaction_id)
      .first<{ request_id: string }>();
    expect(stored!.request_id).toBe(text);
    const before = await tableCounts();
    const again = await credit(admin, {
      user_id: user.id,
      wallet_id: wallet,
      amount: 1,
      request_id: text,
    });
    expect(again.body).toStrictEqual(alreadyExists(raw.body.data.transaction_id));
    expect(await tableCounts()).toStrictEqual(before);
  });

  it("the database refuses a key that is not its request_id folded that way", async () => {
    const { user, wallet } = await makeAccount();
    const kelvin = rawEntry(user.id, wallet, {
      slug: unique("s"),
      requestId: "\u212A1",
      requestKey: "k1",
    });
    await expect(kelvin).rejects.toThrow(/transactions_request_key_fold/);
    const upper = rawEntry(user.id, wallet, {
      slug: unique("s"),
      requestId: "AB",
      requestKey: "AB",
    });
    await expect(upper).rejects.toThrow(/transactions_request_key_fold/);
    await rawEntry(user.id, wallet, {
      slug: unique("s"),
      requestId: "A\u212A",
      requestKey: "a\u212A",
    });
    expect(await ledgerViolations()).toEqual(CLEAN);
  });
});

describe("slugs take the first free -N among the actual slugs, as wp_unique_post_slug does", () => {
  it("skips a -N another entry already holds", async () => {
    const { admin, user, wallet } = await makeAccount();
    const app = appAt(Date.UTC(2026, 0, 2, 3, 4, 5));
    const body = { user_id: user.id, wallet_id: wallet, amount: 5 };
    const first = await call("POST", "/credits", {
      app,
      auth: admin.bearer,
      body: { ...body, request_id: unique("r") },
    });
    const base = await slugOf(first.body.data.transaction_id);
    // An entry whose own title made `<base>-2` (here written as an import would).
    await rawEntry((await makeUser()).id, wallet, { slug: `${base}-2` });
    const second = await call("POST", "/credits", {
      app,
      auth: admin.bearer,
      body: { ...body, request_id: unique("r") },
    });
    expect(await slugOf(second.body.data.transaction_id)).toBe(`${base}-3`);
    const third = await call("POST", "/credits", {
      app,
      auth: admin.bearer,
      body: { ...body, request_id: unique("r") },
    });
    expect(await slugOf(third.body.data.transaction_id)).toBe(`${base}-4`);
  });

  it("concurrent entries with one title all get distinct slugs: base, base-2 … base-20", async () => {
    const { admin, user, wallet } = await makeAccount();
    const app = appAt(Date.UTC(2026, 0, 3, 3, 4, 5));
    const replies = await Promise.all(
      Array.from({ length: 20 }, () =>
        call("POST", "/credits", {
          app,
          auth: admin.bearer,
          body: { user_id: user.id, wallet_id: wallet, amount: 5, request_id: unique("r") },
        }),
      ),
    );
    expect(replies.map((r) => r.status)).toEqual(Array(20).fill(200));
    const slugs = await Promise.all(replies.map((r) => slugOf(r.body.data.transaction_id)));
    const base = slugs.reduce((a, b) => (a.length <= b.length ? a : b));
    expect(new Set(slugs)).toEqual(
      new Set([base, ...Array.from({ length: 19 }, (_, i) => `${base}-${i + 2}`)]),
    );
  });

  it("a suffix never pushes a slug past 200 characters", async () => {
    const { admin, wallet } = await makeAccount();
    // A long username makes a title whose slug is cut at 200 characters before any suffix.
    const user = await makeUser("subscriber", `u${"x".repeat(180)}${unique("")}`);
    const app = appAt(Date.UTC(2026, 0, 4, 3, 4, 5));
    const body = { user_id: user.id, wallet_id: wallet, amount: 5 };
    const ids = [];
    for (let i = 0; i < 3; i++)
      ids.push(
        (
          await call("POST", "/credits", {
            app,
            auth: admin.bearer,
            body: { ...body, request_id: unique("r") },
          })
        ).body.data.transaction_id,
      );
    const slugs = await Promise.all(ids.map(slugOf));
    // WordPress cuts the base to 198 characters before `-2`, so the whole stays within 200.
    expect(slugs.map((slug) => slug.length)).toEqual([200, 200, 200]);
    expect(slugs.slice(1)).toEqual([
      `${slugs[0]!.slice(0, 198)}-2`,
      `${slugs[0]!.slice(0, 198)}-3`,
    ]);
  });

  it("the database refuses a second entry with a used slug or guid; empty ones may repeat", async () => {
    const { user, wallet } = await makeAccount();
    const slug = unique("taken-");
    await rawEntry(user.id, wallet, { slug, guid: `https://old.example/?p=${slug}` });
    const other = (await makeUser()).id;
    await expect(rawEntry(other, wallet, { slug })).rejects.toThrow(
      /UNIQUE constraint failed: transactions\.slug/,
    );
    await expect(
      rawEntry(other, wallet, { slug: unique("s"), guid: `https://old.example/?p=${slug}` }),
    ).rejects.toThrow(/UNIQUE constraint failed: transactions\.guid/);
    await rawEntry(other, wallet, { slug: "", guid: "" });
    await rawEntry((await makeUser()).id, wallet, { slug: "", guid: "" });
    expect(await ledgerViolations()).toEqual(CLEAN);
  });
});

describe("drizzle/0005 repairs rows written before it", () => {
  it("keeps each slug and guid on its oldest entry, suffixes later slugs with their id, re-folds keys", async () => {
    const migration = env.TEST_MIGRATIONS.find((m) => m.name.startsWith("0005_"))!;
    // Back to the database as it was before 0005 (its indexes and trigger gone), then rows as the old
    // code wrote them: a repeated slug and guid, and keys lower-cased with full Unicode rules.
    for (const statement of [
      "DROP INDEX transactions_slug",
      "DROP INDEX transactions_guid",
      "DROP TRIGGER transactions_request_key_folded",
    ]) {
      await env.DB.prepare(statement).run();
    }
    const { user, wallet } = await makeAccount();
    const other = await makeUser();
    const slug = unique("dup-");
    const guid = `https://old.example/?p=${slug}`;
    await rawEntry(user.id, wallet, {
      slug,
      guid,
      requestId: "\u212A-ORDER",
      requestKey: "k-order",
    });
    await rawEntry(other.id, wallet, { slug, guid, requestId: "Plain", requestKey: "plain" });
    const ids = (
      await env.DB.prepare(`SELECT id FROM transactions WHERE slug = ? ORDER BY id`)
        .bind(slug)
        .all<{ id: number }>()
    ).results.map((r) => r.id);
    // Without the trigger the migration recreates, every later statement is the migration's own.
    for (const query of migration.queries) await env.DB.prepare(query).run();
    const rows = (
      await env.DB.prepare(
        `SELECT id, slug, guid, request_key FROM transactions WHERE id IN (?, ?) ORDER BY id`,
      )
        .bind(ids[0], ids[1])
        .all()
    ).results;
    expect(rows).toStrictEqual([
      { id: ids[0], slug, guid, request_key: "\u212A-order" },
      { id: ids[1], slug: `${slug}-${ids[1]}`, guid: null, request_key: "plain" },
    ]);
    expect(await ledgerViolations()).toEqual(CLEAN);
  });
});
