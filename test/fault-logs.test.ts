import { createMessageBatch } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { hashApiKey } from "../src/auth/api-keys";
import { createDb, errorText, stackFrames } from "../src/db/client";
import { wallets } from "../src/db/schema";
import { consumeNudges, type Nudge, pumpDeps } from "../src/events/queue";
import { losingReads } from "./d1-counter";
import {
  API,
  call,
  makeAdmin,
  makeKey,
  PASSWORD,
  subscribeWebhook,
  testApp,
  unique,
} from "./helpers";

/** Every line the test's requests write with console.error or console.log, parsed. */
function captureLog() {
  const error = vi.spyOn(console, "error").mockImplementation(() => {});
  const log = vi.spyOn(console, "log").mockImplementation(() => {});
  return () =>
    [...error.mock.calls, ...log.mock.calls].map(([line]) => JSON.parse(String(line)) as object);
}

afterEach(async () => {
  vi.restoreAllMocks();
  await env.DB.exec("DROP TRIGGER IF EXISTS probe_refusal");
});

// Drizzle words a statement that fails "Failed query: <sql>\nparams: <values>": the values bound
// to it (a key's hash, an e-mail address, a webhook's URL and sealed secret) must not reach a log.
describe("the log line of a statement that failed", () => {
  it("keeps the statement, D1's words, the route and the request id, and drops the values", async () => {
    const admin = await makeAdmin();
    // A ledger-style guard: SQLite refuses the insert with RAISE, as the schema's triggers do.
    await env.DB.exec(
      "CREATE TRIGGER probe_refusal BEFORE INSERT ON webhook_endpoints BEGIN SELECT RAISE(ABORT, 'probe_refusal'); END",
    );
    const url = "https://hooks.example.com/wallet?token=receivers-own-token";
    const lines = captureLog();
    const res = await call("POST", "/webhooks", {
      auth: admin.bearer,
      body: {
        url,
        events: ["transaction.created"],
        description: "private-description",
      },
    });
    expect(res.status).toBe(500);
    const requestId = res.body.error.request_id;
    const logged = lines();
    const text = JSON.stringify(logged);
    for (const bound of ["receivers-own-token", "private-description", "params:"])
      expect(text).not.toContain(bound);
    expect(logged).toContainEqual({
      request_id: requestId,
      error: expect.stringContaining("probe_refusal: SQLITE_CONSTRAINT"),
      statement: expect.stringMatching(
        /^insert into "webhook_endpoints" \(.*\) values \(null, \?, \?, /,
      ),
      stack: expect.stringMatching(/^ {4}at .*insertEndpoint/s),
    });
    expect(logged).toContainEqual(
      expect.objectContaining({ request_id: requestId, route: `${API}/webhooks`, status: 500 }),
    );
  });

  it("takes no stack frame from a bound value that reads as one", async () => {
    // A single statement's failure (a batch's names no statement and binds no values into its
    // words), read as onError reads it for the log line.
    await env.DB.exec(
      "CREATE TRIGGER probe_refusal BEFORE INSERT ON wallets BEGIN SELECT RAISE(ABORT, 'probe_refusal'); END",
    );
    const failed = await createDb(env.DB)
      .insert(wallets)
      .values({
        id: unique("w").toLowerCase().slice(0, 32),
        name: "Probe",
        symbol: "P",
        symbolPosition: "left",
        decimals: 2,
        type: "fiat",
        // A line that reads as a stack frame: the stack's frames must not take it from the message.
        note: "private-note\n    at private-frame",
        createdAtMs: Date.now(),
      })
      .catch((err: unknown) => err);
    const line = { ...errorText(failed), stack: stackFrames(failed) };
    const text = JSON.stringify(line);
    for (const bound of ["private-note", "private-frame", "params:"])
      expect(text).not.toContain(bound);
    expect(line).toEqual({
      error: expect.stringContaining("probe_refusal: SQLITE_CONSTRAINT"),
      statement: expect.stringMatching(/^insert into "wallets" \(/),
      stack: expect.stringMatching(/^ {4}at /),
    });
  });

  it("drops a key's hash when D1 is lost while the key is read", async () => {
    const admin = await makeAdmin();
    const { key, header } = await makeKey(admin, "read");
    const { d1, lost } = losingReads(/"api_keys"/);
    const lines = captureLog();
    const res = await call("GET", "/wallets", { auth: header, d1 });
    expect(lost()).toBeGreaterThan(0);
    expect(res.status).toBe(503);
    const text = JSON.stringify(lines());
    expect(text).not.toContain(hashApiKey(key));
    expect(text).not.toContain(key);
    expect(lines()).toContainEqual({
      request_id: res.headers.get("x-request-id"),
      d1_unavailable: expect.stringContaining("Network connection lost"),
      statement: expect.stringContaining('from "api_keys"'),
    });
  });

  it("drops the e-mail address a sign-in names when D1 is lost while it is read", async () => {
    const admin = await makeAdmin();
    const { d1 } = losingReads(/from "users"/);
    const lines = captureLog();
    const res = await call("POST", "/users/login", {
      body: { user_email: admin.email, user_password: PASSWORD },
      d1,
    });
    expect(res.status).toBe(503);
    const text = JSON.stringify(lines());
    expect(text).toContain("Network connection lost");
    expect(text).not.toContain(admin.email);
  });

  it("says D1's words in GET /health's line and the webhook consumer's", async () => {
    const admin = await makeAdmin();
    const lines = captureLog();
    const hook = await subscribeWebhook(admin, "wallet.created");
    const health = await testApp().request(
      "/health",
      {},
      {
        ...env,
        DB: losingReads(/d1_migrations/).d1,
      },
    );
    expect(await health.json()).toMatchObject({ database: "unreachable" });
    const { d1 } = losingReads(/"webhook_endpoints"/);
    const batch = createMessageBatch<Nudge>("wallet-webhooks", [
      { id: "a", timestamp: new Date(), attempts: 1, body: { endpointId: hook.id } },
    ]);
    await consumeNudges(batch.messages, env, pumpDeps({ ...env, DB: d1 }));
    expect(lines()).toContainEqual({
      request_id: health.headers.get("x-request-id"),
      health: "D1 unreachable",
      error: "Error: D1_ERROR: Network connection lost.",
      statement: expect.stringMatching(/^SELECT name FROM d1_migrations WHERE name >= \? /),
    });
    expect(lines()).toContainEqual({
      webhook_endpoint: hook.id,
      fault: "Error: D1_ERROR: Network connection lost.",
      statement: expect.stringContaining('"webhook_endpoints"'),
    });
  });
});
