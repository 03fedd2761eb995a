// Each wallet's storage places, then what each (user, wallet) chain can carry over: its balance in
// the wallet's units, and whether its history went below zero.
import {
  exactText,
  MAX_MINOR,
  MAX_STORAGE_DECIMALS,
  storageDecimals,
} from "../../../src/ledger/money";
import { MAX_LISTED } from "../report";
import { type PlannedWallet, walletInsert } from "../statements";
import type { CheckedTransactions, PairStats } from "./check";
import { DumpOptionError, type PlanContext } from "./context";
import type { WalletPlan } from "./wallets";

/** A chain's balance and lowest point, exact in its wallet's storage units. */
type PairBalance = PairStats & { balance: number; lowestUnits: number };

export type StoragePlan = {
  /** Wallets the database stores with fewer places than the site's amounts need. */
  unitsConflicts: Set<string>;
  /** Wallet id → the places its site figures are read at: more than it stores under `--places`. */
  sitePlaces: Map<string, number>;
  /** Pair key → why its entries are not written. */
  pairSkips: Map<string, string>;
  /** Pair key → the chain, for pairs that are not skipped. */
  balances: Map<string, PairBalance>;
};

/** 10^-MAX_STORAGE_DECIMALS units per stored unit of the wallet. */
export const unitFactor = (wallet: PlannedWallet) =>
  10n ** BigInt(MAX_STORAGE_DECIMALS - storageDecimals(wallet));

export function planStorage(
  ctx: PlanContext,
  { wallets, walletSkips }: WalletPlan,
  checked: CheckedTransactions,
): StoragePlan {
  const plan: StoragePlan = {
    unitsConflicts: new Set(),
    sitePlaces: new Map(),
    pairSkips: new Map(),
    balances: new Map(),
  };
  chooseStorage(ctx, plan, wallets, checked.placesNeeded);
  checkPlacesNamed(ctx, wallets, walletSkips);
  for (const [key, s] of checked.pairs) {
    const wallet = wallets.get(s.walletId)!;
    const skip = pairSkip(plan, s, wallet);
    if (skip) {
      plan.pairSkips.set(key, skip);
      continue;
    }
    // Exact: every amount of the wallet has at most its storage places.
    const factor = unitFactor(wallet);
    const pair = { ...s, balance: Number(s.sum / factor), lowestUnits: Number(s.lowest / factor) };
    plan.balances.set(key, pair);
    if (pair.lowestUnits < 0) noteBelowZero(ctx, pair, wallet);
  }
  return plan;
}

/**
 * As many places as the wallet's most precise amount needs, never fewer than it displays (12.345 on
 * a 2-decimal wallet: 3), or as many as `--places` gives it. A wallet the database has keeps its
 * own; if the site's amounts need more, its entries cannot be imported (stored amounts never change
 * units; with `--places`, only the histories holding such amounts). New wallets are written here.
 */
function chooseStorage(
  { report, emit, opts, warn }: PlanContext,
  plan: StoragePlan,
  wallets: Map<string, PlannedWallet>,
  placesNeeded: Map<string, number>,
) {
  for (const w of wallets.values()) {
    const needed = Math.max(w.decimals, placesNeeded.get(w.id) ?? 0);
    const chosen = opts.places.get(w.id);
    const fixed = w.present || w.unitsKept;
    if (chosen !== undefined) {
      checkChosenPlaces(w, chosen, fixed);
      if (chosen > needed)
        warn(
          `--places ${w.id}=${chosen} stores more places than the site's amounts need (${needed}): the wallet holds at most ${exactText(MAX_MINOR, { ...w, extraDecimals: chosen - w.decimals })}`,
        );
    }
    if (fixed && chosen === undefined && needed > storageDecimals(w)) {
      report.conflicts.push({
        kind: "wallet",
        id: w.id,
        problem: `wallet ${w.id} stores ${storedPlaces(w)}; the site's amounts need ${needed}: its entries cannot be imported (--places ${w.id}=${storageDecimals(w)} imports the histories that fit)`,
      });
      plan.unitsConflicts.add(w.id);
    } else if (!w.present) {
      if (!w.unitsKept) w.extraDecimals = (chosen ?? needed) - w.decimals;
      report.wallets.imported++;
      emit(walletInsert(w), "wallet", `wallet ${w.id}`);
    }
    plan.sitePlaces.set(w.id, Math.max(needed, storageDecimals(w)));
    report.wallets.storage.push({
      walletId: w.id,
      decimals: w.decimals,
      storageDecimals: storageDecimals(w),
      placesNeeded: needed,
      present: Boolean(w.present),
      chosen: chosen !== undefined,
    });
  }
}

/** A `--places` for a wallet the dump defines but does not import is moot; for any other, a typo. */
function checkPlacesNamed(
  { opts, warn }: PlanContext,
  wallets: Map<string, PlannedWallet>,
  walletSkips: Map<string, string>,
) {
  for (const id of opts.places.keys()) {
    if (wallets.has(id)) continue;
    const skip = walletSkips.get(id);
    if (skip === undefined)
      throw new DumpOptionError(`--places names wallet ${id}, which the dump does not define`);
    warn(`--places names wallet ${id}, which is not imported: ${skip}`);
  }
}

/** The places a wallet the database has (or had, under a deleted id) stores, in words. */
const storedPlaces = (w: PlannedWallet) =>
  `${storageDecimals(w)} decimal places in the database${w.present ? "" : " (a deleted wallet's id keeps its units)"}`;

/** `--places` gives 0 to 15 places, never fewer than the wallet shows nor other than it stores. */
function checkChosenPlaces(w: PlannedWallet, chosen: number, fixed: boolean | undefined) {
  if (!Number.isInteger(chosen) || chosen < 0 || chosen > MAX_STORAGE_DECIMALS)
    throw new DumpOptionError(
      `--places ${w.id}=${chosen}: a wallet stores from 0 to ${MAX_STORAGE_DECIMALS} decimal places`,
    );
  if (fixed && chosen !== storageDecimals(w))
    throw new DumpOptionError(
      `--places ${w.id}=${chosen}: wallet ${w.id} stores ${storedPlaces(w)}, and a wallet's places never change`,
    );
  if (chosen < w.decimals)
    throw new DumpOptionError(
      `--places ${w.id}=${chosen}: wallet ${w.id} shows ${w.decimals} decimals, so it stores at least ${w.decimals}`,
    );
}

/** Why a chain cannot be carried over: its wallet's units, or a balance or amount past the limit. */
function pairSkip(plan: StoragePlan, s: PairStats, wallet: PlannedWallet) {
  if (plan.unitsConflicts.has(s.walletId))
    return `wallet ${s.walletId} stores fewer decimal places in the database than the site's amounts need`;
  if (s.places > storageDecimals(wallet))
    return `an amount needs more than the ${storageDecimals(wallet)} decimal places --places gives wallet ${s.walletId}`;
  const limit = BigInt(MAX_MINOR) * unitFactor(wallet);
  if (s.highest > limit || s.lowest < -limit || s.largestAmount > limit)
    return `its balance or an amount passes 999,999,999,999,999 units of the ${storageDecimals(wallet)} decimal places wallet ${s.walletId} stores${wallet.extraDecimals > 0 ? ` (more than the ${wallet.decimals} it shows, for the amounts listed with more places: correcting those on the site, or --places, gives it back its range)` : ""}`;
  return null;
}

/**
 * The plugin checked debits against its stored balance, which drifts from the entries. The history
 * is carried over as it is: no entry is added, and the balance stays where it ends.
 */
function noteBelowZero({ report }: PlanContext, s: PairBalance, wallet: PlannedWallet) {
  const h = report.negativeHistories;
  h.total++;
  if (s.balance < 0) h.endingBelowZero++;
  if (h.list.length < MAX_LISTED * 5) {
    h.list.push({
      userId: s.userId,
      username: s.username,
      walletId: s.walletId,
      firstEntryBelowZero: s.firstBelowZero,
      lowest: exactText(s.lowestUnits, wallet),
      lowestAt: s.lowestAt,
      balance: exactText(s.balance, wallet),
    });
  }
}
