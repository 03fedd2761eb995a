// The first pass over the transactions: each post checked and counted; per (user, wallet) the
// chain's sum and extremes, per wallet the places its amounts need. Nothing is written yet.
import { META_DATA_MAX } from "../../../src/compat/meta-data";
import { mysqlDate } from "../../../src/ledger/post-format";
import { withinChars } from "../../../src/text";
import type { Post, PostGroup } from "../collect";
import { MAX_LISTED, type TermlessHistory, type TrashedPosts } from "../report";
import { pairKey } from "../target";
import type { PlanContext } from "./context";
import {
  entryType,
  listedStatus,
  mapEntry,
  type SiteEntry,
  siteWalletId,
  TRASHED,
  withdrawalDecision,
} from "./entry";
import { FingerprintSet } from "./fingerprints";
import { IMPORT_KEY_PREFIX } from "./keys";
import type { UserPlan } from "./users";
import type { WalletPlan } from "./wallets";

// What the service's records always answer for these post fields (contract section 7).
const FIXED_FIELDS = {
  post_excerpt: "",
  post_status: "publish",
  comment_status: "open",
  ping_status: "closed",
  post_password: "",
  to_ping: "",
  pinged: "",
  post_content_filtered: "",
  post_parent: "0",
  menu_order: "0",
  post_mime_type: "",
  comment_count: "0",
} as const;

/** A (user, wallet) chain as the site's entries make it, in units of 10^-MAX_STORAGE_DECIMALS. */
export type PairStats = {
  userId: number;
  walletId: string;
  username: string;
  count: number;
  sum: bigint;
  lowest: bigint;
  highest: bigint;
  largestAmount: bigint;
  /** The most decimal places any of its amounts needs. */
  places: number;
  lowestAt: number | null;
  firstBelowZero: number | null;
  /** Why one of its ids is not free here (another entry holds it), if one is not. */
  taken: string | null;
};

export type CheckedTransactions = {
  pairs: Map<string, PairStats>;
  /** The (user, wallet) histories some skipped entry of the site's belongs to. */
  skippedPairs: Set<string>;
  /** Wallet id → the most places any of its amounts needs. */
  placesNeeded: Map<string, number>;
  /** The post_name of every entry to import. */
  slugs: FingerprintSet;
  /** Pair key → its live posts with a CREDIT's or DEBIT's meta but no such term (termLost). */
  withoutTerm: Map<string, Omit<TermlessHistory, "username">>;
  /** Pair key → its posts left out as trashed (TRASHED), which the stored balance still counts. */
  trashed: Map<string, TrashedPosts>;
};

export function checkTransactions(
  ctx: PlanContext,
  users: UserPlan,
  wallets: WalletPlan,
): CheckedTransactions {
  const t = ctx.report.transactions;
  const checked: CheckedTransactions = {
    pairs: new Map(),
    skippedPairs: new Set(),
    placesNeeded: new Map(),
    slugs: new FingerprintSet(),
    withoutTerm: new Map(),
    trashed: new Map(),
  };
  const keys = new FingerprintSet();
  ctx.forEachPost("checking transactions", (group) => {
    if (wallets.walletPostIds.has(group.id) || !isTransaction(ctx, group, checked)) return;
    const mapped = mapEntry(ctx, users, wallets, group, false);
    if ("ignore" in mapped) {
      const trashed = mapped.ignore === TRASHED ? noteTrashed(ctx, group, checked.trashed) : {};
      ctx.report.ignored.add(mapped.ignore, { id: group.id, ...trashed });
      return;
    }
    t.live++;
    if ("skip" in mapped) {
      t.skipped.add(mapped.skip, { id: group.id });
      checked.skippedPairs.add(pairKey(Number(group.post.post_author), siteWalletId(group.meta)));
      return;
    }
    const e = mapped.entry;
    noteFieldDiffs(ctx, e, group.post);
    noteUnpublished(ctx, e, group);
    noteMetaData(ctx, e, group);
    const userKey = `${e.userId}\u0000${e.requestKey}`;
    if (e.requestKey !== null && !keys.add(userKey)) {
      t.duplicateRequestIds.add(
        "request_id used before by the same user: imported without idempotency key",
        { id: e.id, userId: e.userId, requestId: e.requestId },
      );
    } else if (e.requestKey !== null && ctx.target.serviceKeys.has(userKey)) {
      t.duplicateRequestIds.add(
        "request_id the service has since used for the same user: imported without idempotency key (a retry answers 409 naming the service's entry)",
        { id: e.id, userId: e.userId, requestId: e.requestId },
      );
    }
    if (e.requestId === "") t.withoutRequestId++;
    else if (e.requestKey === null)
      t.reservedRequestIds.add(
        `request_id in the import's own ${IMPORT_KEY_PREFIX} keys: imported without idempotency key`,
        { id: e.id, userId: e.userId, requestId: e.requestId },
      );
    if (e.slug !== "") checked.slugs.add(e.slug);
    noteAcceptedByThePlugin(ctx, e, wallets.wallets.get(e.walletId)!.decimals);
    checked.placesNeeded.set(
      e.walletId,
      Math.max(checked.placesNeeded.get(e.walletId) ?? 0, e.places),
    );
    const pair = addToPair(checked.pairs, e);
    pair.taken ??= takenBy(ctx, e.id);
    t[e.txnType === "CREDIT" ? "credits" : "debits"]++;
  });
  return checked;
}

/**
 * Whether a post (not a wallet's) is a transaction; API keys and other posts are reported, and a
 * post that lost its CREDIT or DEBIT term is kept by its history for compareBalances.
 */
function isTransaction(
  { kindOf, report, collector }: PlanContext,
  group: PostGroup,
  { withoutTerm }: CheckedTransactions,
) {
  const { kind } = kindOf(group.ttids);
  if (kind === "api-key") {
    const author = Number(group.post.post_author);
    report.apiKeys.total++;
    if (report.apiKeys.list.length < MAX_LISTED)
      report.apiKeys.list.push({
        id: group.id,
        userId: author,
        username: collector.users.get(author)?.login ?? null,
        title: group.post.post_title,
        status: group.post.post_status,
      });
  } else if (kind === "wallet") {
    report.ignored.add("wallet post without wallet meta", { id: group.id });
  } else if (kind !== "transaction" && termLost(group)) {
    const userId = Number(group.post.post_author);
    const walletId = siteWalletId(group.meta);
    report.ignored.add(
      `${collector.postType} post with a CREDIT's or DEBIT's meta (txn_type) but no CREDIT or DEBIT term`,
      { id: group.id, userId, walletId },
    );
    report.transactions.withoutTerm.posts++;
    const key = pairKey(userId, walletId);
    let history = withoutTerm.get(key);
    if (!history) withoutTerm.set(key, (history = { userId, walletId, posts: 0, ids: [] }));
    history.posts++;
    if (history.ids.length < 20) history.ids.push(group.id);
  } else if (kind !== "transaction") {
    report.ignored.add(
      `${collector.postType} post without a CREDIT, DEBIT, WALLETS or API-KEYS term`,
      { id: group.id },
    );
  }
  return kind === "transaction";
}

/**
 * A live post holding the txn_type meta, CREDIT or DEBIT, that only the plugin's record_Txn writes
 * (in wp_insert_post, its term just after; the stored balance was updated before either): its term
 * row is not in the dump, or PHP stopped between the post and its term.
 */
function termLost({ post, meta }: PostGroup) {
  const type = String(meta.txn_type ?? "")
    .trim()
    .toUpperCase();
  return listedStatus(post.post_status) && (type === "CREDIT" || type === "DEBIT");
}

/**
 * A post left out as trashed, kept by its history: the site's stored balance still counts it, so
 * that history's balance difference names it (balances.ts). Returns what the report lists of it.
 */
function noteTrashed(
  { kindOf }: PlanContext,
  { id, post, meta, ttids }: PostGroup,
  trashed: CheckedTransactions["trashed"],
) {
  const userId = Number(post.post_author);
  const walletId = siteWalletId(meta);
  const key = pairKey(userId, walletId);
  let history = trashed.get(key);
  if (!history) trashed.set(key, (history = { posts: 0, ids: [] }));
  history.posts++;
  if (history.ids.length < 20) history.ids.push(id);
  const txnType = entryType(kindOf(ttids).names, meta.txn_type);
  return { userId, walletId, txnType, amount: meta.amount ?? null };
}

/**
 * An entry the site had not published, counted by what it is; a withdrawal awaiting approval is
 * listed too, for the operator to pay out or reverse (docs/migrating.md). The plugin marked a
 * rejected one refunded on the withdrawal itself (includes/class-withdrawals.php:235,
 * includes/layouts/withdrawal-request-txns.php:83).
 */
function noteUnpublished({ report, kindOf }: PlanContext, e: SiteEntry, group: PostGroup) {
  const status = String(group.post.post_status);
  if (status === "publish") return;
  const names = kindOf(group.ttids).names;
  const withdrawal = e.txnType === "DEBIT" && names.includes("WITHDRAWAL");
  const refunded = withdrawalDecision(names, e.txnType, group.meta) === "refunded";
  // A trashed one is imported only when decided (mapEntry): refunded, or approved.
  const undecided = withdrawal && !refunded && status !== "trash";
  const reason = !withdrawal
    ? `${e.txnType} with status ${status}`
    : status === "trash"
      ? refunded
        ? "withdrawal rejected and refunded, then trashed on the site (its refund is an entry of its own; the plugin's lists hid it)"
        : "withdrawal deleted with no refund on the site (trash, marked approved): its amount stays debited, as in the site's stored balance; the plugin's lists hid it"
      : refunded
        ? `withdrawal rejected and refunded on the site (${status}; its refund is an entry of its own)`
        : `withdrawal awaiting approval (${status})`;
  report.transactions.notPublished.add(reason, {
    id: e.id,
    userId: e.userId,
    walletId: e.walletId,
    amount: e.amountText,
  });
  if (!undecided) return;
  const awaiting = report.awaitingWithdrawals;
  awaiting.total++;
  if (awaiting.list.length < MAX_LISTED)
    awaiting.list.push({
      id: e.id,
      userId: e.userId,
      username: e.username,
      walletId: e.walletId,
      amount: e.amountText,
      requestedAt: mysqlDate(e.createdAtS, "UTC"),
    });
}

/** Post fields the service answers with fixed values, counted where the site's post differs. */
function noteFieldDiffs({ report, opts }: PlanContext, e: SiteEntry, post: Post) {
  const fieldDiffs = report.transactions.fieldsReadingDifferently;
  const diff = (field: string) => (fieldDiffs[field] = (fieldDiffs[field] ?? 0) + 1);
  for (const [field, value] of Object.entries(FIXED_FIELDS))
    if (String(post[field as keyof typeof FIXED_FIELDS] ?? "") !== value) diff(field);
  if (String(post.post_content ?? "") !== `Amount:${e.amountText}`) diff("post_content");
  if (e.gmtZero) diff("post_date_gmt");
  if (opts.namespace !== "wallet") diff("post_type");
}

/**
 * The site's own post meta carried as meta_data: counted, listed where a client could not send it,
 * and refused where the dump put some of it where it was not read (collect.ts `metaPosts`).
 */
function noteMetaData({ report, collector }: PlanContext, e: SiteEntry, group: PostGroup) {
  const m = report.transactions.metaData;
  if (collector.metaReadBeforePost.has(e.id))
    m.notRead.add(
      "post meta rows before the plugin's own, in a dump with wp_postmeta before wp_posts: not read",
      { id: e.id, userId: e.userId },
    );
  if (e.metaData === null) return;
  m.entries++;
  m.keys += Object.keys(group.extra ?? {}).length;
  if (group.extraRepeats > 0)
    m.repeatedKeys.add(
      "a meta key in several rows: the first kept, as get_post_meta(…, true) reads it",
      { id: e.id, userId: e.userId },
      group.extraRepeats,
    );
  if (!withinChars(e.metaData, META_DATA_MAX))
    m.pastClientLimit.add(
      `meta_data of more than the ${META_DATA_MAX} characters a client may send: kept whole`,
      { id: e.id, userId: e.userId, characters: e.metaData.length },
    );
}

/** What the plugin accepted and a ledger of its own would not: said in the report, kept as it is. */
function noteAcceptedByThePlugin({ report }: PlanContext, e: SiteEntry, decimals: number) {
  const t = report.transactions;
  const example = { id: e.id, userId: e.userId, walletId: e.walletId, amount: e.amountText };
  if (e.places > decimals)
    t.subPrecisionAmounts.add(`wallet ${e.walletId} (${decimals} decimals)`, example);
  if (e.amountUnits === 0n) t.zeroAmounts.add(`wallet ${e.walletId}`, example);
}

function addToPair(pairs: Map<string, PairStats>, e: SiteEntry) {
  const key = pairKey(e.userId, e.walletId);
  let s = pairs.get(key);
  if (!s) {
    s = {
      userId: e.userId,
      walletId: e.walletId,
      username: e.username,
      count: 0,
      sum: 0n,
      lowest: 0n,
      highest: 0n,
      largestAmount: 0n,
      places: 0,
      lowestAt: null,
      firstBelowZero: null,
      taken: null,
    };
    pairs.set(key, s);
  }
  s.count++;
  s.sum += e.txnType === "CREDIT" ? e.amountUnits : -e.amountUnits;
  if (e.amountUnits > s.largestAmount) s.largestAmount = e.amountUnits;
  if (e.places > s.places) s.places = e.places;
  if (s.sum > s.highest) s.highest = s.sum;
  if (s.sum < s.lowest) [s.lowest, s.lowestAt] = [s.sum, e.id];
  if (s.sum < 0n && s.firstBelowZero === null) s.firstBelowZero = e.id;
  return s;
}

/**
 * What holds a site entry's id here instead of it, if anything: an entry the service wrote, or a
 * balance adjustment an earlier import wrote (it took the next id, which WordPress may have given a
 * post since). Either makes the entry's whole history a conflict, found before any of it is written.
 */
function takenBy({ target }: PlanContext, id: number) {
  const adjusted = target.adjustments.get(id);
  if (adjusted)
    return `entry id ${id} is taken by the balance adjustment of ${adjusted} an earlier import wrote (--balances site); import into a fresh database`;
  const gone = target.goneIds.get(id);
  if (gone !== undefined)
    return `entry id ${id} is taken by an entry imported for user ${gone}, whom the site no longer has (WordPress gives a deleted user's posts to the user named in "attribute all content to"); leave them with the deleted user on the site, or import into a fresh database`;
  return target.foreignIds.has(id)
    ? `entry id ${id} is taken by an entry not written by this import`
    : null;
}
