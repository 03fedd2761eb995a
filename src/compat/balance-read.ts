import type { Context } from "hono";
import * as v from "valibot";
import type { Wallet } from "../db/wallets";
import type { AppEnv } from "../env";
import { send } from "../http/envelope";
import type { Input, RouteInfo } from "../http/route";
import { compatPublicReads } from "../settings";
import { namedBalances } from "../wallet/balances";
import { asciiLower, formatMoney, major } from "../wallet/rules";
import { keyRouteRefusals } from "./auth";
import { pluginUserRef } from "./identity";
import { sanitizeTextField } from "./php";
import { entitiesRequired } from "./respond";
import { BalanceRequest } from "./schemas";

// Shared by `user-wallet-balance` and `user-wallet-balance/multi` (plugin files
// includes/user-wallet-balance/user-wallet-balance.php and -multi.php): the same reads, two shapes.

/** The action name the plugin gave both balance routes; its refusal texts name it. */
const ACTION = "get_rimplenet_wallets_balance";

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
 * The caller's access is checked once the user is named (wallet/balances.ts namedBalances).
 */
export const balanceRoute = {
  method: "GET",
  auth: "reader",
  publicWhen: compatPublicReads,
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

/** A wallet a balance route found: its piece's position in the request, the piece, its record. */
type Found = { index: number; piece: string; record: ReturnType<typeof balanceRecord> };

/**
 * The parameters' 422, the user (an id costs no query, a username one) and the caller's access to
 * it, then one D1 round trip; answered in envelope A plus the plugin's top-level `submitted` (the
 * sanitized parameters, echoed back), its `data` what `shape` makes of the wallets found out of
 * `pieces`. Unknown wallets are skipped. A wallet's balance, though, was read under the piece
 * lowercased but untrimmed, so `usd, ngn` reads ` ngn` as 0 (capture 41-balance-multi-space):
 * kept on purpose.
 */
export async function answerPluginBalances(
  c: Context<AppEnv>,
  { sent, user, wallets }: BalanceInput,
  keyBy: "value" | "field",
  shape: (found: Found[], pieces: number) => unknown,
) {
  const refused = entitiesRequired(c, sent, keyBy);
  if (refused) return refused;
  const read = { user, walletIds: wallets.map((w) => w.id), public: compatPublicReads(c.env) };
  const { userId, found: balances } = await namedBalances(c.var.service, read);

  const found: Found[] = [];
  for (const [index, { piece, id }] of wallets.entries()) {
    const balance = balances.get(id);
    if (!balance) continue;
    const minor = userId !== null && asciiLower(piece) === id ? balance.minor : 0;
    found.push({ index, piece, record: balanceRecord(piece, balance.wallet, minor) });
  }
  return send(c, 200, {
    status_code: 200,
    status: true,
    message: "Wallet Balance retrieved",
    data: shape(found, wallets.length),
    submitted: sent,
  });
}
