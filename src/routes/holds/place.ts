import { findWalletCached } from "../../db/wallets";
import { requireAdmin } from "../../http/auth";
import { ok } from "../../http/envelope";
import { readMoneyInput } from "../../http/money-input";
import { readParams } from "../../http/params";
import { entryStamp } from "../../http/site";
import { placeHold } from "../../wallet/holds";
import { requireUser } from "../../wallet/users";
import { HoldPlacedAnswer } from "../answers";
import { defineRoute } from "../route";
import { PlaceHoldParams, placedRecord } from "./schemas";

/** A hold (src/wallet/holds.ts): refused beyond the available balance, however many race. */
export const placeHoldRoute = defineRoute(
  {
    path: "/holds",
    method: "POST",
    summary: "Reserve money now, to capture or void later (a hold)",
    auth: "admin",
    params: PlaceHoldParams,
    envelope: "A",
    errors: ["invalid_input", "user_not_found", "insufficient_balance", "transaction_exists"],
    success: 200,
    data: HoldPlacedAnswer,
  },
  async (c) => {
    requireAdmin(c, "write");
    const db = c.var.db;
    const { fields, wallet, amountMinor } = await readMoneyInput(
      PlaceHoldParams,
      await readParams(c),
      (id) => findWalletCached(db, id),
    );
    const user = await requireUser(db, fields.user_id);
    const held = await placeHold(
      { db, stamp: entryStamp(c) },
      {
        user,
        wallet,
        amountMinor,
        amountText: fields.amount.text,
        requestId: fields.request_id,
        note: fields.note,
        expiresInS: fields.expires_in,
      },
    );
    return ok(c, 200, "Hold placed", placedRecord(held));
  },
);
