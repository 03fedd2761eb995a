import * as v from "valibot";
import { ok } from "../http/envelope";
import { defineRoute, type Input } from "../http/route";
import type { UserRef } from "../wallet/movements";
import { Refusal } from "../wallet/refusal";
import { asciiLower, formatMoney, major, mysqlDate } from "../wallet/rules";
import { walletSummary } from "../wallet/summary";
import { keyRouteRefusals } from "./auth";
import { pluginUser } from "./identity";
import { entitiesRequired, invalidWallet, pluginUserNotFound } from "./respond";
import { SummaryRequest } from "./schemas";

// `GET wallet-summary`: a wallet of a user at a glance, which the plugin never had, in its words:
// its key-route refusals, user references and wallet records, amounts raw and formatted.

const refusals = keyRouteRefusals("get_rimplenet_wallet_summary");

/** The fields as sent (the 422 judges them), the user they name (left out: the caller), the wallet. */
const summaryInput: Input<{ sent: SummaryRequest; user?: UserRef; walletId: string }> = {
  schema: SummaryRequest,
  read: (_c, params) => {
    const sent = v.parse(SummaryRequest, params);
    const user = sent.user_id === undefined ? undefined : pluginUser(sent.user_id);
    return { sent, user, walletId: asciiLower(sent.wallet_id) };
  },
};

export const compatWalletSummary = defineRoute(
  {
    path: "/wallet-summary",
    method: "GET",
    summary: "One wallet of a user at a glance: balance, held, available, entries, the newest",
    auth: "reader",
    refusals,
    params: summaryInput,
  },
  async (c, { sent, user, walletId }) => {
    const refused = entitiesRequired(c, sent, "field");
    if (refused) return refused;
    const s = await walletSummary(c.var.service, { user, walletId }).catch((err: unknown) => {
      const code = err instanceof Refusal ? err.reason.code : undefined;
      if (code === "user_not_found") return null;
      if (code === "wallet_not_found") throw invalidWallet();
      throw err;
    });
    if (!s) return pluginUserNotFound(c);
    const w = s.wallet;
    return ok(c, 200, "Wallet Summary retrieved", {
      user_id: s.userId,
      wallet_id: w.id,
      wallet_balance_raw: major(s.balanceMinor, w),
      wallet_balance_formatted: formatMoney(s.balanceMinor, w),
      wallet_held_raw: major(s.heldMinor, w),
      wallet_held_formatted: formatMoney(s.heldMinor, w),
      wallet_available_raw: major(s.availableMinor, w),
      wallet_available_formatted: formatMoney(s.availableMinor, w),
      entry_count: s.entryCount,
      last_txn_id: s.last?.id ?? null,
      last_txn_type: s.last?.txnType.toLowerCase() ?? null,
      last_txn_amount_raw: s.last ? major(s.last.amountMinor, w) : null,
      // As the plugin wrote post_date_gmt.
      last_txn_date_gmt: s.last ? mysqlDate(s.last.createdAtS, "UTC") : null,
    });
  },
);
