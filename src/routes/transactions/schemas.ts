import * as v from "valibot";
import { aliasField } from "../../http/aliases";
import {
  anyText,
  choiceField,
  documented,
  EMPTY,
  integerIn,
  integerText,
  isoDate,
  pathIdField,
  ReverseParams,
  readerUserIdField,
  walletIdField,
} from "../../http/fields";
import { SECURITY_CODE } from "../../settings";

export const MAX_PER_PAGE = 100;
const MAX_PAGE = 1_000_000;

/** `page` and `per_page` as the WordPress lists take them (1-100 a page, default 100). */
export const PAGE_FIELDS = {
  page: v.optional(integerIn("page", 1, MAX_PAGE), "1"),
  per_page: v.optional(integerIn("per_page", 1, MAX_PER_PAGE), String(MAX_PER_PAGE)),
};

/**
 * `pageno`, the plugin's name for `page`, on wallet/v1's transactions and statements (the plugin had
 * no statements): read as `page`, so a bad one is reported as `page`, and `page` wins when both are
 * sent.
 */
export const PAGE_ALIAS = {
  pageno: aliasField("page", integerIn("page", 1, MAX_PAGE), "the Rimplenet plugin's name for it"),
};

/** What leaving out every paging parameter of GET /transactions asks for (contract section 7). */
const UNPAGED =
  "Without `page`, `pageno` and `per_page` the answer holds every matching transaction, unpaged (streamed)";

export const TransactionListParams = v.object({
  user_id: readerUserIdField,
  security_code: v.pipe(
    anyText(integerText("security_code")),
    v.nonEmpty(EMPTY),
    v.regex(SECURITY_CODE, integerText("security_code")),
    documented({
      type: "string",
      pattern: SECURITY_CODE.source,
      description:
        "The site's `TRANSACTIONS_SECURITY_CODE`, compared as written (`04321` is not `4321`); any integer where none is set",
    }),
  ),
  // No default: a page is read only when one of them is sent (list.ts), then page 1 of 100.
  page: v.optional(
    v.pipe(
      integerIn("page", 1, MAX_PAGE),
      v.description(`Default 1 once \`per_page\` is sent. ${UNPAGED}`),
    ),
  ),
  per_page: v.optional(
    v.pipe(
      integerIn("per_page", 1, MAX_PER_PAGE),
      v.description(`Default ${MAX_PER_PAGE} once \`page\` or \`pageno\` is sent. ${UNPAGED}`),
    ),
  ),
  ...PAGE_ALIAS,
  wallet_id: v.optional(walletIdField),
  txn_type: v.optional(
    choiceField(["CREDIT", "DEBIT"], "txn_type must be CREDIT or DEBIT", { upper: true }),
  ),
  after: v.optional(
    v.pipe(
      isoDate("after"),
      v.description("Entries dated after this ISO 8601 instant (no offset: UTC)"),
    ),
  ),
  before: v.optional(
    v.pipe(
      isoDate("before", { up: true }),
      v.description("Entries dated before this ISO 8601 instant (no offset: UTC)"),
    ),
  ),
  order: v.optional(choiceField(["asc", "desc"], "order must be asc or desc"), "desc"),
});

/** A reversal's input: the transaction in the path, then the body's fields. */
export const ReverseRouteParams = v.object({ id: pathIdField, ...ReverseParams.entries });
