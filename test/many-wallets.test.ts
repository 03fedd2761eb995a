// A site with more wallets than one balance read may name (MAX_WALLETS_PER_READ): the console's
// user page and the service's balance verb name every wallet, and D1 binds at most 100 values in
// one statement, so the read goes in parts.
import { beforeAll, describe, expect, it } from "vitest";
import { MAX_WALLETS_PER_READ, userBalances } from "../src/wallet/balances";
import { consoleOf } from "./console-helpers";
import { credit, makeAdmin, makeUser, makeWallet, type TestUser, testApp } from "./helpers";
import { serviceAs } from "./service-helpers";

const WALLETS = 2 * MAX_WALLETS_PER_READ + 20;
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

  it("the console's user page shows every balance", async () => {
    const { request, signIn } = consoleOf(testApp());
    const page = await request(`/users/${alice.id}`, { cookie: await signIn(admin) });
    expect(page.status, page.html).toBe(200);
    expect(page.html).toContain("₦1.25");
    expect(page.html).toContain("₦2.25");
  });
});
