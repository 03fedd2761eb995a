// Lists longer than one call of a platform API takes: D1 binds at most 100 values to a statement,
// Cloudflare Queues takes at most 100 messages in a sendBatch. A site with more wallets than one
// balance read may name, or more webhook endpoints than one batch holds, is read and nudged in parts.
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { forgetEndpoints, nudgeAfterCommit, sweepOutbox } from "../src/events/queue";
import { MAX_WALLETS_PER_READ, userBalances } from "../src/wallet/balances";
import { consoleOf } from "./console-helpers";
import {
  credit,
  fakeQueue,
  makeAdmin,
  makeUser,
  makeWallet,
  subscribeWebhook,
  type TestUser,
  testApp,
} from "./helpers";
import { serviceAs } from "./service-helpers";

const WALLETS = 2 * MAX_WALLETS_PER_READ + 20;
const ENDPOINTS = 120;
let admin: TestUser;
let alice: TestUser;
let walletIds: string[];

beforeAll(async () => {
  [admin, alice] = [await makeAdmin(), await makeUser()];
  walletIds = [];
  for (let i = 0; i < WALLETS; i++)
    walletIds.push(await makeWallet(admin, { id: `many${String(i).padStart(3, "0")}` }));
  for (const [i, id] of [walletIds[0]!, walletIds[WALLETS - 1]!].entries())
    await credit(admin, { user_id: alice.id, wallet_id: id, amount: `${i + 1}.25` });
});

describe(`a site with ${WALLETS} wallets`, () => {
  it("the balance verb answers every wallet named", async () => {
    const found = await userBalances(serviceAs(admin), { userId: alice.id, walletIds });
    expect(found.size).toBe(WALLETS);
    expect(found.get(walletIds[0]!)?.minor).toBe(125);
    expect(found.get(walletIds[WALLETS - 1]!)?.minor).toBe(225);
    expect(found.get(walletIds[60]!)?.minor).toBe(0);
  });

  it(`the balance verb reads ${MAX_WALLETS_PER_READ} wallets at a time, a full read last at a multiple`, async () => {
    const service = serviceAs(admin);
    const reads: number[] = [];
    const ctx = {
      ...service,
      ledger: {
        ...service.ledger,
        readBalances: (userId: number, ids: string[]) => {
          reads.push(ids.length);
          return service.ledger.readBalances(userId, ids);
        },
      },
    };
    const readsFor = async (count: number) => {
      reads.length = 0;
      const found = await userBalances(ctx, {
        userId: alice.id,
        walletIds: walletIds.slice(0, count),
      });
      expect(found.size).toBe(count);
      return [...reads];
    };
    const most = MAX_WALLETS_PER_READ;
    expect(await readsFor(most)).toEqual([most]);
    expect(await readsFor(most + 1)).toEqual([most, 1]);
    expect(await readsFor(2 * most)).toEqual([most, most]);
  });

  it("the console's user page shows every balance", async () => {
    const { request, signIn } = consoleOf(testApp());
    const page = await request(`/users/${alice.id}`, { cookie: await signIn(admin) });
    expect(page.status, page.html).toBe(200);
    expect(page.html).toContain("₦1.25");
    expect(page.html).toContain("₦2.25");
  });
});

describe(`a site with ${ENDPOINTS} webhook endpoints`, () => {
  it("a write nudges, and the cron's sweep finds, every one of them", async () => {
    const hooks = [];
    for (let i = 0; i < ENDPOINTS; i++)
      hooks.push(await subscribeWebhook(admin, "transaction.created"));
    await credit(admin, { user_id: alice.id, wallet_id: walletIds[1]!, amount: "1" });
    const everyone = hooks
      .map((h) => ({ endpointId: h.id }))
      .sort((a, b) => a.endpointId - b.endpointId);
    const byId = (sent: unknown[]) =>
      (sent as { endpointId: number }[]).sort((a, b) => a.endpointId - b.endpointId);

    forgetEndpoints(env.DB);
    const nudged = fakeQueue();
    await nudgeAfterCommit(env.DB, nudged.queue, Date.now());
    expect(byId(nudged.sent)).toEqual(everyone);

    const swept = fakeQueue();
    expect(await sweepOutbox(env.DB, { WEBHOOK_QUEUE: swept.queue }, Date.now())).toBe(ENDPOINTS);
    expect(byId(swept.sent)).toEqual(everyone);
  });
});
