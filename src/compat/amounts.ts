// The plugin dialect's amounts: how they are rounded, and a refused one in its words.

import { AMOUNT_TEXT_MAX, amountTooLong, overlongAmount } from "../http/fields";
import type { AmountPolicy, AmountRefusal } from "../ledger/money";
import { withinChars } from "../text";

/** The plugin's amounts are rounded to the places the wallet stores, half away from zero. */
export const PLUGIN_ROUNDING = "round-half-away-from-zero" satisfies AmountPolicy;

/** A refused amount in the dialect's words, keyed by its field (`amount`, `amount_to_transfer`). */
export function amountRefused(field: string, refusal: AmountRefusal) {
  const text = {
    "not-numeric": "requires a valid amount",
    "not-positive": "must be greater than zero",
    "too-large": "is too large",
    "too-many-decimals": "has more decimal places than the wallet stores",
  }[refusal];
  return { [field]: `${field} ${text}` };
}

/**
 * An amount's text past AMOUNT_TEXT_MAX, refused in the dialect's words keyed by its field (before
 * any echo of it), or nothing: too long, or not positive or too large as http/fields.ts reads it.
 */
export function overlongRefused(field: string, text: string) {
  if (withinChars(text, AMOUNT_TEXT_MAX)) return {};
  const why = overlongAmount(text);
  if (why !== "too-long") return amountRefused(field, why);
  return { [field]: amountTooLong(field) };
}
