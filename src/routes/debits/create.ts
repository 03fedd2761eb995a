import { requireAdmin } from "../../http/auth";
import { EntryAnswer } from "../answers";
import { postSingleEntry } from "../credits/post-entry";
import { defineRoute } from "../route";
import { DebitParams } from "./schemas";

export const createDebit = defineRoute(
  {
    path: "/debits",
    method: "POST",
    summary: "Debit a user's wallet; never below zero",
    auth: "admin",
    params: DebitParams,
    envelope: "A",
    errors: ["invalid_input", "user_not_found", "insufficient_balance", "transaction_exists"],
    success: 200,
    data: EntryAnswer,
  },
  async (c) => {
    requireAdmin(c, "write");
    return postSingleEntry(c, "DEBIT");
  },
);
