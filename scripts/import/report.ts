// The import's report: what it found, carries over, leaves out and why. The planner fills it in; it
// leaves planImport as plain JSON (Report), which the CLI prints (report-text.ts) or writes to a file.
import type { DEFAULT_OPTIONS, WordPressCollector } from "./collect";
import { keyedByDump } from "./sql-dump";

/** Examples kept per list in the report; counts are always complete. */
export const MAX_LISTED = 200;

type Example = { reason: string } & Record<string, unknown>;

/** Counts by reason with a few examples each. */
class Tally {
  readonly counts = keyedByDump<number>();
  readonly examples: Example[] = [];
  add(reason: string, example: Record<string, unknown>, n = 1) {
    this.counts[reason] = (this.counts[reason] ?? 0) + n;
    if (this.examples.length < MAX_LISTED) this.examples.push({ reason, ...example });
  }
  get total() {
    return Object.values(this.counts).reduce((a, b) => a + b, 0);
  }
  toJSON() {
    return { total: this.total, byReason: this.counts, examples: this.examples };
  }
}

type Conflict = {
  kind: "user" | "wallet" | "entries";
  id: number | string;
  problem: string;
};

/**
 * A username that is, case-folded, another user's e-mail (WordPress allowed it; this service
 * refuses it for new users): a sign-in or plugin user reference with that text names the e-mail's
 * owner (docs/security.md#usernames-and-e-mails), so `userId` signs in by its own e-mail.
 */
type LoginCollision = {
  userId: number;
  username: string;
  emailOwnerId: number;
  emailOwner: string;
};

type NegativeHistory = {
  userId: number;
  username: string;
  walletId: string;
  firstEntryBelowZero: number | null;
  lowest: string;
  lowestAt: number | null;
  balance: string;
};

type BalanceDifference = {
  userId: number;
  username: string;
  walletId: string;
  site: string;
  siteStored: { withdrawable: string | null; nonwithdrawable: string | null };
  transactions: string;
  difference: string;
  action: string;
  /** Its posts trashed on the site and left out: the site's stored balance still counts them. */
  trashed?: TrashedPosts;
};

/** A history's posts trashed on the site and left out: how many, the first ids. */
export type TrashedPosts = { posts: number; ids: number[] };

type WalletStorage = {
  walletId: string;
  decimals: number;
  storageDecimals: number;
  placesNeeded: number;
  present: boolean;
  /** Its places come from `--places`. */
  chosen: boolean;
};

/**
 * A (user, wallet) history with live posts that hold a CREDIT's or DEBIT's meta but no CREDIT or
 * DEBIT term (`posts` of them, the first `ids`).
 */
export type TermlessHistory = {
  userId: number;
  username: string;
  walletId: string;
  posts: number;
  ids: number[];
};

/** A withdrawal the site had not yet approved or refunded: imported as its DEBIT, to settle here. */
type AwaitingWithdrawal = {
  id: number;
  userId: number;
  username: string;
  walletId: string;
  amount: string;
  /** post_date_gmt, `YYYY-MM-DD HH:MM:SS` UTC. */
  requestedAt: string;
};

type ApiKeyFound = {
  id: number;
  userId: number;
  username: string | null;
  title: string | null;
  status: string | null;
};

export function newReport(opts: typeof DEFAULT_OPTIONS, collector: WordPressCollector) {
  return {
    options: {
      prefix: opts.prefix,
      usersPrefix: collector.usersPrefix,
      namespace: opts.namespace,
      balances: opts.balances,
      force: opts.force,
      places: Object.fromEntries(opts.places),
    },
    tables: collector.rowsPerTable,
    users: {
      inDump: 0,
      imported: 0,
      alreadyPresent: 0,
      skipped: new Tally(),
      // Already there from an earlier run, with what changed on the site since carried over.
      updated: new Tally(),
      roles: keyedByDump<number>(),
      passwordHashes: keyedByDump<number>(),
      // Imported unable to sign in or be mailed a reset, as WordPress refused them.
      signInDisabled: new Tally(),
      // Imported as they are, listed for the operator; they never refuse the import.
      loginCollisions: { total: 0, list: [] as LoginCollision[] },
    },
    // storage: per wallet, the decimal places it displays and stores (more when the site's amounts have more).
    wallets: {
      inDump: 0,
      imported: 0,
      alreadyPresent: 0,
      skipped: new Tally(),
      storage: [] as WalletStorage[],
    },
    transactions: {
      posts: collector.transactionPosts,
      live: 0,
      imported: 0,
      alreadyPresent: 0,
      credits: 0,
      debits: 0,
      transfers: 0,
      // Transfers with one half in the dump's imported entries: the other is missing or skipped.
      openHalves: new Tally(),
      // Transfers whose halves fall on both sides of a history left out: one is imported alone.
      halvesApart: new Tally(),
      withoutRequestId: 0,
      skipped: new Tally(),
      // Carried over as they are; listed because a ledger of this service's own would not have them.
      subPrecisionAmounts: new Tally(),
      zeroAmounts: new Tally(),
      duplicateRequestIds: new Tally(),
      reservedRequestIds: new Tally(),
      fieldsReadingDifferently: keyedByDump<number>(),
      // Imported posts whose status was not publish (pending withdrawals, an administrator's draft):
      // their amounts were in the stored balances and the plugin's lists showed them.
      notPublished: new Tally(),
      // The site's own post meta (keys the plugin did not write) carried as each entry's meta_data;
      // notRead: entries whose dump order hid some of it (refused unless --force).
      metaData: {
        entries: 0,
        keys: 0,
        repeatedKeys: new Tally(),
        pastClientLimit: new Tally(),
        notRead: new Tally(),
      },
      // Live posts holding the txn_type meta (CREDIT or DEBIT) that only the plugin's record_Txn
      // writes, but no CREDIT or DEBIT term; `differing`: those of histories whose balance the site
      // stored differs from the imported entries, which their lost terms explain (refused unless
      // --force). The others are a post of no consequence to a balance (listed as ignored).
      withoutTerm: {
        posts: 0,
        differing: { histories: 0, posts: 0, list: [] as TermlessHistory[] },
      },
    },
    adjustments: { balance: 0, alreadyPresent: 0 },
    negativeHistories: { total: 0, endingBelowZero: 0, list: [] as NegativeHistory[] },
    balances: { mode: opts.balances, compared: 0, ignoredMeta: new Tally() },
    balanceDifferences: { total: 0, list: [] as BalanceDifference[] },
    awaitingWithdrawals: { total: 0, list: [] as AwaitingWithdrawal[] },
    apiKeys: { total: 0, list: [] as ApiKeyFound[] },
    ignored: new Tally(),
    otherPostTypes: collector.otherPostTypes,
    conflicts: [] as Conflict[],
    warnings: [] as string[],
    /** Warnings past the list's MAX_LISTED, counted but not listed. */
    warningsNotListed: 0,
    expectedBalances: [] as {
      userId: number;
      walletId: string;
      balanceMinor: number;
      entries: number;
    }[],
    refused: false,
    refusalReasons: [] as string[],
  };
}

/** The report while the planner fills it in. */
export type PlanReport = ReturnType<typeof newReport>;

/** A value as JSON.stringify writes it: what toJSON answers, recursively. */
type Json<T> = T extends { toJSON(): infer J }
  ? Json<J>
  : T extends (infer U)[]
    ? Json<U>[]
    : T extends object
      ? { [K in keyof T]: Json<T[K]> }
      : T;

/** The report planImport answers: plain data, each tally as { total, byReason, examples }. */
export type Report = Json<PlanReport>;
export type TallyJson = Json<Tally>;
