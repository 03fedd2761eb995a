import type { Context } from "hono";
import { findWalletCached } from "../../db/wallets";
import type { AppEnv } from "../../env";
import { ok } from "../../http/envelope";
import { EntryParams } from "../../http/fields";
import { readMoneyInput } from "../../http/money-input";
import { readParams } from "../../http/params";
import { entryStamp } from "../../http/site";
import { postSingle } from "../../wallet/movements";
import { requireUser } from "../../wallet/users";

/**
 * The whole of POST /credits and POST /debits after authorization: validate, find the user, append
 * one entry idempotently. A debit past zero fails the overdraft CHECK inside its batch, so the
 * guard holds however many debits race (answered "Insufficient Balance" by http/errors.ts).
 */
export async function postSingleEntry(c: Context<AppEnv>, txnType: "CREDIT" | "DEBIT") {
  const db = c.var.db;
  const { fields, wallet, amountMinor } = await readMoneyInput(
    EntryParams,
    await readParams(c),
    (id) => findWalletCached(db, id),
  );
  const user = await requireUser(db, fields.user_id);
  const spec = {
    user,
    wallet,
    amountMinor,
    amountText: fields.amount.text,
    requestId: fields.request_id,
    note: fields.note,
  };
  const moved = await postSingle(
    { db, ledger: c.var.ledger, stamp: entryStamp(c) },
    { ...spec, txnType },
  );
  return ok(c, 200, "Transaction Completed", {
    transaction_id: moved.transactionId,
    user_id: moved.userId,
  });
}
