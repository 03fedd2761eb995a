// Every verb of the service checks its caller before it reads or writes anything: the service, not
// the routes, holds who may do what, so a surface that is not a route (the console, a test, one to
// come) cannot skip it. Each exported function of src/wallet/ is a verb in VERBS, with the right it
// asks (held here as: every caller below it is refused), or named in NOT_VERBS with why it checks
// no caller; a new export fails here until it is one or the other. The verbs are called on a D1
// that fails every query, with an input that names nothing, and only by callers they must refuse,
// so a refusal seen is the check's, made before the first query (a verb let through would run on
// that input).
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { Principal } from "../src/auth/principal";
import { createDb } from "../src/db/client";
import { d1Ledger } from "../src/ledger/writer";
import type { ServiceContext } from "../src/wallet/context";
import { refusalOf } from "../src/wallet/refusal";
import { failingD1 } from "./d1-counter";
import { serviceAs } from "./service-helpers";

/** A signed-in caller; an administrator's API key may hold the read scope alone. */
type Access = "signed-in" | "admin:read" | "admin:write";

const VERBS: Record<string, Access> = {
  "api-keys issueApiKey": "admin:write",
  "api-keys listKeys": "admin:read",
  "api-keys revokeKey": "admin:write",
  "balances userBalances": "signed-in",
  "balances namedBalances": "signed-in",
  "batch-reads readBatch": "admin:read",
  "batch-reads listBatches": "admin:read",
  "batch-reversal reverseBatch": "admin:write",
  "batches postBatch": "admin:write",
  "directory readUser": "signed-in",
  "directory listUsers": "admin:read",
  "directory usernames": "admin:read",
  "directory readableUserId": "signed-in",
  "directory walletRows": "admin:read",
  "directory readWallet": "admin:read",
  "events readFeed": "admin:read",
  "holds placeHold": "admin:write",
  "holds readHold": "signed-in",
  "holds captureHold": "admin:write",
  "holds voidHold": "admin:write",
  "holds listHolds": "signed-in",
  "holds availableBalances": "signed-in",
  "movements resolveMove": "admin:write",
  "movements credit": "admin:write",
  "movements debit": "admin:write",
  "movements resolveTransfer": "admin:write",
  "movements transfer": "admin:write",
  "movements reverse": "admin:write",
  "operators siteOverview": "admin:read",
  "operators findUsersByText": "admin:read",
  "operators userLedger": "admin:read",
  "operators reversedEntries": "admin:read",
  "operators mailOutbox": "admin:read",
  "repeats entryIsMovement": "admin:read",
  "repeats entryReverses": "admin:read",
  "sessions endUserSessions": "admin:write",
  "sign-in signOut": "signed-in",
  "sign-in unlockSignIn": "admin:write",
  "statements openStatement": "signed-in",
  "statements wholeStatement": "signed-in",
  "summary walletSummary": "signed-in",
  "summary spendable": "admin:write",
  "transactions readTransaction": "signed-in",
  "transactions historyPage": "signed-in",
  "transactions wholeHistory": "signed-in",
  "transactions entriesOfKind": "admin:read",
  "transactions entryOfKind": "admin:read",
  "transactions keyedEntryId": "admin:read",
  "transactions searchTransactions": "signed-in",
  "users deleteUser": "admin:write",
  "users createSubscriber": "admin:write",
  "wallets allWallets": "admin:read",
  "wallets newWallet": "admin:write",
  "wallets deleteWallet": "admin:write",
  "webhooks createEndpoint": "admin:write",
  "webhooks listWebhooks": "admin:read",
  "webhooks removeEndpoint": "admin:write",
  "webhooks testEndpoint": "admin:write",
  "webhooks resendEvent": "admin:write",
  "webhooks webhooksWithDeliveries": "admin:read",
  "webhooks recentDeliveries": "admin:read",
};

/** Modules of rules and words: no D1, no caller. */
const PURE_MODULES = ["rules", "wallet-shape", "statement-csv", "refusal", "faults", "context"];

const NOT_VERBS: Record<string, string[]> = {
  "who the caller is, asked before there is one (a credential, a sign-in)": [
    "key-principal keyPrincipal",
    "sessions sessionPrincipal",
    "sessions openSession",
    "sign-in signIn",
  ],
  "public by the contract: a mailed link is asked for and followed without signing in": [
    "mail-links requestVerification",
    "mail-links requestPasswordReset",
    "mail-links confirmVerification",
    "mail-links confirmPasswordReset",
  ],
  "naming only, for a verb or route that checked its caller (a public balance read names a user)": [
    "directory userIdOf",
    "directory findWallet",
  ],
  "a verb's step, given what the verb checked and found (a Drizzle handle, rows, a limit)": [
    "balances firstUnknownWallet",
    "balances unknownWalletText",
    "batches firstRefused",
    "batches legRequestId",
    "holds withHolds",
    "holds refusalStates",
    "movements exists",
    "movements nameOf",
    "movements requireUsers",
    "movements requireWallet",
    "movements sentText",
    "movements amountOf",
    "movements namesOneUser",
    "movements walletsOf",
    "movements opposite",
    "movements undoOrder",
    "movements writeUndoing",
    "movements notReversible",
    "statements balancesAt",
    "statements statementSummary",
    "transactions gated",
    "users findNewUserClashes",
    "users loginsOf",
    "wallets holdsHidden",
    "wallets showHidden",
    "wallets shownTextBreak",
    "wallets walletRuleBreaks",
  ],
  "the cron's and the deploy's, which run as no caller": [
    "holds recordExpiredHolds",
    "wallets createWallet",
  ],
};

const modules = import.meta.glob<Record<string, unknown>>("../src/wallet/*.ts", { eager: true });

type Fn = (ctx: ServiceContext, input: unknown) => unknown;

/** Every exported function of src/wallet/, as `module name`, but the pure modules'. */
const exported = new Map<string, Fn>(
  Object.entries(modules).flatMap(([path, mod]) => {
    const module = path.replace(/^.*\/(.*)\.ts$/, "$1");
    if (PURE_MODULES.includes(module)) return [];
    return Object.entries(mod)
      .filter(([, value]) => typeof value === "function")
      .map(([name, value]) => [`${module} ${name}`, value as Fn] as const);
  }),
);

const notVerbs = Object.values(NOT_VERBS).flat();

/** `as` calling on a D1 on which every query fails. */
function offline(as: ServiceContext): ServiceContext {
  const d1 = failingD1("D1 reached before the caller was checked");
  const db = createDb(d1);
  return { ...as, d1, db, ledger: d1Ledger({ db, env, keepAlive: () => {} }) };
}

/** What the verb's call comes to: its refusal's code, else what it threw or "answered". */
async function outcome(verb: Fn, ctx: ServiceContext) {
  try {
    await verb(ctx, {});
    return "answered";
  } catch (err) {
    return refusalOf(err)?.code ?? String(err);
  }
}

const subscriber = { id: 2, username: "someone", role: "subscriber" } as const;
const administrator = { id: 1, username: "admin", role: "administrator" } as const;
const as = (p: { id: number; username: string; role: Principal["role"] }, scope?: "read") =>
  offline(serviceAs({ ...p, email: "", token: "", bearer: "" }, scope));

it("every exported function of the service is a verb or says why it checks no caller", () => {
  const names = [...exported.keys()];
  expect(
    names.filter((n) => !(n in VERBS) && !notVerbs.includes(n)),
    "unlisted",
  ).toEqual([]);
  expect(
    [...Object.keys(VERBS), ...notVerbs].filter((n) => !exported.has(n)),
    "listed, not exported",
  ).toEqual([]);
});

describe.each(Object.entries(VERBS))("%s (%s)", (name, access) => {
  const verb = () => exported.get(name)!;

  it("refuses nobody signed in before its first query", async () => {
    expect(await outcome(verb(), offline(serviceAs()))).toBe("not_signed_in");
  });

  if (access !== "signed-in")
    it("refuses a subscriber before its first query", async () => {
      expect(await outcome(verb(), as(subscriber))).toBe("forbidden");
    });

  if (access === "admin:write")
    it("refuses an administrator's read-only key before its first query", async () => {
      expect(await outcome(verb(), as(administrator, "read"))).toBe("forbidden");
    });
});
