import * as v from "valibot";
import { amountField, noteField, requestIdField, userIdField, walletIdField } from "../../http/fields";

// Key order is the order the plugin reported errors in: user_id, wallet_id, request_id, amount.
export const CreditParams = v.object({
  // A missing user_id counts as zero, as the plugin's (int) cast made it.
  user_id: v.optional(userIdField(), "0"),
  wallet_id: walletIdField,
  request_id: requestIdField,
  amount: amountField,
  note: noteField,
});
