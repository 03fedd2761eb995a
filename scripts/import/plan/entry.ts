// One transaction post as an entry: its type, user, wallet, amount (exactly as the site recorded
// it), dates, request_id, transfer link, title and slug; or why it is skipped or ignored.
import { MAX_MINOR, MAX_STORAGE_DECIMALS } from "../../../src/ledger/money";
import { mysqlDate, slugify } from "../../../src/ledger/post-format";
import { requestKey } from "../../../src/ledger/request-key";
import type { Post, PostGroup } from "../collect";
import { readSiteAmount } from "../site-amounts";
import { utcSeconds } from "../site-values";
import type { PlannedEntry, PlannedWallet } from "../statements";
import type { PlanContext } from "./context";
import { reservedRequestId } from "./keys";
import type { UserPlan } from "./users";
import type { WalletPlan } from "./wallets";

/** An entry before its wallet's places are known: the amount in units of 10^-MAX_STORAGE_DECIMALS. */
export type SiteEntry = Omit<PlannedEntry, "amountMinor"> & {
  amountUnits: bigint;
  /** The places the amount needs. */
  places: number;
  /** post_date_gmt was the zero date (the date is read from post_date). */
  gmtZero: boolean;
  username: string;
};

export type MappedEntry = { entry: SiteEntry } | { skip: string } | { ignore: string };

/** `full` adds what only writing needs (the slug base from the title). */
export function mapEntry(
  { kindOf }: PlanContext,
  { users, userSkips }: UserPlan,
  { wallets, walletSkips }: WalletPlan,
  group: PostGroup,
  full = true,
): MappedEntry {
  const { id, post, meta } = group;
  const { names } = kindOf(group.ttids);
  const txnType = entryType(names, meta.txn_type);
  // A trashed withdrawal the site had decided is the DEBIT it is: Delete With No Refund marks it
  // approved and trashes it, and one refunded has its refund CREDIT beside it. Either way the debit
  // stands in the stored balance (a trash takes nothing back), and the decision says the post was
  // settled, not voided. Any other trashed post is an administrator's trash in wp-admin: voided.
  const decidedTrash =
    post.post_status === "trash" && withdrawalDecision(names, txnType, meta) !== null;
  if (!listedStatus(post.post_status) && !decidedTrash)
    return {
      ignore:
        post.post_status === "trash" ? TRASHED : `transaction post with status ${post.post_status}`,
    };
  if (txnType === null) return { skip: "both CREDIT and DEBIT terms and no txn_type meta" };
  const userId = Number(post.post_author);
  const user = users.get(userId);
  if (!user)
    return {
      skip: userSkips.has(userId)
        ? `its user ${userId} is not imported (${userSkips.get(userId)})`
        : `its user ${userId} is not in the dump`,
    };
  const walletId = siteWalletId(meta);
  if (!walletId) return { skip: "no currency (wallet id) meta" };
  const wallet = wallets.get(walletId);
  if (!wallet)
    return {
      skip: walletSkips.has(walletId)
        ? `wallet ${walletId} is not imported (${walletSkips.get(walletId)})`
        : `wallet ${walletId} is not defined on the site`,
    };
  const amount = siteAmount(post, meta.amount, wallet, txnType);
  if ("skip" in amount) return amount;
  const createdGmt = utcSeconds(post.post_date_gmt);
  const createdAtS = createdGmt ?? utcSeconds(post.post_date);
  if (createdAtS === null) return { skip: `no valid date (post_date ${post.post_date})` };
  const title = String(post.post_title ?? "");
  const slug = String(post.post_name ?? "");
  const base = full ? slugify(title) : slug;
  const localDate = String(post.post_date);
  const gmtText = createdGmt === null ? mysqlDate(createdAtS, "UTC") : String(post.post_date_gmt);
  const requestId = entryRequestId(meta.request_id, meta.txn_request_id);
  return {
    entry: {
      id,
      userId,
      walletId,
      txnType,
      ...amount,
      requestId: requestId ?? "",
      requestKey:
        requestId === null || requestId === "" || reservedRequestId(requestId)
          ? null
          : requestKey(requestId),
      transferId: transferLink(id, meta.alt_transfer_id),
      metaData: group.extra === null ? null : JSON.stringify(group.extra),
      note: String(meta.note ?? ""),
      title,
      slug,
      slugBase: slug === base || slug.startsWith(`${base}-`) ? base : slug,
      createdAtS,
      guid: String(post.guid ?? ""),
      localDate,
      modifiedLocalDate: post.post_modified === localDate ? null : (post.post_modified ?? null),
      modifiedGmtDate: post.post_modified_gmt === gmtText ? null : (post.post_modified_gmt ?? null),
      gmtZero: createdGmt === null,
      username: user.username,
    },
  };
}

/** Why a trashed post the site decided nothing on is left out (check.ts lists it by its history). */
export const TRASHED =
  "transaction post trashed on the site with no decision of the plugin's on it: left out, as the plugin's lists left it out; trashing takes no amount back, so the site's stored balance still counts it (its balance difference names it; --balances site follows the site)";

/**
 * What the site decided on a withdrawal (a DEBIT with the WITHDRAWAL term), if anything. The
 * approval page (includes/layouts/withdrawal-request-txns.php:62-107) marks it approval_action
 * `approved` when it approves it (and publishes it) and when it deletes it with no refund (and
 * trashes it); a refund marks it txn_status `rejected_and_refunded` (includes/class-withdrawals.php:235),
 * and the page approval_action so too (:83). The first row is the one WordPress reads.
 */
export function withdrawalDecision(
  names: string[],
  txnType: "CREDIT" | "DEBIT" | null,
  meta: PostGroup["meta"],
): "approved" | "refunded" | null {
  if (txnType !== "DEBIT" || !names.includes("WITHDRAWAL")) return null;
  if ([meta.txn_status, meta.approval_action].includes("rejected_and_refunded")) return "refunded";
  return meta.approval_action === "approved" ? "approved" : null;
}

/**
 * Whether a post is one of the site's transactions by its status. The plugin moved the stored balance
 * before it wrote the post, and no change of status moved it again: a withdrawal is set `pending`
 * after its debit (includes/class-withdrawals.php:84-100), approving it publishes it, and rejecting
 * it leaves it pending beside a refund CREDIT of its own (:207-240); draft, private and future are an
 * administrator's edit in wp-admin. The plugin's lists (WP_Query post_status 'any') showed all of
 * them, and hid only what WordPress excludes from search: trash (an administrator's, or a withdrawal's
 * Delete With No Refund, which mapEntry takes all the same) and auto-draft.
 */
export const listedStatus = (status: string | null) =>
  status !== "trash" && status !== "auto-draft";

/** txn_type meta when it says CREDIT or DEBIT, else the post's term; null when the terms say both. */
export function entryType(terms: string[], metaType: string | null | undefined) {
  const type = String(metaType ?? "")
    .trim()
    .toUpperCase();
  if (type === "CREDIT" || type === "DEBIT") return type;
  if (terms.includes("CREDIT") && terms.includes("DEBIT")) return null;
  return terms.includes("CREDIT") ? "CREDIT" : "DEBIT";
}

/**
 * The amount meta (else post_content's `Amount:…`), kept exactly as the site recorded it: more places
 * than the wallet shows (the wallet then stores more), zero, or with a sign PHP reads (`+3` as the
 * plugin took it; a debit's `-3` moves 3, as its type says). Refused: what no wallet can hold, and a
 * CREDIT of a negative amount, which the plugin never writes (it records a negative credit as a
 * DEBIT of its absolute value).
 */
function siteAmount(
  post: Post,
  amountMeta: string | null | undefined,
  wallet: PlannedWallet,
  txnType: "CREDIT" | "DEBIT",
): { skip: string } | { amountText: string; amountUnits: bigint; places: number } {
  let amountText = amountMeta;
  // '' as NULL: older UpdraftPlus versions wrote NULL as '' (record_Txn wrote post_content from the
  // same amount, and never an empty one).
  if (amountText === undefined || amountText === null || amountText === "") {
    const fromContent = /^Amount:(.*)$/s.exec(String(post.post_content ?? ""));
    if (!fromContent) return { skip: "no amount meta" };
    amountText = fromContent[1]!;
  }
  const amount = readSiteAmount(amountText);
  if ("issue" in amount)
    return { skip: `amount ${JSON.stringify(amountText)} is not a valid amount (${amount.issue})` };
  if (amount.negative && txnType === "CREDIT" && `${amount.integer}${amount.fraction}` !== "0")
    return {
      skip: `a CREDIT of ${JSON.stringify(amountText)}: the plugin records a negative credit as a DEBIT`,
    };
  if (amount.places > MAX_STORAGE_DECIMALS)
    return {
      skip: `amount ${amountText} has ${amount.places} decimal places; a wallet stores at most ${MAX_STORAGE_DECIMALS}`,
    };
  const displayUnits = BigInt(
    amount.integer + amount.fraction.slice(0, wallet.decimals).padEnd(wallet.decimals, "0"),
  );
  if (displayUnits > BigInt(MAX_MINOR))
    return { skip: `amount ${JSON.stringify(amountText)} is not a valid amount (too-large)` };
  return {
    amountText,
    amountUnits: BigInt(amount.integer + amount.fraction.padEnd(MAX_STORAGE_DECIMALS, "0")),
    places: amount.places,
  };
}

/**
 * request_id meta, else txn_request_id without the `<user id>_` the plugin put before it (the
 * plugin wrote both from one request_id; '' is read as NULL, which older UpdraftPlus wrote so).
 */
function entryRequestId(
  requestId: string | null | undefined,
  txnRequestId: string | null | undefined,
) {
  if (requestId != null && requestId !== "") return String(requestId);
  return txnRequestId != null ? String(txnRequestId).replace(/^[0-9]+_/, "") : null;
}

/** The two halves of a transfer share `wp:<lower id>-<higher id>` (alt_transfer_id names the other). */
function transferLink(id: number, altMeta: string | null | undefined) {
  const alt = altMeta == null || String(altMeta).trim() === "" ? null : Number(altMeta);
  return alt === null || !Number.isFinite(alt)
    ? null
    : `wp:${Math.min(id, alt)}-${Math.max(id, alt)}`;
}

/** The wallet a transaction post names: its `currency` meta, as the plugin compares wallet ids. */
export const siteWalletId = (meta: PostGroup["meta"]) =>
  String(meta.currency ?? "")
    .trim()
    .toLowerCase();
