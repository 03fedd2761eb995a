// Wallets: what a new wallet may be, creating one, and deleting one nobody has used. Both dialects
// (wallet/v1's POST /wallets, the plugin's POST wallets and DELETE wallets/{id}) decode their own
// fields and texts, then call these, which judge a wallet by wallet-shape.ts's rules alone.
import type { Db } from "../db/client";
import { deleteWalletIfUnused, insertWallet, listWalletRows, type Wallet } from "../db/wallets";
import { withinChars } from "../text";
import { requireAdmin, type ServiceContext } from "./context";
import { Refusal } from "./refusal";
import {
  isReservedWalletId,
  isWalletDecimals,
  isWalletId,
  isWalletType,
  WALLET_LIMITS,
} from "./wallet-shape";

/**
 * A wallet as a dialect decoded it; ids and types compare lowercased (normalizeWalletId,
 * normalizeWalletType).
 */
export type NewWallet = {
  id: string;
  name: string;
  symbol: string;
  symbolPosition: "left" | "right";
  decimals: number;
  type: string;
  note: string;
};

/**
 * Control, bidirectional and invisible characters (Unicode's default-ignorable code points, line
 * and paragraph separators): in a wallet's name or symbol, which every balance and statement shows
 * its users (`₦1,500.00`), they could reorder or hide what is shown beside them. The zero-width
 * joiner and the variation selectors stay: emoji sequences need them.
 */
// biome-ignore lint/complexity/useRegexLiterals: a literal's v flag needs an ES2024 target.
const HIDDEN = new RegExp(
  String.raw`[[\p{Cc}\p{Zl}\p{Zp}\p{Default_Ignorable_Code_Point}]--[\u200d\ufe00-\ufe0f\u{e0100}-\u{e01ef}]]`,
  "v",
);

/** Whether a wallet's name or symbol holds a character that could change how the rest reads. */
export const holdsHidden = (text: string) => HIDDEN.test(text);

/** The same characters but tabs and line breaks, which lay out a mail's text: every one, to show. */
const SHOWN_AS_CODE = new RegExp(String.raw`[${HIDDEN.source}--[\t\n\r]]`, "gv");

/**
 * Stored text drawn for a person (the console's pages) with each such character written as its
 * code, `\u202e`: text the service did not write itself (a WordPress import's usernames, wallet
 * names and symbols; notes) then neither reorders nor hides what is drawn beside it, and what it
 * holds is seen.
 */
export const showHidden = (text: string) =>
  text.replace(SHOWN_AS_CODE, (c) => `\\u${c.codePointAt(0)!.toString(16).padStart(4, "0")}`);

/**
 * A digit (of any script) or a sign at either end of a symbol, a point or comma beside it counting
 * with it, or a symbol of points and commas alone (spaces around it aside): display strings are
 * `<symbol><number>` or `<number> <symbol>` (`formatMoney`), so such a symbol reads as part of the
 * amount: `1` showed 500 as `1500.00` and nothing as `10.00`, `-` showed 500 as `-500.00`, `0.`
 * as `0.500.00`. A point that ends a word is the symbol's own (`Rs.`, `kr.`, `S/.`).
 */
const JOINS_NUMBER = /^[.,]*[\p{Nd}+\-\u2212]|[\p{Nd}+\-\u2212][.,]*$|^[.,]+$/u;

/** Why a decoded wallet breaks a rule, by field; each dialect words these itself. */
export type WalletRuleBreak =
  | { field: "id"; rule: "shape" | "reserved" }
  | { field: "name" | "symbol" | "note"; rule: "too-long"; max: number }
  | { field: "name" | "symbol"; rule: "empty" }
  | { field: "name" | "symbol"; rule: "hidden" }
  | { field: "symbol"; rule: "joins-number" }
  | { field: "decimals"; rule: "range" }
  | { field: "type"; rule: "shape" };

/**
 * Empty, or white space alone (a no-break or ideographic space too): a blank symbol would show
 * every amount with no currency beside it, a blank name would list nothing.
 */
const isBlank = (text: string) => text.trim() === "";

/**
 * The rule a wallet's name or symbol breaks first (blank, too long, hiding; a symbol reading as part
 * of the amount), or undefined.
 */
export function shownTextBreak(
  field: "name" | "symbol",
  text: string,
): WalletRuleBreak | undefined {
  const max = field === "name" ? WALLET_LIMITS.nameMax : WALLET_LIMITS.symbolMax;
  if (isBlank(text)) return { field, rule: "empty" };
  if (!withinChars(text, max)) return { field, rule: "too-long", max };
  if (holdsHidden(text)) return { field, rule: "hidden" };
  if (field === "symbol" && JOINS_NUMBER.test(text.trim())) return { field, rule: "joins-number" };
  return undefined;
}

/** Every rule a new wallet breaks (empty: it may be created). */
export function walletRuleBreaks(w: NewWallet): WalletRuleBreak[] {
  const breaks: WalletRuleBreak[] = [];
  if (!isWalletId(w.id)) breaks.push({ field: "id", rule: "shape" });
  else if (isReservedWalletId(w.id)) breaks.push({ field: "id", rule: "reserved" });
  for (const field of ["name", "symbol"] as const) {
    const broken = shownTextBreak(field, w[field]);
    if (broken) breaks.push(broken);
  }
  if (!withinChars(w.note, WALLET_LIMITS.noteMax))
    breaks.push({ field: "note", rule: "too-long", max: WALLET_LIMITS.noteMax });
  if (!isWalletDecimals(w.decimals)) breaks.push({ field: "decimals", rule: "range" });
  if (!isWalletType(w.type)) breaks.push({ field: "type", rule: "shape" });
  return breaks;
}

type CreatedWallet = { wallet: Wallet; postId: number };

/**
 * Creates a wallet, or answers "exists" when its id is taken (the primary key decides, however
 * many race), or `deletedWithUnits` when a deleted wallet had that id with other units: an id keeps
 * its units for good, since another isolate may still convert amounts with them (docs/compat.md).
 * A wallet breaking a rule is a programming error of the dialect, which checks first.
 */
export async function createWallet(
  db: Db,
  w: NewWallet,
  nowMs: number,
): Promise<
  CreatedWallet | "exists" | { deletedWithUnits: { decimals: number; extraDecimals: number } }
> {
  const breaks = walletRuleBreaks(w);
  if (breaks.length > 0) throw new Error(`wallet rules broken: ${JSON.stringify(breaks)}`);
  return insertWallet(db, {
    ...w,
    // Only the WordPress import stores more places than a wallet displays.
    extraDecimals: 0,
    createdAtMs: nowMs,
  });
}

/** Every wallet, by id. */
export async function allWallets(ctx: ServiceContext) {
  requireAdmin(ctx, "read");
  return (await listWalletRows(ctx.db)).map((row) => row.wallet);
}

/** A new wallet, or a refusal: its id taken, or a deleted wallet's id with other units. */
export async function newWallet(ctx: ServiceContext, w: NewWallet) {
  requireAdmin(ctx, "write");
  const created = await createWallet(ctx.db, w, ctx.nowMs());
  if (created === "exists") throw new Refusal({ code: "wallet_exists", walletId: w.id });
  if ("deletedWithUnits" in created)
    throw new Refusal({
      code: "wallet_units_kept",
      walletId: w.id,
      units: created.deletedWithUnits,
    });
  return created;
}

/** Deletes a wallet no entry names (the ledger is append-only: a wallet with entries stays). */
export function deleteWallet(ctx: ServiceContext, id: string) {
  requireAdmin(ctx, "write");
  return deleteWalletIfUnused(ctx.db, id);
}
