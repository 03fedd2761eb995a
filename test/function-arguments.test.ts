// Cloudflare publishes 32 as the most arguments an SQL function call may take in D1 and Durable
// Objects (docs/scaling.md); workerd's SQLite, local D1, allows 127, so a longer call passes every
// other test and only a deployed database would refuse it (at the migration that creates it, or at
// every statement once its schema holds one). Every call in each migration file, in the migrated
// schema and in the statements the service sends is counted here. The entries' events trigger was
// made again within it (drizzle/0030): each event's data is the text the trigger before wrote, byte
// for byte.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { recordingD1 } from "./d1-counter";
import shippedTrigger from "./fixtures/events-of-entry-0028.sql?raw";
import {
  call,
  credit,
  importedEntry,
  type Json,
  makeAdmin,
  makeKey,
  makeUser,
  type Reply,
  type TestUser,
  transfer,
  unique,
} from "./helpers";

const MAX_ARGUMENTS = 32;

/** Words before `(` that open no function call: a list, a subquery, a table's columns. */
const NOT_CALLS = new Set(
  "AND AS BETWEEN BY CASE CHECK DEFAULT DISTINCT ELSE END EXISTS FILTER FROM IN INTO IS JOIN KEY LIKE LIMIT NOT OFFSET ON OR OVER PRIMARY RETURNING SELECT SET THEN UNION UNIQUE USING VALUES WHEN WHERE WITH".split(
    " ",
  ),
);
/** Words after which a name and `(` are a table, index or view and its columns. */
const NAMING = new Set(["TABLE", "INTO", "ON", "INDEX", "REFERENCES", "VIEW", "EXISTS"]);

type Call = { name: string; args: number; at: number };

/**
 * Every function call in `sql` with its number of arguments: quoted strings and names ('…', "…",
 * `…`, […]) and comments are skipped, and a call's arguments are the commas at its own depth + 1.
 */
function functionCalls(sql: string): Call[] {
  const calls: Call[] = [];
  // One frame per open parenthesis: the call it opens (if any), its commas, whether it holds anything.
  const frames: { call: string | null; at: number; commas: number; empty: boolean }[] = [];
  let word: string | null = null; // the bare word just before, if the last token was one
  let before: string | null = null; // the token before that word
  const filled = () => {
    const top = frames.at(-1);
    if (top) top.empty = false;
  };
  for (let i = 0; i < sql.length; ) {
    const c = sql[i]!;
    const quote = c === "[" ? "]" : c;
    if (c === "'" || c === '"' || c === "`" || c === "[") {
      let j = i + 1;
      for (;;) {
        const end = sql.indexOf(quote, j);
        if (end < 0) throw new Error(`unterminated ${c} at ${i}`);
        if (quote !== "]" && sql[end + 1] === quote) j = end + 2;
        else {
          j = end + 1;
          break;
        }
      }
      filled();
      before = word ?? c;
      word = null;
      i = j;
    } else if (sql.startsWith("--", i)) {
      const end = sql.indexOf("\n", i);
      i = end < 0 ? sql.length : end + 1;
    } else if (sql.startsWith("/*", i)) {
      const end = sql.indexOf("*/", i + 2);
      i = end < 0 ? sql.length : end + 2;
    } else if (/\s/.test(c)) {
      i++;
    } else if (/[A-Za-z_]/.test(c)) {
      const name = /^[A-Za-z_][A-Za-z0-9_$]*/.exec(sql.slice(i))![0];
      filled();
      before = word ?? before;
      word = name;
      i += name.length;
    } else {
      if (c === "(") {
        filled();
        const upper = word?.toUpperCase();
        const isCall =
          word !== null && !NOT_CALLS.has(upper!) && !NAMING.has(before?.toUpperCase() ?? "");
        frames.push({ call: isCall ? word : null, at: i, commas: 0, empty: true });
      } else if (c === ")") {
        const frame = frames.pop();
        if (!frame) throw new Error(`unbalanced ) at ${i}`);
        if (frame.call !== null)
          calls.push({
            name: frame.call,
            args: frame.empty ? 0 : frame.commas + 1,
            at: frame.at,
          });
      } else if (c === ",") {
        const top = frames.at(-1);
        if (top) top.commas++;
      } else filled();
      before = c;
      word = null;
      i++;
    }
  }
  if (frames.length > 0) throw new Error("unbalanced (");
  return calls;
}

const over = (sql: string) => functionCalls(sql).filter((c) => c.args > MAX_ARGUMENTS);
const describeCall = (where: string, sql: string, c: Call) =>
  `${where}: ${c.name}(…) with ${c.args} arguments at ${JSON.stringify(sql.slice(c.at - 40, c.at))}`;

/** The migration that made the entries' events trigger again, and its statements. */
const REMADE = env.TEST_MIGRATIONS.find((m) => m.name.startsWith("0030_"))!;

describe("the argument counter", () => {
  it("counts a call's own commas, past strings, names, comments and nested calls", () => {
    const sql = `SELECT f(1, 'a,b)', "c,(d", \`e,f\`, [g,h], g(1, 2, h(3)), (4, 5), -- x, y)
      /* z, ( */ 6), count(*), random(), CAST(x AS TEXT) FROM t WHERE a IN (1, 2, 3)`;
    expect(functionCalls(sql).map((c) => `${c.name}/${c.args}`)).toEqual([
      "h/1",
      "g/3",
      "f/8",
      "count/1",
      "random/0",
      "CAST/1",
    ]);
    // Lists and tables' columns are not calls, however long.
    const long = Array.from({ length: 40 }, (_, i) => `c${i}`).join(", ");
    expect(functionCalls(`CREATE TABLE t (${long})`)).toEqual([]);
    expect(functionCalls(`CREATE TABLE IF NOT EXISTS t (${long})`)).toEqual([]);
    expect(functionCalls(`INSERT INTO t (${long}) VALUES (${long})`)).toEqual([]);
    expect(functionCalls(`SELECT 1 WHERE x IN (${long})`)).toEqual([]);
    expect(functionCalls(`SELECT json_array(${long})`)).toEqual([
      { name: "json_array", args: 40, at: 17 },
    ]);
  });

  it("finds the calls the trigger 0030 made again held: 38 and 40 arguments", () => {
    expect(over(shippedTrigger).map((c) => `${c.name}/${c.args}`)).toEqual([
      "json_object/38",
      "json_object/40",
    ]);
  });
});

describe(`no SQL function call takes more than ${MAX_ARGUMENTS} arguments`, () => {
  it("in any migration file, so a new database on D1 applies every one", () => {
    expect(env.TEST_MIGRATIONS.length).toBeGreaterThan(30);
    expect(
      env.TEST_MIGRATIONS.flatMap((m) =>
        m.queries.flatMap((q) => over(q).map((c) => describeCall(m.name, q, c))),
      ),
    ).toEqual([]);
  });

  it("in the migrated schema: every table's CHECKs, index, trigger and view", async () => {
    const { results } = await env.DB.prepare(
      "SELECT type, name, sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY type, name",
    ).all<{ type: string; name: string; sql: string }>();
    expect(results.filter((r) => r.type === "trigger").length).toBeGreaterThan(40);
    expect(
      results.flatMap((r) => over(r.sql).map((c) => describeCall(`${r.type} ${r.name}`, r.sql, c))),
    ).toEqual([]);
    // The counter reaches the longest: a hold's event, 16 members.
    const longest = results.flatMap((r) => functionCalls(r.sql).map((c) => c.args));
    expect(Math.max(...longest)).toBe(MAX_ARGUMENTS);
  });
});

// The statements json_set leaves as json_object wrote them: each value, in front of json_set's
// own (json_object's text parsed again) or appended by it.
const VALUES: unknown[] = [
  null,
  0,
  -1,
  9_007_199_254_740_991,
  -9_007_199_254_740_991,
  0.1,
  2.5,
  1 / 3,
  1e300,
  -0,
  "",
  "plain",
  "5.000",
  '"quoted" \\ back / slash',
  Array.from({ length: 32 }, (_, i) => String.fromCharCode(i)).join(""),
  "\u007f \u00a0 ü ₦ \u2028 \u2029 \ufeff \uffff 😀",
  '{"a":[1,2]}',
  "null",
];

describe("json_set after json_object writes what one json_object wrote", () => {
  it("for nulls, integers, reals and texts of every escape, on either side", async () => {
    const statements = VALUES.flatMap((a) =>
      VALUES.slice(0, 3)
        .concat(VALUES.slice(10))
        .map((b) =>
          env.DB.prepare(
            `SELECT json_object('a', ?1, 'b', ?2, 'c', ?1) AS one,
              json_set(json_object('a', ?1), '$.b', ?2, '$.c', ?1) AS two`,
          ).bind(a, b),
        ),
    );
    const rows = (await env.DB.batch<{ one: string; two: string }>(statements)).map(
      (r) => r.results[0]!,
    );
    expect(rows.filter((r) => r.one !== r.two)).toEqual([]);
    // A value that is JSON already (json(), json_object()) is a member, not a string, both ways.
    const nested = await env.DB.prepare(
      `SELECT json_object('a', json('[1, {"b" : null}]'), 'c', json_object('d', 'e')) AS one,
        json_set(json_object('a', json('[1, {"b" : null}]')), '$.c', json_object('d', 'e')) AS two`,
    ).first<{ one: string; two: string }>();
    expect(nested!.two).toBe(nested!.one);
    expect(nested!.one).toBe('{"a":[1,{"b":null}],"c":{"d":"e"}}');
  });
});

/** The event types the remade trigger writes. */
const ENTRY_EVENT_TYPES = [
  "transaction.created",
  "hold.captured",
  "batch.completed",
  "batch.reversed",
];

describe("the events of every kind of entry, as the trigger before 0030 wrote them", () => {
  it("are the same text byte for byte; the statements the writes and reads sent stay within 32", async () => {
    // The trigger 0030 made again, as databases that applied 0028 first ran it, beside it:
    // writing to a table of its own, so each write leaves both texts to compare.
    const dropped = REMADE.queries.flatMap((q) => [...q.matchAll(/DROP TRIGGER `(\w+)`/g)]);
    const shadows = dropped.map(([, name]) => {
      expect(shippedTrigger).toContain(`CREATE TRIGGER \`${name}\``);
      const shadow = shippedTrigger
        .replace(`CREATE TRIGGER \`${name}\``, `CREATE TRIGGER \`${name}_before\``)
        .replaceAll("INSERT INTO `events` ", "INSERT INTO `events_before` ");
      expect(shadow).not.toContain("INSERT INTO `events` ");
      return shadow;
    });
    expect(shadows).toHaveLength(1);
    await env.DB.batch(
      [
        `CREATE TABLE events_before (id integer PRIMARY KEY, type text NOT NULL, subject text NOT NULL,
          data text NOT NULL, created_at_ms integer NOT NULL)`,
        ...shadows,
      ].map((sql) => env.DB.prepare(sql)),
    );
    const from = (await env.DB.prepare("SELECT coalesce(max(id), 0) AS id FROM events").first<{
      id: number;
    }>())!.id;

    const seen = new Map<string, unknown[]>();
    const d1 = recordingD1(seen);
    const ok = (res: Reply) => {
      expect(res.status, res.text).toBe(200);
      return res.body.data as Json;
    };
    const send = (admin: TestUser | string, method: string, path: string, body?: Json) =>
      call(method, path, { auth: typeof admin === "string" ? admin : admin.bearer, body, d1 });
    const admin = await makeAdmin();
    const [a, b] = [await makeUser(), await makeUser()];
    const key = (await makeKey(admin, "read-write")).header;
    // A wallet through the API, and one written as the import writes one: a symbol of every
    // escape, on the right, storing a place more than it shows.
    const shown = unique("w").toLowerCase().slice(0, 20);
    ok(
      await send(admin, "POST", "/wallets", {
        wallet_id: shown,
        wallet_name: "Naira",
        wallet_symbol: "₦",
        wallet_symbol_position: "left",
        wallet_decimal: 2,
      }),
    );
    const odd = unique("x").toLowerCase().slice(0, 20);
    await env.DB.prepare(
      `INSERT INTO wallets (id, name, symbol, symbol_position, decimals, extra_decimals, type, created_at_ms)
       VALUES (?, 'Odd', ?, 'right', 3, 1, 'crypto', 0)`,
    )
      .bind(odd, '"\\/\u0001\t\u2028😀')
      .run();
    const atS = Math.floor(Date.now() / 1000) - 60;
    // An imported entry writes no event of its own (0 rows from either trigger); a reversal of one does.
    await importedEntry(a.id, odd, "CREDIT", 500_000, "500.000", 0, atS, {
      note: 'imported "note"',
      guid: "https://old.example/?p=1",
    });
    const imported = (await env.DB.prepare("SELECT max(id) AS id FROM transactions").first<{
      id: number;
    }>())!.id;
    const note = 'a "note", \\ back/slash, ü ₦ 😀';
    for (const wallet of [shown, odd]) {
      ok(await credit(admin, { user_id: a.id, wallet_id: wallet, amount: "100", note }));
      ok(await credit(admin, { user_id: b.id, wallet_id: wallet, amount: "0.5" }));
      const d = ok(
        await send(admin, "POST", "/debits", {
          user_id: a.id,
          wallet_id: wallet,
          amount: "1.25",
          request_id: unique("d"),
          note: "",
        }),
      );
      const t = ok(
        await transfer(admin, {
          from_user_id: a.id,
          to_user_id: b.id,
          wallet_id: wallet,
          amount: "2.5",
          note,
        }),
      );
      ok(
        await send(admin, "POST", `/transactions/${d.transaction_id}/reverse`, {
          request_id: unique("r"),
        }),
      );
      ok(
        await send(admin, "POST", `/transactions/${t.credit_transaction_id}/reverse`, {
          request_id: unique("r"),
          note: "undone",
        }),
      );
      for (const amount of ["3", "1.5"]) {
        const hold = ok(
          await send(key, "POST", "/holds", {
            user_id: a.id,
            wallet_id: wallet,
            amount,
            request_id: unique("h"),
            note,
          }),
        );
        ok(
          await send(key, "POST", `/holds/${hold.hold_id}/capture`, {
            amount: amount === "3" ? "2" : undefined,
          }),
        );
      }
      const batch = ok(
        await send(admin, "POST", "/batches", {
          request_id: unique("b"),
          operations: [
            { type: "credit", user_id: b.id, wallet_id: wallet, amount: "0.04", note },
            { type: "debit", user_id: a.id, wallet_id: wallet, amount: "0.02" },
            {
              type: "transfer",
              from_user_id: a.id,
              to_user_id: b.id,
              wallet_id: wallet,
              amount: "7",
            },
          ],
        }),
      );
      ok(await send(admin, "POST", `/batches/${batch.batch_id}/reverse`, { note: "undo" }));
    }
    ok(await send(admin, "POST", `/transactions/${imported}/reverse`, { request_id: unique("r") }));
    // Reads, so their statements are counted too.
    for (const path of [
      `/transactions?user_id=${a.id}`,
      `/user-wallet-balance?user_id=${a.id}&wallet_id=${odd}`,
      `/events?after=${from}`,
      `/batches?user_id=${a.id}`,
    ]) {
      const [p, q] = path.split("?");
      await call("GET", p!, {
        auth: admin.bearer,
        d1,
        query: Object.fromEntries(new URLSearchParams(q)),
      });
    }

    const written = (
      await env.DB.prepare(
        `SELECT type, subject, data, created_at_ms FROM events WHERE id > ?
         AND type IN (${ENTRY_EVENT_TYPES.map(() => "?").join(", ")}) ORDER BY id`,
      )
        .bind(from, ...ENTRY_EVENT_TYPES)
        .all()
    ).results;
    const before = (
      await env.DB.prepare(
        "SELECT type, subject, data, created_at_ms FROM events_before ORDER BY id",
      ).all()
    ).results;
    await env.DB.batch(
      [
        ...dropped.map(([, name]) => `DROP TRIGGER \`${name}_before\``),
        "DROP TABLE events_before",
      ].map((sql) => env.DB.prepare(sql)),
    );
    const count = (type: string) => written.filter((e) => e.type === type).length;
    expect(count("transaction.created")).toBeGreaterThan(30);
    expect(ENTRY_EVENT_TYPES.slice(1).map(count)).toEqual([4, 2, 2]);
    expect(written).toEqual(before);
    // The nulls, the texts and the wallet's members came through.
    expect(written.some((e) => String(e.data).includes('"guid":null'))).toBe(true);
    expect(written.some((e) => String(e.data).includes('"symbol":"\\"\\\\/\\u0001\\t'))).toBe(true);

    const texts = [...seen.keys()];
    expect(texts.length).toBeGreaterThan(20);
    expect(texts.flatMap((sql) => over(sql).map((c) => describeCall("statement", sql, c)))).toEqual(
      [],
    );
  });
});
