import * as v from "valibot";
import {
  amountField,
  noteField,
  requestIdField,
  userIdField,
  walletIdField,
} from "../../http/fields";

export const TransferParams = v.object({
  from_user_id: userIdField("from_user_id"),
  to_user_id: userIdField("to_user_id"),
  wallet_id: walletIdField,
  request_id: requestIdField,
  amount: amountField,
  note: noteField,
});
