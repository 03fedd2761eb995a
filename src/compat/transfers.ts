import * as v from "valibot";
import { ok } from "../http/envelope";
import { ApiError, balanceLimitText, invalidInput } from "../http/errors";
import { noteRefusal, REQUEST_ID_MAX } from "../http/fields";
import { defineRoute, type Input } from "../http/route";
import type { ServiceContext } from "../wallet/context";
import { transfer, type UserRef } from "../wallet/movements";
import { Refusal, type RefusalReason, type RefusedMove, refusalOf } from "../wallet/refusal";
import { formatMoney } from "../wallet/rules";
import { spendable } from "../wallet/summary";
import { amountRefused, overlongRefused, PLUGIN_ROUNDING } from "./amounts";
import { jwtRouteRefusals } from "./auth";
import { pluginUser } from "./identity";
import { requires, sanitizeTextField } from "./php";
import { invalidWallet } from "./respond";
import { TransferRequest } from "./schemas";

// `POST transfers` (api/core/transfers/create-transfers.php, includes/transfers/create-transfers.php):
// `transfer_from_user`, `transfer_to_user`, `amount_to_transfer`, `wallet_id`, `note`, an
// administrator's call, answered "Transfer Action Completed" with the sender's entry as `transfer`.
// Written as one atomic pair through the same ledger function as /wp-json/wallet/v1 transfers:
// never overdrawn, race-safe. The plugin had no idempotency key, so neither must a client send one:
// without `request_id` each call is a new transfer, as on the plugin (a retried call moves money
// again); with one (letters, digits, underscore) a repeat is answered 409 and moves nothing.

/** A request_id refused: not a key after sanitizing, or too long to store. */
export const TRANSFER_REQUEST_ID_TEXT = `request_id can contain aplhpabets, numbers and underscore, at most ${REQUEST_ID_MAX} characters`;

/** A transfer's fields, sanitized as the plugin read them and checked by its rules; its users named. */
const transferInput: Input<{
  from: UserRef;
  amount: string;
  to: UserRef;
  wallet: string;
  requestId: string;
  note: string;
  /** The amount as the plugin echoed it: a JSON number in PHP's text of it (`-1.0E-5`). */
  shown: string;
}> = {
  schema: TransferRequest,
  read: (_c, params) => {
    const f = v.parse(TransferRequest, params);
    const fields = {
      from: f.transfer_from_user,
      amount: f.amount_to_transfer,
      to: f.transfer_to_user,
      wallet: f.wallet_id,
    };
    const errors = requires({
      transfer_from_user: [fields.from, "int"],
      amount_to_transfer: [fields.amount, "amount"],
      transfer_to_user: [fields.to, "int"],
      wallet_id: [fields.wallet, "alnum"],
    });
    // Optional: absent or "" is no key. Sent, it must survive sanitizing as a key (a list, an
    // object, `false` or only `%hh` octets leave nothing), else a retry would move money again.
    const sent = f.request_id;
    const requestId = sanitizeTextField(sent ?? "");
    if (
      sent !== undefined &&
      sent !== "" &&
      (requires({ request_id: [requestId, "alnum"] }).request_id !== undefined ||
        requestId.length > REQUEST_ID_MAX)
    )
      errors.request_id = TRANSFER_REQUEST_ID_TEXT;
    if (!errors.amount_to_transfer)
      Object.assign(errors, overlongRefused("amount_to_transfer", fields.amount));
    const note = f.note;
    const noteError = noteRefusal(note);
    if (noteError) errors.note = noteError;
    if (Object.keys(errors).length > 0) throw invalidInput(errors);
    // The amount is read from a JSON number's digits, but the plugin echoed what its
    // sanitize_text_field made of the float json_decode held: PHP's text of it.
    const sentAmount = params.amount_to_transfer;
    const shown = typeof sentAmount === "number" ? sanitizeTextField(sentAmount) : fields.amount;
    return {
      ...fields,
      from: pluginUser(fields.from),
      to: pluginUser(fields.to),
      requestId,
      note,
      shown,
    };
  },
};

export const compatTransfers = defineRoute(
  {
    path: "/transfers",
    method: "POST",
    summary: "Move money between two users atomically",
    auth: "admin",
    movesMoney: true,
    access: "write",
    refusals: jwtRouteRefusals,
    params: transferInput,
  },
  async (c, { requestId, note, shown, ...fields }) => {
    const moved = await transfer(c.var.service, {
      from: fields.from,
      to: fields.to,
      walletId: fields.wallet,
      amount: { sent: fields.amount, policy: PLUGIN_ROUNDING },
      // Without a key the transfer still needs one to be written: a fresh one, never repeated.
      requestId: requestId || `transfer_${crypto.randomUUID().replaceAll("-", "")}`,
      keyDrawn: !requestId,
      note,
      // The plugin's "TRANSFER to <user> <note>", without its trailing space when no note was
      // sent; the note as sanitized (a no-break space at its end is kept, as there).
      notes: (from, to) => ({
        debit: [`TRANSFER to ${to.username}`, note].filter(Boolean).join(" "),
        credit: [`TRANSFER from ${from.username}`, note].filter(Boolean).join(" "),
      }),
    }).catch(async (err: unknown) => {
      const reason = refusalOf(err);
      if (reason?.code === "insufficient_balance")
        throw await insufficient(c.var.service, reason.refused);
      throw reason ? transferRefused(reason, fields.amount, shown) : err;
    });
    return ok(c, 200, "Transfer Action Completed", { transfer: moved.debitId });
  },
);

/**
 * The plugin's refusal of a transfer past the sender's balance: a sentence naming the amount, what
 * the sender may move ("mature") and what it may not yet ("immature": here, what holds reserve),
 * the symbol always first, as its `number_format` wrote them.
 */
async function insufficient(ctx: ServiceContext, refused: RefusedMove | undefined) {
  // Named from the sender's position when the transfer was refused, not after money arrived.
  const held = refused && (await spendable(ctx, refused));
  if (!refused || !held) return new Refusal({ code: "insufficient_balance" });
  const { wallet, availableMinor, heldMinor } = held;
  const money = (m: number) => formatMoney(m, { ...wallet, symbolPosition: "left" });
  return insufficientBalance({
    sent: money(refused.amountMinor),
    name: wallet.name,
    available: money(availableMinor),
    held: money(heldMinor),
  });
}

/** The plugin's words for a transfer past the sender's balance, its figures already written. */
export const insufficientBalance = (t: {
  sent: string;
  name: string;
  available: string;
  held: string;
}) =>
  new ApiError(
    400,
    "Insufficient Balance",
    `Amount to transfer - [${t.sent}] is larger than the amount in your mature wallet, input amount not more than the balance in your ( ${t.name} mature wallet - [${t.available}] ), the balance in your ( ${t.name} immature wallet  - [${t.held}] )  cannot be transferred until maturity`,
  );

/** A refusal of the transfer verb in the plugin's words; `shown` is the amount as it echoed it. */
export function transferRefused(reason: RefusalReason, amount: string, shown: string) {
  switch (reason.code) {
    case "user_not_found":
      return new ApiError(400, `Unable to reach ${reason.userId}`, [
        `Invalid User ${reason.userId}`,
      ]);
    case "same_user":
      return invalidInput({
        transfer_to_user: "transfer_to_user must differ from transfer_from_user",
      });
    case "wallet_not_found":
      return invalidWallet();
    // The receiver's balance, keyed by the field the plugin's transfers have.
    case "balance_limit":
      return invalidInput({ amount_to_transfer: balanceLimitText("amount_to_transfer") });
    // The plugin's empty() took "0" for a missing field, then refused what was below 0.
    case "amount_refused":
      if (reason.refusal === "not-positive" && amount === "0")
        return new ApiError(400, "", "One or more compulsory field is empty");
      if (reason.refusal === "not-positive" && Number(amount) < 0)
        return new ApiError(
          400,
          "Request amount is below minimum transfer amount",
          `Requested amount [${shown}] is below minimum transfer amount, input amount not less than 0`,
        );
      return invalidInput(amountRefused("amount_to_transfer", reason.refusal));
    default:
      return new Refusal(reason);
  }
}
