// The PHP client (clients/php/WalletClient.php, curl outside WordPress) against a running wrangler
// dev: php-scenario.php makes a credit, its repeat (409), a balance, a history page, a hold and its
// capture, and a refusal, and prints what it got. Needs php-cli with curl (.ci/run installs them).
// The server requires a security code on GET /transactions, as a site that sets
// TRANSACTIONS_SECURITY_CODE does; the scenario passes it among the history's filters.
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createWalletClient } from "../../clients/typescript";
import { ADMIN, startClientServer, unique } from "./server";

const API = "/wp-json/wallet/v1";
const SCENARIO = fileURLToPath(new URL("php-scenario.php", import.meta.url));
const SECURITY_CODE = "4321";
let stop: () => Promise<void>;
let args: string[];

beforeAll(async () => {
  const server = await startClientServer({ TRANSACTIONS_SECURITY_CODE: SECURITY_CODE });
  stop = () => server.stop({ keepState: false });
  const login = await createWalletClient(server.base).POST(`${API}/users/login`, {
    body: { user_email: ADMIN.email, user_password: ADMIN.password },
  });
  const token = login.data!.data.access_token;
  const admin = createWalletClient(server.base, { auth: { token } });
  const walletId = unique("w");
  await admin.POST(`${API}/wallets`, {
    body: { wallet_id: walletId, wallet_name: "Naira", wallet_symbol: "₦" },
  });
  const user = await admin.POST(`${API}/users`, {
    body: {
      username: unique("u"),
      user_email: `${unique("u")}@example.test`,
      user_password: "a-long-pass",
    },
  });
  args = [server.base, token, String(user.data!.data.id), walletId, SECURITY_CODE];
}, 120_000);

afterAll(() => stop?.());

describe("the PHP client against wrangler dev", () => {
  it.each([
    ["curl", 0],
    ["wordpress", 7],
  ])(
    "by %s: credits, refuses the repeat as AlreadyExists, reads, holds, captures, refuses a debit",
    (transport, wpCalls) => {
      const run = [SCENARIO, ...args, unique("p"), transport];
      const out = JSON.parse(execFileSync("php", run, { encoding: "utf8" }));
      expect(out.wp_remote_calls).toBe(wpCalls);
      expect(out.credit.transaction_id).toEqual(expect.any(Number));
      expect(out.repeat).toMatchObject({
        class: "AlreadyExists",
        status: 409,
        message: "Transaction already exists",
        error: { txn_id: String(out.credit.transaction_id) },
      });
      // Each run credits 25 more to the same user and wallet.
      expect(out.balance[args[3]!]).toBe(wpCalls === 0 ? 25 : 46);
      expect(out.history).toHaveLength(wpCalls === 0 ? 1 : 3);
      expect(out.hold.status).toBe("held");
      expect(out.capture).toMatchObject({ status: "captured", captured_amount: 4 });
      expect(out.refusal).toEqual({
        class: "InsufficientBalance",
        status: 400,
        message: "Insufficient Balance",
      });
    },
  );
});
