// The site's stored balances (user meta) compared with what the entries add up to, both in the
// wallet's storage units (PHP float noise such as 10.000000000000002 rounds away). With
// `--balances site` each difference becomes an adjustment entry that brings the balance there.
import { exactText, MAX_MINOR, storageDecimals } from "../../../src/ledger/money";
import { postTitle, slugify } from "../../../src/ledger/post-format";
import type { StoredBalance } from "../collect";
import { MAX_LISTED } from "../report";
import { fitsPlaces, type SiteMinor, siteDecimalToMinor } from "../site-amounts";
import type { Adjustment, PlannedUser, PlannedWallet } from "../statements";
import { pairKey } from "../target";
import type { CheckedTransactions } from "./check";
import type { PlanContext } from "./context";
import { IMPORT_KEY_PREFIX } from "./keys";
import type { StoragePlan } from "./storage";
import type { UserPlan } from "./users";

/** Pair key → the balance adjustment to add (`--balances site`). */
export type Closings = Map<string, Adjustment>;

export function compareBalances(
  ctx: PlanContext,
  { users }: UserPlan,
  wallets: Map<string, PlannedWallet>,
  storage: StoragePlan,
  { withoutTerm, trashed }: CheckedTransactions,
): Closings {
  const { report } = ctx;
  const closings: Closings = new Map();
  // A history whose stored balance differs from its imported entries, with posts that lost their
  // term, which the stored balance may count (refused: totals.ts).
  const termlessDiffer = (key: string, userId: number) => {
    const termless = withoutTerm.get(key);
    if (!termless) return;
    const differing = report.transactions.withoutTerm.differing;
    differing.histories++;
    differing.posts += termless.posts;
    const username = users.get(userId)?.username ?? ctx.collector.users.get(userId)?.login ?? "";
    if (differing.list.length < MAX_LISTED) differing.list.push({ ...termless, username });
  };
  const stored = new Map<string, { userId: number; walletId: string; parts: StoredBalance }>();
  for (const [userId, meta] of ctx.collector.userMeta) {
    for (const [walletId, parts] of Object.entries(meta.balances))
      stored.set(pairKey(userId, walletId), { userId, walletId, parts });
    for (const key of meta.unreadBalanceKeys)
      report.balances.ignoredMeta.add(
        "stored under a key the plugin never read, its wallet id not in lower case",
        { userId, walletId: key.replace(/^user_(non)?withdrawable_bal_/, "").toLowerCase(), key },
      );
  }
  // A chain without a stored balance: the plugin read the missing meta as empty, a balance of 0.
  for (const [key, { userId, walletId }] of storage.balances)
    if (!stored.has(key)) stored.set(key, { userId, walletId, parts: {} });
  for (const { userId, walletId, parts } of stored.values()) {
    const user = users.get(userId);
    const wallet = wallets.get(walletId);
    const key = pairKey(userId, walletId);
    if (!user || !wallet || storage.pairSkips.has(key) || storage.unitsConflicts.has(walletId)) {
      report.balances.ignoredMeta.add(
        !user ? "user not imported" : !wallet ? "wallet not imported" : "entries not imported",
        { userId, walletId },
      );
      // None of its entries is imported (a wallet post that lost its term too): a balance stored
      // other than 0 differs from that.
      if (Object.values(parts).some((text) => Number(text) !== 0 && Number.isFinite(Number(text))))
        termlessDiffer(key, userId);
      continue;
    }
    const site = storedBalance(parts, wallet, storage.sitePlaces.get(walletId)!);
    if (typeof site === "string") {
      report.balances.ignoredMeta.add(`${site}: ${JSON.stringify(parts)}`, { userId, walletId });
      continue;
    }
    const ledger = storage.balances.get(key)?.balance ?? 0;
    report.balances.compared++;
    if (site === ledger) continue;
    termlessDiffer(key, userId);
    const diff = {
      userId,
      username: user.username,
      walletId,
      site: exactText(site, wallet),
      siteStored: {
        withdrawable: parts.withdrawable ?? null,
        nonwithdrawable: parts.nonwithdrawable ?? null,
      },
      transactions: exactText(ledger, wallet),
      difference: exactText(site - ledger, wallet),
      action: `kept the entries: balance ${exactText(ledger, wallet)}`,
      // Posts trashed on the site and left out, whose amounts its stored balance still counts.
      ...(trashed.has(key) ? { trashed: trashed.get(key) } : {}),
    };
    report.balanceDifferences.total++;
    // The ledger refuses a balance or an amount past the limit: such a site figure is reported and
    // the entries kept, as in the default mode.
    if (ctx.opts.balances === "site") {
      if (Math.max(Math.abs(site), Math.abs(site - ledger)) > MAX_MINOR)
        diff.action += ` (the site's balance, or the adjustment to it, passes ${exactText(MAX_MINOR, wallet)}, the largest wallet ${walletId} holds)`;
      else {
        const closing = adjustment(ctx, user, wallet, site, ledger, diff);
        closings.set(key, closing);
        diff.action = `${closing.txnType === "CREDIT" ? "credit" : "debit"} of ${closing.amountText} as a balance adjustment`;
      }
    }
    if (report.balanceDifferences.list.length < MAX_LISTED * 5)
      report.balanceDifferences.list.push(diff);
  }
  return closings;
}

/**
 * The plugin's two stored parts, summed in the wallet's storage units, or why they cannot be. Each
 * is read at the places the site's figures need (`sitePlaces`), PHP's float noise rounded away; a
 * wallet stored with fewer (`--places`) takes it only if nothing is left past its own places.
 */
function storedBalance(parts: StoredBalance, wallet: PlannedWallet, sitePlaces: number) {
  const places = storageDecimals(wallet);
  const texts = [parts.withdrawable ?? "", parts.nonwithdrawable ?? ""];
  const [w, nw] = texts.map((text) =>
    siteDecimalToMinor(text, places, { round: true, allowNegative: true }),
  ) as [SiteMinor, SiteMinor];
  if (w.issue === "too-large" || nw.issue === "too-large")
    return `stored balance passes ${exactText(MAX_MINOR, wallet)}, the largest wallet ${wallet.id} holds: entries kept`;
  if (w.issue || nw.issue) return "stored balance is not a number";
  if (sitePlaces > places && texts.some((text) => !fitsPlaces(text, places, sitePlaces)))
    return `stored balance needs more than the ${places} decimal places --places gives wallet ${wallet.id}: entries kept`;
  return w.minor + nw.minor;
}

/** The adjustment entry from `ledger` to `site`, titled and slugged the way the service writes its own. */
function adjustment(
  { nowMs }: PlanContext,
  { id: userId, username }: PlannedUser,
  wallet: PlannedWallet,
  site: number,
  ledger: number,
  diff: { site: string; transactions: string },
): Adjustment {
  const amountMinor = Math.abs(site - ledger);
  const txnType = site > ledger ? "CREDIT" : "DEBIT";
  const createdAtS = Math.floor(nowMs / 1000);
  const title = postTitle({ username, txnType, amountMinor, wallet, createdAtS });
  return {
    userId,
    walletId: wallet.id,
    txnType,
    amountMinor,
    amountText: exactText(amountMinor, wallet),
    requestId: `${IMPORT_KEY_PREFIX}balance-adjustment:${wallet.id}`,
    note: `Balance adjustment added by the WordPress import (--balances site): the site's stored balance was ${diff.site}, its transactions add up to ${diff.transactions}.`,
    title,
    slugBase: slugify(title),
    createdAtS,
  };
}
