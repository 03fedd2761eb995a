// 7. Rate limits and overload over HTTP (docs/security.md#rate-limits): a server of this section's
// own on wrangler.toml as it ships, its money rate limit included. One caller sends its minute's
// share of credits and 100 more over 32 connections: exactly the share lands, the rest answer 429
// with Retry-After in envelope A and write nothing, reads go on, and nothing answers 5xx. (A D1
// that answers "overloaded" before or after committing cannot be made over HTTP on local D1: the
// Workers tests inject it, test/rate-limits.test.ts.)

import { it } from "vitest";
import { unstable_getMiniflareWorkerOptions } from "wrangler";
import { balance, connect, createUser, createWallet } from "./api";
import { at, check, histogram, note, pool, send, sleep, unique } from "./harness";
import { endOfSection, section, startOnCopy } from "./section";

const { run } = section("overload");

/** The money limit as the shipped config declares it (wrangler's own reading of the file). */
function shippedLimit() {
  const { workerOptions } = unstable_getMiniflareWorkerOptions(run.config);
  const options = (
    workerOptions as { ratelimits?: Record<string, { simple: { limit: number; period: number } }> }
  ).ratelimits?.MONEY_RATE_LIMIT?.simple;
  if (!options) throw new Error("wrangler.toml declares no MONEY_RATE_LIMIT");
  return options;
}

it("one caller's money requests past its share answer 429 with Retry-After and write nothing; exactly the share lands", async () => {
  const { limit, period } = shippedLimit();
  const server = await startOnCopy(run, { shippedRateLimits: true });
  try {
    const own = await connect(server, run.config);
    const [wallet, user] = await Promise.all([
      createWallet(own, { prefix: "ol" }),
      createUser(own, "olu"),
    ]);
    // The limiter counts in windows of `period` seconds: start where the whole burst fits in one.
    const windowMs = period * 1000;
    const leftMs = () => windowMs - (Date.now() % windowMs);
    if (leftMs() < 30_000) await sleep(leftMs() + 50);
    const before = Math.floor(Date.now() / windowMs);
    const bodies = Array.from({ length: limit + 100 }, () => ({
      user_id: user.id,
      wallet_id: wallet,
      amount: "0.01",
      request_id: unique("ol-"),
    }));
    const startedMs = Date.now();
    const answers = await pool(bodies, 32, (json) =>
      send(own.api, "POST", "/credits", { auth: own.adminAuth, json }),
    );
    const seconds = (Date.now() - startedMs) / 1000;
    const inOneWindow = Math.floor(Date.now() / windowMs) === before;
    const statuses = answers.map((a) => a!.status);
    const landed = statuses.filter((s) => s === 200).length;
    const refused = answers.filter((a) => a!.status === 429);
    note(
      `${bodies.length} credits in ${seconds.toFixed(1)} s: ${landed} landed, ${refused.length} refused (limit ${limit} per ${period} s)`,
    );
    check(
      `${bodies.length} credits from one caller: exactly its share of ${limit} lands, every other one is 429`,
      inOneWindow && landed === limit && refused.length === bodies.length - limit,
      `in one window: ${inOneWindow}; statuses ${JSON.stringify(histogram(statuses))}`,
    );
    const wellFormed = refused.every((a) => {
      const retry = Number(a!.headers.get("retry-after"));
      return (
        retry >= 1 &&
        retry <= 60 &&
        at(a!.json, "status_code") === 429 &&
        at(a!.json, "status") === false &&
        at(a!.json, "message") === "Too many requests" &&
        at(a!.json, "error", "rate") ===
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
  }
});

endOfSection();
