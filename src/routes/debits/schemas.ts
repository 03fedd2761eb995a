import { EntryParams } from "../../http/fields";

// Debits take exactly the credit's fields, messages and quirks.
export const DebitParams = EntryParams;
