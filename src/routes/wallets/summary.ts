import * as v from "valibot";
import { ok } from "../../http/envelope";
import { walletNotFound } from "../../http/errors";
import { ownUserIdField, pathWalletIdField } from "../../http/fields";
import { defineRoute } from "../../http/route";
import { fields } from "../../http/validation";
import { Refusal } from "../../wallet/refusal";
import { formatMoney, major } from "../../wallet/rules";
import { walletSummary } from "../../wallet/summary";
import { heldFigures, WalletSummaryAnswer } from "../answers";

export const readWalletSummary = defineRoute(
  {
    path: "/wallets/{wallet_id}/summary",
    method: "GET",
    operationId: "readWalletSummary",
    summary: "One wallet of a user at a glance: balance, held, available, entries, the newest",
    auth: "reader",
    owner: (params) => params.user_id,
    params: fields(
      v.object({
        wallet_id: pathWalletIdField,
        user_id: ownUserIdField,
      }),
    ),
    errors: ["invalid_input", "user_not_found", "wallet_not_found"],
    data: WalletSummaryAnswer,
  },
  async (c, input) => {
    const walletId = input.wallet_id.id;
    if (walletId === null) throw walletNotFound();
    const user = input.user_id === undefined ? undefined : { id: input.user_id };
    const s = await walletSummary(c.var.service, { user, walletId }).catch((err: unknown) => {
      throw err instanceof Refusal && err.reason.code === "wallet_not_found"
        ? walletNotFound()
        : err;
    });
    const w = s.wallet;
    return ok(c, 200, "Wallet summary retrieved", {
      user_id: s.userId,
      wallet_id: w.id,
      ...heldFigures(s, w),
      entry_count: s.entryCount,
      last_entry: s.last && {
        transaction_id: s.last.id,
        txn_type: s.last.txnType,
        amount: major(s.last.amountMinor, w),
        date: new Date(s.last.createdAtS * 1000).toISOString(),
      },
      formatted: heldFigures(s, w, formatMoney),
    });
  },
);
