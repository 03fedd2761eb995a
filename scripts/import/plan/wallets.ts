// Wallets: the site's wallet posts (read from the buckets where they are), each new, already there,
// or skipped. A new wallet is written after the first pass over the transactions, which says how
// many places it must store.
import { isReservedWalletId, isWalletDecimals, isWalletId } from "../../../src/wallet/wallet-shape";
import { groupBucket, type Post } from "../collect";
import { decodeEntities, utcSeconds } from "../site-values";
import type { DumpValue } from "../sql-dump";
import type { PlannedWallet } from "../statements";
import type { PlanContext } from "./context";

export type WalletPlan = {
  /** Wallet id → the definition its entries use. */
  wallets: Map<string, PlannedWallet>;
  /** Wallet id → why it is not imported. */
  walletSkips: Map<string, string>;
  /** Posts that are wallets (the passes over the transactions pass them by). */
  walletPostIds: Set<number>;
};

export function planWallets(ctx: PlanContext): WalletPlan {
  const { collector, report, opts } = ctx;
  const plan: WalletPlan = { wallets: new Map(), walletSkips: new Map(), walletPostIds: new Set() };
  const candidates = walletPosts(ctx);
  for (const { id, group } of candidates) {
    const { kind, names } = ctx.kindOf(group?.ttids ?? []);
    if (!group || kind !== "wallet") {
      report.ignored.add(`${opts.namespace}_wallet_* meta on a post that is not a wallet`, { id });
      continue;
    }
    plan.walletPostIds.add(id);
    const meta = collector.walletMeta.get(id)!;
    if (group.post.post_status !== "publish") {
      report.ignored.add(`wallet post with status ${group.post.post_status}`, { id });
      // Its transactions are refused naming the post, not as of a wallet the site never had.
      const walletId = siteWalletId(meta);
      if (walletId && !plan.walletSkips.has(walletId))
        plan.walletSkips.set(
          walletId,
          `its wallet post ${id} has status ${group.post.post_status}`,
        );
      continue;
    }
    const mapped = mapWallet(id, group.post, meta, names);
    if ("skip" in mapped) {
      report.wallets.skipped.add(mapped.skip, { id });
      const walletId = String(meta.id ?? "")
        .trim()
        .toLowerCase();
      if (walletId) plan.walletSkips.set(walletId, mapped.skip);
      continue;
    }
    const first = plan.wallets.get(mapped.id);
    if (first) {
      report.wallets.skipped.add(
        `a second definition of wallet ${mapped.id} (the first, post ${first.postId}, is kept)`,
        { id },
      );
      continue;
    }
    placeWallet(ctx, plan, mapped);
  }
  report.wallets.inDump = candidates.length;
  return plan;
}

/** The posts that have wallet meta, with their groups (null: no such post), in id order. */
function walletPosts({ collector, buckets }: PlanContext) {
  const byBucket = new Map<number, number[]>();
  for (const id of collector.walletMeta.keys()) {
    const b = buckets.bucketOf(id);
    if (!byBucket.has(b)) byBucket.set(b, []);
    byBucket.get(b)!.push(id);
  }
  const candidates = [];
  for (const [b, ids] of [...byBucket].sort((x, y) => x[0] - y[0])) {
    const posts = new Map(groupBucket(buckets.read(b)).map((p) => [p.id, p]));
    for (const id of ids.sort((x, y) => x - y))
      candidates.push({ id, group: posts.get(id) ?? null });
  }
  return candidates;
}

/** The wallet id a wallet post's meta gives, as the wallet here is named. */
const siteWalletId = (meta: Record<string, DumpValue>) =>
  String(meta.id ?? "")
    .trim()
    .toLowerCase();

function mapWallet(
  postId: number,
  post: Post,
  meta: Record<string, DumpValue>,
  terms: string[],
): PlannedWallet | { skip: string } {
  const id = siteWalletId(meta);
  if (!id) return { skip: "wallet post without a wallet id" };
  if (!isWalletId(id) || isReservedWalletId(id))
    return { skip: `wallet id ${JSON.stringify(id)} is not a valid wallet id` };
  const decimalsText = String(meta.decimal ?? "").trim();
  // Decimal notation only, as PHP reads a number: Number() would take "0x2" as 2, which the site
  // read as 0.
  const decimals =
    decimalsText === ""
      ? 2
      : /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(decimalsText)
        ? Number(decimalsText)
        : Number.NaN;
  if (!isWalletDecimals(decimals))
    return { skip: `wallet ${id}: decimals ${JSON.stringify(decimalsText)} not in 0–8` };
  const created = utcSeconds(post.post_date_gmt) ?? utcSeconds(post.post_date) ?? 0;
  const position = String(meta.symbol_position ?? "")
    .trim()
    .toLowerCase();
  return {
    postId,
    id,
    name: String(meta.name ?? "").trim() || String(post.post_title ?? id),
    symbol: decodeEntities(String(meta.symbol ?? "")),
    symbolPosition: position === "right" ? "right" : "left",
    decimals,
    extraDecimals: 0, // chosen after the first pass (storage.ts)
    type: String(meta.type ?? "").trim() || "fiat",
    note: String(meta.note ?? ""),
    createdAtMs: created * 1000,
    terms,
  };
}

/**
 * A wallet the database has keeps its units (they count every stored amount; the first pass checks
 * the site's amounts fit them) and, with the same decimals, its name, symbol and type.
 */
function placeWallet({ target, report }: PlanContext, plan: WalletPlan, w: PlannedWallet) {
  const there = target.wallets.get(w.id);
  const deleted = there ? undefined : target.deletedWallets.get(w.id);
  if (deleted && Number(deleted.decimals) !== w.decimals) {
    report.conflicts.push({
      kind: "wallet",
      id: w.id,
      problem: `a wallet ${w.id} with ${deleted.decimals} decimals was deleted from the database, and its id keeps them; the site's has ${w.decimals}: its entries cannot be imported`,
    });
    plan.walletSkips.set(w.id, "conflicts with a deleted wallet's units");
    report.wallets.skipped.add("conflicts with a deleted wallet's units", { id: w.postId });
    return;
  }
  if (deleted) {
    w.unitsKept = true;
    w.extraDecimals = Number(deleted.extra_decimals);
  }
  if (!there) {
    plan.wallets.set(w.id, w);
    return;
  }
  w.present = true;
  w.extraDecimals = Number(there.extra_decimals ?? 0);
  const same =
    Number(there.decimals) === w.decimals &&
    there.name === w.name &&
    there.symbol === w.symbol &&
    there.symbol_position === w.symbolPosition &&
    there.type === w.type;
  if (same) {
    plan.wallets.set(w.id, w);
    report.wallets.alreadyPresent++;
    return;
  }
  if (Number(there.decimals) === w.decimals) {
    report.conflicts.push({
      kind: "wallet",
      id: w.id,
      problem: `wallet ${w.id} exists with another name, symbol or type (decimals agree); --force keeps the existing definition`,
    });
    plan.wallets.set(w.id, {
      ...w,
      name: there.name,
      symbol: there.symbol,
      symbolPosition: there.symbol_position,
      type: there.type,
    });
    report.wallets.alreadyPresent++;
    return;
  }
  report.conflicts.push({
    kind: "wallet",
    id: w.id,
    problem: `wallet ${w.id} exists with ${there.decimals} decimals, the site's has ${w.decimals}; its entries cannot be imported`,
  });
  plan.walletSkips.set(w.id, "conflicts with an existing wallet");
  report.wallets.skipped.add("conflicts with an existing wallet", { id: w.postId });
}
