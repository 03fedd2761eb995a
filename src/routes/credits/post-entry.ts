import type { Context } from "hono";
import type { AppEnv } from "../../env";
import { ok } from "../../http/envelope";
import type { EntryParams } from "../../http/fields";
import type { MoneyInput } from "../../http/money-input";
import { entryStamp } from "../../http/site";
import { postSingle } from "../../wallet/movements";
import { requireUser } from "../../wallet/users";

/**
 * The whole of POST /credits and POST /debits once the input is read: find the user, append one
 * entry idempotently. A debit past zero fails the overdraft CHECK inside its batch, so the guard
 * holds however many debits race (answered "Insufficient Balance" by http/errors.ts).
 */
export async function postSingleEntry(
  c: Context<AppEnv>,
  txnType: "CREDIT" | "DEBIT",
  { fields, wallet, amountMinor }: MoneyInput<typeof EntryParams>,
) {
  const db = c.var.db;
  const user = await requireUser(db, fields.user_id);
  const moved = await postSingle(
    { db, ledger: c.var.ledger, stamp: entryStamp(c) },
    {
      user,
      wallet,
      txnType,
      amountMinor,
      amountText: fields.amount.text,
      requestId: fields.request_id,
      note: fields.note,
    },
  );
  return ok(c, 200, "Transaction Completed", {
    transaction_id: moved.transactionId,
    user_id: moved.userId,
  });
}
