// GET /transactions without paging streams the whole history, and GET /statements?format=csv a
// whole statement; one longer than one read is sent one at a time per caller: a second such request
// of the same caller while the first is still being sent gets 429 with Retry-After, and nothing of
// the history.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { HISTORY_CHUNK } from "../src/db/ledger";
import { HISTORY_LEASE_MS } from "../src/throttle/history-gate";
import {
  API,
  appAt,
  appendHistory,
  call,
  makeAccount,
  makeKey,
  makeUser,
  type TestUser,
  testApp,
} from "./helpers";

const LONG = HISTORY_CHUNK + 1; // one entry past what the first read holds

/** A subscriber with `entries` entries in one wallet, and its administrator. */
async function account(entries: number) {
  const { admin, user, wallet } = await makeAccount();
  await appendHistory(user.id, wallet, entries);
  return { admin, user, wallet };
}

const wholeHistory = (user: { id: number }, query = "") =>
  `${API}/transactions?security_code=1&user_id=${user.id}${query}`;

/** Starts a whole-history answer and reads only its first bytes, so the stream stays open. */
async function openStream(auth: string, user: { id: number }, app = testApp()) {
  const res = await app.request(wholeHistory(user), { headers: { Authorization: auth } }, env);
  expect(res.status).toBe(200);
  const reader = res.body!.getReader();
  const first = new TextDecoder().decode((await reader.read()).value);
  expect(first).toBe(
    '{"status_code":200,"status":true,"message":"Txns Retrieved Successful","data":[',
  );
  return {
    /** Reads the rest of the answer: the stream ends and gives the gate back. */
    async finish() {
      let text = first;
      const decoder = new TextDecoder();
      for (let r = await reader.read(); !r.done; r = await reader.read())
        text += decoder.decode(r.value, { stream: true });
      return JSON.parse(text) as { data: unknown[] };
    },
    cancel: () => reader.cancel(),
  };
}

const list = (auth: string, user: TestUser, query: Record<string, string | number> = {}) =>
  call("GET", "/transactions", { auth, query: { security_code: 1, user_id: user.id, ...query } });

describe("GET /transactions: one whole history past one read at a time per caller", () => {
  it("a second long whole history of the same caller while one is sent answers 429 with Retry-After and nothing of the history", async () => {
    const { user } = await account(LONG);
    const stream = await openStream(user.bearer, user);
    const refused = await list(user.bearer, user);
    expect(refused.status).toBe(429);
    expect(refused.headers.get("Retry-After")).toBe("1");
    expect(refused.headers.get("X-WP-Total")).toBeNull();
    expect(refused.body).toStrictEqual({
      status_code: 429,
      status: false,
      message: "A full history is already being sent",
      error: {
        per_page:
          "one full history at a time: wait for the one being sent, or page with per_page (1-100) and page",
      },
    });
    expect((await stream.finish()).data).toHaveLength(LONG);
  });

  it("once the first answer has been read to its end, the next whole history is sent in full", async () => {
    const { user } = await account(LONG);
    const stream = await openStream(user.bearer, user);
    await stream.finish();
    const again = await list(user.bearer, user);
    expect(again.status).toBe(200);
    expect(again.body.data).toHaveLength(LONG);
    expect(again.headers.get("X-WP-Total")).toBe(String(LONG));
  });

  it("a HEAD answers a long history's headers and holds no turn: the next GET is sent in full", async () => {
    const { user } = await account(LONG);
    const head = await testApp().request(
      wholeHistory(user),
      { method: "HEAD", headers: { Authorization: user.bearer } },
      env,
    );
    expect(head.status).toBe(200);
    expect(head.headers.get("X-WP-Total")).toBe(String(LONG));
    expect(await head.text()).toBe("");
    const next = await list(user.bearer, user);
    expect(next.status).toBe(200);
    expect(next.body.data).toHaveLength(LONG);
  });

  it("a client that drops its answer midway gives the gate back", async () => {
    const { user } = await account(LONG);
    const stream = await openStream(user.bearer, user);
    await stream.cancel();
    expect((await list(user.bearer, user)).status).toBe(200);
  });

  it("is per caller: another user, and an administrator reading the same user, are sent theirs meanwhile", async () => {
    const { admin, user } = await account(LONG);
    const other = await account(LONG);
    const stream = await openStream(user.bearer, user);
    const theirs = await list(other.user.bearer, other.user);
    expect(theirs.status).toBe(200);
    expect(theirs.body.data).toHaveLength(LONG);
    const admins = await list(admin.bearer, user);
    expect(admins.status).toBe(200);
    expect(admins.body.data).toHaveLength(LONG);
    await stream.finish();
  });

  it("counts the caller, whatever credential it uses: the user's API key is refused while its token streams", async () => {
    const { user } = await account(LONG);
    const key = await makeKey(user, "read");
    const stream = await openStream(user.bearer, user);
    expect((await list(key.header, user)).status).toBe(429);
    await stream.finish();
    expect((await list(key.header, user)).status).toBe(200);
  });

  it("leaves histories that fit one read and every paged request alone, however many run at once", async () => {
    const { user, wallet } = await account(LONG);
    const short = await makeUser();
    await appendHistory(short.id, wallet, HISTORY_CHUNK);
    const stream = await openStream(user.bearer, user);
    const answers = await Promise.all([
      list(user.bearer, user, { per_page: 100 }),
      list(user.bearer, user, { page: 6 }),
      list(short.bearer, short),
      list(short.bearer, short),
    ]);
    expect(answers.map((a) => [a.status, a.body.data.length])).toEqual([
      [200, 100],
      [200, 1],
      [200, HISTORY_CHUNK],
      [200, HISTORY_CHUNK],
    ]);
    await stream.finish();
  });

  it("a gate never given back (its isolate died) opens again after the lease", async () => {
    const { user } = await account(LONG);
    const startMs = Date.UTC(2030, 0, 1);
    const lost = await openStream(user.bearer, user, appAt(startMs));
    const during = await appAt(startMs + HISTORY_LEASE_MS - 1).request(
      wholeHistory(user),
      { headers: { Authorization: user.bearer } },
      env,
    );
    expect(during.status).toBe(429);
    await during.text();
    const after = await appAt(startMs + HISTORY_LEASE_MS).request(
      wholeHistory(user),
      { headers: { Authorization: user.bearer } },
      env,
    );
    expect(after.status).toBe(200);
    expect(JSON.parse(await after.text()).data).toHaveLength(LONG);
    await lost.cancel();
  });

  it("without credentials answers 401 and for another user's history 403, before any gate", async () => {
    const { user } = await account(LONG);
    const stranger = await makeUser();
    const stream = await openStream(user.bearer, user);
    expect((await call("GET", "/transactions", { query: { security_code: 1 } })).status).toBe(401);
    expect((await list(stranger.bearer, user)).status).toBe(403);
    await stream.finish();
  });
});

describe("GET /statements?format=csv: one statement past one read at a time per caller", () => {
  it("a second long CSV while one is sent answers 429; a HEAD or a dropped answer gives the turn back", async () => {
    const { user, wallet } = await account(LONG);
    const app = testApp();
    const csv = (method = "GET") =>
      app.request(
        `${API}/statements?user_id=${user.id}&wallet_id=${wallet}&format=csv`,
        { method, headers: { Authorization: user.bearer } },
        env,
      );
    const head = await csv("HEAD");
    expect(head.status).toBe(200);
    expect(head.headers.get("X-WP-Total")).toBe(String(LONG));
    expect(await head.text()).toBe("");

    const first = await csv();
    expect(first.status).toBe(200);
    const reader = first.body!.getReader();
    await reader.read();
    const refused = await csv();
    expect(refused.status).toBe(429);
    expect(refused.headers.get("Retry-After")).toBe("1");
    expect(((await refused.json()) as { message: string }).message).toBe(
      "A full history is already being sent",
    );
    await reader.cancel();

    const after = await csv();
    expect(after.status).toBe(200);
    const lines = (await after.text()).split(/\r?\n/).filter((line) => line !== "");
    expect(lines).toHaveLength(LONG + 1); // the header line and every entry
  });
});
