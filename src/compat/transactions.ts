import * as v from "valibot";
import type { EntryRow } from "../db/ledger";
import { ok, send } from "../http/envelope";
import { defineRoute } from "../http/route";
import { compatPublicReads, siteTimeZone } from "../settings";
import {
  asciiLower,
  localListDate,
  movedAmountText,
  phpIsNumeric,
  postDate,
} from "../wallet/rules";
import { searchTransactions } from "../wallet/transactions";
import { keyRouteRefusals } from "./auth";
import { phpEmpty, phpIntCast, wpPaged } from "./php";
import { SearchRequest } from "./schemas";

// `GET transactions` (captures 54-68; plugin includes/transactions/get-transactions.php
// fetchTransactions): a WP_Query over the transaction posts with one meta_query
// `{key: meta_key, value: meta_value, compare: LIKE}`. Without a meta_key nothing matches, so the
// plugin answered "No transaction found" to every call that did not name one (its user_id and
// metas_to_retrieve parameters were never read: it looked for them in a variable it did not have).

const PER_PAGE = 10; // WordPress's posts_per_page option default
const MAX_PER_PAGE = 100;
const NONE = {
  status_code: 200,
  status: true,
  message: "No transaction found",
  data: [],
  error: {
    msg: "No transaction found",
    recommendation: "Try using modifying the filters or params",
  },
};

function record({ entry, symbol, decimals, extraDecimals }: EntryRow, timeZone: string) {
  const moved = movedAmountText(entry.amountText, entry.amountMinor, { decimals, extraDecimals });
  const { dateTime, timestamp } = localListDate(postDate(entry, timeZone));
  return {
    ID: entry.id,
    // A transfer's halves had no request_id meta: the plugin read "".
    request_id: entry.transferId === null ? entry.requestId : "",
    user_id: entry.userId,
    date_time: dateTime,
    timestamp,
    // floatval() of the amount, and the formatted form its text: the amount that moved (the plugin
    // showed the amount as sent, which was what it moved; this service may have rounded it).
    amount: Number(moved),
    amount_formatted: `${symbol}${moved}`,
    note: entry.note,
    transaction_id: entry.id,
    transaction_type: entry.txnType,
    wallet_id: entry.walletId,
    wallet_symbol: symbol,
    wallet_decimal: decimals,
  };
}

/**
 * WP_Query's `posts_per_page` of the text the plugin handed it: "" and "0" (PHP's empty) are the
 * site's 10, a number equal to -1 (PHP 8's `-1 ==`: `-1`, `-1.0`) every post, else its `(int)`:
 * 0 (`abc`, `0.5`) one post, another negative count its absolute value; -1 reached that way
 * (`-1abc`, `-1.5`) put `LIMIT 0, -1` in the SQL, which MySQL refused: no post (0).
 */
function wpPostsPerPage(text: string): number | "every" {
  if (phpEmpty(text)) return PER_PAGE;
  if (phpIsNumeric(text) && Number(text) === -1) return "every";
  const n = phpIntCast(text);
  if (n === 0) return 1;
  if (n === -1) return 0;
  return Math.min(Math.abs(n), MAX_PER_PAGE);
}

/** The plugin's search: one meta key and value, a page and an order, as it read them. */
const searchInput = {
  schema: SearchRequest,
  read: (_c: unknown, params: Record<string, unknown>) => {
    const f = v.parse(SearchRequest, params);
    // WordPress's every post is one page, whatever page_no says: here, the most a page holds.
    const asked = wpPostsPerPage(f.posts_per_page);
    return {
      key: f.meta_key,
      value: f.meta_value,
      perPage: asked === "every" ? MAX_PER_PAGE : asked,
      page: asked === "every" ? 1 : wpPaged(f.page_no),
      order: {
        // WP_Query takes its keys as written (parse_orderby's strict in_array): `id` is no key,
        // and orders by date. `order` it reads in any ASCII case (parse_order's strtoupper).
        by: f.orderby === "ID" ? ("id" as const) : ("date" as const),
        direction: asciiLower(f.order) === "asc" ? ("asc" as const) : ("desc" as const),
      },
    };
  },
};

/** Public, as the plugin had it, only with COMPAT_PUBLIC_READS; else a subscriber sees its own. */
export const compatTransactions = defineRoute(
  {
    path: "/transactions",
    method: "GET",
    summary: "Transactions by one of their post metas",
    auth: "reader",
    // Any caller with the read scope; a subscriber's search is kept to its own entries.
    owner: () => undefined,
    publicWhen: compatPublicReads,
    refusals: keyRouteRefusals("rimplenet_get_transactions"),
    params: searchInput,
  },
  async (c, { key, value, perPage, page, order }) => {
    if (perPage === 0) return send(c, 200, NONE);
    const rows = await searchTransactions(c.var.service, {
      key,
      value,
      order,
      offset: (page - 1) * perPage,
      limit: perPage,
      public: compatPublicReads(c.env),
    });
    if (rows.length === 0) return send(c, 200, NONE);
    const data = rows.map((row) => record(row, siteTimeZone(c.env)));
    return ok(c, 200, "Transactions Retrieved", data);
  },
);
