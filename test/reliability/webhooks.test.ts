// Webhooks under failure (docs/events.md#delivery): a `wrangler dev` of this file's own (webhooks
// need WEBHOOK_SECRET_KEY and local receivers), two receivers on 127.0.0.1 (one failing a request in
// four, one slow), a stream of credits and transfers with a SIGKILL of the server in the middle and a
// restart on the same state. Every event reaches each receiver at least once, verified with
// `standardwebhooks`; deduplicated by webhook-id, exactly once; and each receiver's accepted
// deliveries arrive in event id order.
import { randomBytes } from "node:crypto";
import { createServer, type Server as HttpServer } from "node:http";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";
import { afterAll, expect, inject, it } from "vitest";
import { ADMIN, type Server, startServer } from "../../scripts/lib/server";

const run = inject("reliability");
const CREDITS = 24;
const TRANSFERS = 4;
const KILL_AFTER = 12;
// A lease the SIGKILL leaves behind holds its endpoint this long: the least WEBHOOK_LEASE_S takes,
// so the run waits 20 s for it rather than the default 60 (what is proved is the same: the endpoint
// is taken over once its lease runs out, and delivery goes on from the cursor).
const LEASE_S = 20;
// How long delivery may make no progress: that lease, then a retry's back-off and the queue's batch
// wait on top, with room.
const STALL_MS = (LEASE_S + 30) * 1000;

type Arrival = { id: string; verified: boolean; answered: number };

/** A receiver that verifies each delivery and answers `status(n)` for its n-th request. */
function receiver(status: (n: number) => number, delayMs: () => number) {
  const arrivals: Arrival[] = [];
  let secret = "";
  const server: HttpServer = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      let verified = false;
      try {
        new Webhook(secret).verify(body, req.headers as Record<string, string>);
        verified = true;
      } catch {
        verified = false;
      }
      const answered = status(arrivals.length + 1);
      arrivals.push({ id: String(req.headers["webhook-id"]), verified, answered });
      setTimeout(() => res.writeHead(answered).end(), delayMs());
    });
  });
  return {
    arrivals,
    setSecret: (s: string) => {
      secret = s;
    },
    listen: () =>
      new Promise<number>((resolve) =>
        server.listen(0, "127.0.0.1", () => resolve((server.address() as AddressInfo).port)),
      ),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const vars = {
  WEBHOOK_SECRET_KEY: randomBytes(32).toString("hex"),
  WEBHOOK_ALLOW_LOCAL: "true",
  WEBHOOK_RETRY_BASE_S: "1",
  WEBHOOK_LEASE_S: String(LEASE_S),
};
let server: Server | undefined;
let base = "";

/** Starts the server, on `persistTo`'s state after a crash, and signs in its administrator. */
async function start(persistTo?: string) {
  server = await startServer({ config: run.config, persistTo, vars });
  base = server.base;
  const login = await api("POST", "/users/login", undefined, {
    user_email: ADMIN.email,
    user_password: ADMIN.password,
  });
  return (login as Json).data.access_token as string;
}

afterAll(async () => {
  await server?.stop({ keepState: false });
});

async function api(method: string, path: string, token: string | undefined, body?: unknown) {
  for (let tries = 0; ; tries++) {
    try {
      const res = await fetch(`${base}/wp-json/wallet/v1${path}`, {
        method,
        headers: {
          ...(token ? { Authorization: `Bearer ${token}` } : {}),
          ...(body ? { "Content-Type": "application/json" } : {}),
        },
        body: body ? JSON.stringify(body) : undefined,
      });
      const json = (await res.json()) as { status_code: number; data: never };
      // wrangler's proxy answers 503 of its own while the worker restarts: ask again.
      if (res.status === 503 && tries < 20) throw new Error("restarting");
      return json;
    } catch (error) {
      if (tries >= 20) throw error;
      await new Promise((r) => setTimeout(r, 250));
    }
  }
}

// biome-ignore lint/suspicious/noExplicitAny: JSON answers read field by field
type Json = any;

it("every event reaches a flaky and a slow receiver at least once, once after deduplication, in order, through a SIGKILL", async () => {
  const flaky = receiver(
    (n) => (n % 4 === 1 ? 500 : 200),
    () => 5,
  );
  const slow = receiver(
    () => 200,
    () => 300 + Math.floor(Math.random() * 600),
  );
  const ports = [await flaky.listen(), await slow.listen()];
  let token = await start();
  const hooks: Json[] = [];
  for (const p of ports) {
    const made = (await api("POST", "/webhooks", token, {
      url: `http://127.0.0.1:${p}/hook`,
      events: ["transaction.created"],
    })) as Json;
    expect(made.status_code).toBe(201);
    hooks.push(made.data);
  }
  flaky.setSecret(hooks[0].secret);
  slow.setSecret(hooks[1].secret);
  const walletId = `rw${randomBytes(4).toString("hex")}`;
  await api("POST", "/wallets", token, {
    wallet_id: walletId,
    wallet_name: "R",
    wallet_symbol: "R",
  });
  const userIds: number[] = [];
  for (const n of [1, 2]) {
    const name = `rwh${n}${randomBytes(3).toString("hex")}`;
    const u = (await api("POST", "/users", token, {
      username: name,
      user_email: `${name}@example.test`,
      user_password: "secret123",
    })) as Json;
    userIds.push(u.data.id);
  }

  const moves = [
    ...Array.from({ length: CREDITS }, (_, i) => ({ kind: "credits", i })),
    ...Array.from({ length: TRANSFERS }, (_, i) => ({ kind: "transfers", i })),
  ];
  let done = 0;
  for (const move of moves) {
    if (done === KILL_AFTER) {
      // A crash mid-stream: the queue's messages and any lease die with it; the sweep recovers.
      await server!.stop({ signal: "SIGKILL", keepState: true });
      token = await start(server!.stateDir);
    }
    const body =
      move.kind === "credits"
        ? { user_id: userIds[0], wallet_id: walletId, amount: 5, request_id: `rc-${move.i}` }
        : {
            from_user_id: userIds[0],
            to_user_id: userIds[1],
            wallet_id: walletId,
            amount: 1,
            request_id: `rt-${move.i}`,
          };
    const res = (await api("POST", `/${move.kind}`, token, body)) as Json;
    // A request cut by the kill is sent again: its request_id makes it apply once.
    expect([200, 409]).toContain(res.status_code);
    done++;
  }

  const feed = (await api(
    "GET",
    `/events?after=${Math.min(...hooks.map((h) => h.last_event_id))}&limit=1000&types=transaction.created`,
    token,
  )) as Json;
  const expected = (feed.data as Json[]).map((e) => String(e.id));
  expect(expected.length).toBe(CREDITS + 2 * TRANSFERS);

  // Wait for both while deliveries keep coming, running the cron's sweep as Cloudflare would (more
  // often, every 2 s, to keep the run short), and looking at what arrived more often still.
  const accepted = (r: ReturnType<typeof receiver>) =>
    new Set(r.arrivals.filter((a) => a.answered < 300).map((a) => a.id));
  let [arrived, progressMs, sweptMs] = [0, Date.now(), 0];
  while (Date.now() - progressMs < STALL_MS) {
    if (expected.every((id) => accepted(flaky).has(id) && accepted(slow).has(id))) break;
    if (flaky.arrivals.length + slow.arrivals.length > arrived) {
      arrived = flaky.arrivals.length + slow.arrivals.length;
      progressMs = Date.now();
    }
    if (Date.now() - sweptMs >= 2_000) {
      sweptMs = Date.now();
      await fetch(`${base}/__scheduled?cron=*+*+*+*+*`).catch(() => undefined);
    }
    await new Promise((r) => setTimeout(r, 250));
  }

  for (const r of [flaky, slow]) {
    expect(r.arrivals.every((a) => a.verified)).toBe(true);
    // At least once, and deduplicated by webhook-id exactly the events that happened.
    expect([...accepted(r)].sort()).toEqual([...expected].sort());
    // In order: each accepted delivery's event id is no lower than any accepted before it.
    const ids = r.arrivals.filter((a) => a.answered < 300).map((a) => Number(a.id));
    expect(ids.every((id, i) => i === 0 || id >= ids[i - 1]!)).toBe(true);
  }
  // The flaky one really failed some of its requests, and was retried.
  expect(flaky.arrivals.filter((a) => a.answered >= 500).length).toBeGreaterThan(0);
  console.log(
    `  webhooks: ${expected.length} events; flaky receiver ${flaky.arrivals.length} requests, slow receiver ${slow.arrivals.length}`,
  );
  await Promise.all([flaky.close(), slow.close()]);
});
