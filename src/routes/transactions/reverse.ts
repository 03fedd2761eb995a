import { findMovement } from "../../db/ledger";
import { findWalletCached } from "../../db/wallets";
import { requireAdmin } from "../../http/auth";
import { ok } from "../../http/envelope";
import { alreadyReversed, invalidInput, transactionExists } from "../../http/errors";
import { readParams } from "../../http/params";
import { entryStamp } from "../../http/site";
import { parseFields } from "../../http/validation";
import { appendEntries, LedgerRefusal } from "../../ledger/append";
import { entry } from "../../ledger/entries";
import { ReversalAnswer } from "../answers";
import { defineRoute, pathParam } from "../route";
import { transactionNotFound } from "./read";
import { ReverseParams } from "./schemas";

/**
 * Reverses an entry by appending its opposite, linked by reverses_id (never editing it). A transfer
 * is reversed as a whole. UNIQUE(reverses_id) makes a second reversal write nothing; a reversal that
 * would overdraw (leave a balance below zero and lower) fails the overdraft CHECK like any debit.
 */
export const reverseTransaction = defineRoute(
  {
    path: "/transactions/{id}/reverse",
    method: "POST",
    summary: "Reverse a transaction (a transfer as a whole)",
    auth: "admin",
    params: ReverseParams,
    envelope: "A",
    errors: [
      "invalid_input",
      "transaction_not_found",
      "insufficient_balance",
      "transaction_exists",
      "already_reversed",
    ],
    success: 200,
    data: ReversalAnswer,
    patterns: { id: "[0-9]+" },
  },
  async (c) => {
    requireAdmin(c, "write");
    const fields = parseFields(ReverseParams, await readParams(c));
    const raw = pathParam(c, "id");
    const db = c.var.db;
    const movement = raw.length <= 15 ? await findMovement(db, Number(raw)) : [];
    const named = movement.find((m) => m.entry.id === Number(raw));
    if (!named) throw transactionNotFound(raw);
    if (movement.some((m) => m.entry.reversesId !== null))
      throw invalidInput({ id: "a reversal cannot be reversed" });
    // Only an entry imported from WordPress can be zero; its opposite would be a zero movement, which
    // the API never writes (and the database refuses for the service's own entries).
    if (named.entry.amountMinor === 0)
      throw invalidInput({ id: "a transaction of zero cannot be reversed" });
    const wallet = (await findWalletCached(db, named.entry.walletId))!;

    // The named entry's user owns the request_id; its reversal goes first so a replay finds it.
    const ordered = [named, ...movement.filter((m) => m !== named)];
    const transferId = ordered.length > 1 ? crypto.randomUUID() : undefined;
    const stamp = entryStamp(c);
    const [first, ...rest] = ordered.map(({ entry: e, username }, i) =>
      entry(
        {
          user: { id: e.userId, username },
          wallet,
          txnType: e.txnType === "CREDIT" ? "DEBIT" : "CREDIT",
          amountMinor: e.amountMinor,
          amountText: e.amountText,
          requestId: fields.request_id,
          keyed: i === 0,
          note: fields.note || `Reversal of transaction ${e.id}`,
          transferId,
          reversesId: e.id,
        },
        stamp,
      ),
    );
    const result = await appendEntries(db, [first!, ...rest]).catch((err: unknown) => {
      // The UNIQUE reverses_id index: a concurrent reversal of this movement got there first.
      throw err instanceof LedgerRefusal && err.reason === "already-reversed"
        ? alreadyReversed(raw)
        : err;
    });
    if (!result.created && result.existingId !== undefined)
      throw transactionExists(result.existingId);
    if (!result.created) throw alreadyReversed(raw);
    return ok(c, 200, "Transaction Reversed", {
      transaction_ids: result.ids,
      reversed_transaction_ids: ordered.map((m) => m.entry.id),
    });
  },
);
