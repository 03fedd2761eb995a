import { CreditParams } from "../credits/schemas";

// Debits take exactly the credit's fields, messages and quirks.
export const DebitParams = CreditParams;
