import type { Context } from "hono";
import * as v from "valibot";
import type { EntryKind, KindRow } from "../db/ledger";
import type { AppEnv } from "../env";
import { withAliases } from "../http/aliases";
import { fail, ok, send } from "../http/envelope";
import type { Refusals } from "../http/errors";
import { defineRoute, type Input } from "../http/route";
import { pathFields } from "../http/validation";
import { pageHeaders } from "../http/wp-core";
import { siteTimeZone } from "../settings";
import { walletRows } from "../wallet/directory";
import {
  asciiLower,
  minorToText,
  movedAmountText,
  postModified,
  storageDecimals,
  transferListDate,
} from "../wallet/rules";
import { entriesOfKind, entryOfKind } from "../wallet/transactions";
import { jwtRouteRefusals, keyRouteRefusals } from "./auth";
import { phpInt, phpPage } from "./php";
import { INVALID_WALLET_ID } from "./respond";
import { ListRequest, MAX_WITHDRAWAL, MIN_WITHDRAWAL, WalletPath } from "./schemas";

// The plugin's lists (api/core/{credits,debits,transfers,wallets}/get-*.php with includes/…/get-*.php):
// `GET credits`, `GET debits` (one by `credit_id` / `debit_id` or `debits_id`), `GET transfers`
// (one by `transfer_id`) and `GET wallets`, administrators only, in its field names and texts
// (post meta was text, so amounts and balances are strings). Where the plugin answered every credit
// and debit in one response (posts_per_page -1) and its newest 100 transfers (Utils::LIMIT), these
// answer pages of at most 100, newest first, with `page` and `per_page` and WordPress's
// X-WP-Total / Link headers: a client that never pages sees the newest 100.

const PER_PAGE = 100;

const amountOf = (row: KindRow, minor: number) => minorToText(minor, storageDecimals(row));

/** The amount the entry moved (the plugin's meta held it as sent; this service may have rounded it). */
const movedOf = (row: KindRow) => movedAmountText(row.entry.amountText, row.entry.amountMinor, row);

const TRANSFER_TITLE = "TRANSFER ~ ";

/**
 * A credit's or a debit's post meta, as formatCredits and formatDebits (includes/credits/ and
 * includes/debits/get-*.php) read it. A transfer's halves, and entries no client request named, had
 * no `request_id` or `txn_request_id` meta: "".
 */
function movementRecord(row: KindRow, kind: "credits" | "debits") {
  const e = row.entry;
  const requestId = e.transferId === null ? e.requestId : "";
  // create-credits.php and create-debits.php: `$user_id . '_' . strtolower($request_id)`.
  const txnRequestId = requestId === "" ? "" : `${e.userId}_${asciiLower(requestId)}`;
  return {
    id: e.id,
    amount: movedOf(row),
    balance_after: amountOf(row, e.balanceAfterMinor),
    balance_before: amountOf(row, e.balanceBeforeMinor),
    currency: e.walletId,
    funds_type: `user_withdrawable_bal_${e.walletId}`,
    // formatCredits named `request_id` twice and PHP kept the second, the txn_request_id meta;
    // formatDebits named it once, the request_id meta.
    request_id: kind === "credits" ? txnRequestId : requestId,
    total_balance_after: amountOf(row, e.balanceAfterMinor),
    total_balance_before: amountOf(row, e.balanceBeforeMinor),
    [kind === "credits" ? "credits_request_id" : "debits_request_id"]: txnRequestId,
    txn_type: e.txnType,
    note: e.note,
    // The plugin renamed a transfer's posts after writing them; an imported post keeps its title.
    description: e.transferId === null || e.imported ? e.title : `${TRANSFER_TITLE}${e.title}`,
  };
}

/** A transfer half, as includes/transfers/get-transfers.php formatTransfer read it. */
function transferRecord(row: KindRow, timeZone: string) {
  const e = row.entry;
  // The sender's half is its DEBIT. The plugin wrote the receiving half through its credit code,
  // which books a credit of 0 as a DEBIT of "-0": of an imported zero transfer, that one received.
  // A DEBIT of more than zero moves money out whatever its sign (an imported "-3" moves 3).
  const sent =
    e.txnType === "DEBIT" && !(e.amountMinor === 0 && e.amountText.trim().startsWith("-"));
  const [from, to] = sent
    ? [row.username, row.partnerUsername]
    : [row.partnerUsername, row.username];
  const date = postModified(e, timeZone);
  return {
    transferId: row.partnerId === null ? "" : String(row.partnerId),
    transferTo: to ?? "",
    transferFrom: from ?? "",
    transferAmount: movedOf(row),
    transferDesc: e.note,
    transferType: e.txnType,
    balanceBefore: amountOf(row, e.balanceBeforeMinor),
    balanceAfter: amountOf(row, e.balanceAfterMinor),
    totalBalanceBefore: amountOf(row, e.balanceBeforeMinor),
    totalBalanceAfter: amountOf(row, e.balanceAfterMinor),
    symbol: row.symbol,
    currency: e.walletId,
    dateRaw: date,
    formattedDate: transferListDate(date),
  };
}

type ListSpec = {
  path: string;
  summary: string;
  kind: EntryKind;
  refusals: Refusals;
  idParam: string;
  /** The plugin's own name for `idParam`, where it read another. */
  idAlias?: string;
  message: string;
  found: string;
  /** The plugin's 404 for an id it did not find: message and error. */
  unknown: (id: string) => { message: string; error: unknown };
  /**
   * The id names the other half: the plugin found a transfer by the post whose `alt_transfer_id`
   * meta is the id, so `transfer_id=<a half>` answers its partner (and a half alone, nothing).
   */
  byPartner?: boolean;
  empty: { error: string; message: string };
  record: (row: KindRow, c: Context<AppEnv>) => unknown;
};

/**
 * One entry by its id parameter (a numeric text's integer part, else 0, which names no entry; `ref`
 * as sent), or a page of at most PER_PAGE.
 */
const listInput = (
  idParam: string,
  idAlias?: string,
): Input<{ one?: { id: number; ref: string }; page: number; perPage: number }> => {
  const schema = ListRequest(idParam, idAlias);
  return {
    schema,
    read: (_c, params) => {
      const f = v.parse(schema, withAliases(schema, params));
      const ref = f[idParam]!;
      return {
        one: ref === "" ? undefined : { id: phpInt(ref) ?? 0, ref },
        perPage: Math.min(Math.max(phpInt(f.per_page!) ?? PER_PAGE, 1), PER_PAGE),
        page: phpPage(f.page!),
      };
    },
  };
};

const list = (spec: ListSpec) =>
  defineRoute(
    {
      path: spec.path,
      method: "GET",
      summary: spec.summary,
      auth: "admin",
      access: "read",
      refusals: spec.refusals,
      params: listInput(spec.idParam, spec.idAlias),
    },
    async (c, { one, page, perPage }) => {
      if (one) {
        let row = await entryOfKind(c.var.service, { kind: spec.kind, id: one.id });
        if (row && spec.byPartner)
          row =
            row.partnerId === null
              ? undefined
              : await entryOfKind(c.var.service, { kind: spec.kind, id: row.partnerId });
        if (!row) {
          const { message, error } = spec.unknown(one.ref);
          return fail(c, 404, message, error);
        }
        return ok(c, 200, spec.found, spec.record(row, c));
      }
      const { rows, total } = await entriesOfKind(c.var.service, {
        kind: spec.kind,
        offset: (page - 1) * perPage,
        limit: perPage,
      });
      const headers = pageHeaders(c, total, page, perPage);
      if (rows.length === 0) return fail(c, 404, spec.empty.message, spec.empty.error, headers);
      return ok(
        c,
        200,
        spec.message,
        rows.map((row) => spec.record(row, c)),
        headers,
      );
    },
  );

/** The plugin's 404s: an id no entry or wallet has, and a list with nothing in it. */
export const LIST_REFUSED = {
  unknownTransaction: (id: string) => ({
    message: "Transaction not Found",
    error: [`Invalid Transaction Id ${id}`],
  }),
  unknownTransfer: { message: "Transfer not found", error: "Invalid Transfer Id" },
  unknownWallet: { message: "Wallet not found", error: [INVALID_WALLET_ID] },
  noCredits: {
    error: "Sorry we couldnt retrieve any Credit at the moment",
    message: "No wallet Found",
  },
  noDebits: {
    error: "Sorry we couldnt retrieve any Debit at the moment",
    message: "No Debit Found",
  },
  noTransfers: {
    error: "You have not made any transfer at the moment",
    message: "No wallet Found",
  },
  noWallets: {
    message: "Wallet Not found",
    data: ["We are sorry we cannot retrieve any wallet at the moment"],
  },
} as const;

export const compatCreditList = list({
  path: "/credits",
  summary: "Credits, newest first, or one by credit_id",
  kind: "credits",
  refusals: keyRouteRefusals("rimplenet_get_credits"),
  idParam: "credit_id",
  message: "Credits Retrieved",
  found: "Transacrion Retrieved",
  unknown: LIST_REFUSED.unknownTransaction,
  empty: LIST_REFUSED.noCredits,
  record: (row) => movementRecord(row, "credits"),
});

export const compatDebitList = list({
  path: "/debits",
  summary: "Debits, newest first, or one by debit_id",
  kind: "debits",
  refusals: keyRouteRefusals("rimplenet_get_debits"),
  idParam: "debit_id",
  idAlias: "debits_id",
  message: "Debits Retrieved",
  found: "Transacrion Retrieved",
  unknown: LIST_REFUSED.unknownTransaction,
  empty: LIST_REFUSED.noDebits,
  record: (row) => movementRecord(row, "debits"),
});

export const compatTransferList = list({
  path: "/transfers",
  summary: "Transfers, newest first, or one by transfer_id",
  kind: "transfers",
  refusals: jwtRouteRefusals,
  idParam: "transfer_id",
  message: "Transfers Retrieved",
  found: "Transfer Retrieved",
  unknown: () => LIST_REFUSED.unknownTransfer,
  byPartner: true,
  empty: LIST_REFUSED.noTransfers,
  record: (row, c) => transferRecord(row, siteTimeZone(c.env)),
});

type WalletRow = Awaited<ReturnType<typeof walletRows>>[number];

/** A wallet as the plugin's walletFormat read its post meta: text, the withdrawal limits' defaults too. */
const walletRecord = ({ postId, wallet: w }: WalletRow) => ({
  // The wallet's WordPress post id is not kept; its own post_id (db/wallets.ts listWalletRows) stands in.
  post_id: postId,
  wallet_id: w.id,
  wallet_name: w.name,
  wallet_symbol: w.symbol,
  wallet_max_wdr_amount: String(MAX_WITHDRAWAL),
  wallet_min_wdr_amount: String(MIN_WITHDRAWAL),
  wallet_symbol_position: w.symbolPosition,
  wallet_decimal: String(w.decimals),
  wallet_note: w.note,
  wallet_type: w.type,
});

/** `GET wallets` (includes/wallets/get-wallets.php walletFormat): every wallet, as post meta text. */
export const compatWalletList = defineRoute(
  {
    path: "/wallets",
    method: "GET",
    summary: "Every wallet",
    auth: "admin",
    access: "read",
    refusals: jwtRouteRefusals,
    // No parameters: its query and body are read (a malformed one is refused) and ignored.
    params: pathFields(v.object({})),
  },
  async (c) => {
    const wallets = await walletRows(c.var.service);
    if (wallets.length === 0)
      return send(c, 404, { status_code: 404, status: true, ...LIST_REFUSED.noWallets });
    // WP_Query's order, newest first.
    const newestFirst = wallets.toSorted((a, b) => b.postId - a.postId);
    return ok(c, 200, "Wallet Retrieved", newestFirst.map(walletRecord));
  },
);

/**
 * `GET wallets/{wallet}` (api/core/wallets/get-wallet.php, getWallet): one wallet, the record of
 * `GET wallets`; its path is `[a-zA-Z0-9_]+` (other text is no route). The plugin also found a
 * wallet by its WordPress post id; here only by its id, case-insensitively, as everywhere.
 */
export const compatWalletOne = defineRoute(
  {
    path: "/wallets/{wallet}",
    method: "GET",
    summary: "One wallet",
    auth: "admin",
    access: "read",
    refusals: jwtRouteRefusals,
    params: pathFields(WalletPath),
    patterns: { wallet: "[a-zA-Z0-9_]+" },
  },
  async (c, { wallet: { id } }) => {
    const found =
      id === null ? undefined : (await walletRows(c.var.service)).find((w) => w.wallet.id === id);
    if (!found) {
      const { message, error } = LIST_REFUSED.unknownWallet;
      return fail(c, 404, message, error);
    }
    return ok(c, 200, "Wallet Retrieved", walletRecord(found));
  },
);
