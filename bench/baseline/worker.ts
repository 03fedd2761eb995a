// Baseline for `npm run bench`: the same runtime, framework and settings as the app, doing the
// least a route can do, so the app's figures can be read as ratios to these.
//   GET  /noop          a small JSON answer, no D1
//   POST /insert        one D1 INSERT (body {"request_id","amount"}, like a credit's)
//   GET  /select?id=N   one D1 SELECT by primary key
import { Hono } from "hono";

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

app.get("/select", async (c) => {
  const id = Number(c.req.query("id"));
  if (!Number.isSafeInteger(id)) return c.json({ status: false, message: "invalid input" }, 400);
  const row = await c.env.DB.prepare(
    "SELECT id, request_id, amount, created_at_ms FROM items WHERE id = ?1",
  )
    .bind(id)
    .first();
  return row
    ? c.json({ status: true, data: row })
    : c.json({ status: false, message: "not found" }, 404);
});

export default app;
