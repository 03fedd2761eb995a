// The second pass: the entries in id order, each continuing its (user, wallet) chain, then the
// balance adjustments. Against a database that holds some of them already (a second run, or a run
// that stopped half way), each chain's entries there must be the first ones this plan makes, ending
// at the same id and balance; then only the rest is written. Anything else is a conflict.
import { exactText } from "../../../src/ledger/money";
import { adjustmentInsert, type PlannedWallet, transactionInsert } from "../statements";
import { pairKey, type TargetPair } from "../target";
import type { Closings } from "./balances";
import type { CheckedTransactions } from "./check";
import type { PlanContext } from "./context";
import { mapEntry } from "./entry";
import { FutureDates } from "./future-dates";
import { SlugClaims } from "./slugs";
import { type StoragePlan, unitFactor } from "./storage";
import type { UserPlan } from "./users";
import type { WalletPlan } from "./wallets";

type Counts = { entry: number; balance: number };
/** A chain as this plan walks it: its balance after `k` planned entries, written or found there. */
export type Chain = {
  balance: number;
  k: number;
  conflict: string | null;
  present: Counts;
  written: Counts;
};

export function writeEntries(
  ctx: PlanContext,
  users: UserPlan,
  wallets: WalletPlan,
  { pairs, slugs }: CheckedTransactions,
  storage: StoragePlan,
  closings: Closings,
) {
  const chains = new ChainWriter(ctx, pairs, closings, wallets.wallets);
  const futureDates = new FutureDates(ctx);
  const slugClaims = new SlugClaims(slugs);
  // Transfer id → its first half and what became of it, until the second comes: what is left at
  // the end is the halves whose other half is not imported.
  const firstHalves = new Map<string, { id: number; userId: number; status: StepStatus }>();
  ctx.forEachPost("writing entries", (group) => {
    if (wallets.walletPostIds.has(group.id) || ctx.kindOf(group.ttids).kind !== "transaction")
      return;
    const mapped = mapEntry(ctx, users, wallets, group);
    if (!("entry" in mapped)) return;
    const e = { ...mapped.entry, slug: slugClaims.claim(mapped.entry.slug) };
    const key = pairKey(e.userId, e.walletId);
    const amountMinor = Number(e.amountUnits / unitFactor(wallets.wallets.get(e.walletId)!));
    // Out: a history --places refuses, or a chain in conflict with the database (--force).
    const status = storage.pairSkips.has(key)
      ? chains.step(key, e.id, 0, null)
      : chains.step(key, e.id, e.txnType === "CREDIT" ? amountMinor : -amountMinor, (b, a) =>
          transactionInsert({ ...e, amountMinor }, b, a),
        );
    if (status === "written") futureDates.note(key, e.id, e.createdAtS);
    if (e.transferId === null) return;
    const first = firstHalves.get(e.transferId);
    if (!first) return void firstHalves.set(e.transferId, { id: e.id, userId: e.userId, status });
    firstHalves.delete(e.transferId);
    ctx.report.transactions.transfers++;
    // A half this run writes while the other stays out: the database gets one half alone.
    const pair = [first.status, status].sort().join(" ");
    if (pair === "out written") {
      const [kept, other] = status === "out" ? [first, e] : [e, first];
      ctx.report.transactions.halvesApart.add(
        "transfer half imported without its other half, whose history is left out",
        { id: kept.id, userId: kept.userId, otherHalf: other.id },
      );
    }
  });
  for (const { id, userId } of firstHalves.values())
    ctx.report.transactions.openHalves.add(
      "transfer half whose other half is not imported (not in the dump, skipped or ignored): alt_transfer_id kept as its transfer link",
      { id, userId },
    );
  const closingOrder = [...closings].sort(
    ([, x], [, y]) => x.userId - y.userId || (x.walletId < y.walletId ? -1 : 1),
  );
  for (const [key, a] of closingOrder) {
    const signed = a.txnType === "CREDIT" ? a.amountMinor : -a.amountMinor;
    chains.step(
      key,
      null,
      signed,
      (before, after) => adjustmentInsert(a, before, after),
      "balance",
    );
  }
  futureDates.warn(users);
  return chains;
}

const describe = (key: string) => `user ${key.split("\t")[0]} wallet ${key.split("\t")[1]}`;

/** What became of a planned entry: written by this run, found there, or left out. */
type StepStatus = "written" | "there" | "out";

/** Every chain's state, and the one rule for each planned entry: write it, find it there, or conflict. */
export class ChainWriter {
  readonly chains = new Map<string, Chain>();
  /** Pair key → entries this plan has for it. */
  private readonly planned = new Map<string, number>();
  /** Pair key → why one of its ids is not free here (check.ts's takenBy). */
  private readonly taken = new Map<string, string>();

  constructor(
    private readonly ctx: PlanContext,
    pairs: CheckedTransactions["pairs"],
    closings: Closings,
    private readonly wallets: Map<string, PlannedWallet>,
  ) {
    for (const [key, s] of pairs) {
      this.planned.set(key, s.count);
      if (s.taken) this.taken.set(key, s.taken);
    }
    for (const key of closings.keys()) this.planned.set(key, (this.planned.get(key) ?? 0) + 1);
  }

  /** A chain's figure in the words of its wallet: 12525 stored units of ngn are 125.25. */
  private money(key: string, minor: number) {
    return exactText(minor, this.wallets.get(key.split("\t")[1]!)!);
  }

  chainOf(key: string) {
    let c = this.chains.get(key);
    if (!c) {
      c = {
        balance: 0,
        k: 0,
        conflict: null,
        present: { entry: 0, balance: 0 },
        written: { entry: 0, balance: 0 },
      };
      this.chains.set(key, c);
    }
    return c;
  }

  pairConflict(c: Chain, key: string, problem: string) {
    if (c.conflict) return;
    c.conflict = problem;
    this.ctx.report.conflicts.push({
      kind: "entries",
      id: key,
      problem: `${describe(key)}: ${problem}`,
    });
  }

  /**
   * The problem of a history the database holds more entries imported from the site of than the
   * site has now (none: `site` 0), with its likely cause: one more, where an earlier --balances
   * site run settled it, is its adjustment, which a --balances ledger run does not plan; else posts
   * the site trashed or deleted since.
   */
  heldMore(key: string, held: number, site: number) {
    const more = held - site;
    const cause =
      more === 1 && this.ctx.opts.balances !== "site" && this.ctx.target.adjustedPairs.has(key)
        ? "; it is the balance adjustment of an earlier run with --balances site, which a run with --balances ledger does not plan: import with --balances site"
        : ` (${more === 1 ? "one " : ""}trashed or deleted there since?)`;
    return `the database holds ${held} entries imported from the site, ${site === 0 ? "the site none now" : `more than the site's ${site}`}${cause}`;
  }

  /**
   * One planned entry of a chain (id null: an adjustment taking the next id; statement null: an
   * entry of a chain left out, counted and never written).
   */
  step(
    key: string,
    id: number | null,
    signed: number,
    statement: ((before: number, after: number) => string) | null,
    kind: keyof Counts = "entry",
  ): StepStatus {
    const c = this.chainOf(key);
    const before = c.balance;
    const after = before + signed;
    c.balance = after;
    c.k++;
    const there = this.ctx.target.pairs.get(key);
    const taken = this.taken.get(key);
    if (taken && c.k === 1 && statement !== null) this.pairConflict(c, key, taken);
    // In a chain left out, what an earlier run imported stays: the site's first entries.
    const out = (): StepStatus => {
      if (c.k > (there?.imported ?? 0)) return "out";
      c.present[kind]++;
      return "there";
    };
    if (statement === null || c.conflict) return out();
    if (!there || there.n === 0 || c.k > there.n) {
      const [userId, walletId] = key.split("\t");
      this.ctx.emit(
        statement(before, after),
        kind === "entry" ? "transaction" : "adjustment",
        id === null
          ? `the balance adjustment of user ${userId} in ${walletId}`
          : `transaction post ${id}`,
      );
      c.written[kind]++;
      return "written";
    }
    const problem =
      (kind === "balance" && this.adjustmentProblem(key, signed)) ||
      this.problemWith(there, c, key, id, after);
    if (!problem) {
      c.present[kind]++;
      return "there";
    }
    this.pairConflict(c, key, problem);
    return out();
  }

  /**
   * Why the entry found where this plan's balance adjustment goes is not that adjustment, if it is
   * not: the site's closing figure is the same, so an amount changed or an entry trashed on the
   * site since shows only there.
   */
  private adjustmentProblem(key: string, signed: number) {
    const there = this.ctx.target.adjustedPairs.get(key);
    if (there === undefined)
      return "the database holds an entry where this plan's balance adjustment goes (one trashed or deleted on the site since?)";
    return there === signed
      ? null
      : `the balance adjustment an earlier import wrote there is ${this.money(key, there)}, the site's entries now need ${this.money(key, signed)} (an amount or a stored balance changed on the site since)`;
  }

  /** Why the database's chain is not this plan's first entries, if it is not (c.k <= there.n). */
  private problemWith(there: TargetPair, c: Chain, key: string, id: number | null, after: number) {
    const { imported } = there;
    const planned = this.planned.get(key) ?? 0;
    if (imported > planned && (there.foreign > 0 || there.holds > 0))
      return this.heldMore(key, imported, planned);
    // A hold reserved money against the chain as it stood; entries added under it would change
    // what it reserved from (the database checks holds on the service's writes, not on imports).
    if (there.holds > 0 && imported < planned)
      return `${there.holds} holds placed by the service, and the site's history is not complete there`;
    if (there.foreign > 0) {
      // The service has added entries since an earlier import: fine if that import was complete,
      // and its entries add up to the site's history (an amount changed on the site since would
      // otherwise hide behind the service's entries, which the balance also counts).
      if (imported < planned)
        return `${there.foreign} entries not written by this import, and the site's history is not complete there`;
      const importedSum = there.balance - there.foreignSum;
      return c.k < imported || after === importedSum
        ? null
        : `the entries imported there add up to ${this.money(key, importedSum)}, the site's history now to ${this.money(key, after)} (an amount changed on the site)`;
    }
    if (c.k < there.n)
      return id !== null && id > there.lastId
        ? `the database's entries are not this site's (entry ${id})`
        : null;
    // c.k === there.n: the database's chain must end here, at this entry and balance.
    return (id === null || id === there.lastId) && after === there.balance
      ? null
      : `the database's ${there.n} entries are not the first ${there.n} of this site's (balance ${this.money(key, there.balance)}, last id ${there.lastId})`;
  }
}
