import * as v from "valibot";
import { choiceField, isoInstant, userIdField, walletIdField } from "../../http/fields";
import { PAGE_ALIAS, PAGE_FIELDS } from "../transactions/schemas";

export const StatementParams = v.object({
  // Required for administrators; a subscriber may omit it (its own) — see read.ts.
  user_id: v.optional(userIdField()),
  wallet_id: walletIdField,
  // Both instants included, a date-only `to` its whole day; `from` omitted: 1970-01-01T00:00:00Z
  // (an imported entry dated earlier is in the opening balance); `to` omitted or later: the last
  // second that is over.
  from: v.optional(isoInstant("from")),
  to: v.optional(isoInstant("to", { wholeDay: true })),
  ...PAGE_FIELDS,
  ...PAGE_ALIAS,
  format: v.optional(choiceField(["json", "csv"], "format must be json or csv"), "json"),
});
