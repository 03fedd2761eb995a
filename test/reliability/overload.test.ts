// 7. Rate limits and overload over HTTP (docs/security.md#rate-limits): a server of this section's
// own on wrangler.toml's money rate limit binding as it ships, its limit lowered to SHARE a period.
// One caller sends its share of credits and 100 more over 32 connections: exactly the share lands,
// the rest answer 429 with Retry-After in envelope A and write nothing, reads go on, and nothing
// answers 5xx. (A D1 that answers "overloaded" before or after committing cannot be made over HTTP
// on local D1: the Workers tests inject it, test/rate-limits.test.ts.)

import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { it } from "vitest";
import { unstable_getMiniflareWorkerOptions } from "wrangler";
import { startServer } from "../../scripts/lib/server";
import { withRateLimits } from "../../scripts/lib/wrangler-toml";
import { balance, type Ctx, connect, createUser, createWallet } from "./api";
import { at, check, histogram, note, pool, send, sleep, unique } from "./harness";
import { endOfSection, section } from "./section";

const { run } = section("overload");

/**
 * The caller's share in this section. A loaded machine can take more than a minute to send the
 * shipped 3,000 (so no window sees more than the share and nothing is refused); this share and 100
 * more take seconds. Several times the 32 connections, so the share runs out with every connection
 * busy.
 */
const SHARE = 100;
/** Bursts sent before giving up on one that fits in one window of the limiter. */
const ATTEMPTS = 3;
/**
 * The time a burst is given to fit in the window it starts in: a few times what one takes on a
 * loaded machine (a second or two). Less is left of the window: the burst waits for the next.
 */
const BURST_ROOM_MS = 15_000;

/** The money limit as `config` declares it (wrangler's own reading of the file). */
function moneyLimit(config: string) {
  const { workerOptions } = unstable_getMiniflareWorkerOptions(config);
  const options = (
    workerOptions as { ratelimits?: Record<string, { simple: { limit: number; period: number } }> }
  ).ratelimits?.MONEY_RATE_LIMIT?.simple;
  if (!options) throw new Error(`${config} declares no MONEY_RATE_LIMIT`);
  return options;
}

/**
 * `share` and 100 more credits from `ctx`'s administrator to a new user's new wallet, 32 at a time,
 * sent once `ready` resolves.
 */
async function sendBurst(ctx: Ctx, share: number, ready: () => Promise<void>) {
  const [wallet, user] = await Promise.all([
    createWallet(ctx, { prefix: "ol" }),
    createUser(ctx, "olu"),
  ]);
  const bodies = Array.from({ length: share + 100 }, () => ({
    user_id: user.id,
    wallet_id: wallet,
    amount: "0.01",
    request_id: unique("ol-"),
  }));
  await ready();
  const firstMs = Date.now();
  const answers = await pool(bodies, 32, (json) =>
    send(ctx.api, "POST", "/credits", { auth: ctx.adminAuth, json }),
  );
  return { user, wallet, answers: answers.map((a) => a!), firstMs, lastMs: Date.now() };
}

it("one caller's money requests past its share answer 429 with Retry-After and write nothing; exactly the share lands", async () => {
  // wrangler.toml's binding with only its limit changed, beside the run's copy of it so that its
  // relative paths hold.
  const config = join(dirname(run.config), "wrangler.overload.toml");
  writeFileSync(config, withRateLimits(readFileSync(run.config, "utf8"), SHARE));
  const { limit, period } = moneyLimit(config);
  if (limit !== SHARE || period !== moneyLimit(run.config).period)
    throw new Error(
      `${config} declares ${limit} per ${period} s, not the shipped binding at ${SHARE}`,
    );
  const server = await startServer({ config, shippedRateLimits: true, logLevel: "warn" });
  try {
    const own = await connect(server, config);
    // The limiter counts each caller in windows of `period` seconds aligned to the clock, every
    // count 0 when one turns, so a burst counted across a turn lands more than the share and
    // proves nothing. Each request is counted between its sending and its answer, on this
    // machine's clock: a burst whose first sending and last answer fall in one window was counted
    // in it. One that spanned two is sent again in a window this caller has sent nothing in.
    const windowMs = period * 1000;
    const windowAt = (ms: number) => Math.floor(ms / windowMs);
    const windowAfter = async (window: number) => {
      while (windowAt(Date.now()) <= window) await sleep(windowMs - (Date.now() % windowMs) + 10);
    };
    // The caller's first money request comes now, so its count is 0 in any window; with less than
    // BURST_ROOM_MS of this one left, the burst starts in the next.
    let burst = await sendBurst(own, limit, async () => {
      if (windowMs - (Date.now() % windowMs) < BURST_ROOM_MS)
        await windowAfter(windowAt(Date.now()));
    });
    let windows = windowAt(burst.lastMs) - windowAt(burst.firstMs) + 1;
    for (let attempt = 2; windows > 1 && attempt <= ATTEMPTS; attempt++) {
      note(
        `a burst spanned ${windows} of the limiter's windows (${burst.answers.filter((a) => a.status === 200).length} of ${burst.answers.length} landed): sent again in a new one`,
      );
      const last = windowAt(burst.lastMs);
      burst = await sendBurst(own, limit, () => windowAfter(last));
      windows = windowAt(burst.lastMs) - windowAt(burst.firstMs) + 1;
    }
    const { user, wallet, answers } = burst;
    const statuses = answers.map((a) => a.status);
    const landed = statuses.filter((s) => s === 200).length;
    const refused = answers.filter((a) => a.status === 429);
    note(
      `${answers.length} credits in ${((burst.lastMs - burst.firstMs) / 1000).toFixed(1)} s: ${landed} landed, ${refused.length} refused (limit ${limit} per ${period} s)`,
    );
    check(
      `${answers.length} credits from one caller in one window of the limiter: exactly its share of ${limit} lands, every other one is 429`,
      windows === 1 && landed === limit && refused.length === answers.length - limit,
      `windows spanned: ${windows}; statuses ${JSON.stringify(histogram(statuses))}`,
    );
    const wellFormed = refused.every((a) => {
      const retry = Number(a.headers.get("retry-after"));
      return (
        retry >= 1 &&
        retry <= 60 &&
        at(a.json, "status_code") === 429 &&
        at(a.json, "status") === false &&
        at(a.json, "message") === "Too many requests" &&
        at(a.json, "error", "rate") ===
          `Too many money requests from this caller: try again in ${retry} seconds`
      );
    });
    check(
      "every refusal is envelope A's 429 with a Retry-After of at most a minute",
      refused.length > 0 && wellFormed,
      refused[0]?.text,
    );
    const after = await balance(own, user.id, wallet);
    check(
      "the balance holds exactly the credits that landed",
      Math.round((after ?? 0) * 100) === landed,
      `balance ${after}, landed ${landed}`,
    );
    const read = await send(own.api, "GET", "/transactions", {
      auth: own.adminAuth,
      query: { user_id: user.id, security_code: 0, per_page: 1 },
    });
    check(
      "reads go on while the caller's money routes are refused",
      read.status === 200 && Number(read.headers.get("x-wp-total")) === landed,
      `${read.status} X-WP-Total ${read.headers.get("x-wp-total")}`,
    );
  } finally {
    await server.stop({ keepState: false });
    rmSync(config, { force: true });
  }
});

endOfSection();
