// The simulated remote D1 of `npm run bench -- --remote-d1` (bench/remote-d1/): the app runs over
// the latency model's binding unchanged (sessions, meter, group commit), each D1 call is counted as
// a read or a write, and the bench worker's credit path without group commit writes each credit
// alone. Nothing here measures time: the round trip is 1 ms so that calls overlap.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { latencyD1 } from "../bench/remote-d1/latency-d1";
import { RemoteD1Model } from "../bench/remote-d1/model";
import { oneWritePerCredit } from "../bench/remote-d1/worker";
import {
  balanceOf,
  CLEAN,
  call,
  ledgerViolations,
  makeAdmin,
  makeUser,
  makeWallet,
  testApp,
  unique,
} from "./helpers";

async function creditsOver(d1: D1Database, count: number, app = testApp()) {
  const admin = await makeAdmin();
  const wallet = await makeWallet(admin);
  const user = await makeUser();
  const replies = await Promise.all(
    Array.from({ length: count }, () =>
      call("POST", "/credits", {
        app,
        d1,
        auth: admin.bearer,
        body: { user_id: user.id, wallet_id: wallet, amount: "2.00", request_id: unique("r") },
      }),
    ),
  );
  return { admin, wallet, user, statuses: replies.map((r) => r.status) };
}

describe("the simulated remote D1", () => {
  it("carries concurrent credits through group commit: each written once, fewer writes than credits", async () => {
    const model = new RemoteD1Model(1);
    const { admin, wallet, user, statuses } = await creditsOver(latencyD1(env.DB, model), 20);

    expect(statuses).toEqual(Array(20).fill(200));
    expect(await balanceOf(admin, user.id, wallet)).toBe(40);
    // One INSERT per credit, in fewer write calls than credits (shared batches).
    expect(model.stats.writeStatements).toBe(20);
    expect(model.stats.writes).toBeLessThan(20);
    expect(await ledgerViolations()).toEqual(CLEAN);
  });

  it("writes each credit in a D1 write of its own with the bench worker's group commit off", async () => {
    const model = new RemoteD1Model(1);
    const app = testApp({ ledger: oneWritePerCredit });
    const { admin, wallet, user, statuses } = await creditsOver(latencyD1(env.DB, model), 10, app);

    expect(statuses).toEqual(Array(10).fill(200));
    expect(await balanceOf(admin, user.id, wallet)).toBe(20);
    expect(model.stats).toMatchObject({ writes: 10, writeStatements: 10 });
    expect(await ledgerViolations()).toEqual(CLEAN);
  });

  it("answers a balance read through the model as a read, holding no writer", async () => {
    const admin = await makeAdmin();
    const wallet = await makeWallet(admin);
    const user = await makeUser();
    await call("POST", "/credits", {
      auth: admin.bearer,
      body: { user_id: user.id, wallet_id: wallet, amount: "3.00", request_id: unique("r") },
    });
    const model = new RemoteD1Model(1);
    const reply = await call("GET", "/user-wallet-balance", {
      d1: latencyD1(env.DB, model),
      auth: admin.bearer,
      query: { user_id: user.id, wallet_id: wallet },
    });

    expect(reply.status).toBe(200);
    expect(reply.body.data[wallet]).toBe(3);
    expect(model.stats.reads).toBeGreaterThan(0);
    expect(model.stats.writes).toBe(0);
  });
});
