import * as v from "valibot";
import { anyText, EMPTY, isoDate, ownUserIdField } from "../../http/fields";
import { MAX_WALLETS_PER_READ, TOO_MANY_WALLETS, unknownWalletText } from "../../wallet/balances";
import { isWalletId, normalizeWalletId } from "../../wallet/wallet-shape";

export const BalanceParams = v.object({
  user_id: ownUserIdField,
  // One id or several, comma-separated; spaces around ids ignored, repeats collapsed.
  wallet_id: v.pipe(
    v.string(EMPTY),
    v.rawTransform(({ dataset, addIssue, NEVER }) => {
      const ids = [...new Set(dataset.value.split(",").map(normalizeWalletId).filter(Boolean))];
      const bad = ids.find((id) => !isWalletId(id));
      if (ids.length === 0) addIssue({ message: EMPTY });
      else if (bad !== undefined) addIssue({ message: unknownWalletText(bad) });
      else if (ids.length > MAX_WALLETS_PER_READ) addIssue({ message: TOO_MANY_WALLETS });
      else return ids;
      return NEVER;
    }),
    v.description(`One wallet id, or several comma-separated (at most ${MAX_WALLETS_PER_READ})`),
  ),
  // `yes` (any case) adds the display texts; anything else, a number too, leaves them out.
  formatted: v.optional(
    v.pipe(
      anyText("formatted must be text"),
      v.description("`yes` (in any case) adds `formatted`: each balance as display text"),
    ),
    "",
  ),
  // The balances as of this instant (docs/ledger.md#balances-at-a-point-in-time); omitted: now.
  at: v.optional(
    v.pipe(
      isoDate("at"),
      v.description(
        "The balances as they stood at this ISO 8601 instant (a date alone: its midnight; no offset: UTC), not in the future. Left out: now",
      ),
    ),
  ),
});

/** GET /balances: every wallet the user has a balance in. */
export const AvailableParams = v.object({
  user_id: ownUserIdField,
});
