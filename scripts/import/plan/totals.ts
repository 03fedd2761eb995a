// The report's totals and the end state the import expects (the CLI verifies it after writing), and
// whether the plan is refused.
import type { CheckedTransactions } from "./check";
import type { PlanContext } from "./context";
import type { StoragePlan } from "./storage";
import type { UserPlan } from "./users";
import type { ChainWriter } from "./write";

/** "1 user", "2 users": a count and its noun, for the report's sentences. */
const counted = (n: number, noun: string) => `${n} ${noun}${n === 1 ? "" : "s"}`;

export function finishReport(
  ctx: PlanContext,
  { pairs, skippedPairs }: CheckedTransactions,
  { pairSkips }: StoragePlan,
  writer: ChainWriter,
  { leftOut }: UserPlan,
) {
  const { report, target } = ctx;
  const t = report.transactions;
  for (const [key, c] of writer.chains) {
    const s = pairs.get(key);
    const there = target.pairs.get(key);
    const skipped = pairSkips.get(key);
    // Every entry there is imported (foreign 0): the site's, or an earlier run's adjustment.
    if (skipped === undefined && !c.conflict && there && there.foreign === 0 && there.n > c.k)
      writer.pairConflict(c, key, writer.heldMore(key, there.n, c.k));
    const entries = s?.count ?? 0;
    if (skipped !== undefined) {
      t.skipped.add(skipped, { pair: key, entries }, entries);
      continue;
    }
    if (c.conflict) {
      // What the database holds of it already stays, and is counted so; the rest is left out.
      t.imported += c.written.entry;
      t.alreadyPresent += c.present.entry;
      const left = entries - c.written.entry - c.present.entry;
      if (left > 0)
        t.skipped.add("conflicts with the database's entries", { pair: key, entries: left }, left);
      continue;
    }
    t.imported += c.written.entry;
    report.adjustments.balance += c.written.balance;
    t.alreadyPresent += c.present.entry;
    report.adjustments.alreadyPresent += c.present.balance;
    report.expectedBalances.push({
      userId: Number(key.split("\t")[0]),
      walletId: key.split("\t")[1]!,
      balanceMinor: c.balance,
      entries: c.k,
    });
  }
  // A history an earlier run imported for a user the site still has, of which the dump has no
  // entry left (none skipped either): each was trashed or deleted on the site since.
  for (const [key, there] of target.pairs) {
    const { imported } = there;
    if (imported === 0 || writer.chains.has(key) || skippedPairs.has(key)) continue;
    if (!ctx.collector.users.has(Number(key.split("\t")[0]))) continue;
    writer.pairConflict(writer.chainOf(key), key, writer.heldMore(key, imported, 0));
  }
  const { conflicts } = report;
  const notRead = t.metaData.notRead.total;
  const termless = t.withoutTerm.differing;
  // A user left out loses its account and sign-in, entries or none: refused as a transaction is.
  report.refused =
    conflicts.length > 0 ||
    leftOut > 0 ||
    t.skipped.total > 0 ||
    notRead > 0 ||
    termless.histories > 0;
  report.refusalReasons = [
    ...(conflicts.length > 0 ? [`${counted(conflicts.length, "conflict")} with the database`] : []),
    ...(leftOut > 0 ? [`${counted(leftOut, "user")} cannot be carried over`] : []),
    ...(t.skipped.total > 0
      ? [`${counted(t.skipped.total, "transaction")} cannot be carried over`]
      : []),
    ...(notRead > 0
      ? [
          `the post meta of ${counted(notRead, "transaction")} that the dump holds before ${notRead === 1 ? "its" : "their"} post (export wp_posts before wp_postmeta: mysqldump DB wp_posts wp_postmeta …)`,
        ]
      : []),
    ...(termless.histories > 0 ? [termlessReason(ctx, termless)] : []),
  ];
}

/**
 * Posts without their CREDIT or DEBIT term in histories whose stored balance differs from the
 * entries: the plugin updated that balance before it wrote the post and then its term, so a dump
 * that lost term rows imports less than the site held. One post PHP left without its term where
 * the balance agrees is no refusal (report.ts `withoutTerm`).
 */
function termlessReason(
  { collector }: PlanContext,
  { histories, posts, list }: PlanContext["report"]["transactions"]["withoutTerm"]["differing"],
) {
  const named = list.slice(0, 5).map(({ userId, username, walletId, posts: n, ids }) => {
    const shown = ids.slice(0, 5);
    const more = n > shown.length ? ` and ${n - shown.length} more` : "";
    return `user ${userId} (${username}) ${walletId}: post${n === 1 ? "" : "s"} ${shown.join(", ")}${more}`;
  });
  if (histories > named.length) named.push(`and ${histories - named.length} more`);
  return `${posts} ${collector.postType} post${posts === 1 ? "" : "s"} with a CREDIT's or DEBIT's meta but no CREDIT or DEBIT term, in histories whose balance the site stored differs from their imported entries (${named.join("; ")}): the dump lost their rows of ${collector.prefix}term_relationships (export the database again), or the plugin stopped between writing a post and its term (then --balances site --force brings each balance to the site's)`;
}
