// Baseline for `npm run bench`: the same runtime and framework as the app, doing the
// least a route can do, so the app's figures can be read as ratios to these.
//   GET  /noop          a small JSON answer, no D1
//   POST /insert        one D1 INSERT (body {"request_id","amount"}, like a credit's)
//   GET  /select?id=N   one D1 SELECT by primary key
//   GET  /select-authed?id=N   the same SELECT behind what any authenticated, logged read does
//                       first: an HS256 bearer token verified (once per isolate, as a cache would),
//                       a request id, one JSON log line
//   GET  /select-replica?id=N  select-authed's read through a D1 session (the Sessions API a
//                       read-replica-aware Worker reads through), answering its bookmark
//   GET  /select-replica?id=N&rows=K&cells=C  the same read of K rows from id N on (1-100),
//                       each of C cells (4-64, default 4: the row's columns over again): the
//                       floor of a read that answers as many rows, as wide (5 balances, an
//                       entry, a page of 20); an id no item has answers 404, as a read of none
import { type Context, Hono } from "hono";
import { verify } from "hono/jwt";
import { BASELINE_JWT_SECRET } from "./token";

type Env = { Bindings: { DB: D1Database } };

const app = new Hono<Env>();

app.get("/noop", (c) => c.json({ status: true, message: "ok" }));

app.post("/insert", async (c) => {
  const body = await c.req
    .json<{ request_id?: unknown; amount?: unknown }>()
    .catch(() => ({}) as Record<string, unknown>);
  const requestId = typeof body.request_id === "string" ? body.request_id : "";
  const amount = Number(body.amount);
  if (requestId === "" || !Number.isSafeInteger(amount))
    return c.json({ status: false, message: "invalid input" }, 400);
  const row = await c.env.DB.prepare(
    "INSERT INTO items (request_id, amount, created_at_ms) VALUES (?1, ?2, ?3) ON CONFLICT (request_id) DO NOTHING RETURNING id",
  )
    .bind(requestId, amount, Date.now())
    .first<{ id: number }>();
  return row
    ? c.json({ status: true, data: { id: row.id } })
    : c.json({ status: false, message: "exists" }, 409);
});

/** The one SELECT every select route makes. */
const selectItem = (db: Pick<D1Database, "prepare">, id: number) =>
  db
    .prepare("SELECT id, request_id, amount, created_at_ms FROM items WHERE id = ?1")
    .bind(id)
    .first();

app.get("/select", async (c) => {
  const id = Number(c.req.query("id"));
  if (!Number.isSafeInteger(id)) return c.json({ status: false, message: "invalid input" }, 400);
  const row = await selectItem(c.env.DB, id);
  return row
    ? c.json({ status: true, data: row })
    : c.json({ status: false, message: "not found" }, 404);
});

const verified = new Map<string, number>();

const ITEM_COLUMNS = ["id", "request_id", "amount", "created_at_ms"];

/**
 * The rows from id `from` on, at most `rows` of them, each of `cells` cells (the item's columns in
 * turn): one SELECT, as a page of entries is.
 */
const selectItems = (db: Pick<D1Database, "prepare">, from: number, rows: number, cells: number) =>
  db
    .prepare(
      `SELECT ${Array.from({ length: cells }, (_, i) => `${ITEM_COLUMNS[i % 4]} AS c${i}`).join(", ")} FROM items WHERE id >= ?1 ORDER BY id LIMIT ?2`,
    )
    .bind(from, rows)
    .all()
    .then(({ results }) => (results.length > 0 ? results : null));

/** One SELECT behind a verified bearer token, with a request id and one log line. */
const authedSelect = (route: string, replica: boolean) => async (c: Context<Env>) => {
  const startedMs = Date.now();
  const requestId = crypto.randomUUID();
  const token = c.req.header("authorization")?.replace(/^Bearer /, "") ?? "";
  let userId = verified.get(token);
  if (userId === undefined) {
    const payload = await verify(token, BASELINE_JWT_SECRET, "HS256").catch(() => null);
    if (!payload || typeof payload.sub !== "number")
      return c.json({ status: false, message: "unauthorized" }, 401);
    userId = payload.sub;
    verified.set(token, userId);
  }
  const id = Number(c.req.query("id"));
  const rows = Number(c.req.query("rows") ?? 1);
  const cells = Number(c.req.query("cells") ?? 4);
  const within = (n: number, min: number, max: number) =>
    Number.isSafeInteger(n) && n >= min && n <= max;
  if (!Number.isSafeInteger(id) || !within(rows, 1, 100) || !within(cells, 4, 64))
    return c.json({ status: false, message: "invalid input" }, 400);
  const session = replica
    ? c.env.DB.withSession(c.req.header("x-d1-bookmark") ?? "first-unconstrained")
    : undefined;
  const db = session ?? c.env.DB;
  const row = await (rows === 1 && cells === 4
    ? selectItem(db, id)
    : selectItems(db, id, rows, cells));
  const status = row ? 200 : 404;
  console.log(
    JSON.stringify({
      request_id: requestId,
      method: c.req.method,
      route,
      status,
      duration_ms: Date.now() - startedMs,
      user_id: userId,
      d1_statements: 1,
    }),
  );
  c.header("X-Request-Id", requestId);
  const bookmark = session?.getBookmark();
  if (bookmark) c.header("x-d1-bookmark", bookmark);
  return row
    ? c.json({ status: true, data: row })
    : c.json({ status: false, message: "not found" }, 404);
};

app.get("/select-authed", authedSelect("/select-authed", false));
app.get("/select-replica", authedSelect("/select-replica", true));

export default app;
