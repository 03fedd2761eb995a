import { env } from "cloudflare:workers";
import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import type { Outbound } from "../src/events/deliver";
import { openSecret } from "../src/events/secrets";
import {
  type CallOptions,
  call,
  credit,
  type Json,
  makeAccount,
  makeAdmin,
  makeKey,
  NO_ROUTE,
  type TestUser,
  tableCounts,
  testApp,
  unique,
} from "./helpers";

type Received = { url: string; headers: Record<string, string>; body: string };

/** A receiver in place of the network: it records each POST and answers `status`. */
function receiver(status = 200) {
  const got: Received[] = [];
  const outbound: Outbound = async (url, init) => {
    got.push({
      url,
      headers: Object.fromEntries(new Headers(init.headers).entries()),
      body: String(init.body),
    });
    return new Response(status === 204 ? null : "ok", { status });
  };
  return { got, app: testApp({ outbound }) };
}

async function subscribe(admin: TestUser, body: Json = {}, options: CallOptions = {}) {
  const res = await call("POST", "/webhooks", {
    auth: admin.bearer,
    body: { url: "https://hooks.example.com/wallet", events: ["transaction.created"], ...body },
    ...options,
  });
  return res;
}

const refused = (url: string) => ({
  status_code: 400,
  status: false,
  message: "invalid input",
  error: { url },
});

describe("POST /webhooks", () => {
  it("creates an endpoint and shows its whsec_ secret only in that answer", async () => {
    const admin = await makeAdmin();
    const res = await subscribe(admin, {
      events: "transaction.created, wallet.created",
      description: "orders",
    });
    expect(res.status, res.text).toBe(201);
    expect(res.body.message).toBe("Webhook created");
    const { secret, ...record } = res.body.data;
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(record).toStrictEqual({
      id: expect.any(Number),
      url: "https://hooks.example.com/wallet",
      description: "orders",
      events: ["transaction.created", "wallet.created"],
      status: "active",
      failing_since: null,
      last_event_id: expect.any(Number),
      failed_attempts: 0,
      next_attempt_at: null,
      created_at: expect.any(String),
    });
    const list = await call("GET", "/webhooks", { auth: admin.bearer });
    expect(list.body.data).toContainEqual(record);
    expect(list.text).not.toContain(secret);
    // The database alone does not hold it: it is sealed under WEBHOOK_SECRET_KEY.
    const row = await env.DB.prepare("SELECT * FROM webhook_endpoints WHERE id = ?")
      .bind(record.id)
      .first<Json>();
    expect(JSON.stringify(row)).not.toContain(secret.slice("whsec_".length, 20));
    expect(row!.secret_cipher).toMatch(/^v1:/);
  });

  it("opens a signing secret an earlier deploy sealed: the stored form does not change", async () => {
    // Sealed once (AES-GCM under HKDF-SHA-256 of the key, for this purpose) and kept as written:
    // a change to how secrets are sealed would leave every endpoint unable to sign.
    const key = "a webhook secret key of forty characters";
    const stored =
      "v1:AQIDBAUGBwgJCgsM:VFuRep6azqJQqfZTpNC+81maAKjtGuJfLZBwTnJ/VCHSSYAqDfJiLa+elwNvGCgPVl6vlUbUkwWd5G3wJGiO4iuW";
    expect(await openSecret(stored, key)).toBe(
      "whsec_YW4gZWFybGllciBkZXBsb3kgc2VhbGVkIHRoaXMgMzI=",
    );
    expect(await openSecret(stored, `${key}!`)).toBeNull();
  });

  it("starts a new endpoint after the newest event: it receives what happens from then on", async () => {
    const { admin, user, wallet } = await makeAccount();
    await credit(admin, { user_id: user.id, wallet_id: wallet, amount: 1 });
    const newest = await env.DB.prepare("SELECT max(id) AS id FROM events").first<{ id: number }>();
    const res = await subscribe(admin);
    expect(res.body.data.last_event_id).toBe(newest!.id);
  });

  it.each([
    ["ftp://hooks.example.com/x", "url must start with https://"],
    ["http://hooks.example.com/x", "url must start with https://"],
    // Schemes without a host are judged by their scheme, not by the host they lack.
    ...[
      "javascript:alert(1)",
      "mailto:ops@example.com",
      "data:text/plain,hi",
      "file:///etc/passwd",
    ].map((url) => [url, "url must start with https://"]),
    ["hooks.example.com/x", "url must be an absolute URL without a #fragment"],
    // An IPv6 zone id (fe80::1%eth0) is no URL host: the parser refuses it, so no link-local
    // address reaches the address rules in that spelling.
    ...["https://[fe80::1%25eth0]/x", "https://[fe80::1%eth0]/x"].map((url) => [
      url,
      "url must be an absolute URL without a #fragment",
    ]),
    ["https://hooks.example.com/x#frag", "url must be an absolute URL without a #fragment"],
    ["https://hooks.example.com/x#", "url must be an absolute URL without a #fragment"],
    ["https://hooks.example.com:0/x", "url must not name port 0"],
    [
      `https://hooks.example.com/${"ü".repeat(400)}`,
      "url must be at most 2000 characters once percent-encoded",
    ],
    // One character past each bound: the URL, a label, the host name.
    [
      `https://hooks.example.com/a b${"a".repeat(2000 - 30)}`, // 1999 typed, 2001 once encoded
      "url must be at most 2000 characters once percent-encoded",
    ],
    [
      `https://${"a".repeat(64)}.example.com/x`,
      "url must name a host DNS can hold (labels of 1 to 63 letters, digits, hyphens or underscores, no hyphen first or last)",
    ],
    [
      `https://${["a", "b", "c"].map((c) => c.repeat(63)).join(".")}.${"d".repeat(58)}.com/x`,
      "url must name a host DNS can hold (labels of 1 to 63 letters, digits, hyphens or underscores, no hyphen first or last)",
    ],
    [
      `https://${"ü".repeat(60)}.example.com/x`,
      "url must name a host DNS can hold (labels of 1 to 63 letters, digits, hyphens or underscores, no hyphen first or last)",
    ],
    [
      "https://hooks..example.com/x",
      "url must name a host DNS can hold (labels of 1 to 63 letters, digits, hyphens or underscores, no hyphen first or last)",
    ],
    ...[
      "https://ex*ample.com/x",
      "https://a!b.example.com/x",
      "https://a$b.example.com/",
      "https://a=b.example.com/",
      "https://-.com/",
      "https://-hooks.example.com/",
      "https://hooks-.example.com/",
    ].map((url) => [
      url,
      "url must name a host DNS can hold (labels of 1 to 63 letters, digits, hyphens or underscores, no hyphen first or last)",
    ]),
    ["https://user:pw@hooks.example.com/x", "url must not hold a user name or password"],
    ["https://10.1.2.3/x", "url must not point at a private, loopback or link-local address"],
    ["https://172.20.0.1/x", "url must not point at a private, loopback or link-local address"],
    ["https://192.168.1.1/x", "url must not point at a private, loopback or link-local address"],
    [
      "https://169.254.169.254/latest",
      "url must not point at a private, loopback or link-local address",
    ],
    ["https://100.64.0.1/", "url must not point at a private, loopback or link-local address"],
    ["https://192.88.99.1/", "url must not point at a private, loopback or link-local address"],
    ["https://0.0.0.0/", "url must not point at a private, loopback or link-local address"],
    // Benchmarking (198.18.0.0/15), multicast (224.0.0.0/4) and reserved through the broadcast.
    ...[
      "https://198.18.0.1/",
      "https://198.19.255.255/",
      "https://224.0.0.1/",
      "https://240.0.0.1/",
      "https://255.255.255.255/",
    ].map((url) => [url, "url must not point at a private, loopback or link-local address"]),
    ["https://2130706433/", "url must not point at a private, loopback or link-local address"],
    ["https://0x7f.1/", "url must not point at a private, loopback or link-local address"],
    ["https://[::1]/", "url must not point at a private, loopback or link-local address"],
    ["https://[fe80::1]/", "url must not point at a private, loopback or link-local address"],
    ["https://[fd00::5]/", "url must not point at a private, loopback or link-local address"],
    [
      "https://[::ffff:10.0.0.1]/",
      "url must not point at a private, loopback or link-local address",
    ],
    [
      "https://[64:ff9b::a9fe:a9fe]/",
      "url must not point at a private, loopback or link-local address",
    ],
    // IPv4 inside IPv6 by translation and 6to4, Teredo, discard-only and unassigned space.
    ...[
      "https://[::ffff:0:a9fe:a9fe]/x",
      "https://[2002:a9fe:a9fe::]/x",
      "https://[2002:a00:1::1]/x",
      "https://[2001::1]/x",
      "https://[2001:1ff::1]/x", // the end of 2001::/23
      "https://[::]/x",
      "https://[::a9fe:a9fe]/x", // ::169.254.169.254, the deprecated v4-compatible form
      "https://[100::1]/x",
      "https://[64:ff9b:1::1]/x",
      "https://[4000::1]/x",
      // Documentation ranges: 2001:db8::/32 and 3fff::/20.
      "https://[2001:db8::1]/x",
      "https://[3fff::1]/x",
      "https://[3fff:fff::1]/x",
    ].map((url) => [url, "url must not point at a private, loopback or link-local address"]),
    ["https://localhost/x", "url must not point at a private, loopback or link-local address"],
    ...[
      "https://printer.local/x",
      "https://router.lan/x",
      "https://nas.home.arpa/x",
      "https://box.localdomain/x",
    ].map((url) => [url, "url must not point at a private, loopback or link-local address"]),
    [
      "https://metadata.google.internal/",
      "url must not point at a private, loopback or link-local address",
    ],
    ["https://intranet/x", "url must name a public host"],
    // A name with the root's dot is refused whole, so no local name passes in that spelling.
    ["https://localhost./x", "url must name a public host"],
    ["https://hooks.example.com./x", "url must name a public host"],
  ])("refuses %s with 400 and writes nothing", async (url, text) => {
    const admin = await makeAdmin();
    const before = await env.DB.prepare("SELECT count(*) AS n FROM webhook_endpoints").first();
    const res = await subscribe(admin, { url }, { vars: { WEBHOOK_ALLOW_LOCAL: "false" } });
    expect(res.body).toStrictEqual(refused(text));
    expect(await env.DB.prepare("SELECT count(*) AS n FROM webhook_endpoints").first()).toEqual(
      before,
    );
  });

  it.each([
    "https://hooks.example.com/wallet?site=1",
    "https://203.0.113.9.nip.io/x",
    "https://8.8.8.8/x",
    "https://[2606:4700::1111]/x",
    "https://[2002:808:808::1]/x", // 6to4 of a public IPv4
    "https://[::ffff:808:808]/x", // a public IPv4, mapped
    "https://[64:ff9b::808:808]/x", // a public IPv4 through NAT64
    "https://hooks.example.com:8443/x",
    // At each bound: a URL of 2000 characters, a label of 63, a host name of 253.
    `https://hooks.example.com/${"a".repeat(2000 - 26)}`,
    `https://${"a".repeat(63)}.example.com/x`,
    `https://${["a", "b", "c"].map((c) => c.repeat(63)).join(".")}.${"d".repeat(57)}.com/x`,
    "https://[2001:200::1]/x", // past 2001::/23
  ])("accepts the public https URL %s", async (url) => {
    const admin = await makeAdmin();
    const res = await subscribe(admin, { url }, { vars: { WEBHOOK_ALLOW_LOCAL: "false" } });
    expect(res.status, res.text).toBe(201);
  });

  it("accepts http://127.0.0.1 and http://localhost only while WEBHOOK_ALLOW_LOCAL is true", async () => {
    const admin = await makeAdmin();
    for (const url of [
      "http://127.0.0.1:8080/hook",
      "http://127.1.2.3:8080/hook",
      "http://[::1]:8080/hook",
      "http://localhost:3000/hook",
      "http://shop.localhost:3000/hook",
    ]) {
      expect(
        (await subscribe(admin, { url }, { vars: { WEBHOOK_ALLOW_LOCAL: "true" } })).status,
      ).toBe(201);
      expect(
        (await subscribe(admin, { url }, { vars: { WEBHOOK_ALLOW_LOCAL: "false" } })).body,
      ).toStrictEqual(refused("url must start with https://"));
    }
  });

  it("refuses missing or unknown event types and an overlong description, field by field", async () => {
    const admin = await makeAdmin();
    const res = await call("POST", "/webhooks", {
      auth: admin.bearer,
      body: { url: "", events: ["order.paid"], description: "d".repeat(501) },
    });
    expect(res.body).toStrictEqual({
      status_code: 400,
      status: false,
      message: "invalid input",
      error: {
        url: "Field Cannot be empty",
        events:
          "events must name event types among transaction.created, user.created, user.deleted, wallet.created, wallet.deleted, hold.placed, hold.captured, hold.voided, hold.expired, batch.completed, batch.reversed",
        description: "description must be at most 500 characters",
      },
    });
    const none = await call("POST", "/webhooks", {
      auth: admin.bearer,
      body: { url: "https://a.example.com" },
    });
    expect(none.body.error).toStrictEqual({ events: "Field Cannot be empty" });
  });

  it("refuses a description with control, bidirectional or invisible characters, and creates nothing", async () => {
    const admin = await makeAdmin();
    const endpoints = () =>
      env.DB.prepare("SELECT count(*) AS n FROM webhook_endpoints").first("n");
    const before = await endpoints();
    for (const hidden of ["\u202e", "\u200b", "\u0007"]) {
      const res = await call("POST", "/webhooks", {
        auth: admin.bearer,
        body: {
          url: "https://a.example.com",
          events: ["transaction.created"],
          description: `orders${hidden}`,
        },
      });
      expect(res.body, JSON.stringify(hidden)).toStrictEqual({
        status_code: 400,
        status: false,
        message: "invalid input",
        error: {
          description: "description must not hold control, bidirectional or invisible characters",
        },
      });
    }
    expect(await endpoints()).toBe(before);
  });

  it("answers 503 while WEBHOOK_SECRET_KEY is unset, short or blank, or the queue unbound, and creates nothing", async () => {
    const admin = await makeAdmin();
    const cases: [Record<string, string | undefined>, string[]][] = [
      [{ WEBHOOK_SECRET_KEY: "" }, ["WEBHOOK_SECRET_KEY"]],
      [{ WEBHOOK_SECRET_KEY: "too-short" }, ["WEBHOOK_SECRET_KEY"]],
      [{ WEBHOOK_SECRET_KEY: " ".repeat(40) }, ["WEBHOOK_SECRET_KEY"]],
      // Without the queue no endpoint would ever be sent an event.
      [{ WEBHOOK_QUEUE: undefined }, ["WEBHOOK_QUEUE"]],
    ];
    const before = await tableCounts();
    for (const [vars, missing] of cases) {
      const res = await subscribe(admin, {}, { vars });
      expect(res.status).toBe(503);
      expect(res.body).toStrictEqual({
        status_code: 503,
        status: false,
        message: "Webhooks are not configured",
        error: { missing },
      });
    }
    expect(await tableCounts()).toEqual(before);
  });
});

describe("POST /webhooks/{id}/test and /resend", () => {
  it("sends a webhook.test message signed as Standard Webhooks verifies it", async () => {
    const admin = await makeAdmin();
    const made = (await subscribe(admin)).body.data;
    const { got, app } = receiver(204);
    const res = await call("POST", `/webhooks/${made.id}/test`, { auth: admin.bearer, app });
    expect(res.status, res.text).toBe(200);
    expect(res.body.data).toMatchObject({
      webhook_id: made.id,
      event_id: null,
      status: "delivered",
      trigger: "test",
      http_status: 204,
      error: null,
    });
    expect(got).toHaveLength(1);
    expect(got[0]!.url).toBe("https://hooks.example.com/wallet");
    const verified = new Webhook(made.secret).verify(got[0]!.body, got[0]!.headers) as Json;
    expect(verified).toMatchObject({ type: "webhook.test", data: { webhook_id: made.id } });
    expect(got[0]!.headers["webhook-id"]).toMatch(/^test_/);
    // Another secret does not verify it.
    const other = (await subscribe(admin)).body.data.secret;
    expect(() => new Webhook(other).verify(got[0]!.body, got[0]!.headers)).toThrow();
  });

  it("records a receiver's error answer as a failed delivery, readable in the deliveries", async () => {
    const admin = await makeAdmin();
    const made = (await subscribe(admin)).body.data;
    const { app } = receiver(500);
    const res = await call("POST", `/webhooks/${made.id}/test`, { auth: admin.bearer, app });
    expect(res.body.data).toMatchObject({
      status: "failed",
      http_status: 500,
      error: "answered HTTP 500",
    });
    const log = await call("GET", `/webhooks/${made.id}/deliveries`, { auth: admin.bearer });
    expect(log.body.data[0]).toStrictEqual(res.body.data);
  });

  it("sends nothing once WEBHOOK_SECRET_KEY changed, and says so in the queue's words", async () => {
    const admin = await makeAdmin();
    const made = (
      await subscribe(
        admin,
        {},
        { vars: { WEBHOOK_SECRET_KEY: "an-earlier-key-of-at-least-32-chars" } },
      )
    ).body.data;
    const { got, app } = receiver();
    const res = await call("POST", `/webhooks/${made.id}/test`, { auth: admin.bearer, app });
    expect(res.body.data).toMatchObject({
      status: "failed",
      http_status: null,
      error: "the signing secret does not open with this WEBHOOK_SECRET_KEY",
    });
    expect(got).toHaveLength(0);
  });

  it("resends an event with its own id as webhook-id and the feed's record as body", async () => {
    const { admin, user, wallet } = await makeAccount();
    const made = (await subscribe(admin)).body.data;
    await credit(admin, { user_id: user.id, wallet_id: wallet, amount: 2 });
    const [event] = (
      await call("GET", "/events", { auth: admin.bearer, query: { after: made.last_event_id } })
    ).body.data;
    const { got, app } = receiver();
    const res = await call("POST", `/webhooks/${made.id}/resend`, {
      auth: admin.bearer,
      app,
      body: { event_id: event.id },
    });
    expect(res.body.data).toMatchObject({
      event_id: event.id,
      trigger: "resend",
      status: "delivered",
    });
    expect(got[0]!.headers["webhook-id"]).toBe(String(event.id));
    expect(new Webhook(made.secret).verify(got[0]!.body, got[0]!.headers)).toStrictEqual(event);
  });

  it("answers 404 for an unknown webhook or event and 400 for a bad event_id", async () => {
    const admin = await makeAdmin();
    const made = (await subscribe(admin)).body.data;
    const { got, app } = receiver();
    const noHook = await call("POST", "/webhooks/999999999/test", { auth: admin.bearer, app });
    expect(noHook.body).toStrictEqual({
      status_code: 404,
      status: false,
      message: "Webhook not found",
      error: { id: "No webhook 999999999" },
    });
    const noEvent = await call("POST", `/webhooks/${made.id}/resend`, {
      auth: admin.bearer,
      app,
      body: { event_id: 999999999 },
    });
    expect(noEvent.body).toStrictEqual({
      status_code: 404,
      status: false,
      message: "Event not found",
      error: { event_id: "No event 999999999" },
    });
    const bad = await call("POST", `/webhooks/${made.id}/resend`, {
      auth: admin.bearer,
      app,
      body: { event_id: "x" },
    });
    expect(bad.body.error).toStrictEqual({ event_id: "event_id requires an integer" });
    expect(got).toHaveLength(0);
  });

  it("reads an event_id of up to 15 digits as an id and refuses a longer one as no integer", async () => {
    const admin = await makeAdmin();
    const made = (await subscribe(admin)).body.data;
    const { got, app } = receiver();
    const resend = (event_id: string) =>
      call("POST", `/webhooks/${made.id}/resend`, { auth: admin.bearer, app, body: { event_id } });
    const longest = await resend("999999999999999");
    expect([longest.status, longest.body.error]).toStrictEqual([
      404,
      { event_id: "No event 999999999999999" },
    ]);
    const longer = await resend("1000000000000000");
    expect([longer.status, longer.body.error]).toStrictEqual([
      400,
      { event_id: "event_id requires an integer" },
    ]);
    expect(got).toHaveLength(0);
  });
});

describe("DELETE /webhooks/{id} and GET /webhooks/{id}/deliveries", () => {
  it("deletes an endpoint with its deliveries; a second delete answers 404", async () => {
    const admin = await makeAdmin();
    const made = (await subscribe(admin)).body.data;
    await call("POST", `/webhooks/${made.id}/test`, { auth: admin.bearer, app: receiver().app });
    const del = await call("DELETE", `/webhooks/${made.id}`, { auth: admin.bearer });
    expect(del.body).toStrictEqual({
      status_code: 200,
      status: true,
      message: "Webhook deleted",
      data: { id: made.id, deleted: true },
    });
    const rows = await env.DB.prepare(
      "SELECT count(*) AS n FROM webhook_deliveries WHERE endpoint_id = ?",
    )
      .bind(made.id)
      .first();
    expect(rows).toEqual({ n: 0 });
    expect((await call("DELETE", `/webhooks/${made.id}`, { auth: admin.bearer })).status).toBe(404);
    expect(
      (await call("GET", `/webhooks/${made.id}/deliveries`, { auth: admin.bearer })).status,
    ).toBe(404);
    expect((await call("DELETE", "/webhooks/abc", { auth: admin.bearer })).body).toEqual(NO_ROUTE);
  });

  it("refuses a deliveries limit out of range", async () => {
    const admin = await makeAdmin();
    const made = (await subscribe(admin)).body.data;
    const res = await call("GET", `/webhooks/${made.id}/deliveries`, {
      auth: admin.bearer,
      query: { limit: 0 },
    });
    expect(res.body.error).toStrictEqual({ limit: "limit must be between 1 and 200" });
  });

  it("reads an endpoint's newest 50 deliveries unless a limit says otherwise", async () => {
    const admin = await makeAdmin();
    const hook = await localHook(admin);
    // 51 recorded attempts, as the consumer writes them, oldest first.
    const insert = env.DB.prepare(
      "INSERT INTO webhook_deliveries (endpoint_id, event_id, attempt, status, trigger, http_status, latency_ms, error, created_at_ms) VALUES (?, NULL, ?, 'failed', 'test', 500, 1, NULL, ?)",
    );
    await env.DB.batch(
      Array.from({ length: 51 }, (_, i) => insert.bind(hook, i + 1, Date.UTC(2026, 0, 1, 0, 0, i))),
    );
    const attempts = async (query: Record<string, number>) =>
      (
        await call("GET", `/webhooks/${hook}/deliveries`, { auth: admin.bearer, query })
      ).body.data.map((d: { attempt: number }) => d.attempt);
    const newest50 = Array.from({ length: 50 }, (_, i) => 51 - i);
    expect(await attempts({})).toStrictEqual(newest50);
    expect(await attempts({ limit: 51 })).toStrictEqual([...newest50, 1]);
  });

  it("lets an administrator's read key list webhooks but not create one", async () => {
    const admin = await makeAdmin();
    const key = await makeKey(admin, "read");
    expect((await call("GET", "/webhooks", { auth: key.header })).status).toBe(200);
    expect((await subscribe(admin, {}, { auth: key.header })).status).toBe(403);
  });

  it("refuses a write-only key a new endpoint and a resend: an endpoint receives the feed a read key reads", async () => {
    const admin = await makeAdmin();
    const key = await makeKey(admin, "write");
    expect((await call("GET", "/events", { auth: key.header, query: { limit: 1 } })).status).toBe(
      403,
    );
    expect((await subscribe(admin, {}, { auth: key.header })).status).toBe(403);
    const hook = await localHook(admin);
    const [event] = (await call("GET", "/events", { auth: admin.bearer, query: { limit: 1 } })).body
      .data;
    const resend = await call("POST", `/webhooks/${hook}/resend`, {
      auth: key.header,
      body: { event_id: event.id },
    });
    expect([resend.status, resend.body.error]).toStrictEqual([
      403,
      { unauthorize: "Request is not authorized" },
    ]);
    const log = await call("GET", `/webhooks/${hook}/deliveries`, { auth: admin.bearer });
    expect(log.body.data).toStrictEqual([]);
    // It may still test and delete an endpoint: a webhook.test message carries no event.
    expect((await call("POST", `/webhooks/${hook}/test`, { auth: key.header })).status).toBe(200);
    expect((await call("DELETE", `/webhooks/${hook}`, { auth: key.header })).status).toBe(200);
  });
});

/** A webhook on a local port nothing listens on: tests and resends fail fast, nothing leaves. */
const localHook = async (admin: TestUser) => {
  const res = await subscribe(admin, { url: `http://127.0.0.1:9/${unique("h")}` });
  if (res.status !== 201) throw new Error(res.text);
  return res.body.data.id as number;
};
