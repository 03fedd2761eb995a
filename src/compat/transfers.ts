import * as v from "valibot";
import { findUsers } from "../db/users";
import { findWalletCached } from "../db/wallets";
import { send } from "../http/envelope";
import { invalidInput } from "../http/errors";
import { MAX_TEXT } from "../http/fields";
import { defineRoute, type Input } from "../http/route";
import { entryStamp } from "../http/site";
import { amountToMinor } from "../ledger/money";
import { transfer } from "../wallet/movements";
import { jwtRouteRefusals } from "./auth";
import { amountRefused, REQUEST_ID_MAX } from "./entries";
import { pluginUserId } from "./identity";
import { requires, sanitizeTextField } from "./php";
import { TransferRequest } from "./schemas";

// `POST transfers` (api/core/transfers/create-transfers.php, includes/transfers/create-transfers.php):
// `transfer_from_user`, `transfer_to_user`, `amount_to_transfer`, `wallet_id`, `note`, an
// administrator's call, answered "Transfer Action Completed" with the sender's entry as `transfer`.
// Written as one atomic pair through the same ledger function as /wp-json/wallet/v1 transfers:
// never overdrawn, race-safe. The plugin had no idempotency key, so neither must a client send one:
// without `request_id` each call is a new transfer, as on the plugin (a retried call moves money
// again); with one (letters, digits, underscore) a repeat is answered 409 and moves nothing.

const plainError = (status: number, message: string, error: unknown) => ({
  status_code: status,
  status: false,
  message,
  error,
});

/** A transfer's fields, sanitized as the plugin read them and checked by its rules. */
const transferInput: Input<{
  from: string;
  amount: string;
  to: string;
  wallet: string;
  requestId: string;
  note: string;
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
      errors.request_id = `request_id can contain aplhpabets, numbers and underscore, at most ${REQUEST_ID_MAX} characters`;
    const note = f.note;
    if ([...note].length > MAX_TEXT) errors.note = `note must be at most ${MAX_TEXT} characters`;
    if (Object.keys(errors).length > 0) throw invalidInput(errors);
    return { ...fields, requestId, note };
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
    envelope: "A",
  },
  async (c, { requestId, note, ...fields }) => {
    const db = c.var.db;
    // Both are digits (`requires` above), so naming them costs no query.
    const [fromId, toId] = [await pluginUserId(db, fields.from), await pluginUserId(db, fields.to)];
    const users = await findUsers(
      db,
      [fromId, toId].filter((id): id is number => id !== null),
    );
    const [from, to] = [users.get(fromId ?? 0), users.get(toId ?? 0)];
    if (!from)
      return send(
        c,
        400,
        plainError(400, `Unable to reach ${fields.from}`, [`Invalid User ${fields.from}`]),
      );
    if (!to)
      return send(
        c,
        400,
        plainError(400, `Unable to reach ${fields.to}`, [`Invalid User ${fields.to}`]),
      );
    if (from.id === to.id)
      throw invalidInput({
        transfer_to_user: "transfer_to_user must differ from transfer_from_user",
      });
    const wallet = await findWalletCached(db, fields.wallet);
    if (!wallet)
      return send(c, 404, plainError(404, "Invalid Wallet", ["Invalid Wallet Provided"]));
    const amountMinor = amountToMinor(fields.amount, wallet, "round-half-away-from-zero");
    if (typeof amountMinor !== "number")
      throw invalidInput(amountRefused("amount_to_transfer", amountMinor));

    const spec = {
      wallet,
      amountMinor,
      amountText: fields.amount,
      // Without a key the transfer still needs one to be written: a fresh one, never repeated.
      requestId: requestId || `transfer_${crypto.randomUUID().replaceAll("-", "")}`,
      note,
    };
    const moved = await transfer(
      { db, ledger: c.var.ledger, stamp: entryStamp(c) },
      {
        ...spec,
        from,
        to,
        notes: {
          debit: `TRANSFER to ${to.username} ${note}`.trim(),
          credit: `TRANSFER from ${from.username} ${note}`.trim(),
        },
      },
    );
    return send(c, 200, {
      status_code: 200,
      status: true,
      message: "Transfer Action Completed",
      data: { transfer: moved.debitId },
    });
  },
);
