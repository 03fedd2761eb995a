// The plugin dialect's amounts: how they are rounded, and a refused one in its words.

import { AMOUNT_TEXT_MAX, amountTooLong, overlongAmount } from "../http/fields";
import type { AmountPolicy, AmountRefusal } from "../ledger/money";
import { withinChars } from "../text";

/** The plugin's amounts are rounded to the places the wallet stores, half away from zero. */
export const PLUGIN_ROUNDING = "round-half-away-from-zero" satisfies AmountPolicy;

/** What a refused amount is, after its field's name, in the dialect's words. */
const AMOUNT_REFUSED = {
  "not-numeric": "requires a valid amount",
  "not-positive": "must be greater than zero",
  "too-large": "is too large",
  "too-many-decimals": "has more decimal places than the wallet stores",
} satisfies Record<AmountRefusal, string>;

/** The amount fields of the plugin's routes: the credits' and debits', the transfers'. */
export const AMOUNT_FIELDS = ["amount", "amount_to_transfer"] as const;

/** A refused amount in the dialect's words, keyed by its field. */
export function amountRefused(field: (typeof AMOUNT_FIELDS)[number], refusal: AmountRefusal) {
  return { [field]: `${field} ${AMOUNT_REFUSED[refusal]}` };
}

/**
 * An amount's text past AMOUNT_TEXT_MAX, refused in the dialect's words keyed by its field (before
 * any echo of it), or nothing: too long, or not positive or too large as http/fields.ts reads it.
 */
export function overlongRefused(field: (typeof AMOUNT_FIELDS)[number], text: string) {
  if (withinChars(text, AMOUNT_TEXT_MAX)) return {};
  const why = overlongAmount(text);
  if (why !== "too-long") return amountRefused(field, why);
  return { [field]: amountTooLong(field) };
}
