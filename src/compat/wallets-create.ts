import * as v from "valibot";
import { fail, ok } from "../http/envelope";
import { ApiError, invalidInput } from "../http/errors";
import { WALLET_FIELD, walletRuleText } from "../http/fields";
import { defineRoute, type Input } from "../http/route";
import { Refusal } from "../wallet/refusal";
import { normalizeWalletId, normalizeWalletType } from "../wallet/wallet-shape";
import { type NewWallet, newWallet, walletRuleBreaks } from "../wallet/wallets";
import { jwtRouteRefusals } from "./auth";
import { phpText, requires } from "./php";
import { MAX_WITHDRAWAL, MIN_WITHDRAWAL, WalletRequest } from "./schemas";

// `POST wallets` (plugin api/core/wallets/create-wallets.php, includes/wallets/create-wallets.php,
// includes/utils/base-utils.php `requires`), envelope A, behind the plugin's JWT-route refusals
// (`nll_api_request_started`, action rimplenet_create_wallets). The plugin's checks and texts come
// first; then the service's rules (wallet/wallets.ts), which the plugin lacked, in the same shape.

// The plugin's withdrawal limits: this service has no withdrawals and keeps no limits; they are
// checked as the plugin checked them, and answered as GET wallets does.

/** The plugin's message and error for a wallet id already taken (409). */
export const WALLET_EXISTS = "Wallet Already Exists";

/** The plugin's texts for a number or a withdrawal limit it refused, and a symbol's position. */
export const WALLET_NUMBER_TEXT = {
  notNumber: "Requires a number or decimal",
  aboveMax: `Withdrawal amount cannot be greater than ${MAX_WITHDRAWAL}`,
  belowMin: `Withdrawal amount cannot be less than ${MIN_WITHDRAWAL}`,
  notAboveMin: "Equality Error",
  symbolPosition: "wallet_symbol_pos must be left or right",
} as const;

/**
 * The plugin's notFloatOrNumber and checkMinMax: its error keys (`max_amount`, not the field's
 * name) and texts, with the answer's empty message. Only JSON numbers are numbers (PHP's is_int or
 * is_float: a form's "2" is text). Where the plugin would push a second text onto a key it crashed
 * (array_push on a string); the first text is kept here.
 */
function numberChecks(max: unknown, min: unknown, decimals: unknown) {
  const errors: Record<string, string> = {};
  const item = { max_amount: max, min_amount: min, wallet_decimal: decimals };
  for (const [key, value] of Object.entries(item))
    if (typeof value !== "number") errors[key] = WALLET_NUMBER_TEXT.notNumber;
  const maxN = Number(phpText(max));
  const minN = Number(phpText(min));
  for (const [key, amount] of [
    ["max_amount", maxN],
    ["min_amount", minN],
  ] as const) {
    const found: string[] = [];
    if (Math.trunc(amount) > MAX_WITHDRAWAL) found.push(WALLET_NUMBER_TEXT.aboveMax);
    if (Math.trunc(amount) < MIN_WITHDRAWAL) found.push(WALLET_NUMBER_TEXT.belowMin);
    if (maxN <= minN) found.push(WALLET_NUMBER_TEXT.notAboveMin);
    if (found.length > 0 && errors[key] === undefined) errors[key] = found[0]!;
  }
  return errors;
}

/** A new wallet's fields, as the plugin read and checked them, then this service's wallet rules. */
const walletInput: Input<NewWallet> = {
  schema: WalletRequest,
  read: (_c, p) => {
    const f = v.parse(WalletRequest, p);
    const required = requires({
      wallet_name: [f.wallet_name, "string"],
      wallet_id: [f.wallet_id, "string"],
      wallet_symbol: [f.wallet_symbol, "any"],
      wallet_symbol_pos: [f.wallet_symbol_pos, "any"],
      wallet_type: [f.wallet_type, "string"],
      wallet_decimal: [phpText(f.wallet_decimal), "any"],
      max_withdrawal_amount: [phpText(f.max_withdrawal_amount), "any"],
      min_withdrawal_amount: [phpText(f.min_withdrawal_amount), "any"],
    });
    if (Object.keys(required).length > 0) throw invalidInput(required);
    const numbers = numberChecks(
      f.max_withdrawal_amount,
      f.min_withdrawal_amount,
      f.wallet_decimal,
    );
    // The plugin answered these with its response's defaults: status 400 and an empty message.
    if (Object.keys(numbers).length > 0) throw new ApiError(400, "", numbers);

    const position = f.wallet_symbol_pos.toLowerCase();
    const wallet: NewWallet = {
      id: normalizeWalletId(f.wallet_id),
      name: f.wallet_name,
      symbol: f.wallet_symbol,
      symbolPosition: position === "right" ? "right" : "left",
      decimals: f.wallet_decimal as number,
      type: normalizeWalletType(f.wallet_type),
      note: f.wallet_note,
    };
    const rules: Record<string, string> = {};
    for (const b of walletRuleBreaks(wallet)) rules[WALLET_FIELD[b.field]] ??= walletRuleText(b);
    if (position !== "left" && position !== "right")
      rules.wallet_symbol_pos = WALLET_NUMBER_TEXT.symbolPosition;
    if (Object.keys(rules).length > 0) throw invalidInput(rules);
    return wallet;
  },
};

export const compatWalletCreate = defineRoute(
  {
    path: "/wallets",
    method: "POST",
    summary: "Create a wallet",
    auth: "admin",
    access: "write",
    refusals: jwtRouteRefusals,
    params: walletInput,
  },
  async (c, wallet) => {
    const created = await newWallet(c.var.service, wallet).catch((err: unknown) => {
      if (err instanceof Refusal && err.reason.code === "wallet_exists") return undefined;
      throw err;
    });
    if (!created) return fail(c, 409, WALLET_EXISTS, [WALLET_EXISTS]);
    const w = created.wallet;
    // "successully" is the plugin's typo; clients match on it.
    return ok(c, 200, "Wallet was successully created", {
      // The plugin answered the new post's id here; the wallet's post_id stands in (GET wallets).
      wallet_id: created.postId,
      rimplenet_wallet_name: w.name,
      rimplenet_wallet_id: w.id,
      rimplenet_wallet_symbol: w.symbol,
      rimplenet_wallet_note: w.note,
      rimplenet_wallet_type: w.type,
      rimplenet_wallet_decimal: w.decimals,
      rimplenet_max_withdrawal_amount: MAX_WITHDRAWAL,
      rimplenet_min_withdrawal_amount: MIN_WITHDRAWAL,
      rimplenet_wallet_symbol_position: w.symbolPosition,
    });
  },
);
