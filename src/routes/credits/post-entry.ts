import type { Context } from "hono";
import type * as v from "valibot";
import type { AppEnv } from "../../env";
import { ok } from "../../http/envelope";
import { type EntryParams, movementOf } from "../../http/fields";
import type { credit, debit } from "../../wallet/movements";

/** POST /credits and POST /debits once the input is read: one verb, answered in wallet/v1's words. */
export async function postSingleEntry(
  c: Context<AppEnv>,
  verb: typeof credit | typeof debit,
  fields: v.InferOutput<typeof EntryParams>,
) {
  const moved = await verb(c.var.service, {
    user: { id: fields.user_id },
    ...movementOf(fields),
    requestId: fields.request_id,
  });
  return ok(c, 200, "Transaction Completed", {
    transaction_id: moved.transactionId,
    user_id: moved.userId,
  });
}
