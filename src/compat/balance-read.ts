import type { Context } from "hono";
import * as v from "valibot";
import type { Wallet } from "../db/wallets";
import type { AppEnv } from "../env";
import { invalidInput } from "../http/errors";
import type { Input, RouteInfo } from "../http/route";
import { MAX_WALLETS_PER_READ, readBalances } from "../wallet/balances";
import { mayReadUser } from "../wallet/context";
import { userIdOf } from "../wallet/directory";
import { asciiLower, formatMoney, major } from "../wallet/rules";
import { keyRouteRefusals } from "./auth";
import { publicReads } from "./config";
import { pluginUserRef } from "./identity";
import { phpArrayJson, phpEmpty, sanitizeTextField } from "./php";
import { BalanceRequest, type SummaryRequest } from "./schemas";

// Shared by `user-wallet-balance` and `user-wallet-balance/multi` (plugin files
// includes/user-wallet-balance/user-wallet-balance.php and -multi.php): the same reads, two shapes.

/** The action name the plugin gave both balance routes; its refusal texts name it. */
const ACTION = "get_rimplenet_wallets_balance";

/**
 * The plugin's 422 "Entities Are Required", as JSON text of its `error`, or null. Its checkIfEmpty
 * keyed each message by the empty *value* in the single route (so `{"":"…"}`, and `["…"]` for "0",
 * which PHP turns into the key 0; a second empty field overwrites the first) and by the field name
 * in `/multi` (and `wallet-summary`). Kept on purpose: clients of the plugin parse these shapes. A
 * user_id that is undefined (wallet-summary's, left out: the caller) is not judged.
 */
export function entitiesRequired(
  req: Pick<SummaryRequest, "user_id" | "wallet_id">,
  keyBy: "value" | "field",
): string | null {
  const errors = new Map<string | number, string>();
  for (const field of ["user_id", "wallet_id"] as const) {
    const value = req[field];
    if (value === undefined || !phpEmpty(value)) continue;
    errors.set(keyBy === "field" ? field : value === "0" ? 0 : value, `${field} is required`);
  }
  return errors.size === 0 ? null : phpArrayJson(errors);
}

type BalanceRecord = ReturnType<typeof balanceRecord>;

function balanceRecord(piece: string, wallet: Wallet, minor: number) {
  return {
    wallet_id: piece,
    wallet_balance_raw: major(minor, wallet),
    wallet_balance_formatted: formatMoney(minor, wallet),
    wallet_name: wallet.name,
    wallet_symbol: wallet.symbol,
    wallet_symbol_position: wallet.symbolPosition,
    // Post meta: the plugin answered every wallet field as text, the decimals included.
    wallet_decimal: String(wallet.decimals),
    wallet_note: wallet.note,
    wallet_type: wallet.type,
  };
}

type BalanceRead =
  | { refused: string }
  | {
      req: BalanceRequest;
      pieces: string[];
      found: { index: number; piece: string; record: BalanceRecord }[];
    };

/**
 * The balance routes' parameters as sent (sanitized: the answer echoes them), the user they name
 * (identity.ts), and the wallets: each comma-separated piece names one as the plugin looked it up,
 * the piece sanitized again and lowercased (its `id`; empty names none).
 */
type BalanceInput = {
  sent: BalanceRequest;
  user: ReturnType<typeof pluginUserRef>;
  wallets: { piece: string; id: string }[];
};

/**
 * The two balance routes' declaration: the plugin's key-route refusals, public by configuration.
 * The caller's access is checked once the user is named (readPluginBalances).
 */
export const balanceRoute = {
  method: "GET",
  auth: "reader",
  publicWhen: publicReads,
  refusals: keyRouteRefusals(ACTION),
  params: {
    schema: BalanceRequest,
    read: (_c, params) => {
      const sent = v.parse(BalanceRequest, params);
      const wallets = sent.wallet_id
        .split(",")
        .map((piece) => ({ piece, id: asciiLower(sanitizeTextField(piece)) }));
      return { sent, user: pluginUserRef(sent.user_id), wallets };
    },
  },
} satisfies Partial<RouteInfo> & { params: Input<BalanceInput> };

/**
 * The parameters' 422, the user (an id costs no query, a username one) and the caller's access to
 * it, then one D1 round trip. Unknown wallets are skipped. A wallet's balance, though, was read
 * under the piece lowercased but untrimmed, so `usd, ngn` reads ` ngn` as 0 (capture 41): kept on
 * purpose.
 */
export async function readPluginBalances(
  c: Context<AppEnv>,
  { sent, user, wallets }: BalanceInput,
  keyBy: "value" | "field",
): Promise<BalanceRead> {
  const refused = entitiesRequired(sent, keyBy);
  if (refused !== null) return { refused };
  const userId = await userIdOf(c.var.service, user);
  // The ids compare, never the texts; nobody (NaN) is refused to a subscriber as anyone else is.
  if (!publicReads(c.env) && !mayReadUser(c.get("principal"), userId ?? Number.NaN))
    throw balanceRoute.refusals.forbidden();

  // The plugin had no bound; here a read names at most as many wallets as /wallet/v1 allows.
  if (wallets.length > MAX_WALLETS_PER_READ)
    throw invalidInput({ wallet_id: `wallet_id lists at most ${MAX_WALLETS_PER_READ} wallets` });
  const named = wallets.map((w) => w.id).filter((id) => id !== "");
  const { found: balances } = await readBalances(c.var.ledger, userId ?? 0, named);

  const found = [];
  for (const [index, { piece, id }] of wallets.entries()) {
    const balance = balances.get(id);
    if (!balance) continue;
    const minor = userId !== null && asciiLower(piece) === id ? balance.minor : 0;
    found.push({ index, piece, record: balanceRecord(piece, balance.wallet, minor) });
  }
  return { req: sent, pieces: wallets.map((w) => w.piece), found };
}
