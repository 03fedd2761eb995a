import { EntryParams } from "../../http/fields";

// Key order is the order the plugin reported errors in: user_id, wallet_id, request_id, amount.
export const CreditParams = EntryParams;
