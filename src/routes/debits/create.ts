import { Hono } from "hono";
import { createDb } from "../../db/client";
import type { AppEnv } from "../../env";
import { authenticate, requireAdmin } from "../../http/auth";
import { ok } from "../../http/envelope";
import { transactionExists } from "../../http/errors";
import { readMoneyInput, requireUser } from "../../http/money-input";
import { readParams } from "../../http/params";
import { postEntry } from "../../ledger/entries";
import { DebitParams } from "./schemas";

// The overdraft guard is the transactions_no_overdraft CHECK: a debit past zero fails inside its
// batch and answers "Insufficient Balance" (http/errors.ts), however many debits race.
export const createDebit = new Hono<AppEnv>().post("/", authenticate, async (c) => {
  requireAdmin(c, "write");
  const db = createDb(c.env.DB);
  const { fields, wallet, amountMinor } = await readMoneyInput(db, DebitParams, await readParams(c));
  const user = await requireUser(db, fields.user_id);
  const spec = { user, wallet, amountMinor, amountText: fields.amount.text, requestId: fields.request_id, note: fields.note };
  const result = await postEntry(db, { ...spec, txnType: "DEBIT" }, c.get("nowMs")());
  if (!result.created) throw transactionExists(result.existingId!);
  return ok(c, 200, "Transaction Completed", { transaction_id: result.ids[0], user_id: user.id });
});
