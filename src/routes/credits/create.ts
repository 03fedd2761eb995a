import { requireAdmin } from "../../http/auth";
import { EntryAnswer } from "../answers";
import { defineRoute } from "../route";
import { postSingleEntry } from "./post-entry";
import { CreditParams } from "./schemas";

export const createCredit = defineRoute(
  {
    path: "/credits",
    method: "POST",
    summary: "Credit a user's wallet, idempotent on request_id",
    auth: "admin",
    params: CreditParams,
    envelope: "A",
    success: 200,
    data: EntryAnswer,
    errors: ["invalid_input", "user_not_found", "transaction_exists"],
  },
  async (c) => {
    requireAdmin(c, "write");
    return postSingleEntry(c, "CREDIT");
  },
);
