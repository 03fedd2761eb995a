// Baseline for `npm run bench`: the same runtime, framework and settings as the app, doing the
// least a route can do, so the app's figures can be read as ratios to these.
//   GET  /noop          a small JSON answer, no D1
//   POST /insert        one D1 INSERT (body {"request_id","amount"}, like a credit's)
//   GET  /select?id=N   one D1 SELECT by primary key
//   GET  /select-authed?id=N   the same SELECT behind what any authenticated, logged read does
//                       first: an HS256 bearer token verified (once per isolate, as a cache would),
//                       a request id, one JSON log line
//   GET  /select-replica?id=N  select-authed's read through a D1 session (the Sessions API a
//                       read-replica-aware Worker reads through), answering its bookmark
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
  if (!Number.isSafeInteger(id)) return c.json({ status: false, message: "invalid input" }, 400);
  const session = replica
    ? c.env.DB.withSession(c.req.header("x-d1-bookmark") ?? "first-unconstrained")
    : undefined;
  const row = await selectItem(session ?? c.env.DB, id);
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
