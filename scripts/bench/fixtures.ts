// The bench's own data, made through the API it measures: users, wallets and some history.

/** A JSON call that must answer `expect` (default 2xx); returns the parsed body. */
export async function call(
  api: string,
  auth: string | null,
  method: string,
  path: string,
  body?: unknown,
  expect?: number,
  headers: Record<string, string> = {},
  // biome-ignore lint/suspicious/noExplicitAny: the API's JSON, read field by field by the caller
): Promise<any> {
  const res = await fetch(`${api}${path}`, {
    method,
    headers: {
      ...headers,
      ...(auth ? { Authorization: auth } : {}),
      ...(body === undefined ? {} : { "Content-Type": "application/json" }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  const ok = expect === undefined ? res.status >= 200 && res.status < 300 : res.status === expect;
  if (!ok) throw new Error(`${method} ${path} answered ${res.status}: ${text.slice(0, 500)}`);
  return JSON.parse(text);
}

export const USER_PASSWORD = "bench-user-pass";
export const WALLETS = ["bench_a", "bench_b", "bench_c", "bench_d", "bench_e"] as const;
export const TRANSFER_WALLET = WALLETS[2];

export type BenchUser = { id: number; username: string; email: string };

/**
 * Makes `creditUsers` users for the credit load, one user with a history (for balance reads,
 * transaction pages and login), two whose histories the cost pass compares, five wallets, and one
 * credit whose request_id the duplicate scenario replays and whose transaction the single-record
 * read fetches.
 */
export async function makeFixtures({
  api,
  auth,
  runId,
  creditUsers = 8,
  historyEntries = 30,
}: {
  api: string;
  auth: string;
  runId: string;
  creditUsers?: number;
  historyEntries?: number;
}) {
  for (const [i, wallet_id] of WALLETS.entries()) {
    await call(api, auth, "POST", "/wallets", {
      wallet_id,
      wallet_name: `Bench wallet ${i + 1}`,
      wallet_symbol: i === 0 ? "₦" : "BC",
      wallet_symbol_position: i === 0 ? "left" : "right",
      wallet_decimal: 2,
    });
  }
  const makeUser = async (name: string): Promise<BenchUser> => {
    const username = `${name}_${runId}`;
    const email = `${username}@bench.example.test`;
    const res = await call(api, auth, "POST", "/users", {
      username,
      user_email: email,
      user_password: USER_PASSWORD,
    });
    return { id: res.data.id, username, email };
  };
  const reader = await makeUser("reader");
  // For balance reads against the history's length: 10 entries here, the other's appended later.
  const history = { short: await makeUser("hist10"), long: await makeUser("hist100k") };
  const users: BenchUser[] = [];
  for (let i = 0; i < creditUsers; i++) users.push(await makeUser(`payee${i}`));

  const credit = (
    user_id: number,
    wallet_id: string,
    amount: string | number,
    request_id: string,
  ) => call(api, auth, "POST", "/credits", { user_id, wallet_id, amount, request_id });
  for (let i = 0; i < historyEntries; i++)
    await credit(reader.id, WALLETS[0], "12.50", `hist-${i}`);
  for (const wallet of WALLETS.slice(1)) await credit(reader.id, wallet, 3, `hist-${wallet}`);
  for (let i = 0; i < 10; i++) await credit(history.short.id, WALLETS[0], 1, `short-${i}`);
  // What the transfers scenario moves between the payees, apart from the credits' wallet.
  for (const u of users) await credit(u.id, TRANSFER_WALLET, 1_000_000, `fund-${u.id}`);
  const duplicate = {
    user_id: users[0]!.id,
    wallet_id: WALLETS[0],
    amount: 1,
    request_id: "dup-replayed",
  };
  const known = await credit(
    duplicate.user_id,
    duplicate.wallet_id,
    duplicate.amount,
    duplicate.request_id,
  );
  return { reader, users, history, duplicate, transactionId: known.data.transaction_id };
}

export type Fixtures = Awaited<ReturnType<typeof makeFixtures>>;

/** Sum of the users' balances in `wallet` (major units), read through the API. */
export async function balanceSum({
  api,
  auth,
  users,
  wallet,
}: {
  api: string;
  auth: string;
  users: BenchUser[];
  wallet: string;
}) {
  let sum = 0;
  for (const user of users) {
    const res = await call(
      api,
      auth,
      "GET",
      `/user-wallet-balance?user_id=${user.id}&wallet_id=${wallet}`,
    );
    sum += res.data[wallet];
  }
  return sum;
}
