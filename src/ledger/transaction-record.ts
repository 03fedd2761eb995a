import * as v from "valibot";
import type { EntryRow } from "../db/ledger";
import { formatMoney, movedAmountText } from "./money";
import { displayDate, displayLocalDate, mysqlDate } from "./post-format";

/** siteUrl: the base of guids not stored with their entry, without a trailing slash. */
export type SiteSettings = { siteUrl: string; timeZone: string };

const text = v.string();
export const int = v.pipe(v.number(), v.integer());

/** The record's wire shape: what `transactionRecord` builds, checked and published (OpenAPI). */
export const TransactionAnswer = v.strictObject({
  ID: int,
  post_author: text,
  post_date: text,
  post_date_gmt: text,
  post_content: text,
  post_title: text,
  post_excerpt: v.literal(""),
  post_status: v.literal("publish"),
  comment_status: v.literal("open"),
  ping_status: v.literal("closed"),
  post_password: v.literal(""),
  post_name: text,
  to_ping: v.literal(""),
  pinged: v.literal(""),
  post_modified: text,
  post_modified_gmt: text,
  post_content_filtered: v.literal(""),
  post_parent: v.literal(0),
  guid: text,
  menu_order: v.literal(0),
  post_type: v.literal("wallettransaction"),
  post_mime_type: v.literal(""),
  comment_count: v.literal("0"),
  filter: v.literal("raw"),
  date_time: text,
  wallet_symbol: v.nullable(text),
  wallet_decimal: v.nullable(int),
  amount: text,
  txn_type: v.picklist(["CREDIT", "DEBIT"]),
  amount_formatted_disp: v.nullable(text),
  note: text,
});
type TransactionRecord = v.InferOutput<typeof TransactionAnswer>;

type Dated = Pick<EntryRow["entry"], "createdAtS" | "localDate" | "modifiedLocalDate">;

/**
 * An entry's post_date, site-local: an entry imported from WordPress keeps the one the site stored
 * (its time zone may not be this service's, nor constant over its history).
 */
export const postDate = (entry: Dated, timeZone: string) =>
  entry.localDate ?? mysqlDate(entry.createdAtS, timeZone);

/** An entry's post_modified, site-local: its post_date unless the site stored another. */
export const postModified = (entry: Dated, timeZone: string) =>
  entry.modifiedLocalDate ?? postDate(entry, timeZone);

/**
 * A ledger entry as the plugin returned it: a WordPress post plus the plugin's fields, with exactly
 * these keys in this order and these JSON types (contract section 7).
 */
export function transactionRecord(
  { entry, ...wallet }: EntryRow,
  site: SiteSettings,
): TransactionRecord {
  // An entry imported from WordPress keeps the dates and guid the site stored.
  const local = postDate(entry, site.timeZone);
  const gmt = mysqlDate(entry.createdAtS, "UTC");
  return {
    ID: entry.id,
    post_author: String(entry.userId),
    post_date: local,
    post_date_gmt: gmt,
    post_content: `Amount:${entry.amountText}`,
    post_title: entry.title,
    post_excerpt: "",
    post_status: "publish",
    comment_status: "open",
    ping_status: "closed",
    post_password: "",
    post_name: entry.slug,
    to_ping: "",
    pinged: "",
    post_modified: postModified(entry, site.timeZone),
    post_modified_gmt: entry.modifiedGmtDate ?? gmt,
    post_content_filtered: "",
    post_parent: 0,
    guid: entry.guid ?? `${site.siteUrl}/wallettransaction/${entry.slug}/`,
    menu_order: 0,
    post_type: "wallettransaction",
    post_mime_type: "",
    comment_count: "0",
    filter: "raw",
    date_time:
      entry.localDate === null
        ? displayDate(entry.createdAtS, site.timeZone)
        : displayLocalDate(entry.localDate),
    wallet_symbol: wallet.symbol,
    wallet_decimal: wallet.decimals,
    // What moved; post_content keeps the amount as sent (a plugin-dialect amount may be rounded).
    amount: movedAmountText(entry.amountText, entry.amountMinor, wallet),
    txn_type: entry.txnType,
    // `amount` is exact; the display rounds a wallet that stores more places.
    amount_formatted_disp: formatMoney(entry.amountMinor, wallet),
    note: entry.note,
  };
}
