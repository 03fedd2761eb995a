// What the database stops keeping once it is of no use (docs/operations.md#what-the-database-keeps-and-for-how-long):
// the cron's hourly pass deletes expired sessions and mail tokens that no sign-in or mail request
// of their own pruned (a user who never signs in again, a burst of mail requests and then none).
import { env } from "cloudflare:workers";
import { describe, expect, it, vi } from "vitest";
import { EXPIRED_PER_PASS } from "../src/db/sessions";
import worker from "../src/index";
import { aroundReads } from "./d1-counter";
import { fakeQueue, makeUser, runCron, signedToken, unique } from "./helpers";

const HOUR_MS = 3_600_000;
const count = async (query: string, ...values: unknown[]) =>
  (await env.DB.prepare(query)
    .bind(...values)
    .first<{ n: number }>())!.n;

/**
 * The cron's run at `scheduledMs` and the line it logged. The runs are in the past (the start of
 * this hour, a minute before it), so what they delete had expired for everyone, other files' rows
 * in the shared database too.
 */
async function cronAt(scheduledMs: number) {
  const logs = vi.spyOn(console, "log").mockImplementation(() => {});
  try {
    await runCron(scheduledMs);
    const lines = logs.mock.calls.map(([line]) => JSON.parse(String(line)));
    return lines.find((l) => "holds_expired" in l);
  } finally {
    vi.restoreAllMocks();
  }
}

async function mailToken(email: string, expiresAtMs: number, usedAtMs: number | null) {
  const hash = unique("hash");
  await env.DB.prepare(
    `INSERT INTO mail_tokens (token_hash, purpose, user_id, email, created_at_ms, expires_at_ms, used_at_ms)
     VALUES (?, 'password-reset', NULL, ?, ?, ?, ?)`,
  )
    .bind(hash, email, expiresAtMs - 1_800_000, expiresAtMs, usedAtMs)
    .run();
  return hash;
}

describe("the cron's hourly pass", () => {
  it("deletes the expired sessions of a user who never signs in again, keeping live and revoked ones", async () => {
    const user = await makeUser(); // one live session
    const longAgo = Date.now() - 10 * 86_400_000;
    // Live, then revoked: kept until it expires, so its token stays refused as long as it verifies.
    const { sessionId } = await signedToken(user);
    await env.DB.prepare("UPDATE sessions SET revoked_at_ms = ? WHERE id = ?")
      .bind(Date.now(), sessionId)
      .run();
    // Then three that expired long ago (a sign-in written after them would prune them itself).
    for (let i = 0; i < 3; i++) await signedToken(user, { nowMs: longAgo, lifetimeS: 60 });
    const sessionsOf = () => count("SELECT count(*) AS n FROM sessions WHERE user_id = ?", user.id);
    expect(await sessionsOf()).toBe(5);

    const hourStart = Math.floor(Date.now() / HOUR_MS) * HOUR_MS;
    // Any other minute's run deletes nothing: the pass reads the whole table, once an hour.
    await cronAt(hourStart - 60_000);
    expect(await sessionsOf()).toBe(5);
    const line = await cronAt(hourStart);
    expect(await sessionsOf()).toBe(2);
    expect(line.sessions_deleted).toBeGreaterThanOrEqual(3);
    expect(line.sessions_deleted).toBeLessThanOrEqual(EXPIRED_PER_PASS);
  });

  it("judges expiry by the clock, so a run scheduled ahead of it deletes no live session", async () => {
    // The tests run the cron at future instants (holds expiring in 2027) on the database every
    // file shares: a pass at such an hour must not end the others' sessions.
    const user = await makeUser();
    const live = () => count("SELECT count(*) AS n FROM sessions WHERE user_id = ?", user.id);
    expect(await live()).toBe(1);
    await cronAt(Date.UTC(2030, 0, 1));
    expect(await live()).toBe(1);
  });

  it("deletes expired mail tokens, used or not, and keeps the live ones", async () => {
    const email = `${unique("inbox")}@example.test`;
    const longAgo = Date.now() - 10 * 86_400_000;
    await mailToken(email, longAgo, null);
    await mailToken(email, longAgo, longAgo - 60_000);
    const live = await mailToken(email, Date.now() + HOUR_MS, null);
    const tokensTo = () => count("SELECT count(*) AS n FROM mail_tokens WHERE email = ?", email);
    expect(await tokensTo()).toBe(3);

    const hourStart = Math.floor(Date.now() / HOUR_MS) * HOUR_MS;
    const line = await cronAt(hourStart);
    const left = await env.DB.prepare("SELECT token_hash FROM mail_tokens WHERE email = ?")
      .bind(email)
      .all<{ token_hash: string }>();
    expect(left.results).toEqual([{ token_hash: live }]);
    expect(line.mail_tokens_deleted).toBeGreaterThanOrEqual(2);
  });

  it("deletes the expired mail tokens when the sessions' deletion fails, and names that step", async () => {
    const email = `${unique("inbox")}@example.test`;
    await mailToken(email, Date.now() - 10 * 86_400_000, null);
    const lines = await hourlyRunRefusing(/^delete from "sessions"/i, "delete_sessions");
    const line = lines.find((l) => "holds_expired" in l)!;
    expect(line.sessions_deleted).toBeUndefined();
    expect(line.mail_tokens_deleted).toBeGreaterThanOrEqual(1);
    expect(await count("SELECT count(*) AS n FROM mail_tokens WHERE email = ?", email)).toBe(0);
  });

  it("logs what it deleted when the holds' expiry fails, leaving holds_expired out", async () => {
    const email = `${unique("inbox")}@example.test`;
    await mailToken(email, Date.now() - 10 * 86_400_000, null);
    const lines = (await hourlyRunRefusing(/"holds"/, "expire_holds")).filter(
      (l) => "mail_tokens_deleted" in l,
    );
    expect(lines).toHaveLength(1);
    expect(lines[0]).not.toHaveProperty("holds_expired");
    expect(lines[0]!.mail_tokens_deleted).toBeGreaterThanOrEqual(1);
    expect(lines[0]!.sessions_deleted).toBeGreaterThanOrEqual(0);
  });
});

/**
 * The cron's run in an hour's first minute with every statement `refused` matches failing: it
 * fails naming `step` alone, logs that step's fault, and answers its log lines.
 */
async function hourlyRunRefusing(refused: RegExp, step: string) {
  const refusing = aroundReads(refused, () => {
    throw new Error("D1_ERROR: Network connection lost.");
  });
  const errors = vi.spyOn(console, "error").mockImplementation(() => {});
  const logs = vi.spyOn(console, "log").mockImplementation(() => {});
  try {
    const hourStart = Math.floor(Date.now() / HOUR_MS) * HOUR_MS;
    const { queue } = fakeQueue();
    await expect(
      worker.scheduled(
        { scheduledTime: hourStart, cron: "* * * * *", noRetry() {} },
        { ...env, DB: refusing, WEBHOOK_QUEUE: queue },
      ),
    ).rejects.toThrow(new Error(`Cron steps failed (logged): ${step}`));
    const faults = errors.mock.calls.map(([line]) => JSON.parse(String(line)));
    expect(faults).toEqual([expect.objectContaining({ step })]);
    return logs.mock.calls.map(([line]) => JSON.parse(String(line)) as Record<string, unknown>);
  } finally {
    vi.restoreAllMocks();
  }
}
