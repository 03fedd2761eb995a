// The report's totals and the end state the import expects (the CLI verifies it after writing), and
// whether the plan is refused.
import type { CheckedTransactions } from "./check";
import type { PlanContext } from "./context";
import type { StoragePlan } from "./storage";
import type { ChainWriter } from "./write";

export function finishReport(
  ctx: PlanContext,
  { pairs, skippedPairs }: CheckedTransactions,
  { pairSkips }: StoragePlan,
  writer: ChainWriter,
) {
  const { report, target } = ctx;
  const t = report.transactions;
  for (const [key, c] of writer.chains) {
    const s = pairs.get(key);
    const there = target.pairs.get(key);
    const skipped = pairSkips.get(key);
    if (skipped === undefined && !c.conflict && there && there.foreign === 0 && there.n > c.k)
      writer.pairConflict(
        c,
        key,
        `the database holds ${there.n} entries, more than the site's ${c.k}${writer.moreThanTheSite(key, there.n - c.k)}`,
      );
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
    writer.pairConflict(
      writer.chainOf(key),
      key,
      `the database holds ${imported} entries imported from the site, the site none now${writer.moreThanTheSite(key, imported) || " (trashed or deleted there since?)"}`,
    );
  }
  const { conflicts } = report;
  const notRead = t.metaData.notRead.total;
  report.refused = conflicts.length > 0 || t.skipped.total > 0 || notRead > 0;
  report.refusalReasons = [
    ...(conflicts.length > 0 ? [`${conflicts.length} conflicts with the database`] : []),
    ...(t.skipped.total > 0 ? [`${t.skipped.total} transactions cannot be carried over`] : []),
    ...(notRead > 0
      ? [
          `the post meta of ${notRead} transactions that the dump holds before their post (export wp_posts before wp_postmeta: mysqldump DB wp_posts wp_postmeta …)`,
        ]
      : []),
  ];
}
