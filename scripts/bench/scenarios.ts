// The app's load scenarios, one autocannon request each, shared by every mode of `npm run bench`
// (scripts/bench.ts: against.ts, reads.ts, remote-d1.ts, webhook.ts) and by profile-cpu.ts. Each
// names the baseline its req/s is compared with (`vs`) and the status it must answer
// (`expectStatus`, default any 2xx).
import type autocannon from "autocannon";
import { sign } from "hono/jwt";
import { BASELINE_JWT_SECRET } from "../../bench/baseline/token";
import type { Server } from "../lib/server";
import { type Fixtures, TRANSFER_WALLET, USER_PASSWORD, WALLETS } from "./fixtures";

/** Units of WALLETS[0] each answered request of a scenario credits to the fixtures' users. */
export const CREDITED_PER_REQUEST: Record<string, number> = {
  credits: 1,
  "batches-3": 3,
  "batches-100": 100,
};

/** Where a scenario's requests go: a server the bench started, or only its addresses. */
type Target = Pick<Server, "base" | "api">;

export type Scenario<S extends Target = Server> = {
  server: S;
  request: autocannon.Request;
  /** The baseline this scenario's req/s is compared with. */
  vs?: string;
  expectStatus?: number;
};

const JSON_HEADERS = { "Content-Type": "application/json" };

const withBody = (req: autocannon.Request, body: string) => ({ ...req, body });

/** A scenario as runLoad takes it, over `connections`. */
export const loadOf = (s: Scenario<Target>, connections: number) => ({
  base: s.server.base,
  request: s.request,
  expectStatus: s.expectStatus,
  connections,
});

/** The baseline worker's routes (bench/baseline/worker.ts), as scenarios. */
export const BASELINE_SCENARIOS = [
  "noop",
  "insert",
  "select",
  "select-authed",
  "select-replica",
  "select-replica-none",
  "select-replica-5",
  "select-replica-entry",
  "select-replica-20",
] as const;

/**
 * Each read's floor: `select-replica`'s read of as many rows, as wide (an entry with its wallet is
 * 29 cells; a 404, none), the least a read that answers them through a D1 session does.
 */
export const READ_FLOORS: Record<string, (typeof BASELINE_SCENARIOS)[number]> = {
  "balance-1-wallet": "select-replica",
  "balance-5-wallets": "select-replica-5",
  "transaction-read": "select-replica-entry",
  "transaction-unknown-404": "select-replica-none",
  "transactions-page-20": "select-replica-20",
};

/** Rows the baseline's longest select reads (select-replica-20). */
const SEEDED_ROWS = 20;

/** The baseline worker's scenarios, after seeding the rows its selects read. */
export async function baselineScenarios<S extends Target>(baseline: S, runId: string) {
  // The selects read from the first seeded row on.
  let seedId: number | undefined;
  for (let n = 0; n < SEEDED_ROWS; n++) {
    const seeded = await fetch(`${baseline.base}/insert`, {
      method: "POST",
      headers: JSON_HEADERS,
      body: JSON.stringify({ request_id: `seed-${runId}-${n}`, amount: 1 }),
    });
    if (seeded.status !== 200) throw new Error(`baseline /insert answered ${seeded.status}`);
    seedId ??= ((await seeded.json()) as { data: { id: number } }).data.id;
  }
  const token = await sign(
    { sub: 1, exp: Math.floor(Date.now() / 1000) + 3600 },
    BASELINE_JWT_SECRET,
    "HS256",
  );
  let insertSeq = 0;
  const scenarios: Record<string, Scenario<S>> = {
    noop: { server: baseline, request: { method: "GET", path: "/noop" } },
    insert: {
      server: baseline,
      request: {
        method: "POST",
        path: "/insert",
        headers: JSON_HEADERS,
        setupRequest: (req) =>
          withBody(req, JSON.stringify({ request_id: `ins-${runId}-${++insertSeq}`, amount: 100 })),
      },
    },
    select: { server: baseline, request: { method: "GET", path: `/select?id=${seedId}` } },
  };
  // The selects a bearer token opens, compared with the bare one, and the reads' floors.
  // No item has id 0: the read that finds nothing answers 404, as an unknown transaction does.
  for (const [name, path, expectStatus] of [
    ["select-authed", `/select-authed?id=${seedId}`],
    ["select-replica", `/select-replica?id=${seedId}`],
    ["select-replica-none", "/select-replica?id=0", 404],
    ["select-replica-5", `/select-replica?id=${seedId}&rows=5`],
    ["select-replica-entry", `/select-replica?id=${seedId}&cells=29`],
    ["select-replica-20", `/select-replica?id=${seedId}&rows=20&cells=29`],
  ] as const)
    scenarios[name] = {
      server: baseline,
      vs: "select",
      request: { method: "GET", path, headers: { Authorization: `Bearer ${token}` } },
      expectStatus,
    };
  return scenarios;
}

/** The app's scenarios by name (appScenarioMaker makes exactly these). */
export const APP_SCENARIOS = [
  "credits",
  "credits-titles-apart",
  "transfers",
  "batches-3",
  "batches-100",
  "credits-duplicate-409",
  "credits-invalid-400",
  "transaction-read",
  "transaction-unknown-404",
  "balance-1-wallet",
  "balance-5-wallets",
  "transactions-page-20",
  "balance-history-10",
  "balance-history-100k",
  "transactions-page-history-10",
  "transactions-page-history-100k",
  "login",
] as const;

/**
 * Returns a maker of the app's scenarios on one server, with its administrator's `auth` and the
 * fixtures made there. Credits' request_ids and the login's turn run on across every server and
 * pass made by one maker, so no request_id repeats within a run.
 */
export function appScenarioMaker(runId: string) {
  let creditSeq = 0;
  let batchSeq = 0;
  let turn = 0;
  return <S extends Target>(server: S, auth: string, fx: Fixtures): Record<string, Scenario<S>> => {
    const apiPath = new URL(server.api).pathname;
    const authed = { Authorization: auth };
    const signers = [fx.reader, ...fx.users].map((u) => u.email);
    /** A read, compared with the baseline's select. */
    const get = (path: string): Scenario<S> => ({
      server,
      vs: "select",
      request: { method: "GET", path: `${apiPath}${path}`, headers: authed },
    });
    const balance = (userId: number, wallets: string) =>
      get(`/user-wallet-balance?user_id=${userId}&wallet_id=${wallets}&formatted=yes`);
    const refusedCredit = (expectStatus: number, body: unknown): Scenario<S> => ({
      server,
      vs: "insert",
      expectStatus,
      request: {
        method: "POST",
        path: `${apiPath}/credits`,
        headers: { ...authed, ...JSON_HEADERS },
        body: JSON.stringify(body),
      },
    });
    // A POST whose JSON body is made afresh for each request (each with a request_id of its own).
    const postEach = (path: string, bodyOf: () => unknown): Scenario<S> => ({
      server,
      vs: "insert",
      request: {
        method: "POST",
        path: `${apiPath}${path}`,
        headers: { ...authed, ...JSON_HEADERS },
        setupRequest: (req) => withBody(req, JSON.stringify(bodyOf())),
      },
    });
    // A credit a request, to the fixtures' users in turn.
    const creditEach = (body: (n: number) => { wallet_id: string; amount: unknown }) =>
      postEach("/credits", () => {
        const n = ++creditSeq;
        const user_id = fx.users[n % fx.users.length]!.id;
        return { user_id, ...body(n), request_id: `load-${runId}-${n}` };
      });
    // A transfer of 1 a request from one payee to the next, in a wallet the credits leave alone.
    const transferEach = () =>
      postEach("/transfers", () => {
        const n = ++creditSeq;
        const [from, to] = [fx.users[n % fx.users.length]!, fx.users[(n + 1) % fx.users.length]!];
        return {
          from_user_id: from.id,
          to_user_id: to.id,
          wallet_id: TRANSFER_WALLET,
          amount: 1,
          request_id: `load-${runId}-${n}`,
        };
      });
    const batch = (size: number) =>
      postEach("/batches", () => {
        const n = ++batchSeq;
        const operations = Array.from({ length: size }, (_, i) => ({
          type: "credit",
          user_id: fx.users[(n + i) % fx.users.length]!.id,
          wallet_id: WALLETS[0],
          amount: 1,
        }));
        return { request_id: `batch-${runId}-${size}-${n}`, operations };
      });
    const page = (userId: number, perPage: number) =>
      get(`/transactions?user_id=${userId}&security_code=1&per_page=${perPage}`);
    return {
      credits: creditEach(() => ({ wallet_id: WALLETS[0], amount: 1 })),
      // Cost pass only: credits whose titles differ as a site's do. A title names the user, the
      // amount, the wallet and the second, and `credits` piles about a hundred identical ones onto
      // each user a second, each probing one more taken slug; here the amount runs over 10,000
      // values (1.00 to 100.99), more than the bench's credits a second to one user, so no two of a
      // user's titles meet in one second. To WALLETS[1], which the ledger check does not sum.
      "credits-titles-apart": creditEach((n) => ({
        wallet_id: WALLETS[1],
        amount: `${1 + (Math.floor(n / 100) % 100)}.${String(n % 100).padStart(2, "0")}`,
      })),
      transfers: transferEach(),
      // A batch of 3 and of 100 credits (POST /batches): one D1 batch each, beside single credits.
      "batches-3": batch(3),
      "batches-100": batch(100),
      "credits-duplicate-409": refusedCredit(409, fx.duplicate),
      "credits-invalid-400": refusedCredit(400, {
        user_id: fx.users[0]!.id,
        wallet_id: WALLETS[0],
        amount: "-1",
        request_id: "never-written",
      }),
      "transaction-read": get(`/transactions/${fx.transactionId}`),
      "transaction-unknown-404": { ...get("/transactions/999999999"), expectStatus: 404 },
      "balance-1-wallet": balance(fx.reader.id, WALLETS[0]),
      "balance-5-wallets": balance(fx.reader.id, WALLETS.join(",")),
      "transactions-page-20": page(fx.reader.id, 20),
      // Cost pass only: a balance read and a first page of 10, after 10 entries and after 100,000.
      "balance-history-10": balance(fx.history.short.id, WALLETS[0]),
      "balance-history-100k": balance(fx.history.long.id, WALLETS[0]),
      "transactions-page-history-10": page(fx.history.short.id, 10),
      "transactions-page-history-100k": page(fx.history.long.id, 10),
      login: {
        server,
        vs: "noop",
        // Over the bench's nine users in turn: the sign-in throttle checks at most 10 sign-ins of one
        // account at a time (docs/security.md), fewer than the connections.
        request: {
          method: "POST",
          path: `${apiPath}/users/login`,
          headers: JSON_HEADERS,
          setupRequest: (req) =>
            withBody(
              req,
              JSON.stringify({
                user_email: signers[turn++ % signers.length],
                user_password: USER_PASSWORD,
              }),
            ),
        },
      },
    } satisfies Record<(typeof APP_SCENARIOS)[number], Scenario<S>>;
  };
}
